# cmdguard for interactive zsh. Put `eval "$(cmdguard init zsh)"` at the end of ~/.zshrc (after
# plugins that wrap accept-line). Each line is checked when Enter accepts it: allow runs
# quietly, ask prints the reasons and runs, deny prints the reasons, keeps the line in history
# for editing and runs nothing. CMDGUARD_DISABLE=1 turns the check off in this shell.
#
# How: the accept-line widgets are wrapped; the wrapper checks $BUFFER, the whole text Enter
# accepts. A construct continued on the next line (PS2) is checked one physical line at a time.
# If cmdguard is missing or fails, the line runs with a warning: the shell stays usable.
if [[ -o interactive && -z ${__cmdguard_bin-} ]]; then
  # Read-only, so that a later line cannot quietly point the hook elsewhere; a line that names
  # the hook's functions (__cmdguard_*) is blocked.
  typeset -gr __cmdguard_bin=@PROGRAM@

  # Checks $BUFFER; status 1 when it is denied. Ask and failures only warn.
  __cmdguard_check() {
    [[ -n ${CMDGUARD_DISABLE-} && ${CMDGUARD_DISABLE-} != 0 ]] && return 0
    [[ -z ${BUFFER//[[:space:]]/} ]] && return 0
    local out st
    if [[ $BUFFER == *__cmdguard_* ]]; then
      zle -I
      print -ru2 -- "cmdguard: denied, not run: the line touches the shell hook itself (__cmdguard_*)"
      return 1
    fi
    out=$("$__cmdguard_bin" check -- "$BUFFER" 2>&1)
    st=$?
    case $st in
      0) return 0 ;;
      1)
        zle -I
        print -lru2 -- "cmdguard: ask, running it anyway:" "$out"
        ;;
      2)
        zle -I
        print -lru2 -- "cmdguard: denied, not run:" "$out"
        return 1
        ;;
      *)
        zle -I
        print -lru2 -- "cmdguard: could not check this command (exit status $st), running it unchecked:" "$out"
        ;;
    esac
    return 0
  }

  # One wrapper for every widget that accepts a line: it calls the widget it replaced.
  __cmdguard_accept() {
    if ! __cmdguard_check; then
      print -rs -- "$BUFFER"
      BUFFER=''
      zle .accept-line
      return
    fi
    zle "__cmdguard_orig_$WIDGET" -- "$@"
  }

  () {
    local w
    for w in accept-line accept-and-hold accept-line-and-down-history accept-and-infer-next-history; do
      (( ${+widgets[$w]} )) || continue
      zle -A "$w" "__cmdguard_orig_$w"
      zle -N "$w" __cmdguard_accept
    done
  }
fi
