//! segment/expand: stage 2, the word family — quoting, parameter, command, process and
//! arithmetic expansions, brace sequences. It decodes a word node into the words bash would
//! pass (through `word::WordBuf`), marks every part bash only knows at run time, and walks the
//! statements inside substitutions.
//!
//! It never decides safety and never takes an expansion for fixed text: what it cannot read is
//! recorded as a run-time value (`Expansions::PARAMETER`) next to an event.

use tree_sitter::Node;

use super::kind::is_word_kind;
use super::word::{Expansions, WordBuf, brace_expand, sequence_expand};
use super::{Event, Nest, Walker, Word, span};

impl<'a> Walker<'a> {
    /// Decodes the word-like nodes under a `value` field (for-lists, case values).
    pub(super) fn words_of(&mut self, n: Node) -> Vec<Word> {
        if is_word_kind(n.kind()) {
            self.word(n)
        } else {
            self.unsupported_node(n, n.kind());
            Vec::new()
        }
    }

    /// Decodes one word node into the words bash would produce (brace expansion may make several).
    pub(super) fn word(&mut self, n: Node) -> Vec<Word> {
        let mut buf = WordBuf::default();
        self.word_part(n, &mut buf);
        let s = span(n);
        if buf.quoted_mask.iter().all(|q| *q) || !buf.text.contains('{') {
            return vec![buf.finish(s)];
        }
        match brace_expand(&buf, self.limits.max_expansion, self.budget.bytes_left()) {
            Some(pieces)
                if self
                    .budget
                    .take_bytes(pieces.iter().map(|p| p.0.len()).sum()) =>
            {
                pieces
                    .into_iter()
                    .map(|(text, _mask)| Word {
                        text,
                        span: s,
                        expansions: buf.expansions,
                        quoted: buf.quoted,
                    })
                    .collect()
            }
            _ => {
                self.event(Event::Limit("brace expansion produces too many words"), s);
                vec![buf.finish(s)]
            }
        }
    }

    /// Like `word` but without brace expansion (assignment values are not brace-expanded).
    pub(super) fn word_unexpanded(&mut self, n: Node) -> Vec<Word> {
        let mut buf = WordBuf::default();
        self.word_part(n, &mut buf);
        vec![buf.finish(span(n))]
    }

    pub(super) fn word_part(&mut self, n: Node, buf: &mut WordBuf) {
        if !self.enter(n) {
            buf.push_expansion(self.text(n), Expansions::PARAMETER);
            return;
        }
        let raw = self.text(n);
        match n.kind() {
            "word" => {
                self.literal_leaf_check(raw, span(n));
                buf.push_bare(raw);
            }
            "number" => {
                if n.named_child_count() > 0 {
                    self.expansion_children(n, buf);
                } else {
                    buf.push_unquoted(raw);
                }
            }
            "raw_string" => {
                let inner = raw
                    .strip_prefix('\'')
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(raw);
                buf.push_quoted(inner);
            }
            "ansi_c_string" => buf.push_ansi_c(raw),
            "string" => {
                buf.quoted = true;
                let mut c = n.walk();
                let mut any = false;
                // tree-sitter-bash leaves some literal text of a double-quoted string outside
                // every child (a newline after a comment-like `#`, a string of only blanks):
                // the bytes between children are content too, and bash keeps them.
                let base = n.start_byte();
                let mut prev = base;
                for child in n.children(&mut c) {
                    if child.start_byte() > prev
                        && let Some(gap) = raw.get(prev - base..child.start_byte() - base)
                    {
                        any = true;
                        buf.push_double_quoted(gap);
                    }
                    prev = prev.max(child.end_byte());
                    match child.kind() {
                        // The closing quote's token can start with the blanks before it
                        // (`"  "`): they are content.
                        "\"" => {
                            let t = self.text(child);
                            if let Some(blanks) = t.strip_suffix('"').filter(|b| !b.is_empty()) {
                                any = true;
                                buf.push_double_quoted(blanks);
                            }
                        }
                        "string_content" => {
                            any = true;
                            buf.push_double_quoted(self.text(child));
                        }
                        "$" => buf.push_quoted("$"),
                        _ if child.is_named() => {
                            any = true;
                            self.word_part(child, buf);
                        }
                        k => self.event(Event::Unsupported(format!("token `{k}`")), span(child)),
                    }
                }
                if !any {
                    buf.push_quoted("");
                }
            }
            "translated_string" => {
                if let Some(s) = n.named_child(0) {
                    self.word_part(s, buf);
                }
            }
            "concatenation" => {
                let mut c = n.walk();
                for child in n.children(&mut c) {
                    if child.is_named() {
                        self.word_part(child, buf);
                    } else {
                        // Bare punctuation tree-sitter keeps as a token inside a word.
                        let t = self.text(child);
                        self.literal_leaf_check(t, span(child));
                        buf.push_bare(t);
                    }
                }
            }
            "simple_expansion" => {
                buf.push_expansion(raw, Expansions::PARAMETER);
            }
            "expansion" => {
                self.parameter_expansion(n);
                buf.push_expansion(raw, Expansions::PARAMETER);
            }
            "command_substitution" => {
                if n.child(0).is_some_and(|c| c.kind() == "`") {
                    self.event(Event::Backtick, span(n));
                    self.backquote_escapes(n);
                }
                self.nested(Nest::CommandSubstitution, |w| w.statements(n));
                buf.push_expansion(raw, Expansions::COMMAND);
            }
            "process_substitution" => {
                self.nested(Nest::ProcessSubstitution, |w| w.statements(n));
                buf.push_expansion(raw, Expansions::PROCESS);
            }
            "arithmetic_expansion" => {
                self.nested(Nest::Arithmetic, |w| w.arithmetic(n));
                buf.push_expansion(raw, Expansions::ARITHMETIC);
            }
            "brace_expression" => {
                let inner = raw
                    .strip_prefix('{')
                    .and_then(|s| s.strip_suffix('}'))
                    .unwrap_or(raw);
                match sequence_expand(inner, self.limits.max_expansion) {
                    Some(Ok(items)) if items.len() == 1 => buf.push_unquoted(&items[0]),
                    // Rewritten as a comma list so one brace expander handles products.
                    Some(Ok(items)) => buf.push_unquoted(&format!("{{{}}}", items.join(","))),
                    Some(Err(())) => {
                        self.event(
                            Event::Limit("brace expansion produces too many words"),
                            span(n),
                        );
                        buf.push_expansion(raw, Expansions::GLOB);
                    }
                    None => buf.push_quoted(raw),
                }
            }
            "variable_name" | "special_variable_name" => buf.push_quoted(raw),
            "extglob_pattern" | "regex" => {
                self.literal_leaf_check(raw, span(n));
                buf.push_bare(raw);
            }
            "ERROR" => {
                self.error_node(n);
                buf.push_expansion(raw, Expansions::PARAMETER);
            }
            k => {
                self.unsupported_node(n, k);
                buf.push_expansion(raw, Expansions::PARAMETER);
            }
        }
        self.leave();
    }

