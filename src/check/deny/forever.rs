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
        let leaves = body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| {
            matches!(w, "break" | "exit" | "return" | "wait")
        });
        if !leaves {
            cx.deny(rule, s.span, Some(i));
        }
    }
}
