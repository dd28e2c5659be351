//! check/deny/forever: a loop that never ends and starts a background job each time round
//! (`while true; do bash & done`, `while :; do sleep 9 & done`) fills the process table as
//! the function fork bombs do; the background command is denied by the fork-bomb rule. A
//! loop whose body can leave it (`break`, `exit`, `return`) or waits for its jobs (`wait`) is
//! not. It never allows anything.

use crate::allowlist::DenyRule;
use crate::check::Ctx;
use crate::segment::{Joiner, Nest};

/// Conditions that are always true.
const FOREVER: &[&str] = &["true", ":", "[ 1 ]", "(( 1 ))"];

/// Denies, with `rule`, a background command that is the first command of a loop that never
/// ends.
pub(super) fn background_in_endless_loop(cx: &mut Ctx<'_>, rule: &DenyRule) {
    let script = cx.script;
    for (i, s) in script.segments.iter().enumerate() {
        if s.joiner != Some(Joiner::Background) || s.nesting.last() != Some(&Nest::Control) {
            continue;
        }
        let Some(before) = cx.src.get(..s.span.start) else {
            continue;
        };
        let Some(head) = before.trim_end().strip_suffix("do") else {
            continue;
        };
        let head = head.trim_end().trim_end_matches([';', '\n']).trim_end();
        let Some(at) = head.rfind("while ") else {
            continue;
        };
        let condition = head[at + "while ".len()..].trim();
        if !FOREVER.contains(&condition) {
            continue;
        }
        // The body: up to the `done` that closes it (the first one after; a nested loop
        // makes the body longer, never shorter, so a `break` in it is still seen).
        let after = cx.src.get(s.span.start..).unwrap_or("");
        let Some(end) = after.find("done") else {
            continue;
        };
        let body = &after[..end];
        let leaves = body
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| matches!(w, "break" | "exit" | "return" | "wait"));
        if !leaves {
            cx.deny(rule, s.span, Some(i));
        }
    }
}

/// Fork loops of interpreter one-liners: Perl's `fork while 1` and `while (1) { fork }`,
/// Python's `while True: os.fork()` and a comprehension over `iter(int, 1)` (an iterator that
/// never ends) calling `os.fork()`. Each child runs the same loop, so the processes double.
static FORK_LOOPS: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(concat!(
        r"\bfork\b(\(\))?\s+while\s*\(?\s*1\s*\)?\s*;?\s*$",
        r"|\bwhile\s*\(\s*1\s*\)\s*\{\s*fork\b",
        r"|\bwhile\s+(True|1)\s*:\s*os\.fork\(\)\s*$",
        r"|\bos\.fork\(\)\s+for\s+\w+\s+in\s+iter\(\s*int\s*,\s*1\s*\)",
    ))
    .ok()
});

/// Denies, with `rule`, a `perl -e`/`python -c` one-liner whose whole code ends in a fork loop
/// ([`FORK_LOOPS`]).
pub(super) fn interpreter_fork_loops(cx: &mut Ctx<'_>, rule: &DenyRule) {
    let Some(re) = FORK_LOOPS.as_ref() else {
        return;
    };
    let script = cx.script;
    for (i, s) in script.segments.iter().enumerate() {
        let texts: Vec<Option<&str>> = s.words.iter().map(|w| w.static_text()).collect();
        let Some(Some(program)) = texts.first() else {
            continue;
        };
        let program = super::program_name(program);
        let option = if program == "perl" {
            "-e"
        } else if program.starts_with("python") {
            "-c"
        } else {
            continue;
        };
        let Some(k) = texts.iter().position(|t| *t == Some(option)) else {
            continue;
        };
        if let Some(Some(code)) = texts.get(k + 1)
            && re.is_match(code.trim_end())
        {
            cx.deny(rule, s.span, Some(i));
        }
    }
}
