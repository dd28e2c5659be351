//! parse: stage 1 — bash text to a tree-sitter tree, with one parser reused per thread.
//!
//! Parsing never fails from the caller's point of view: syntax errors stay in the tree as ERROR
//! and MISSING nodes for `segment` to report, and a parser that cannot run at all yields `None`,
//! which the analyser turns into an `ask`. It never interprets the tree.

use std::cell::RefCell;
use std::ops::ControlFlow;

use tree_sitter::{ParseOptions, Parser, Tree};

thread_local! {
    // `Parser::parse` needs `&mut`, so each thread keeps its own; building one costs more than
    // parsing a typical command.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// How many progress callbacks tree-sitter may make per input byte before the parse is cut
/// short. Counting callbacks rather than time keeps the result deterministic.
const PROGRESS_PER_BYTE: usize = 64;
const PROGRESS_FLOOR: usize = 100_000;

/// Parses `src` as bash. `None` when the parser is unavailable or the parse ran past its
/// work budget; both are reported as findings by the caller.
pub(crate) fn parse(src: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        let parser = slot.as_mut()?;
        let budget = PROGRESS_FLOOR.saturating_add(src.len().saturating_mul(PROGRESS_PER_BYTE));
        let mut calls = 0usize;
        let mut progress = |_: &tree_sitter::ParseState| {
            calls += 1;
            if calls > budget {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = src.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or(&[]);
        let tree = parser.parse_with_options(
            &mut read,
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        if tree.is_none() {
            // A cancelled parse leaves state behind; start clean next time.
            parser.reset();
        }
        tree
    })
}
