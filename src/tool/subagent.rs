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
use crate::tool::exec::{BoxFuture, join_limited};
use crate::tool::validate::Arguments;

/// The name of the tool that runs one sub-agent.
pub const AGENT_RUN: &str = "agent_run";
/// The name of the tool that runs several sub-agents concurrently.
pub const AGENT_RUN_PARALLEL: &str = "agent_run_parallel";
/// How many sub-agents `agent_run_parallel` runs at once; the others wait for a free place.
pub const MAX_PARALLEL_SUBAGENTS: usize = 4;
/// How deep sub-agents may nest: an agent at this [depth](crate::tool::AgentHandle::depth) is
/// refused `agent_run` and `agent_run_parallel`.
pub const MAX_SUBAGENT_DEPTH: usize = 3;

/// Runs sub-agents for the `agent_run` tools. The runtime implements it; closures
/// `Fn(SubagentTask, ToolCallContext<C>) -> impl Future<Output = Result<Value, CallError>>`
/// implement it already.
///
/// The context is the calling tool's, one level deeper: its value `C` is the one the caller
/// passed to [`ToolBox::call_tool`](crate::tool::ToolBox::call_tool), and its agent's
/// [`depth`](crate::tool::AgentHandle::depth) is the caller's plus one. Make the sub-agent's
/// own tool calls with that `ctx.agent()` (or a clone of it): sub-agents then nest at most
/// [`MAX_SUBAGENT_DEPTH`] deep. Return
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
    /// Which sub-agent to run (its name or role), when the runtime offers several. `agent` is
    /// accepted for it too.
    #[serde(default, alias = "agent")]
    pub name: Option<String>,
}

/// One entry of `agent_run_parallel`'s `tasks`: the task as plain text (xun's shape) or as an
/// object with its own sub-agent name.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum TaskEntry {
    /// The task alone.
    Text(String),
    /// The task with the sub-agent to run it.
    Task(SubagentTask),
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

/// The `agent_run` and `agent_run_parallel` tools over `getter`, with the seeds' signatures:
/// `agent_run(task, name)` and `agent_run_parallel(tasks, names)`.
pub(crate) fn subagent_tools<C: Send + Sync + 'static>(getter: ProviderGetter<C>) -> [Tool<C>; 2] {
    let single = getter.clone();
    let run = Tool::builder(AGENT_RUN)
        .description(
            "Hand a self-contained task to a sub-agent and wait for its final answer. \
             The sub-agent does not see this conversation: state everything it needs.",
        )
        .param::<String>("task", "What the sub-agent should do, stated completely.")
        .param::<Option<String>>(
            "name",
            "Which sub-agent to run (its name or role), if there are several.",
        )
        .async_handler(move |mut args: Arguments, ctx: ToolCallContext<C>| {
            let provider = single();
            async move {
                let task = SubagentTask {
                    task: args.take("task")?,
                    name: args.take("name")?,
                };
                too_deep(&ctx)?;
                provider.run_subagent(task, ctx.deeper()).await
            }
        });
    let parallel = Tool::builder(AGENT_RUN_PARALLEL)
        .description(format!(
            "Run several independent tasks on sub-agents, at most {MAX_PARALLEL_SUBAGENTS} at a \
             time. Returns one entry per task, in order: {{\"result\": …}} or \
             {{\"error\": …, \"details\": …}}."
        ))
        .param::<Vec<TaskEntry>>(
            "tasks",
            "The tasks, each stated completely: a text, or {\"task\": …, \"name\": …}.",
        )
        .param::<Option<Vec<String>>>(
            "names",
            "Which sub-agent runs each task, in the same order as the tasks.",
        )
        .async_handler(move |mut args: Arguments, ctx: ToolCallContext<C>| {
            let provider = getter();
            async move {
                let tasks = paired(args.take("tasks")?, args.take("names")?)?;
                too_deep(&ctx)?;
                let deeper = ctx.deeper();
                let runs = tasks
                    .into_iter()
                    .map(|task| provider.run_subagent(task, deeper.clone()))
                    .collect();
                let mut entries = Vec::new();
                for outcome in join_limited(runs, MAX_PARALLEL_SUBAGENTS).await {
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

/// Refuses a sub-agent to an agent already at [`MAX_SUBAGENT_DEPTH`].
fn too_deep<C>(ctx: &ToolCallContext<C>) -> Result<(), CallError> {
    if ctx.agent().depth() >= MAX_SUBAGENT_DEPTH {
        return Err(CallError::Failed(crate::tool::ErrorInfo::new(
            format!(
                "sub-agents nest at most {MAX_SUBAGENT_DEPTH} deep and this agent is at depth {}: do the task yourself",
                ctx.agent().depth()
            ),
            "agent_run depth limit",
        )));
    }
    Ok(())
}

/// The tasks with their sub-agent names: from `names` by position, or from the task object. A
/// task named both ways, or a `names` list of another length, is refused.
fn paired(
    entries: Vec<TaskEntry>,
    names: Option<Vec<String>>,
) -> Result<Vec<SubagentTask>, CallError> {
    let mut tasks: Vec<SubagentTask> = entries
        .into_iter()
        .map(|entry| match entry {
            TaskEntry::Text(task) => SubagentTask { task, name: None },
            TaskEntry::Task(task) => task,
        })
        .collect();
    let Some(names) = names else {
        return Ok(tasks);
    };
    let problem = |text: String| CallError::InvalidArguments {
        tool: AGENT_RUN_PARALLEL.to_owned(),
        problems: vec![text],
    };
    if names.len() != tasks.len() {
        return Err(problem(format!(
            "argument 'names': {} names for {} tasks; give one name per task",
            names.len(),
            tasks.len()
        )));
    }
    for (at, (task, name)) in tasks.iter_mut().zip(names).enumerate() {
        if task.name.is_some() {
            return Err(problem(format!(
                "argument 'tasks[{at}]': the task names its sub-agent and so does 'names'; \
                 give it once"
            )));
        }
        task.name = Some(name);
    }
    Ok(tasks)
}
