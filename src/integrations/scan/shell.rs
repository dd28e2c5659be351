//! scan/shell: shell scripts, read as one bash program, and the split of any piece into its
//! top-level commands for reporting. It never decides safety: the whole script goes to the
//! analyser, so a function defined on line 3 and called on line 9 is still seen.
//!
//! The modelled subset: a script whose `#!` line is one of the plain forms
//! [`super::shebang_shell`] lists, or that has none (read as sh, or as bash for `*.bash`); any
//! other `#!` line asks as an unsupported shell. Under sh (dash) what bash has and dash lacks
//! asks where it occurs ([`bash_only`]): the quoting `$'…'`, and the keywords `[[` and `((`,
//! whose insides dash reads as commands and operators.

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

/// A construct bash reads one way and dash (a POSIX sh) another, so that dash may run what
/// bash reads as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BashOnly {
    /// `$'…'` (ANSI-C) or `$"…"` (translated) strings: dash reads a `$` and then a plain
    /// quoted string, so `$'\'' ; cmd ; #'` runs `cmd` under dash and nothing under bash.
    Quoting,
    /// A `[[ … ]]` test: dash has no such keyword and runs a command named `[[`, so the
    /// operators inside are its own — `[[ x =~ a|sh ]]` runs `sh ]]` (a file named `]]`),
    /// `[[ a > b ]]` truncates `b`.
    Test,
    /// A `(( … ))` arithmetic command: dash reads two nested subshells, so `((./x))` runs
    /// `./x`.
    Arithmetic,
}

impl BashOnly {
    /// The reason a person reads, quoting the construct (`text`, shortened).
    pub(super) fn message(self, text: &str) -> String {
        match self {
            BashOnly::Quoting => format!(
                "`{text}` is bash quoting that sh (dash) does not have: dash reads `$` and then a plain quoted string, so text bash keeps inside the quotes may run as commands"
            ),
            BashOnly::Test => format!(
                "`{text}` is bash's `[[` test, which sh (dash) does not have: dash runs a command named `[[` and reads the `|`, `&&`, `<`, `>` inside as its own pipes, lists and redirections"
            ),
            BashOnly::Arithmetic => format!(
                "`{text}` is bash's `((` arithmetic, which sh (dash) does not have: dash reads two nested subshells and runs what is inside as a command"
            ),
        }
    }
}

/// The spans of `script` that bash and dash read differently ([`BashOnly`]). When the script
/// does not parse in time, or parses with errors (bash's reading is then not the tree's), the
/// whole script counts as one such span for each kind whose mark (`$'`, `$"`, `[[`, `((`) it
/// holds and the tree did not show.
pub(super) fn bash_only(script: &str) -> Vec<(Span, BashOnly)> {
    let marks = [
        ("$'", BashOnly::Quoting),
        ("$\"", BashOnly::Quoting),
        ("[[", BashOnly::Test),
        ("((", BashOnly::Arithmetic),
    ];
    let whole = |found: &[(Span, BashOnly)]| -> Vec<(Span, BashOnly)> {
        let mut kinds: Vec<BashOnly> = marks
            .iter()
            .filter(|(m, k)| script.contains(m) && !found.iter().any(|(_, f)| f == k))
            .map(|&(_, k)| k)
            .collect();
        kinds.dedup();
        kinds
            .into_iter()
            .map(|k| (Span::new(0, script.len()), k))
            .collect()
    };
    let Some(tree) = parse(script) else {
        return whole(&[]);
    };
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let first = node.child(0).map(|c| c.kind());
        let kind = match node.kind() {
            "ansi_c_string" | "translated_string" => Some(BashOnly::Quoting),
            "test_command" if first == Some("[[") => Some(BashOnly::Test),
            "compound_statement" if first == Some("((") => Some(BashOnly::Arithmetic),
            _ => None,
        };
        if let Some(kind) = kind {
            out.push((Span::new(node.start_byte(), node.end_byte()), kind));
        }
        // The insides of a `[[` or `((` are listed too: a `$'…'` there is one more reason.
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    if tree.root_node().has_error() {
        let more = whole(&out);
        out.extend(more);
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
    fn bash_only_constructs_are_found_where_dash_reads_them_differently() {
        use BashOnly::{Arithmetic, Quoting, Test};
        let table: &[(&str, &[(&str, BashOnly)])] = &[
            (
                "echo $'\\' ; touch /tmp/x ; #'",
                &[("$'\\' ; touch /tmp/x ; #'", Quoting)],
            ),
            ("echo \"$(printf $'a')\"", &[("$'a'", Quoting)]),
            ("[[ x =~ a|sh ]] && ls", &[("[[ x =~ a|sh ]]", Test)]),
            (
                "if [[ $'a' > b ]]; then :; fi",
                &[("[[ $'a' > b ]]", Test), ("$'a'", Quoting)],
            ),
            ("i=0; ((i++))", &[("((i++))", Arithmetic)]),
            // `[`, `$((…))` and subshells are POSIX: dash reads them as bash does.
            ("[ a = b ] && echo $((1 + 2)) && (ls)", &[]),
            // Inside other quotes `$'` is text to bash and to dash alike.
            ("echo '$' \"$'\" x", &[]),
            ("printf '%s$' a", &[]),
            ("echo $HOME", &[]),
        ];
        for (script, want) in table {
            let got: Vec<(&str, BashOnly)> = bash_only(script)
                .iter()
                .map(|(s, k)| (&script[s.start..s.end], *k))
                .collect();
            assert_eq!(&got, want, "{script}");
        }
    }
}
