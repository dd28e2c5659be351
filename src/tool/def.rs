//! tool/def.rs: one tool — name, description, parameter schema, attributes and a type-erased
//! handler — and the builder that makes it from a closure. It never decides which tools a model
//! sees; that is the ToolBox's job.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use schemars::generate::SchemaGenerator;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::tool::context::ToolCallContext;
use crate::tool::error::{CallError, Cancelled, ErrorInfo, clip};
use crate::tool::exec::BoxFuture;
use crate::tool::schema::{self, Param};
use crate::tool::validate::Arguments;

/// A tool: what the model is shown (name, description, JSON Schema of the parameters) and the
/// function that runs when the model calls it.
///
/// `C` is the caller's context value type, received by tools through
/// [`ToolCallContext<C>`](crate::tool::ToolCallContext). Tools are made by the
/// [`#[tool]`](crate::tool::tool) macro, by [`Tool::builder`] or by [`Tool::from_fn`].
///
/// ```
/// use cmdguard::tool::{Arguments, CallError, Tool};
///
/// let tool: Tool = Tool::builder("shout")
///     .description("Upper-cases a text.")
///     .param::<String>("text", "The text to shout.")
///     .handler(|mut args: Arguments, _ctx| Ok::<_, CallError>(args.take::<String>("text")?.to_uppercase()));
/// assert_eq!(tool.name(), "shout");
/// assert_eq!(tool.parameters()["required"], serde_json::json!(["text"]));
/// ```
pub struct Tool<C = ()> {
    name: String,
    description: String,
    params: Vec<Param>,
    parameters: Value,
    attrs: ToolAttrs,
    handler: Handler<C>,
    problems: Vec<String>,
}

/// The attributes of a tool beyond its schema. Each has a builder method of the same name on
/// [`ToolBuilder`] and a key of the same name in `#[tool(…)]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolAttrs {
    /// Capabilities the model must have for the tool to be listed, e.g. `vision`.
    pub required_capabilities: BTreeSet<String>,
    /// Replace a registered tool of the same name instead of failing with a conflict
    /// (`override` in the macro).
    pub override_existing: bool,
    /// Within one [`Run`](crate::tool::Run), a repeated call with equal arguments returns the
    /// first success without calling the tool again (failures are not cached).
    pub idempotent: bool,
    /// Labels a policy can match, e.g. `code-exec` for tools that run code.
    pub labels: BTreeSet<String>,
    /// Not listed until activated through the built-in `tool_search` tool.
    pub deferred: bool,
    /// The tool reports progress events (see
    /// [`ToolCallContext::report_progress`](crate::tool::ToolCallContext::report_progress)).
    pub emits_progress: bool,
    /// Provider-specific definitions sent instead of the function schema, keyed by adapter
    /// ([`Adapter::key`]).
    pub native: BTreeMap<String, Value>,
    /// The JSON Schema of the tool's result, when declared.
    pub output_schema: Option<Value>,
}

/// The tool-definition shapes that [`ToolBox::list_tools_json_for`] can produce.
///
/// [`ToolBox::list_tools_json_for`]: crate::tool::ToolBox::list_tools_json_for
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adapter {
    /// The OpenAI `tools` array: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAi,
    /// The Anthropic `tools` array: `{name, description, input_schema}`.
    Anthropic,
}

/// Builds a [`Tool`] from a name, a description, typed parameters and a handler closure.
///
/// Parameters are declared in order with [`param`](ToolBuilder::param) (required unless the type
/// accepts `null`, like `Option<T>`) or [`param_default`](ToolBuilder::param_default); the handler
/// reads them with [`Arguments::take`].
#[must_use = "a builder does nothing until `handler` or `async_handler` finishes it"]
pub struct ToolBuilder<C = ()> {
    name: String,
    description: String,
    params: Vec<Param>,
    generator: SchemaGenerator,
    attrs: ToolAttrs,
    problems: Vec<String>,
    context: std::marker::PhantomData<fn(C)>,
}

/// The erased function behind a tool.
type CallFn<C> = dyn Fn(Arguments, ToolCallContext<C>) -> BoxFuture<'static, Result<Value, CallError>>
    + Send
    + Sync;

pub(crate) enum Handler<C> {
    /// An ordinary tool.
    Call(Arc<CallFn<C>>),
    /// The built-in `tool_search`, answered by the ToolBox itself because it activates tools.
    Search,
}

