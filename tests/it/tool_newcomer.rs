//! Regression tests for issue 13, "what an agent-runtime author hits in the first hour": the
//! bugs, behaviour differences and ergonomic gaps a newcomer found writing tools from the docs
//! alone, each pinned by the behaviour that is right now. The compile errors that must stay
//! errors (with a helpful message) are trybuild cases in `cmdguard-macros/tests/ui`.

#![allow(clippy::unwrap_used, reason = "tests unwrap to fail loudly")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cmdguard::tool::{
    AgentHandle, Arguments, CallError, ErrorInfo, PanicOutput, RegistryError, SubagentProvider,
    SubagentTask, Tool, ToolBox, ToolCallContext, tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

fn call<C: Send + Sync + 'static>(
    toolbox: &ToolBox<C>,
    name: &str,
    arguments: Value,
    context: C,
) -> Result<Value, CallError> {
    toolbox.call_tool_blocking(&AgentHandle::new("t"), name, arguments, context)
}

fn toolbox_of(tools: impl IntoIterator<Item = Tool>) -> ToolBox {
    let mut toolbox = ToolBox::new();
    toolbox.register(tools).unwrap();
    toolbox
}

// --- A parameter named like its function (was E0618) ---------------------------------------

/// Counts the words of each text.
#[tool]
fn texts(texts: Vec<String>) -> Vec<usize> {
    texts
        .iter()
        .map(|text| text.split_whitespace().count())
        .collect()
}

/// Searches for a query.
#[tool]
fn query(query: String) -> String {
    format!("results for {query}")
}

/// Runs a command (pretend).
#[tool]
fn command(command: String) -> String {
    command
}

#[test]
fn a_parameter_named_like_its_function_compiles_and_is_called() {
    let toolbox = toolbox_of([texts_tool(), query_tool(), command_tool()]);
    let table = [
        ("texts", json!({"texts": ["a b", "c"]}), json!([2, 1])),
        ("query", json!({"query": "rust"}), json!("results for rust")),
        ("command", json!({"command": "ls"}), json!("ls")),
    ];
    for (name, arguments, expected) in table {
        assert_eq!(call(&toolbox, name, arguments, ()), Ok(expected), "{name}");
    }
}

// --- An error through a Result alias (was reported as success) -------------------------------

type Outcome = Result<String, String>;
type IoOutcome<T> = std::io::Result<T>;

/// Fails on "bad".
#[tool(output_schema)]
fn checked(text: String) -> Outcome {
    match text.as_str() {
        "bad" => Err(format!("'{text}' is not allowed")),
        _ => Ok(text),
    }
}

/// Always fails with an io error, through a generic alias.
#[tool]
fn io_checked() -> IoOutcome<u8> {
    Err(std::io::Error::other("disk on fire"))
}

#[test]
fn an_error_through_a_result_alias_is_a_failure() {
    let toolbox = toolbox_of([checked_tool(), io_checked_tool()]);
    assert_eq!(
        call(&toolbox, "checked", json!({"text": "ok"}), ()),
        Ok(json!("ok"))
    );
    assert_eq!(
        call(&toolbox, "checked", json!({"text": "bad"}), ()),
        Err(CallError::Failed(ErrorInfo::new(
            "'bad' is not allowed",
            "\"'bad' is not allowed\""
        )))
    );
    let failed = call(&toolbox, "io_checked", json!({}), ()).unwrap_err();
    assert_eq!(failed.to_string(), "disk on fire");
    // The output schema is the success type's, not the Result's.
    assert_eq!(
        checked_tool().attrs().output_schema,
        Some(json!({"title": "string", "type": "string"}))
    );
}

// --- Error messages echo model input without limit ------------------------------------------

