//! tool/toolbox.rs: the registry — which tools exist, which the model sees (capabilities,
//! disabled patterns, deferred activation) and how a call is validated, run, cached and turned
//! into a result. It never parses or judges shell commands.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use serde::Serialize;
use serde_json::{Value, json};

use crate::tool::context::{AgentHandle, CacheKey, ToolCallContext};
use crate::tool::def::{Adapter, Handler, Tool};
use crate::tool::error::{CallError, ErrorInfo, RegistryError};
use crate::tool::exec::{PanicOutput, block_on, catch_panic};
use crate::tool::fnmatch::fnmatch;
use crate::tool::groups::ToolGroups;
use crate::tool::search::{DEFAULT_LIMIT, score};
use crate::tool::subagent::{
    AGENT_RUN, AGENT_RUN_PARALLEL, ProviderGetter, SubagentProvider, subagent_tools,
};
use crate::tool::validate::{Arguments, validate};

/// The name of the built-in tool that finds and activates deferred tools.
pub const TOOL_SEARCH: &str = "tool_search";

/// The tools an agent may call: register them, choose which the model sees, list their
/// definitions and call them.
///
/// Cloning a `ToolBox` copies the table of tools, the disabled patterns and the activated
/// deferred tools, so each copy can be enabled, disabled or extended on its own; the tool objects
/// themselves are shared (`Arc`), not deep-copied.
///
/// ```
/// use cmdguard::tool::{AgentHandle, Arguments, CallError, Tool, ToolBox};
/// use serde_json::json;
///
/// let greet: Tool = Tool::builder("greet")
///     .description("Greets someone.")
///     .param::<String>("who", "Whom to greet.")
///     .handler(|mut args: Arguments, _ctx| Ok::<_, CallError>(format!("hello, {}", args.take::<String>("who")?)));
/// let mut toolbox = ToolBox::new();
/// toolbox.register([greet]).unwrap();
///
/// let agent = AgentHandle::new("demo");
/// let reply = toolbox.call_tool_blocking(&agent, "greet", json!({"who": "ada"}), ());
/// assert_eq!(reply, Ok(json!("hello, ada")));
///
/// toolbox.disable(&["gr*"]);
/// assert!(toolbox.list_tools(&[]).is_empty());
/// let refused = toolbox.call_tool_blocking(&agent, "greet", json!({"who": "ada"}), ());
/// assert_eq!(refused.unwrap_err().to_string(), "tool 'greet' is disabled");
/// ```
pub struct ToolBox<C = ()> {
    tools: Vec<Arc<Tool<C>>>,
    index: HashMap<String, usize>,
    /// Enable/disable patterns; the most recent one matching a name decides.
    toggles: Toggles,
    /// Deferred tools that `tool_search` activated. Behind a lock because activation happens
    /// during a call, which only has `&self`.
    activated: RwLock<BTreeSet<String>>,
    panic_output: PanicOutput,
}

/// A deferred tool that matched a [`ToolBox::tool_search`] query and was activated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    /// The tool's name.
    pub name: String,
    /// The tool's description.
    pub description: String,
    /// How well it matched; higher is better.
    pub score: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Toggle {
    Enable,
    Disable,
}

/// The enable/disable patterns, indexed: each distinct pattern once with the sequence number of
/// its latest use. Patterns without wildcards are found by one hash lookup; the wildcard ones are
/// kept newest first, so a lookup stops at the first that matches.
#[derive(Clone, Debug, Default)]
struct Toggles {
    patterns: HashMap<String, (u64, Toggle)>,
    next: u64,
    /// The wildcard patterns, newest first; rebuilt on the first lookup after a change.
    wildcards: OnceLock<Vec<(String, u64, Toggle)>>,
}

impl<C> ToolBox<C> {
    /// An empty toolbox. `C` is the caller's context value type that tools receive through
    /// `ToolCallContext<C>`; it is usually inferred from the tools registered, and `()` for
    /// tools without a context.
    pub fn new() -> Self {
        ToolBox::default()
    }

