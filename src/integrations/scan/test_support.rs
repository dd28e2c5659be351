//! scan, tests only: the views of an extractor's output that the extractors' unit tests
//! compare against, written once. It never decides anything.

use super::{EnvScope, Extracted, LineIndex, ScanCode, Shell};

/// Each piece as (context, script).
pub(super) fn scripts(x: &Extracted) -> Vec<(String, String)> {
    x.pieces
        .iter()
        .map(|p| (p.context.clone(), p.script.clone()))
        .collect()
}

/// The shell of each piece.
pub(super) fn shells(x: &Extracted) -> Vec<Shell> {
    x.pieces.iter().map(|p| p.shell.clone()).collect()
}

/// Each piece as (context, script, the first `n` characters of `text` where it starts).
pub(super) fn pieces_at(x: &Extracted, text: &str, n: usize) -> Vec<(String, String, String)> {
    x.pieces
        .iter()
        .map(|p| {
            let at = p.origin.first().copied().unwrap_or(0);
            (
                p.context.clone(),
                p.script.clone(),
                text[at..].chars().take(n).collect(),
            )
        })
        .collect()
}

/// A piece as (context, script, the (line, column) of each script line's first byte).
pub(super) type ByLine = (String, String, Vec<(usize, usize)>);

/// Each piece as (context, script, the (line, column) in `text` of each script line's first
/// byte).
pub(super) fn pieces_by_line(x: &Extracted, text: &str) -> Vec<ByLine> {
    let index = LineIndex::new(text);
    x.pieces
        .iter()
        .map(|p| {
            let mut starts = vec![0];
            starts.extend(p.script.match_indices('\n').map(|(i, _)| i + 1));
            starts.retain(|&s| s < p.script.len());
            let pos = starts
                .iter()
                .map(|&s| {
                    let at = index.pos(p.origin[s]);
                    (at.line, at.column)
                })
                .collect();
            (p.context.clone(), p.script.clone(), pos)
        })
        .collect()
}

/// Each problem as (code name, the 1-based line of `text` it starts on).
pub(super) fn problem_lines(x: &Extracted, text: &str) -> Vec<(&'static str, usize)> {
    x.problems
        .iter()
        .map(|p| {
            (
                p.code.as_str(),
                text[..p.span.start].matches('\n').count() + 1,
            )
        })
        .collect()
}

/// Each problem as (the text of `text` it spans, code).
pub(super) fn problem_texts(x: &Extracted, text: &str) -> Vec<(String, ScanCode)> {
    x.problems
        .iter()
        .map(|p| (text[p.span.start..p.span.end].to_string(), p.code))
        .collect()
}

/// How many problems have `code`.
pub(super) fn count(x: &Extracted, code: ScanCode) -> usize {
    x.problems.iter().filter(|p| p.code == code).count()
}

/// Each variable the file sets, as (name, scope).
pub(super) fn env(x: &Extracted) -> Vec<(String, EnvScope)> {
    x.env.iter().map(|e| (e.name.clone(), e.scope)).collect()
}

/// Each variable the file sets, by name.
pub(super) fn env_names(x: &Extracted) -> Vec<String> {
    x.env.iter().map(|e| e.name.clone()).collect()
}

/// A (context, script) pair as [`scripts`] gives it, for an expected value.
pub(super) fn pair(context: &str, script: &str) -> (String, String) {
    (context.to_string(), script.to_string())
}