/// Takes an integer.
#[tool]
fn count(n: u32) -> u32 {
    n
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Region {
    width: u32,
    height: u32,
}

/// Crops to a region.
#[tool]
fn crop(region: Region) -> u32 {
    region.width * region.height
}

/// An upper bound on what a message quoting clipped input may take: the quoted part is cut at
/// 80 bytes, so anything near the input's size means it was echoed.
const SHORT: usize = 600;

#[test]
fn error_messages_quote_model_input_only_up_to_a_limit() {
    let toolbox = toolbox_of([count_tool(), crop_tool()]);
    let huge = "x".repeat(5 << 20);
    let cases = [
        ("count", json!({ "n": huge })),
        ("crop", json!({"region": {"width": 1, "height": huge}})),
        (
            "crop",
            json!({"region": {"width": 1, "height": 2, huge.clone(): 3}}),
        ),
        ("count", json!({ "n": [huge.clone(), huge.clone()] })),
        (
            "count",
            Value::Object(
                (0..200_000)
                    .map(|i| (format!("key_{i}"), json!(i)))
                    .collect(),
            ),
        ),
    ];
    for (name, arguments) in cases {
        let message = call(&toolbox, name, arguments, ()).unwrap_err().to_string();
        assert!(message.len() < SHORT, "{name}: {} bytes", message.len());
        assert!(message.contains("more"), "{name}: {message}");
    }
    let message = call(&toolbox, &"t".repeat(1 << 20), json!({}), ())
        .unwrap_err()
        .to_string();
    assert!(message.len() < SHORT, "{} bytes", message.len());
    assert!(
        message.ends_with(", 1048496 bytes more' is not registered"),
        "{message}"
    );
}

#[test]
fn a_clipped_string_says_how_much_was_left_out() {
    let toolbox = toolbox_of([count_tool()]);
    let message = call(&toolbox, "count", json!({"n": "y".repeat(1000)}), ())
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "invalid arguments for tool 'count': argument 'n': expected integer, got string \"{}…, 920 bytes more\"",
            "y".repeat(80)
        )
    );
    let unknown: Value = (0..12)
        .map(|i| (format!("k{i:02}"), json!(i)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let message = call(&toolbox, "count", unknown, ())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(
            "unknown argument(s): k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, and 2 more;"
        ),
        "{message}"
    );
}

// --- Nested validation errors name the field path -------------------------------------------

#[test]
fn nested_errors_name_the_path_inside_the_argument() {
    let toolbox = toolbox_of([crop_tool()]);
    let err = call(
        &toolbox,
        "crop",
        json!({"region": {"width": 1, "height": "tall"}}),
        (),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool 'crop': argument 'region.height': invalid type: string \"tall\", expected u32"
    );
    let from_fn: Tool = Tool::from_fn("crop2", "", |args: CropArgs, _ctx| {
        Ok::<_, std::convert::Infallible>(args.region.width)
    });
    let toolbox = toolbox_of([from_fn]);
    let err = call(
        &toolbox,
        "crop2",
        json!({"region": {"width": -1, "height": 1}}),
        (),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid arguments for tool 'crop2': argument 'region.width': invalid value: integer `-1`, expected u32"
    );
}

#[derive(Deserialize, JsonSchema)]
struct CropArgs {
    region: Region,
}

// --- Idempotent tools cache successes only ----------------------------------------------------

#[test]
fn an_idempotent_tool_runs_again_after_a_failure_and_caches_the_success() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let flaky: Tool = Tool::builder("flaky")
        .idempotent()
        .handler(
            move |_args: Arguments, _ctx| match counter.fetch_add(1, Ordering::SeqCst) {
                0 => Err(CallError::Failed(ErrorInfo::new("network down", ""))),
                n => Ok(json!(n)),
            },
        );
    let toolbox = toolbox_of([flaky]);
    let agent = AgentHandle::new("t");
    let run = |args: Value| toolbox.call_tool_blocking(&agent, "flaky", args, ());
    assert_eq!(run(json!({})).unwrap_err().to_string(), "network down");
    assert_eq!(run(json!({})), Ok(json!(1)), "the retry runs the tool");
    assert_eq!(run(json!("{}")), Ok(json!(1)), "the success is cached");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn the_idempotent_cache_ignores_key_order() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let pair: Tool = Tool::builder("pair")
        .param::<i64>("a", "")
        .param::<i64>("b", "")
        .idempotent()
        .handler(move |_args: Arguments, _ctx| {
            Ok::<_, CallError>(counter.fetch_add(1, Ordering::SeqCst))
        });
    let toolbox = toolbox_of([pair]);
    let agent = AgentHandle::new("t");
    let first = toolbox.call_tool_blocking(&agent, "pair", json!("{\"a\": 1, \"b\": 2}"), ());
    let again = toolbox.call_tool_blocking(&agent, "pair", json!("{\"b\": 2, \"a\": 1}"), ());
    assert_eq!((first, again), (Ok(json!(0)), Ok(json!(0))));
}

