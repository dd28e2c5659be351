//! tool/subagent.rs: the `agent_run` and `agent_run_parallel` tools, which hand a task to a
//! sub-agent through a [`SubagentProvider`]. It never runs a model itself; the provider does.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::tool::context::ToolCallContext;
use crate::tool::def::Tool;
use crate::tool::error::CallError;
use crate::tool::exec::{BoxFuture, join_all};
use crate::tool::validate::Arguments;

/// The name of the tool that runs one sub-agent.
pub const AGENT_RUN: &str = "agent_run";
/// The name of the tool that runs several sub-agents concurrently.
pub const AGENT_RUN_PARALLEL: &str = "agent_run_parallel";

/// Runs sub-agents for the `agent_run` tools. The runtime implements it; closures
/// `Fn(SubagentTask, ToolCallContext<C>) -> impl Future<Output = Result<Value, CallError>>`
/// implement it already.
///
/// The context is the calling tool's: its value `C` is the one the caller passed to
/// [`ToolBox::call_tool`](crate::tool::ToolBox::call_tool). Return
/// `Err(CallError::Cancelled(…))` to propagate a cancellation and `Err(CallError::Failed(…))` for
/// a sub-agent that failed.
pub trait SubagentProvider<C>: Send + Sync {
    /// Runs one sub-agent on `task` to its final answer.
    fn run_subagent(
        &self,
        task: SubagentTask,
        ctx: ToolCallContext<C>,
    ) -> BoxFuture<'static, Result<Value, CallError>>;
}

/// Returns the provider to use for a call; asked on every call, so a runtime can create its
/// provider after the tools are registered.
pub type ProviderGetter<C> = Arc<dyn Fn() -> Arc<dyn SubagentProvider<C>> + Send + Sync>;

/// One task for a sub-agent, as the model states it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubagentTask {
    /// What the sub-agent should do, stated completely: it does not see this conversation.
    pub task: String,
    /// Which kind of sub-agent to run, when the runtime offers several.
    #[serde(default)]
    pub agent: Option<String>,
}

impl<C, F, Fut> SubagentProvider<C> for F
where
    F: Fn(SubagentTask, ToolCallContext<C>) -> Fut + Send + Sync,
    Fut: Future<Output = Result<Value, CallError>> + Send + 'static,
{
    fn run_subagent(
        &self,
        task: SubagentTask,
        ctx: ToolCallContext<C>,
    ) -> BoxFuture<'static, Result<Value, CallError>> {
        Box::pin(self(task, ctx))
    }
}

/// The `agent_run` and `agent_run_parallel` tools over `getter`.
pub(crate) fn subagent_tools<C: Send + Sync + 'static>(getter: ProviderGetter<C>) -> [Tool<C>; 2] {
    let single = getter.clone();
    let run = Tool::builder(AGENT_RUN)
        .description(
            "Hand a self-contained task to a sub-agent and wait for its final answer. \
             The sub-agent does not see this conversation: state everything it needs.",
        )
        .param::<String>("task", "What the sub-agent should do, stated completely.")
        .param::<Option<String>>(
            "agent",
            "Which kind of sub-agent to run, if there are several.",
        )
        .async_handler(move |mut args: Arguments, ctx: ToolCallContext<C>| {
            let provider = single();
            async move {
                let task = SubagentTask {
                    task: args.take("task")?,
                    agent: args.take("agent")?,
                };
                provider.run_subagent(task, ctx).await
            }
        });
    let parallel = Tool::builder(AGENT_RUN_PARALLEL)
        .description(
            "Run several independent tasks on sub-agents at the same time. Returns one entry per \
             task, in order: {\"result\": …} or {\"error\": …, \"details\": …}.",
        )
        .param::<Vec<SubagentTask>>("tasks", "The tasks, each stated completely.")
        .async_handler(move |mut args: Arguments, ctx: ToolCallContext<C>| {
            let provider = getter();
            async move {
                let tasks: Vec<SubagentTask> = args.take("tasks")?;
                let runs = tasks
                    .into_iter()
                    .map(|task| provider.run_subagent(task, ctx.clone()))
                    .collect();
                let mut entries = Vec::new();
                for outcome in join_all(runs).await {
                    entries.push(match outcome {
                        Ok(result) => json!({ "result": result }),
                        // One cancelled sub-agent cancels the whole call: cancellation propagates.
                        Err(CallError::Cancelled(cancelled)) => {
                            return Err(CallError::Cancelled(cancelled));
                        }
                        Err(other) => match other.error_info() {
                            Some(info) => json!(info),
                            None => json!({ "error": other.to_string(), "details": "" }),
                        },
                    });
                }
                Ok::<_, CallError>(Value::Array(entries))
            }
        });
    [run, parallel]
}
