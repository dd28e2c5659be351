//! check/deny/assigned: a command whose words take a value the same command line spells out —
//! a literal assigned before it (`c='rm -rf v'; bash -c "$c"`, `declare c=…`, `export c=…`,
//! `c2=$c`, `: ${C:=rm -rf v}`) or the default of an expansion whose variable the line never
//! sets (`bash -c "${C:-rm} -rf v"`), an array's elements (`"${c[@]}"`), an edit of a known value
//! (`${c/x/r}`, `${c,,}`, `${c%;}`) or the substitution of a printed literal (`$(echo rm -rf v)`)
//! — is read once more with those values in place, and a deny
//! found there denies. The same goes for a script a shell runs with values the line gives it:
//! the positional parameters of `bash -c SCRIPT NAME ARGS…` and the variables its environment
//! holds (`c='rm -rf v' bash -c '$c'`, `export c=…; bash -c 'eval "$c"'`). It only adds denies:
//! the command asks already, since a run-time word is not allowed — but for one proof, which
//! takes one away: a variable that holds a path `mktemp` made on this line
//! ([`fresh_temp_dir`]), so that `rm -rf "$tmp"` of it asks rather than denies.

use super::{program_name, quote};
use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::{Assignment, Joiner, Nest, Segment, SegmentKind, Word};

/// Characters that keep a default's text from being one plain text (bash would expand or
/// split them further, or they end the expansion).
const NOT_LITERAL: &[char] = &['$', '`', '\\', '"', '\'', '}'];

/// Characters bash would glob in an unquoted value.
const GLOB: &[char] = &['*', '?', '['];

/// How many assignments of another variable a value is followed through (`c2=$c`).
const MAX_CHAIN: usize = 4;

/// Builtins that assign the `NAME=VALUE` words they are given.
const DECLARATIONS: &[&str] = &["export", "declare", "typeset", "local", "readonly"];

/// Options of those builtins that keep a value a plain string (`-i`, `-a`, `-n`, `-l`, `-u`
/// change what is stored, and any other stops the reading).
const DECLARATION_FLAGS: &[&str] = &["-x", "-g", "-r", "-gx", "-xg", "-rx", "-xr", "--"];

/// Checks `words` again with every run-time word the line spells out replaced by its value;
/// only deny findings come back, moved to `span`.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    if words.iter().all(Word::is_static) {
        return;
    }
    let mut text = String::new();
    let mut changed = false;
    for w in words {
        let values = match w.static_text() {
            Some(t) => vec![t.to_string()],
            None => {
                let Some(v) = value_of(cx, i, w) else {
                    return;
                };
                changed = true;
                v
            }
        };
        for v in values {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&quote(&v));
        }
    }
    if !changed {
        return;
    }
    let program = words
        .first()
        .map(|w| program_name(&w.text).into_owned())
        .unwrap_or_default();
    let what = format!("`{program}` with the values this command line gives its words (`{text}`)");
    super::denies_in(cx, i, span, &what, &text);
}

/// The words a run-time word of segment `i` becomes when the line spells out every value in
/// it: `$NAME`, `${NAME}` of a literal assigned once before it, or `${NAME:-TEXT}` (`-`, `:=`,
/// `=`) of a name the line never assigns, among quoted and plain text. Unquoted values are
/// split at blanks (and not read at all when they could glob).
pub(super) fn value_of(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<Vec<String>> {
    expand(cx, i, w, MAX_CHAIN)
}

/// One piece of a word: text, and whether bash splits it (an unquoted expansion); or, with
/// `brk`, the end of a field (`"${c[@]}"` makes one field per element).
struct Piece {
    text: String,
    split: bool,
    brk: bool,
}

impl Piece {
    fn text(text: String, split: bool) -> Piece {
        Piece {
            text,
            split,
            brk: false,
        }
    }
}

/// An expansion a word holds: a parameter, or a command substitution at these byte offsets
/// of the word (`$(` to `)`, both included).
enum Ref<'t> {
    Param(&'t Param<'t>),
    Substitution(usize, usize),
}

/// Which elements of a variable a parameter names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Index {
    /// `$c`, `${c}`: the value, or an array's first element.
    Whole,
    /// `${c[@]}`: every element, one field each in double quotes.
    All,
    /// `${c[*]}`: every element, joined by a space in double quotes.
    Star,
    /// `${c[N]}`.
    At(usize),
}

/// One `$NAME` or `${…}` as bash reads it.
#[derive(Debug)]
struct Param<'t> {
    name: &'t str,
    index: Index,
    /// `:-`, `-`, `:=`, `=`, the edits `/`, `//`, `/#`, `/%`, `#`, `##`, `%`, `%%`, `,,`,
    /// `^^`, `,`, `^`, or empty.
    op: &'t str,
    /// The text after the operator.
    word: &'t str,
    /// Whether the expansion stands in double quotes.
    in_double: bool,
    /// Its length in bytes after the `$`.
    len: usize,
}

/// What to make of a variable the line never assigns: in a value that is run again as text
/// (`c="rm -rf $HOME"; bash -c "$c"`), `$NAME` stays for the child to expand from the same
/// environment; in a word, it is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refs {
    Keep,
    Unknown,
}

/// [`value_of`] with at most `chain` assignments followed.
fn expand(cx: &Ctx<'_>, i: usize, w: &Word, chain: usize) -> Option<Vec<String>> {
    let e = w.expansions;
    if e.process || e.arithmetic || e.glob || !(e.parameter || e.command) {
        return None;
    }
    // The source text of the word: a word made up by cmdguard (`xargs`'s `{input}`) has none.
    let raw = cx.src.get(w.span.start..w.span.end)?;
    if !raw.contains(['$', '`']) {
        return None;
    }
    let at = w.span.start;
    let pieces = pieces(raw, &mut |p| match p {
        Ref::Param(p) => resolve(cx, i, p, chain, Refs::Unknown),
        Ref::Substitution(from, to) => substituted(cx, i, at + from, at + to).map(|v| vec![v]),
    })?;
    // `IFS=,; c="rm,-rf,v"; $c`: an IFS the line assigns a literal splits instead of blanks.
    match literal(cx, i, "IFS", chain) {
        Some(ifs) if assigned(cx, "IFS") => Some(split_at(&pieces, &ifs.concat())),
        None if assigned(cx, "IFS") => None,
        _ => Some(fields(&pieces)),
    }
}

