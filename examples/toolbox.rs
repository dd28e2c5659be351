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
    who: &str,
    /// What to say.
    text: String,
    /// How loudly; quiet unless given.
    #[tool(default = "quiet")]
    volume: Volume,
) -> String {
    match volume {
        Volume::Quiet => format!("{who}: {text}"),
        Volume::Loud => format!("{who}: {}!", text.to_uppercase()),
    }
}

/// What counting returns: a `Result` through an alias is still a `Result`.
type Counted = Result<Vec<usize>, String>;

/// Counts the words in each of several texts.
#[tool(name = "count_words", idempotent, labels = ["text"])]
fn texts(
    /// The texts to count; a parameter may share its function's name.
    texts: Vec<String>,
    /// Words shorter than this are not counted.
    #[tool(default = 1)]
    min_len: usize,
) -> Counted {
    if texts.is_empty() {
        return Err("give at least one text".to_owned());
    }
    Ok(texts
        .iter()
        .map(|text| {
            text.split_whitespace()
                .filter(|word| word.chars().count() >= min_len)
                .count()
        })
        .collect())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut toolbox = ToolBox::new();
    toolbox.register([say_tool(), texts_tool()])?;

    let definitions = toolbox.list_tools_json(&[]);
    println!("{}", serde_json::to_string_pretty(&definitions)?);

    let agent = AgentHandle::new("example");
    // A model may send a list as a string holding a JSON array; the validator reads the array.
    // A comma-separated string stays one text and is refused for a list.
    let counts = toolbox.call_tool_blocking(
        &agent,
        "count_words",
        json!({"texts": "[\"a b\", \"c\"]"}),
        (),
    )?;
    println!("count_words -> {counts}");
    let refused = toolbox.call_tool_blocking(&agent, "count_words", json!({"texts": []}), ());
    println!(
        "count_words [] -> {:?}",
        refused.map_err(|err| err.to_string())
    );
    Ok(())
}
