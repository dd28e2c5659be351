//! segment/redirect: stage 2, the redirection family — file redirections, descriptor
//! duplication, here-strings and heredocs (with the rest of the heredoc's line, which
//! tree-sitter hangs under the heredoc). It turns each into a [`Redirect`].
//!
//! It never decides whether a target may be written (`check` does) and never reads a heredoc
//! body as literal unless its delimiter is quoted.

use tree_sitter::Node;

use super::kind::is_word_kind;
use super::word::WordBuf;
use super::{Event, Nest, Redirect, RedirectOp, Walker, Word, empty_word, span, static_word};
use crate::finding::Span;

impl<'a> Walker<'a> {
    /// True for the ERROR node tree-sitter makes of the first two `<` of a here-string that
    /// follows another redirection, when a `<` redirection starts right after it.
    pub(super) fn is_herestring_split(&self, err: Node, parent: Node) -> bool {
        if self.text(err) != "<<" {
            return false;
        }
        let next = err.next_sibling();
        next.is_some_and(|nx| {
            nx.kind() == "file_redirect"
                && nx.start_byte() == err.end_byte()
                && nx.child(0).is_some_and(|op| op.kind() == "<")
                && nx.parent() == Some(parent)
        })
    }

    pub(super) fn heredoc_tail(&mut self, n: Node, idx: usize) {
        let heredocs: Vec<Node> = if n.kind() == "heredoc_redirect" {
            vec![n]
        } else {
            let mut c = n.walk();
            n.children(&mut c)
                .filter(|c| c.kind() == "heredoc_redirect")
                .collect()
        };
        for h in heredocs {
            let mut c = h.walk();
            for (i, child) in h.children(&mut c).enumerate() {
                let field = h.field_name_for_child(i as u32);
                match child.kind() {
                    "pipeline" | "list" => {
                        let mut c2 = child.walk();
                        let mut last = Some(idx);
                        for g in child.children(&mut c2) {
                            if g.is_named() {
                                last = self.statement(g).or(last);
                            } else {
                                self.separator(g, last);
                            }
                        }
                    }
                    "&&" | "||" | "|" | ";" | "|&" | "&" => {
                        self.separator(child, Some(idx));
                    }
                    _ if field == Some("right") => {
                        self.statement(child);
                    }
                    _ => {}
                }
            }
        }
    }

    /// A `file_redirect` that tree-sitter split off a here-string: `<` + target is `<<<` target.
    pub(super) fn herestring_from_split(
        &mut self,
        n: Node,
        extra: &mut Vec<Word>,
    ) -> Option<Redirect> {
        let mut r = self.redirect(n, extra)?;
        r.op = RedirectOp::Herestring;
        let start = n.start_byte().saturating_sub(2);
        r.span = Span::new(start, r.span.end);
        Some(r)
    }

    /// Parses a redirection node. Extra destination words (`> f extra`) are arguments of the
    /// command in bash and are appended to `extra`.
    pub(super) fn redirect(&mut self, n: Node, extra: &mut Vec<Word>) -> Option<Redirect> {
        if !self.enter(n) {
            return None;
        }
        let r = match n.kind() {
            "file_redirect" => self.file_redirect(n, extra),
            "heredoc_redirect" => self.heredoc(n),
            "herestring_redirect" => {
                let fd = n
                    .child_by_field_name("descriptor")
                    .and_then(|d| self.text(d).parse().ok());
                let target = n
                    .named_children(&mut n.walk())
                    .filter(|c| is_word_kind(c.kind()))
                    .last();
                let target = target.map(|t| {
                    let mut ws = self.nested(Nest::Redirect, |w| w.word_unexpanded(t));
                    ws.pop().unwrap_or_else(|| empty_word(span(t)))
                });
                Some(Redirect {
                    fd,
                    op: RedirectOp::Herestring,
                    target,
                    quoted_heredoc: false,
                    span: span(n),
                })
            }
            k => {
                self.unsupported_node(n, k);
                None
            }
        };
        self.leave();
        r
    }

