//! The CLI contract: exit codes, JSON shapes, stdin and JSON-lines modes, non-UTF-8 input,
//! usage and config errors. These run the built binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary, with no config file of this machine in reach: an empty home, state and system
/// config, and no `CMDGUARD_CONFIG`, so the results are the built-in default's.
fn isolated() -> Command {
    let home = std::env::temp_dir().join(format!("cmdguard-cli-home-{}", std::process::id()));
    let mut c = Command::new(env!("CARGO_BIN_EXE_cmdguard"));
    c.env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("CLAUDE_CONFIG_DIR", home.join("claude"))
        .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
        .env_remove("CMDGUARD_CONFIG");
    c
}

fn cmdguard(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = isolated()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.unwrap_or(b"")).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

#[test]
fn exit_codes_are_0_allow_1_ask_2_deny() {
    assert_eq!(
        code(&cmdguard(&["check", "git diff --stat | head"], None)),
        0
    );
    assert_eq!(code(&cmdguard(&["check", "ls > out.txt"], None)), 1);
    assert_eq!(code(&cmdguard(&["check", "rm -rf /"], None)), 2);
}

#[test]
fn several_words_are_joined_into_one_command() {
    let o = cmdguard(&["check", "--json", "--", "git", "log", "-5"], None);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["cmd"], "git log -5");
}

#[test]
fn json_output_has_verdict_findings_and_segments() {
    let o = cmdguard(&["check", "--json", "git diff > p.txt"], None);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "ask");
    assert_eq!(v["findings"][0]["code"], "redirect");
    assert_eq!(v["findings"][0]["span"], serde_json::json!([9, 16]));
    assert_eq!(v["findings"][0]["severity"], "ask");
    assert_eq!(v["segments"][0]["argv"], serde_json::json!(["git", "diff"]));
    assert_eq!(v["segments"][0]["matched"], "git diff");
    assert_eq!(v["segments"][0]["span"], serde_json::json!([0, 16]));
}

#[test]
fn human_output_puts_a_caret_under_the_finding() {
    let o = cmdguard(&["check", "ls > out.txt"], None);
    let text = String::from_utf8(o.stdout).unwrap();
    insta::assert_snapshot!(text);
}

#[test]
fn stdin_reads_the_whole_command_newlines_included() {
    let o = cmdguard(&["check", "--stdin", "--json"], Some(b"ls\nrm -rf /\n"));
    assert_eq!(code(&o), 2);
    let o = cmdguard(&["check", "--stdin"], Some(b"ls\npwd"));
    assert_eq!(code(&o), 0);
}