    pub(super) fn expansion_children(&mut self, n: Node, buf: &mut WordBuf) {
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.word_part(child, buf);
        }
    }

    /// `${…}`: substitutions in defaults, patterns and subscripts run; indirection and `@P`
    /// evaluate the value.
    pub(super) fn parameter_expansion(&mut self, n: Node) {
        let mut c = n.walk();
        let children: Vec<Node> = n.children(&mut c).collect();
        // After a bare `:` come a substring's offset and length, which bash evaluates as
        // arithmetic: `${PWD:0:x}` with `x='a[$(id)]'` runs `id`.
        let mut substring = false;
        for (i, child) in children.iter().enumerate() {
            let k = child.kind();
            if k == ":" && !child.is_named() {
                substring = true;
                continue;
            }
            if matches!(k, "=" | ":=")
                && !child.is_named()
                && let Some(name) = i
                    .checked_sub(1)
                    .and_then(|j| children.get(j))
                    .filter(|p| p.kind() == "variable_name")
            {
                self.event(
                    Event::ExpansionAssignment(self.text(*name).to_string()),
                    span(n),
                );
            }
            if substring && child.is_named() {
                let plain = k == "number"
                    && self
                        .text(*child)
                        .trim_start_matches(['-', ' '])
                        .bytes()
                        .all(|b| b.is_ascii_digit());
                if !plain {
                    self.event(Event::Arithmetic, span(*child));
                    self.nested(Nest::Arithmetic, |w| w.arithmetic_expr(*child));
                }
                continue;
            }
            if k == "!" && i == 1 {
                self.event(Event::EvaluatedExpansion, span(n));
            }
            if k == "@" && children.get(i + 1).is_some_and(|n| self.text(*n) == "P") {
                self.event(Event::EvaluatedExpansion, span(n));
            }
            if k == "subscript" {
                if let Some(ix) = child.child_by_field_name("index") {
                    let t = self.text(ix);
                    if !(t == "@" || t == "*" || t.bytes().all(|b| b.is_ascii_digit())) {
                        self.event(Event::Arithmetic, span(ix));
                    }
                    self.nested(Nest::Arithmetic, |w| w.arithmetic_expr(ix));
                }
            } else if child.is_named() && !matches!(k, "variable_name" | "special_variable_name") {
                let mut scratch = WordBuf::default();
                self.word_part(*child, &mut scratch);
            }
        }
    }

    /// `$(( … ))`, `(( … ))`: substitutions inside run; variables are evaluated as expressions.
    pub(super) fn arithmetic(&mut self, n: Node) {
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.arithmetic_expr(child);
        }
    }

    pub(super) fn arithmetic_expr(&mut self, n: Node) {
        if !self.enter(n) {
            return;
        }
        match n.kind() {
            "number" if n.named_child_count() == 0 => {}
            "variable_name" | "simple_expansion" | "expansion" | "subscript" | "word" => {
                // Bash evaluates a variable's value as an arithmetic expression, and array
                // subscripts inside it can run command substitutions.
                self.event(Event::Arithmetic, span(n));
                let mut c = n.walk();
                for child in n.named_children(&mut c) {
                    self.arithmetic_expr(child);
                }
            }
            "command_substitution"
            | "process_substitution"
            | "string"
            | "raw_string"
            | "concatenation"
            | "arithmetic_expansion" => {
                let mut scratch = WordBuf::default();
                self.word_part(n, &mut scratch);
                if n.kind() != "command_substitution" {
                    self.event(Event::Arithmetic, span(n));
                }
            }
            "binary_expression"
            | "unary_expression"
            | "postfix_expression"
            | "parenthesized_expression"
            | "ternary_expression"
            | "number" => {
                let mut c = n.walk();
                for child in n.named_children(&mut c) {
                    self.arithmetic_expr(child);
                }
            }
            "variable_assignment" => {
                self.event(Event::Arithmetic, span(n));
            }
            "ERROR" => self.error_node(n),
            k => self.unsupported_node(n, k),
        }
        self.leave();
    }
}
