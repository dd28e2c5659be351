//! integrations/hook/codex: Codex's `PreToolUse` hook format. It only formats answers.
//!
//! Verified (search, 2026-11-30) against `openai/codex`:
//! `codex-rs/hooks/schema/generated/pre-tool-use.command.{input,output}.schema.json`,
//! `codex-rs/hooks/src/engine/output_parser.rs` and `codex-rs/hooks/src/events/pre_tool_use.rs`,
//! and <https://developers.openai.com/codex/hooks>:
//! - input on stdin: `session_id`, `turn_id`, `transcript_path`, `cwd`,
//!   `hook_event_name: "PreToolUse"`, `model`, `permission_mode`, `tool_name` (`"Bash"` for
//!   shell commands), `tool_input.command`, `tool_use_id`;
//! - output, exit 0: `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!   "permissionDecision": "deny", "permissionDecisionReason": "…"}}` blocks (the reason must
//!   not be empty); `permissionDecision: "ask"` and a bare `"allow"` are rejected as
//!   unsupported and the tool runs — so an `ask` is answered `deny`, and an allow prints
//!   nothing (or only a `systemMessage` warning);
//! - exit 2 with a reason on stderr blocks; any other status is a failed hook and the tool
//!   runs.
//!
//! Other tools (`apply_patch`, MCP tools) pass through with no output.

use serde_json::json;

use super::{Answer, Rendered};
use crate::Verdict;

pub(super) fn render(answer: &Answer) -> Rendered {
    let stdout = match answer {
        Answer::PassThrough => String::new(),
        // Only Claude Code's hook defers; were another agent's answer deferred, it blocks.
        Answer::Deferred { reason } => format!(
            "{}\n",
            json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            })
        ),
        Answer::Decided {
            verdict,
            reason,
            warning,
        } => match verdict {
            Verdict::Allow => match warning {
                Some(w) => format!("{}\n", json!({"systemMessage": w})),
                None => String::new(),
            },
            // Codex cannot ask: anything but allow blocks.
            Verdict::Ask | Verdict::Deny => format!(
                "{}\n",
                json!({
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": reason,
                    }
                })
            ),
        },
    };
    Rendered { stdout, code: 0 }
}