impl Adapter {
    /// Every adapter.
    pub const ALL: [Adapter; 2] = [Adapter::OpenAi, Adapter::Anthropic];

    /// The key of this adapter in [`ToolAttrs::native`]: `openai` or `anthropic`.
    pub fn key(self) -> &'static str {
        match self {
            Adapter::OpenAi => "openai",
            Adapter::Anthropic => "anthropic",
        }
    }

    /// The adapter whose [`key`](Adapter::key) is `key`.
    pub fn from_key(key: &str) -> Option<Adapter> {
        Adapter::ALL
            .into_iter()
            .find(|adapter| adapter.key() == key)
    }
}

impl<C: Send + Sync + 'static> Tool<C> {
    /// Starts building a tool named `name`.
    pub fn builder(name: impl Into<String>) -> ToolBuilder<C> {
        ToolBuilder {
            name: name.into(),
            description: String::new(),
            params: Vec::new(),
            generator: schema::generator(),
            attrs: ToolAttrs::default(),
            problems: Vec::new(),
            context: std::marker::PhantomData,
        }
    }

    /// A tool whose parameters are the fields of `Args`, called with the deserialised struct.
    ///
    /// `Args`' schema must be an object; field doc comments become property descriptions and
    /// `#[serde(default)]` fields are not required. The handler may return any `Result<T, E>`
    /// (see [`ToolBuilder::handler`]).
    ///
    /// ```
    /// use cmdguard::tool::{Tool, ToolBox, AgentHandle};
    /// use serde::Deserialize;
    /// use schemars::JsonSchema;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// #[serde(deny_unknown_fields)]
    /// struct Add {
    ///     /// The first term.
    ///     a: i64,
    ///     /// The second term.
    ///     b: i64,
    /// }
    ///
    /// let add: Tool = Tool::from_fn::<Add, _, _, _>("add", "Adds two numbers.", |args: Add, _ctx| {
    ///     Ok::<_, std::convert::Infallible>(args.a + args.b)
    /// });
    /// let mut toolbox = ToolBox::new();
    /// toolbox.register([add]).unwrap();
    /// let agent = AgentHandle::new("demo");
    /// let sum = toolbox.call_tool_blocking(&agent, "add", serde_json::json!({"a": 2, "b": 3}), ());
    /// assert_eq!(sum, Ok(serde_json::json!(5)));
    /// ```
    pub fn from_fn<Args, T, E, F>(
        name: impl Into<String>,
        description: impl Into<String>,
        function: F,
    ) -> Tool<C>
    where
        Args: DeserializeOwned + JsonSchema,
        T: Serialize,
        E: fmt::Display + fmt::Debug + 'static,
        F: Fn(Args, ToolCallContext<C>) -> Result<T, E> + Send + Sync + 'static,
    {
        let mut builder = Tool::builder(name).description(description);
        builder.read_params_of::<Args>();
        builder.handler(
            move |args: Arguments, ctx| match args.deserialize::<Args>() {
                Ok(parsed) => into_outcome(function(parsed, ctx)),
                Err(err) => Err(err),
            },
        )
    }
}

impl<C> Tool<C> {
    /// The name the tool is registered and called under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description shown to the model (for `#[tool]`, the whole doc comment).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of the parameters: an object with `properties`, `required` and
    /// `additionalProperties: false`.
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// The parameters one by one, in declaration order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The tool's attributes (capabilities, labels, idempotency, …).
    pub fn attrs(&self) -> &ToolAttrs {
        &self.attrs
    }

    /// The tool's definition in an adapter's shape, or its native definition for that adapter
    /// when it has one.
    pub fn definition(&self, adapter: Adapter) -> Value {
        if let Some(native) = self.attrs.native.get(adapter.key()) {
            return native.clone();
        }
        match adapter {
            Adapter::OpenAi => json!({
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description,
                    "parameters": self.parameters,
                },
            }),
            Adapter::Anthropic => json!({
                "name": self.name,
                "description": self.description,
                "input_schema": self.parameters,
            }),
        }
    }

    pub(crate) fn handler(&self) -> &Handler<C> {
        &self.handler
    }

    /// What makes this tool unusable, if anything (checked on registration).
    pub(crate) fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The built-in `tool_search` tool.
    pub(crate) fn search_tool() -> Tool<C>
    where
        C: Send + Sync + 'static,
    {
        Tool::builder(crate::tool::toolbox::TOOL_SEARCH)
            .description(
                "Search for more tools by keywords in their names and descriptions. \
                 Matching tools are activated and can be called from the next turn on.",
            )
            .param::<String>("query", "Keywords describing what the tool should do.")
            .param::<Option<u32>>("limit", "How many tools to activate at most (default 5).")
            .finish(Handler::Search)
    }
}

