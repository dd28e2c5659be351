//! The `cmd` group's `bash` tool and background jobs, run for real: a refused command never
//! starts (its marker file is never made), an allowed one runs in bash with a timeout,
//! cancellation and cut output.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt};
use cmdguard::tool::{AgentHandle, CallError, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::scratch::Scratch;

struct Shell {
    dir: Scratch,
    toolbox: ToolBox,
    agent: AgentHandle,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Shell {
    /// A workspace whose user answers `answer`; `None`: no confirmation policy at all.
    fn new(answer: Option<Choice>) -> Shell {
        let dir = Scratch::new();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let mut ws = Workspace::new(dir.path()).unwrap();
        if let Some(answer) = answer {
            let seen = asked.clone();
            ws = ws.with_permission(
                Arc::new(Policy::new(PolicySettings::default())),
                move |p: &Prompt| {
                    seen.lock().unwrap().push(p.command.clone());
                    ChoiceOutcome::user(answer.clone())
                },
            );
        }
        Shell {
            dir,
            toolbox: ToolBox::new().with_defaults(&["cmd"]).unwrap(),
            agent: AgentHandle::new("tester").with_workspace(ws),
            asked,
        }
    }

    fn call(&self, tool: &str, args: Value) -> Result<Value, String> {
        self.toolbox
            .call_tool_blocking(&self.agent, tool, args, ())
            .map_err(|e| match e {
                CallError::Failed(info) => info.error,
                other => format!("{other:?}"),
            })
    }

    fn run(&self, command: &str) -> Result<Value, String> {
        self.call("bash", json!({"command": command}))
    }

    fn marker(&self, name: &str) -> bool {
        self.dir.path().join(name).exists()
    }
}

#[test]
fn an_allowed_command_runs_and_reports_its_exit_code_and_output() {
    let sh = Shell::new(Some(Choice::No));
    let out = sh.run("echo hi; echo oops >&2; ls nothing-here").unwrap();
    assert_eq!(out["exit_code"], json!(2));
    let text = out["output"].as_str().unwrap();
    assert!(text.starts_with("hi\noops\n"), "{text:?}");
    assert!(text.contains("nothing-here"), "{text:?}");
    assert!(sh.asked.lock().unwrap().is_empty());
}

#[test]
fn a_denied_command_never_starts_even_when_the_user_would_say_yes() {
    let sh = Shell::new(Some(Choice::Yes));
    let e = sh.run("touch MARK; rm -rf /").unwrap_err();
    assert!(e.contains("was denied"), "{e}");
    assert!(!sh.marker("MARK"));
    assert!(
        sh.asked.lock().unwrap().is_empty(),
        "a deny is not a question"
    );
}

#[test]
fn an_ask_runs_only_when_the_user_says_yes() {
    let no = Shell::new(Some(Choice::No));
    let e = no.run("touch MARK").unwrap_err();
    assert!(e.contains("rejected by confirmation"), "{e}");
    assert!(!no.marker("MARK"));
    assert_eq!(*no.asked.lock().unwrap(), ["touch MARK"]);

    let yes = Shell::new(Some(Choice::Yes));
    yes.run("touch MARK").unwrap();
    assert!(yes.marker("MARK"));

    let nobody = Shell::new(None);
    let e = nobody.run("touch MARK").unwrap_err();
    assert!(e.contains("no confirmation policy"), "{e}");
    assert!(!nobody.marker("MARK"));
    assert_eq!(nobody.run("echo fine").unwrap()["exit_code"], json!(0));
}

#[test]
fn cd_and_envs_are_part_of_what_is_judged() {
    let sh = Shell::new(Some(Choice::No));
    sh.dir.write("sub/f.txt", "x");
    let sub = std::fs::canonicalize(sh.dir.path().join("sub")).unwrap();
    let out = sh
        .call("bash", json!({"command": "pwd", "cd": "sub"}))
        .unwrap();
    assert_eq!(out["output"], json!(format!("{}\n", sub.display())));
    assert!(
        sh.call("bash", json!({"command": "pwd", "cd": "/"}))
            .unwrap_err()
            .contains("not within the agent's workspace")
    );
    // An inert name ([env] inert) passes; the value reaches the command intact.
    let out = sh
        .call(
            "bash",
            json!({"command": "echo \"$TZ\"", "envs": {"TZ": "it's UTC"}}),
        )
        .unwrap();
    assert_eq!(out["output"], json!("it's UTC\n"));
    let e = sh
        .call(
            "bash",
            json!({"command": "echo hi", "envs": {"GREETING": "x"}}),
        )
        .unwrap_err();
    assert!(e.contains("export GREETING='x'"), "{e}");
    // A variable that changes what programs run is judged as an export: here, asked and refused.
    let e = sh
        .call(
            "bash",
            json!({"command": "echo hi", "envs": {"BASH_ENV": "/tmp/x"}}),
        )
        .unwrap_err();
    assert!(e.contains("rejected"), "{e}");
    let e = sh
        .call("bash", json!({"command": "echo hi", "envs": {"A B": "x"}}))
        .unwrap_err();
    assert!(e.contains("not a valid environment variable name"), "{e}");
}

#[test]
fn long_output_keeps_its_head_and_tail() {
    let sh = Shell::new(Some(Choice::No));
    let out = sh
        .call(
            "bash",
            json!({"command": "seq 1 100000", "max_output_size": 100}),
        )
        .unwrap();
    let text = out["output"].as_str().unwrap();
    assert!(text.starts_with("1\n2\n3\n"), "{text:?}");
    assert!(text.ends_with("99999\n100000\n"), "{text:?}");
    assert!(text.contains("bytes omitted"), "{text:?}");
    assert_eq!(out["omitted_bytes"], json!(588_895 - 100));
}

#[test]
fn a_command_past_its_timeout_is_terminated_then_killed() {
    let sh = Shell::new(Some(Choice::Yes));
    let start = Instant::now();
    let out = sh
        .call("bash", json!({"command": "sleep 60", "timeout": 1}))
        .unwrap();
    assert_eq!(out["timed_out"], json!(true));
    assert_eq!(out["signal"], json!(15));
    assert!(start.elapsed() < Duration::from_secs(30));
    // A command that ignores SIGTERM is killed after the grace period.
    let out = sh
        .call(
            "bash",
            json!({"command": "trap '' TERM; sleep 60", "timeout": 1}),
        )
        .unwrap();
    assert_eq!(
        (out["timed_out"].clone(), out["signal"].clone()),
        (json!(true), json!(9))
    );
}

#[test]
fn cancelling_the_run_stops_the_command() {
    let sh = Shell::new(Some(Choice::Yes));
    let run = sh.agent.run.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        run.cancel("user pressed stop");
    });
    let start = Instant::now();
    let e = sh.run("sleep 60; touch LATE").unwrap_err();
    canceller.join().unwrap();
    assert!(e.contains("cancel"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert!(!sh.marker("LATE"));
}

#[test]
fn background_jobs_run_report_and_stop() {
    let sh = Shell::new(Some(Choice::Yes));
    let job = sh
        .call(
            "bash_background",
            json!({"command": "sleep 0.3; echo done"}),
        )
        .unwrap();
    let id = job["id"].as_u64().unwrap();
    assert_eq!(job["running"], json!(true));
    let listed = sh.call("bash_list", json!({})).unwrap();
    assert_eq!(listed[0]["id"], json!(id));
    let waited = sh
        .call("bash_wait", json!({"id": id, "timeout": 20}))
        .unwrap();
    assert_eq!(
        (
            waited["running"].clone(),
            waited["exit_code"].clone(),
            waited["output"].clone()
        ),
        (json!(false), json!(0), json!("done\n"))
    );
    assert_eq!(
        sh.call("bash_read", json!({"id": id})).unwrap()["output"],
        json!("")
    );

    let long = sh
        .call("bash_background", json!({"command": "sleep 60"}))
        .unwrap();
    let long_id = long["id"].as_u64().unwrap();
    let stopped = sh.call("bash_stop", json!({"id": long_id})).unwrap();
    assert_eq!(
        (stopped["running"].clone(), stopped["signal"].clone()),
        (json!(false), json!(15))
    );
    assert!(
        sh.call("bash_read", json!({"id": long_id}))
            .unwrap_err()
            .contains("no background job")
    );

    // Refused background commands never start either.
    let no = Shell::new(Some(Choice::No));
    assert!(
        no.call("bash_background", json!({"command": "touch MARK"}))
            .is_err()
    );
    assert!(!no.marker("MARK"));
}

#[test]
fn dropping_the_workspace_kills_its_background_jobs() {
    let sh = Shell::new(Some(Choice::Yes));
    let job = sh
        .call("bash_background", json!({"command": "sleep 60"}))
        .unwrap();
    let pid = job["pid"].as_u64().unwrap();
    let proc_dir = format!("/proc/{pid}");
    assert!(Path::new(&proc_dir).exists());
    let Shell { agent, toolbox, .. } = sh;
    drop(agent);
    drop(toolbox);
    assert!(
        !Path::new(&proc_dir).exists(),
        "job {pid} outlived its workspace"
    );
}

#[test]
fn the_tool_schema_says_what_a_model_may_pass() {
    let sh = Shell::new(None);
    let tools = sh.toolbox.list_tools_json(&[]);
    let bash = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "bash")
        .unwrap();
    let props = &bash["function"]["parameters"]["properties"];
    let names: BTreeMap<_, _> = props.as_object().unwrap().iter().collect();
    assert_eq!(
        names.keys().map(|k| k.as_str()).collect::<Vec<_>>(),
        ["cd", "command", "envs", "max_output_size", "timeout"]
    );
    assert_eq!(props["timeout"]["default"], json!(300));
    assert_eq!(
        bash["function"]["parameters"]["required"],
        json!(["command"])
    );
}

#[test]
fn a_workspace_with_a_config_judges_by_its_command_rules_too() {
    let dir = Scratch::new();
    dir.write(
        "home/.claude/settings.json",
        r#"{"permissions": {"allow": ["Bash(touch MARK)"], "deny": ["Bash(echo secret:*)"]}}"#,
    );
    std::fs::create_dir_all(dir.path().join("proj")).unwrap();
    let env = cmdguard::config::Env::new(dir.path().join("proj"))
        .var("HOME", dir.path().join("home"))
        .var("XDG_STATE_HOME", dir.path().join("state"))
        .var("CMDGUARD_SYSTEM_CONFIG", dir.path().join("none.toml"));
    let config = cmdguard::config::ConfigSources::discover(&env)
        .load()
        .unwrap();
    let asked = Arc::new(Mutex::new(0));
    let count = asked.clone();
    let ws = Workspace::new(dir.path().join("proj"))
        .unwrap()
        .with_permission(
            Arc::new(Policy::new(PolicySettings::default())),
            move |_: &Prompt| {
                *count.lock().unwrap() += 1;
                ChoiceOutcome::user(Choice::No)
            },
        )
        .with_config(Arc::new(config));
    let agent = AgentHandle::new("t").with_workspace(ws);
    let toolbox = ToolBox::new().with_defaults(&["cmd"]).unwrap();
    let run = |cmd: &str| toolbox.call_tool_blocking(&agent, "bash", json!({"command": cmd}), ());
    // The user's Claude Code deny rule stops a command the allowlist alone would allow…
    assert!(run("echo secret stuff").is_err());
    assert_eq!(run("echo fine").unwrap()["exit_code"], json!(0));
    assert_eq!(*asked.lock().unwrap(), 0);
    // …but its allow rule never lets cmdguard run what its allowlist does not know: only
    // Claude Code may act on its own allow rules, so the tool layer still asks.
    assert!(run("touch MARK").is_err());
    assert!(!dir.path().join("proj/MARK").exists());
    assert_eq!(*asked.lock().unwrap(), 1);
}
