//! scan/shell: shell scripts, read as one bash program, and the split of any piece into its
//! top-level commands for reporting. It never decides safety: the whole script goes to the
//! analyser, so a function defined on line 3 and called on line 9 is still seen.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, Parser};

use super::{Extracted, Piece, interpreter_name, shell_named};
use crate::Span;

/// The interpreter a `#!` line names, when the text starts with one.
pub(super) fn shebang(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next()?;
    interpreter_name(line)
}

/// The whole script is one piece; a `#!` line naming anything but bash or sh makes it
/// unsupported.
pub(super) fn extract(text: &str) -> Extracted {
    let mut piece = Piece::verbatim("script", text, 0);
    if let Some(name) = shebang(text) {
        piece.shell = shell_named(&name);
    }
    Extracted {
        pieces: vec![piece],
        ..Extracted::default()
    }
}

/// The spans of `script`'s top-level commands (comments left out, a heredoc body joined to
/// its command), in order. Empty when the script does not parse in time: the caller then
/// reports the piece as one command.
pub(super) fn statements(script: &str) -> Vec<Span> {
    // The analyser has already parsed this text under its own limits; this second parse only
    // finds where commands begin, under a clock of its own.
    const BUDGET: Duration = Duration::from_millis(500);
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        return Vec::new();
    }
    let start = Instant::now();
    let mut progress = |_: &tree_sitter::ParseState| {
        if start.elapsed() > BUDGET {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = script.as_bytes();
    let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or(&[]);
    let Some(tree) = parser.parse_with_options(
        &mut read,
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    ) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut out: Vec<Span> = Vec::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        let span = Span::new(child.start_byte(), child.end_byte());
        match child.kind() {
            "comment" => {}
            "heredoc_body" => {
                if let Some(last) = out.last_mut() {
                    *last = last.cover(span);
                }
            }
            _ => out.push(span),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_commands_are_split_and_comments_dropped() {
        let script =
            "# build\nset -e\nls | wc -l; echo hi\nf() {\n  rm x\n}\ncat <<EOF\nbody\nEOF\n";
        let texts: Vec<&str> = statements(script)
            .iter()
            .map(|s| &script[s.start..s.end])
            .collect();
        assert_eq!(
            texts,
            [
                "set -e",
                "ls | wc -l",
                "echo hi",
                "f() {\n  rm x\n}",
                "cat <<EOF\nbody\nEOF"
            ]
        );
    }

    #[test]
    fn shebangs_name_their_interpreter() {
        assert_eq!(shebang("#!/bin/sh\n").as_deref(), Some("sh"));
        assert_eq!(shebang("#!/usr/bin/env zsh\n").as_deref(), Some("zsh"));
        assert_eq!(shebang("ls\n"), None);
    }
}