/// `$(echo rm -rf v)` in segment `i`, its `$(` to `)` at `from..to` of the source: what its one
/// command prints where the line shows it (see [`super::feed::printed`]), trailing newlines
/// removed as bash removes them.
fn substituted(cx: &Ctx<'_>, i: usize, from: usize, to: usize) -> Option<String> {
    let outer = cx.script.segments.get(i)?;
    let level = outer.nesting.len();
    let mut inner = cx.script.segments.iter().enumerate().filter(|(_, s)| {
        s.span.start >= from
            && s.span.end <= to
            && s.nesting.len() > level
            && s.nesting.last() == Some(&Nest::CommandSubstitution)
    });
    let (j, _) = inner.next()?;
    // `$(echo a; rm x)`: more than one command is not read.
    if inner.next().is_some() {
        return None;
    }
    let text = super::feed::printed(cx, j)?;
    Some(text.trim_end_matches('\n').to_string())
}

/// Field splitting: pieces joined, unquoted expansions split at blanks.
fn fields(pieces: &[Piece]) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for p in pieces {
        if p.brk {
            out.push(current.take().unwrap_or_default());
            continue;
        }
        if !p.split {
            current.get_or_insert_with(String::new).push_str(&p.text);
            continue;
        }
        let mut parts = p.text.split([' ', '\t', '\n']).peekable();
        let mut first = true;
        while let Some(part) = parts.next() {
            if !first {
                out.extend(current.take());
            }
            first = false;
            if !part.is_empty() {
                current.get_or_insert_with(String::new).push_str(part);
            } else if parts.peek().is_none() && !p.text.is_empty() {
                // A trailing blank ends the field.
                out.extend(current.take());
            }
        }
    }
    out.extend(current);
    out
}

/// The pieces of a word's source text, each expansion's value found by `lookup(name, op,
/// default)`. `None` for anything but plain and quoted text and simple expansions.
fn pieces(raw: &str, lookup: &mut Lookup<'_>) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut chars = raw.char_indices().peekable();
    let mut in_double = false;
    let flush = |literal: &mut String, out: &mut Vec<Piece>| {
        if !literal.is_empty() {
            out.push(Piece::text(std::mem::take(literal), false));
        }
    };
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => in_double = !in_double,
            '\'' if !in_double => {
                let rest = &raw[k + 1..];
                let end = rest.find('\'')?;
                literal.push_str(&rest[..end]);
                // Past the text and the closing quote.
                skip_to(&mut chars, k + 1 + end + 1);
            }
            '\\' => {
                let (_, next) = chars.next()?;
                if in_double && !matches!(next, '"' | '\\' | '$' | '`') {
                    literal.push('\\');
                }
                literal.push(next);
            }
            '$' if raw[k + 1..].starts_with("((") => return None,
            c @ ('$' | '`') if c == '`' || raw[k + 1..].starts_with('(') => {
                // `$(…)`: up to the `)` that closes it, read by the caller; `` `…` `` up to
                // the next backquote (one with a backslash inside is not read: bash removes
                // some of them first).
                let close = match c {
                    '`' => {
                        let body = &raw[k + 1..];
                        let end = body.find('`')?;
                        if body[..end].contains('\\') {
                            return None;
                        }
                        k + 1 + end
                    }
                    _ => k + 1 + closing_paren(&raw[k + 1..])?,
                };
                let value = lookup(Ref::Substitution(k, close + 1))?;
                let value = value.join(" ");
                if !in_double && value.contains(GLOB) {
                    return None;
                }
                flush(&mut literal, &mut out);
                out.push(Piece::text(value, !in_double));
                skip_to(&mut chars, close + 1);
            }
            '$' => {
                let rest = &raw[k + 1..];
                let mut p = parameter(rest)?;
                p.in_double = in_double;
                let values = lookup(Ref::Param(&p))?;
                if !in_double && values.iter().any(|v| v.contains(GLOB)) {
                    return None;
                }
                flush(&mut literal, &mut out);
                match (p.index, in_double) {
                    (Index::All, true) => {
                        // `"${c[@]}"`: one field per element (none: not read).
                        if values.is_empty() {
                            return None;
                        }
                        for (n, v) in values.into_iter().enumerate() {
                            if n > 0 {
                                out.push(Piece {
                                    text: String::new(),
                                    split: false,
                                    brk: true,
                                });
                            }
                            out.push(Piece::text(v, false));
                        }
                    }
                    _ => out.push(Piece::text(values.join(" "), !in_double)),
                }
                skip_to(&mut chars, k + 1 + p.len);
            }
            '*' | '?' | '[' | '~' | '{' if !in_double => return None,
            c => literal.push(c),
        }
    }
    if in_double {
        return None;
    }
    flush(&mut literal, &mut out);
    Some(out)
}

/// Finds the values of an expansion (one, or an array's elements).
type Lookup<'a> = dyn FnMut(Ref<'_>) -> Option<Vec<String>> + 'a;

/// The offset of the `)` that closes the `(` `text` starts with, past quotes and nested
/// parentheses; `None` where a `case` pattern or a comment could fool the count.
fn closing_paren(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            b'\'' => k += text[k + 1..].find('\'')? + 1,
            b'\\' => k += 1,
            b'#' | b'`' => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

/// Steps `chars` to the byte offset `to`.
fn skip_to(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, to: usize) {
    while chars.next_if(|(n, _)| *n < to).is_some() {}
}

/// The operators of `${NAME<op>WORD}` cmdguard works out: defaults, then the edits of a value
/// (longest spelling first).
const OPERATORS: &[&str] = &[
    ":-", ":=", "-", "=", "//", "/#", "/%", "/", "##", "#", "%%", "%", ",,", "^^", ",", "^",
];

/// The parameter after a `$`: `NAME`, `{NAME}`, `{NAME[@]}` (`[*]`, `[N]`) or
/// `{NAME<op>WORD}` with `op` one of [`OPERATORS`].
fn parameter(rest: &str) -> Option<Param<'_>> {
    let Some(inner) = rest.strip_prefix('{') else {
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        return is_name(name).then_some(Param {
            name,
            index: Index::Whole,
            op: "",
            word: "",
            in_double: false,
            len,
        });
    };
    let close = inner.find('}')?;
    let body = &inner[..close];
    let len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    let (name, mut tail) = body.split_at(len);
    if !is_name(name) {
        return None;
    }
    let mut index = Index::Whole;
    if let Some(sub) = tail.strip_prefix('[') {
        let end = sub.find(']')?;
        index = match &sub[..end] {
            "@" => Index::All,
            "*" => Index::Star,
            n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                Index::At(n.parse().ok()?)
            }
            _ => return None,
        };
        tail = &sub[end + 1..];
    }
    let (op, word) = match tail {
        "" => ("", ""),
        _ => {
            let o = OPERATORS.iter().find(|o| tail.starts_with(**o))?;
            (*o, &tail[o.len()..])
        }
    };
    Some(Param {
        name,
        index,
        op,
        word,
        in_double: false,
        len: close + 2,
    })
}

