//! segment/statement: stage 2, the statement family — lists, pipelines, compound commands
//! (groups, subshells, `if`/`while`/`for`/`case`, functions, tests) and simple commands with
//! their assignments. It turns each simple command into a [`Segment`] and each operator into a
//! joiner or an [`Event`].
//!
//! It never decides safety and never guesses: a node kind or token it does not list in
//! `kind.rs` becomes an `Unsupported` event, and the words themselves are decoded by `expand`.

use tree_sitter::Node;

use super::kind::{SEPARATORS, is_word_kind};
use super::word::WordBuf;
use super::{
    Assignment, Event, Joiner, Nest, Redirect, SegmentKind, Walker, Word, empty_word, span,
    static_word,
};
use crate::finding::Span;

impl<'a> Walker<'a> {
    /// Walks the statement children of a container node (program, list, group, body, …).
    /// Returns the index of the last segment emitted at this level.
    pub(super) fn statements(&mut self, n: Node) -> Option<usize> {
        if !self.enter(n) {
            return None;
        }
        if n.is_error() {
            self.error_node(n);
        }
        let mut last: Option<usize> = None;
        let mut prev_end: Option<usize> = None;
        let mut c = n.walk();
        for child in n.children(&mut c) {
            if child.is_named() {
                if child.kind() == "comment" {
                    continue;
                }
                if let (Some(end), Some(l)) = (prev_end, last) {
                    // Two statements with no operator token between them: bash saw a newline.
                    let gap = self.src.get(end..child.start_byte()).unwrap_or("");
                    if gap.contains('\n') && self.out.segments[l].joiner.is_none() {
                        self.out.segments[l].joiner = Some(Joiner::Newline);
                        self.event(Event::Newline, Span::new(end, child.start_byte()));
                    }
                }
                if let Some(i) = self.statement(child) {
                    last = Some(i);
                }
                prev_end = Some(child.end_byte());
            } else {
                self.separator(child, last);
                if !matches!(child.kind(), ")" | "}" | "))" | "fi" | "done" | "esac") {
                    prev_end = None;
                }
            }
        }
        self.leave();
        last
    }

    pub(super) fn separator(&mut self, tok: Node, last: Option<usize>) {
        let kind = tok.kind();
        let joiner = match kind {
            ";" => Some(Joiner::Semicolon),
            "&&" => Some(Joiner::And),
            "||" => Some(Joiner::Or),
            "|" => Some(Joiner::Pipe),
            "|&" => {
                self.event(Event::PipeBoth, span(tok));
                Some(Joiner::PipeBoth)
            }
            "&" => {
                self.event(Event::Background, span(tok));
                Some(Joiner::Background)
            }
            k if SEPARATORS.contains(&k) => None,
            k => {
                self.event(Event::Unsupported(format!("token `{k}`")), span(tok));
                None
            }
        };
        if let (Some(j), Some(i)) = (joiner, last) {
            self.out.segments[i].joiner = Some(j);
        }
    }