    /// Whether a tool panic is reported through the process's panic hook as well as returned
    /// as an error. [`PanicOutput::Captured`] (the default) keeps stderr quiet: the panic
    /// message only comes back in [`CallError::Failed`].
    pub fn panic_output(mut self, output: PanicOutput) -> Self {
        self.panic_output = output;
        self
    }
}

impl<C: Send + Sync + 'static> ToolBox<C> {
    /// Registers tools. A name that is already registered is an error
    /// (`conflict tool name: X`) unless one side has `override`: a new tool with `override`
    /// replaces the old one in place; an old tool with `override` stays and the new one is
    /// dropped. Nothing is registered when any tool fails.
    ///
    /// Registering a deferred tool also registers the built-in `tool_search` tool.
    pub fn register(
        &mut self,
        tools: impl IntoIterator<Item = Tool<C>>,
    ) -> Result<(), RegistryError> {
        let mut staged_tools = self.tools.clone();
        let mut staged_index = self.index.clone();
        for tool in tools {
            if let Some(reason) = tool.problems().first() {
                return Err(RegistryError::InvalidTool {
                    name: tool.name().to_owned(),
                    reason: reason.clone(),
                });
            }
            let needs_search = tool.attrs().deferred;
            insert(&mut staged_tools, &mut staged_index, Arc::new(tool))?;
            let has_builtin_search = staged_index
                .get(TOOL_SEARCH)
                .is_some_and(|&at| matches!(staged_tools[at].handler(), Handler::Search));
            if needs_search && !has_builtin_search {
                insert(
                    &mut staged_tools,
                    &mut staged_index,
                    Arc::new(Tool::search_tool()),
                )?;
            }
        }
        self.tools = staged_tools;
        self.index = staged_index;
        Ok(())
    }

    /// Registers one tool, e.g. the one a `#[tool]` function makes: `toolbox.tool(add_tool())`.
    pub fn tool(&mut self, tool: Tool<C>) -> Result<&mut Self, RegistryError> {
        self.register([tool])?;
        Ok(self)
    }

    /// Registers the named built-in groups (see [`ToolGroups::builtin`] for which exist);
    /// an unknown name is [`RegistryError::UnknownGroup`] and registers nothing.
    ///
    /// ```
    /// use cmdguard::tool::ToolBox;
    ///
    /// let toolbox = ToolBox::<()>::new().with_defaults(&["fs"]).unwrap();
    /// assert!(toolbox.get("read_file").is_some());
    /// assert!(toolbox.get("datetime").is_none());
    /// ```
    pub fn with_defaults(self, groups: &[&str]) -> Result<Self, RegistryError> {
        self.with_groups(&ToolGroups::builtin(), groups)
    }

    /// Registers every built-in group (see [`ToolGroups::builtin`]).
    pub fn with_all_defaults(self) -> Result<Self, RegistryError> {
        self.with_all_groups(&ToolGroups::builtin())
    }

    /// Registers the named groups of `registry`.
    pub fn with_groups(
        mut self,
        registry: &ToolGroups<C>,
        groups: &[&str],
    ) -> Result<Self, RegistryError> {
        self.register(registry.build(groups)?)?;
        Ok(self)
    }

    /// Registers every group of `registry`.
    pub fn with_all_groups(mut self, registry: &ToolGroups<C>) -> Result<Self, RegistryError> {
        self.register(registry.build_all())?;
        Ok(self)
    }

    /// Registers `agent_run` and `agent_run_parallel`, which run sub-agents through the provider
    /// that `getter` returns at call time.
    pub fn with_subagent_provider(
        mut self,
        getter: impl Fn() -> Arc<dyn SubagentProvider<C>> + Send + Sync + 'static,
    ) -> Result<Self, RegistryError> {
        let getter: ProviderGetter<C> = Arc::new(getter);
        self.register(subagent_tools(getter))?;
        Ok(self)
    }

    /// Hides the sub-agent tools (they stay registered).
    pub fn disable_subagent(&mut self) {
        self.disable(&[AGENT_RUN, AGENT_RUN_PARALLEL]);
    }

    /// Shows the sub-agent tools again.
    pub fn enable_subagent(&mut self) {
        self.enable(&[AGENT_RUN, AGENT_RUN_PARALLEL]);
    }

    /// Disables the tools whose names match any of the fnmatch `patterns` (`browser_*`), also
    /// ones registered later. Disabled tools are hidden from listings and refuse calls; they are
    /// not deleted.
    pub fn disable(&mut self, patterns: &[&str]) {
        self.toggle(patterns, Toggle::Disable);
    }

    /// Enables tools matching `patterns` again; the most recent matching pattern wins, so
    /// `disable(&["browser_*"])` then `enable(&["browser_click"])` leaves only that one on.
    pub fn enable(&mut self, patterns: &[&str]) {
        self.toggle(patterns, Toggle::Enable);
    }

    /// Whether the tool `name` is disabled.
    pub fn is_disabled(&self, name: &str) -> bool {
        self.toggles.decision(name) == Some(Toggle::Disable)
    }

    /// The registered tool `name`, whether or not it is disabled.
    pub fn get(&self, name: &str) -> Option<&Arc<Tool<C>>> {
        self.index.get(name).map(|&at| &self.tools[at])
    }

    /// Every registered tool, in registration order, disabled ones included.
    pub fn tools(&self) -> impl Iterator<Item = &Arc<Tool<C>>> {
        self.tools.iter()
    }

    /// The tools to show a model with `model_capabilities`, in registration order: not disabled,
    /// every required capability present, and deferred ones only once activated.
    pub fn list_tools(&self, model_capabilities: &[&str]) -> Vec<&Arc<Tool<C>>> {
        let activated = self
            .activated
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        self.tools
            .iter()
            .filter(|tool| !self.is_disabled(tool.name()))
            .filter(|tool| {
                tool.attrs()
                    .required_capabilities
                    .iter()
                    .all(|needed| model_capabilities.contains(&needed.as_str()))
            })
            .filter(|tool| !tool.attrs().deferred || activated.contains(tool.name()))
            .collect()
    }

    /// [`list_tools`](ToolBox::list_tools) as the OpenAI `tools` array.
    pub fn list_tools_json(&self, model_capabilities: &[&str]) -> Value {
        self.list_tools_json_for(Adapter::OpenAi, model_capabilities)
    }

    /// [`list_tools`](ToolBox::list_tools) as the `tools` array of `adapter`; a tool with a
    /// native definition for that adapter contributes it instead of its function schema.
    pub fn list_tools_json_for(&self, adapter: Adapter, model_capabilities: &[&str]) -> Value {
        Value::Array(
            self.list_tools(model_capabilities)
                .iter()
                .map(|tool| tool.definition(adapter))
                .collect(),
        )
    }

    /// Scores the deferred, enabled tools against `query` by name and description, activates
    /// the best `limit` matches (5 when `None`) and returns them, best first. This is what the
    /// built-in `tool_search` tool does.
    pub fn tool_search(&self, query: &str, limit: Option<usize>) -> Vec<SearchHit> {
        let mut hits: Vec<SearchHit> = self
            .tools
            .iter()
            .filter(|tool| tool.attrs().deferred && !self.is_disabled(tool.name()))
            .map(|tool| SearchHit {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                score: score(query, tool.name(), tool.description()),
            })
            .filter(|hit| hit.score > 0.0)
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.name.cmp(&b.name))
        });
        hits.truncate(limit.unwrap_or(DEFAULT_LIMIT));
        let mut activated = self
            .activated
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        activated.extend(hits.iter().map(|hit| hit.name.clone()));
        hits
    }

    /// Calls the tool `name` for `agent` with the model's `arguments` (a JSON object, or a JSON
    /// string holding one) and the caller's `context` value.
    ///
    /// The tool must be registered and enabled and the agent's run not cancelled; the arguments
    /// are validated strictly (see the module docs). An idempotent tool answers from the run's
    /// cache when it was already called with equal arguments in the same run. A tool that
    /// returns an error or panics gives [`CallError::Failed`]; a cancellation propagates as
    /// [`CallError::Cancelled`].
    ///
    /// A deferred tool that `tool_search` has not activated yet can still be called: deferring
    /// only keeps its definition out of the model's context, and a model that names it anyway
    /// (say, from an earlier turn) should not be refused. Required capabilities are not checked
    /// here either; they only decide what is listed.
    pub async fn call_tool(
        &self,
        agent: &AgentHandle,
        name: &str,
        arguments: Value,
        context: C,
    ) -> Result<Value, CallError> {
        let tool = self.callable(name)?;
        if let Some(cancelled) = agent.run.cancelled() {
            return Err(CallError::Cancelled(cancelled));
        }
        let values = validate(name, tool.params(), tool.parameters(), arguments)?;
        let call = match tool.handler() {
            Handler::Call(call) => call.clone(),
            Handler::Search => return self.answer_search(name, values),
        };
        let cache_key = tool
            .attrs()
            .idempotent
            .then(|| CacheKey::new(name, &Value::Object(values.clone())));
        if let Some(key) = &cache_key
            && let Some(first) = agent.run.cached(key)
        {
            return Ok(first);
        }
        let ctx = ToolCallContext::shared(
            agent.clone(),
            name,
            Arc::new(context),
            tool.attrs().emits_progress,
        );
        let args = Arguments::from_value(name, Value::Object(values))?;
        let result = catch_panic(call(args, ctx), self.panic_output)
            .await
            .unwrap_or_else(|message| {
                Err(CallError::Failed(ErrorInfo::new(
                    format!("tool '{name}' panicked: {message}"),
                    message,
                )))
            });
        // Only successes are cached: a failure may be transient, and a retry must run the tool.
        if let (Some(key), Ok(value)) = (cache_key, &result) {
            agent.run.remember(key, value);
        }
        result
    }

    /// [`call_tool`](ToolBox::call_tool) on the current thread, for callers without an async
    /// runtime. Async tools that need a specific runtime (tokio's timers or sockets) must be
    /// called through `call_tool` inside that runtime instead.
    pub fn call_tool_blocking(
        &self,
        agent: &AgentHandle,
        name: &str,
        arguments: Value,
        context: C,
    ) -> Result<Value, CallError> {
        block_on(self.call_tool(agent, name, arguments, context))
    }

    fn callable(&self, name: &str) -> Result<Arc<Tool<C>>, CallError> {
        let Some(tool) = self.get(name) else {
            return Err(CallError::NotRegistered {
                name: name.to_owned(),
            });
        };
        if self.is_disabled(name) {
            return Err(CallError::Disabled {
                name: name.to_owned(),
            });
        }
        Ok(tool.clone())
    }

    fn answer_search(
        &self,
        name: &str,
        values: serde_json::Map<String, Value>,
    ) -> Result<Value, CallError> {
        let mut args = Arguments::from_value(name, Value::Object(values))?;
        let query: String = args.take("query")?;
        let limit: Option<u32> = args.take("limit")?;
        let limit = limit.map(|limit| usize::try_from(limit).unwrap_or(usize::MAX));
        let hits = self.tool_search(&query, limit);
        let tools: Vec<Value> = hits
            .iter()
            .map(|hit| json!({ "name": hit.name, "description": hit.description }))
            .collect();
        let unloaded = self.unloaded_count();
        let note = match (hits.is_empty(), unloaded) {
            (_, 0) => "every deferred tool is loaded now; no other tools can be found".to_owned(),
            (true, _) => {
                format!("no tool matched; {unloaded} more tools are not loaded, try other keywords")
            }
            (false, _) => format!(
                "the activated tools can be called from the next turn on; {unloaded} more tools \
                 are not loaded, search again with other keywords to find them"
            ),
        };
        Ok(json!({ "activated": tools, "unloaded": unloaded, "note": note }))
    }

    /// How many enabled deferred tools `tool_search` has not activated yet.
    fn unloaded_count(&self) -> usize {
        let activated = self
            .activated
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        self.tools
            .iter()
            .filter(|tool| tool.attrs().deferred && !activated.contains(tool.name()))
            .filter(|tool| !self.is_disabled(tool.name()))
            .count()
    }

    fn toggle(&mut self, patterns: &[&str], toggle: Toggle) {
        for pattern in patterns {
            self.toggles.set(pattern, toggle);
        }
    }
}

