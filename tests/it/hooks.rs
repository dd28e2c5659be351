//! Agent hooks, `cmdguard install` and the audit log, through the built binary: payloads from
//! `tests/data/hooks/` in each agent's documented format, every way a payload can be wrong fed
//! as real bytes, and settings files merged on disk.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::scratch::Scratch;

const BIN: &str = env!("CARGO_BIN_EXE_cmdguard");

/// A home directory of its own, so no config of this machine is read.
struct Home {
    dir: Scratch,
}

impl Home {
    fn new() -> Home {
        let dir = Scratch::new();
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Home { dir }
    }

    /// The project directory payloads name as `cwd`.
    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn user_config(&self, text: &str) {
        self.dir.write("config/cmdguard/config.toml", text);
    }

    fn command(&self, args: &[&str]) -> Command {
        let home = self.dir.path();
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(home)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("CLAUDE_CONFIG_DIR", home.join("claude"))
            .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
            .env_remove("CMDGUARD_CONFIG")
            .env_remove("CMDGUARD_AUDIT_LOG")
            .env_remove("CMDGUARD_BYPASS")
            .env_remove("CODEX_HOME");
        c
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
        let mut c = self.command(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        // The hook may stop reading early (an oversized payload): a broken pipe is expected.
        let _ = pipe.write_all(stdin);
        drop(pipe);
        child.wait_with_output().unwrap()
    }

    /// A fixture with `@CWD@` and `@CMD@` filled in.
    fn payload(&self, fixture: &str, cmd: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/hooks")
            .join(fixture);
        let text = std::fs::read_to_string(path).unwrap();
        let cmd = serde_json::to_string(cmd).unwrap();
        let cwd = serde_json::to_string(&self.work().display().to_string()).unwrap();
        text.replace("@CWD@", &cwd[1..cwd.len() - 1])
            .replace("@CMD@", &cmd[1..cmd.len() - 1])
            .into_bytes()
    }

    fn hook(&self, agent: &str, stdin: &[u8]) -> Output {
        self.run(&["hook", agent], &[], stdin)
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", stdout(o)))
}

/// The decision and reason in any agent's answer (`None` for no decision).
fn decision(o: &Output) -> Option<(String, String)> {
    if o.stdout.is_empty() {
        return None;
    }
    let v = json(o);
    if let Some(h) = v.get("hookSpecificOutput") {
        return Some((
            h["permissionDecision"].as_str().unwrap().to_string(),
            h["permissionDecisionReason"].as_str().unwrap().to_string(),
        ));
    }
    let d = v.get("decision")?.as_str().unwrap().to_string();
    let r = v
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    Some((d, r))
}

const AGENTS: [(&str, &str); 3] = [
    ("claude-code", "claude-bash.json"),
    ("gemini", "gemini-shell.json"),
    ("codex", "codex-bash.json"),
];

#[test]
fn each_agent_gets_its_verdict_in_its_own_format() {
    let home = Home::new();
    let mut shown = String::new();
    for (agent, fixture) in AGENTS {
        for cmd in ["git status", "ls > out.txt", "rm -rf /"] {
            let o = home.hook(agent, &home.payload(fixture, cmd));
            shown.push_str(&format!(
                "{agent} {cmd:?} → exit {}\n{}\n",
                o.status.code().unwrap(),
                stdout(&o).trim_end()
            ));
        }
    }
    insta::assert_snapshot!(shown);
}

#[test]
fn other_tools_pass_through_untouched() {
    let home = Home::new();
    for (agent, fixture, expected) in [
        ("claude-code", "claude-read.json", ""),
        ("gemini", "gemini-read-file.json", "{}\n"),
        ("codex", "codex-apply-patch.json", ""),
    ] {
        let o = home.hook(agent, &home.payload(fixture, ""));
        assert_eq!(o.status.code(), Some(0), "{agent}");
        assert_eq!(stdout(&o), expected, "{agent}");
    }
}

#[test]
fn camel_case_field_names_are_read_too() {
    let home = Home::new();
    let o = home.hook(
        "claude-code",
        &home.payload("claude-bash-camel.json", "ls > out.txt"),
    );
    assert_eq!(decision(&o).unwrap().0, "ask");
    let o = home.hook(
        "claude-code",
        &home.payload("claude-bash-camel.json", "git log -3"),
    );
    assert_eq!(decision(&o).unwrap().0, "allow");
}

/// `--cwd` comes from the payload: a repository whose config names a program git runs makes
/// `git status` ask there, and only there.
#[test]
fn the_payloads_directory_is_where_the_command_is_checked() {
    let home = Home::new();
    home.dir
        .repo("work/sub", "[core]\n\tfsmonitor = /tmp/evil-monitor\n");
    let o = home.hook("gemini", &home.payload("gemini-shell.json", "git status"));
    assert_eq!(decision(&o).unwrap().0, "allow", "{}", stdout(&o));
    let o = home.hook(
        "gemini",
        &home.payload("gemini-shell-dir.json", "git status"),
    );
    let (d, reason) = decision(&o).unwrap();
    assert_eq!(d, "deny", "{reason}");
    assert!(reason.contains("fsmonitor"), "{reason}");

    let inside = String::from_utf8(home.payload("claude-bash.json", "git status"))
        .unwrap()
        .replace("/work\"", "/work/sub\"");
    let o = home.hook("claude-code", inside.as_bytes());
    assert_eq!(decision(&o).unwrap().0, "ask", "{}", stdout(&o));
}

/// Every way a payload can be wrong, as the bytes an agent could send.
fn broken_payloads(home: &Home) -> Vec<(&'static str, Vec<u8>)> {
    let cwd = home.work().display().to_string();
    let ok = |cmd: &str| {
        format!(
            r#"{{"session_id":"s","cwd":"{cwd}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"{cmd}"}}}}"#
        )
    };
    let mut oversized = ok("git status").into_bytes();
    oversized.extend(std::iter::repeat_n(b' ', 1 << 20));
    vec![
        ("empty", Vec::new()),
        ("not json", b"git status".to_vec()),
        ("truncated", br#"{"tool_name": "Bash", "tool_input": {"comm"#.to_vec()),
        ("not an object", b"[\"Bash\"]".to_vec()),
        (
            "trailing bytes",
            format!("{} rm -rf ~", ok("git status")).into_bytes(),
        ),
        (
            "duplicate key",
            home.payload("claude-duplicate-command.json", "rm -rf ~"),
        ),
        (
            "two spellings",
            home.payload("claude-both-spellings.json", "rm -rf ~"),
        ),
        (
            "no cwd",
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#
                .to_vec(),
        ),
        (
            "relative cwd",
            br#"{"cwd":"work","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#
                .to_vec(),
        ),
        (
            "cwd not a directory",
            br#"{"cwd":"/nonexistent/cmdguard/dir","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#
                .to_vec(),
        ),
        (
            "no event",
            format!(r#"{{"cwd":"{cwd}","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#)
                .into_bytes(),
        ),
        (
            "wrong event",
            format!(
                r#"{{"cwd":"{cwd}","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#
            )
            .into_bytes(),
        ),
        (
            "no tool_input",
            format!(r#"{{"cwd":"{cwd}","hook_event_name":"PreToolUse","tool_name":"Bash"}}"#)
                .into_bytes(),
        ),
        (
            "no command",
            format!(
                r#"{{"cwd":"{cwd}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"description":"x"}}}}"#
            )
            .into_bytes(),
        ),
        (
            "command not a string",
            format!(
                r#"{{"cwd":"{cwd}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":["rm","-rf","/"]}}}}"#
            )
            .into_bytes(),
        ),
        ("no tool_name", br#"{"tool_input":{"command":"ls"}}"#.to_vec()),
        ("not utf-8", {
            let mut b = ok("git status").into_bytes();
            let at = b.len() - 5;
            b.insert(at, 0xff);
            b
        }),
        ("lone surrogate", ok("ls \\ud800").into_bytes()),
        ("raw newline in a string", ok("ls\nrm -rf ~").into_bytes()),
        ("oversized", oversized),
    ]
}

#[test]
fn every_broken_payload_is_an_explicit_ask_never_a_pass() {
    let home = Home::new();
    let mut shown = String::new();
    for (name, bytes) in broken_payloads(&home) {
        let o = home.hook("claude-code", &bytes);
        assert_eq!(o.status.code(), Some(0), "{name}");
        let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{name}: no decision"));
        assert_eq!(d, "ask", "{name}: {reason}");
        let reason = reason.replace(&home.work().display().to_string(), "[WORK]");
        shown.push_str(&format!("{name}: {reason}\n"));
    }
    // Positions depend on the length of the scratch directory's name.
    let positions = regex::Regex::new(r"(column|offset) \d+").unwrap();
    insta::assert_snapshot!(positions.replace_all(&shown, "$1 N"));
}

#[test]
fn agents_that_cannot_ask_get_deny_for_broken_payloads() {
    let home = Home::new();
    for (name, bytes) in broken_payloads(&home) {
        // The same payloads as Gemini CLI would name its shell tool and event.
        let gemini = replace(
            &replace(&bytes, b"\"Bash\"", b"\"run_shell_command\""),
            b"\"PreToolUse\"",
            b"\"BeforeTool\"",
        );
        for (agent, bytes) in [("codex", &bytes), ("gemini", &gemini)] {
            let o = home.hook(agent, bytes);
            assert_eq!(o.status.code(), Some(0), "{agent} {name}");
            let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{agent} {name}"));
            assert_eq!(d, "deny", "{agent} {name}");
            assert!(reason.starts_with("cmdguard could not check"), "{reason}");
        }
    }
}

fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn on_error_deny_and_ask_as_deny_refuse_instead_of_asking() {
    let home = Home::new();
    let o = home.run(&["hook", "claude-code", "--on-error", "deny"], &[], b"{");
    assert_eq!(decision(&o).unwrap().0, "deny");
    let ask = home.payload("claude-bash.json", "ls > out.txt");
    let o = home.run(&["hook", "claude-code", "--ask-as", "deny"], &[], &ask);
    assert_eq!(decision(&o).unwrap().0, "deny");
    // --ask-as also sets what errors become, unless --on-error says otherwise.
    let o = home.run(&["hook", "claude-code", "--ask-as", "deny"], &[], b"{");
    assert_eq!(decision(&o).unwrap().0, "deny");
}

#[test]
fn a_config_that_does_not_load_is_an_ask() {
    let home = Home::new();
    home.user_config("auto_confirm = maybe\n");
    let o = home.hook(
        "claude-code",
        &home.payload("claude-bash.json", "git status"),
    );
    let (d, reason) = decision(&o).unwrap();
    assert_eq!(d, "ask");
    assert!(reason.contains("config does not load"), "{reason}");
}

#[test]
fn an_assessor_past_its_timeout_is_an_ask() {
    let home = Home::new();
    home.user_config(
        "[assessor]\nkind = \"command\"\ncommand = [\"sleep\", \"5\"]\ntimeout_ms = 200\n",
    );
    let o = home.hook(
        "claude-code",
        &home.payload("claude-bash.json", "ls > out.txt"),
    );
    let (d, reason) = decision(&o).unwrap();
    assert_eq!(d, "ask", "{reason}");
    assert!(reason.contains("risk assessment"), "{reason}");
}

#[test]
fn a_decision_past_the_hooks_timeout_is_the_on_error_answer() {
    let home = Home::new();
    home.user_config(
        "[assessor]\nkind = \"command\"\ncommand = [\"sleep\", \"5\"]\ntimeout_ms = 60000\n",
    );
    let start = Instant::now();
    let o = home.run(
        &["hook", "codex", "--timeout", "1"],
        &[],
        &home.payload("codex-bash.json", "ls > out.txt"),
    );
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    let (d, reason) = decision(&o).unwrap();
    assert_eq!(d, "deny");
    assert!(reason.contains("did not decide within 1 s"), "{reason}");
}

/// The pids of `pid`'s children (each thread lists the ones it started).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .flat_map(|t| {
            std::fs::read_to_string(t.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[test]
fn a_checking_process_that_crashes_is_still_answered() {
    // The hook decides in a worker process; here the worker dies of SIGABRT while its assessor
    // runs, as it would from an allocation failure or a crash in a grammar's C scanner (a
    // SIGSEGV sent with kill is swallowed once by Rust's stack-overflow handler, so abort). Every agent would run the tool
    // if the hook itself died, so the supervisor must answer.
    for (agent, fixture, want) in [
        ("claude-code", "claude-bash.json", "ask"),
        ("codex", "codex-bash.json", "deny"),
    ] {
        let home = Home::new();
        home.user_config(
            "[assessor]\nkind = \"command\"\ncommand = [\"sleep\", \"30\"]\ntimeout_ms = 60000\n",
        );
        let mut child = home
            .command(&["hook", agent])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(&home.payload(fixture, "ls > out.txt"))
            .unwrap();
        drop(pipe);
        // Wait until the worker has started its assessor: then it is deep in a decision.
        let start = Instant::now();
        let worker = loop {
            let busy = children(child.id())
                .into_iter()
                .find(|&w| !children(w).is_empty());
            if let Some(w) = busy {
                break w;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "no worker seen");
            std::thread::sleep(Duration::from_millis(20));
        };
        let killed = Command::new("kill")
            .args(["-ABRT", &worker.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{agent}");
        let (d, reason) = decision(&o).unwrap();
        assert_eq!(d, want, "{agent}: {reason}");
        assert!(
            reason.contains("killed by signal 6 (SIGABRT)"),
            "{agent}: {reason}"
        );
    }
}

#[test]
fn a_checking_process_out_of_memory_is_the_on_error_answer() {
    // Which way a tiny cap fails (a thread that cannot start, an allocation that aborts)
    // depends on the build; each must be the on-error answer. The abort itself is tested above.
    let home = Home::new();
    for cap in ["1", "8"] {
        let o = home.run(
            &["hook", "claude-code", "--max-memory", cap],
            &[],
            &home.payload("claude-bash.json", "ls"),
        );
        assert_eq!(o.status.code(), Some(0), "cap {cap}");
        let (d, reason) = decision(&o).unwrap();
        assert_eq!(d, "ask", "cap {cap}: {reason}");
        assert!(reason.contains("could not check"), "cap {cap}: {reason}");
    }
    // A cap with room is no failure.
    let o = home.run(
        &["hook", "claude-code", "--max-memory", "4096"],
        &[],
        &home.payload("claude-bash.json", "ls"),
    );
    assert_eq!(decision(&o).unwrap().0, "allow");
}

#[test]
fn a_mistyped_hook_command_blocks_with_exit_2() {
    let home = Home::new();
    for args in [
        &["hook", "claud-code"][..],
        &["hook"],
        &["hook", "codex", "--bogus"],
    ] {
        let o = home.run(args, &[], b"{}");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!o.stderr.is_empty());
    }
}

#[test]
fn bypass_lets_asks_through_with_a_warning_and_denies_only_when_told() {
    let home = Home::new();
    let ask = home.payload("claude-bash.json", "ls > out.txt");
    let deny = home.payload("claude-bash.json", "rm -rf /");
    let bypass = |value: &str, bytes: &[u8]| {
        home.run(
            &["hook", "claude-code"],
            &[("CMDGUARD_BYPASS", value)],
            bytes,
        )
    };
    let o = bypass("1", &ask);
    let v = json(&o);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("CMDGUARD_BYPASS")
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning"));
    assert_eq!(decision(&bypass("1", &deny)).unwrap().0, "deny");
    assert_eq!(decision(&bypass("deny", &deny)).unwrap().0, "allow");
    // A payload cmdguard cannot read is never bypassed.
    assert_eq!(decision(&bypass("deny", b"{")).unwrap().0, "ask");
    assert_eq!(decision(&bypass("0", &ask)).unwrap().0, "ask");
    // Codex cannot ask, but its asks are still asks to the bypass.
    let o = home.run(
        &["hook", "codex"],
        &[("CMDGUARD_BYPASS", "1")],
        &home.payload("codex-bash.json", "ls > out.txt"),
    );
    let v = json(&o);
    assert!(v.get("hookSpecificOutput").is_none(), "{v}");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("CMDGUARD_BYPASS")
    );
}

#[test]
fn the_audit_log_has_one_line_per_decision_and_no_environment_values() {
    let home = Home::new();
    let log = home.dir.path().join("state/audit.jsonl");
    let log_s = log.display().to_string();
    let secret = "hunter2-never-in-the-log";
    let env = [
        ("CMDGUARD_AUDIT_LOG", log_s.as_str()),
        ("API_TOKEN", secret),
    ];
    for cmd in ["git status", "ls > out.txt", "rm -rf /"] {
        home.run(
            &["hook", "claude-code"],
            &env,
            &home.payload("claude-bash.json", cmd),
        );
    }
    home.run(&["hook", "codex"], &env, b"not json");
    home.run(
        &["hook", "claude-code"],
        &[env[0], ("CMDGUARD_BYPASS", "1")],
        &home.payload("claude-bash.json", "ls > o2"),
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains(secret));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{text}");
    let verdicts: Vec<&str> = lines
        .iter()
        .map(|l| l["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["allow", "ask", "deny", "deny", "allow"]);
    assert_eq!(lines[1]["codes"], serde_json::json!(["redirect"]));
    assert_eq!(lines[1]["rules"], serde_json::json!(["ls"]));
    assert_eq!(lines[1]["route"], "prompt");
    assert_eq!(lines[1]["prompt"], "deferred to the agent");
    assert_eq!(lines[1]["assessment"]["decision"], "unsure");
    assert_eq!(lines[1]["session"], "abc123");
    assert_eq!(lines[1]["cwd"], home.work().display().to_string());
    assert_eq!(lines[2]["rules"][0], "core.filesystem/rm-recursive");
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert!(lines[4]["bypass"].as_str().unwrap().starts_with("ask: "));
    for l in &lines {
        assert!(l["time"].as_str().unwrap().ends_with('Z'));
    }

    let log_cmd = |args: &[&str]| home.run(args, &[env[0]], b"");
    let o = log_cmd(&["log", "--verdict", "ask"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    assert!(stdout(&o).contains("$ ls > out.txt  [redirect]"));
    assert_eq!(
        stdout(&log_cmd(&["log", "--since", "1h"])).lines().count(),
        5
    );
    assert_eq!(
        stdout(&log_cmd(&["log", "--since", "2000-01-01"]))
            .lines()
            .count(),
        5
    );
    assert_eq!(
        stdout(&log_cmd(&["log", "--since", "2999-01-01"]))
            .lines()
            .count(),
        0
    );
    let o = log_cmd(&["log", "--json", "--verdict", "deny"]);
    let denied: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(denied.len(), 2);
    let o = log_cmd(&["log", "--since", "yesterday"]);
    assert_eq!(o.status.code(), Some(64));
}

#[test]
fn the_audit_log_key_in_the_user_config_turns_it_on() {
    let home = Home::new();
    home.user_config("audit_log = \"../../state/decisions.jsonl\"\n");
    home.hook(
        "claude-code",
        &home.payload("claude-bash.json", "git status"),
    );
    // A payload that cannot be read is logged too, to the same file.
    home.hook("claude-code", b"{");
    let log = home.dir.path().join("state/decisions.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().nth(1).unwrap().contains("\"error\":"),
        "{text}"
    );
    let o = home.run(&["log"], &[], b"");
    assert!(stdout(&o).contains("allow  claude-code"), "{}", stdout(&o));
    // A project may not choose where decisions are written.
    let project = home
        .dir
        .write("work/.cmdguard.toml", "audit_log = \"/tmp/x.jsonl\"\n");
    let o = home.run(
        &[
            "config",
            "check",
            "--project",
            &project.display().to_string(),
        ],
        &[],
        b"",
    );
    assert_eq!(o.status.code(), Some(78));
    assert!(String::from_utf8_lossy(&o.stderr).contains("audit_log"));
}

#[test]
fn no_audit_log_configured_is_a_config_error_for_log() {
    let home = Home::new();
    let o = home.run(&["log"], &[], b"");
    assert_eq!(o.status.code(), Some(78));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no audit log"));
}

#[test]
fn concurrent_hooks_append_whole_lines() {
    let home = Home::new();
    let log = home.dir.path().join("audit.jsonl");
    let log_s = log.display().to_string();
    let payload = home.payload("claude-bash.json", "ls > out.txt");
    let children: Vec<_> = (0..8)
        .map(|_| {
            let mut c = home.command(&["hook", "claude-code"]);
            let mut child = c
                .env("CMDGUARD_AUDIT_LOG", &log_s)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&payload).unwrap();
            child
        })
        .collect();
    for mut c in children {
        c.wait().unwrap();
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 8);
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["verdict"], "ask");
    }
}

/// The binary's path in settings, as snapshots show it.
fn redact(text: &str) -> String {
    text.replace(BIN, "[CMDGUARD]")
}

const SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]}],
    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "guard.sh"}]}]
  },
  "env": {"A": "1"}
}
"#;

