//! segment/fast: stage 2 without the parser — a hand-written lexer for the common shape of a
//! command (plain and quoted words, `$NAME`, `${NAME}`, `$(…)` around one simple command, prefix
//! assignments, `|`, `&&`, `||`, `;` and trailing file redirections) that turns it straight into
//! the [`Script`] the tree walker would have produced.
//!
//! It never guesses. It accepts a command only when every byte lies inside a small grammar
//! subset whose reading by bash, by tree-sitter-bash and by the walker is the same and
//! trivially so: no newline, backslash, backquote, `#`, `!`, brace (but `${NAME}`), bracket,
//! parenthesis (but `$(…)`), tilde or keyword, no other `${…}`, no `$'…'`, `$"…"`, heredoc or
//! background job. On anything else it
//! answers `None` ("not mine") and the full path runs. It never decides safety: `check` judges
//! the segments exactly as it judges the walker's. The differential tests
//! (`tests/it/fast.rs`, `fuzz/fuzz_targets/fast_vs_full.rs`) hold it to the full path.

use super::word::{Expansions, WordBuf, brace_expand};
use super::{Assignment, Joiner, Nest, Redirect, RedirectOp, Script, Segment, SegmentKind, Word};
use crate::budget::Budget;
use crate::finding::Span;

/// The most segments one command may have here. tree-sitter-bash nests `a && b && c` to the
/// left, one level per operator, and the walker stops descending at a fixed depth: long lists
/// are left to the full path, which reports that limit.
const MAX_SEGMENTS: usize = 32;

/// Words that are reserved words, declaration builtins or the `time` keyword to bash or to
/// tree-sitter-bash in some position. Bare, they are never ours, wherever they stand: the
/// grammar reads them contextually, and the walker gives several of them node kinds of
/// their own (`declaration_command`, `unset_command`, `time` stripping).
const KEYWORDS: &[&str] = &[
    "if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly",
    "local", "unset", "unsetenv",
];

/// Segments `src` when it lies inside the fast path's grammar subset; `None` otherwise, and
/// then nothing has been spent from `budget`. The result equals what
/// `segment(&parse(src), src, budget)` would return.
pub(crate) fn segment(src: &str, budget: &Budget) -> Option<Script> {
    let mut lexer = Lexer {
        b: src.as_bytes(),
        src,
        i: 0,
        // The walker refuses to enter a node nested deeper than `[limits] max_nesting`; a
        // substitution in an assignment's value is two levels down.
        substitutions: budget.limits().max_nesting >= 2,
        in_substitution: false,
        in_assignment: false,
        inner: Vec::new(),
        budget,
        brace_bytes: 0,
    };
    // Newlines, carriage returns and other control bytes have readings of their own (lists,
    // mismatches, input findings): none is ours, not even inside quotes.
    if src.bytes().any(|c| (c < 0x20 && c != b'\t') || c == 0x7f) {
        return None;
    }
    let mut segments: Vec<Segment> = Vec::new();
    lexer.blanks();
    if lexer.at_end() {
        return None;
    }
    let mut after = None;
    loop {
        if segments.len() >= MAX_SEGMENTS {
            return None;
        }
        // This command's own segment (not one of its substitutions'): it takes the joiner.
        let outer = segments.len();
        segments.push(lexer.command(after)?);
        // The walker pushes a command's segment before walking its words, so the commands of
        // its substitutions come right after it.
        segments.append(&mut lexer.inner);
        lexer.blanks();
        if lexer.at_end() {
            break;
        }
        let joiner = lexer.operator()?;
        if let Some(last) = segments.get_mut(outer) {
            last.joiner = Some(joiner);
        }
        after = Some(joiner);
        lexer.blanks();
        if lexer.at_end() {
            // Only `;` may end a command line; `ls |` waits for more input.
            if joiner == Joiner::Semicolon {
                break;
            }
            return None;
        }
    }
    if segments.len() > MAX_SEGMENTS {
        return None;
    }
    // The walker takes one segment per command from the budget and turns a refusal into a
    // limit event: leave that to it.
    if budget.spent().is_some() || budget.segments_left() < segments.len() {
        return None;
    }
    // The walker's brace expander takes the bytes of the words it gives back.
    if budget.bytes_left() < lexer.brace_bytes {
        return None;
    }
    budget.take_bytes(lexer.brace_bytes);
    for _ in &segments {
        budget.take_segment();
    }
    Some(Script {
        segments,
        events: Vec::new(),
    })
}

