//! tool: the tool registry layer (functions → LLM tools). It sits above the analyser and the core
//! never imports it.
//!
//! (Module tutorial: see below.)

mod context;
mod def;
mod error;
mod exec;
mod fnmatch;
mod groups;
mod schema;
mod search;
mod subagent;
mod toolbox;
mod validate;

pub use cmdguard_macros::tool;
pub use context::{AgentHandle, ProgressEvent, ProgressSink, Run, ToolCallContext};
#[doc(hidden)]
pub use def::__private;
pub use def::{Adapter, Tool, ToolAttrs, ToolBuilder};
pub use error::{CallError, Cancelled, ErrorInfo, RegistryError};
pub use exec::BoxFuture;
pub use groups::{GroupFactory, ToolGroups};
pub use schema::Param;
pub use subagent::{AGENT_RUN, AGENT_RUN_PARALLEL, ProviderGetter, SubagentProvider, SubagentTask};
pub use toolbox::{SearchHit, TOOL_SEARCH, ToolBox};
pub use validate::Arguments;