/// A default's text as bash stores it: one level of quotes around all of it goes (single
/// quotes only outside double quotes, where they are kept as text); `None` when anything in
/// it would be expanded further.
fn default_text(word: &str, in_double: bool) -> Option<&str> {
    let unquoted = word
        .strip_prefix('"')
        .and_then(|w| w.strip_suffix('"'))
        .or_else(|| {
            word.strip_prefix('\'')
                .and_then(|w| w.strip_suffix('\''))
                .filter(|_| !in_double)
        });
    match unquoted {
        Some(w) => (!w.contains(NOT_LITERAL)).then_some(w),
        None if in_double && !word.contains(['$', '`', '\\', '"', '}']) => Some(word),
        None => (!word.contains(NOT_LITERAL)).then_some(word),
    }
}

/// An edit of a known value (`${c/x/r}`, `${c%;}`, `${c,,}`) whose pattern is plain text; `None`
/// for a pattern bash would match as a glob, or anything else.
fn edit(value: &str, op: &str, word: &str) -> Option<String> {
    let plain = |t: &str| !t.contains(['*', '?', '[', '\\', '$', '`', '\'', '"', '}']);
    match op {
        "/" | "//" | "/#" | "/%" => {
            let (pattern, replacement) = word.split_once('/').unwrap_or((word, ""));
            if pattern.is_empty() || !plain(pattern) || !plain(replacement) {
                return None;
            }
            Some(match op {
                "/" => value.replacen(pattern, replacement, 1),
                "//" => value.replace(pattern, replacement),
                "/#" => match value.strip_prefix(pattern) {
                    Some(r) => format!("{replacement}{r}"),
                    None => value.to_string(),
                },
                _ => match value.strip_suffix(pattern) {
                    Some(r) => format!("{r}{replacement}"),
                    None => value.to_string(),
                },
            })
        }
        // A plain pattern matches one way: shortest and longest are the same.
        "#" | "##" if plain(word) => Some(value.strip_prefix(word).unwrap_or(value).to_string()),
        "%" | "%%" if plain(word) => Some(value.strip_suffix(word).unwrap_or(value).to_string()),
        ",," if word.is_empty() => Some(value.to_lowercase()),
        "^^" if word.is_empty() => Some(value.to_uppercase()),
        "," | "^" if word.is_empty() => {
            let mut chars = value.chars();
            Some(match chars.next() {
                Some(c) if op == "," => c.to_lowercase().chain(chars).collect(),
                Some(c) => c.to_uppercase().chain(chars).collect(),
                None => String::new(),
            })
        }
        _ => None,
    }
}

/// The values of parameter `p` in segment `i`: a literal assigned before it (an array's
/// elements for `[@]`, `[*]`), edited as `p` says, or the default of a `${NAME:-TEXT}` whose
/// variable the line never assigns. With [`Refs::Keep`], a name the line never assigns stays
/// `$NAME`.
fn resolve(cx: &Ctx<'_>, i: usize, p: &Param<'_>, chain: usize, refs: Refs) -> Option<Vec<String>> {
    let items = literal(cx, i, p.name, chain);
    match p.index {
        Index::All | Index::Star if p.op.is_empty() => return items,
        Index::At(n) if p.op.is_empty() => {
            return items.map(|it| vec![it.get(n).cloned().unwrap_or_default()]);
        }
        Index::All | Index::Star | Index::At(_) => return None,
        Index::Whole => {}
    }
    let value = items.map(|it| it.into_iter().next().unwrap_or_default());
    let one = |v: String| Some(vec![v]);
    match p.op {
        "" => match value {
            Some(v) => one(v),
            // Bash sets IFS to blank, tab, newline at start (it never takes IFS from the
            // environment): unassigned on the line, `rm${IFS}-rf${IFS}v` splits there.
            None if p.name == "IFS" && !assigned(cx, "IFS") => one(" \t\n".to_string()),
            None if refs == Refs::Keep && !assigned(cx, p.name) => one(format!("${}", p.name)),
            None => None,
        },
        ":-" | "-" | ":=" | "=" => {
            let d = default_text(p.word, p.in_double);
            match (value, d) {
                // `${X:-d}` of an empty literal is `d`; `${X-d}` of one stays empty.
                (Some(v), Some(d)) if v.is_empty() && p.op.starts_with(':') => one(d.to_string()),
                (Some(v), _) => one(v),
                (None, Some(d)) if !assigned(cx, p.name) => one(d.to_string()),
                // `bash -c "${X:=rm -rf v}"`: assigned here, and nowhere else.
                (None, Some(d))
                    if matches!(p.op, ":=" | "=") && !assigned_outside(cx, p.name, i) =>
                {
                    one(d.to_string())
                }
                (None, _) => None,
            }
        }
        op => edit(&value?, op, p.word).map(|v| vec![v]),
    }
}

/// Whether segment `j` runs in the shell that runs segment `i` and before it, so what it
/// assigns is still set: earlier, at `i`'s level or an outer one, outside a function and a
/// pipeline (each part of which runs in a subshell).
fn visible(segments: &[Segment], j: usize, i: usize) -> bool {
    let (Some(s), Some(here)) = (segments.get(j), segments.get(i)) else {
        return false;
    };
    let piped_into = j
        .checked_sub(1)
        .and_then(|p| segments.get(p))
        .is_some_and(|p| p.joiner == Some(Joiner::Pipe) && p.nesting == s.nesting);
    j < i
        && here.nesting.starts_with(&s.nesting)
        && !s.nesting.contains(&Nest::Function)
        && s.joiner != Some(Joiner::Pipe)
        && !piped_into
}