impl Tool<()> {
    /// The same tool for a toolbox whose context value is `C`. A tool made without a
    /// `ToolCallContext` parameter is a `Tool<()>`; this lets it join a `ToolBox<C>` (the type is
    /// usually inferred from the toolbox):
    ///
    /// ```
    /// use cmdguard::tool::{ToolBox, tool};
    ///
    /// /// The current time.
    /// #[tool]
    /// fn now() -> &'static str {
    ///     "12:00"
    /// }
    ///
    /// struct Session;
    /// let mut toolbox = ToolBox::<Session>::new();
    /// toolbox.register([now_tool().into_context()]).unwrap();
    /// ```
    pub fn into_context<C: Send + Sync + 'static>(self) -> Tool<C> {
        let handler = match self.handler {
            Handler::Call(call) => {
                let call: Arc<CallFn<C>> =
                    Arc::new(move |args, ctx: ToolCallContext<C>| call(args, ctx.without_value()));
                Handler::Call(call)
            }
            Handler::Search => Handler::Search,
        };
        Tool {
            name: self.name,
            description: self.description,
            params: self.params,
            parameters: self.parameters,
            attrs: self.attrs,
            handler,
            problems: self.problems,
        }
    }
}

impl<C> fmt::Debug for Tool<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("parameters", &self.parameters)
            .field("attrs", &self.attrs)
            .finish_non_exhaustive()
    }
}