    /// Walks one statement node. Returns the index of the last segment it emitted at its level.
    pub(super) fn statement(&mut self, n: Node) -> Option<usize> {
        if !self.enter(n) {
            return None;
        }
        let r = match n.kind() {
            "command" => self.command(n, &[]),
            "redirected_statement" => self.redirected(n),
            "list" | "pipeline" | "program" => self.statements(n),
            "subshell" => self.nested(Nest::Subshell, |w| w.statements(n)),
            "compound_statement" => {
                if n.child(0).is_some_and(|c| c.kind() == "((") {
                    self.nested(Nest::Arithmetic, |w| w.arithmetic(n));
                    None
                } else {
                    // `{` is a keyword only as a word of its own before a command: `{}` and
                    // `{ls;}` are commands named `{}` and `{ls` to bash.
                    let text = self.text(n);
                    let keyword = text.len() > 1 && text.as_bytes()[1].is_ascii_whitespace();
                    if !keyword || n.named_child_count() == 0 {
                        self.event(
                            Event::Mismatch("a `{ … }` group bash reads as a word"),
                            span(n),
                        );
                    }
                    self.nested(Nest::Group, |w| w.statements(n))
                }
            }
            "negated_command" => self.statements(n),
            "if_statement" | "elif_clause" | "else_clause" | "while_statement" | "do_group" => {
                self.nested(Nest::Control, |w| w.control(n))
            }
            "for_statement" => self.nested(Nest::Control, |w| w.for_statement(n)),
            "c_style_for_statement" => self.nested(Nest::Control, |w| w.c_for(n)),
            "case_statement" => self.nested(Nest::Control, |w| w.case_statement(n)),
            "function_definition" => self.function(n),
            "test_command" => self.test_command(n),
            "variable_assignment" | "variable_assignments" => self.assignments_only(n),
            "declaration_command" | "unset_command" => self.declaration(n),
            "ERROR" => {
                self.error_node(n);
                // Still look inside so destructive commands in broken input are seen.
                self.statements(n)
            }
            k => {
                self.unsupported_node(n, k);
                None
            }
        };
        self.leave();
        r
    }

    /// if/while/else/do bodies: conditions and bodies are statements; keywords are separators.
    pub(super) fn control(&mut self, n: Node) -> Option<usize> {
        self.statements(n)
    }

