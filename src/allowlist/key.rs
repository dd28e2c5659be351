//! allowlist/key: the `[git] program_keys` / `safe_values` pattern language — `core.fsmonitor`,
//! `pager.*`, `diff.*.textconv` — parsed once when the allowlist loads.
//!
//! Configuration language only: it never reads a repository (that is `repo`'s job, which
//! compares what it reads against these patterns).

use std::fmt;

/// A config key pattern from `[git] program_keys`: `core.fsmonitor`, `pager.*`,
/// `diff.*.textconv`. Sections and names compare case-insensitively; `*` stands for any
/// subsection (in three parts) or any name (in two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyPattern {
    section: String,
    subsection: bool,
    name: String,
}

/// Why a text is not a [`KeyPattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyPatternError {
    /// Not two or three dot-separated parts.
    Shape(String),
    /// A part that is empty or holds other characters than letters, digits and `-`, or a
    /// subsection other than `*`.
    Part(String),
}

impl fmt::Display for KeyPatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyPatternError::Shape(text) => {
                write!(f, "`{text}` is not `section.name` or `section.*.name`")
            }
            KeyPatternError::Part(text) => write!(
                f,
                "`{text}`: sections and names are letters, digits and `-`; only `*` may stand for a subsection"
            ),
        }
    }
}

impl std::error::Error for KeyPatternError {}

impl KeyPattern {
    /// Parses `section.name` or `section.*.name` (`name` may be `*`).
    pub fn parse(text: &str) -> Result<KeyPattern, KeyPatternError> {
        let parts: Vec<&str> = text.split('.').collect();
        let ok =
            |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let (section, subsection, name) = match parts.as_slice() {
            [s, n] => (*s, None, *n),
            [s, sub, n] => (*s, Some(*sub), *n),
            _ => return Err(KeyPatternError::Shape(text.to_string())),
        };
        if !ok(section) || !(ok(name) || name == "*") || subsection.is_some_and(|s| s != "*") {
            return Err(KeyPatternError::Part(text.to_string()));
        }
        Ok(KeyPattern {
            section: section.to_ascii_lowercase(),
            subsection: subsection.is_some(),
            name: name.to_ascii_lowercase(),
        })
    }

    /// True when a variable `section[.subsection].name` (section and name lower-cased, as git
    /// reads them) matches.
    pub fn matches(&self, section: &str, has_subsection: bool, name: &str) -> bool {
        section == self.section
            && has_subsection == self.subsection
            && (self.name == "*" || name == self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_patterns() {
        let p = |s: &str| KeyPattern::parse(s).unwrap();
        assert!(p("core.fsmonitor").matches("core", false, "fsmonitor"));
        assert!(p("Core.FSMonitor").matches("core", false, "fsmonitor"));
        assert!(!p("core.fsmonitor").matches("core", true, "fsmonitor"));
        assert!(p("pager.*").matches("pager", false, "log"));
        assert!(p("diff.*.textconv").matches("diff", true, "textconv"));
        assert!(!p("diff.*.textconv").matches("diff", false, "textconv"));
        for bad in ["core", "a.b.c.d"] {
            assert_eq!(
                KeyPattern::parse(bad),
                Err(KeyPatternError::Shape(bad.into())),
                "{bad}"
            );
        }
        for bad in ["a.x.b", "a b.c", ".x", "a."] {
            assert_eq!(
                KeyPattern::parse(bad),
                Err(KeyPatternError::Part(bad.into())),
                "{bad}"
            );
        }
    }
}