impl<C: Send + Sync + 'static> ToolBuilder<C> {
    /// Sets the description shown to the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Declares a parameter of type `T`; required unless `T` accepts `null` (`Option<U>`).
    /// `description` (empty for none) becomes the property's description. Properties keep the
    /// order they are declared in.
    pub fn param<T: JsonSchema + DeserializeOwned>(
        mut self,
        name: &str,
        description: &str,
    ) -> Self {
        let param = Param::of::<T>(&mut self.generator, name, description, None);
        self.params.push(param);
        self
    }

    /// Declares a parameter of type `T` that the model may leave out; `default` is used then
    /// and is shown as the property's `default`.
    pub fn param_default<T: JsonSchema + DeserializeOwned + Serialize>(
        mut self,
        name: &str,
        description: &str,
        default: T,
    ) -> Self {
        match serde_json::to_value(&default) {
            Ok(value) => {
                let param = Param::of::<T>(&mut self.generator, name, description, Some(value));
                self.params.push(param);
            }
            Err(err) => {
                self.problems.push(format!(
                    "default of parameter '{name}' cannot be serialised: {err}"
                ));
            }
        }
        self
    }

    /// Like [`param_default`](ToolBuilder::param_default), with the default written in any
    /// form that serialises to what `T` deserialises from: `"hello"` for a `String`,
    /// `["a", "b"]` or `vec!["a"]` for a `Vec<String>`, `"fast"` for a unit enum renamed to
    /// lowercase. It is converted the way the model's JSON would be; a default that does not
    /// fit `T` makes the tool fail to register, with the reason.
    ///
    /// ```
    /// use cmdguard::tool::{Arguments, CallError, Tool};
    ///
    /// let tool: Tool = Tool::builder("greet")
    ///     .param_default_from::<String>("greeting", "", "hello")
    ///     .param_default_from::<Vec<String>>("names", "", ["ada"])
    ///     .handler(|_args: Arguments, _ctx| Ok::<_, CallError>(()));
    /// assert_eq!(tool.parameters()["properties"]["names"]["default"], serde_json::json!(["ada"]));
    /// ```
    pub fn param_default_from<T: JsonSchema + DeserializeOwned + Serialize>(
        mut self,
        name: &str,
        description: &str,
        default: impl Serialize,
    ) -> Self {
        let converted = serde_json::to_value(&default)
            .map_err(|err| err.to_string())
            .and_then(|value| T::deserialize(&value).map_err(|err| err.to_string()))
            .and_then(|typed| serde_json::to_value(&typed).map_err(|err| err.to_string()));
        match converted {
            Ok(value) => {
                let param = Param::of::<T>(&mut self.generator, name, description, Some(value));
                self.params.push(param);
            }
            Err(err) => {
                self.problems.push(format!(
                    "default of parameter '{name}' does not fit its type: {err}"
                ));
            }
        }
        self
    }

    /// Hides the tool from models that lack `capability` (e.g. `vision`).
    pub fn required_capability(mut self, capability: impl Into<String>) -> Self {
        self.attrs.required_capabilities.insert(capability.into());
        self
    }

    /// Replaces a registered tool of the same name instead of failing with a conflict.
    pub fn override_existing(mut self) -> Self {
        self.attrs.override_existing = true;
        self
    }

    /// Caches successes within one [`Run`](crate::tool::Run) by (name, arguments); a failed
    /// call is run again when retried.
    pub fn idempotent(mut self) -> Self {
        self.attrs.idempotent = true;
        self
    }

    /// Adds a label a policy can match.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.attrs.labels.insert(label.into());
        self
    }

    /// Keeps the tool out of listings until `tool_search` activates it.
    pub fn deferred(mut self) -> Self {
        self.attrs.deferred = true;
        self
    }

    /// Declares that the tool reports progress events.
    pub fn emits_progress(mut self) -> Self {
        self.attrs.emits_progress = true;
        self
    }

    /// Sends `definition` instead of the function schema to the adapter keyed `adapter`
    /// (`openai`, `anthropic`; see [`Adapter::key`]). Any other key makes the tool fail to
    /// register: a misspelt key (`open_ai`) would otherwise be ignored without a word.
    pub fn native(mut self, adapter: &str, definition: Value) -> Self {
        if Adapter::from_key(adapter).is_none() {
            self.problems.push(format!(
                "unknown native adapter '{}'; expected one of {}",
                clip(adapter),
                Adapter::ALL.map(Adapter::key).join(", ")
            ));
        }
        self.attrs.native.insert(adapter.to_owned(), definition);
        self
    }

    /// Declares the JSON Schema of the tool's result.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.attrs.output_schema = Some(schema);
        self
    }

    /// Declares the tool's result schema as the schema of `T`.
    pub fn output_schema_of<T: JsonSchema>(self) -> Self {
        let schema = schema::generator().into_root_schema_for::<T>().to_value();
        self.output_schema(schema)
    }

    /// Finishes the tool with a synchronous handler.
    ///
    /// The handler returns `Result<T, E>`: `Ok(value)` is serialised into the call's result;
    /// `Err(e)` becomes [`CallError::Failed`] with `e`'s `Display` as the error and its `Debug`
    /// as the details, except that a [`CallError`] is passed through as it is and a
    /// [`Cancelled`] (also boxed as `Box<dyn Error + Send + Sync>`) propagates as
    /// [`CallError::Cancelled`]. A panic becomes [`CallError::Failed`] too.
    pub fn handler<T, E, F>(self, function: F) -> Tool<C>
    where
        T: Serialize,
        E: fmt::Display + fmt::Debug + 'static,
        F: Fn(Arguments, ToolCallContext<C>) -> Result<T, E> + Send + Sync + 'static,
    {
        let function = Arc::new(function);
        let call: Arc<CallFn<C>> = Arc::new(move |args, ctx| {
            let function = function.clone();
            // The call happens inside the future so that a panic is caught while polling.
            Box::pin(async move { into_outcome(function(args, ctx)) })
        });
        self.finish(Handler::Call(call))
    }

    /// Finishes the tool with an async handler; results are converted as for
    /// [`handler`](ToolBuilder::handler).
    pub fn async_handler<T, E, F, Fut>(self, function: F) -> Tool<C>
    where
        T: Serialize,
        E: fmt::Display + fmt::Debug + 'static,
        F: Fn(Arguments, ToolCallContext<C>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
    {
        let function = Arc::new(function);
        let call: Arc<CallFn<C>> = Arc::new(move |args, ctx| {
            let function = function.clone();
            Box::pin(async move { into_outcome(function(args, ctx).await) })
        });
        self.finish(Handler::Call(call))
    }

    /// Reads the parameters from the object schema of `Args` (for [`Tool::from_fn`]).
    fn read_params_of<Args: JsonSchema>(&mut self) {
        let root = self.generator.root_schema_for::<Args>().to_value();
        let Some(properties) = root.get("properties").and_then(Value::as_object) else {
            self.problems.push(format!(
                "the argument type's schema is not an object with properties: {root}"
            ));
            return;
        };
        let required: BTreeSet<&str> = root
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, property) in properties {
            self.params.push(Param {
                name: name.clone(),
                schema: property.clone(),
                required: required.contains(name.as_str()),
                default: None,
                check: None,
            });
        }
        if let Some(Value::Object(defs)) = root.get("$defs") {
            self.generator.definitions_mut().extend(defs.clone());
        }
    }

    fn finish(mut self, handler: Handler<C>) -> Tool<C> {
        if let Err(problem) = check_name(&self.name) {
            self.problems.insert(0, problem);
        }
        let defs = self.generator.take_definitions(true);
        let parameters = schema::parameters_object(&self.params, defs);
        Tool {
            name: self.name,
            description: self.description,
            params: self.params,
            parameters,
            attrs: self.attrs,
            handler,
            problems: self.problems,
        }
    }
}

