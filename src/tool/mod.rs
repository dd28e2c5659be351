//! tool: the tool registry layer — ordinary Rust functions become tools an LLM can call: a
//! name, a description and a JSON Schema for the parameters, then strict validation of the
//! model's arguments and a call whose result is always a value or an [`ErrorInfo`]. It sits
//! above the analyser; the core never imports it.
//!
//! # Functions as tools
//!
//! [`#[tool]`](macro@tool) keeps the function and generates `<name>_tool()` next to it. The doc
//! comment is the description, each parameter a property (its doc comment the property's
//! description), and the parameter types decide the schema through [`schemars`]:
//!
//! ```
//! use cmdguard::tool::{AgentHandle, ToolBox, tool};
//! use serde_json::json;
//!
//! /// Repeats a word.
//! #[tool]
//! fn repeat(
//!     /// The word to repeat.
//!     word: String,
//!     /// How many times; 2 unless given.
//!     #[tool(default = 2)]
//!     times: usize,
//!     /// Put between the copies.
//!     separator: Option<String>,
//! ) -> String {
//!     vec![word; times].join(separator.as_deref().unwrap_or(" "))
//! }
//!
//! let mut toolbox = ToolBox::new();
//! toolbox.register([repeat_tool()]).unwrap();
//! assert_eq!(
//!     toolbox.list_tools_json(&[]),
//!     json!([{"type": "function", "function": {
//!         "name": "repeat",
//!         "description": "Repeats a word.",
//!         "parameters": {
//!             "type": "object",
//!             "properties": {
//!                 "word": {"type": "string", "description": "The word to repeat."},
//!                 "times": {"type": "integer", "format": "uint", "minimum": 0, "default": 2,
//!                           "description": "How many times; 2 unless given."},
//!                 "separator": {"type": ["string", "null"], "description": "Put between the copies."},
//!             },
//!             "required": ["word"],
//!             "additionalProperties": false,
//!         },
//!     }}])
//! );
//!
//! let agent = AgentHandle::new("demo");
//! let said = toolbox.call_tool_blocking(&agent, "repeat", json!({"word": "hey"}), ());
//! assert_eq!(said, Ok(json!("hey hey")));
//! ```
//!
//! The rules: a parameter without a default is required; `Option<T>` is nullable and not
//! required; `#[tool(default = expr)]`, `#[tool(default)]`, `#[default]` or `#[default = expr]`
//! make it optional with a `default` in the schema; unit enums become `enum`, `Vec<T>` an
//! array, structs their own `JsonSchema`; `additionalProperties` is always `false`; properties
//! keep the order of the parameters. A parameter of type `ToolCallContext<T>` (or
//! `&ToolCallContext<T>`) is left out of the schema and receives the caller's context; when its
//! type is an alias (`type Ctx = ToolCallContext<Session>`), mark it `#[tool(context)]`, since
//! the macro only sees the name. Function attributes: `name = "…"`, `required_capabilities =
//! […]`, `labels = […]`, `override`, `idempotent`, `deferred`, `emits_progress`,
//! `output_schema` (the schema of the returned value, or of its `Ok` type) and
//! `native(openai = expr)` / `native(anthropic = expr)`.
//!
//! What newcomers write works as written:
//!
//! ```
//! use cmdguard::tool::{AgentHandle, ToolBox, ToolCallContext, tool};
//! use serde_json::json;
//!
//! struct Session { user: String }
//! type Ctx = ToolCallContext<Session>;
//! type Outcome = Result<String, String>;
//!
//! /// Searches the user's notes.
//! #[tool]
//! fn query(
//!     query: &str,                                     // named like the function; borrowed
//!     #[tool(default = vec!["notes"])] scopes: Vec<String>, // literal defaults
//!     #[tool(context)] ctx: &Ctx,                      // a context through an alias
//! ) -> Outcome {                                       // a Result through an alias
//!     if query.is_empty() {
//!         return Err("say what to look for".to_owned());
//!     }
//!     Ok(format!("{} searched {scopes:?} for {query}", ctx.value().user))
//! }
//!
//! /// The time (pretend).
//! #[tool]
//! fn now() -> &'static str {
//!     "12:00"
//! }
//!
//! let clock = now_tool(); // a `Tool<()>`: no context, nothing to annotate
//! let mut toolbox = ToolBox::new();
//! toolbox.register([query_tool(), clock.into_context()]).unwrap();
//! let session = || Session { user: "ada".into() };
//! let agent = AgentHandle::new("demo");
//! let found = toolbox.call_tool_blocking(&agent, "query", json!({"query": "rust"}), session());
//! assert_eq!(found, Ok(json!("ada searched [\"notes\"] for rust")));
//! let refused = toolbox.call_tool_blocking(&agent, "query", json!({"query": ""}), session());
//! assert_eq!(refused.unwrap_err().to_string(), "say what to look for");
//! ```
//!
//! Borrowed parameters are read as their owned form and lent: `&str` as `String`, `&[T]` as
//! `Vec<T>`, `&Path` as `PathBuf` (also inside `Option`). A borrow deeper in a type
//! (`Vec<&str>`) is a compile error that says to write `Vec<String>`. A default written as a
//! string literal, an array or `vec![…]` is converted through serde like the model's JSON
//! (`"hello"` for a `String`, `"loud"` for a lowercase unit enum); any other expression must
//! have the parameter's type. A tool without a context is a `Tool<()>`; put it in a toolbox
//! with a context through [`Tool::into_context`].
//!
//! Tool names follow the model providers' rule, `^[a-zA-Z0-9_-]{1,64}$`, checked when the tool
//! is registered, since one bad name makes a provider reject the whole `tools` array.
//!
//! Closures and runtimes that cannot use macros use [`Tool::builder`] or [`Tool::from_fn`].
//!
//! # Strict arguments
//!
//! Unknown arguments are rejected, missing required ones are named all at once, and nothing is
//! converted implicitly: `"3"` for an integer is an error naming the argument and the expected
//! type. The one exception, as in the seeds: a list parameter (also `Option<Vec<…>>`) accepts a
//! string holding a JSON array (`"[\"a\", \"b\"]"`), unless its type also accepts a plain
//! string. A comma-separated string is not split (`"Hello, world"` is text, not two items) and
//! `""` is not an empty list. Arguments may arrive as an object or a JSON string of one (an
//! empty string is `{}`). A problem inside a nested value names its path
//! (`argument 'region.height': …`). Error messages quote the model's input only up to 80 bytes
//! (`"xxxx…, 5242800 bytes more"`), since they go back into its context.
//!
//! Strictness is checked at the top level. Inside a nested struct, unknown fields are rejected
//! when the struct says so with `#[serde(deny_unknown_fields)]` (its schema then has
//! `additionalProperties: false` as well); the tool layer does not add it for you, so that the
//! schema never promises more than deserialisation enforces.
//!
//! ```
//! use cmdguard::tool::{AgentHandle, ToolBox, tool};
//! use serde_json::json;
//!
//! /// Adds numbers.
//! #[tool]
//! fn sum(numbers: Vec<i64>, offset: i64) -> i64 {
//!     numbers.iter().sum::<i64>() + offset
//! }
//!
//! let mut toolbox = ToolBox::new();
//! toolbox.register([sum_tool()]).unwrap();
//! let agent = AgentHandle::new("demo");
//! let call = |args| toolbox.call_tool_blocking(&agent, "sum", args, ());
//! assert_eq!(call(json!({"numbers": "[1, 2]", "offset": 3})), Ok(json!(6)));
//! assert_eq!(
//!     call(json!({"numbers": [1], "offset": "3", "extra": true})).unwrap_err().to_string(),
//!     "invalid arguments for tool 'sum': unknown argument(s): extra; \
//!      argument 'offset': expected integer, got string \"3\""
//! );
//! ```
//!
//! # Results, errors and cancellation
//!
//! [`ToolBox::call_tool`] (async; [`ToolBox::call_tool_blocking`] without a runtime) returns the
//! tool's value serialised to JSON. A tool that returns `Err`, panics, or returns something that
//! cannot be serialised gives [`CallError::Failed`] with an [`ErrorInfo`]; registry problems
//! (unknown, disabled, invalid arguments) have their own variants. A [`Cancelled`] — from a
//! cancelled [`Run`] or returned by the tool — propagates unchanged as [`CallError::Cancelled`],
//! and [`CallError::error_info`] refuses to turn it into something to show the model.
//!
//! # Runs
//!
//! An [`AgentHandle`] carries the [`Run`] it is in. Idempotent tools cache their first success
//! per run, keyed by name and validated arguments; a failure is not cached, so a retry runs the
//! tool again. Cancelling the run cancels every later call.
//!
//! A panic inside a tool becomes [`CallError::Failed`] and prints nothing; a runtime that wants
//! the panic hook to see it (and print a backtrace) sets
//! [`ToolBox::panic_output`]`(`[`PanicOutput::PanicHook`]`)`.