// --- Tool names and native adapter keys are validated at registration ------------------------

fn named(name: &str) -> Tool {
    Tool::builder(name).handler(|_args: Arguments, _ctx| Ok::<_, CallError>(()))
}

#[test]
fn tool_names_follow_the_model_providers_rule() {
    let long = "n".repeat(65);
    let table = [
        ("", Some("a tool name cannot be empty")),
        (
            "my tool!/../[x]",
            Some(
                "tool names may hold only ASCII letters, digits, '_' and '-' (the model providers' rule), found ' '",
            ),
        ),
        (
            "héllo",
            Some(
                "tool names may hold only ASCII letters, digits, '_' and '-' (the model providers' rule), found 'é'",
            ),
        ),
        (
            long.as_str(),
            Some(
                "a tool name is at most 64 characters (the model providers' rule), this one has 65",
            ),
        ),
        ("read_file", None),
        ("Read-File2", None),
    ];
    for (name, problem) in table {
        let result = ToolBox::new().register([named(name)]);
        let expected = problem.map(|reason| RegistryError::InvalidTool {
            name: name.to_owned(),
            reason: reason.to_owned(),
        });
        assert_eq!(result.err(), expected, "{name:?}");
    }
    assert!(ToolBox::new().register([named(&"n".repeat(64))]).is_ok());
    let err = ToolBox::new()
        .register([named(&"x".repeat(200))])
        .unwrap_err();
    assert!(err.to_string().len() < 250, "{err}");
}

#[test]
fn an_unknown_native_adapter_key_is_refused() {
    let tool: Tool = Tool::builder("computer")
        .native("open_ai", json!({"type": "computer"}))
        .handler(|_args: Arguments, _ctx| Ok::<_, CallError>(()));
    assert_eq!(
        ToolBox::new().register([tool]).unwrap_err().to_string(),
        "invalid tool 'computer': unknown native adapter 'open_ai'; expected one of openai, anthropic"
    );
}

// --- Schema properties keep declaration order --------------------------------------------------

/// Declared out of alphabetical order.
#[tool]
fn ordered(zebra: String, apple: u32, mango: Option<bool>) -> String {
    format!("{zebra}{apple}{mango:?}")
}

#[derive(Deserialize, JsonSchema)]
struct OrderedArgs {
    zebra: String,
    apple: u32,
    mango: Option<bool>,
}

#[test]
fn schema_properties_keep_declaration_order() {
    let from_fn: Tool = Tool::from_fn("ordered_fn", "", |args: OrderedArgs, _ctx| {
        Ok::<_, std::convert::Infallible>(format!("{}{}{:?}", args.zebra, args.apple, args.mango))
    });
    for tool in [ordered_tool(), from_fn] {
        let keys: Vec<&String> = tool.parameters()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["zebra", "apple", "mango"], "{}", tool.name());
        let text = tool.parameters().to_string();
        let at = |key: &str| text.find(&format!("\"{key}\"")).unwrap();
        assert!(
            at("zebra") < at("apple") && at("apple") < at("mango"),
            "{text}"
        );
        assert_eq!(tool.parameters()["required"], json!(["zebra", "apple"]));
    }
}

// --- Sub-agent tools accept xun's shapes and cap parallel workers ------------------------------

/// Echoes the task and the sub-agent's name; counts how many run at once.
struct Echo {
    running: AtomicUsize,
    most: AtomicUsize,
}

/// Pending once, so that concurrently started sub-agents overlap.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// The provider handed to the toolbox; the test keeps the other handle to read the counts.
struct EchoProvider(Arc<Echo>);