/// The `NAME=VALUE` words of a declaration builtin (`export c=…`, `declare -x c=…`) in segment
/// `s`, with whether they are exported; `None` when `s` is not one or takes options that change
/// what is stored.
fn declaration(s: &Segment) -> Option<(Vec<&Word>, bool)> {
    if s.kind != SegmentKind::Command {
        return None;
    }
    let builtin = s.words.first()?.static_text()?;
    if !DECLARATIONS.contains(&builtin) {
        return None;
    }
    let mut exported = builtin == "export";
    let mut names = Vec::new();
    for w in &s.words[1..] {
        match w.static_text() {
            Some(t) if t.starts_with('-') => {
                if !DECLARATION_FLAGS.contains(&t) {
                    return None;
                }
                exported |= t.contains('x');
            }
            _ => names.push(w),
        }
    }
    Some((names, exported))
}

/// The value of `name` when the line assigns it exactly once, as a literal (or, `chain` times
/// over, as another such variable: `c2=$c`), in a plain assignment, a declaration builtin or a
/// `${NAME:=TEXT}` before segment `i` that is still set there (see [`visible`]).
fn literal(cx: &Ctx<'_>, i: usize, name: &str, chain: usize) -> Option<Vec<String>> {
    let segments = &cx.script.segments;
    let mut found = None;
    let mut once = |value: Option<Vec<String>>, ok: bool| -> Option<()> {
        if found.is_some() || !ok {
            return None;
        }
        found = Some(value?);
        Some(())
    };
    for (j, s) in segments.iter().enumerate() {
        for a in s.assignments.iter().filter(|a| a.name == name) {
            let ok = !a.subscript && s.kind == SegmentKind::Assignments && visible(segments, j, i);
            once(assignment_value(cx, j, a, chain), ok)?;
        }
        if let Some((words, _)) = declaration(s) {
            for w in words {
                let Some(t) = w.static_text() else {
                    // `declare "$x"=…`: what it assigns is not known.
                    if w.text.contains(&format!("{name}=")) || w.text.starts_with('$') {
                        return None;
                    }
                    continue;
                };
                match t.split_once('=') {
                    Some((n, v)) if n == name => {
                        once(Some(vec![v.to_string()]), visible(segments, j, i))?;
                    }
                    _ => {}
                }
            }
        }
        // `read c <<< …`, `printf -v c …`, `mapfile -t c <<< …`, `declare -a c=(…)`.
        if let Some(value) = builtin_assignment(cx, s, name) {
            once(value, visible(segments, j, i))?;
        }
        // A `${NAME:=…}` of segment `i` itself assigns as it expands: see `resolve`.
        if j == i {
            continue;
        }
        for w in s.words.iter().filter(|w| !w.is_static()) {
            if let Some(d) = assigning_default(&w.text, name) {
                once(Some(vec![d.to_string()]), visible(segments, j, i))?;
            }
        }
    }
    // `for c in rm; do $c …; done`: a loop over one plain word gives its variable that word,
    // in the body and after the loop.
    for (e, at) in &cx.script.events {
        let crate::segment::Event::ExpansionAssignment(n) = e else {
            continue;
        };
        let here = segments.get(i).map_or(0, |s| s.span.start);
        if n != name || at.end > here {
            continue;
        }
        let head = cx.src.get(at.start..at.end)?;
        if !(head.starts_with("for") || head.starts_with("select")) {
            continue;
        }
        once(loop_word(cx.src.get(at.end..)?), true)?;
    }
    found
}

/// The literal text of a `${NAME:=TEXT}` (or `${NAME=TEXT}`) in a word, which assigns `NAME`
/// when it is unset (quotes around the text go as bash removes them, see [`default_text`]).
fn assigning_default<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let at = text.find(&format!("${{{name}"))?;
    let rest = &text[at + 2 + name.len()..];
    let rest = rest.strip_prefix(":=").or_else(|| rest.strip_prefix('='))?;
    let d = &rest[..rest.find('}')?];
    let escaped = |k: usize| text[..k].ends_with('\\');
    let quotes = text[..at]
        .char_indices()
        .filter(|&(k, c)| c == '"' && !escaped(k))
        .count();
    default_text(d, quotes % 2 == 1)
}

/// The elements of an array value's source (`(rm -rf v)`, `('a b' c)`): plain and quoted
/// words only; `None` for an expansion, a subscript, a glob or a tilde.
fn array_elements(raw: &str) -> Option<Vec<String>> {
    let inner = raw.strip_prefix('(')?.strip_suffix(')')?;
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => out.extend(current.take()),
            '\'' | '"' => {
                let word = current.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        q if q == c => break,
                        '$' | '`' | '\\' if c == '"' => return None,
                        ch => word.push(ch),
                    }
                }
            }
            '$' | '`' | '\\' | '*' | '?' | '[' | ']' | '{' | '}' | '~' | '(' | ')' | '#' => {
                return None;
            }
            ch => current.get_or_insert_with(String::new).push(ch),
        }
    }
    out.extend(current);
    Some(out)
}

/// The value an assignment stores: its static text (an array's elements), or its text with
/// the values of the variables and the substitution of a printed literal it holds.
fn assignment_value(cx: &Ctx<'_>, j: usize, a: &Assignment, chain: usize) -> Option<Vec<String>> {
    let raw = cx.src.get(a.value.span.start..a.value.span.end)?;
    if raw.starts_with('(') {
        return array_elements(raw);
    }
    if let Some(t) = a.value.static_text() {
        return Some(vec![t.to_string()]);
    }
    let chain = chain.checked_sub(1)?;
    let e = a.value.expansions;
    if e.process || e.arithmetic || !(e.parameter || e.command) {
        return None;
    }
    let at = a.value.span.start;
    // No splitting in an assignment: the pieces join as they are.
    let pieces = pieces(raw, &mut |p| match p {
        Ref::Param(p) => resolve(cx, j, p, chain, Refs::Keep),
        Ref::Substitution(from, to) => substituted(cx, j, at + from, at + to).map(|v| vec![v]),
    })?;
    Some(vec![pieces.into_iter().map(|p| p.text).collect()])
}

