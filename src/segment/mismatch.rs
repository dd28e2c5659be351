//! segment/mismatch: stage 2 cross-checks — places where tree-sitter-bash and bash read the
//! same text differently (a backslash-newline inside a word, an escaped blank the parser drops,
//! a `#` the parser takes for a comment, an expansion character in a leaf the parser calls
//! literal), plus the parse errors and MISSING nodes of the tree.
//!
//! It never repairs the tree or guesses which reading is right: each disagreement becomes an
//! `Event::Mismatch` (or `ParseError` / `Missing`), which `check` turns into an `ask`.

use tree_sitter::Node;

use super::{Event, Walker, span};
use crate::finding::Span;

impl<'a> Walker<'a> {
    /// Runs the text-level cross-checks after the walk, in a fixed order.
    pub(super) fn cross_checks(&mut self, root: Node) {
        self.line_continuations(root);
        self.escaped_blanks(root);
        self.comment_starts(root);
    }

    /// A literal leaf that holds an unescaped expansion character means tree-sitter read as
    /// literal what bash would expand.
    pub(super) fn literal_leaf_check(&mut self, raw: &str, s: Span) {
        let b = raw.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'`' => {
                    self.event(Event::Mismatch("a backquote inside a literal word"), s);
                    return;
                }
                b'$' if b.get(i + 1).is_some_and(|c| {
                    c.is_ascii_alphanumeric() || b"_{([@*#?$!-'\"".contains(c)
                }) =>
                {
                    self.event(Event::Mismatch("an expansion inside a literal word"), s);
                    return;
                }
                // `case x in a>(cmd)) …`: bash runs the process substitution in a pattern.
                b'<' | b'>' if b.get(i + 1) == Some(&b'(') => {
                    self.event(
                        Event::Mismatch("a process substitution inside a literal word"),
                        s,
                    );
                    return;
                }
                _ => i += 1,
            }
        }
    }

    /// MISSING nodes (an unclosed `$(`, a missing `fi`) can be anonymous tokens the walker
    /// would take for punctuation: find them all with an iterative cursor walk.
    pub(super) fn missing_nodes(&mut self, root: Node) {
        let mut cursor = root.walk();
        loop {
            let n = cursor.node();
            if n.is_missing() {
                self.event(Event::Missing(n.kind().to_string()), span(n));
            }
            if n.is_error() {
                self.error_nodes.push((n.id(), span(n)));
            }
            if n.has_error() && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    /// A backslash-newline inside a word joins it with the next line in bash, while tree-sitter
    /// treats it as a word break (`l\<newline>s` runs `ls`).
    fn line_continuations(&mut self, root: Node) {
        let b = self.src.as_bytes();
        let mut i = 0;
        while let Some(rel) = b[i..].windows(2).position(|w| w == b"\\\n") {
            let p = i + rel;
            i = p + 2;
            let mut k = p;
            let mut backslashes = 0;
            while k > 0 && b[k - 1] == b'\\' {
                backslashes += 1;
                k -= 1;
            }
            if backslashes % 2 == 1 {
                continue; // `\\` then a newline: an escaped backslash, not a continuation
            }
            let before = if k > 0 { b[k - 1] } else { b' ' };
            let after = b.get(p + 2).copied().unwrap_or(b' ');
            if matches!(before, b' ' | b'\t' | b'\n') || matches!(after, b' ' | b'\t' | b'\n') {
                continue; // between words: blank in both readings
            }
            let inside_literal = root
                .descendant_for_byte_range(p, p + 2)
                .map(|mut n| {
                    loop {
                        if matches!(
                            n.kind(),
                            "raw_string" | "comment" | "string" | "heredoc_body" | "ansi_c_string"
                        ) {
                            break true;
                        }
                        match n.parent() {
                            Some(pn) => n = pn,
                            None => break false,
                        }
                    }
                })
                .unwrap_or(false);
            if !inside_literal {
                self.event(
                    Event::Mismatch("a backslash-newline inside a word"),
                    Span::new(p, p + 2),
                );
            }
        }
    }

    /// A backslash before a space or tab makes the blank part of a word in bash (`echo \ x`
    /// prints ` x`), but tree-sitter-bash drops the pair between tokens. Where it does, the
    /// two readings split words differently and a `#` after the pair becomes a comment that
    /// hides the rest of the line from the tree (`echo \ #;rm -rf ~` runs `rm` in bash).
    fn escaped_blanks(&mut self, root: Node) {
        let b = self.src.as_bytes();
        let mut i = 0;
        while let Some(rel) = b[i..]
            .windows(2)
            .position(|w| w[0] == b'\\' && matches!(w[1], b' ' | b'\t'))
        {
            let p = i + rel;
            i = p + 1;
            if !backslash_is_active(b, p) {
                continue;
            }
            if !in_token(root, p) {
                self.event(
                    Event::Mismatch("an escaped blank the parser drops between words"),
                    Span::new(p, p + 2),
                );
                return;
            }
        }
    }

    /// A comment starts only where bash starts a token: at the start of the text, or after an
    /// unescaped blank, newline or operator character. A `#` the tree takes as a comment
    /// anywhere else hides text that bash runs.
    fn comment_starts(&mut self, root: Node) {
        let b = self.src.as_bytes();
        for (p, _) in b.iter().enumerate().filter(|(_, c)| **c == b'#') {
            let Some(n) = root.descendant_for_byte_range(p, p + 1) else {
                continue;
            };
            if n.kind() != "comment" || n.start_byte() != p {
                continue;
            }
            if !starts_token(b, p) {
                self.event(
                    Event::Mismatch("a `#` the parser reads as a comment but bash reads as text"),
                    Span::new(p, n.end_byte()),
                );
                return;
            }
        }
    }
}

/// Whether the backslash at `p` is itself unescaped: preceded by an even run of backslashes.
fn backslash_is_active(b: &[u8], p: usize) -> bool {
    b[..p].iter().rev().take_while(|c| **c == b'\\').count() % 2 == 0
}

/// Whether bash starts a token at byte `p`: at the start of the text, or after an unescaped
/// blank, newline or operator character. Backslash-newline pairs are removed before bash
/// splits tokens, so they are looked through.
fn starts_token(b: &[u8], p: usize) -> bool {
    let mut end = p;
    loop {
        let Some(q) = end.checked_sub(1) else {
            return true;
        };
        let escaped = q > 0 && b[q - 1] == b'\\' && backslash_is_active(b, q - 1);
        if b[q] == b'\n' && escaped {
            end = q - 1; // a line continuation: look at what precedes it
            continue;
        }
        return b"\n \t;&|()<>".contains(&b[q]) && !escaped;
    }
}

/// Whether byte `p` belongs to a token of the tree (a leaf), rather than falling between
/// tokens where the parser skipped it.
fn in_token(root: Node, p: usize) -> bool {
    root.descendant_for_byte_range(p, p + 1)
        .is_some_and(|n| n.child_count() == 0 && n.start_byte() <= p && p < n.end_byte())
}
