//! segment: stage 2 — turns the tree-sitter tree into [`Segment`]s, every simple command bash
//! could execute, in source order, with decoded words, assignments and redirections, plus
//! [`Event`]s for the syntax around them (operators, substitutions, parse errors, limits).
//!
//! It never decides safety: it reports what is there, and `check` judges it. It fails closed by
//! construction: node kinds and operators it does not list become `Unsupported` events.

pub(crate) mod word;

use serde::Serialize;
use tree_sitter::{Node, Tree};

pub use self::word::{Expansions, Word};
use self::word::{WordBuf, brace_expand, sequence_expand};
use crate::budget::Budget;
use crate::finding::Span;
use crate::limits::Limits;

/// How a segment is joined to the one that follows it at the same level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Joiner {
    /// `;`
    Semicolon,
    /// A newline between commands.
    Newline,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `|`
    Pipe,
    /// `|&`
    PipeBoth,
    /// `&`
    Background,
}

/// A syntactic context a segment sits inside, outermost first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Nest {
    /// `( … )`
    Subshell,
    /// `{ …; }`
    Group,
    /// `$( … )` or `` `…` ``
    CommandSubstitution,
    /// `<( … )` or `>( … )`
    ProcessSubstitution,
    /// A function body.
    Function,
    /// `if`, `while`, `until`, `for`, `select`, `case`.
    Control,
    /// `$(( … ))`, `(( … ))`, an array subscript.
    Arithmetic,
    /// An unquoted heredoc body.
    Heredoc,
    /// A `[[ … ]]` or `[ … ]` test.
    Test,
    /// The value of an assignment.
    Assignment,
    /// The target of a redirection.
    Redirect,
}

/// What kind of simple command a segment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// A program or builtin with arguments: `words[0]` is the command word.
    Command,
    /// `[[ … ]]` or `[ … ]`: `words` hold the brackets and operands.
    Test,
    /// Assignments only (`a=1 b=2`): `words` is empty.
    Assignments,
}

/// `NAME=value` before a command or on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// The variable name (without any subscript).
    pub name: String,
    /// The value after quote removal.
    pub value: Word,
    /// True for `NAME[i]=…`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub subscript: bool,
    /// Where the assignment is.
    pub span: Span,
}

/// The operator of a redirection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>` (and `>&word` with a non-numeric word)
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `>&n`, `>&-`
    DupWrite,
    /// `<&n`, `<&-`
    DupRead,
    /// `<<`
    Heredoc,
    /// `<<-`
    HeredocStripTabs,
    /// `<<<`
    Herestring,
}

/// One redirection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// The descriptor written before the operator (`2` in `2>x`), when one is.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// The target word: a file, a descriptor number, `-`, a heredoc delimiter or a here-string.
    pub target: Option<Word>,
    /// True for a heredoc whose delimiter is quoted (its body is literal).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub quoted_heredoc: bool,
    /// Where the redirection is.
    pub span: Span,
}

/// A simple command bash could execute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// What kind of simple command this is.
    pub kind: SegmentKind,
    /// Where the command is.
    #[serde(skip)]
    pub span: Span,
    /// Words after quote removal and brace expansion; `words[0]` is the command word.
    #[serde(skip)]
    pub words: Vec<Word>,
    /// Assignments before the command word.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assignments: Vec<Assignment>,
    /// Redirections of this command.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<Redirect>,
    /// How the segment is joined to the next one at its level.
    pub joiner: Option<Joiner>,
    /// The contexts the segment sits in, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nesting: Vec<Nest>,
}

impl Segment {
    /// The decoded words as strings.
    pub fn argv(&self) -> Vec<String> {
        self.words.iter().map(|w| w.text.clone()).collect()
    }

    /// True when the segment sits inside a substitution (its output feeds another command).
    pub fn in_substitution(&self) -> bool {
        self.nesting
            .iter()
            .any(|n| matches!(n, Nest::CommandSubstitution | Nest::ProcessSubstitution))
    }
}