/// Whether `c` may stand unquoted in a word here. Each is literal to bash and to the grammar
/// wherever it stands in a word (`*` is a glob, marked as the walker marks it); every other
/// byte either ends the word (blanks, `|`, `&`, `;`, `<`, `>`) or is not ours. Not `%`, `@`,
/// `?` or `#`: after a name (`te%x`, `a@b`, `a?b`) tree-sitter-bash's scanner may cut the
/// name off as a `variable_name` (scanner.c, `VARIABLE_NAME`), and the fuzzer found it does.
fn bare(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'_' | b'-' | b'.' | b'/' | b':' | b',' | b'+' | b'=' | b'^' | b'*'
        )
}

/// Whether `c` may stand in a command word here: a program name or path, spelt plainly (not
/// starting with `-`, checked in `command`).
fn command_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/')
}

fn name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

struct Lexer<'a> {
    b: &'a [u8],
    src: &'a str,
    i: usize,
    /// Whether `$(…)` may be taken at all (see `segment`).
    substitutions: bool,
    /// Inside `$(…)`: `)` ends words and commands, and no second level is ours.
    in_substitution: bool,
    /// In an assignment's value, which the walker walks nested in `Nest::Assignment`.
    in_assignment: bool,
    /// The segments of the substitutions of the command being lexed, in source order.
    inner: Vec<Segment>,
    /// Read only: the limits and what is left of them.
    budget: &'a Budget,
    /// Bytes the walker's brace expander would take from the budget (see `command_word`).
    brace_bytes: usize,
}

impl<'a> Lexer<'a> {
    fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// True when the next byte ends a word or a redirection: a blank, the end, or the start of
    /// a list operator we accept. Anything else right after a word (`a>b`, `a&`, `a(`) is not
    /// ours.
    fn at_boundary(&self) -> bool {
        match self.peek() {
            None | Some(b' ' | b'\t' | b';' | b'|') => true,
            Some(b'&') => self.peek_at(1) == Some(b'&'),
            Some(b')') => self.in_substitution,
            Some(_) => false,
        }
    }

    fn at_operator(&self) -> bool {
        match self.peek() {
            None | Some(b';' | b'|' | b'&') => true,
            Some(b')') => self.in_substitution,
            Some(_) => false,
        }
    }

    /// `|`, `||`, `&&` or `;`. `|&`, `&`, `;;` and the like are not ours.
    fn operator(&mut self) -> Option<Joiner> {
        let (joiner, len) = match (self.peek()?, self.peek_at(1)) {
            (b'|', Some(b'|')) => (Joiner::Or, 2),
            (b'|', Some(b'&')) => return None,
            (b'|', _) => (Joiner::Pipe, 1),
            (b'&', Some(b'&')) => (Joiner::And, 2),
            (b';', Some(b';' | b'&')) => return None,
            (b';', _) => (Joiner::Semicolon, 1),
            _ => return None,
        };
        self.i += len;
        Some(joiner)
    }

