//! cmdguard decides whether a shell command may run without asking a human.
//!
//! ```text
//! command ─input→ text ─parse→ tree ─segment→ segments ─check (allowlist)→ findings ─→ verdict
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
//! use cmdguard::{Analyzer, Code, Match, RuleOrigin, Verdict};
//!
//! let analyzer = Analyzer::default(); // the embedded allowlist.toml; Send + Sync, no I/O
//! let a = analyzer.analyze("git diff --stat | head");
//! assert_eq!(a.verdict, Verdict::Allow);
//! assert_eq!(a.segments[0].argv, ["git", "diff", "--stat"]);
//!
//! // Each segment says which rule matched it, and where that rule was written.
//! let m = a.segments[0].matched.as_ref().unwrap();
//! assert!(matches!(m, Match::Entry(rule) if rule.id == "git diff"));
//! assert!(matches!(&m.rule().origin, RuleOrigin::File { path, .. } if path == "<embedded>"));
//!
//! // Every outcome says which finding produced it, where, and which rule when one did.
//! let a = analyzer.analyze("sort -o out.txt data");
//! assert_eq!(a.verdict, Verdict::Ask);
//! assert_eq!(a.findings[0].code, Code::ForbiddenArgument);
//! assert_eq!(a.findings[0].rule.as_deref(), Some("sort"));
//! assert_eq!(&a.cmd[a.findings[0].span.start..a.findings[0].span.end], "-o");
//! ```
//!
//! # The stages
//!
//! ```text
//!   &str / &[u8]
//!      │ input    NUL, control characters, look-alike spaces, size limits, UTF-8
//!      ▼
//!   tree          parse: tree-sitter-bash, one parser per thread; never fails
//!      │ segment
//!      ▼
//!   [Segment]     every simple command bash could run, words decoded as bash would
//!      │ check    against the Allowlist: entries, options, wrappers, shells, deny rules
//!      ▼
//!   [Finding]     each with a Code, a Span, a severity and the rule that produced it
//!      │ Verdict::strictest
//!      ▼
//!   Verdict       allow < ask < deny
//! ```
//!
//! Each stage only uses the ones below it: the analyser calls `input`, `parse`, `segment` and
//! `check`; `check` reads the allowlist and segments; the segmenter reads the parse tree and
//! the [`Limits`]. A nested script (`bash -c '…'`, `eval`) goes back through every stage, but
//! `check` reaches the analyser only through a small trait the analyser hands it, so no arrow
//! points up.
//!
//! 1. **input** — text bash would read differently from a parser (invalid UTF-8, NUL, control
//!    characters, look-alike spaces) is a finding; text over the size limits is not parsed.
//! 2. **parse** — tree-sitter-bash turns text into a tree; errors stay in the tree.
//! 3. **segment** ([`Segment`]) — every simple command bash could execute, wherever it sits
//!    (pipelines, lists, subshells, substitutions, heredoc bodies, `[[ ]]` operands…), with its
//!    words decoded as bash would decode them ([`Word`]) and marked when only known at run time.
//! 4. **check** — segments against the [`Allowlist`]: token-prefix entries (`git diff` matches
//!    `git diff --cached`, never `git difftool`), per-option rules, wrappers and nested shells
//!    seen through, redirections, assignments and deny rules. Each problem is a [`Finding`] with
//!    a stable [`Code`]; each segment gets the [`Match`] that allowed it.
//! 5. **verdict** — the strictest finding ([`Verdict::strictest`]).
//!
//! The [`tool`] module is a separate layer on top — a registry that turns functions into tools
//! an agent can call; the built-in groups to come will run their `cmd` tool through an
//! [`Analyzer`]. The core never imports it.
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
//! An [`AllowlistBuilder`] collects allowlist files and texts in order; `build()` compiles
//! every rule and verifies every `match` / `not_match` example, so a rule that does not do
//! what its examples say is a load error naming file, line and column.
//! [`Allowlist::default`] is the embedded list, compiled without re-running its examples at
//! every start (the test suite runs them).
//!
//! ```
//! use cmdguard::{AllowlistBuilder, Analyzer, Verdict};
//!
//! let list = AllowlistBuilder::new()
//!     .add_default() // the embedded allowlist.toml
//!     .add_toml(
//!         r#"
//!         [[allow]]
//!         command = "cargo check"
//!         match = ["cargo check --all-targets"]
//!         not_match = ["cargo checkx"]
//!         "#,
//!         None,
//!     )
//!     .build()?;
//! let analyzer = Analyzer::new(list);
//! let a = analyzer.analyze("cargo check -q");
//! assert_eq!(a.verdict, Verdict::Allow);
//! assert_eq!(a.segments[0].matched.as_ref().unwrap().to_string(), "cargo check");
//! # Ok::<(), cmdguard::ConfigError>(())
//! ```

#![warn(missing_docs)]

// An analyser is built once and shared by every thread that checks commands.
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<Analyzer>();
    shareable::<Allowlist>();
    shareable::<Analysis>();
};

// The modules bottom-up, in the order a command meets them; each uses only those above it.

// Shared vocabulary: spans, verdicts, findings, rules and matches.
mod finding;

// The bounds every stage reads (`[limits]`), and the work one analysis may still do.
mod budget;
mod limits;

// Stage 1: the raw text, before parsing.
mod input;

// Stage 2: tree-sitter-bash.
mod parse;

// Stage 3: the tree as segments.
mod segment;

// The compiled rules the checker reads.
mod allowlist;

// A repository's config and hooks, read for `analyze_in` (never by `analyze`).
mod repo;

// Stage 4: segments against the allowlist, as findings.
mod check;

// Wires the stages and draws the verdict.
mod analyzer;

// Each stage on its own, for the per-stage benches (`benches/stages.rs`); not part of the API.
#[doc(hidden)]
pub mod stages;

// Above the core: a second opinion on `ask` verdicts (the core never imports it).
pub mod assess;

// Above the assessor: prompts, grants and the persisted state (the core never imports it).
pub mod policy;
// Above the core: layered configuration (system, user, trusted project, env, flags) and
// Claude Code command rules applied per segment. The core never imports it.
pub mod config;

// A layer on top: tools an agent calls, `cmd` going through an `Analyzer`. The core never
// imports it.
pub mod tool;

// Above everything: agent hooks and their installers, the audit log, `cmdguard scan` and
// SARIF, interactive-shell snippets and `cmdguard explain`. The core never imports it.
pub mod integrations;

// `#[tool]` expands to paths under `::cmdguard`; this lets the crate use its own macro (the
// risk-assessment agent's tools).
extern crate self as cmdguard;

pub use crate::allowlist::{
    Allowlist, AllowlistBuilder, ConfigError, DEFAULT_ALLOWLIST, DEFAULT_PACKS, ENGINE_PACKS, Pack,
};
pub use crate::analyzer::{Analysis, AnalyzedSegment, Analyzer, StageTimes};
pub use crate::finding::{Code, Finding, Match, Rule, RuleOrigin, Span, Verdict};
pub use crate::limits::Limits;
pub use crate::repo::{GIT_ENV_REDIRECTS, Workdir};
pub use crate::segment::{
    Assignment, Expansions, Joiner, Nest, Redirect, RedirectOp, Segment, SegmentKind, Word,
};
