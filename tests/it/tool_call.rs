//! Calling tools through a ToolBox: results, errors, panics, cancellation, async tools, context
//! injection, progress and idempotent caching within a run.

#![allow(clippy::unwrap_used, reason = "tests unwrap to fail loudly")]

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use cmdguard::tool::{
    AgentHandle, Arguments, CallError, Cancelled, ErrorInfo, ProgressEvent, Run, Tool, ToolBox,
    ToolBuilder, ToolCallContext, tool,
};
use serde_json::{Value, json};

/// Divides two integers; panics on division by zero.
#[tool]
fn divide(a: i64, b: i64) -> i64 {
    a / b
}

/// Parses an integer.
#[tool]
fn parse(text: String) -> Result<i64, std::num::ParseIntError> {
    text.parse()
}

/// Returns a map with non-string keys, which JSON cannot hold.
#[tool]
fn unserialisable() -> HashMap<(i32, i32), i32> {
    HashMap::from([((1, 2), 3)])
}

/// Stops because it was cancelled.
#[tool]
fn gives_up() -> Result<(), Cancelled> {
    Err(Cancelled::new("the user left"))
}

/// Stops because it was cancelled, through a boxed error.
#[tool]
fn gives_up_boxed() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err(Box::new(Cancelled::new("boxed")))
}

/// Checks for cancellation between steps.
#[tool]
fn careful(ctx: ToolCallContext<()>) -> Result<u32, Cancelled> {
    ctx.run().cancel("cancelled mid-way");
    ctx.check_cancelled()?;
    Ok(1)
}

/// A future that is pending once before it is ready, as real I/O would be.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Doubles a number after waiting.
#[tool]
async fn slow_double(n: i64) -> i64 {
    YieldOnce(false).await;
    n * 2
}

/// Panics after waiting.
#[tool]
async fn slow_panic() -> i64 {
    YieldOnce(false).await;
    panic!("async boom")
}

/// What the caller passed along.
#[derive(Debug)]
struct Caller {
    tenant: &'static str,
}

/// Reports who called it.
#[tool(name = "whoami")]
fn who_am_i(ctx: &ToolCallContext<Caller>) -> Value {
    json!({"agent": ctx.agent().name, "tool": ctx.tool_name(), "tenant": ctx.value().tenant})
}

fn toolbox() -> ToolBox {
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            divide_tool(),
            parse_tool(),
            unserialisable_tool(),
            gives_up_tool(),
            gives_up_boxed_tool(),
            careful_tool(),
            slow_double_tool(),
            slow_panic_tool(),
        ])
        .unwrap();
    toolbox
}

fn call(name: &str, arguments: Value) -> Result<Value, CallError> {
    toolbox().call_tool_blocking(&AgentHandle::new("t"), name, arguments, ())
}

#[test]
fn returning_a_value_gives_ok() {
    assert_eq!(call("divide", json!({"a": 7, "b": 2})), Ok(json!(3)));
    assert_eq!(call("parse", json!({"text": "42"})), Ok(json!(42)));
}

#[test]
fn a_panicking_tool_returns_err_error_info() {
    assert_eq!(
        call("divide", json!({"a": 1, "b": 0})),
        Err(CallError::Failed(ErrorInfo::new(
            "tool 'divide' panicked: attempt to divide by zero",
            "attempt to divide by zero",
        )))
    );
    assert_eq!(
        call("slow_panic", json!({})),
        Err(CallError::Failed(ErrorInfo::new(
            "tool 'slow_panic' panicked: async boom",
            "async boom"
        )))
    );
}

#[test]
fn returning_an_error_gives_its_display_and_debug() {
    assert_eq!(
        call("parse", json!({"text": "x"})),
        Err(CallError::Failed(ErrorInfo::new(
            "invalid digit found in string",
            "ParseIntError { kind: InvalidDigit }",
        )))
    );
}

#[test]
fn a_value_that_cannot_be_serialised_is_an_error_that_says_so() {
    let err = call("unserialisable", json!({})).unwrap_err();
    let info = err.error_info().unwrap();
    assert_eq!(
        info.error,
        "the tool's result cannot be serialised: key must be a string"
    );
}