    /// One simple command: prefix assignments, words, then redirections (a word after a
    /// redirection is not ours). `after` is the operator before it.
    ///
    /// Redirections are ours only on the first command of a statement (the first of the line
    /// or one after `;`): on a later stage of a pipeline or a later command of an `&&`/`||`
    /// list, tree-sitter-bash hangs them on the whole pipeline or list, which the walker
    /// reports as a compound redirection rather than as the segment's own.
    fn command(&mut self, after: Option<Joiner>) -> Option<Segment> {
        let start = self.i;
        let mut end = start;
        let mut words: Vec<Word> = Vec::new();
        let mut assignments: Vec<Assignment> = Vec::new();
        let mut redirects: Vec<Redirect> = Vec::new();
        loop {
            self.blanks();
            if self.at_operator() && !self.at_redirect() {
                break;
            }
            if self.at_redirect() {
                redirects.push(self.redirect()?);
                end = self.i;
                continue;
            }
            if !redirects.is_empty() {
                return None;
            }
            if words.is_empty()
                && let Some(a) = self.assignment()?
            {
                assignments.push(a);
                end = self.i;
                continue;
            }
            let word = self.command_word()?;
            // `time` first in a statement, before any assignment, is the keyword the walker
            // strips (below); anywhere else it is not ours, like every keyword.
            let time = words.is_empty()
                && assignments.is_empty()
                && after != Some(Joiner::Pipe)
                && self.b.get(word.span.start..word.span.end) == Some(b"time".as_slice());
            if !time && self.keyword_like(word.span) {
                return None;
            }
            // A command word with an unquoted `=` is an assignment spelling we do not take
            // (`a+=1`, `a[0]=1`) or one bash reads differently from its look.
            // The command word is where tree-sitter-bash's lexer tries the most readings
            // (keywords, assignments, `a+=`, `a[0]=`, numbers, names after an assignment: `1%`,
            // `1@a` and `A=1 1%x` come apart there): only a plain program name or path is ours.
            let spelt = self.b.get(word.span.start..word.span.end)?;
            if words.is_empty()
                && (!spelt.iter().copied().all(command_byte) || spelt.first() == Some(&b'-'))
            {
                return None;
            }
            // `a+=x` and `a+:x` after a name are assignment spellings to the scanner; a lone
            // `-` before a redirection is read differently (found by the fuzzer:
            // `ls - 2>&1`), so a lone `-` is not ours anywhere.
            if spelt.windows(2).any(|w| w == b"+=" || w == b"+:") || spelt == b"-" {
                return None;
            }
            words.push(word);
            end = self.i;
        }
        if start == end {
            return None; // an empty command: `;;`, `| x`
        }
        if !redirects.is_empty() && !matches!(after, None | Some(Joiner::Semicolon)) {
            return None;
        }
        // The walker's `strip_time_keyword`: bash runs what follows `time` (and its `-p`,
        // `--`). Nothing left after it is a shape of its own: not ours.
        if assignments.is_empty() && after != Some(Joiner::Pipe) {
            let bare = |w: Option<&Word>, text: &str| {
                w.is_some_and(|w| w.text == text && !w.quoted && w.is_static())
            };
            let mut stripped = false;
            while bare(words.first(), "time") {
                stripped = true;
                words.remove(0);
                if bare(words.first(), "-p") {
                    words.remove(0);
                }
                if bare(words.first(), "--") {
                    words.remove(0);
                }
            }
            if stripped && words.is_empty() {
                return None;
            }
        }
        let kind = if words.is_empty() {
            // Redirections with no command become a segment of their own kind in the walker,
            // with a different span rule: not ours.
            if !redirects.is_empty() {
                return None;
            }
            SegmentKind::Assignments
        } else {
            SegmentKind::Command
        };
        Some(Segment {
            kind,
            span: Span::new(start, end),
            words,
            assignments,
            redirects,
            joiner: None,
            nesting: Vec::new(),
        })
    }

    /// True when the word at `span` starts with a keyword: the word itself (`done`) or the
    /// keyword followed by any byte that is not a name byte (`if@`, `time.sh`, `in'x'`), which
    /// tree-sitter-bash may lex as the keyword and a rest.
    fn keyword_like(&self, span: Span) -> bool {
        let text = self.b.get(span.start..span.end).unwrap_or(&[]);
        let head = text.iter().take_while(|c| name_char(**c)).count();
        KEYWORDS
            .iter()
            .any(|k| text.get(..head) == Some(k.as_bytes()))
    }

    /// `NAME=value` at the current position, `Ok(None)` when the word there is not one.
    /// Returned as `Option<Option<_>>`: the outer `None` is "not ours".
    fn assignment(&mut self) -> Option<Option<Assignment>> {
        let b = self.b;
        let start = self.i;
        if !b.get(start).copied().is_some_and(name_start) {
            return Some(None);
        }
        let mut k = start + 1;
        while b.get(k).copied().is_some_and(name_char) {
            k += 1;
        }
        if b.get(k) != Some(&b'=') {
            return Some(None);
        }
        // A lone `_` is one of bash's special parameters to tree-sitter-bash, which reads
        // `_=` as a command word (found by the property test): not ours.
        if k == start + 1 && b[start] == b'_' {
            return None;
        }
        let name = self.src.get(start..k)?.to_string();
        self.i = k + 1;
        let value = if matches!(self.peek(), None | Some(b' ' | b'\t')) {
            // `A= cmd`: an empty value, placed where the assignment ends. (`A=|x` is not ours:
            // tree-sitter-bash takes `x` for the value.)
            Word {
                text: String::new(),
                span: Span::new(self.i, self.i),
                expansions: Expansions::NONE,
                quoted: false,
            }
        } else {
            self.in_assignment = true;
            let value = self.word();
            self.in_assignment = false;
            value?
        };
        Some(Some(Assignment {
            name,
            value,
            subscript: false,
            span: Span::new(start, self.i),
        }))
    }

    /// True when a redirection starts here: `<`, `>`, `&>`, or one digit right before `<`/`>`.
    /// A `0` there is not ours: tree-sitter-bash reads `0<` as the word `0` and a `<` (bash
    /// reads descriptor 0), so the words would differ.
    fn at_redirect(&self) -> bool {
        match self.peek() {
            Some(b'<' | b'>') => true,
            Some(b'&') => self.peek_at(1) == Some(b'>'),
            Some(c) if c.is_ascii_digit() => matches!(self.peek_at(1), Some(b'<' | b'>')),
            _ => false,
        }
    }