    pub(super) fn for_statement(&mut self, n: Node) -> Option<usize> {
        let mut last = None;
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            match n.field_name_for_child(i as u32) {
                // `for NAME in …` assigns NAME, as `${NAME:=…}` does.
                Some("variable") => self.event(
                    Event::ExpansionAssignment(self.text(child).to_string()),
                    Span::new(n.start_byte(), child.end_byte()),
                ),
                Some("value") => {
                    self.words_of(child);
                }
                Some("body") => last = self.statement(child),
                _ if child.is_named() && child.kind() != "comment" => {
                    self.unsupported_node(child, child.kind())
                }
                _ if !child.is_named() => self.separator(child, None),
                _ => {}
            }
        }
        last
    }

    pub(super) fn c_for(&mut self, n: Node) -> Option<usize> {
        let mut last = None;
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            match n.field_name_for_child(i as u32) {
                Some("body") => last = self.statement(child),
                _ if child.is_named() => {
                    self.nested(Nest::Arithmetic, |w| w.arithmetic_expr(child));
                }
                _ => {}
            }
        }
        last
    }

    pub(super) fn case_statement(&mut self, n: Node) -> Option<usize> {
        let mut last = None;
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            if n.field_name_for_child(i as u32) == Some("value") {
                self.words_of(child);
            } else if child.kind() == "case_item" {
                last = self.case_item(child).or(last);
            } else if child.is_named() && child.kind() != "comment" {
                self.unsupported_node(child, child.kind());
            } else if !child.is_named() {
                self.separator(child, None);
            }
        }
        last
    }

    pub(super) fn case_item(&mut self, n: Node) -> Option<usize> {
        if !self.enter(n) {
            return None;
        }
        let mut last = None;
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            let field = n.field_name_for_child(i as u32);
            if field == Some("value") {
                // Patterns are expanded (substitutions in them run) but never executed.
                self.words_of(child);
            } else if child.is_named() && child.kind() != "comment" {
                last = self.statement(child).or(last);
            } else if !child.is_named() {
                self.separator(child, last);
            }
        }
        self.leave();
        last
    }

    pub(super) fn function(&mut self, n: Node) -> Option<usize> {
        let name = n
            .child_by_field_name("name")
            .map(|c| self.text(c).to_string())
            .unwrap_or_default();
        self.event(Event::FunctionDefinition(name), span(n));
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            match n.field_name_for_child(i as u32) {
                Some("body") => {
                    self.nested(Nest::Function, |w| w.statement(child));
                }
                Some("redirect") => {
                    let r = self.redirect(child, &mut Vec::new());
                    if let Some(r) = r {
                        self.event(Event::CompoundRedirect(r), span(child));
                    }
                }
                Some("name") => {}
                _ if child.is_named() => self.unsupported_node(child, child.kind()),
                _ => {}
            }
        }
        None
    }

    pub(super) fn redirected(&mut self, n: Node) -> Option<usize> {
        let body = n.child_by_field_name("body");
        let mut redirects = Vec::new();
        let mut c = n.walk();
        for (i, child) in n.children(&mut c).enumerate() {
            if n.field_name_for_child(i as u32) == Some("redirect")
                || matches!(child.kind(), "herestring_redirect")
            {
                redirects.push(child);
            } else if child.kind() == "ERROR" && self.is_herestring_split(child, n) {
                // `cmd > f <<< x`: tree-sitter splits `<<<` into ERROR(`<<`) + `< x`; bash reads a
                // here-string. The following `file_redirect` is re-read as one below.
                self.handled_errors.push(child.id());
            } else if Some(child) != body && child.is_named() {
                if child.kind() == "ERROR" {
                    self.error_node(child);
                } else {
                    self.unsupported_node(child, child.kind());
                }
            }
        }
        match body {
            Some(b) if b.kind() == "command" => self.command(b, &redirects),
            Some(b) => {
                let last = self.statement(b);
                let mut extra = Vec::new();
                for r in &redirects {
                    if let Some(red) = self.redirect(*r, &mut extra) {
                        self.event(Event::CompoundRedirect(red), span(*r));
                    }
                }
                // `! ls <<EOF |& x`: the heredoc carries the rest of the line here too.
                for r in redirects.iter().filter(|r| r.kind() == "heredoc_redirect") {
                    match last {
                        Some(idx) => self.heredoc_tail(*r, idx),
                        None => self.event(
                            Event::Unsupported("a heredoc after a compound command".into()),
                            span(*r),
                        ),
                    }
                }
                if let Some(w) = extra.first() {
                    // Bash rejects words after a redirection of a compound command.
                    self.event(
                        Event::Unsupported("word after a compound command's redirection".into()),
                        w.span,
                    );
                }
                last
            }
            None => {
                // Redirections with no command (`> f`): bash still opens the files.
                let idx = self.push_segment(SegmentKind::Assignments, span(n));
                let mut extra = Vec::new();
                let reds: Vec<Redirect> = redirects
                    .into_iter()
                    .filter_map(|r| self.redirect(r, &mut extra))
                    .collect();
                self.out.segments[idx].redirects = reds;
                self.out.segments[idx].words = extra;
                self.heredoc_tail(n, idx);
                Some(idx)
            }
        }
    }

    pub(super) fn command(&mut self, n: Node, outer_redirects: &[Node]) -> Option<usize> {
        let mut s = span(n);
        for r in outer_redirects {
            s = s.cover(span(*r));
        }
        let idx = self.push_segment(SegmentKind::Command, s);
        let mut words = Vec::new();
        let mut assignments = Vec::new();
        let mut redirects = Vec::new();
        let mut c = n.walk();
        // Where the previous word ended: a word starting right there is, to bash, the same
        // word (`ls<(true)` is the one word `ls/dev/fd/63`), whatever tree-sitter made of it.
        let mut word_end = None;
        for child in n.children(&mut c) {
            if child.kind() == "command_name" || (child.is_named() && is_word_kind(child.kind())) {
                if word_end == Some(child.start_byte()) {
                    self.event(
                        Event::Mismatch("two words with no space between them"),
                        span(child),
                    );
                }
                word_end = Some(child.end_byte());
            } else if child.kind() != "comment" {
                word_end = None;
            }
            match child.kind() {
                "variable_assignment" => {
                    if let Some(a) = self.assignment(child) {
                        assignments.push(a);
                    }
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    if let Some(r) = self.redirect(child, &mut words) {
                        redirects.push(r);
                    }
                }
                "command_name" => {
                    if let Some(inner) = child.named_child(0) {
                        if child.named_child_count() > 1 {
                            self.unsupported_node(child, "command_name");
                        }
                        let ws = self.word(inner);
                        words.extend(ws);
                    }
                }
                "comment" => {}
                k if child.is_named() && is_word_kind(k) => {
                    let ws = self.word(child);
                    words.extend(ws);
                }
                "ERROR" => self.error_node(child),
                k => {
                    if child.is_named() {
                        self.unsupported_node(child, k);
                    } else {
                        self.event(Event::Unsupported(format!("token `{k}`")), span(child));
                    }
                }
            }
        }
        for r in outer_redirects {
            let prev_is_split = r
                .prev_sibling()
                .is_some_and(|p| p.kind() == "ERROR" && self.text(p) == "<<");
            let red = if prev_is_split {
                self.herestring_from_split(*r, &mut words)
            } else {
                self.redirect(*r, &mut words)
            };
            if let Some(red) = red {
                redirects.push(red);
            }
        }
        // `time` is a keyword when it starts a pipeline unquoted: bash runs what follows it.
        // After `|` it is the program `time` (`ls | time -p ls` runs /usr/bin/time).
        if assignments.is_empty() && !after_pipe(n) {
            strip_time_keyword(&mut words);
        }
        let seg = &mut self.out.segments[idx];
        seg.kind = if words.is_empty() {
            SegmentKind::Assignments
        } else {
            SegmentKind::Command
        };
        seg.words = words;
        seg.assignments = assignments;
        seg.redirects = redirects;
        // A heredoc may carry the rest of its line (`cat <<EOF | grep x`): walk it now so the
        // pipe joins this segment to what follows.
        for r in outer_redirects.iter().chain(std::iter::once(&n)) {
            self.heredoc_tail(*r, idx);
        }
        Some(idx)
    }

    pub(super) fn assignments_only(&mut self, n: Node) -> Option<usize> {
        let idx = self.push_segment(SegmentKind::Assignments, span(n));
        let mut out = Vec::new();
        if n.kind() == "variable_assignment" {
            out.extend(self.assignment(n));
        } else {
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                if child.kind() == "variable_assignment" {
                    out.extend(self.assignment(child));
                } else {
                    self.unsupported_node(child, child.kind());
                }
            }
        }
        self.out.segments[idx].assignments = out;
        Some(idx)
    }

    pub(super) fn assignment(&mut self, n: Node) -> Option<Assignment> {
        let name_node = n.child_by_field_name("name")?;
        let (name, subscript) = if name_node.kind() == "subscript" {
            self.nested(Nest::Arithmetic, |w| {
                if let Some(ix) = name_node.child_by_field_name("index") {
                    w.arithmetic_expr(ix);
                }
            });
            let base = name_node
                .child_by_field_name("name")
                .map(|c| self.text(c).to_string())
                .unwrap_or_default();
            (base, true)
        } else {
            (self.text(name_node).to_string(), false)
        };
        let value = match n.child_by_field_name("value") {
            Some(v) if v.kind() == "array" => {
                let mut buf = WordBuf::default();
                let mut c = v.walk();
                for el in v.named_children(&mut c) {
                    let ws = self.nested(Nest::Assignment, |w| w.word(el));
                    for w in ws {
                        buf.expansions.merge(w.expansions);
                        buf.push_quoted(&w.text);
                        buf.push_quoted(" ");
                    }
                }
                buf.finish(span(v))
            }
            Some(v) => {
                let mut ws = self.nested(Nest::Assignment, |w| w.word_unexpanded(v));
                ws.pop().unwrap_or_else(|| empty_word(span(v)))
            }
            None => empty_word(Span::new(n.end_byte(), n.end_byte())),
        };
        Some(Assignment {
            name,
            value,
            subscript,
            span: span(n),
        })
    }

    /// `export`, `declare`, `local`, `readonly`, `typeset`, `unset`: a command whose words are
    /// the keyword and its operands (assignments keep their `NAME=value` text).
    pub(super) fn declaration(&mut self, n: Node) -> Option<usize> {
        let idx = self.push_segment(SegmentKind::Command, span(n));
        let mut words = Vec::new();
        let mut assignments = Vec::new();
        let mut c = n.walk();
        for child in n.children(&mut c) {
            if !child.is_named() {
                words.push(static_word(child.kind(), span(child)));
            } else if child.kind() == "variable_assignment" {
                if let Some(a) = self.assignment(child) {
                    let mut w = a.value.clone();
                    w.text = format!("{}={}", a.name, a.value.text);
                    w.span = a.span;
                    words.push(w);
                    assignments.push(a);
                }
            } else if child.kind() == "variable_name" {
                words.push(static_word(self.text(child), span(child)));
            } else if is_word_kind(child.kind()) {
                let ws = self.word(child);
                words.extend(ws);
            } else {
                self.unsupported_node(child, child.kind());
            }
        }
        let seg = &mut self.out.segments[idx];
        seg.words = words;
        // Kept for the record; the words already say what the builtin receives.
        let _ = assignments;
        Some(idx)
    }

    pub(super) fn test_command(&mut self, n: Node) -> Option<usize> {
        let idx = self.push_segment(SegmentKind::Test, span(n));
        // Inside `[[ ]]` bash still reads `<(` and `>(` as process substitutions, where
        // tree-sitter sees a comparison and a parenthesis.
        let text = self.text(n);
        if text.contains("<(") || text.contains(">(") {
            let mut c = n.walk();
            let has_substitution = n
                .children(&mut c)
                .any(|ch| ch.kind() == "process_substitution");
            if !has_substitution {
                self.event(
                    Event::Mismatch("`<(` or `>(` inside `[[ ]]`, a process substitution to bash"),
                    span(n),
                );
            }
        }
        let mut words = Vec::new();
        self.nested(Nest::Test, |w| w.test_parts(n, &mut words));
        self.out.segments[idx].words = words;
        Some(idx)
    }

    pub(super) fn test_parts(&mut self, n: Node, out: &mut Vec<Word>) {
        if !self.enter(n) {
            return;
        }
        let mut c = n.walk();
        for child in n.children(&mut c) {
            let k = child.kind();
            if !child.is_named() {
                out.push(static_word(k, span(child)));
                continue;
            }
            match k {
                "binary_expression" | "unary_expression" | "parenthesized_expression" => {
                    self.test_parts(child, out)
                }
                "test_operator" => out.push(static_word(self.text(child), span(child))),
                "regex" | "extglob_pattern" => {
                    let t = self.text(child);
                    self.literal_leaf_check(t, span(child));
                    out.push(static_word(t, span(child)));
                }
                _ if is_word_kind(k) => {
                    let ws = self.word(child);
                    out.extend(ws);
                }
                "ERROR" => self.error_node(child),
                _ => self.unsupported_node(child, k),
            }
        }
        self.leave();
    }
}

/// Removes the `time` keyword and its options from the front of a command's words, the way
/// bash's grammar reads them: `time`, then at most one `-p`, then at most one `--`, and the
/// pipeline that follows may start with `time` again. Anything else is the command: in
/// `time -p -p ls` and `time -- -p ls` bash runs a program named `-p`. Only bare, static words
/// are the keyword and its options (`time '--'` runs a command named `--`).
fn strip_time_keyword(words: &mut Vec<Word>) {
    let bare = |w: Option<&Word>, text: &str| {
        w.is_some_and(|w| w.text == text && !w.quoted && w.is_static())
    };
    while bare(words.first(), "time") {
        words.remove(0);
        if bare(words.first(), "-p") {
            words.remove(0);
        }
        if bare(words.first(), "--") {
            words.remove(0);
        }
    }
}

/// Whether a command is a later stage of a pipeline (it follows `|` or `|&`), where bash no
/// longer reads reserved words such as `time`.
fn after_pipe(command: Node) -> bool {
    let stage = match command.parent() {
        Some(p) if p.kind() == "redirected_statement" => p,
        _ => command,
    };
    stage.parent().is_some_and(|p| p.kind() == "pipeline") && stage.prev_named_sibling().is_some()
}
