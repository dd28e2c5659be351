//! segment: stage 2 — turns the tree-sitter tree into [`Segment`]s, every simple command bash
//! could execute, in source order, with decoded words, assignments and redirections, plus
//! [`Event`]s for the syntax around them (operators, substitutions, parse errors, limits).
//!
//! It never decides safety: it reports what is there, and `check` judges it. It fails closed by
//! construction: node kinds and operators it does not list (`segment/kind.rs`) become
//! `Unsupported` events.
//!
//! The walker is split by node family: `statement` (lists, pipelines, compound commands, simple
//! commands), `expand` (words, quoting and expansions), `redirect` (redirections and heredocs)
//! and `mismatch` (where tree-sitter-bash and bash read the same text differently). This file
//! holds the types, the walk's state and the entry point.

mod expand;
pub(crate) mod fast;
mod kind;
mod mismatch;
mod redirect;
mod statement;
pub(crate) mod word;

use serde::Serialize;
use tree_sitter::{Node, Tree};

pub use self::word::{Expansions, Word};
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    w.cross_checks(root);
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
}

fn static_word(text: &str, s: Span) -> Word {
    Word {
        text: text.to_string(),
        span: s,
        expansions: Expansions::NONE,
        quoted: false,
    }
}

fn empty_word(s: Span) -> Word {
    static_word("", s)
}
