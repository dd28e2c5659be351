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

/// Why a text was not parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unparsed {
    /// The parser is unavailable, or the parse ran past its budget.
    Budget,
    /// The text holds a shape that crashes tree-sitter-bash's scanner (see [`scanner_hazard`]).
    Hazard,
}

/// True when `src` holds a `{`, optionally digits (and `..` and digits), then a character past
/// U+00FF: tree-sitter-bash 0.25's external scanner passes that character to C's `isdigit`,
/// which is undefined for it and crashes the process (SIGSEGV seen with U+E0001). Such text is
/// never handed to the parser. Checked on every text parsed, nested scripts included.
pub(crate) fn scanner_hazard(src: &str) -> bool {
    let wide = |c: Option<char>| c.is_some_and(|c| u32::from(c) > 0xff);
    let mut chars = src.chars();
    while chars.by_ref().any(|c| c == '{') {
        let mut rest = chars.clone().peekable();
        // `{`, digits: the scanner's first `isdigit` loop.
        while rest.next_if(char::is_ascii_digit).is_some() {}
        if wide(rest.peek().copied()) {
            return true;
        }
        // `..`, digits: its second.
        if rest.next() == Some('.') && rest.next() == Some('.') {
            while rest.next_if(char::is_ascii_digit).is_some() {}
            if wide(rest.peek().copied()) {
                return true;
            }
        }
    }
    false
}

/// Parses `src` as bash. `Err` when the parser is unavailable, the parse ran past `budget`, or
/// the text would crash the grammar's scanner; each is reported as a finding by the caller.
/// Inputs that could make tree-sitter slow are refused earlier by deterministic limits; the
/// clock is the last guard.
pub(crate) fn parse(src: &str, budget: Duration) -> Result<Tree, Unparsed> {
    if scanner_hazard(src) {
        return Err(Unparsed::Hazard);
    }
    PARSER
        .with(|cell| {
            let mut slot = cell.try_borrow_mut().ok()?;
            if slot.is_none() {
                let mut p = Parser::new();
                p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
                *slot = Some(p);
            }
            let parser = slot.as_mut()?;
            parse_within(parser, src, budget)
        })
        .ok_or(Unparsed::Budget)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scanner_hazard_is_a_brace_then_digits_then_a_wide_character() {
        for bad in [
            "{\u{e0001}}",
            "echo {\u{e0001}",
            "{12\u{100}",
            "{1..\u{e0001}",
            "{1..2\u{4e00}",
            "{..\u{100}",
        ] {
            assert!(scanner_hazard(bad), "{bad:?}");
            assert_eq!(
                parse(bad, Duration::from_secs(1)).err(),
                Some(Unparsed::Hazard)
            );
        }
        for fine in [
            "{\u{e9}}",
            "{a\u{e0001}}",
            "x{1.\u{100}",
            "\u{e0001}{}",
            "echo {a,b}",
            "{1..3}",
        ] {
            assert!(!scanner_hazard(fine), "{fine:?}");
        }
    }
}
