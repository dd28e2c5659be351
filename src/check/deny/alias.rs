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
