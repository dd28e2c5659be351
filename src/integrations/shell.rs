//! shell: the snippets `cmdguard init bash|zsh|fish` prints, which check each interactive
//! command line with `cmdguard check` before the shell runs it. It only renders text; the
//! snippets call the binary, and the verdict is the binary's.
//!
//! Each snippet warns on `ask` and lets the line run, blocks the whole line on `deny`, turns
//! itself off when `CMDGUARD_DISABLE` is set to anything but `0` or empty, and fails safe when
//! the binary is missing or exits with any other status (64 usage, 70 internal, 78 config,
//! 126/127 not runnable): the line runs after a warning that it was not checked, so a broken
//! install can never lock a person out of their shell, and never runs a line silently. The
//! snippet files (`shell/init.*`) say how each shell is hooked and where the hook cannot see.

/// A shell `cmdguard init` supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shell {
    /// bash 4.4 or newer: PS0 checks the line, a DEBUG trap with `extdebug` skips a denied
    /// line's commands.
    Bash,
    /// zsh: the `accept-line` widgets check `$BUFFER`.
    Zsh,
    /// fish: Enter is bound to a function that checks `commandline`.
    Fish,
}

impl Shell {
    /// Every supported shell, in the order the CLI lists them.
    pub const ALL: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

    /// The shell's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
        }
    }

    /// The line a user adds to the shell's startup file.
    pub fn install_line(self) -> &'static str {
        match self {
            Shell::Bash => "eval \"$(cmdguard init bash)\"   # at the end of ~/.bashrc",
            Shell::Zsh => "eval \"$(cmdguard init zsh)\"    # at the end of ~/.zshrc",
            Shell::Fish => {
                "cmdguard init fish | source     # at the end of ~/.config/fish/config.fish"
            }
        }
    }

    /// The snippet for this shell, calling `program` (the absolute path of the cmdguard binary,
    /// so that a later change of `PATH` does not change which program checks).
    ///
    /// ```
    /// use cmdguard::integrations::shell::Shell;
    /// let s = Shell::Bash.init_script("/opt/it's/cmdguard");
    /// assert!(s.contains("__cmdguard_bin='/opt/it'\\''s/cmdguard'"));
    /// assert!(s.contains("trap '__cmdguard_trap' DEBUG"));
    /// ```
    pub fn init_script(self, program: &str) -> String {
        let (template, quoted) = match self {
            Shell::Bash => (BASH, posix_quote(program)),
            Shell::Zsh => (ZSH, posix_quote(program)),
            Shell::Fish => (FISH, fish_quote(program)),
        };
        template.replace("@PROGRAM@", &quoted)
    }
}

impl std::fmt::Display for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

const BASH: &str = include_str!("shell/init.bash");
const ZSH: &str = include_str!("shell/init.zsh");
const FISH: &str = include_str!("shell/init.fish");

/// `s` in single quotes for bash and zsh, where nothing inside is special; a quote closes,
/// is escaped, and reopens.
fn posix_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `s` in single quotes for fish, where `\\` and `\'` are the only escapes.
fn fish_quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', r"\\").replace('\'', r"\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_snippet_names_the_program_once_quoted_and_keeps_no_placeholder() {
        for shell in Shell::ALL {
            let s = shell.init_script(r"/a b/c'd\e");
            assert!(!s.contains("@PROGRAM@"), "{shell}");
            let want = match shell {
                Shell::Bash | Shell::Zsh => r"'/a b/c'\''d\e'",
                Shell::Fish => r"'/a b/c\'d\\e'",
            };
            assert_eq!(s.matches(want).count(), 1, "{shell}: {s}");
        }
    }
}
