//! scan/shell: shell scripts, read as one bash program, and the split of any piece into its
//! top-level commands for reporting. It never decides safety: the whole script goes to the
//! analyser, so a function defined on line 3 and called on line 9 is still seen.
//!
//! The modelled subset: a script whose `#!` line is one of the plain forms
//! [`super::shebang_shell`] lists, or that has none (read as sh, or as bash for `*.bash`); any
//! other `#!` line asks as an unsupported shell. Under sh (dash) the quoting bash has and dash
//! lacks (`$'…'`) asks where it occurs ([`bash_only_quoting`]).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, Parser};

use super::{Extracted, Piece, Shell, shebang_shell};
use crate::Span;

/// The shell a script's `#!` line runs it with, when the text starts with one (see
/// [`shebang_shell`] for the forms scan reads).
pub(super) fn shebang(text: &str) -> Option<Shell> {
    let rest = text.strip_prefix("#!")?;
    // The kernel reads the line up to the first newline only.
    let line = rest.split('\n').next().unwrap_or(rest);
    Some(shebang_shell(line))
}

/// The whole script is one piece, run by the shell its `#!` line names; with no `#!` line it
/// is read as bash when its name ends in `.bash` (it is sourced or run by bash), else as sh
/// (`sh script`, or the calling shell's fallback), the stricter reading.
pub(super) fn extract(text: &str, path: &str) -> Extracted {
    let mut piece = Piece::verbatim("script", text, 0);
    let named_bash = path.to_ascii_lowercase().ends_with(".bash");
    piece.shell = shebang(text).unwrap_or(if named_bash { Shell::Bash } else { Shell::Sh });
    Extracted {
        pieces: vec![piece],
        ..Extracted::default()
    }
}

/// The spans of `script`'s top-level commands (comments left out, a heredoc body joined to
/// its command), in order. Empty when the script does not parse in time: the caller then
/// reports the piece as one command.
pub(super) fn statements(script: &str) -> Vec<Span> {
    let Some(tree) = parse(script) else {
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

/// The spans of `script` bash reads as `$'…'` (ANSI-C) or `$"…"` (translated) strings, which
/// dash does not have: it reads a `$` and then a plain quoted string, so `$'\'' ; cmd ; #'`
/// runs `cmd` under dash and nothing under bash. When the script does not parse in time the
/// whole script counts as one such span if it holds `$'` or `$"` at all.
pub(super) fn bash_only_quoting(script: &str) -> Vec<Span> {
    const KINDS: &[&str] = &["ansi_c_string", "translated_string"];
    let Some(tree) = parse(script) else {
        if script.contains("$'") || script.contains("$\"") {
            return vec![Span::new(0, script.len())];
        }
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if KINDS.contains(&node.kind()) {
            out.push(Span::new(node.start_byte(), node.end_byte()));
        } else if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

/// `script` parsed as bash, or `None` when it does not parse in time.
fn parse(script: &str) -> Option<tree_sitter::Tree> {
    // The analyser has already parsed this text under its own limits; this second parse only
    // finds where commands begin, under a clock of its own.
    const BUDGET: Duration = Duration::from_millis(500);
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
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
    parser.parse_with_options(
        &mut read,
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    )
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
    fn shebangs_name_their_shell() {
        assert_eq!(shebang("#!/bin/sh\nls\n"), Some(Shell::Sh));
        assert_eq!(shebang("#!/usr/bin/env bash\n"), Some(Shell::Bash));
        assert!(matches!(
            shebang("#!/usr/bin/env zsh\n"),
            Some(Shell::Unsupported(_))
        ));
        assert_eq!(shebang("ls\n"), None);
    }

    #[test]
    fn bash_only_quoting_is_found_where_dash_reads_it_differently() {
        let table: &[(&str, &[&str])] = &[
            (
                "echo $'\\' ; touch /tmp/x ; #'",
                &["$'\\' ; touch /tmp/x ; #'"],
            ),
            ("echo \"$(printf $'a')\"", &["$'a'"]),
            // Inside other quotes `$'` is text to bash and to dash alike.
            ("echo '$' \"$'\" x", &[]),
            ("printf '%s$' a", &[]),
            ("echo $HOME", &[]),
        ];
        for (script, want) in table {
            let got: Vec<&str> = bash_only_quoting(script)
                .iter()
                .map(|s| &script[s.start..s.end])
                .collect();
            assert_eq!(&got, want, "{script}");
        }
    }
}
