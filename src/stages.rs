//! stages: each stage of one analysis run on its own — input checks, parse, segment, check —
//! for the per-stage benches (`benches/stages.rs`). Not part of the API (hidden from the
//! docs): it wires the stages exactly as [`Analyzer`] does, and never draws a verdict.

use std::time::Duration;

use crate::analyzer::Analyzer;
use crate::budget::Budget;
use crate::check::{self, Scope};
use crate::input::{self, Admission};
use crate::parse;
use crate::segment::{self, Script};

/// The segments of one command, ready for [`check`].
#[derive(Debug)]
pub struct Segmented(Script);

impl Segmented {
    /// How many simple commands the segmenter found.
    pub fn len(&self) -> usize {
        self.0.segments.len()
    }

    /// True when the segmenter found no simple command.
    pub fn is_empty(&self) -> bool {
        self.0.segments.is_empty()
    }
}

/// Stage 0: the input checks on the raw text; true when the text may be parsed.
pub fn input_checks(analyzer: &Analyzer, cmd: &str) -> bool {
    let mut findings = Vec::new();
    input::check(cmd, analyzer.allowlist().limits(), &mut findings) == Admission::Parse
}

/// Stage 1: the parse, with the analyser's per-thread parser and its time limit.
pub fn parse(analyzer: &Analyzer, cmd: &str) -> Option<tree_sitter::Tree> {
    let limits = analyzer.allowlist().limits();
    parse::parse(cmd, Duration::from_millis(limits.max_parse_ms)).ok()
}

/// Stage 2: the tree of `cmd` as segments, under a fresh work budget.
pub fn segment(analyzer: &Analyzer, tree: &tree_sitter::Tree, cmd: &str) -> Segmented {
    let budget = Budget::new(analyzer.allowlist().limits());
    Segmented(segment::segment(tree, cmd, &budget))
}

/// Stage 3: the segments of `cmd` against the allowlist (no working directory), under a fresh
/// work budget; the number of findings.
pub fn check(analyzer: &Analyzer, cmd: &str, script: &Segmented) -> usize {
    let budget = Budget::new(analyzer.allowlist().limits());
    let scope = Scope {
        depth: 0,
        place: None,
        budget: &budget,
    };
    check::check(analyzer.allowlist(), analyzer, cmd, &script.0, scope)
        .findings
        .len()
}
