//! The forms issue 13's newcomer wrote from the docs, all of which must compile.

use cmdguard::tool::{AgentHandle, ToolBox, ToolCallContext, tool};

/// A parameter named like its function.
#[tool]
fn query(query: String) -> String {
    query
}

/// The same for a list.
#[tool]
fn texts(texts: Vec<String>) -> usize {
    texts.len()
}

type Outcome = Result<String, String>;

/// An error through a `Result` alias.
#[tool(output_schema)]
fn checked(text: &str, suffix: Option<&str>) -> Outcome {
    Err(format!("{text}{}", suffix.unwrap_or("")))
}

/// Literal defaults.
#[tool]
fn greet(
    #[tool(default = "hello")] greeting: String,
    #[tool(default = vec!["ada"])] names: Vec<String>,
) -> String {
    format!("{greeting} {}", names.join(" "))
}

/// A context-free tool.
#[tool]
fn now() -> &'static str {
    "12:00"
}

struct Session;
type Ctx = ToolCallContext<Session>;

/// A context through an alias.
#[tool]
fn with_alias(#[tool(context)] ctx: &Ctx) -> bool {
    let _session: &Session = ctx.value();
    true
}

fn main() {
    // Inferred without a turbofish.
    let t = now_tool();
    let mut toolbox = ToolBox::new();
    toolbox
        .register([t, query_tool(), texts_tool(), checked_tool(), greet_tool()])
        .unwrap();
    let failed = toolbox.call_tool_blocking(
        &AgentHandle::new("ui"),
        "checked",
        serde_json::json!({"text": "no"}),
        (),
    );
    assert_eq!(failed.unwrap_err().to_string(), "no");
    let mut with_context = ToolBox::<Session>::new();
    with_context
        .register([with_alias_tool(), now_tool().into_context()])
        .unwrap();
}
