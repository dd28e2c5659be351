# cmdguard for interactive fish. Put `cmdguard init fish | source` at the end of
# ~/.config/fish/config.fish. Each command line is checked when Enter would run it: allow runs
# quietly, ask prints the reasons and runs, deny prints the reasons, keeps the line in history
# and runs nothing. CMDGUARD_DISABLE=1 turns the check off in this shell.
#
# How: Enter is bound (in the default and vi insert modes) to a function that checks the whole
# command line, then executes it. cmdguard reads the line as bash: fish-only syntax such as
# `(cmd)` or `begin; …; end` asks, and the reasons are bash's reading. If cmdguard is missing or
# fails, the line runs with a warning: the shell stays usable.
if status is-interactive; and not set -q __cmdguard_bin
    set -g __cmdguard_bin @PROGRAM@

    function __cmdguard_enter
        # An incomplete line (an open quote or block): Enter inserts a newline, as usual.
        if not commandline --is-valid
            commandline -f execute
            return
        end
        set -l line (commandline | string collect)
        if test -n "$CMDGUARD_DISABLE" -a "$CMDGUARD_DISABLE" != 0
            or test -z (string trim -- "$line")
            commandline -f execute
            return
        end
        set -l out
        set -l st
        if string match -q '*__cmdguard_*' -- "$line"
            # A line that names the hook's own functions or variables could turn it off.
            set out 'the line touches the shell hook itself (__cmdguard_*)'
            set st 2
        else
            set out ($__cmdguard_bin check -- "$line" 2>&1 | string collect)
            set st $pipestatus[1]
        end
        switch $st
            case 0
            case 1
                printf '\ncmdguard: ask, running it anyway:\n%s\n' "$out" >&2
            case 2
                printf '\ncmdguard: denied, not run:\n%s\n' "$out" >&2
                builtin history append -- "$line" 2>/dev/null
                commandline -r ''
                commandline -f repaint
                return
            case '*'
                printf '\ncmdguard: could not check this command (exit status %s), running it unchecked:\n%s\n' $st "$out" >&2
        end
        commandline -f execute
    end

    function __cmdguard_bind --on-variable fish_key_bindings
        bind \r __cmdguard_enter
        bind \n __cmdguard_enter
        bind -M insert \r __cmdguard_enter 2>/dev/null
        bind -M insert \n __cmdguard_enter 2>/dev/null
    end
    __cmdguard_bind

    # Before each prompt: Enter must still reach the check. A line that rebound it (to
    # `execute`, say) would turn the hook off without a word: bind it back, and say so.
    function __cmdguard_prompt --on-event fish_prompt
        for mode in default insert
            for key in \r \n
                set -l now (bind -M $mode $key 2>/dev/null | string collect)
                if test -n "$now"; and not string match -q '*__cmdguard_enter*' -- "$now"
                    printf 'cmdguard: warning: Enter was bound past cmdguard\'s check (%s); cmdguard bound it back\n' "$now" >&2
                    __cmdguard_bind
                    return
                end
            end
        end
    end
end
