//! check/deny/assigned: a command whose words take a value the same command line spells out —
//! a literal assigned once before it (`c='rm -rf v'; bash -c "$c"`, `o=--hard; git reset $o`)
//! or the default of an expansion whose variable the line never sets (`bash -c "${C:-rm -rf
//! v}"`) — is read once more with those values in place, and a deny found there denies. It only
//! adds denies: the command asks already, since a run-time word is not allowed.

use super::{program_name, quote};
use crate::check::{Ctx, vars};
use crate::finding::Span;
use crate::segment::{Nest, SegmentKind, Word};

/// Characters that keep a value from being one plain text (bash would expand or split them
/// further, or they end the expansion).
const NOT_LITERAL: &[char] = &['$', '`', '\\', '"', '\'', '}'];

/// Characters bash would glob in an unquoted value.
const GLOB: &[char] = &['*', '?', '['];

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

/// The words a run-time word of segment `i` becomes when the line spells out its value:
/// `$NAME`, `${NAME}` of a literal assigned once before it, or `${NAME:-TEXT}` (`-`, `:=`,
/// `=`) of a name the line never assigns. Unquoted, the value is split at blanks (and not
/// read at all when it could glob).
pub(super) fn value_of(cx: &Ctx<'_>, i: usize, w: &Word) -> Option<Vec<String>> {
    let e = w.expansions;
    if e.command || e.process || e.arithmetic || e.glob {
        return None;
    }
    let t = w.text.as_str();
    let (name, default) = if let Some(n) = t.strip_prefix('$').filter(|n| is_name(n)) {
        (n, None)
    } else {
        let inner = t.strip_prefix("${")?.strip_suffix('}')?;
        let len = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let (n, op) = inner.split_at(len);
        if !is_name(n) {
            return None;
        }
        let d = match op {
            "" => None,
            _ => Some(
                [":-", ":=", "-", "="]
                    .iter()
                    .find_map(|o| op.strip_prefix(o))?,
            ),
        };
        (n, d)
    };
    let plain = |d: &str| !d.contains(NOT_LITERAL);
    let value = match (literal(cx, i, name), default) {
        // `${X:-d}` of an empty literal is `d`; `${X-d}` of one stays empty.
        (Some(v), Some(d)) if v.is_empty() && t.contains(":") && plain(d) => d.to_string(),
        (Some(v), _) => v,
        (None, Some(d)) if !assigned(cx, name) && plain(d) => d.to_string(),
        (None, _) => return None,
    };
    if vars::fully_double_quoted(cx.src, w) {
        return Some(vec![value]);
    }
    if w.quoted || value.contains(GLOB) {
        return None;
    }
    Some(value.split_whitespace().map(str::to_string).collect())
}

/// The value of `name` when the line assigns it exactly once, as a literal, in a plain
/// assignment before segment `i` at its level or an outer one (so the value is still set).
fn literal(cx: &Ctx<'_>, i: usize, name: &str) -> Option<String> {
    let segments = &cx.script.segments;
    let here = segments.get(i)?;
    let mut found = None;
    for (j, s) in segments.iter().enumerate() {
        for a in s.assignments.iter().filter(|a| a.name == name) {
            if found.is_some() || a.subscript {
                return None;
            }
            let visible = j < i
                && s.kind == SegmentKind::Assignments
                && here.nesting.starts_with(&s.nesting)
                && !s.nesting.contains(&Nest::Function);
            if !visible {
                return None;
            }
            found = Some(a.value.static_text()?.to_string());
        }
    }
    found
}

/// Whether the line assigns `name` anywhere.
fn assigned(cx: &Ctx<'_>, name: &str) -> bool {
    cx.script
        .segments
        .iter()
        .any(|s| s.assignments.iter().any(|a| a.name == name))
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}
