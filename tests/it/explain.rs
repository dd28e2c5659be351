//! `cmdguard explain` (issue 16 §3) through the real binary: the piped output of a table of
//! commands as snapshots (times masked), colour only when asked for on a pipe, the assessor's
//! answer when one is configured, exit codes as for `check`.

use std::path::Path;
use std::process::{Command, Output};

use crate::scratch::Scratch;

/// The binary with no config file of this machine in reach, run in `dir`.
fn explain(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let home = dir.join("home");
    let mut c = Command::new(env!("CARGO_BIN_EXE_cmdguard"));
    c.arg("explain")
        .args(args)
        .current_dir(dir)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("CLAUDE_CONFIG_DIR", home.join("claude"))
        .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
        .env_remove("CMDGUARD_CONFIG")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Every duration (`12.5µs`, `3ms`, `0ns`) as `T`, so that snapshots do not depend on speed.
fn mask_times(text: &str) -> String {
    let re = regex::Regex::new(r"\b\d+(\.\d+)?(ns|µs|ms|s)\b").unwrap();
    re.replace_all(text, "T").into_owned()
}

#[test]
fn explain_output_for_a_table_of_commands() {
    let dir = Scratch::new();
    let mut all = String::new();
    for (name, cmd, code) in [
        ("allow", "git diff --stat | head -5", 0),
        (
            "ask with several findings",
            "sort -o out.txt data > log 2>&1 &",
            1,
        ),
        ("deny", "touch m; rm -rf victim", 2),
        (
            "nested bash -c",
            "bash -c 'ls; git push --force origin main'",
            2,
        ),
        ("heredoc", "cat <<EOF > out.txt\nhello $(whoami)\nEOF", 1),
        ("multi-line", "ls\nsed -i s/a/b/ f.txt\necho done", 1),
        ("unicode", "echo 'héllo wörld ✓' > ünï.txt", 1),
        ("parse error", "echo $(ls", 1),
    ] {
        let o = explain(dir.path(), &["--no-config", "--", cmd], &[]);
        assert_eq!(o.status.code(), Some(code), "{name}: {o:?}");
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(!out.contains('\x1b'), "{name}: no colour on a pipe");
        all.push_str(&format!("===== {name}\n{}\n", mask_times(&out)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn explain_colours_only_when_forced_on_a_pipe_and_never_with_no_color() {
    let dir = Scratch::new();
    let cmd = ["--no-config", "rm -rf /"];
    let forced = explain(dir.path(), &cmd, &[("CLICOLOR_FORCE", "1")]);
    assert!(
        forced.stdout.contains(&b'\x1b'),
        "CLICOLOR_FORCE stands for a terminal"
    );
    let plain = explain(
        dir.path(),
        &cmd,
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
    );
    assert!(!plain.stdout.contains(&b'\x1b'), "NO_COLOR wins");
    // The text is the same, styles aside.
    let stripped = anstream::adapter::strip_bytes(&forced.stdout).into_vec();
    assert_eq!(
        mask_times(&String::from_utf8_lossy(&stripped)),
        mask_times(&String::from_utf8_lossy(&plain.stdout))
    );
}

/// A configured command assessor is asked about an `ask` (not about an allow or a deny), and
/// its answer is shown with the time it took.
#[test]
fn explain_shows_the_configured_assessors_answer() {
    let dir = Scratch::new();
    let judge = dir.write(
        "judge.sh",
        "cat >/dev/null\necho '{\"decision\": \"unsure\", \"reason\": \"writes a file\", \"kind\": \"modify_existing_files\"}'\n",
    );
    let config = dir.write(
        "config.toml",
        &format!(
            "[assessor]\nkind = \"command\"\ncommand = [\"/bin/sh\", {:?}]\ntimeout_ms = 20000\n",
            judge.display().to_string()
        ),
    );
    let env = [("CMDGUARD_CONFIG", config.to_str().unwrap())];
    let o = explain(dir.path(), &["sort -o out.txt data"], &env);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("assessor: unsure (modify_existing_files): writes a file"),
        "{out}"
    );
    let o = explain(dir.path(), &["git status"], &env);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("assessor: not asked"), "{out}");
}

#[test]
fn explain_reads_stdin_and_refuses_usage_errors() {
    let dir = Scratch::new();
    let o = explain(dir.path(), &["--no-config"], &[]);
    assert_eq!(o.status.code(), Some(64));
    let o = explain(
        dir.path(),
        &["--no-config", "--cwd", "no-such-dir", "ls"],
        &[],
    );
    assert_eq!(o.status.code(), Some(64));
    let mut c = Command::new(env!("CARGO_BIN_EXE_cmdguard"));
    let o = c
        .args(["explain", "--no-config", "--stdin"])
        .stdin(std::fs::File::open(dir.write("cmd", "ls\nrm -rf /\n")).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout).contains("segments (2)"));
}

/// A command that asks although an imported Claude Code allow rule names it: explain says
/// which rule, where it was written, and that cmdguard still asks (the rule never lowers the
/// verdict). A command no imported rule names gets no such line.
#[test]
fn explain_names_the_imported_claude_allow_rule_that_covers_an_ask() {
    let dir = Scratch::new();
    dir.write(
        "home/claude/settings.json",
        "{\n  \"permissions\": {\n    \"allow\": [\"Bash(mytool:*)\"]\n  }\n}\n",
    );
    let o = explain(dir.path(), &["mytool --frobnicate"], &[]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    let line = out
        .lines()
        .find(|l| l.starts_with("claude code:"))
        .unwrap_or_else(|| panic!("no claude code line:\n{out}"));
    assert!(line.contains("`Bash(mytool:*)`"), "{line}");
    assert!(line.contains("settings.json:3"), "{line}");
    assert!(line.contains("cmdguard still asks"), "{line}");
    assert!(
        out.contains("imported Claude Code allow rule `Bash(mytool:*)`"),
        "the finding names it too:\n{out}"
    );

    for cmd in ["othertool x", "git status"] {
        let o = explain(dir.path(), &[cmd], &[]);
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(!out.contains("claude code:"), "{cmd}:\n{out}");
    }
}