impl SubagentProvider<()> for EchoProvider {
    fn run_subagent(
        &self,
        task: SubagentTask,
        _ctx: ToolCallContext<()>,
    ) -> cmdguard::tool::BoxFuture<'static, Result<Value, CallError>> {
        let echo = self.0.clone();
        Box::pin(async move {
            let now = echo.running.fetch_add(1, Ordering::SeqCst) + 1;
            echo.most.fetch_max(now, Ordering::SeqCst);
            YieldOnce(false).await;
            echo.running.fetch_sub(1, Ordering::SeqCst);
            Ok(json!([task.task, task.name]))
        })
    }
}

fn echo_toolbox() -> (ToolBox, Arc<Echo>) {
    let echo = Arc::new(Echo {
        running: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
    });
    let provider = echo.clone();
    let toolbox = ToolBox::new()
        .with_subagent_provider(move || {
            Arc::new(EchoProvider(provider.clone())) as Arc<dyn SubagentProvider<()>>
        })
        .unwrap();
    (toolbox, echo)
}

#[test]
fn sub_agent_tools_have_the_seed_signatures_and_accept_their_shapes() {
    let (toolbox, _) = echo_toolbox();
    let params = |name: &str| -> Vec<String> {
        toolbox
            .get(name)
            .unwrap()
            .params()
            .iter()
            .map(|p| p.name.clone())
            .collect()
    };
    assert_eq!(params("agent_run"), ["task", "name"]);
    assert_eq!(params("agent_run_parallel"), ["tasks", "names"]);
    // The third built-in, registered with the first deferred tool, keeps its seed signature too.
    let deferred: Tool = Tool::builder("later")
        .deferred()
        .handler(|_args: Arguments, _ctx| Ok::<_, CallError>(()));
    let searchable = toolbox_of([deferred]);
    let search = searchable.get("tool_search").unwrap();
    let search_params: Vec<&str> = search.params().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(search_params, ["query", "limit"]);
    let table = [
        (
            "agent_run",
            json!({"task": "review", "name": "critic"}),
            json!(["review", "critic"]),
        ),
        (
            "agent_run",
            json!({"task": "review"}),
            json!(["review", null]),
        ),
        (
            "agent_run_parallel",
            json!({"tasks": ["a", "b"]}),
            json!([{"result": ["a", null]}, {"result": ["b", null]}]),
        ),
        (
            "agent_run_parallel",
            json!({"tasks": "[\"a\", \"b\"]", "names": ["x", "y"]}),
            json!([{"result": ["a", "x"]}, {"result": ["b", "y"]}]),
        ),
        (
            "agent_run_parallel",
            json!({"tasks": ["a", {"task": "b", "name": "y"}]}),
            json!([{"result": ["a", null]}, {"result": ["b", "y"]}]),
        ),
    ];
    for (name, arguments, expected) in table {
        assert_eq!(
            call(&toolbox, name, arguments.clone(), ()),
            Ok(expected),
            "{arguments}"
        );
    }
    let mismatched = call(
        &toolbox,
        "agent_run_parallel",
        json!({"tasks": ["a"], "names": ["x", "y"]}),
        (),
    );
    assert_eq!(
        mismatched.unwrap_err().to_string(),
        "invalid arguments for tool 'agent_run_parallel': argument 'names': 2 names for 1 tasks; give one name per task"
    );
}

#[test]
fn agent_run_parallel_runs_at_most_four_at_once() {
    let (toolbox, echo) = echo_toolbox();
    let tasks: Vec<String> = (0..10).map(|i| i.to_string()).collect();
    let result = call(
        &toolbox,
        "agent_run_parallel",
        json!({ "tasks": tasks }),
        (),
    )
    .unwrap();
    assert_eq!(result.as_array().unwrap().len(), 10);
    assert_eq!(result[9], json!({"result": ["9", null]}), "order is kept");
    assert_eq!(echo.most.load(Ordering::SeqCst), 4);
}

// --- A caught tool panic keeps stderr quiet ----------------------------------------------------

/// Panics.
#[tool]
fn explode() -> u8 {
    panic!("kaboom from a tool")
}

const PANIC_CHILD: &str = "CMDGUARD_TOOL_PANIC_CHILD";