    pub(super) fn file_redirect(&mut self, n: Node, extra: &mut Vec<Word>) -> Option<Redirect> {
        let mut fd = None;
        let mut op = None;
        let mut target = None;
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            let field = n.field_name_for_child(i as u32);
            match (field, child.kind()) {
                (Some("descriptor"), _) => fd = self.text(child).parse().ok(),
                (Some("destination"), _) => {
                    let ws = self.nested(Nest::Redirect, |w| w.word(child));
                    if target.is_none() {
                        target = ws.into_iter().next();
                    } else {
                        extra.extend(ws);
                    }
                }
                (_, k) if !child.is_named() => {
                    op = Some(match k {
                        "<" => RedirectOp::Read,
                        ">" => RedirectOp::Write,
                        ">>" => RedirectOp::Append,
                        ">|" => RedirectOp::Clobber,
                        // No `<>` here: tree-sitter-bash has no such token and reads an ERROR,
                        // which is reported as a parse error.
                        "&>" => RedirectOp::WriteBoth,
                        "&>>" => RedirectOp::AppendBoth,
                        ">&" | ">&-" => RedirectOp::DupWrite,
                        "<&" | "<&-" => RedirectOp::DupRead,
                        k => {
                            self.event(Event::Unsupported(format!("redirection `{k}`")), span(n));
                            return None;
                        }
                    });
                    if k.ends_with('-') {
                        target = Some(static_word("-", span(child)));
                    }
                }
                (_, k) => self.unsupported_node(child, k),
            }
        }
        Some(Redirect {
            fd,
            op: op?,
            target,
            quoted_heredoc: false,
            span: span(n),
        })
    }

    pub(super) fn heredoc(&mut self, n: Node) -> Option<Redirect> {
        let mut op = RedirectOp::Heredoc;
        let mut delim: Option<Word> = None;
        let mut quoted = false;
        let mut end_text: Option<&str> = None;
        let mut body: Option<Node> = None;
        let mut fd = None;
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            let field = n.field_name_for_child(i as u32);
            match child.kind() {
                "<<" => op = RedirectOp::Heredoc,
                "<<-" => {
                    op = RedirectOp::HeredocStripTabs;
                    self.event(Event::HeredocStripTabs, span(child));
                }
                "heredoc_start" => {
                    let raw = self.text(child);
                    quoted = raw.contains(['\'', '"', '\\']);
                    let mut buf = WordBuf::default();
                    buf.push_quoted(&strip_quotes(raw));
                    delim = Some(buf.finish(span(child)));
                }
                "heredoc_body" => body = Some(child),
                "heredoc_end" => end_text = Some(self.text(child)),
                "file_descriptor" => fd = self.text(child).parse().ok(),
                _ if field == Some("redirect") => {
                    // `cat <<EOF > f`: a second redirection of the same command, reported as a
                    // compound redirect so check sees it.
                    if let Some(r) = self.redirect(child, &mut Vec::new()) {
                        self.event(Event::CompoundRedirect(r), span(child));
                    }
                }
                // The rest of the heredoc's line is walked by `heredoc_tail`.
                "pipeline" | "list" | "&&" | "||" | "|" | ";" | "|&" | "&" => {}
                _ if field == Some("right") || field == Some("operator") => {}
                _ if field == Some("argument") => {
                    // Words after the delimiter on the same line are arguments in bash; tree-sitter
                    // attaches them here. Treat as unsupported rather than guess the order.
                    self.event(
                        Event::Unsupported("words after a heredoc delimiter".into()),
                        span(child),
                    );
                }
                "ERROR" => self.error_node(child),
                k if child.is_named() => self.unsupported_node(child, k),
                _ => {}
            }
        }
        let d = delim.as_ref().map(|w| w.text.as_str()).unwrap_or("");
        match end_text {
            Some(e) if e == d => {}
            _ => self.event(
                Event::Mismatch("heredoc terminator does not match its delimiter"),
                span(n),
            ),
        }
        if let Some(b) = body {
            let strip = op == RedirectOp::HeredocStripTabs;
            let text = self.text(b);
            // Bash ends the body at the first line equal to the delimiter: a body line that
            // equals it means tree-sitter read further than bash does. In an unquoted body bash
            // first joins lines ending in a backslash (`E\<newline>OF` is a terminator to bash).
            let joined = if quoted {
                text.to_string()
            } else {
                join_continuations(text)
            };
            let ends_early = |t: &str| {
                t.split('\n')
                    .any(|l| (if strip { l.trim_start_matches('\t') } else { l }) == d)
            };
            if ends_early(text) || ends_early(&joined) {
                self.event(
                    Event::Mismatch("heredoc body contains its own terminator"),
                    span(b),
                );
            }
            if !quoted {
                self.nested(Nest::Heredoc, |w| {
                    // tree-sitter leaves backquotes (and some `$(`) in a body as plain text:
                    // every stretch it did not parse as an expansion is checked for what bash
                    // would expand.
                    let mut pos = b.start_byte();
                    let mut c = b.walk();
                    for child in b.named_children(&mut c) {
                        let gap = Span::new(pos, child.start_byte());
                        w.literal_leaf_check(w.src.get(gap.start..gap.end).unwrap_or(""), gap);
                        if child.kind() == "heredoc_content" {
                            w.literal_leaf_check(w.text(child), span(child));
                        } else {
                            let mut scratch = WordBuf::default();
                            w.word_part(child, &mut scratch);
                        }
                        pos = child.end_byte();
                    }
                    let tail = Span::new(pos, b.end_byte());
                    w.literal_leaf_check(w.src.get(tail.start..tail.end).unwrap_or(""), tail);
                });
            }
        }
        Some(Redirect {
            fd,
            op,
            target: delim,
            quoted_heredoc: quoted,
            span: span(n),
        })
    }
}

/// Quote removal for a heredoc delimiter word (`'EOF'`, `"E"OF`, `\EOF` all mean `EOF`).
pub(super) fn strip_quotes(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '\\') | (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            (_, c) => out.push(c),
        }
    }
    out
}

/// An unquoted heredoc body as bash reads its lines: every backslash-newline removed.
fn join_continuations(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&n) => {
                    // An escaped character (`\\` included) stays as it is.
                    chars.next();
                    out.push(c);
                    out.push(n);
                }
                None => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}
