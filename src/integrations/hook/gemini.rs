//! integrations/hook/gemini: Gemini CLI's `BeforeTool` hook format. It only formats answers.
//!
//! Verified (search, 2026-11-30) against `docs/hooks/reference.md` and
//! `packages/core/src/hooks/{types,hookAggregator}.ts` of `google-gemini/gemini-cli`, and the
//! shell tool's parameters in `packages/core/src/tools/shell.ts`:
//! - input on stdin: `session_id`, `transcript_path`, `cwd`, `hook_event_name: "BeforeTool"`,
//!   `timestamp`, `tool_name` (`"run_shell_command"`), `tool_input.command` and
//!   `tool_input.dir_path` (the directory, resolved against the project directory);
//! - output, exit 0: `{"decision": "deny", "reason": "…"}` blocks the tool and sends the
//!   reason to the agent; `systemMessage` is shown to the user; only `deny`/`block` block —
//!   `ask` is not a blocking decision, so an `ask` is answered `deny` here;
//! - exit 2 blocks with stderr as the reason; other statuses are warnings and the tool runs.
//!
//! Not verified: whether `{"decision": "allow"}` skips Gemini CLI's own confirmation (its
//! aggregator sets `allow` whenever no hook blocks), so cmdguard relies on this hook only to
//! block. Other tools pass through with `{}`.

use serde_json::json;

use super::{Answer, Rendered};
use crate::Verdict;

pub(super) fn render(answer: &Answer) -> Rendered {
    let v = match answer {
        Answer::PassThrough => json!({}),
        // Only Claude Code's hook defers; were another agent's answer deferred, it blocks.
        Answer::Deferred { reason } => json!({"decision": "deny", "reason": reason}),
        Answer::Decided {
            verdict,
            reason,
            warning,
        } => match verdict {
            Verdict::Allow => {
                let mut v = json!({"decision": "allow"});
                if let Some(w) = warning {
                    v["systemMessage"] = json!(w);
                }
                v
            }
            // Gemini CLI cannot ask: anything but allow blocks.
            Verdict::Ask | Verdict::Deny => json!({
                "decision": "deny",
                "reason": reason,
                "systemMessage": reason,
            }),
        },
    };
    Rendered {
        stdout: format!("{v}\n"),
        code: 0,
    }
}