    /// `[n]>`, `[n]>>`, `[n]<`, `&>`, `&>>` with a word target, `[n]>&m` and `[n]<&m` with a
    /// number. Heredocs, here-strings, `<>`, `>|`, `>&-` and process substitutions are not ours.
    fn redirect(&mut self) -> Option<Redirect> {
        let start = self.i;
        let mut fd = None;
        if let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            if c == b'0' {
                return None;
            }
            fd = Some(u32::from(c - b'0'));
            self.i += 1;
        }
        let (op, len) = match (self.peek()?, self.peek_at(1), self.peek_at(2)) {
            (b'&', Some(b'>'), Some(b'>')) if fd.is_none() => (RedirectOp::AppendBoth, 3),
            (b'&', Some(b'>'), _) if fd.is_none() => (RedirectOp::WriteBoth, 2),
            (b'>', Some(b'>'), _) => (RedirectOp::Append, 2),
            (b'>', Some(b'&'), _) => (RedirectOp::DupWrite, 2),
            (b'>', Some(b'|' | b'('), _) => return None,
            (b'>', _, _) => (RedirectOp::Write, 1),
            (b'<', Some(b'&'), _) => (RedirectOp::DupRead, 2),
            (b'<', Some(b'<' | b'>' | b'('), _) => return None,
            (b'<', _, _) => (RedirectOp::Read, 1),
            _ => return None,
        };
        self.i += len;
        if matches!(op, RedirectOp::DupWrite | RedirectOp::DupRead) {
            // Only a descriptor number, written right after the operator.
            let t = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            if self.i == t || self.i - t > 1 || !self.at_boundary() {
                return None;
            }
            let target = Word {
                text: self.src.get(t..self.i)?.to_string(),
                span: Span::new(t, self.i),
                expansions: Expansions::NONE,
                quoted: false,
            };
            return Some(Redirect {
                fd,
                op,
                target: Some(target),
                quoted_heredoc: false,
                span: Span::new(start, self.i),
            });
        }
        self.blanks();
        if self.at_operator() || self.at_redirect() {
            return None;
        }
        // The walker reads a redirection's target on a path of its own: a substitution there
        // is not ours.
        let pending = self.inner.len();
        let target = self.word()?;
        if self.inner.len() != pending {
            return None;
        }
        Some(Redirect {
            fd,
            op,
            target: Some(target),
            quoted_heredoc: false,
            span: Span::new(start, self.i),
        })
    }

    /// A word of a command, which the walker (unlike an assignment value or a redirection
    /// target) hands to its brace expander when it holds a `{` and an unquoted byte. Only a `{`
    /// of `${NAME}` gets here (`word` declines unquoted ones), so the expander gives the word
    /// back whole and takes its bytes from the budget: run it the same way, and count the
    /// bytes to take if the command is ours.
    fn command_word(&mut self) -> Option<Word> {
        let (buf, span) = self.word_buf()?;
        if buf.text.contains('{') && !buf.quoted_mask.iter().all(|q| *q) {
            let left = self.budget.bytes_left().checked_sub(self.brace_bytes)?;
            let pieces = brace_expand(&buf, self.budget.limits().max_expansion, left)?;
            match pieces.as_slice() {
                [(text, _)] if *text == buf.text => self.brace_bytes += text.len(),
                _ => return None,
            }
        }
        Some(buf.finish(span))
    }

    /// One word, as `word_buf` reads it.
    fn word(&mut self) -> Option<Word> {
        let (buf, span) = self.word_buf()?;
        Some(buf.finish(span))
    }

    /// One word: bare runs, `'…'`, `"…"` holding text, `$NAME`, `${NAME}` and `$(…)`, and
    /// `$NAME`, `${NAME}` and `$(…)`, side by side.
    fn word_buf(&mut self) -> Option<(WordBuf, Span)> {
        let b = self.b;
        let start = self.i;
        // tree-sitter-bash reads a word that starts with `=` (`==`, `=~`) as a test operator
        // outside a test, a syntax error the full path asks about (found by the fuzz target):
        // not ours.
        if self.peek() == Some(b'=') {
            return None;
        }
        let mut buf = WordBuf::default();
        // tree-sitter-bash splits `"…"$NAME` into two words (bash reads one): the walker
        // reports that shape, so it is not ours.
        let mut after_dquote = false;
        loop {
            let this_dquote = self.peek() == Some(b'"');
            if after_dquote && self.peek() == Some(b'$') {
                return None;
            }
            after_dquote = this_dquote;
            match self.peek() {
                Some(c) if bare(c) => {
                    let run = self.i;
                    while self.peek().is_some_and(bare) {
                        self.i += 1;
                    }
                    buf.push_bare(self.src.get(run..self.i)?);
                }
                Some(b'\'') => {
                    let open = self.i + 1;
                    let close = open + b.get(open..)?.iter().position(|c| *c == b'\'')?;
                    buf.push_quoted(self.src.get(open..close)?);
                    self.i = close + 1;
                }
                Some(b'"') => {
                    self.double_quoted(&mut buf)?;
                }
                Some(b'$') => {
                    let (raw, kind) = self.parameter()?;
                    buf.push_expansion(raw, kind);
                }
                _ => break,
            }
        }
        if self.i == start || !self.at_boundary() {
            return None;
        }
        // tree-sitter-bash cuts a word holding an empty string (`""`, `''`) beside other
        // text at a later `$NAME-` (`a=b""x$A-y` is an assignment and the command `A-y` to
        // it; bash reads one word): a lone empty string is ours, one inside a word is not.
        let here = b.get(start..self.i)?;
        if here.len() > 2 && here.windows(2).any(|w| w == b"\"\"" || w == b"''") {
            return None;
        }
        // An unquoted `{` would be brace expansion: not ours. (A bare `{` never gets here: it
        // is not a bare byte; but the mask is checked, whatever put the byte there.)
        if buf
            .text
            .bytes()
            .zip(&buf.quoted_mask)
            .any(|(c, quoted)| c == b'{' && !quoted)
        {
            return None;
        }
        Some((buf, Span::new(start, self.i)))
    }

    /// `"…"` whose content is text without `\`, `` ` `` and `$`, except `$NAME`. An empty
    /// string still marks the word as quoted, as the walker does.
    fn double_quoted(&mut self, buf: &mut WordBuf) -> Option<()> {
        self.i += 1;
        buf.push_quoted("");
        loop {
            let run = self.i;
            while let Some(c) = self.peek() {
                if matches!(c, b'"' | b'\\' | b'`' | b'$') || c < 0x20 || c == 0x7f {
                    break;
                }
                self.i += 1;
            }
            if self.i > run {
                buf.push_quoted(self.src.get(run..self.i)?);
            }
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'$' => {
                    let (raw, kind) = self.parameter()?;
                    buf.push_expansion(raw, kind);
                }
                _ => return None,
            }
        }
    }

    /// `$NAME` or `${NAME}` at the current position, with its source text and kind, or a
    /// command substitution (`substitution`). `$1`, `$@`, other `${…}` and the rest are not
    /// ours.
    fn parameter(&mut self) -> Option<(&'a str, Expansions)> {
        let start = self.i;
        match self.peek_at(1)? {
            b'(' => return self.substitution().map(|raw| (raw, Expansions::COMMAND)),
            b'{' => {
                // `${NAME}` only: the walker finds nothing to report in it (no operator, no
                // subscript, no `!`), exactly as in `$NAME`.
                if !self.peek_at(2).is_some_and(name_start) {
                    return None;
                }
                self.i += 3;
                while self.peek().is_some_and(name_char) {
                    self.i += 1;
                }
                if self.peek() != Some(b'}') {
                    return None;
                }
                self.i += 1;
            }
            c if name_start(c) => {
                self.i += 2;
                while self.peek().is_some_and(name_char) {
                    self.i += 1;
                }
            }
            _ => return None,
        }
        Some((self.src.get(start..self.i)?, Expansions::PARAMETER))
    }

    /// `$(…)` around one simple command of words (no assignment, redirection, operator or
    /// second level of substitution), at the current position: its source text. Its segment,
    /// nested in a command substitution as the walker nests it, goes to `inner`.
    fn substitution(&mut self) -> Option<&'a str> {
        if !self.substitutions || self.in_substitution {
            return None;
        }
        let start = self.i;
        self.i += 2;
        self.blanks();
        self.in_substitution = true;
        // `after` is not the start of a statement, so a redirection is refused.
        let seg = self.command(Some(Joiner::Pipe));
        self.in_substitution = false;
        let mut seg = seg?;
        self.blanks();
        if self.peek() != Some(b')') || !seg.assignments.is_empty() || seg.words.is_empty() {
            return None;
        }
        self.i += 1;
        if self.in_assignment {
            seg.nesting.push(Nest::Assignment);
        }
        seg.nesting.push(Nest::CommandSubstitution);
        self.inner.push(seg);
        self.src.get(start..self.i)
    }
}
