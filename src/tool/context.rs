//! tool/context.rs: what a tool call knows about its caller — the [`Run`] it belongs to, the
//! calling [`AgentHandle`] and the caller's own value, bundled as [`ToolCallContext`]. It never
//! validates arguments or runs tools.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde_json::Value;

use crate::tool::error::Cancelled;
use crate::tool::groups::browser::{BrowserConfig, BrowserSession};
use crate::tool::groups::framework::{CompactedResults, UserChannel};
use crate::tool::groups::search::SearchBackend;
use crate::tool::images::DeferredImage;
use crate::tool::workspace::Workspace;

/// One run of an agent: the scope of idempotent caching and of cancellation.
///
/// A run is what one agent does for one task, from the first model turn to the final answer. It
/// is a cheap handle (cloning shares the same run). Within a run, a tool registered as
/// `idempotent` runs until it succeeds once per distinct argument object; later calls with equal
/// arguments return that first success. Failures are not cached, so a retry after a transient
/// error runs the tool again. Starting a new run (a new `Run`) starts with an empty cache.
/// Cancelling a run makes every later call in it fail with [`CallError::Cancelled`].
///
/// [`CallError::Cancelled`]: crate::tool::CallError::Cancelled
///
/// ```
/// use cmdguard::tool::Run;
///
/// let run = Run::new();
/// let same = run.clone();
/// assert_eq!(run.id(), same.id());
/// assert_ne!(run.id(), Run::new().id());
/// same.cancel("user stopped the agent");
/// assert_eq!(run.cancelled().map(|c| c.reason), Some("user stopped the agent".into()));
/// ```
#[derive(Clone)]
pub struct Run {
    inner: Arc<RunState>,
}

/// The key of one cached call: the tool's name and its validated arguments in a canonical text
/// form (object keys sorted), so equal arguments meet in one hash lookup whatever order the
/// model sent the keys in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    tool: String,
    arguments: String,
}

struct RunState {
    id: u64,
    cancelled: AtomicBool,
    cancel_reason: Mutex<Option<String>>,
    /// The first success of each idempotent call.
    cache: Mutex<HashMap<CacheKey, Value>>,
    /// Images tools queued for the model ([`defer_tool_image`](crate::tool::defer_tool_image)).
    images: Mutex<Vec<DeferredImage>>,
}

/// Where progress events of tools that declare `emits_progress` go.
pub type ProgressSink = Arc<dyn Fn(ProgressEvent) + Send + Sync>;

/// A progress event reported by a tool through [`ToolCallContext::report_progress`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProgressEvent {
    /// The registered name of the tool that reported it.
    pub tool: String,
    /// What the tool reported.
    pub data: Value,
}

/// The agent that calls a tool: its name, its current [`Run`] and where progress goes.
///
/// cmdguard does not know the runtime's agent type; anything else a tool needs from the caller
/// travels in the context value `C` of [`ToolCallContext`].
///
/// ```
/// use cmdguard::tool::AgentHandle;
///
/// let agent = AgentHandle::new("coder");
/// assert_eq!(agent.name, "coder");
/// let next = agent.with_new_run();
/// assert_ne!(agent.run.id(), next.run.id());
/// ```
#[derive(Clone)]
pub struct AgentHandle {
    /// The agent's name, e.g. `"coder"` or a sub-agent's role.
    pub name: String,
    /// The run the agent is in.
    pub run: Run,
    progress: Option<ProgressSink>,
    workspace: Option<Workspace>,
    user: Option<Arc<dyn UserChannel>>,
    compacted: Option<Arc<dyn CompactedResults>>,
    search: Option<Arc<dyn SearchBackend>>,
    depth: usize,
    browser: Option<Arc<BrowserSession>>,
}

/// What a tool receives about its call, through a parameter of type `ToolCallContext<C>` (such a
/// parameter is left out of the tool's schema).
///
/// It carries the calling agent, the name the tool was registered under and the caller's value
/// `C`, passed unchanged from [`ToolBox::call_tool`](crate::tool::ToolBox::call_tool) through
/// every layer (sub-agent tools hand it on to the provider). Cloning is cheap: the value is
/// shared, not copied.
pub struct ToolCallContext<C> {
    agent: AgentHandle,
    tool_name: Arc<str>,
    value: Arc<C>,
    progress_enabled: bool,
}

