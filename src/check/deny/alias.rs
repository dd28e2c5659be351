//! check/deny/alias: aliases a SaaS CLI saves now and runs through a shell later —
//! `gh alias set --shell NAME 'CMD'` (or an expansion starting with `!`), which `gh NAME` runs
//! with `sh -c`. The body goes back through the analyser, so a denied command in it denies, as
//! `git config alias.x '!CMD'` does. It never allows anything: the outer command asks by itself.

use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::Word;

/// `gh alias set [--shell] NAME EXPANSION`: the expansion, when a shell runs it.
pub(super) fn gh(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let texts: Vec<Option<&str>> = words.iter().map(Word::static_text).collect();
    if texts.get(1..3) != Some(&[Some("alias"), Some("set")]) {
        return;
    }
    let mut shell = false;
    let mut operands: Vec<&str> = Vec::new();
    let mut only_operands = false;
    for t in texts.iter().skip(3) {
        // A run-time word may be the expansion: nothing to read.
        let Some(t) = *t else {
            return;
        };
        match t {
            "--" if !only_operands => only_operands = true,
            "-s" | "--shell" if !only_operands => shell = true,
            _ if !only_operands && t.starts_with('-') && t.len() > 1 => {}
            _ => operands.push(t),
        }
    }
    let Some(expansion) = operands.get(1) else {
        return;
    };
    let script = match expansion.strip_prefix('!') {
        Some(body) => body,
        None if shell => expansion,
        None => return,
    };
    cx.nested(i, span, "the shell alias `gh alias set` saves", script);
}

/// `shopt -s expand_aliases⏎alias x='rm -rf'⏎x v`: with `expand_aliases` set, a non-interactive
/// bash expands an alias defined on a line it already ran. Segment `i`, a top-level command
/// whose first word is such an alias, is read with the alias's text in place of that word;
/// a deny found there denies. Both the `shopt` and the one `alias` of the name must sit on
/// earlier lines, at the top level (bash reads a line, or a whole compound command, before it
/// runs any of it).
pub(super) fn expanded(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let segments = &cx.script.segments;
    let Some(seg) = segments.get(i).filter(|s| s.nesting.is_empty()) else {
        return;
    };
    let Some(first) = words.first().filter(|w| !w.quoted) else {
        return;
    };
    let Some(name) = first.static_text() else {
        return;
    };
    let line_start = cx.src[..seg.span.start].rfind('\n').unwrap_or(0);
    let earlier = |s: &crate::segment::Segment| s.nesting.is_empty() && s.span.end <= line_start;
    let enabled = segments.iter().take(i).any(|s| {
        earlier(s)
            && program(s) == Some("shopt")
            && s.words.iter().any(|w| w.static_text() == Some("-s"))
            && s.words
                .iter()
                .any(|w| w.static_text() == Some("expand_aliases"))
    });
    if !enabled {
        return;
    }
    let prefix = format!("{name}=");
    let mut bodies = segments.iter().take(i).filter_map(|s| {
        if !matches!(program(s), Some("alias" | "unalias")) {
            return None;
        }
        s.words[1..].iter().find_map(|w| match w.static_text() {
            Some(t) if t == name || t == "-a" => Some(None),
            Some(t) => t.strip_prefix(&prefix).map(|b| Some((b, earlier(s)))),
            // `alias "$x"`: which name it defines is not known.
            None => Some(None),
        })
    });
    let (Some(Some((body, true))), None) = (bodies.next(), bodies.next()) else {
        return;
    };
    let rest = cx.src.get(first.span.end..seg.span.end).unwrap_or("");
    let text = format!("{body}{rest}");
    super::denies_in(cx, i, span, &format!("the alias `{name}` expanded"), &text);
}

/// A segment's first word, when static.
fn program(s: &crate::segment::Segment) -> Option<&str> {
    s.words.first().and_then(Word::static_text)
}