impl Toggles {
    /// Records `pattern` as the newest decision; a repeated pattern replaces its older use.
    fn set(&mut self, pattern: &str, toggle: Toggle) {
        self.next += 1;
        self.patterns
            .insert(pattern.to_owned(), (self.next, toggle));
        self.wildcards = OnceLock::new();
    }

    /// The newest decision among the patterns that match `name`, if any matches.
    fn decision(&self, name: &str) -> Option<Toggle> {
        // A name with wildcard characters is matched by the wildcard patterns only.
        let exact = self
            .patterns
            .get(name)
            .filter(|_| !is_wildcard(name))
            .copied();
        let wildcards = self.wildcards.get_or_init(|| {
            let mut wildcards: Vec<(String, u64, Toggle)> = self
                .patterns
                .iter()
                .filter(|(pattern, _)| is_wildcard(pattern))
                .map(|(pattern, &(seq, toggle))| (pattern.clone(), seq, toggle))
                .collect();
            wildcards.sort_unstable_by_key(|&(_, seq, _)| std::cmp::Reverse(seq));
            wildcards
        });
        // Only wildcard patterns newer than the exact match can overrule it.
        let newer_than = exact.map_or(0, |(seq, _)| seq);
        let wildcard = wildcards
            .iter()
            .take_while(|(_, seq, _)| *seq > newer_than)
            .find(|(pattern, _, _)| fnmatch(pattern, name))
            .map(|&(_, seq, toggle)| (seq, toggle));
        wildcard.or(exact).map(|(_, toggle)| toggle)
    }
}