/// The longest tool name the model providers accept.
pub const MAX_NAME_LEN: usize = 64;

/// Checks a tool name against the rule every model provider applies to the whole `tools` array,
/// `^[a-zA-Z0-9_-]{1,64}$`: one bad name would make the provider reject every tool.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a tool name cannot be empty".to_owned());
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "tool names may hold only ASCII letters, digits, '_' and '-' \
             (the model providers' rule), found {bad:?}"
        ));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "a tool name is at most {MAX_NAME_LEN} characters (the model providers' rule), \
             this one has {}",
            name.len()
        ));
    }
    Ok(())
}

/// Converts what a tool function returned into the call's result (see
/// [`ToolBuilder::handler`]).
pub(crate) fn into_outcome<T, E>(result: Result<T, E>) -> Result<Value, CallError>
where
    T: Serialize,
    E: fmt::Display + fmt::Debug + 'static,
{
    match result {
        Ok(value) => serde_json::to_value(value).map_err(|err| {
            CallError::Failed(ErrorInfo::new(
                format!("the tool's result cannot be serialised: {err}"),
                format!("{err:?}"),
            ))
        }),
        Err(err) => Err(error_outcome(err)),
    }
}

fn error_outcome<E: fmt::Display + fmt::Debug + 'static>(err: E) -> CallError {
    let any: &dyn Any = &err;
    if let Some(call_error) = any.downcast_ref::<CallError>() {
        return call_error.clone();
    }
    if let Some(cancelled) = any.downcast_ref::<Cancelled>() {
        return CallError::Cancelled(cancelled.clone());
    }
    let boxed_cancel = any
        .downcast_ref::<Box<dyn Error + Send + Sync>>()
        .and_then(|boxed| boxed.downcast_ref::<Cancelled>())
        .or_else(|| {
            any.downcast_ref::<Box<dyn Error>>()
                .and_then(|boxed| boxed.downcast_ref::<Cancelled>())
        });
    if let Some(cancelled) = boxed_cancel {
        return CallError::Cancelled(cancelled.clone());
    }
    CallError::Failed(ErrorInfo::new(err.to_string(), format!("{err:?}")))
}

/// Support for the code `#[tool]` generates; not a stable API.
#[doc(hidden)]
pub mod __private {
    use std::marker::PhantomData;

    use super::*;

    /// What a `#[tool]` function returned, on its way to the call's result.
    ///
    /// Whether it is a `Result` is decided by method resolution, not by how the return type is
    /// spelled: `(&mut Returned::new(x)).outcome()` finds [`ResultOutcome`] (implemented for
    /// `Returned<Result<T, E>>`) before [`ValueOutcome`] (implemented one reference further
    /// out), so `type Outcome = Result<String, String>` is a `Result` too.
    pub struct Returned<T>(Option<T>, PhantomData<T>);

    impl<T> Returned<T> {
        /// Wraps a returned value.
        pub fn new(value: T) -> Self {
            Returned(Some(value), PhantomData)
        }

