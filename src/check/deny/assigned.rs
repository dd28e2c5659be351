//! check/deny/assigned: a command whose words take a value the same command line spells out —
//! a literal assigned before it (`c='rm -rf v'; bash -c "$c"`, `declare c=…`, `export c=…`,
//! `c2=$c`, `: ${C:=rm -rf v}`) or the default of an expansion whose variable the line never
//! sets (`bash -c "${C:-rm} -rf v"`) — is read once more with those values in place, and a deny
//! found there denies. The same goes for a script a shell runs with values the line gives it:
//! the positional parameters of `bash -c SCRIPT NAME ARGS…` and the variables its environment
//! holds (`c='rm -rf v' bash -c '$c'`, `export c=…; bash -c 'eval "$c"'`). It only adds denies:
//! the command asks already, since a run-time word is not allowed.

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

/// One piece of a word: text, and whether bash splits it (an unquoted expansion).
struct Piece {
    text: String,
    split: bool,
}

/// [`value_of`] with at most `chain` assignments followed.
fn expand(cx: &Ctx<'_>, i: usize, w: &Word, chain: usize) -> Option<Vec<String>> {
    let e = w.expansions;
    if e.command || e.process || e.arithmetic || e.glob || !e.parameter {
        return None;
    }
    // The source text of the word: a word made up by cmdguard (`xargs`'s `{input}`) has none.
    let raw = cx.src.get(w.span.start..w.span.end)?;
    if !raw.contains('$') {
        return None;
    }
    let pieces = pieces(raw, &mut |name, op, default| {
        resolve(cx, i, name, op, default, chain)
    })?;
    Some(fields(&pieces))
}

/// Field splitting: pieces joined, unquoted expansions split at blanks.
fn fields(pieces: &[Piece]) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for p in pieces {
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
            out.push(Piece {
                text: std::mem::take(literal),
                split: false,
            });
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
            '$' => {
                let rest = &raw[k + 1..];
                let (name, op, default, len) = parameter(rest)?;
                let value = lookup(name, op, default)?;
                if !in_double && value.contains(GLOB) {
                    return None;
                }
                flush(&mut literal, &mut out);
                out.push(Piece {
                    text: value,
                    split: !in_double,
                });
                skip_to(&mut chars, k + 1 + len);
            }
            '`' => return None,
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

/// Finds the value of a parameter: its name, operator (`:-`, `-`, `:=`, `=` or none) and
/// default text.
type Lookup<'a> = dyn FnMut(&str, &str, Option<&str>) -> Option<String> + 'a;

/// Steps `chars` to the byte offset `to`.
fn skip_to(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, to: usize) {
    while chars.next_if(|(n, _)| *n < to).is_some() {}
}

/// The parameter after a `$`: its name, operator, default text and length in bytes, for
/// `NAME`, `{NAME}` and `{NAME<op>TEXT}` with `op` one of `:-`, `-`, `:=`, `=`.
fn parameter(rest: &str) -> Option<(&str, &str, Option<&str>, usize)> {
    if let Some(inner) = rest.strip_prefix('{') {
        let close = inner.find('}')?;
        let body = &inner[..close];
        let len = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let (name, op) = body.split_at(len);
        if !is_name(name) {
            return None;
        }
        let (op, default) = match op {
            "" => ("", None),
            _ => {
                let o = [":-", ":=", "-", "="]
                    .into_iter()
                    .find(|o| op.starts_with(o))?;
                (o, Some(&op[o.len()..]))
            }
        };
        return Some((name, op, default, close + 2));
    }
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..len];
    is_name(name).then_some((name, "", None, len))
}

