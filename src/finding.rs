//! finding: the vocabulary every stage shares — byte spans, verdicts, findings, and the rules
//! and matches that explain an outcome.
//!
//! It holds plain data only: it never parses, never walks a tree and never decides which finding a
//! command deserves (that is `check`'s job) or how severe it is (the allowlist's `[severity]`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// What cmdguard says about a command. Ordered from least to most strict, so verdicts combine with
/// `max()`: the strictest finding wins.
///
/// ```
/// use cmdguard::Verdict;
/// assert!(Verdict::Allow < Verdict::Ask && Verdict::Ask < Verdict::Deny);
/// assert_eq!(Verdict::Allow.max(Verdict::Ask), Verdict::Ask);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// May run with no prompt: bash runs only allowlisted programs and writes nothing.
    Allow,
    /// Must not run without an assessor or a human saying yes.
    Ask,
    /// Must not run.
    Deny,
}

impl Verdict {
    /// The lowercase name used in JSON and on the command line (`allow`, `ask`, `deny`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }

    /// The strictest of `verdicts`, [`Verdict::Allow`] when there are none: how findings
    /// combine into the verdict of a command.
    ///
    /// ```
    /// use cmdguard::Verdict;
    /// assert_eq!(Verdict::strictest([Verdict::Ask, Verdict::Allow]), Verdict::Ask);
    /// assert_eq!(Verdict::strictest([]), Verdict::Allow);
    /// ```
    pub fn strictest(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        verdicts.into_iter().max().unwrap_or(Verdict::Allow)
    }