        /// A value-less wrapper, to ask for the schema of `T`'s success type.
        pub fn probe() -> Self {
            Returned(None, PhantomData)
        }
    }

    /// The conversion of a returned `Result` (see [`Returned`]). The impl has no bounds, so
    /// that every `Result` takes this path; [`ResultParts::finish`] then requires what a tool's
    /// `Result` needs, and a `Result` whose error is not `Display` fails to compile instead of
    /// being serialised as a success.
    pub trait ResultOutcome {
        /// The `Result` taken out of the wrapper.
        type Parts;
        /// Takes the returned `Result` out.
        fn outcome(&mut self) -> Self::Parts;
    }

    impl<T, E> ResultOutcome for Returned<Result<T, E>> {
        type Parts = ResultParts<T, E>;
        fn outcome(&mut self) -> ResultParts<T, E> {
            ResultParts(self.0.take())
        }
    }

    /// A returned `Result` on its way to the call's result.
    pub struct ResultParts<T, E>(Option<Result<T, E>>);

    impl<T: Serialize, E: fmt::Display + fmt::Debug + 'static> ResultParts<T, E> {
        /// `Ok` serialised, `Err` as a failure.
        pub fn finish(self) -> Result<Value, CallError> {
            match self.0 {
                Some(result) => into_outcome(result),
                None => Err(taken_twice()),
            }
        }
    }

    /// The conversion of any other returned value (see [`Returned`]).
    pub trait ValueOutcome {
        /// The value taken out of the wrapper.
        type Parts;
        /// Takes the returned value out.
        fn outcome(&mut self) -> Self::Parts;
    }

    impl<T> ValueOutcome for &mut Returned<T> {
        type Parts = ValueParts<T>;
        fn outcome(&mut self) -> ValueParts<T> {
            ValueParts(self.0.take())
        }
    }

    /// A returned value on its way to the call's result.
    pub struct ValueParts<T>(Option<T>);

    impl<T: Serialize> ValueParts<T> {
        /// The value serialised.
        pub fn finish(self) -> Result<Value, CallError> {
            match self.0 {
                Some(value) => into_outcome(Ok::<T, std::convert::Infallible>(value)),
                None => Err(taken_twice()),
            }
        }
    }

    /// The output schema of a `Result`: its success type's.
    pub trait ResultSchema {
        /// The JSON Schema of the success type.
        fn schema(&mut self) -> Value;
    }

    impl<T: JsonSchema, E> ResultSchema for Returned<Result<T, E>> {
        fn schema(&mut self) -> Value {
            schema::generator().into_root_schema_for::<T>().to_value()
        }
    }

    /// The output schema of any other type: its own.
    pub trait ValueSchema {
        /// The JSON Schema of the type.
        fn schema(&mut self) -> Value;
    }

    impl<T: JsonSchema> ValueSchema for &mut Returned<T> {
        fn schema(&mut self) -> Value {
            schema::generator().into_root_schema_for::<T>().to_value()
        }
    }

    fn taken_twice() -> CallError {
        CallError::Failed(ErrorInfo::new(
            "the tool's result was already taken",
            "cmdguard internal error",
        ))
    }

    /// What a parameter's type needs to be read from the model's JSON; it exists for its
    /// error message, which says what to do about a context alias.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool parameter: it needs `JsonSchema` and `Deserialize`",
        label = "the model's argument for this parameter is read from JSON",
        note = "a parameter that receives the call's context must be spelled \
                `ToolCallContext<T>`, or be marked `#[tool(context)]` when its type is an alias"
    )]
    pub trait Parameter {}

    impl<T: JsonSchema + DeserializeOwned> Parameter for T {}

    /// Fails to compile, with [`Parameter`]'s message, for a type that cannot be a parameter.
    pub fn parameter<T: Parameter>() {}

    /// The context value type of a parameter marked `#[tool(context)]`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a `ToolCallContext`",
        label = "`#[tool(context)]` marks the parameter that receives the call's context",
        note = "write `ToolCallContext<T>` (or an alias of it) for this parameter's type"
    )]
    pub trait ContextParam {
        /// The caller's value type `C` of `ToolCallContext<C>`.
        type Value;
    }

    impl<C> ContextParam for ToolCallContext<C> {
        type Value = C;
    }
}