#[test]
fn cancellation_propagates_unchanged() {
    let table = [
        ("gives_up", Cancelled::new("the user left")),
        ("gives_up_boxed", Cancelled::new("boxed")),
        ("careful", Cancelled::new("cancelled mid-way")),
    ];
    for (name, cancelled) in table {
        let err = call(name, json!({})).unwrap_err();
        assert_eq!(err, CallError::Cancelled(cancelled), "{name}");
        assert_eq!(
            err.error_info(),
            None,
            "{name}: cancellation must not become an ErrorInfo"
        );
    }
}

#[test]
fn a_cancelled_run_refuses_calls_without_running_the_tool() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            Tool::builder("count").handler(move |_args: Arguments, _ctx| {
                Ok::<_, CallError>(counter.fetch_add(1, Ordering::SeqCst))
            }),
        ])
        .unwrap();
    let agent = AgentHandle::new("t");
    agent.run.cancel("shutting down");
    assert_eq!(
        toolbox.call_tool_blocking(&agent, "count", json!({}), ()),
        Err(CallError::Cancelled(Cancelled::new("shutting down")))
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // The next run is not cancelled.
    assert_eq!(
        toolbox.call_tool_blocking(&agent.with_new_run(), "count", json!({}), ()),
        Ok(json!(0))
    );
}

#[test]
fn async_tools_are_awaited() {
    assert_eq!(call("slow_double", json!({"n": 21})), Ok(json!(42)));
}

#[test]
fn unknown_and_disabled_tools_are_refused_by_name() {
    assert_eq!(
        call("nope", json!({})).unwrap_err().to_string(),
        "tool 'nope' is not registered"
    );
    let mut toolbox = toolbox();
    toolbox.disable(&["div*"]);
    let err = toolbox.call_tool_blocking(
        &AgentHandle::new("t"),
        "divide",
        json!({"a": 1, "b": 1}),
        (),
    );
    assert_eq!(
        err,
        Err(CallError::Disabled {
            name: "divide".into()
        })
    );
    assert_eq!(err.unwrap_err().to_string(), "tool 'divide' is disabled");
}

#[test]
fn the_context_carries_agent_tool_name_and_caller_value() {
    let mut toolbox = ToolBox::<Caller>::default();
    toolbox.register([who_am_i_tool()]).unwrap();
    let agent = AgentHandle::new("planner");
    let result = toolbox.call_tool_blocking(&agent, "whoami", json!({}), Caller { tenant: "acme" });
    assert_eq!(
        result,
        Ok(json!({"agent": "planner", "tool": "whoami", "tenant": "acme"}))
    );
}

#[test]
fn only_tools_that_emit_progress_reach_the_sink() {
    fn reporter(name: &str) -> ToolBuilder {
        Tool::builder(name)
    }
    let handler = |_args: Arguments, ctx: ToolCallContext<()>| {
        Ok::<_, CallError>(ctx.report_progress(json!({"done": 1})))
    };
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            reporter("streams").emits_progress().handler(handler),
            reporter("silent").handler(handler),
        ])
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let agent = AgentHandle::new("t").with_progress(move |event| sink.lock().unwrap().push(event));
    assert_eq!(
        toolbox.call_tool_blocking(&agent, "streams", json!({}), ()),
        Ok(json!(true))
    );
    assert_eq!(
        toolbox.call_tool_blocking(&agent, "silent", json!({}), ()),
        Ok(json!(false))
    );
    assert_eq!(
        *events.lock().unwrap(),
        vec![ProgressEvent {
            tool: "streams".into(),
            data: json!({"done": 1})
        }]
    );
}