impl Run {
    /// Starts a new run with a fresh id, no cached results and not cancelled.
    pub fn new() -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Run {
            inner: Arc::new(RunState {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                cancelled: AtomicBool::new(false),
                cancel_reason: Mutex::new(None),
                cache: Mutex::new(HashMap::new()),
                images: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Takes the images tools queued in this run since the last call, in order: the runtime
    /// sends each to the model as a user message after the round's tool results.
    pub fn take_deferred_images(&self) -> Vec<DeferredImage> {
        std::mem::take(
            &mut *self
                .inner
                .images
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub(crate) fn defer_image(&self, image: DeferredImage) {
        self.inner
            .images
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(image);
    }

    /// The run's id, unique within the process.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// Cancels the run: every later tool call in it returns [`CallError::Cancelled`] with this
    /// reason. The first reason given is kept.
    ///
    /// [`CallError::Cancelled`]: crate::tool::CallError::Cancelled
    pub fn cancel(&self, reason: impl Into<String>) {
        let mut slot = lock(&self.inner.cancel_reason);
        if slot.is_none() {
            *slot = Some(reason.into());
        }
        self.inner.cancelled.store(true, Ordering::SeqCst);
    }

    /// The cancellation, if the run was cancelled.
    pub fn cancelled(&self) -> Option<Cancelled> {
        if !self.inner.cancelled.load(Ordering::SeqCst) {
            return None;
        }
        let reason = lock(&self.inner.cancel_reason).clone().unwrap_or_default();
        Some(Cancelled::new(reason))
    }

    /// The success cached for `key`, if any.
    pub(crate) fn cached(&self, key: &CacheKey) -> Option<Value> {
        lock(&self.inner.cache).get(key).cloned()
    }

    /// Caches a success unless one for the same key is already there (two concurrent first
    /// calls may both run; the first to finish wins and both callers see their own result).
    pub(crate) fn remember(&self, key: CacheKey, value: &Value) {
        lock(&self.inner.cache)
            .entry(key)
            .or_insert_with(|| value.clone());
    }
}

impl CacheKey {
    /// The key of a call of `tool` with the validated `arguments`.
    pub(crate) fn new(tool: &str, arguments: &Value) -> Self {
        let mut text = String::new();
        canonical_into(arguments, &mut text);
        CacheKey {
            tool: tool.to_owned(),
            arguments: text,
        }
    }
}

/// Writes `value` as JSON with every object's keys sorted.
fn canonical_into(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (at, (key, item)) in entries.into_iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical_into(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                canonical_into(item, out);
            }
            out.push(']');
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&value.to_string());
        }
    }
}

impl Default for Run {
    fn default() -> Self {
        Run::new()
    }
}

impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("id", &self.inner.id)
            .field("cancelled", &self.inner.cancelled.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl AgentHandle {
    /// An agent with this name in a new [`Run`], without a progress sink.
    pub fn new(name: impl Into<String>) -> Self {
        AgentHandle {
            name: name.into(),
            run: Run::new(),
            progress: None,
            workspace: None,
            user: None,
            compacted: None,
            search: None,
            depth: 0,
            browser: None,
        }
    }

    /// The same agent in `run`.
    pub fn with_run(mut self, run: Run) -> Self {
        self.run = run;
        self
    }

    /// The same agent starting a new [`Run`] (fresh idempotency cache, not cancelled).
    pub fn with_new_run(&self) -> Self {
        self.clone().with_run(Run::new())
    }

    /// The same agent working in `workspace`: the built-in tools (`fs`, `patch`, `cmd`, …)
    /// resolve every path through it, and refuse to run without one.
    pub fn with_workspace(mut self, workspace: Workspace) -> Self {
        self.workspace = Some(workspace);
        self
    }

    /// How deep among sub-agents this agent runs: 0 for the runtime's own agent, 1 for a
    /// sub-agent it started through `agent_run`, and so on (at most
    /// [`MAX_SUBAGENT_DEPTH`](crate::tool::MAX_SUBAGENT_DEPTH)).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The agent's workspace, when it has one.
    pub fn workspace(&self) -> Option<&Workspace> {
        self.workspace.as_ref()
    }

    /// The same agent reaching its user through `channel` (the `framework` group's
    /// `ask_preference`).
    pub fn with_user(mut self, channel: Arc<dyn UserChannel>) -> Self {
        self.user = Some(channel);
        self
    }

    /// The user channel, when the runtime gave one.
    pub fn user(&self) -> Option<&dyn UserChannel> {
        self.user.as_deref()
    }

    /// The same agent with the runtime's store of compacted tool results (the `framework`
    /// group's `extract_compacted_tool_result`).
    pub fn with_compacted_results(mut self, store: Arc<dyn CompactedResults>) -> Self {
        self.compacted = Some(store);
        self
    }

    /// The store of compacted tool results, when the runtime gave one.
    pub fn compacted_results(&self) -> Option<&dyn CompactedResults> {
        self.compacted.as_deref()
    }

    /// The same agent searching the web through `backend` (the `search` group).
    pub fn with_search_backend(mut self, backend: Arc<dyn SearchBackend>) -> Self {
        self.search = Some(backend);
        self
    }

    /// The search backend, when the runtime gave one.
    pub fn search_backend(&self) -> Option<&dyn SearchBackend> {
        self.search.as_deref()
    }

    /// The same agent with a headless browser for the `browser` group: one browser for this
    /// configuration, started on the first browser tool call and closed when the last clone of
    /// the handle is dropped. The browser reaches whatever this machine reaches.
    pub fn with_browser(mut self, config: BrowserConfig) -> Self {
        self.browser = Some(Arc::new(BrowserSession::new(config)));
        self
    }

    /// The browser session, when the runtime gave one.
    pub fn browser(&self) -> Option<&Arc<BrowserSession>> {
        self.browser.as_ref()
    }

    /// Sends progress events of tools that declare `emits_progress` to `sink`, e.g. to stream
    /// them to a UI.
    pub fn with_progress(mut self, sink: impl Fn(ProgressEvent) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }
}

impl fmt::Debug for AgentHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentHandle")
            .field("name", &self.name)
            .field("run", &self.run)
            .field("progress", &self.progress.is_some())
            .field("workspace", &self.workspace)
            .field("user", &self.user.is_some())
            .field("compacted", &self.compacted.is_some())
            .field("search", &self.search.is_some())
            .field("depth", &self.depth)
            .field("browser", &self.browser)
            .finish()
    }
}

impl<C> ToolCallContext<C> {
    /// Builds a context by hand, e.g. to test a tool function directly. `call_tool` builds it
    /// for real calls, with progress enabled when the tool declares `emits_progress`.
    ///
    /// ```
    /// use cmdguard::tool::{AgentHandle, ToolCallContext};
    ///
    /// let ctx = ToolCallContext::new(AgentHandle::new("tester"), "greet", 42_u32);
    /// assert_eq!((ctx.agent().name.as_str(), ctx.tool_name(), *ctx.value()), ("tester", "greet", 42));
    /// ```
    pub fn new(agent: AgentHandle, tool_name: &str, value: C) -> Self {
        ToolCallContext::shared(agent, tool_name, Arc::new(value), false)
    }