/// The value of `name` in segment `i`: a literal assigned before it, or the default of a
/// `${NAME:-TEXT}` whose variable the line never assigns.
fn resolve(
    cx: &Ctx<'_>,
    i: usize,
    name: &str,
    op: &str,
    default: Option<&str>,
    chain: usize,
) -> Option<String> {
    let plain = |d: &str| !d.contains(NOT_LITERAL);
    match (literal(cx, i, name, chain), default) {
        // `${X:-d}` of an empty literal is `d`; `${X-d}` of one stays empty.
        (Some(v), Some(d)) if v.is_empty() && op.starts_with(':') && plain(d) => {
            Some(d.to_string())
        }
        (Some(v), _) => Some(v),
        (None, Some(d)) if !assigned(cx, name) && plain(d) => Some(d.to_string()),
        (None, _) => None,
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
fn literal(cx: &Ctx<'_>, i: usize, name: &str, chain: usize) -> Option<String> {
    let segments = &cx.script.segments;
    let mut found = None;
    let mut once = |value: Option<String>, ok: bool| -> Option<()> {
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
                        once(Some(v.to_string()), visible(segments, j, i))?;
                    }
                    _ => {}
                }
            }
        }
        for w in s.words.iter().filter(|w| !w.is_static()) {
            if let Some(d) = assigning_default(&w.text, name) {
                once(Some(d.to_string()), visible(segments, j, i))?;
            }
        }
    }
    found
}

/// The literal text of a `${NAME:=TEXT}` (or `${NAME=TEXT}`) in a word, which assigns `NAME`
/// when it is unset.
fn assigning_default<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let at = text.find(&format!("${{{name}"))?;
    let rest = &text[at + 2 + name.len()..];
    let rest = rest.strip_prefix(":=").or_else(|| rest.strip_prefix('='))?;
    let d = &rest[..rest.find('}')?];
    (!d.contains(NOT_LITERAL)).then_some(d)
}

/// The value an assignment stores: its static text, or the value of the one variable it copies.
fn assignment_value(cx: &Ctx<'_>, j: usize, a: &Assignment, chain: usize) -> Option<String> {
    if let Some(t) = a.value.static_text() {
        return Some(t.to_string());
    }
    let chain = chain.checked_sub(1)?;
    let e = a.value.expansions;
    if e.command || e.process || e.arithmetic || !e.parameter {
        return None;
    }
    let raw = cx.src.get(a.value.span.start..a.value.span.end)?;
    // No splitting in an assignment: the pieces join as they are.
    let pieces = pieces(raw, &mut |name, op, default| {
        resolve(cx, j, name, op, default, chain)
    })?;
    Some(pieces.into_iter().map(|p| p.text).collect())
}

/// Whether the line assigns `name` anywhere (also by a declaration builtin or `${NAME:=…}`).
fn assigned(cx: &Ctx<'_>, name: &str) -> bool {
    let prefix = format!("{name}=");
    cx.script.segments.iter().any(|s| {
        s.assignments.iter().any(|a| a.name == name)
            || declaration(s).is_some_and(|(words, _)| {
                words
                    .iter()
                    .any(|w| w.text == name || w.text.starts_with(&prefix))
            })
            || s.words
                .iter()
                .any(|w| assigning_default(&w.text, name).is_some())
    })
}

/// The value of `name` in the environment of the command of segment `i`: its own assignment
/// (`c=… bash -c …`), or a literal an earlier `export` / `declare -x` made exported.
fn environment(cx: &Ctx<'_>, i: usize, name: &str, own: &[Assignment]) -> Option<String> {
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
    literal(cx, i, name, MAX_CHAIN)
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

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::{fields, pieces, substitute};

    fn split(raw: &str) -> Option<Vec<String>> {
        let mut lookup = |name: &str, _: &str, default: Option<&str>| match name {
            "c" => Some("rm -rf v".to_string()),
            "e" => Some(String::new()),
            _ => default.map(str::to_string),
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
            ("$(id)", None),
            ("\"$c", None),
            ("$C", None),
            ("${c#x}", None),
            ("*$c", None),
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
            let mut lookup = |_: &str, _: &str, d: Option<&str>| d.map(str::to_string);
            let _ = pieces(&s, &mut lookup).map(|p| fields(&p));
            let mut params = |_: &str| Some(vec!["a b".to_string()]);
            let _ = substitute(&s, &mut params);
        }
    }
}
