//! parse: stage 1 — bash text to a tree-sitter tree, with one parser reused per thread.
//!
//! Parsing never fails from the caller's point of view: syntax errors stay in the tree as ERROR
//! and MISSING nodes for `segment` to report, and a parser that cannot run at all yields `None`,
//! which the analyser turns into an `ask`. It never interprets the tree.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, Parser, Tree};

thread_local! {
    // `Parser::parse` needs `&mut`, so each thread keeps its own; building one costs more than
    // parsing a typical command.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `src` as bash. `None` when the parser is unavailable or the parse ran past `budget`;
/// both are reported as findings by the caller. Inputs that could make tree-sitter slow are
/// refused earlier by deterministic limits; the clock is the last guard.
pub(crate) fn parse(src: &str, budget: Duration) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        let parser = slot.as_mut()?;
        parse_within(parser, src, budget)
    })
}

/// Runs `parser` on `src`, giving up once `budget` has passed (`None`). Shared with the
/// grammars of interpreter one-liners, whose parsers are per thread too.
pub(crate) fn parse_within(parser: &mut Parser, src: &str, budget: Duration) -> Option<Tree> {
    let start = Instant::now();
    let mut progress = |_: &tree_sitter::ParseState| {
        if start.elapsed() > budget {
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
}
