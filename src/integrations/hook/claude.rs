//! integrations/hook/claude: Claude Code's `PreToolUse` hook format. It only formats answers.
//!
//! Verified (search, 2026-11-30) against Claude Code's hooks reference
//! (<https://code.claude.com/docs/en/hooks>, PreToolUse decision control) and its own example
//! hook `examples/hooks/bash_command_validator_example.py` in `anthropics/claude-code`:
//! - input on stdin: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
//!   `hook_event_name: "PreToolUse"`, `tool_name` (`"Bash"`), `tool_input.command`,
//!   `tool_use_id`;
//! - output, exit 0: `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!   "permissionDecision": "allow" | "ask" | "deny", "permissionDecisionReason": "…"}}`; the
//!   reason is shown in the prompt for `ask` and to Claude for `deny`; a top-level
//!   `systemMessage` is a warning shown to the user;
//! - exit 2 blocks the call with stderr as the reason; any other non-zero status, a crash or a
//!   timeout is a non-blocking error and the call proceeds — hence the fail-closed answers.
//!
//! Other tools pass through: exit 0 with no output, so Claude Code's own permissions decide
//! (<https://code.claude.com/docs/en/agent-sdk/permissions>, "How permissions are evaluated":
//! a hook may decide or pass the call on to the deny, ask and allow rules and the mode). A
//! command only an imported Claude Code allow rule covers gets the same no-answer
//! (`Answer::Deferred`). `permissionDecision: "defer"` is not used: it works only in
//! non-interactive runs.

use serde_json::json;

use super::{Answer, Rendered};

pub(super) fn render(answer: &Answer) -> Rendered {
    match answer {
        // No output: Claude Code's own permissions decide (its hooks reference and the Agent
        // SDK's "how permissions are evaluated": a hook that gives no decision passes the call
        // on to the deny, ask and allow rules and the permission mode).
        Answer::PassThrough | Answer::Deferred { .. } => Rendered {
            stdout: String::new(),
            code: 0,
        },
        Answer::Decided {
            verdict,
            reason,
            warning,
        } => {
            let mut v = json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": verdict.as_str(),
                    "permissionDecisionReason": reason,
                }
            });
            if let Some(w) = warning {
                v["systemMessage"] = json!(w);
            }
            Rendered {
                stdout: format!("{v}\n"),
                code: 0,
            }
        }
    }
}