    pub(crate) fn shared(
        agent: AgentHandle,
        tool_name: &str,
        value: Arc<C>,
        progress_enabled: bool,
    ) -> Self {
        ToolCallContext {
            agent,
            tool_name: Arc::from(tool_name),
            value,
            progress_enabled,
        }
    }

    /// The same call one sub-agent level deeper: what a sub-agent provider receives.
    pub(crate) fn deeper(&self) -> Self {
        let mut agent = self.agent.clone();
        agent.depth += 1;
        ToolCallContext {
            agent,
            tool_name: self.tool_name.clone(),
            value: self.value.clone(),
            progress_enabled: self.progress_enabled,
        }
    }

    /// The same call without the caller's value, for a context-free tool in a toolbox with a
    /// context (see [`Tool::into_context`](crate::tool::Tool::into_context)).
    pub(crate) fn without_value(&self) -> ToolCallContext<()> {
        ToolCallContext {
            agent: self.agent.clone(),
            tool_name: self.tool_name.clone(),
            value: Arc::new(()),
            progress_enabled: self.progress_enabled,
        }
    }

    /// The calling agent.
    pub fn agent(&self) -> &AgentHandle {
        &self.agent
    }

    /// The name the tool was registered (and called) under.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// The caller's value, as passed to `call_tool`.
    pub fn value(&self) -> &C {
        &self.value
    }

    /// The run the call belongs to.
    pub fn run(&self) -> &Run {
        &self.agent.run
    }

    /// `Err(Cancelled)` once the run is cancelled, so a long tool can stop with
    /// `ctx.check_cancelled()?` between steps.
    pub fn check_cancelled(&self) -> Result<(), Cancelled> {
        match self.agent.run.cancelled() {
            Some(cancelled) => Err(cancelled),
            None => Ok(()),
        }
    }

    /// Reports a progress event to the agent's progress sink. Returns whether it was delivered:
    /// only tools registered with `emits_progress` report progress, and only when the agent has a
    /// sink. A value that cannot be serialised is sent as its error message.
    pub fn report_progress(&self, data: impl Serialize) -> bool {
        let Some(sink) = self
            .agent
            .progress
            .as_ref()
            .filter(|_| self.progress_enabled)
        else {
            return false;
        };
        let data = serde_json::to_value(data).unwrap_or_else(|err| Value::String(err.to_string()));
        sink(ProgressEvent {
            tool: self.tool_name.to_string(),
            data,
        });
        true
    }
}

// Hand-written so that cloning a context never requires `C: Clone`: the value is shared.
impl<C> Clone for ToolCallContext<C> {
    fn clone(&self) -> Self {
        ToolCallContext {
            agent: self.agent.clone(),
            tool_name: self.tool_name.clone(),
            value: self.value.clone(),
            progress_enabled: self.progress_enabled,
        }
    }
}

impl<C: fmt::Debug> fmt::Debug for ToolCallContext<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCallContext")
            .field("agent", &self.agent)
            .field("tool_name", &self.tool_name)
            .field("value", &self.value)
            .finish_non_exhaustive()
    }
}

/// Locks a mutex, recovering the data if another thread panicked while holding it: the guarded
/// values (a cache, a reason) stay consistent after any single write.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
