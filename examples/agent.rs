//! examples/agent.rs: a complete agent loop with the built-in tools and a scripted "model".
//!
//! The model's turns are written out below instead of coming from an LLM, so the loop runs
//! offline and always the same way: it lists the workspace, writes a note, runs commands
//! through the `bash` tool (an allowed one runs; a destructive one is denied before it starts;
//! one that needs a person is put to the confirmer, who says no), applies a patch (the
//! confirmer lets file changes through) and answers.
//!
//! Run with `cargo run --example agent`.

use std::sync::Arc;

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt, TITLE_FILE_CHANGE};
use cmdguard::tool::{AgentHandle, ToolBox, Workspace};
use serde_json::{Value, json};

/// What the model says on a turn: tool calls to make, or its final answer.
enum Turn {
    Calls(Vec<(&'static str, Value)>),
    Answer(&'static str),
}

/// The scripted model: it ignores what it is shown and plays its turns in order.
fn scripted_model() -> impl Iterator<Item = Turn> {
    vec![
        Turn::Calls(vec![("list_dir", json!({"path": "."}))]),
        Turn::Calls(vec![(
            "write_file",
            json!({"path": "notes.txt", "content": "todo: ship\n"}),
        )]),
        Turn::Calls(vec![
            ("bash", json!({"command": "wc -l notes.txt && ls"})),
            ("bash", json!({"command": "rm -rf ~"})),
            ("bash", json!({"command": "touch made-by-bash"})),
        ]),
        Turn::Calls(vec![(
            "apply_patch",
            json!({"patch": "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-todo: ship\n+done: ship\n"}),
        )]),
        Turn::Calls(vec![("read_file", json!({"path": "notes.txt"}))]),
        Turn::Answer("The note says the work shipped."),
    ]
    .into_iter()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("cmdguard-agent-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;

    // The person behind the agent, shown every prompt: here they let file changes through
    // and refuse every command that needs a person.
    let confirmer = |p: &Prompt| {
        let choice = if p.title == TITLE_FILE_CHANGE {
            Choice::Yes
        } else {
            Choice::No
        };
        println!("  [prompt] {}: {} -> {choice:?}", p.title, p.command);
        ChoiceOutcome::user(choice)
    };
    let policy = Arc::new(Policy::new(PolicySettings::default()));
    let workspace = Workspace::new(&dir)?.with_permission(policy, confirmer);
    let agent = AgentHandle::new("coder").with_workspace(workspace);
    let tools = ToolBox::new().with_defaults(&["fs", "patch", "cmd"])?;
    println!("{} tools offered to the model", tools.list_tools(&[]).len());

    for turn in scripted_model() {
        match turn {
            Turn::Calls(calls) => {
                for (name, arguments) in calls {
                    println!("model calls {name} {arguments}");
                    let result = tools.call_tool_blocking(&agent, name, arguments, ());
                    // What goes back to the model: the value, or the error it can read.
                    let shown = match result {
                        Ok(value) => value,
                        Err(e) => json!({"error": e.error_info().map(|i| i.error)}),
                    };
                    println!("  -> {shown}");
                }
            }
            Turn::Answer(text) => println!("model answers: {text}"),
        }
    }
    assert!(!dir.join("made-by-bash").exists(), "a refused command ran");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt"))?,
        "done: ship\n"
    );
    drop(agent);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