#[test]
fn install_merges_keeps_the_rest_backs_up_and_is_idempotent() {
    let home = Home::new();
    let file = home.dir.write("claude/settings.json", SETTINGS);
    let first = home.run(&["install", "claude-code"], &[], b"");
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let merged = std::fs::read_to_string(&file).unwrap();
    let backup = PathBuf::from(format!("{}.cmdguard.bak", file.display()));
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), SETTINGS);
    insta::assert_snapshot!("install_claude_settings", redact(&merged));
    insta::assert_snapshot!(
        "install_claude_output",
        redact(&stdout(&first)).replace(&home.dir.path().display().to_string(), "[HOME]")
    );

    let again = home.run(&["install", "claude-code", "--user"], &[], b"");
    assert_eq!(again.status.code(), Some(0));
    assert!(
        stdout(&again).contains("nothing changed"),
        "{}",
        stdout(&again)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), merged);
    let more_backups = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".bak")
        })
        .count();
    assert_eq!(more_backups, 1);
}

#[test]
fn install_updates_a_cmdguard_hook_at_another_path_instead_of_adding_one() {
    let home = Home::new();
    let old = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/old/cmdguard hook claude-code"}]}]}}"#;
    let file = home.dir.write("s.json", old);
    let o = home.run(
        &[
            "install",
            "claude-code",
            "--settings",
            &file.display().to_string(),
        ],
        &[],
        b"",
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("was `/opt/old/cmdguard hook claude-code`"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let groups = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(
        groups[0]["hooks"][0]["command"],
        format!("{BIN} hook claude-code")
    );
}

#[test]
fn install_refuses_a_settings_file_that_is_not_a_json_object() {
    let home = Home::new();
    for (name, text) in [
        ("broken", "{\"model\": \"opus\",\n"),
        (
            "duplicate key",
            r#"{"hooks": {}, "hooks": {"PreToolUse": []}}"#,
        ),
        ("array", "[]"),
        ("hooks not an object", r#"{"hooks": []}"#),
        ("event not an array", r#"{"hooks": {"PreToolUse": {}}}"#),
        ("comments", "// settings\n{}"),
    ] {
        let file = home.dir.write("bad/settings.json", text);
        let shown = file.display().to_string();
        let o = home.run(&["install", "claude-code", "--settings", &shown], &[], b"");
        assert_eq!(o.status.code(), Some(78), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&shown) && err.contains("nothing was written"),
            "{name}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{name}");
        let entries = std::fs::read_dir(file.parent().unwrap()).unwrap().count();
        assert_eq!(entries, 1, "{name}: a backup or temporary file was left");
    }
}

#[test]
fn install_writes_each_agents_entry_where_it_reads_it() {
    let home = Home::new();
    let mut shown = String::new();
    for (agent, scope, rel) in [
        ("claude-code", "--project", "work/.claude/settings.json"),
        ("claude-code", "--local", "work/.claude/settings.local.json"),
        ("gemini", "--user", ".gemini/settings.json"),
        ("gemini", "--project", "work/.gemini/settings.json"),
        ("codex", "--user", ".codex/hooks.json"),
        ("codex", "--project", "work/.codex/hooks.json"),
    ] {
        let mut c = home.command(&["install", agent, scope]);
        let o = c.current_dir(home.work()).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{agent} {scope}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(home.dir.path().join(rel)).unwrap();
        shown.push_str(&format!("{agent} {scope} → {rel}\n{}\n", redact(&text)));
    }
    insta::assert_snapshot!(shown);
    let o = home.run(&["install", "gemini", "--local"], &[], b"");
    assert_eq!(o.status.code(), Some(64));
    // The settings it writes are what the hook then reads: the installed command runs.
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(home.dir.path().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let out = Command::new("sh")
        .args(["-c", &command])
        .env("HOME", home.dir.path())
        .env("XDG_CONFIG_HOME", home.dir.path().join("config"))
        .env(
            "CMDGUARD_SYSTEM_CONFIG",
            home.dir.path().join("etc/config.toml"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(&home.payload("codex-bash.json", "rm -rf /"))?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(decision(&out).unwrap().0, "deny");
}

mod library {
    //! The same decisions through the library, for the properties that need many payloads.

    use cmdguard::Verdict;
    use cmdguard::config::Env;
    use cmdguard::integrations::hook::payload::Strict;
    use cmdguard::integrations::hook::{Agent, Answer, AskAs, Bypass, HookEnv, judge};
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::Home;

    fn env(home: &Home) -> HookEnv {
        let h = home.dir.path();
        HookEnv {
            env: Env::new(h)
                .var("HOME", h)
                .var("XDG_CONFIG_HOME", h.join("config"))
                .var("XDG_STATE_HOME", h.join("state"))
                .var("CLAUDE_CONFIG_DIR", h.join("claude"))
                .var("CMDGUARD_SYSTEM_CONFIG", h.join("etc/config.toml")),
            bypass: Bypass::Off,
            audit_log: None,
        }
    }

    fn verdict(answer: &Answer) -> Option<Verdict> {
        match answer {
            Answer::PassThrough => None,
            // cmdguard's own verdict for a deferred command is `ask`.
            Answer::Deferred { .. } => Some(Verdict::Ask),
            Answer::Decided { verdict, .. } => Some(*verdict),
        }
    }

    /// Every strict prefix of a payload that would be allowed is an `ask`: a payload cut short
    /// anywhere (a crashed writer, a full pipe) is never read as the command it started as.
    #[test]
    fn every_truncation_of_an_allowed_payload_asks() {
        let home = Home::new();
        let env = env(&home);
        let full = home.payload("claude-bash.json", "git status");
        let run = |b: &[u8]| {
            judge(
                Agent::ClaudeCode,
                AskAs::Ask,
                AskAs::Ask,
                Ok(b.to_vec()),
                &env,
            )
            .answer
        };
        assert_eq!(verdict(&run(&full)), Some(Verdict::Allow));
        let end = full.iter().rposition(|b| *b == b'}').unwrap();
        for cut in 0..=end {
            assert_eq!(
                verdict(&run(&full[..cut])),
                Some(Verdict::Ask),
                "cut at {cut}: {:?}",
                String::from_utf8_lossy(&full[..cut])
            );
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[a-z\\\\\"\u{e9}\u{1f600} ]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        /// Without duplicate keys the strict reader reads what serde_json reads.
        #[test]
        fn strict_json_reads_what_serde_json_reads(v in json_value()) {
            let text = serde_json::to_string(&v).unwrap();
            let Strict(read) = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(read, v);
        }

        /// Any object written with one of its keys twice is refused, however deep it sits.
        #[test]
        fn strict_json_refuses_a_repeated_key(v in json_value(), key in "[a-z_]{1,6}") {
            let text = serde_json::to_string(&v).unwrap();
            let inner = format!(r#"{{"{key}": 1, "x": {text}, "{key}": 2}}"#);
            let wrapped = format!(r#"{{"a": [{inner}]}}"#);
            prop_assert!(serde_json::from_str::<Strict>(&wrapped).is_err());
        }

        /// Bytes that are not a payload never come out as `allow`.
        #[test]
        fn arbitrary_bytes_never_allow(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let home = Home::new();
            let answer = judge(Agent::Codex, AskAs::Deny, AskAs::Deny, Ok(bytes), &env(&home)).answer;
            prop_assert_ne!(verdict(&answer), Some(Verdict::Allow));
        }
    }
}

/// The allow rules the s6 red team's Claude Code settings held (and three more of the same
/// kind), written where `CLAUDE_CONFIG_DIR` points.
const RED_TEAM_SETTINGS: &str = r#"{
  "permissions": {
    "allow": [
      "Bash(psql:*)", "Bash(sqlite3:*)", "Bash(mongosh:*)", "Bash(git fetch-pack:*)",
      "Bash(valkey-cli:*)", "Bash(gh:*)", "Bash(aws:*)", "Bash(kubectl:*)"
    ],
    "deny": ["Bash(git push:*)"]
  }
}"#;

/// Commands that ask only because their program is not in cmdguard's allowlist, each covered
/// by one of [`RED_TEAM_SETTINGS`]' allow rules: what such a program runs or prints is not
/// seen (the s7 red team's credential printers among them).
const UNSEEN_BEHIND_IMPORTED_RULES: &[(&str, &str)] = &[
    ("psql -c 'select 1'", "psql:*"),
    ("sqlite3 db .tables", "sqlite3:*"),
    ("mongosh --eval 'db.stats()'", "mongosh:*"),
    ("git fetch-pack x", "git fetch-pack:*"),
    ("valkey-cli GET k", "valkey-cli:*"),
    ("gh config get oauth_token -h github.com", "gh:*"),
    (
        "aws secretsmanager batch-get-secret-value --secret-id-list x",
        "aws:*",
    ),
    (
        "kubectl get secret x --template='{{.data.password}}'",
        "kubectl:*",
    ),
];

/// The s6 red team's rows behind those rules: cmdguard now sees their side door or secret, so
/// the hook decides them whatever the rules and `defer_allow_rules` say.
const SEEN_BEHIND_IMPORTED_RULES: &[(&str, &str)] = &[
    (r"psql -c '\echo `rm -rf ~`'", "deny"),
    (r#"sqlite3 db '.import "|rm -rf ~" t'"#, "deny"),
    ("sqlite3 db '.o |rm -rf ~'", "deny"),
    (r#"sqlite3 db ".read '|rm -rf ~'""#, "deny"),
    ("sqlite3 db '.  shell rm -rf ~'", "deny"),
    (
        r#"mongosh --eval 'require("child_process").execSync("rm -rf ~")'"#,
        "deny",
    ),
    (r#"psql -c "COPY t TO PROGRAM U&'rm -rf ~'""#, "deny"),
    ("git fetch-pack --upload-pack='rm -rf ~' x", "deny"),
    ("valkey-cli FLUSHALL", "deny"),
    ("gh auth token", "ask"),
    ("aws configure get aws_secret_access_key", "ask"),
    ("kubectl config view --raw", "ask"),
];

#[test]
fn what_cmdguard_sees_behind_an_imported_rule_is_decided_even_when_deferring() {
    let home = Home::new();
    home.dir.write("claude/settings.json", RED_TEAM_SETTINGS);
    home.user_config("[claude]\ndefer_allow_rules = true\n");
    for (cmd, want) in SEEN_BEHIND_IMPORTED_RULES {
        let o = home.hook("claude-code", &home.payload("claude-bash.json", cmd));
        let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{cmd}: no decision"));
        assert_eq!(d, *want, "{cmd}: {reason}");
    }
}

/// A payload with another `permission_mode`.
fn in_mode(payload: &[u8], mode: &str) -> Vec<u8> {
    replace(
        payload,
        br#""permission_mode": "default""#,
        format!(r#""permission_mode": "{mode}""#).as_bytes(),
    )
}

/// Regression (s6 red team, hook-claude rows): allow rules imported from Claude Code's
/// settings made `cmdguard hook claude-code` answer `allow` for commands whose side doors
/// cmdguard never saw. Now cmdguard never says allow for them. By default it asks, naming the
/// rule and the switch (s7 red team: deferring let Claude Code's `Bash(aws:*)` run every
/// credential printer of the program). With `[claude] defer_allow_rules = true` in the user's
/// config, Claude Code's hook gets no decision (its own permissions, which hold the rule,
/// decide) in the modes where Claude Code applies its rules, `ask` in any other; agents that
/// cannot ask get `deny`; `check` asks and names the rule.
#[test]
fn imported_claude_allow_rules_never_make_cmdguard_say_allow() {
    let home = Home::new();
    home.dir.write("claude/settings.json", RED_TEAM_SETTINGS);
    for (cmd, rule) in UNSEEN_BEHIND_IMPORTED_RULES {
        let payload = home.payload("claude-bash.json", cmd);
        for mode in [
            "default",
            "acceptEdits",
            "plan",
            "dontAsk",
            "bypassPermissions",
        ] {
            let o = home.hook("claude-code", &in_mode(&payload, mode));
            let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{cmd} in {mode}"));
            assert_eq!(d, "ask", "{cmd} in {mode}: {reason}");
            assert!(reason.contains(&format!("`Bash({rule})`")), "{reason}");
            assert!(reason.contains("defer_allow_rules = true"), "{reason}");
        }
    }
    home.user_config("[claude]\ndefer_allow_rules = true\n");
    for (cmd, rule) in UNSEEN_BEHIND_IMPORTED_RULES {
        let payload = home.payload("claude-bash.json", cmd);
        for mode in ["default", "acceptEdits", "plan", "dontAsk"] {
            let o = home.hook("claude-code", &in_mode(&payload, mode));
            assert_eq!(o.status.code(), Some(0), "{cmd} in {mode}");
            assert_eq!(
                stdout(&o),
                "",
                "{cmd} in {mode}: no decision, Claude Code decides"
            );
        }
        for mode in ["bypassPermissions", "someFutureMode"] {
            let o = home.hook("claude-code", &in_mode(&payload, mode));
            let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{cmd} in {mode}"));
            assert_eq!(d, "ask", "{cmd} in {mode}: {reason}");
            assert!(reason.contains("not left to Claude Code"), "{reason}");
        }
        let no_mode = replace(&payload, br#""permission_mode": "default","#, b"");
        let (d, _) = decision(&home.hook("claude-code", &no_mode)).unwrap();
        assert_eq!(d, "ask", "{cmd} with no permission_mode");
        for (agent, fixture) in [
            ("gemini", "gemini-shell.json"),
            ("codex", "codex-bash.json"),
        ] {
            let o = home.hook(agent, &home.payload(fixture, cmd));
            let (d, _) = decision(&o).unwrap_or_else(|| panic!("{agent} {cmd}: no decision"));
            assert_eq!(d, "deny", "{agent} {cmd}");
        }
        let o = home.run(&["check", "--", cmd], &[], b"");
        assert_eq!(o.status.code(), Some(1), "check {cmd}: {}", stdout(&o));
        let out = stdout(&o);
        assert!(out.starts_with("ask:"), "{out}");
        assert!(
            out.contains(&format!("imported Claude Code allow rule `Bash({rule})`")),
            "{out}"
        );
    }
}

/// The same through `~/.claude/settings.json` found from `HOME`, as the red team had it, with
/// deferring turned on by the user.
#[test]
fn imported_claude_allow_rules_from_home_never_make_cmdguard_say_allow() {
    let home = Home::new();
    home.dir.write(".claude/settings.json", RED_TEAM_SETTINGS);
    home.user_config("[claude]\ndefer_allow_rules = true\n");
    for (cmd, rule) in UNSEEN_BEHIND_IMPORTED_RULES {
        let mut c = home.command(&["check", "--", cmd]);
        c.env_remove("CLAUDE_CONFIG_DIR");
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(1), "check {cmd}: {}", stdout(&o));
        assert!(
            stdout(&o).contains(&format!("`Bash({rule})`")),
            "{}",
            stdout(&o)
        );
        let mut c = home.command(&["hook", "claude-code"]);
        c.env_remove("CLAUDE_CONFIG_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(&home.payload("claude-bash.json", cmd))
            .unwrap();
        drop(pipe);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{cmd}");
        assert_eq!(stdout(&o), "", "{cmd}: no decision");
    }
}

/// What an imported allow rule does not cover still asks with its own reason, deny rules are
/// imported as written, and `--ask-as deny` is not undone by a deferral.
#[test]
fn imported_claude_rules_defer_only_what_they_alone_cover() {
    let home = Home::new();
    home.dir.write("claude/settings.json", RED_TEAM_SETTINGS);
    let hook = |cmd: &str| home.hook("claude-code", &home.payload("claude-bash.json", cmd));
    for (cmd, want) in [
        // A redirect is cmdguard's finding, not the rule's.
        ("psql -c 'select 1' > out.txt", "ask"),
        // A program no rule names.
        ("sqlite3 db .tables && mysql -e 'select 1'", "ask"),
        ("git push origin main", "deny"),
        ("rm -rf /", "deny"),
        ("git status", "allow"),
    ] {
        let (d, reason) = decision(&hook(cmd)).unwrap_or_else(|| panic!("{cmd}: no decision"));
        assert_eq!(d, want, "{cmd}: {reason}");
    }
    let o = home.run(
        &["hook", "claude-code", "--ask-as", "deny"],
        &[],
        &home.payload("claude-bash.json", "gh auth token"),
    );
    assert_eq!(decision(&o).unwrap().0, "deny");
}

/// Regression (s6 red team, hook-codex row): the hook judged a Codex command in the turn's
/// `cwd` and ignored `tool_input.workdir`. With a `workdir`, the command is judged there
/// (relative to `cwd`); one that is not a directory, or not a string, is the fail-closed
/// answer.
#[test]
fn codex_commands_are_judged_in_their_workdir() {
    let home = Home::new();
    home.dir
        .repo("work/sub", "[core]\n\tfsmonitor = /tmp/evil-monitor\n");
    let with_workdir = |workdir: &str| {
        let text = String::from_utf8(home.payload("codex-bash.json", "git status")).unwrap();
        text.replace(
            r#""tool_input": {"command": "git status"}"#,
            &format!(r#""tool_input": {{"command": "git status", "workdir": {workdir}}}"#),
        )
        .into_bytes()
    };
    let o = home.hook("codex", &home.payload("codex-bash.json", "git status"));
    assert_eq!(decision(&o), None, "allowed in the turn's cwd");
    let sub = home.work().join("sub").display().to_string();
    for workdir in [r#""sub""#.to_string(), format!("{sub:?}")] {
        let o = home.hook("codex", &with_workdir(&workdir));
        let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{workdir}: no decision"));
        assert_eq!(d, "deny", "{workdir}");
        assert!(reason.contains("fsmonitor"), "{reason}");
    }
    for workdir in [r#""missing""#, r#""/nonexistent/cmdguard""#, "7", "null"] {
        let o = home.hook("codex", &with_workdir(workdir));
        let (d, reason) = decision(&o).unwrap_or_else(|| panic!("{workdir}: no decision"));
        assert_eq!(d, "deny", "{workdir}");
        assert!(reason.contains("could not check"), "{workdir}: {reason}");
    }
}