    /// The CLI exit status for this verdict: 0 allow, 1 ask, 2 deny.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Allow => 0,
            Verdict::Ask => 1,
            Verdict::Deny => 2,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A half-open byte range `start..end` into the analysed command. Serialised as `[start, end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.start, self.end].serialize(s)
    }
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [start, end] = <[usize; 2]>::deserialize(d)?;
        Ok(Span { start, end })
    }
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal => $severity:ident, )*) => {
        /// The stable identifier of a kind of finding. Codes never change meaning; new ones may be
        /// added. Each has a default severity that a config file can override under `[severity]`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The snake_case name used in JSON and in `[severity]` tables.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Code::$variant => $name, )*
                }
            }

            /// The severity this code has unless the allowlist overrides it.
            pub fn default_severity(self) -> Verdict {
                match self {
                    $( Code::$variant => Verdict::$severity, )*
                }
            }

            /// Looks a code up by its snake_case name.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $( $name => Some(Code::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    /// A program (or its leading words) that no allowlist entry matches.
    NotAllowlisted = "not_allowlisted" => Ask,
    /// The command word is only known at run time (`$cmd`, `$(…)`, a glob).
    DynamicCommand = "dynamic_command" => Ask,
    /// The program is given as a path outside the standard system directories (`./x`, `~/bin/x`).
    UnusualPath = "unusual_path" => Ask,
    /// The program is given as a path inside a standard system directory (`/usr/bin/ls`).
    SystemPath = "system_path" => Allow,
    /// The output of a substitution becomes arguments of a program whose arguments matter.
    SubstitutedArgument = "substituted_argument" => Ask,
    /// A word known only at run time (parameter, glob, substitution) is an argument of a program
    /// whose arguments are restricted: it could become any flag.
    DynamicArgument = "dynamic_argument" => Ask,
    /// An argument or option the program's rule forbids (it writes, runs or loads something).
    ForbiddenArgument = "forbidden_argument" => Ask,
    /// A `[[deny]]` rule matched: the command is unambiguously destructive.
    Denied = "denied" => Deny,
    /// Unquoted arguments that spell a denied command (`echo rm -rf /`): not run, but suspicious.
    Mention = "mentions_denied" => Ask,
    /// A wrapper that needs a prompt by itself (`sudo`), or one cmdguard cannot see through.
    Wrapper = "wrapper" => Ask,
    /// A program that runs code given to it (`eval`, `source`, `bash -c` with a run-time script).
    Exec = "exec" => Ask,
    /// An operator other than `; && || | ( )` and newline: `&`, `|&`, `coproc`.
    Operator = "operator" => Ask,
    /// Commands separated by a newline rather than `;`.
    Newline = "newline" => Allow,
    /// A command substitution written with backquotes.
    Backtick = "backtick" => Allow,
    /// A redirection that can write a file, open a descriptor or a connection.
    Redirect = "redirect" => Ask,
    /// A harmless redirection other than `>/dev/null`, `1>/dev/null`, `2>/dev/null`, `2>&1`.
    UncommonRedirect = "uncommon_redirect" => Allow,
    /// Input read with `<` from a file outside the working directory (a file inside it is
    /// read like an operand; a `[sensitive]` path asks with `sensitive_read`).
    InputRedirect = "input_redirect" => Ask,
    /// A `<<-` heredoc, whose tab-stripped terminator parsers disagree about.
    HeredocStripTabs = "heredoc_strip_tabs" => Ask,
    /// An assignment to a variable that changes what runs or loads (`PATH`, `LD_PRELOAD`, …), or
    /// an environment prefix whose value runs a substitution.
    Assignment = "assignment" => Ask,
    /// A call of a shell function defined in the same command.
    FunctionCall = "function_call" => Ask,
    /// Arithmetic that can evaluate a variable's value or an array subscript as code.
    Arithmetic = "arithmetic" => Ask,
    /// A parameter expansion that evaluates its value as code (`${!x}`, `${x@P}`).
    EvaluatedExpansion = "evaluated_expansion" => Ask,
    /// A syntax error: bash may read the command differently from cmdguard.
    ParseError = "parse_error" => Ask,
    /// Syntax cmdguard does not analyse.
    UnsupportedSyntax = "unsupported_syntax" => Ask,
    /// A place where tree-sitter-bash and bash are known to read the text differently.
    ParserMismatch = "parser_mismatch" => Ask,
    /// A configured limit (size, nesting, segment count, expansion count) was exceeded.
    LimitExceeded = "limit_exceeded" => Ask,
    /// Input bash would read differently from its text: invalid UTF-8, NUL, control characters.
    InvalidInput = "invalid_input" => Ask,
    /// An allowed git command would run in a repository whose own config or hooks name a
    /// program git runs (`core.fsmonitor`, a textconv driver…), or in a directory only known at
    /// run time. Only found when the analysis is given a working directory.
    RepoConfig = "repo_config" => Ask,
    /// A command reads a path the `[sensitive]` table lists (`~/.ssh/id_rsa`, `.env`,
    /// `/proc/1/environ`), through an operand, a `<` redirect, a glob, a recursive search or a
    /// symlink: what it prints would carry a secret to whoever reads the output.
    SensitiveRead = "sensitive_read" => Ask,
    /// A command prints the environment (`env`, `ps e`, `jq -n env`, awk's `ENVIRON`) or a
    /// variable whose name the `[sensitive]` table says looks like a secret (`$GITHUB_TOKEN`).
    PrintsEnvironment = "prints_environment" => Ask,
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reason the command is not simply allowed, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier of the kind of finding.
    pub code: Code,
    /// A sentence a person understands, quoting the offending text.
    pub message: String,
    /// Where in the command.
    pub span: Span,
    /// The verdict this finding asks for (the code's severity, possibly overridden by config).
    pub severity: Verdict,
    /// Index into [`Analysis::segments`](crate::Analysis::segments) when the finding belongs to
    /// one segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
    /// The allowlist rule that produced the finding, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl Finding {
    /// A finding of `code` at `span` with the code's default severity, belonging to no segment
    /// and no rule. Chain [`Finding::in_segment`] and [`Finding::by_rule`] to say more; the
    /// analyser settles the severity from the allowlist's `[severity]` table when it records
    /// the finding.
    ///
    /// ```
    /// use cmdguard::{Code, Finding, Span, Verdict};
    /// let f = Finding::new(Code::Redirect, Span::new(3, 12), "`> out.txt` writes a file")
    ///     .in_segment(0)
    ///     .by_rule("ls");
    /// assert_eq!(f.severity, Verdict::Ask);
    /// assert_eq!(f.rule.as_deref(), Some("ls"));
    /// ```
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Finding {
        Finding {
            code,
            message: message.into(),
            span,
            severity: code.default_severity(),
            segment: None,
            rule: None,
        }
    }

    /// The finding, belonging to segment `i` of the analysis (or to none, given `None`).
    pub fn in_segment(mut self, i: impl Into<Option<usize>>) -> Finding {
        self.segment = i.into();
        self
    }