/// The one argument a run-time word becomes, as text run again later (`trap "rm -rf $HOME"
/// EXIT`): the values the line gives its variables filled in, a name it never assigns kept as
/// `$NAME` for the later run to expand the same way, no field splitting. `None` for anything
/// [`pieces`] does not read.
pub(super) fn word_text(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<String> {
    if let Some(t) = w.static_text() {
        return Some(t.to_string());
    }
    let e = w.expansions;
    if e.process || e.arithmetic || e.glob {
        return None;
    }
    let raw = cx.src.get(w.span.start..w.span.end)?;
    let at = w.span.start;
    let pieces = pieces(raw, &mut |p| match p {
        Ref::Param(p) => resolve(cx, i, p, MAX_CHAIN, Refs::Keep),
        Ref::Substitution(from, to) => substituted(cx, i, at + from, at + to).map(|v| vec![v]),
    })?;
    Some(pieces.into_iter().map(|p| p.text).collect())
}

/// Whether the line assigns `name` anywhere (also by a declaration builtin or `${NAME:=…}`).
fn assigned(cx: &Ctx<'_>, name: &str) -> bool {
    assigned_outside(cx, name, usize::MAX)
}

/// [`assigned`], leaving out the `${NAME:=…}` words of segment `here`.
fn assigned_outside(cx: &Ctx<'_>, name: &str, here: usize) -> bool {
    let prefix = format!("{name}=");
    cx.script.segments.iter().enumerate().any(|(j, s)| {
        s.assignments.iter().any(|a| a.name == name)
            || declaration(s).is_some_and(|(words, _)| {
                words
                    .iter()
                    .any(|w| w.text == name || w.text.starts_with(&prefix))
            })
            || (j != here
                && s.words.iter().any(|w| {
                    w.text.contains(&format!("${{{name}:="))
                        || w.text.contains(&format!("${{{name}="))
                }))
    })
}

/// The value of `name` in the environment of the command of segment `i`: its own assignment
/// (`c=… bash -c …`), or a literal an earlier `export` / `declare -x` made exported.
pub(super) fn environment(
    cx: &Ctx<'_>,
    i: usize,
    name: &str,
    own: &[Assignment],
) -> Option<String> {
    let mut mine = own.iter().filter(|a| a.name == name);
    if let Some(a) = mine.next() {
        return match (mine.next(), a.subscript) {
            (None, false) => a.value.static_text().map(str::to_string),
            _ => None,
        };
    }
    let segments = &cx.script.segments;
    let prefix = format!("{name}=");
    let exported = segments.iter().enumerate().any(|(j, s)| {
        visible(segments, j, i)
            && declaration(s).is_some_and(|(words, exported)| {
                exported
                    && words
                        .iter()
                        .any(|w| w.text == name || w.text.starts_with(&prefix))
            })
    });
    if !exported {
        return None;
    }
    // An array is not exported.
    let mut items = literal(cx, i, name, MAX_CHAIN)?;
    (items.len() == 1).then(|| items.remove(0))
}

/// The names earlier `export` / `declare -x` words of the line (`export NAME=…`, `export NAME`)
/// put in the environment of the command of segment `i`; their values come from
/// [`environment`].
pub(super) fn exported_names(cx: &Ctx<'_>, i: usize) -> Vec<String> {
    let segments = &cx.script.segments;
    let mut names: Vec<String> = Vec::new();
    for (j, s) in segments.iter().enumerate().take(i) {
        let Some((words, true)) = declaration(s) else {
            continue;
        };
        if !visible(segments, j, i) {
            continue;
        }
        for w in words {
            let name = w.text.split_once('=').map_or(w.text.as_str(), |(n, _)| n);
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Most parameters of one script replaced.
const MAX_REPLACED: usize = 64;

/// `bash -c '"$@"' _ rm -rf v`, `c='rm -rf v' bash -c '$c'`: the script a shell in segment
/// `i` runs is read once more with its positional parameters (`$0` is `name`, then `args`) and
/// the variables of its environment (`own`, the command's assignments, and earlier exports) in
/// place; a deny found there denies.
pub(super) fn shell_script(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    script: &str,
    name: Option<&Word>,
    args: &[Word],
    own: &[Assignment],
) {
    let static_args: Option<Vec<String>> = args
        .iter()
        .map(|w| w.static_text().map(str::to_string))
        .collect();
    let zero = name.and_then(|w| w.static_text()).map(str::to_string);
    let mut lookup = |p: &str| -> Option<Vec<String>> {
        match p {
            "@" | "*" => static_args.clone(),
            "0" => zero.clone().map(|z| vec![z]),
            _ if p.bytes().all(|b| b.is_ascii_digit()) => {
                let n: usize = p.parse().ok()?;
                static_args
                    .as_ref()?
                    .get(n.checked_sub(1)?)
                    .map(|a| vec![a.clone()])
            }
            _ => environment(cx, i, p, own).map(|v| vec![v]),
        }
    };
    let Some(text) = substitute(script, &mut lookup) else {
        return;
    };
    if text == script {
        return;
    }
    let what = "the script with the parameters and environment this command line gives it";
    super::denies_in(cx, i, span, what, &text);
}

/// A script with each `$N`, `${N}`, `$@`, `$*`, `$NAME`, `${NAME}` that `lookup` knows
/// replaced by its value, quoted so that bash reads it as the expansion's words: `"$@"` as one
/// word per value, another expansion in double quotes as one word, an unquoted one split at
/// blanks. `None` when a value could glob or sits where its words are not known.
fn substitute(script: &str, lookup: &mut dyn FnMut(&str) -> Option<Vec<String>>) -> Option<String> {
    let b = script.as_bytes();
    let mut out = String::with_capacity(script.len());
    let mut in_double = false;
    let mut replaced = 0;
    let mut k = 0;
    let mut copied = 0;
    while k < b.len() {
        match b[k] {
            b'\'' if !in_double => {
                k += 1 + script[k + 1..]
                    .find('\'')
                    .map_or(script.len() - k - 1, |e| e + 1);
            }
            b'\\' => k += 2,
            b'"' => {
                in_double = !in_double;
                k += 1;
            }
            b'$' => {
                let rest = &script[k + 1..];
                let (param, len) = match rest.as_bytes().first() {
                    Some(b'@' | b'*' | b'0'..=b'9') => (&rest[..1], 1),
                    Some(b'{') => {
                        let close = rest.find('}').unwrap_or(0);
                        let inner = &rest[1..close.max(1)];
                        let simple = inner == "@"
                            || inner == "*"
                            || (!inner.is_empty() && inner.bytes().all(|c| c.is_ascii_digit()))
                            || is_name(inner);
                        match simple && close > 0 {
                            true => (inner, close + 1),
                            false => ("", 0),
                        }
                    }
                    _ => {
                        let n = rest
                            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .unwrap_or(rest.len());
                        match is_name(&rest[..n]) {
                            true => (&rest[..n], n),
                            false => ("", 0),
                        }
                    }
                };
                let values = match param.is_empty() {
                    true => None,
                    false => lookup(param),
                };
                let Some(values) = values else {
                    k += 1;
                    continue;
                };
                replaced += 1;
                if replaced > MAX_REPLACED {
                    return None;
                }
                let whole_at = in_double
                    && k > 0
                    && b[k - 1] == b'"'
                    && (k < 2 || b[k - 2] != b'\\')
                    && b.get(k + 1 + len) == Some(&b'"')
                    && param == "@";
                if whole_at {
                    // `"$@"`: the quotes go, each value is a word.
                    out.push_str(&script[copied..k - 1]);
                    let words: Vec<String> = values.iter().map(|v| quote(v)).collect();
                    out.push_str(&words.join(" "));
                    k += len + 2;
                    copied = k;
                    in_double = false;
                    continue;
                }
                if in_double && param == "@" && values.len() > 1 {
                    return None;
                }
                out.push_str(&script[copied..k]);
                let joined = values.join(" ");
                if in_double {
                    for c in joined.chars() {
                        if matches!(c, '"' | '\\' | '$' | '`') {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                } else {
                    if joined.contains(GLOB) {
                        return None;
                    }
                    let words: Vec<String> = joined.split_whitespace().map(quote).collect();
                    out.push_str(&words.join(" "));
                }
                k += 1 + len;
                copied = k;
            }
            _ => k += 1,
        }
    }
    out.push_str(script.get(copied..)?);
    Some(out)
}

/// Builtins that can set a variable whose name they are given at run time, or run text that
/// could: where one runs on the line, no variable is proved to keep its value.
const NAME_SETTERS: &[&str] = &[
    "eval",
    "source",
    ".",
    "let",
    "read",
    "mapfile",
    "readarray",
    "printf",
    "getopts",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "set",
    "shift",
    "hash",
    "enable",
];

/// `tmp=$(mktemp -d); …; rm -rf "$tmp"` (also in a `trap` action): whether `w` in segment `i`
/// is `$NAME` / `"$NAME"` / `${NAME}` of a variable proved to hold a directory (or file)
/// `mktemp -d` made on this line — assigned once, from one `mktemp`, in a plain assignment that ran
/// before segment `i` in the same shell, outside any loop or condition; named nowhere else on
/// the line but in `$NAME` / `${NAME}` reads; with no builtin on the line that could set a
/// variable it is not named to (`eval`, `read`, `declare`, …) and no arithmetic.
pub(super) fn fresh_temp_dir(cx: &Ctx<'_>, i: usize, w: &Word) -> bool {
    let Some(raw) = cx.src.get(w.span.start..w.span.end) else {
        return false;
    };
    let bare = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let Some(name) = bare
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| bare.strip_prefix('$'))
        .filter(|n| is_name(n))
    else {
        return false;
    };
    temp_dir_assignment(cx, i, name).is_some()
}

/// The segment that assigns `name` its `mktemp -d` directory, when [`fresh_temp_dir`]'s proof
/// holds for a use in segment `i`.
pub(super) fn temp_dir_assignment(cx: &Ctx<'_>, i: usize, name: &str) -> Option<usize> {
    let segments = &cx.script.segments;
    let mut found = None;
    for (j, s) in segments.iter().enumerate() {
        if s.assignments.iter().any(|a| a.name == name) {
            if found.is_some() {
                return None;
            }
            found = Some(j);
        }
        let program = s.words.first().and_then(|w| w.static_text());
        let sets = program.is_some_and(|p| NAME_SETTERS.contains(&program_name(p).as_ref()));
        let arithmetic = s.words.iter().any(|w| w.expansions.arithmetic)
            || s.nesting.contains(&Nest::Arithmetic);
        if sets || arithmetic {
            return None;
        }
    }
    // `mktemp() { echo /; }`, `PATH=.:$PATH`: the `mktemp` that runs may not be the real one.
    let redefined =
        cx.script.events.iter().any(
            |(ev, _)| matches!(ev, crate::segment::Event::FunctionDefinition(f) if f == "mktemp"),
        );
    let path_set = segments
        .iter()
        .any(|s| s.assignments.iter().any(|a| a.name == "PATH"));
    if redefined || path_set {
        return None;
    }
    let j = found?;
    let s = &segments[j];
    let [a] = s.assignments.as_slice() else {
        return None;
    };
    let plain = s.kind == SegmentKind::Assignments
        && !a.subscript
        && visible(segments, j, i)
        && !s.nesting.contains(&Nest::Control)
        && !s.nesting.contains(&Nest::Subshell);
    if !plain || !makes_temp_dir(cx, j, a) || !named_only_in_reads(cx.src, name, a.span) {
        return None;
    }
    Some(j)
}

/// Whether assignment `a` of segment `j` stores the output of one `mktemp` that makes what it
/// names (a file, or with `-d` a directory).
fn makes_temp_dir(cx: &Ctx<'_>, j: usize, a: &Assignment) -> bool {
    let Some(raw) = cx.src.get(a.value.span.start..a.value.span.end) else {
        return false;
    };
    let raw = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    // `$(mktemp -d)`, or the old backquote spelling `` `mktemp -d` `` of the same substitution.
    let substitution = (raw.starts_with("$(") && raw.ends_with(')'))
        || (raw.len() > 1 && raw.starts_with('`') && raw.ends_with('`'));
    if !substitution {
        return false;
    }
    let level = cx.script.segments[j].nesting.len();
    let mut inner = cx.script.segments.iter().filter(|s| {
        s.span.start >= a.value.span.start
            && s.span.end <= a.value.span.end
            && s.nesting.len() > level
    });
    let (Some(m), None) = (inner.next(), inner.next()) else {
        return false;
    };
    let words: Option<Vec<&str>> = m.words.iter().map(Word::static_text).collect();
    let Some(words) = words else {
        return false;
    };
    // `-u` only prints a name; a file (no `-d`) is as fresh as a directory.
    let dry = words[1..].iter().any(|t| {
        *t == "--dry-run" || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains('u'))
    });
    m.redirects.is_empty()
        && m.assignments.is_empty()
        && words
            .first()
            .is_some_and(|p| matches!(*p, "mktemp" | "/usr/bin/mktemp" | "/bin/mktemp"))
        && !dry
}

/// Whether `name` appears in `src` only inside `skip` (its assignment) and as `$NAME` or
/// `${NAME}` reads: a `read NAME`, `for NAME in`, `${NAME:=…}` or `NAME+=` elsewhere is a
/// write the proof cannot follow.
fn named_only_in_reads(src: &str, name: &str, skip: Span) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(found) = src[from..].find(name) {
        let at = from + found;
        let end = at + name.len();
        from = end;
        let before = src[..at].chars().next_back();
        let after = src[end..].chars().next();
        if before.is_some_and(ident) || after.is_some_and(ident) {
            continue;
        }
        if at >= skip.start && end <= skip.end {
            continue;
        }
        let read = src[..at].ends_with('$') && !src[..at].ends_with("\\$")
            || (src[..at].ends_with("${") && after == Some('}'));
        if !read {
            return false;
        }
    }
    true
}

/// `trap 'rm -rf "$tmp"' EXIT` after `tmp=$(mktemp -d)`: the assignments of the fresh
/// temp-dir variables `action` reads (see [`fresh_temp_dir`]), as lines to put before it so
/// that its own analysis knows them.
pub(super) fn temp_dir_prelude(cx: &Ctx<'_>, i: usize, action: &str) -> String {
    let mut out = String::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut rest = action;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let r = rest.strip_prefix('{').unwrap_or(rest);
        let len = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(r.len());
        let name = &r[..len];
        if !is_name(name) || seen.contains(&name) || seen.len() >= MAX_CHAIN {
            continue;
        }
        seen.push(name);
        if temp_dir_assignment(cx, i, name).is_some() {
            out.push_str(&format!("{name}=$(mktemp -d)\n"));
        }
    }
    out
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The one plain word a `for NAME in WORD; do` loops over, from the source after NAME; `None`
/// for more words or any other text.
fn loop_word(after: &str) -> Option<Vec<String>> {
    let rest = after.trim_start_matches([' ', '\t']).strip_prefix("in")?;
    let end = rest.find([';', '\n'])?;
    let list: Vec<&str> = rest[..end].split_whitespace().collect();
    let plain = |w: &str| {
        w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'))
    };
    match list.as_slice() {
        [w] if plain(w) => Some(vec![w.to_string()]),
        _ => None,
    }
}

/// What a builtin in segment `s` assigns to `name`: `Some(Some(value))` when the line spells it
/// out — `read [-r] NAME <<< TEXT` (the text without its blanks at the ends), `mapfile -t NAME
/// <<< TEXT` (its lines), `printf -v NAME TEXT` (a format without `%` or `\\`), `declare -a
/// NAME=(…)` (the elements) —, `Some(None)` when it assigns `name` a value only run time knows,
/// `None` when it does not assign `name`.
fn builtin_assignment(cx: &Ctx<'_>, s: &Segment, name: &str) -> Option<Option<Vec<String>>> {
    if s.kind != SegmentKind::Command {
        return None;
    }
    let builtin = s.words.first()?.static_text()?;
    let texts: Vec<Option<&str>> = s.words[1..].iter().map(Word::static_text).collect();
    let names = |t: &Option<&str>| *t == Some(name);
    let herestring = || {
        s.redirects
            .iter()
            .find(|r| {
                r.op == crate::segment::RedirectOp::Herestring && matches!(r.fd, None | Some(0))
            })
            .and_then(|r| r.target.as_ref())
            .and_then(Word::static_text)
    };
    match builtin {
        "read" | "mapfile" | "readarray" => {
            if !texts.iter().any(names) {
                return None;
            }
            let options: Vec<&str> = texts
                .iter()
                .take_while(|t| t.is_some_and(|t| t.starts_with('-')))
                .flatten()
                .copied()
                .collect();
            let plain = texts.len() == options.len() + 1;
            let value = match (builtin, options.as_slice()) {
                ("read", ["-r"]) if plain => {
                    herestring().map(|t| vec![t.trim_matches([' ', '\t', '\n']).to_string()])
                }
                ("read", []) if plain => herestring()
                    .filter(|t| !t.contains('\\'))
                    .map(|t| vec![t.trim_matches([' ', '\t', '\n']).to_string()]),
                (_, ["-t"]) if plain && builtin != "read" => {
                    herestring().map(|t| t.lines().map(str::to_string).collect())
                }
                _ => None,
            };
            Some(value)
        }
        "printf" => {
            let at = texts.iter().position(|t| *t == Some("-v"))?;
            if texts.get(at + 1) != Some(&Some(name)) {
                return None;
            }
            let value = match texts.get(at + 2..) {
                Some([Some(format)]) if at == 0 && !format.contains(['%', '\\']) => {
                    Some(vec![format.to_string()])
                }
                _ => None,
            };
            Some(value)
        }
        b if DECLARATIONS.contains(&b) => {
            let prefix = format!("{name}=(");
            let w = s.words[1..].iter().find(|w| {
                cx.src
                    .get(w.span.start..w.span.end)
                    .is_some_and(|raw| raw.starts_with(&prefix))
            })?;
            let flags_ok = texts
                .iter()
                .take_while(|t| t.is_some_and(|t| t.starts_with('-')))
                .all(|t| matches!(t, Some("-a" | "-g" | "-ga" | "-ag")));
            // Without `-a` the declaration is read by `declaration`.
            if !texts
                .iter()
                .any(|t| matches!(t, Some("-a" | "-ga" | "-ag")))
            {
                return None;
            }
            let raw = cx.src.get(w.span.start..w.span.end)?;
            Some(array_elements(&raw[name.len() + 1..]).filter(|_| flags_ok))
        }
        _ => None,
    }
}

/// Field splitting at the characters of an IFS the line assigns (see [`fields`] for the
/// default): unquoted expansions split at each; an empty IFS splits nothing.
fn split_at(pieces: &[Piece], ifs: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for p in pieces {
        if p.brk {
            out.push(current.take().unwrap_or_default());
            continue;
        }
        if !p.split || ifs.is_empty() {
            current.get_or_insert_with(String::new).push_str(&p.text);
            continue;
        }
        let mut parts = p.text.split(|c: char| ifs.contains(c)).peekable();
        let mut first = true;
        while let Some(part) = parts.next() {
            if !first {
                out.extend(current.take());
            }
            first = false;
            if !part.is_empty() {
                current.get_or_insert_with(String::new).push_str(part);
            } else if parts.peek().is_none() && !p.text.is_empty() {
                out.extend(current.take());
            }
        }
    }
    out.extend(current);
    out
}

#[cfg(test)]
mod tests {
    use super::{Index, Ref, default_text, edit, fields, pieces, substitute};

    fn split(raw: &str) -> Option<Vec<String>> {
        let mut lookup = |r: Ref<'_>| {
            let Ref::Param(p) = r else {
                return Some(vec!["sub".to_string()]);
            };
            let value = match (p.name, p.index) {
                ("a", Index::All | Index::Star) => return Some(vec!["rm".into(), "-rf v".into()]),
                ("c", _) => Some("rm -rf v".to_string()),
                ("e", _) => Some(String::new()),
                ("u", _) => Some("xm -rf V;".to_string()),
                _ => None,
            };
            match (value, p.op) {
                (Some(v), "") => Some(vec![v]),
                (None, "") => None,
                (Some(v), op) if !op.contains(['-', '=']) => edit(&v, op, p.word).map(|v| vec![v]),
                (v, _) => v
                    .or_else(|| default_text(p.word, p.in_double).map(str::to_string))
                    .map(|v| vec![v]),
            }
        };
        pieces(raw, &mut lookup).map(|p| fields(&p))
    }

    #[test]
    fn words_split_where_bash_splits_them() {
        for (raw, want) in [
            ("$c", Some(vec!["rm", "-rf", "v"])),
            ("\"$c\"", Some(vec!["rm -rf v"])),
            ("\"${C:-rm} -rf v\"", Some(vec!["rm -rf v"])),
            ("${C:-rm}", Some(vec!["rm"])),
            ("x$c", Some(vec!["xrm", "-rf", "v"])),
            ("'a b'$e", Some(vec!["a b"])),
            ("$e", Some(vec![])),
            // A substitution's value is the caller's (`sub` here).
            ("$(id)", Some(vec!["sub"])),
            ("x$(id)", Some(vec!["xsub"])),
            ("$(echo \")\")", None),
            ("\"$c", None),
            ("$C", None),
            ("${c#x}", Some(vec!["rm", "-rf", "v"])),
            ("*$c", None),
            // Arrays, edits, substitutions, quoted defaults.
            ("\"${a[@]}\"", Some(vec!["rm", "-rf v"])),
            ("\"${a[*]}\"", Some(vec!["rm -rf v"])),
            ("${a[@]}", Some(vec!["rm", "-rf", "v"])),
            ("\"x${a[@]}y\"", Some(vec!["xrm", "-rf vy"])),
            ("\"${u/x/r}\"", Some(vec!["rm -rf V;"])),
            ("\"${u%;}\"", Some(vec!["xm -rf V"])),
            ("\"${u,,}\"", Some(vec!["xm -rf v;"])),
            ("\"${u/*/r}\"", None),
            ("\"${u%%*;}\"", None),
            ("${C:='rm -rf v'}", Some(vec!["rm", "-rf", "v"])),
            ("\"${C:='a b'}\"", Some(vec!["'a b'"])),
            ("\"$(echo x)\"", Some(vec!["sub"])),
            ("$((1+2))", None),
        ] {
            let want = want.map(|w| w.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(split(raw), want, "{raw}");
        }
    }

    #[test]
    fn positional_parameters_are_put_back_as_the_words_bash_makes() {
        let args = ["rm", "-rf", "v"];
        let mut lookup = |p: &str| -> Option<Vec<String>> {
            match p {
                "@" | "*" => Some(args.iter().map(|a| a.to_string()).collect()),
                "1" => Some(vec!["rm".to_string()]),
                "g" => Some(vec!["*".to_string()]),
                _ => None,
            }
        };
        for (script, want) in [
            ("\"$@\"", Some("'rm' '-rf' 'v'")),
            ("exec \"$@\"", Some("exec 'rm' '-rf' 'v'")),
            ("$1 -rf v", Some("'rm' -rf v")),
            ("${1} -rf v", Some("'rm' -rf v")),
            ("echo \"$1\"", Some("echo \"rm\"")),
            ("echo '$1'", Some("echo '$1'")),
            ("echo \\$1", Some("echo \\$1")),
            ("$*", Some("'rm' '-rf' 'v'")),
            ("echo \"x$@\"", None),
            ("echo $g", None),
            ("echo $2 $HOME", Some("echo $2 $HOME")),
        ] {
            assert_eq!(substitute(script, &mut lookup).as_deref(), want, "{script}");
        }
    }

    proptest::proptest! {
        /// No text makes the readers panic.
        #[test]
        fn the_readers_take_any_text(s in "[ -~é€]{0,40}") {
            let mut lookup = |r: Ref<'_>| match r {
                Ref::Param(p) => Some(vec![p.word.to_string()]),
                Ref::Substitution(a, b) => Some(vec![format!("{a}{b}")]),
            };
            let _ = pieces(&s, &mut lookup).map(|p| fields(&p));
            let _ = super::array_elements(&s);
            let _ = super::closing_paren(&s);
            let mut params = |_: &str| Some(vec!["a b".to_string()]);
            let _ = substitute(&s, &mut params);
        }
    }
}
