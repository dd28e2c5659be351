//! check/deny/positional: the positional parameters the line gives a script — the words of a
//! call to a function the line defines (`f() { "$@"; }; f rm -rf v`, the usual retry or log
//! wrapper) and `set -- WORDS` before `"$@"` — are filled in, and the script is read again;
//! a deny found there denies. It only adds denies: the commands ask already, since a function
//! call and a run-time program word are not allowed.

use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::{Event, Joiner, Nest, SegmentKind, Word};

/// Reads segment `i` (words `words`) with the positional parameters the line gives it.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(seg) = cx.script.segments.get(i) else {
        return;
    };
    let here = seg.span.start;
    // `f rm -rf v` after `f() { "$@"; }`: the body runs with the call's words.
    if let Some(name) = words.first().and_then(Word::static_text) {
        let mut bodies = cx.script.events.iter().filter_map(|(e, at)| match e {
            Event::FunctionDefinition(n) if n == name && at.end <= here => Some(*at),
            _ => None,
        });
        if let (Some(def), None) = (bodies.next(), bodies.next())
            && let Some(body) = cx.src.get(def.start..def.end).and_then(brace_body)
        {
            super::shell_arguments(cx, i, span, body, Some(&words[0]), &words[1..], &[]);
            return;
        }
    }
    // `set -- rm -rf v; "$@"`: outside a function, the words of the last `set --` before.
    if seg.nesting.contains(&Nest::Function) || !words.iter().any(names_positional) {
        return;
    }
    let Some(args) = set_words(cx, i) else {
        return;
    };
    let Some(text) = cx.src.get(seg.span.start..seg.span.end) else {
        return;
    };
    super::shell_arguments(cx, i, span, text, None, &args, &[]);
}

/// The text between a function definition's first `{` and its last `}`.
fn brace_body(def: &str) -> Option<&str> {
    let open = def.find('{')?;
    let close = def.rfind('}')?;
    def.get(open + 1..close)
}

/// Whether a word expands a positional parameter (`"$@"`, `$*`, `$1`, `${2}`).
fn names_positional(w: &Word) -> bool {
    if !w.expansions.parameter {
        return false;
    }
    let t = w.text.as_str();
    t.match_indices('$').any(|(k, _)| {
        let rest = t[k + 1..].trim_start_matches('{');
        rest.starts_with(['@', '*']) || rest.starts_with(|c: char| c.is_ascii_digit() && c != '0')
    })
}

/// The words of the one `set -- WORDS` (or `set WORDS` whose first word is no option) that
/// runs before segment `i` in its shell: at its level or an outer one, outside a function and
/// a pipeline. `None` when there is none, more than one, or any other `set`, `shift` or
/// function call that may change them.
fn set_words(cx: &Ctx<'_>, i: usize) -> Option<Vec<Word>> {
    let segments = &cx.script.segments;
    let here = segments.get(i)?;
    let mut found: Option<Vec<Word>> = None;
    for (j, s) in segments.iter().enumerate().take(i) {
        if s.kind != SegmentKind::Command {
            continue;
        }
        let Some(program) = s.words.first().and_then(Word::static_text) else {
            continue;
        };
        if program == "shift" {
            return None;
        }
        if program != "set" {
            continue;
        }
        let first = s.words.get(1).and_then(Word::static_text);
        let args = match first {
            Some("--") => &s.words[2..],
            Some(t) if !t.starts_with(['-', '+']) => &s.words[1..],
            // `set -e`, `set -o pipefail`: options only, the parameters stay.
            Some(_)
                if s.words.iter().all(|w| {
                    w.static_text().is_some_and(|t| {
                        t.starts_with(['-', '+']) || t.chars().all(|c| c.is_ascii_alphabetic())
                    })
                }) =>
            {
                continue;
            }
            _ => return None,
        };
        let piped = s.joiner == Some(Joiner::Pipe)
            || j.checked_sub(1)
                .and_then(|p| segments.get(p))
                .is_some_and(|p| p.joiner == Some(Joiner::Pipe) && p.nesting == s.nesting);
        let visible =
            here.nesting.starts_with(&s.nesting) && !s.nesting.contains(&Nest::Function) && !piped;
        if !visible || found.is_some() {
            return None;
        }
        found = Some(args.to_vec());
    }
    found
}