mod context;
mod def;
mod error;
mod exec;
mod fnmatch;
pub mod groups;
mod images;
mod schema;
mod search;
mod subagent;
mod toolbox;
mod validate;
mod workspace;

/// Turns a function into a [`Tool`]: the function stays as written and `fn <name>_tool()`
/// returning the tool is generated next to it, with the same visibility.
///
/// See the [module documentation](self) for the schema rules and attributes.
///
/// ```
/// use cmdguard::tool::{AgentHandle, Cancelled, Tool, ToolBox, ToolCallContext, tool};
/// use serde_json::json;
///
/// /// Looks a user up in the caller's directory.
/// #[tool(name = "lookup", idempotent, labels = ["read-only"])]
/// async fn find_user(
///     /// The user's login.
///     login: String,
///     ctx: ToolCallContext<Vec<&'static str>>,
/// ) -> Result<bool, Cancelled> {
///     ctx.check_cancelled()?;
///     Ok(ctx.value().contains(&login.as_str()))
/// }
///
/// let tool: Tool<Vec<&'static str>> = find_user_tool();
/// assert_eq!(tool.name(), "lookup");
/// assert_eq!(tool.parameters()["required"], json!(["login"]));
///
/// let mut toolbox = ToolBox::default();
/// toolbox.register([tool]).unwrap();
/// let found = toolbox.call_tool_blocking(
///     &AgentHandle::new("demo"),
///     "lookup",
///     json!({"login": "ada"}),
///     vec!["ada", "grace"],
/// );
/// assert_eq!(found, Ok(json!(true)));
/// ```
pub use cmdguard_macros::tool;
pub use context::{AgentHandle, ProgressEvent, ProgressSink, Run, ToolCallContext};
#[doc(hidden)]
pub use def::__private;
pub use def::{Adapter, MAX_NAME_LEN, Tool, ToolAttrs, ToolBuilder};
pub use error::{CallError, Cancelled, ErrorInfo, RegistryError};
pub use exec::{BoxFuture, PanicOutput};
pub use groups::{GroupFactory, ToolGroups};
pub use images::{
    Crop, DeferredImage, Fitted, ImageError, MAX_IMAGE_BYTES, MAX_SIDE, ToolImage,
    defer_tool_image, fit_image, inspect_image,
};
pub use schema::Param;
pub use subagent::{
    AGENT_RUN, AGENT_RUN_PARALLEL, MAX_PARALLEL_SUBAGENTS, MAX_SUBAGENT_DEPTH, ProviderGetter,
    SubagentProvider, SubagentTask,
};
pub use toolbox::{SearchHit, TOOL_SEARCH, ToolBox};
pub use validate::Arguments;
pub use workspace::{NewEntry, Workspace, WorkspaceError};
