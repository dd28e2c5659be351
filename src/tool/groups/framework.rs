//! tool/groups/framework.rs: the `framework` group — tools that reach the runtime rather than
//! the machine: `ask_preference` puts a question to the user (always the user: never
//! auto-confirmed, never answered by default), and `extract_compacted_tool_result` returns the
//! original of a tool result the runtime compacted. The runtime supplies both through traits
//! given to the agent ([`AgentHandle::with_user`](crate::tool::AgentHandle::with_user),
//! [`AgentHandle::with_compacted_results`](crate::tool::AgentHandle::with_compacted_results)).

use serde::Serialize;
use serde_json::Value;

use crate::tool::{Tool, ToolCallContext, tool};

/// The tools of the group.
pub fn tools() -> Vec<Tool> {
    vec![ask_preference_tool(), extract_compacted_tool_result_tool()]
}

type Ctx = ToolCallContext<()>;

/// A question for the user, as `ask_preference` hands it to the runtime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreferenceRequest {
    /// A short title, when the model gave one.
    pub title: Option<String>,
    /// The question.
    pub question: String,
    /// The answers offered.
    pub choices: Vec<String>,
    /// Whether the user may answer something else.
    pub allow_extra: bool,
    /// The answer to preselect, one of `choices`.
    pub default_choice: Option<String>,
}

/// How the runtime reaches its user. Implement it with a terminal prompt, a chat message, a GUI
/// dialog. `Err` when nobody answered (closed, timed out): the tool fails; it never guesses.
pub trait UserChannel: Send + Sync {
    /// Shows `request` and returns the user's answer.
    fn ask_preference(&self, request: &PreferenceRequest) -> Result<String, String>;
}

/// Where the runtime keeps the originals of tool results it compacted.
pub trait CompactedResults: Send + Sync {
    /// The original result of the tool call `toolcall_id`, when it was compacted.
    fn original(&self, toolcall_id: &str) -> Option<Value>;
}

/// Asks the user a question and returns the answer: one of `choices`, or (with `allow_extra`)
/// the user's own words. Use it when a decision is the user's to make. The user always
/// answers; nothing is assumed.
#[tool]
fn ask_preference(
    /// The question.
    question: &str,
    /// The answers to offer.
    choices: Vec<String>,
    /// Let the user answer something not in `choices`.
    #[tool(default = false)]
    allow_extra: bool,
    /// The answer to preselect; one of `choices`.
    default_choice: Option<String>,
    /// A short title for the question.
    title: Option<String>,
    #[tool(context)] ctx: &Ctx,
) -> Result<String, String> {
    let channel = ctx.agent().user().ok_or_else(|| {
        "no way to reach the user: the runtime gives the agent one with AgentHandle::with_user"
            .to_owned()
    })?;
    if question.trim().is_empty() {
        return Err("the question is empty".to_owned());
    }
    if choices.is_empty() && !allow_extra {
        return Err("give at least one choice, or allow_extra".to_owned());
    }
    if let Some(d) = &default_choice
        && !choices.contains(d)
    {
        return Err(format!("default_choice {d:?} is not one of the choices"));
    }
    let request = PreferenceRequest {
        title,
        question: question.to_owned(),
        choices,
        allow_extra,
        default_choice,
    };
    let answer = channel.ask_preference(&request)?;
    if !request.allow_extra && !request.choices.contains(&answer) {
        return Err(format!(
            "the answer {answer:?} is not one of the choices (the runtime's user channel returned it)"
        ));
    }
    Ok(answer)
}

/// Returns the full original of a tool result that was shortened to save context, by the id
/// of the tool call that produced it.
#[tool]
fn extract_compacted_tool_result(
    /// The id of the tool call whose result was compacted.
    toolcall_id: &str,
    #[tool(context)] ctx: &Ctx,
) -> Result<Value, String> {
    let store = ctx.agent().compacted_results().ok_or_else(|| {
        "this runtime keeps no compacted tool results (AgentHandle::with_compacted_results)"
            .to_owned()
    })?;
    store
        .original(toolcall_id)
        .ok_or_else(|| format!("no compacted result for tool call {toolcall_id:?}"))
}