/// A fact about the syntax around the segments, for `check` to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// `&` after a command.
    Background,
    /// `|&`.
    PipeBoth,
    /// Commands separated by a newline.
    Newline,
    /// A backquoted command substitution.
    Backtick,
    /// A tree-sitter ERROR node.
    ParseError,
    /// A MISSING node: the text ends before this token closes a construct.
    Missing(String),
    /// A node kind or token the walker does not understand.
    Unsupported(String),
    /// A place where tree-sitter-bash and bash read the text differently.
    Mismatch(&'static str),
    /// Arithmetic over something other than literal numbers.
    Arithmetic,
    /// `${!x}` or `${x@P}`: the value is evaluated.
    EvaluatedExpansion,
    /// A shell variable assigned outside an assignment word: `${NAME=value}`,
    /// `${NAME:=value}`, `for NAME in …`.
    ExpansionAssignment(String),
    /// A `<<-` heredoc.
    HeredocStripTabs,
    /// A limit was exceeded; the walk stopped descending.
    Limit(&'static str),
    /// A function definition with its name.
    FunctionDefinition(String),
    /// A redirection on a compound command (`{ …; } > f`, `done < f`).
    CompoundRedirect(Redirect),
}

/// The output of segmenting one command.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// Simple commands in source order.
    pub segments: Vec<Segment>,
    /// Syntax facts with their spans.
    pub events: Vec<(Event, Span)>,
}

/// Tree depth the recursive walk never exceeds, whatever the configured nesting limit: it keeps
/// the stack bounded on hostile input such as thousands of `(`.
const MAX_TREE_DEPTH: usize = 400;

/// Segments a parsed command. `src` must be the text the tree was parsed from; the walk
/// spends `budget` (segments, brace expansion) under its limits.
pub(crate) fn segment(tree: &Tree, src: &str, budget: &Budget) -> Script {
    let mut w = Walker {
        src,
        out: Script::default(),
        nesting: Vec::new(),
        depth: 0,
        limits: budget.limits(),
        budget,
        stopped: false,
        handled_errors: Vec::new(),
        error_nodes: Vec::new(),
    };
    let root = tree.root_node();
    if root.has_error() {
        w.missing_nodes(root);
    }
    w.statements(root);
    w.line_continuations(root);
    w.escaped_blanks(root);
    w.comment_starts(root);
    // The walker only reports errors where it looks: any ERROR node it neither reported nor
    // recognised is reported here, so a tree with an error never comes out clean.
    let unhandled: Vec<Span> = w
        .error_nodes
        .iter()
        .filter(|(id, _)| !w.handled_errors.contains(id))
        .map(|(_, s)| *s)
        .collect();
    for s in unhandled {
        w.event(Event::ParseError, s);
    }
    let reported = w
        .out
        .events
        .iter()
        .any(|(e, _)| matches!(e, Event::ParseError | Event::Missing(_)));
    if root.has_error() && !reported && w.error_nodes.is_empty() {
        w.event(Event::ParseError, span(root));
    }
    w.out
}

struct Walker<'a> {
    src: &'a str,
    out: Script,
    nesting: Vec<Nest>,
    depth: usize,
    limits: &'a Limits,
    budget: &'a Budget,
    stopped: bool,
    /// ERROR nodes already reported, or recognised as a known tree-sitter misreading.
    handled_errors: Vec<usize>,
    /// Every ERROR node in the tree (found only when the tree has errors).
    error_nodes: Vec<(usize, Span)>,
}

/// Anonymous tokens that may appear between statements. Each is safe by itself because bash
/// runs both sides and each side becomes its own segment; `&` and `|&` are reported as events.
const SEPARATORS: &[&str] = &[
    ";", "&&", "||", "|", "\n", // sequencing, conditionals, pipes: each side is checked
    ";;", ";&", ";;&", // case item terminators
    "(", ")", "{", "}", "((", "))", // grouping punctuation of the node being walked
    "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "for", "select", "in",
    "case", "esac", "function", "!", // keywords: structure, not programs
    "$(", "`", "<(", ">(", // substitution delimiters: the inner statements are walked
];

fn span(n: Node) -> Span {
    Span::new(n.start_byte(), n.end_byte())
}

