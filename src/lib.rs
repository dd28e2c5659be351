//! cmdguard decides whether a shell command may run without asking a human.
//!
//! ```text
//! command ─parse (tree-sitter-bash)→ segments ─check (allowlist.toml, rules)→ findings
//!         → verdict allow | ask | deny
//! ```
//!
//! It says [`Verdict::Allow`] only when bash will run nothing but allowlisted programs and write
//! nothing. Anything it cannot see through — a parse error, an expansion in command position, an
//! unknown node, invalid UTF-8, a limit exceeded — is [`Verdict::Ask`] with a reason a person
//! understands, and commands that are unambiguously destructive are [`Verdict::Deny`].
//!
//! # Quick start
//!
//! ```
//! use cmdguard::{Analyzer, Code, Verdict};
//!
//! let analyzer = Analyzer::default(); // the embedded allowlist.toml
//! let a = analyzer.analyze("git diff --stat | head");
//! assert_eq!(a.verdict, Verdict::Allow);
//! assert_eq!(a.segments[0].argv, ["git", "diff", "--stat"]);
//! assert_eq!(a.segments[0].matched.as_deref(), Some("git diff"));
//!
//! // Every outcome says which finding produced it and where.
//! let a = analyzer.analyze("ls > out.txt");
//! assert_eq!(a.verdict, Verdict::Ask);
//! assert_eq!(a.findings[0].code, Code::Redirect);
//! assert_eq!(&a.cmd[a.findings[0].span.start..a.findings[0].span.end], "> out.txt");
//! ```
//!
//! # The stages
//!
//! 1. **parse** — tree-sitter-bash turns text into a tree, one parser per thread; parsing
//!    never fails, errors stay in the tree.
//! 2. **segment** ([`Segment`]) — every simple command bash could execute, wherever it sits
//!    (pipelines, lists, subshells, substitutions, heredoc bodies, `[[ ]]` operands…), with its
//!    words decoded as bash would decode them ([`Word`]) and marked when only known at run time.
//! 3. **check** — segments against the [`Allowlist`]: token-prefix entries (`git diff` matches
//!    `git diff --cached`, never `git difftool`), per-option rules, wrappers and nested shells
//!    seen through, redirections, assignments and deny rules. Each problem is a [`Finding`] with
//!    a stable [`Code`].
//! 4. **verdict** — the strictest finding, combined with `max()`.
//!
//! # Where the command runs
//!
//! [`Analyzer::analyze`] reads no file. An allowed `git status` can still run a program a
//! repository's own `.git/config` names (`core.fsmonitor`, a diff textconv driver, a pager), so
//! a runtime that knows the working directory passes it as a [`Workdir`] to
//! [`Analyzer::analyze_in`]: git commands are then checked against the repository they would
//! run in — the working directory's, or the one a static `cd` in the line leads to — by reading
//! its config files, includes and hooks (never by running git). Each key that names a program
//! is a [`Code::RepoConfig`] finding with the key, file and line.
//!
//! # Configuring
//!
//! ```
//! use cmdguard::{Allowlist, Analyzer, Verdict};
//!
//! let mut list = Allowlist::default();
//! list.extend_from_toml(
//!     r#"
//!     [[allow]]
//!     command = "cargo check"
//!     match = ["cargo check --all-targets"]
//!     not_match = ["cargo checkx"]
//!     "#,
//!     None,
//! )?;
//! let analyzer = Analyzer::new(list)?; // verifies every match / not_match example
//! assert_eq!(analyzer.analyze("cargo check -q").verdict, Verdict::Allow);
//! # Ok::<(), cmdguard::ConfigError>(())
//! ```

#![warn(missing_docs)]

mod allowlist;
mod analyzer;
mod budget;
mod check;
mod finding;
mod parse;
mod repo;
mod segment;
pub mod tool;

pub use crate::allowlist::{Allowlist, ConfigError, DEFAULT_ALLOWLIST};
pub use crate::analyzer::{Analysis, AnalyzedSegment, Analyzer};
pub use crate::finding::{Code, Finding, Span, Verdict};
pub use crate::repo::{GIT_ENV_REDIRECTS, Workdir};
pub use crate::segment::{
    Assignment, Expansions, Joiner, Limits, Nest, Redirect, RedirectOp, Segment, SegmentKind, Word,
};
