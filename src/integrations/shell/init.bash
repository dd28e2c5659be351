# cmdguard for interactive bash (4.4 or newer). Put `eval "$(cmdguard init bash)"` at the end
# of ~/.bashrc. Each command line is checked once, after bash has read it and before it runs:
# allow runs quietly, ask prints the reasons and runs, deny prints the reasons and skips every
# command of the line. CMDGUARD_DISABLE=1 turns the check off in this shell.
#
# How: PS0 (expanded once per command line, before it runs) checks the line as history saved it
# and stores the verdict; a DEBUG trap with `extdebug` returns 1 before each simple command of a
# denied line, which makes bash skip it. A line history did not save (HISTCONTROL=ignorespace,
# ignoredups, HISTIGNORE, `set +o history`) is checked one simple command at a time instead.
# If cmdguard is missing or fails, the line runs with a warning: the shell stays usable.
if [[ $- == *i* && -z ${__cmdguard_bin-} ]]; then
  if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] < 404)); then
    printf 'cmdguard: bash %s has no PS0 (4.4 or newer needed); commands are not checked\n' \
      "$BASH_VERSION" >&2
  else
    __cmdguard_bin=@PROGRAM@
    # The reset command PROMPT_COMMAND runs is recognised by this number, which a typed or
    # pasted line cannot know, so no line can end its own denial.
    __cmdguard_nonce=$RANDOM$RANDOM$RANDOM
    # 0 between lines; for the running line: 10 checked and runs, 12 denied, 14 asked (runs,
    # and each top-level simple command is checked again quietly: `fc -s`, an alias or `eval`
    # runs text the line's check did not see), any other value (1, 13) checked one simple
    # command at a time.
    __cmdguard_verdict=0
    # HISTCMD at the prompt: the number history gives the next line it saves.
    __cmdguard_next=-1

    __cmdguard_off() {
      [[ -n ${CMDGUARD_DISABLE-} && ${CMDGUARD_DISABLE-} != 0 ]]
    }

    # Checks one command; status 1 when it is denied, 3 when it asked (it runs). Ask and
    # failures only warn, unless $2 is `quiet`: then only a denial speaks.
    __cmdguard_check() {
      local out status
      if [[ $1 == *__cmdguard_* ]]; then
        printf 'cmdguard: denied, not run: the line touches the shell hook itself (__cmdguard_*)\n' >&2
        return 1
      fi
      out=$("$__cmdguard_bin" check -- "$1" 2>&1)
      status=$?
      case $status in
        0) return 0 ;;
        1)
          [[ ${2-} == quiet ]] || printf 'cmdguard: ask, running it anyway:\n%s\n' "$out" >&2
          return 3
          ;;
        2)
          printf 'cmdguard: denied, not run:\n%s\n' "$out" >&2
          return 1
          ;;
        *)
          printf 'cmdguard: could not check this command (exit status %s), running it unchecked:\n%s\n' \
            "$status" "$out" >&2
          ;;
      esac
      return 0
    }

    # Runs inside PS0's command substitution; prints 0 (runs), 2 (denied) or 3 (check each
    # simple command), which PS0 stores in __cmdguard_verdict of the shell itself.
    __cmdguard_ps0() {
      if __cmdguard_off; then
        echo 0
        return
      fi
      if [[ $(trap -p DEBUG) != *__cmdguard_trap* ]] || ! shopt -q extdebug; then
        printf 'cmdguard: warning: the DEBUG trap or extdebug was changed; denied commands are no longer blocked\n' >&2
      fi
      local last
      last=$(HISTTIMEFORMAT='' builtin history 1)
      if [[ $last =~ ^\ *([0-9]+)[*\ ]\ (.*)$ && ${BASH_REMATCH[1]} == "$__cmdguard_next" ]]; then
        __cmdguard_check "${BASH_REMATCH[2]}"
        case $? in
          0) echo 0 ;;
          3) echo 4 ;;
          *) echo 2 ;;
        esac
      else
        echo 3
      fi
    }

    # PROMPT_COMMAND's first command. The trap does the work: with functrace, the commands
    # of a function body would themselves meet the trap of a denied line.
    __cmdguard_reset() { :; }

    # The DEBUG trap: status 1 skips the simple command about to run (extdebug).
    __cmdguard_trap() {
      if [[ $BASH_COMMAND == "__cmdguard_reset $__cmdguard_nonce" ]]; then
        __cmdguard_verdict=0
        __cmdguard_next=$HISTCMD
        # PS0 does the checking: a line that cleared it, or turned prompt expansion off,
        # would turn the hook off without a word. Put it back, and say so.
        if ! shopt -q promptvars || [[ ${PS0-} != *"$__cmdguard_ps0_text"* ]]; then
          printf 'cmdguard: warning: PS0 or promptvars was changed; cmdguard put its check back\n' >&2
          shopt -s promptvars
          PS0=$__cmdguard_ps0_text${PS0-} 2>/dev/null ||
            printf 'cmdguard: warning: PS0 cannot be set; lines are no longer checked\n' >&2
        fi
        return 0
      fi
      case $__cmdguard_verdict in
        0 | 10) return 0 ;;
        12) return 1 ;;
        # A command the line runs at its top level (not inside a function it calls, which
        # would cost a check per command of the function).
        14)
          ((${#FUNCNAME[@]} > 1)) && return 0
          __cmdguard_check "$BASH_COMMAND" quiet
          [[ $? != 1 ]]
          return
          ;;
        # CMDGUARD_DISABLE was read when the line started: a command of the line cannot turn
        # the check off for the commands after it.
        *)
          __cmdguard_check "$BASH_COMMAND"
          [[ $? != 1 ]]
          ;;
      esac
    }

    # Left to right: forget the last verdict, check this line (the substitution runs in a
    # subshell; the arithmetic assignment lands in this shell: "1" + the digit, "1" alone when
    # the check printed nothing), then forget the history number so that a line after a
    # missed reset is checked command by command.
    # (Each subscript ends in `,0` so that it is a valid index whatever was assigned.)
    __cmdguard_ps0_text='${__cmdguard_v[__cmdguard_verdict=0,0]-}${__cmdguard_v[__cmdguard_verdict=1$(__cmdguard_ps0),0]-}${__cmdguard_v[__cmdguard_next=-1,0]-}'
    # A later line cannot quietly point the hook elsewhere or redefine it.
    readonly __cmdguard_bin __cmdguard_nonce __cmdguard_ps0_text
    readonly -f __cmdguard_off __cmdguard_check __cmdguard_ps0 __cmdguard_reset __cmdguard_trap

    shopt -s extdebug
    # Subshells, command substitutions and functions inherit the trap.
    set -o functrace
    trap '__cmdguard_trap' DEBUG
    PS0=$__cmdguard_ps0_text${PS0-}
    PROMPT_COMMAND="__cmdguard_reset $__cmdguard_nonce${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}"
  fi
fi