/// Whether a pattern can match anything but itself.
fn is_wildcard(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Adds `tool` to a table under the override rules of [`ToolBox::register`].
fn insert<C>(
    tools: &mut Vec<Arc<Tool<C>>>,
    index: &mut HashMap<String, usize>,
    tool: Arc<Tool<C>>,
) -> Result<(), RegistryError> {
    match index.get(tool.name()) {
        None => {
            index.insert(tool.name().to_owned(), tools.len());
            tools.push(tool);
            Ok(())
        }
        Some(&at) if tool.attrs().override_existing => {
            tools[at] = tool;
            Ok(())
        }
        Some(&at) if tools[at].attrs().override_existing => Ok(()),
        Some(_) => Err(RegistryError::Conflict {
            name: tool.name().to_owned(),
        }),
    }
}

impl<C> Default for ToolBox<C> {
    fn default() -> Self {
        ToolBox {
            tools: Vec::new(),
            index: HashMap::new(),
            toggles: Toggles::default(),
            activated: RwLock::new(BTreeSet::new()),
            panic_output: PanicOutput::default(),
        }
    }
}

// Hand-written: the lock is not `Clone`, and `C` need not be.
impl<C> Clone for ToolBox<C> {
    fn clone(&self) -> Self {
        let activated = self
            .activated
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        ToolBox {
            tools: self.tools.clone(),
            index: self.index.clone(),
            toggles: self.toggles.clone(),
            activated: RwLock::new(activated),
            panic_output: self.panic_output,
        }
    }
}

impl<C> fmt::Debug for ToolBox<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(|tool| tool.name()).collect();
        f.debug_struct("ToolBox")
            .field("tools", &names)
            .field("toggles", &self.toggles.patterns)
            .finish_non_exhaustive()
    }
}