#[test]
fn jsonl_writes_one_verdict_per_line_and_exits_with_the_strictest() {
    let input = b"{\"cmd\": \"ls\"}\n\"git status\"\n{\"cmd\": \"ls > f\"}\nnot json\n";
    let o = cmdguard(&["check", "--jsonl"], Some(input));
    assert_eq!(code(&o), 1);
    let lines: Vec<serde_json::Value> = o
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let verdicts: Vec<&str> = lines
        .iter()
        .map(|l| l["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["allow", "allow", "ask", "ask"]);
    assert_eq!(lines[3]["findings"][0]["code"], "invalid_input");
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments_ask_with_a_reason() {
    use std::os::unix::ffi::OsStrExt;
    let o = isolated()
        .arg("check")
        .arg("--json")
        .arg(std::ffi::OsStr::from_bytes(b"ls \xff"))
        .output()
        .unwrap();
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["findings"][0]["code"], "invalid_input");
}

#[test]
fn usage_errors_exit_64() {
    assert_eq!(code(&cmdguard(&["check"], None)), 64);
    assert_eq!(code(&cmdguard(&["frobnicate"], None)), 64);
    assert_eq!(
        code(&cmdguard(&["check", "--no-such-flag", "ls"], None)),
        64
    );
    assert_eq!(code(&cmdguard(&["check", "--stdin", "ls"], None)), 64);
}

#[test]
fn config_errors_exit_78_naming_file_line_column_and_key() {
    let dir = std::env::temp_dir().join(format!("cmdguard-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_key = dir.join("bad-key.toml");
    std::fs::write(&bad_key, "[[allow]]\ncommand = \"ls\"\nbogus = 1\n").unwrap();
    let o = cmdguard(
        &["check", "--allowlist", bad_key.to_str().unwrap(), "ls"],
        None,
    );
    assert_eq!(code(&o), 78);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("bad-key.toml:3:1"), "{err}");
    assert!(err.contains("bogus"), "{err}");

    let bad_example = dir.join("bad-example.toml");
    std::fs::write(
        &bad_example,
        "[[allow]]\ncommand = \"ls\"\nmatch = [\"ls > f\"]\n",
    )
    .unwrap();
    let o = cmdguard(
        &[
            "check",
            "--allowlist-add",
            bad_example.to_str().unwrap(),
            "ls",
        ],
        None,
    );
    assert_eq!(code(&o), 78);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("bad-example.toml:3:10"), "{err}");
    assert!(err.contains("(key `ls`)"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn allowlist_add_extends_the_default() {
    let dir = std::env::temp_dir().join(format!("cmdguard-cli-add-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let extra = dir.join("extra.toml");
    std::fs::write(
        &extra,
        "[[allow]]\ncommand = \"cargo check\"\nmatch = [\"cargo check -q\"]\n",
    )
    .unwrap();
    let p = extra.to_str().unwrap();
    assert_eq!(code(&cmdguard(&["check", "cargo check"], None)), 1);
    assert_eq!(
        code(&cmdguard(
            &["check", "--allowlist-add", p, "cargo check && ls"],
            None
        )),
        0
    );
    // --allowlist replaces: ls is no longer allowed.
    assert_eq!(code(&cmdguard(&["check", "--allowlist", p, "ls"], None)), 1);
    std::fs::remove_dir_all(&dir).ok();
}

/// A throwaway repository whose config runs a program on `git status`.
fn fsmonitor_repo(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cmdguard-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["objects", "refs"] {
        std::fs::create_dir_all(dir.join(".git").join(sub)).unwrap();
    }
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(dir.join(".git/config"), "[core]\n\tfsmonitor = ./x.sh\n").unwrap();
    dir
}

#[test]
fn git_commands_are_checked_against_the_repository_of_cwd() {
    let repo = fsmonitor_repo("cwd");
    let dir = repo.to_str().unwrap();
    let o = cmdguard(&["check", "--json", "--cwd", dir, "git status"], None);
    assert_eq!(code(&o), 1, "{}", String::from_utf8_lossy(&o.stdout));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["findings"][0]["code"], "repo_config");
    assert!(
        v["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("core.fsmonitor")
    );
    // The process's own directory is the default.
    let o = isolated()
        .args(["check", "git log"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert_eq!(code(&o), 1);
    // `cd` away from it, to a directory outside any repository.
    let tmp = std::env::temp_dir();
    let cmd = format!("cd {} && git log", tmp.display());
    assert_eq!(code(&cmdguard(&["check", "--cwd", "/", &cmd], None)), 0);
    // JSON lines carry their own directory.
    let lines = format!(
        "{{\"cmd\": \"git status\", \"cwd\": {dir:?}}}\n{{\"cmd\": \"git status\", \"cwd\": \"/\"}}\n"
    );
    let o = cmdguard(&["check", "--jsonl"], Some(lines.as_bytes()));
    let verdicts: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["verdict"].to_string())
        .collect();
    assert_eq!(verdicts, ["\"ask\"", "\"allow\""]);
    assert_eq!(code(&o), 1);
    std::fs::remove_dir_all(&repo).unwrap();
}

#[test]
fn a_cwd_that_is_not_a_directory_is_a_usage_error() {
    let o = cmdguard(&["check", "--cwd", "/nonexistent/dir", "ls"], None);
    assert_eq!(code(&o), 64);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--cwd"));
}