impl<'a> Walker<'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn event(&mut self, e: Event, s: Span) {
        self.out.events.push((e, s));
    }

    /// Enters a node: false (with a limit event) when the walk must not go deeper.
    fn enter(&mut self, n: Node) -> bool {
        if self.stopped {
            return false;
        }
        if self.depth >= MAX_TREE_DEPTH || self.nesting.len() > self.limits.max_nesting {
            self.stopped = true;
            self.event(Event::Limit("nesting is deeper than the limit"), span(n));
            return false;
        }
        if !self.budget.ok() {
            self.stopped = true;
            self.event(
                Event::Limit("the analysis ran out of its work budget"),
                span(n),
            );
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn nested<T>(&mut self, nest: Nest, f: impl FnOnce(&mut Self) -> T) -> T {
        self.nesting.push(nest);
        let r = f(self);
        self.nesting.pop();
        r
    }

    /// Walks the statement children of a container node (program, list, group, body, …).
    /// Returns the index of the last segment emitted at this level.
    fn statements(&mut self, n: Node) -> Option<usize> {
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

    fn separator(&mut self, tok: Node, last: Option<usize>) {
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
    fn statement(&mut self, n: Node) -> Option<usize> {
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

    /// Reports an ERROR node once and remembers it as handled.
    fn error_node(&mut self, n: Node) {
        self.handled_errors.push(n.id());
        self.event(Event::ParseError, span(n));
    }

    fn unsupported_node(&mut self, n: Node, kind: &str) {
        if n.is_missing() {
            self.event(Event::Missing(n.kind().to_string()), span(n));
        } else {
            self.event(Event::Unsupported(format!("`{kind}`")), span(n));
        }
    }

    /// if/while/else/do bodies: conditions and bodies are statements; keywords are separators.
    fn control(&mut self, n: Node) -> Option<usize> {
        self.statements(n)
    }

    fn for_statement(&mut self, n: Node) -> Option<usize> {
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

    fn c_for(&mut self, n: Node) -> Option<usize> {
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

    fn case_statement(&mut self, n: Node) -> Option<usize> {
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

    fn case_item(&mut self, n: Node) -> Option<usize> {
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

    fn function(&mut self, n: Node) -> Option<usize> {
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

    fn redirected(&mut self, n: Node) -> Option<usize> {
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

    /// True for the ERROR node tree-sitter makes of the first two `<` of a here-string that
    /// follows another redirection, when a `<` redirection starts right after it.
    fn is_herestring_split(&self, err: Node, parent: Node) -> bool {
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

    fn push_segment(&mut self, kind: SegmentKind, s: Span) -> usize {
        self.out.segments.push(Segment {
            kind,
            span: s,
            words: Vec::new(),
            assignments: Vec::new(),
            redirects: Vec::new(),
            joiner: None,
            nesting: self.nesting.clone(),
        });
        let idx = self.out.segments.len() - 1;
        if !self.budget.take_segment() && !self.stopped {
            self.stopped = true;
            self.event(Event::Limit("more segments than the limit"), s);
        }
        idx
    }

    fn command(&mut self, n: Node, outer_redirects: &[Node]) -> Option<usize> {
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
        if assignments.is_empty()
            && words
                .first()
                .is_some_and(|w| w.text == "time" && !w.quoted && w.is_static())
        {
            words.remove(0);
            // Only the bare words `-p` and `--` are options: `time '--'` runs a command `--`.
            while words
                .first()
                .is_some_and(|w| (w.text == "-p" || w.text == "--") && w.is_static() && !w.quoted)
            {
                words.remove(0);
            }
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

    fn heredoc_tail(&mut self, n: Node, idx: usize) {
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
    fn herestring_from_split(&mut self, n: Node, extra: &mut Vec<Word>) -> Option<Redirect> {
        let mut r = self.redirect(n, extra)?;
        r.op = RedirectOp::Herestring;
        let start = n.start_byte().saturating_sub(2);
        r.span = Span::new(start, r.span.end);
        Some(r)
    }

    fn assignments_only(&mut self, n: Node) -> Option<usize> {
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

    fn assignment(&mut self, n: Node) -> Option<Assignment> {
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
    fn declaration(&mut self, n: Node) -> Option<usize> {
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

    fn test_command(&mut self, n: Node) -> Option<usize> {
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

    fn test_parts(&mut self, n: Node, out: &mut Vec<Word>) {
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

    /// Decodes the word-like nodes under a `value` field (for-lists, case values).
    fn words_of(&mut self, n: Node) -> Vec<Word> {
        if is_word_kind(n.kind()) {
            self.word(n)
        } else {
            self.unsupported_node(n, n.kind());
            Vec::new()
        }
    }

    /// Decodes one word node into the words bash would produce (brace expansion may make several).
    fn word(&mut self, n: Node) -> Vec<Word> {
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
    fn word_unexpanded(&mut self, n: Node) -> Vec<Word> {
        let mut buf = WordBuf::default();
        self.word_part(n, &mut buf);
        vec![buf.finish(span(n))]
    }

    fn word_part(&mut self, n: Node, buf: &mut WordBuf) {
        if !self.enter(n) {
            buf.push_expansion(
                self.text(n),
                Expansions {
                    parameter: true,
                    ..Default::default()
                },
            );
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
                for child in n.children(&mut c) {
                    match child.kind() {
                        "\"" => {}
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
                buf.push_expansion(
                    raw,
                    Expansions {
                        parameter: true,
                        ..Default::default()
                    },
                );
            }
            "expansion" => {
                self.parameter_expansion(n);
                buf.push_expansion(
                    raw,
                    Expansions {
                        parameter: true,
                        ..Default::default()
                    },
                );
            }
            "command_substitution" => {
                if n.child(0).is_some_and(|c| c.kind() == "`") {
                    self.event(Event::Backtick, span(n));
                }
                self.nested(Nest::CommandSubstitution, |w| w.statements(n));
                buf.push_expansion(
                    raw,
                    Expansions {
                        command: true,
                        ..Default::default()
                    },
                );
            }
            "process_substitution" => {
                self.nested(Nest::ProcessSubstitution, |w| w.statements(n));
                buf.push_expansion(
                    raw,
                    Expansions {
                        process: true,
                        ..Default::default()
                    },
                );
            }
            "arithmetic_expansion" => {
                self.nested(Nest::Arithmetic, |w| w.arithmetic(n));
                buf.push_expansion(
                    raw,
                    Expansions {
                        arithmetic: true,
                        ..Default::default()
                    },
                );
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
                        buf.push_expansion(
                            raw,
                            Expansions {
                                glob: true,
                                ..Default::default()
                            },
                        );
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
                buf.push_expansion(
                    raw,
                    Expansions {
                        parameter: true,
                        ..Default::default()
                    },
                );
            }
            k => {
                self.unsupported_node(n, k);
                buf.push_expansion(
                    raw,
                    Expansions {
                        parameter: true,
                        ..Default::default()
                    },
                );
            }
        }
        self.leave();
    }

    fn expansion_children(&mut self, n: Node, buf: &mut WordBuf) {
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.word_part(child, buf);
        }
    }

    /// `${…}`: substitutions in defaults, patterns and subscripts run; indirection and `@P`
    /// evaluate the value.
    fn parameter_expansion(&mut self, n: Node) {
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
    fn arithmetic(&mut self, n: Node) {
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.arithmetic_expr(child);
        }
    }

    fn arithmetic_expr(&mut self, n: Node) {
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

    /// Parses a redirection node. Extra destination words (`> f extra`) are arguments of the
    /// command in bash and are appended to `extra`.
    fn redirect(&mut self, n: Node, extra: &mut Vec<Word>) -> Option<Redirect> {
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

    fn file_redirect(&mut self, n: Node, extra: &mut Vec<Word>) -> Option<Redirect> {
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
                        "<>" => RedirectOp::ReadWrite,
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

    fn heredoc(&mut self, n: Node) -> Option<Redirect> {
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
            // equals it means tree-sitter read further than bash does.
            if text
                .split('\n')
                .any(|l| (if strip { l.trim_start_matches('\t') } else { l }) == d)
            {
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

    /// A literal leaf that holds an unescaped expansion character means tree-sitter read as
    /// literal what bash would expand.
    fn literal_leaf_check(&mut self, raw: &str, s: Span) {
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
    fn missing_nodes(&mut self, root: Node) {
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

/// Word-like node kinds: each decodes to one or more words.
fn is_word_kind(k: &str) -> bool {
    matches!(
        k,
        "word"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "translated_string"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "number"
            | "brace_expression"
            | "extglob_pattern"
    )
}

fn static_word(text: &str, s: Span) -> Word {
    Word {
        text: text.to_string(),
        span: s,
        expansions: Expansions::default(),
        quoted: false,
    }
}

fn empty_word(s: Span) -> Word {
    static_word("", s)
}

/// Quote removal for a heredoc delimiter word (`'EOF'`, `"E"OF`, `\EOF` all mean `EOF`).
fn strip_quotes(raw: &str) -> String {
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
