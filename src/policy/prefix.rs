//! policy/prefix: command-prefix grants and the one rule for what a grant may cover.
//!
//! A grant stands in for a missing allowlist entry and nothing more: it never overrides what an
//! entry forbids, never covers a finding that belongs to no segment (a redirect, an operator,
//! a substitution's effect) and never turns a `deny` into a run. Everything here answers "not
//! covered" unless each condition is proven.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Analysis, AnalyzedSegment, Code, Verdict};

/// The finding codes a prefix grant may cover, each for the segment the finding belongs to
/// and only when no allowlist rule matched that segment. Every other code keeps its prompt.
pub const GRANTABLE: &[Code] = &[
    // No entry names the program: exactly the gap a user's "allow, and remember" fills.
    Code::NotAllowlisted,
    // The program is given as a path (`./gradlew`): the grant names that path token for token.
    Code::UnusualPath,
];

/// A token-prefix of a command, as a user granted it: `["npm", "test"]` covers
/// `npm test --watch`, never `npm testx` or `npm` alone. Never empty, no token empty.
///
/// ```
/// use cmdguard::policy::Prefix;
/// let p = Prefix::new(["npm", "test"])?;
/// assert!(p.matches(&["npm", "test", "--watch"]));
/// assert!(!p.matches(&["npm", "testx"]));
/// assert!(!p.matches(&["npm"]));
/// assert_eq!(p.to_string(), "npm test");
/// # Ok::<(), cmdguard::policy::PrefixError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Prefix(Vec<String>);

/// Why a list of words is not a [`Prefix`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefixError {
    /// No words: a prefix must name at least the program.
    Empty,
    /// An empty word at this index.
    EmptyToken(usize),
}

impl fmt::Display for PrefixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrefixError::Empty => f.write_str("a command prefix needs at least one word"),
            PrefixError::EmptyToken(i) => {
                write!(f, "word {} of the command prefix is empty", i + 1)
            }
        }
    }
}

impl std::error::Error for PrefixError {}

impl Prefix {
    /// A prefix of these words; an empty list or an empty word is an error.
    pub fn new<S: Into<String>>(
        tokens: impl IntoIterator<Item = S>,
    ) -> Result<Prefix, PrefixError> {
        let tokens: Vec<String> = tokens.into_iter().map(Into::into).collect();
        if tokens.is_empty() {
            return Err(PrefixError::Empty);
        }
        if let Some(i) = tokens.iter().position(String::is_empty) {
            return Err(PrefixError::EmptyToken(i));
        }
        Ok(Prefix(tokens))
    }

    /// The words.
    pub fn tokens(&self) -> &[String] {
        &self.0
    }

    /// True when `argv` starts with these words, token for token.
    pub fn matches<S: AsRef<str>>(&self, argv: &[S]) -> bool {
        argv.len() >= self.0.len() && self.0.iter().zip(argv).all(|(p, a)| p == a.as_ref())
    }

    /// True when this prefix may stand in for an allowlist entry for `segment`: its words
    /// start the segment's argv, none of those words is only known at run time, and no rule
    /// matched the segment (a grant never overrides what a rule forbids).
    pub fn matches_segment(&self, segment: &AnalyzedSegment) -> bool {
        segment.matched.is_none()
            && self.matches(&segment.argv)
            && segment.dynamic.iter().all(|&i| i >= self.0.len())
    }
}

impl TryFrom<Vec<String>> for Prefix {
    type Error = PrefixError;
    fn try_from(tokens: Vec<String>) -> Result<Prefix, PrefixError> {
        Prefix::new(tokens)
    }
}

impl From<Prefix> for Vec<String> {
    fn from(p: Prefix) -> Vec<String> {
        p.0
    }
}

impl fmt::Display for Prefix {
    /// The words joined by spaces, a word that holds a space or a quote in single quotes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if t.chars()
                .any(|c| c.is_whitespace() || "'\"\\$`".contains(c))
            {
                write!(f, "'{}'", t.replace('\'', r"'\''"))?;
            } else {
                f.write_str(t)?;
            }
        }
        Ok(())
    }
}

/// The first of `prefixes` that covers every reason `analysis` is not allowed, or `None`.
///
/// Covered means: the verdict is not `deny`; every finding above `allow` is an `ask` whose
/// code is in [`GRANTABLE`] and that belongs to a segment one of the prefixes matches
/// ([`Prefix::matches_segment`]). A finding without a segment is never covered. The returned
/// prefix is the one that covered the first such finding (several may share the work).
pub fn covering<'p>(analysis: &Analysis, prefixes: &'p [Prefix]) -> Option<&'p Prefix> {
    if analysis.verdict >= Verdict::Deny {
        return None;
    }
    let mut first = None;
    for f in analysis
        .findings
        .iter()
        .filter(|f| f.severity > Verdict::Allow)
    {
        if f.severity != Verdict::Ask || !GRANTABLE.contains(&f.code) {
            return None;
        }
        let segment = f.segment.and_then(|i| analysis.segments.get(i))?;
        let by = prefixes.iter().find(|p| p.matches_segment(segment))?;
        first.get_or_insert(by);
    }
    first
}

/// The prefix to offer for "allow, and remember": the program and, when the next word is a
/// plain subcommand, that word too (`npm test`, `cargo build`), taken from the segments whose
/// findings keep the command from running — offered only when it alone would cover them all.
pub fn suggest(analysis: &Analysis) -> Option<Prefix> {
    let f = analysis
        .findings
        .iter()
        .find(|f| f.severity > Verdict::Allow)?;
    let segment = analysis.segments.get(f.segment?)?;
    let static_words = segment
        .argv
        .iter()
        .enumerate()
        .take_while(|(i, _)| !segment.dynamic.contains(i))
        .map(|(_, w)| w);
    let mut words: Vec<&String> = static_words.take(2).collect();
    // A second word that is an option or a path is an argument, not a subcommand.
    if words
        .get(1)
        .is_some_and(|w| w.starts_with('-') || w.contains('/') || w.contains('='))
    {
        words.truncate(1);
    }
    let prefix = Prefix::new(words.into_iter().cloned()).ok()?;
    covering(analysis, std::slice::from_ref(&prefix))
        .is_some()
        .then_some(prefix)
}
