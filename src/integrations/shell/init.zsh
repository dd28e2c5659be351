# cmdguard for interactive zsh. Put `eval "$(cmdguard init zsh)"` at the end of ~/.zshrc (after
# plugins that wrap accept-line). Each line is checked when Enter accepts it: allow runs
# quietly, ask prints the reasons and runs, deny prints the reasons, keeps the line in history
# for editing and runs nothing. CMDGUARD_DISABLE=1 turns the check off in this shell.
#
# How: the accept-line widgets are wrapped; the wrapper checks the whole text Enter accepts:
# $PREBUFFER (the lines of a construct continued on the next line, PS2) and $BUFFER, after
# history expansion (`!!`, `!rm`, `^a^b`, which zsh applies after the widget). A denied
# continued construct is abandoned whole. `r` and `fc` (other than `fc -l`) re-run history
# text the check cannot see, so they are refused. Before each prompt the hook makes sure Enter
# still reaches it. If cmdguard is missing or fails, the line runs with a warning: the shell
# stays usable.
if [[ -o interactive && -z ${__cmdguard_bin-} ]]; then
  # Read-only, so that a later line cannot quietly point the hook elsewhere; a line that names
  # the hook's functions (__cmdguard_*) is blocked.
  typeset -gr __cmdguard_bin=@PROGRAM@

  # Checks $PREBUFFER$BUFFER; status 1 when it is denied. Ask and failures only warn.
  __cmdguard_check() {
    [[ -n ${CMDGUARD_DISABLE-} && ${CMDGUARD_DISABLE-} != 0 ]] && return 0
    local line=$PREBUFFER$BUFFER
    [[ -z ${line//[[:space:]]/} ]] && return 0
    local out st
    if [[ $line == *__cmdguard_* ]]; then
      zle -I
      print -ru2 -- "cmdguard: denied, not run: the line touches the shell hook itself (__cmdguard_*)"
      return 1
    fi
    # `r` and `fc` in command position re-run history text (a denied line is kept there).
    local -a words=(${(z)line})
    local i prev=';'
    for (( i = 1; i <= $#words; i++ )); do
      if [[ $prev == (';'|'&&'|'||'|'|'|'|&'|'&'|'!'|'('|'{'|do|then|else|time) ]] &&
        [[ ${words[i]} == r || ( ${words[i]} == fc && ${words[i+1]-} != -l* ) ]]; then
        zle -I
        print -ru2 -- "cmdguard: denied, not run: \`${words[i]}\` re-runs history text cmdguard cannot check; type the command itself"
        return 1
      fi
      prev=${words[i]}
    done
    out=$("$__cmdguard_bin" check -- "$line" 2>&1)
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
    # zsh expands history after this widget: expand it here, so the check reads what runs.
    if [[ -o banghist && ( $BUFFER == *'!'* || $BUFFER == '^'* ) ]]; then
      zle .expand-history
    fi
    if ! __cmdguard_check; then
      print -rs -- "$PREBUFFER$BUFFER"
      if [[ -n $PREBUFFER ]]; then
        # The earlier lines of the construct are already accepted: abandon all of it.
        zle .send-break
        return
      fi
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

  # Before each prompt: Enter (^M, ^J) must still reach the wrapper. A line that rebound it
  # to the builtin widget, or replaced the accept-line widget, would turn the hook off
  # without a word: put it back, and say so.
  __cmdguard_precmd() {
    local map key bound
    if [[ ${widgets[accept-line]-} != user:__cmdguard_accept ]]; then
      print -ru2 -- "cmdguard: warning: the accept-line widget was replaced; cmdguard put its check back"
      zle -N accept-line __cmdguard_accept
    fi
    for map in main viins vicmd; do
      for key in '^M' '^J'; do
        bound=${${(z)$(bindkey -M $map -- $key 2>/dev/null)}[-1]}
        [[ -z $bound || $bound == undefined-key ]] && continue
        if [[ $bound == .* || ( ${widgets[$bound]-} == builtin && $bound == accept-* ) ]]; then
          print -ru2 -- "cmdguard: warning: $key was bound to $bound in keymap $map, past cmdguard's check; cmdguard bound it back"
          bindkey -M $map -- $key ${bound#.}
        fi
      done
    done
  }
  autoload -Uz add-zsh-hook
  add-zsh-hook precmd __cmdguard_precmd
fi