/// A toolbox with one idempotent and one ordinary tool that count their calls; negative input
/// fails, so that error caching is visible.
fn counting_toolbox(calls: &Arc<AtomicUsize>) -> ToolBox {
    let finish = |builder: ToolBuilder, calls: Arc<AtomicUsize>| {
        builder
            .param::<i64>("n", "")
            .handler(move |mut args: Arguments, _ctx| {
                let n: i64 = args.take("n")?;
                let count = calls.fetch_add(1, Ordering::SeqCst) + 1;
                if n < 0 {
                    return Err(CallError::Failed(ErrorInfo::new(
                        format!("failure #{count}"),
                        "",
                    )));
                }
                Ok(json!({"n": n, "call": count}))
            })
    };
    let mut toolbox = ToolBox::new();
    toolbox
        .register([
            finish(Tool::builder("plain"), calls.clone()),
            finish(Tool::builder("cached").idempotent(), calls.clone()),
        ])
        .unwrap();
    toolbox
}

#[test]
fn idempotent_tools_answer_repeated_calls_from_the_run_cache() {
    let calls = Arc::new(AtomicUsize::new(0));
    let toolbox = counting_toolbox(&calls);
    let agent = AgentHandle::new("t");
    let call = |agent: &AgentHandle, name: &str, n: Value| {
        toolbox.call_tool_blocking(agent, name, json!({ "n": n }), ())
    };
    assert_eq!(
        call(&agent, "cached", json!(1)),
        Ok(json!({"n": 1, "call": 1}))
    );
    // Equal arguments, even sent as a JSON string, are answered from the cache.
    assert_eq!(
        toolbox.call_tool_blocking(&agent, "cached", json!("{\"n\": 1}"), ()),
        Ok(json!({"n": 1, "call": 1}))
    );
    // Other arguments call the tool again.
    assert_eq!(
        call(&agent, "cached", json!(2)),
        Ok(json!({"n": 2, "call": 2}))
    );
    // Issue 13: failures are not cached, so a retry after a transient error runs the tool.
    assert_eq!(
        call(&agent, "cached", json!(-1)).unwrap_err().to_string(),
        "failure #3"
    );
    assert_eq!(
        call(&agent, "cached", json!(-1)).unwrap_err().to_string(),
        "failure #4"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    // A new run starts with an empty cache.
    let next = agent.with_new_run();
    assert_eq!(
        call(&next, "cached", json!(1)),
        Ok(json!({"n": 1, "call": 5}))
    );
    // The same run shared by another agent handle shares the cache.
    let sibling = AgentHandle::new("other").with_run(agent.run.clone());
    assert_eq!(
        call(&sibling, "cached", json!(2)),
        Ok(json!({"n": 2, "call": 2}))
    );
}

#[test]
fn ordinary_tools_run_every_time() {
    let calls = Arc::new(AtomicUsize::new(0));
    let toolbox = counting_toolbox(&calls);
    let agent = AgentHandle::new("t");
    for expected in 1..=3 {
        let result = toolbox.call_tool_blocking(&agent, "plain", json!({"n": 1}), ());
        assert_eq!(result, Ok(json!({"n": 1, "call": expected})));
    }
}

#[test]
fn call_tool_is_a_send_future() {
    fn assert_send<T: Send>(_: &T) {}
    let toolbox = toolbox();
    let agent = AgentHandle::new("t");
    let future = toolbox.call_tool(&agent, "divide", json!({"a": 4, "b": 2}), ());
    assert_send(&future);
    assert_eq!(poll_to_end(future), Ok(json!(2)));
}

/// Drives a future by busy-polling with a no-op waker, so the async API is exercised without
/// the toolbox's own blocking helper or an external executor.
fn poll_to_end<T>(future: impl Future<Output = T>) -> T {
    let mut future = Box::pin(future);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

#[test]
fn public_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ToolBox>();
    assert_send_sync::<ToolBox<Caller>>();
    assert_send_sync::<Tool>();
    assert_send_sync::<cmdguard::tool::ToolGroups>();
    assert_send_sync::<AgentHandle>();
    assert_send_sync::<Run>();
    assert_send_sync::<ToolCallContext<Caller>>();
    assert_send_sync::<Arguments>();
    assert_send_sync::<CallError>();
    assert_send_sync::<ErrorInfo>();
    assert_send_sync::<cmdguard::tool::RegistryError>();
}