/// Runs in a child process (this test binary again) so that the real stderr can be read: the
/// default output says nothing, `PanicOutput::PanicHook` lets the hook print the panic.
#[test]
fn a_caught_tool_panic_is_silent_unless_the_runtime_asks() {
    if let Ok(mode) = std::env::var(PANIC_CHILD) {
        let output = match mode.as_str() {
            "hook" => PanicOutput::PanicHook,
            _ => PanicOutput::Captured,
        };
        let toolbox = toolbox_of([explode_tool()]).panic_output(output);
        let err = call(&toolbox, "explode", json!({}), ()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool 'explode' panicked: kaboom from a tool"
        );
        return;
    }
    let stderr_of = |mode: &str| {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "tool_newcomer::a_caught_tool_panic_is_silent_unless_the_runtime_asks",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(PANIC_CHILD, mode)
            .output()
            .unwrap();
        assert!(child.status.success(), "{mode}: {child:?}");
        String::from_utf8_lossy(&child.stderr).into_owned()
    };
    let quiet = stderr_of("captured");
    assert!(!quiet.contains("kaboom"), "stderr: {quiet}");
    let loud = stderr_of("hook");
    assert!(loud.contains("kaboom from a tool"), "stderr: {loud}");
}

// --- Ergonomics: inference, literal defaults, borrowed parameters, context aliases -------------

/// The time (pretend).
#[tool]
fn now() -> &'static str {
    "12:00"
}

#[derive(Debug, Default)]
struct Session {
    user: String,
}

type Ctx = ToolCallContext<Session>;

/// Greets the session's user.
#[tool]
fn whoami(#[tool(context)] ctx: Ctx, greeting: &str) -> String {
    format!("{greeting}, {}", ctx.value().user)
}

/// Greets by reference to an aliased context.
#[tool]
fn whoami_ref(#[tool(context)] ctx: &Ctx) -> String {
    ctx.value().user.clone()
}

#[test]
fn context_free_tools_infer_and_join_a_toolbox_with_a_context() {
    let t = now_tool();
    assert_eq!(t.name(), "now");
    let mut toolbox = ToolBox::<Session>::new();
    toolbox
        .register([t.into_context(), whoami_tool(), whoami_ref_tool()])
        .unwrap();
    let session = || Session { user: "ada".into() };
    assert_eq!(
        call(&toolbox, "now", json!({}), session()),
        Ok(json!("12:00"))
    );
    assert_eq!(
        call(&toolbox, "whoami", json!({"greeting": "hi"}), session()),
        Ok(json!("hi, ada"))
    );
    assert_eq!(
        call(&toolbox, "whoami_ref", json!({}), session()),
        Ok(json!("ada"))
    );
    assert_eq!(
        toolbox.get("whoami").unwrap().parameters()["required"],
        json!(["greeting"]),
        "an aliased context is left out of the schema"
    );
}

/// How loudly.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Volume {
    Quiet,
    Loud,
}

/// Says hello.
#[tool]
fn hello(
    #[tool(default = "hello")] greeting: String,
    #[tool(default = vec!["ada"])] names: Vec<String>,
    #[tool(default = ["x", "y"])] tags: Vec<String>,
    #[tool(default = "loud")] volume: Volume,
    #[tool(default = "world")] target: Option<String>,
) -> Value {
    json!([greeting, names, tags, volume, target])
}

#[test]
fn defaults_accept_the_literal_forms_people_write() {
    let tool = hello_tool();
    let defaults: Vec<&Value> = tool
        .params()
        .iter()
        .map(|p| p.default.as_ref().unwrap())
        .collect();
    assert_eq!(
        defaults,
        [
            &json!("hello"),
            &json!(["ada"]),
            &json!(["x", "y"]),
            &json!("loud"),
            &json!("world")
        ]
    );
    let toolbox = toolbox_of([tool]);
    assert_eq!(
        call(&toolbox, "hello", json!({}), ()),
        Ok(json!(["hello", ["ada"], ["x", "y"], "loud", "world"]))
    );
}

#[test]
fn a_default_that_does_not_fit_its_type_fails_registration_with_the_reason() {
    let tool: Tool = Tool::builder("bad_default")
        .param_default_from::<u32>("n", "", "seven")
        .handler(|_args: Arguments, _ctx| Ok::<_, CallError>(()));
    assert_eq!(
        ToolBox::new().register([tool]).unwrap_err().to_string(),
        "invalid tool 'bad_default': default of parameter 'n' does not fit its type: invalid type: string \"seven\", expected u32"
    );
}

