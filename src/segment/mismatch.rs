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
        self.newlines_inside_commands(root);
        self.translated_strings(root);
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
        preorder(
            root,
            |n| n.has_error(),
            |n| {
                if n.is_missing() {
                    self.event(Event::Missing(n.kind().to_string()), span(n));
                }
                if n.is_error() {
                    self.error_nodes.push((n.id(), span(n)));
                }
            },
        );
    }

    /// Bash removes every backslash-newline before it reads the text, except inside single
    /// quotes, `$'…'`, comments and quoted heredoc bodies. Where tree-sitter keeps the pair, the
    /// two readings differ:
    /// - between two characters of a word, tree-sitter breaks the word (`l\<newline>s` runs
    ///   `ls`);
    /// - inside double quotes or an unquoted heredoc body, a pair after `$` makes bash see an
    ///   expansion tree-sitter reads as text (`"$\<newline>(cmd)"` runs `cmd`).
    fn line_continuations(&mut self, root: Node) {
        let b = self.src.as_bytes();
        let mut i = 0;
        while let Some(rel) = b[i..].windows(2).position(|w| w == b"\\\n") {
            let p = i + rel;
            i = p + 2;
            if !backslash_is_active(b, p) {
                continue; // `\\` then a newline: an escaped backslash, not a continuation
            }
            match self.continuation_context(root, p) {
                Context::Literal => {}
                Context::DoubleQuoted => {
                    let dollar =
                        before_continuations(b, p).filter(|k| b[*k] == b'$' && !escaped(b, *k));
                    if dollar.is_some() {
                        self.event(
                            Event::Mismatch(
                                "a backslash-newline after `$` inside double quotes or a heredoc",
                            ),
                            Span::new(p, p + 2),
                        );
                    }
                }
                Context::Code => {
                    let before = before_continuations(b, p).map_or(b' ', |k| b[k]);
                    let after = b.get(p + 2).copied().unwrap_or(b' ');
                    if matches!(before, b' ' | b'\t' | b'\n')
                        || matches!(after, b' ' | b'\t' | b'\n')
                    {
                        continue; // between words: blank in both readings
                    }
                    self.event(
                        Event::Mismatch("a backslash-newline inside a word"),
                        Span::new(p, p + 2),
                    );
                }
            }
        }
    }

    /// An unescaped newline ends a simple command in bash. tree-sitter-bash sometimes reads past
    /// one and keeps the next line in the same command: `ls<newline>\<newline>id` is `ls id` in
    /// the tree, while bash runs `ls` and then `id`; in `echo <newline>\x` the tree even puts
    /// the newline inside a word. A newline that falls between the parts of a command, or inside
    /// a word, is such a place.
    fn newlines_inside_commands(&mut self, root: Node) {
        let b = self.src.as_bytes();
        for k in b
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == b'\n')
            .map(|(k, _)| k)
        {
            if escaped(b, k) {
                continue; // a line continuation: bash removes it
            }
            let Some(n) = root.descendant_for_byte_range(k, k + 1) else {
                continue;
            };
            // Inside these a raw newline is never part of the command to bash: it is either
            // between two of its parts or inside one word.
            let one_command = matches!(
                n.kind(),
                "command"
                    | "declaration_command"
                    | "unset_command"
                    | "command_name"
                    | "word"
                    | "concatenation"
                    | "number"
                    | "variable_assignment"
                    | "file_redirect"
                    | "herestring_redirect"
            );
            if one_command && n.start_byte() <= k && k < n.end_byte() {
                self.event(
                    Event::Mismatch("a newline the parser reads inside one command"),
                    Span::new(k, k + 1),
                );
                return;
            }
        }
    }

    /// How bash reads the text around byte `p`, from the innermost node that decides it.
    fn continuation_context(&self, root: Node, p: usize) -> Context {
        let Some(mut n) = root.descendant_for_byte_range(p, p + 2) else {
            return Context::Code;
        };
        loop {
            // tree-sitter may count the pair into the node that follows it (`"\<newline>$(ls)"`
            // puts it at the start of the substitution): a node that starts at the pair does
            // not hold it.
            let holds = n.start_byte() < p;
            match n.kind() {
                _ if !holds => {}
                "raw_string" | "comment" | "ansi_c_string" => return Context::Literal,
                "string" => return Context::DoubleQuoted,
                "heredoc_body" => {
                    return if n.parent().is_some_and(|h| self.heredoc_is_quoted(h)) {
                        Context::Literal
                    } else {
                        Context::DoubleQuoted
                    };
                }
                // Code again inside quotes: the substitution's text is read as a script.
                "command_substitution"
                | "process_substitution"
                | "arithmetic_expansion"
                | "expansion" => return Context::Code,
                _ => {}
            }
            match n.parent() {
                Some(pn) => n = pn,
                None => return Context::Code,
            }
        }
    }

    /// Whether a heredoc's delimiter is quoted, which makes its body literal.
    pub(super) fn heredoc_is_quoted(&self, heredoc: Node) -> bool {
        let mut c = heredoc.walk();
        heredoc
            .children(&mut c)
            .filter(|ch| ch.kind() == "heredoc_start")
            .any(|ch| self.text(ch).contains(['\'', '"', '\\']))
    }

    /// Inside backquotes bash removes the backslash before `` ` ``, `$` and `\` (and `"` when the
    /// backquotes sit inside double quotes), then reads the text again as a script:
    /// ``echo `echo \`cmd\`` `` and ``echo `echo "\$(cmd)"` `` run `cmd`. tree-sitter reads the
    /// escaped characters as text, so any such backslash is a disagreement.
    pub(super) fn backquote_escapes(&mut self, n: Node) {
        let in_quotes = {
            let mut up = n.parent();
            let mut found = false;
            while let Some(a) = up {
                if a.kind() == "string" {
                    found = true;
                    break;
                }
                up = a.parent();
            }
            found
        };
        let b = self.text(n).as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] != b'\\' {
                i += 1;
                continue;
            }
            let next = b.get(i + 1).copied();
            if matches!(next, Some(b'`' | b'$' | b'\\')) || (in_quotes && next == Some(b'"')) {
                let at = n.start_byte() + i;
                self.event(
                    Event::Mismatch(
                        "a backslash inside backquotes, removed before bash reads them",
                    ),
                    Span::new(at, at + 2),
                );
                return;
            }
            i += 2;
        }
    }

    /// `$"…"` is translated through gettext when bash reads it: with a message catalogue from
    /// `TEXTDOMAINDIR` (a repository's own, say) the translation can be any text, and bash then
    /// expands it like a double-quoted string, so `$(cmd)` in a translation runs. The source text
    /// does not bound what bash sees, so every `$"…"`, plain text or not, is reported.
    fn translated_strings(&mut self, root: Node) {
        preorder(
            root,
            |_| true,
            |n| {
                let dollar_then_string = !n.is_named()
                    && n.kind() == "$"
                    && n.parent().is_some_and(|p| p.kind() != "string")
                    && n.next_sibling()
                        .is_some_and(|s| s.kind() == "string" && s.start_byte() == n.end_byte());
                if n.kind() == "translated_string" || dollar_then_string {
                    let end = if dollar_then_string {
                        n.next_sibling().map_or(n.end_byte(), |s| s.end_byte())
                    } else {
                        n.end_byte()
                    };
                    self.event(
                        Event::Unsupported(
                            "a `$\"…\"` string, which bash translates through a message catalogue"
                                .into(),
                        ),
                        Span::new(n.start_byte(), end),
                    );
                }
            },
        );
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

/// How bash treats a backslash-newline at some place in the text.
enum Context {
    /// Single quotes, `$'…'`, a comment, a quoted heredoc body: the pair stays as it is.
    Literal,
    /// Double quotes or an unquoted heredoc body: the pair is removed, the rest stays text.
    DoubleQuoted,
    /// Anywhere else: the pair is removed before words are split.
    Code,
}

/// Where the byte before the backslash-newline at `p` is, looking through the pairs just before
/// it (bash removes them all first). `None` at the start of the text.
fn before_continuations(b: &[u8], p: usize) -> Option<usize> {
    let mut q = p;
    while q >= 2 && &b[q - 2..q] == b"\\\n" && backslash_is_active(b, q - 2) {
        q -= 2;
    }
    q.checked_sub(1)
}

/// Whether the byte at `k` is escaped by an active backslash (`\$` is a dollar sign).
fn escaped(b: &[u8], k: usize) -> bool {
    k > 0 && b[k - 1] == b'\\' && backslash_is_active(b, k - 1)
}

/// Visits `root` and its descendants in source order with a cursor (no recursion on the input's
/// shape), going into a node's children only where `descend` says so.
fn preorder<'t>(
    root: Node<'t>,
    descend: impl Fn(Node<'t>) -> bool,
    mut visit: impl FnMut(Node<'t>),
) {
    let mut cursor = root.walk();
    loop {
        let n = cursor.node();
        visit(n);
        if descend(n) && cursor.goto_first_child() {
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
