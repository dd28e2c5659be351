//! The harness of the red-team tool tests (redteam_tools_a.rs, redteam_tools_b.rs): every
//! built-in group over a workspace in a scratch directory, a second directory standing for
//! "outside", and a user who gives one scripted answer.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt};
use cmdguard::tool::{AgentHandle, CallError, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::scratch::Scratch;

/// A workspace in a scratch directory, a second scratch directory standing for "outside",
/// and a scripted user who gives one answer to every question and remembers each.
pub(crate) struct Red {
    pub(crate) dir: Scratch,
    pub(crate) outside: Scratch,
    pub(crate) toolbox: ToolBox,
    pub(crate) agent: AgentHandle,
    pub(crate) asked: Arc<Mutex<Vec<String>>>,
}

impl Red {
    pub(crate) fn new(answer: Choice) -> Red {
        Red::with(answer, false)
    }

    pub(crate) fn with(answer: Choice, auto_confirm: bool) -> Red {
        let dir = Scratch::new();
        let outside = Scratch::new();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        let policy = Arc::new(Policy::new(PolicySettings {
            auto_confirm,
            state_file: None,
        }));
        let ws = Workspace::new(dir.path())
            .unwrap()
            .with_permission(policy, move |p: &Prompt| {
                seen.lock().unwrap().push(p.command.clone());
                ChoiceOutcome::user(answer.clone())
            });
        Red {
            dir,
            outside,
            toolbox: ToolBox::new().with_all_defaults().unwrap(),
            agent: AgentHandle::new("red").with_workspace(ws),
            asked,
        }
    }

    pub(crate) fn call(&self, tool: &str, args: Value) -> Result<Value, String> {
        self.toolbox
            .call_tool_blocking(&self.agent, tool, args, ())
            .map_err(|e| match e {
                CallError::Failed(info) => info.error,
                other => format!("{other:?}"),
            })
    }

    pub(crate) fn out(&self, rel: &str) -> PathBuf {
        self.outside.path().join(rel)
    }

    pub(crate) fn temp(&self) -> String {
        self.call("temp_dir", json!({}))
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub(crate) fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

/// What [`browser_setup`] returns: the toolbox, the agent, and the questions asked.
pub(crate) type BrowserSetup = (ToolBox, AgentHandle, Arc<Mutex<Vec<String>>>);

/// A workspace with the `browser` group (Chromium as configured by default) and a user who
/// answers `answer` to every question, or `None` where Chromium is not installed.
pub(crate) fn browser_setup(dir: &Scratch, answer: Choice) -> Option<BrowserSetup> {
    use cmdguard::tool::groups::browser::BrowserConfig;
    let config = BrowserConfig::default();
    if !config.chromium_path.is_file() {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "chromium is required in CI (.ci/run installs it)"
        );
        eprintln!(
            "skipping: no chromium at {}",
            config.chromium_path.display()
        );
        return None;
    }
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let policy = Arc::new(Policy::new(PolicySettings {
        auto_confirm: false,
        state_file: None,
    }));
    let ws = Workspace::new(dir.path())
        .unwrap()
        .with_permission(policy, move |p: &Prompt| {
            seen.lock().unwrap().push(p.command.clone());
            ChoiceOutcome::user(answer.clone())
        });
    let agent = AgentHandle::new("red")
        .with_workspace(ws)
        .with_browser(config);
    Some((
        ToolBox::new().with_defaults(&["browser"]).unwrap(),
        agent,
        asked,
    ))
}