/// Shouts borrowed text.
#[tool]
fn shout(text: &str, suffix: Option<&str>, words: &[String], path: &std::path::Path) -> String {
    format!(
        "{}{} {} {}",
        text.to_uppercase(),
        suffix.unwrap_or("!"),
        words.len(),
        path.display()
    )
}

#[test]
fn borrowed_parameters_are_read_as_owned_values_and_lent() {
    let tool = shout_tool();
    assert_eq!(tool.parameters()["properties"]["text"]["type"], "string");
    assert_eq!(
        tool.parameters()["required"],
        json!(["text", "words", "path"])
    );
    let toolbox = toolbox_of([tool]);
    assert_eq!(
        call(
            &toolbox,
            "shout",
            json!({"text": "hi", "words": ["a", "b"], "path": "/tmp"}),
            ()
        ),
        Ok(json!("HI! 2 /tmp"))
    );
}

// --- Scale: many toggle patterns and many cached calls stay fast --------------------------------

/// Generous bounds: the quadratic versions took seconds (5.3 s for 20k patterns, 1.3 s for 5,000
/// cached calls, in release); these take milliseconds, so even a loaded debug build fits.
const FAST_ENOUGH: Duration = Duration::from_secs(3);

#[test]
fn twenty_thousand_disable_patterns_and_five_thousand_cached_calls_stay_fast() {
    let mut toolbox = toolbox_of((0..200).map(|i| named(&format!("tool_{i}"))));
    let patterns: Vec<String> = (0..20_000).map(|i| format!("tool_{i}")).collect();
    let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let started = Instant::now();
    toolbox.disable(&patterns);
    toolbox.enable(&["tool_1?"]);
    for _ in 0..10 {
        assert_eq!(toolbox.list_tools(&[]).len(), 10, "tool_10 … tool_19");
    }
    assert!(started.elapsed() < FAST_ENOUGH, "{:?}", started.elapsed());

    let cached: Tool = Tool::builder("cached")
        .param::<u32>("n", "")
        .idempotent()
        .handler(|mut args: Arguments, _ctx| args.take::<u32>("n"));
    let toolbox = toolbox_of([cached]);
    let agent = AgentHandle::new("t");
    let started = Instant::now();
    for round in 0..2 {
        for n in 0..5_000 {
            let result = toolbox.call_tool_blocking(&agent, "cached", json!({ "n": n }), ());
            assert_eq!(result, Ok(json!(n)), "round {round}");
        }
    }
    assert!(started.elapsed() < FAST_ENOUGH, "{:?}", started.elapsed());
}

#[test]
fn the_newest_pattern_decides_between_exact_names_and_wildcards() {
    let mut toolbox = toolbox_of(["a_1", "a_2", "b_1"].map(named));
    let listed = |toolbox: &ToolBox| -> Vec<String> {
        toolbox
            .list_tools(&[])
            .iter()
            .map(|t| t.name().to_owned())
            .collect()
    };
    toolbox.disable(&["a_1"]);
    toolbox.enable(&["a_*"]);
    assert_eq!(
        listed(&toolbox),
        ["a_1", "a_2", "b_1"],
        "a newer wildcard overrules"
    );
    toolbox.disable(&["*"]);
    toolbox.enable(&["a_2"]);
    assert_eq!(listed(&toolbox), ["a_2"], "a newer exact name overrules");
    toolbox.enable(&["*"]);
    toolbox.disable(&["a_2"]);
    toolbox.disable(&["*_1"]);
    toolbox.enable(&["a_2"]);
    assert_eq!(
        listed(&toolbox),
        ["a_2"],
        "re-using a pattern makes it the newest"
    );
}

#[test]
fn toolbox_new_works_for_any_context_type() {
    let toolbox = ToolBox::<Session>::new();
    assert_eq!(toolbox.tools().count(), 0);
    let toolbox: ToolBox<Arc<str>> = ToolBox::new();
    assert!(toolbox.list_tools(&[]).is_empty());
}
