//! examples/toolbox.rs: registers two tools made with `#[tool]`, prints the tool definitions a
//! model would receive (OpenAI shape), then calls one tool as a model would.
//!
//! Run with `cargo run --example toolbox`.

use cmdguard::tool::{AgentHandle, ToolBox, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// How loudly to say something.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Volume {
    Quiet,
    Loud,
}

/// Says something to someone.
#[tool]
fn say(
    /// Whom to talk to.
    who: String,
    /// What to say.
    text: String,
    /// How loudly; quiet unless given.
    #[tool(default = Volume::Quiet)]
    volume: Volume,
) -> String {
    match volume {
        Volume::Quiet => format!("{who}: {text}"),
        Volume::Loud => format!("{who}: {}!", text.to_uppercase()),
    }
}

/// Counts the words in each of several texts.
#[tool(name = "count_words", idempotent, labels = ["text"])]
fn count(texts: Vec<String>) -> Result<Vec<usize>, std::convert::Infallible> {
    Ok(texts
        .iter()
        .map(|text| text.split_whitespace().count())
        .collect())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut toolbox = ToolBox::new();
    toolbox.register([say_tool(), count_tool()])?;

    let definitions = toolbox.list_tools_json(&[]);
    println!("{}", serde_json::to_string_pretty(&definitions)?);

    let agent = AgentHandle::new("example");
    // A model may send a list as a comma-separated string; the validator turns it into an array.
    let counts =
        toolbox.call_tool_blocking(&agent, "count_words", json!({"texts": "a b, c"}), ())?;
    println!("count_words -> {counts}");
    Ok(())
}