    /// The finding, produced by the rule with id `rule`.
    pub fn by_rule(mut self, rule: impl Into<String>) -> Finding {
        self.rule = Some(rule.into());
        self
    }

    /// The finding with `severity` in place of the one it has.
    pub fn with_severity(mut self, severity: Verdict) -> Finding {
        self.severity = severity;
        self
    }
}

/// Where a rule comes from: a line of an allowlist file, or cmdguard itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleOrigin {
    /// Part of cmdguard (`eval`, `source`, `[[ ]]`): not configurable.
    BuiltIn,
    /// A line of an allowlist file (`<embedded>` for the default allowlist, `<string>` for text).
    File {
        /// The file, as given when it was loaded.
        path: String,
        /// The 1-based line of the rule's `command` (or a deny rule's `id`).
        line: usize,
    },
}

impl fmt::Display for RuleOrigin {
    /// `built-in`, or `path:line`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleOrigin::BuiltIn => f.write_str("built-in"),
            RuleOrigin::File { path, line } => write!(f, "{path}:{line}"),
        }
    }
}

impl Serialize for RuleOrigin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A rule: its stable id (an `[[allow]]`, `[[wrapper]]` or `[[shell]]` entry's `command`, a
/// `[[deny]]` rule's `id`, a builtin's name) and where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The stable id, as [`Finding::rule`] names it.
    pub id: String,
    /// Where the rule comes from.
    pub origin: RuleOrigin,
}

impl Rule {
    /// A rule that is part of cmdguard itself.
    pub fn built_in(id: impl Into<String>) -> Rule {
        Rule {
            id: id.into(),
            origin: RuleOrigin::BuiltIn,
        }
    }
}

/// What the allowlist made of a segment: the rule that matched it, and for a wrapper what
/// matched the command it runs. Displayed (and serialised) as the short form the CLI prints:
/// `git diff`, `xargs → grep`, `timeout → ?`, `bash -c`.
///
/// ```
/// use cmdguard::{Analyzer, Match};
/// let a = Analyzer::default().analyze("timeout 5 git status");
/// let m = a.segments[0].matched.as_ref().unwrap();
/// assert_eq!(m.to_string(), "timeout → git status");
/// let Match::Wrapper { wrapper, inner: Some(inner) } = m else { panic!("{m:?}") };
/// assert_eq!(wrapper.id, "timeout");
/// assert_eq!(inner.rule().id, "git status");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Match {
    /// An `[[allow]]` entry.
    Entry(Rule),
    /// A `[[wrapper]]` whose command was checked in turn: `inner` is what matched that command,
    /// `None` when nothing did (a finding says why).
    Wrapper {
        /// The wrapper's rule.
        wrapper: Rule,
        /// What matched the wrapped command.
        inner: Option<Box<Match>>,
    },
    /// A `[[wrapper]]` whose command cmdguard did not reach: an option it does not know, or
    /// no command given.
    WrapperOnly(Rule),
    /// A `[[shell]]`, given a `-c` script (`dash_c`) or a script file, input or option.
    Shell {
        /// The shell's rule.
        shell: Rule,
        /// True when it runs a `-c` script.
        dash_c: bool,
    },
    /// A shell builtin that runs or loads code (`eval`, `source`, `trap`, …).
    Builtin(Rule),
    /// A test command (`[[`, `[`).
    Test(Rule),
}

impl Match {
    /// The rule that matched the segment itself (for a wrapper: the wrapper's).
    pub fn rule(&self) -> &Rule {
        match self {
            Match::Entry(r)
            | Match::WrapperOnly(r)
            | Match::Builtin(r)
            | Match::Test(r)
            | Match::Wrapper { wrapper: r, .. }
            | Match::Shell { shell: r, .. } => r,
        }
    }
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Match::Entry(r) | Match::WrapperOnly(r) | Match::Builtin(r) | Match::Test(r) => {
                f.write_str(&r.id)
            }
            Match::Wrapper { wrapper, inner } => match inner {
                Some(m) => write!(f, "{} → {m}", wrapper.id),
                None => write!(f, "{} → ?", wrapper.id),
            },
            Match::Shell { shell, dash_c } => {
                f.write_str(&shell.id)?;
                if *dash_c {
                    f.write_str(" -c")?;
                }
                Ok(())
            }
        }
    }
}

impl Serialize for Match {
    /// The display form, the string `matched` has always been.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
