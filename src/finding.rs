//! finding: the vocabulary every stage shares — byte spans, verdicts and findings.
//!
//! It holds plain data only: it never parses, never walks a tree and never decides which finding a
//! command deserves (that is `check`'s job).

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
    /// Input read with `<` from a file other than `/dev/null`.
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
