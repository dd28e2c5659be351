//! Red team, round s10, on issue 16's integrations, fixed: each test is an input the hooks or
//! scan let through although `cmdguard check` denies what actually runs (or another contract
//! break), verified with the real shell or binary, and now held. The interactive tests drive a
//! real bash, zsh or fish in a pty with the `cmdguard init` snippet loaded, as `shell_init`
//! does.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use rexpect::reader::Options;
use rexpect::session::PtySession;

use crate::scratch::Scratch;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_cmdguard");

const TIMEOUT_MS: u64 = 30_000;

pub(crate) fn installed(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipping: {program} is not installed");
    }
    found
}

/// A shell in a pty with the init snippet, in a scratch directory holding `victim`, which
/// every denied line here tries to delete.
pub(crate) struct Pty {
    pub(crate) pty: PtySession,
    dir: Scratch,
}

impl Pty {
    pub(crate) fn spawn(
        program: &str,
        args: &[&str],
        setup: impl FnOnce(&Path, &mut Command),
    ) -> Pty {
        let dir = Scratch::new();
        std::fs::create_dir_all(dir.path().join("victim")).unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(dir.path())
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("CLAUDE_CONFIG_DIR", home.join("claude"))
            .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
            .env("TERM", "xterm")
            .env_remove("CMDGUARD_CONFIG")
            .env_remove("CMDGUARD_DISABLE")
            .env_remove("PROMPT_COMMAND")
            .env_remove("HISTCONTROL");
        setup(dir.path(), &mut cmd);
        let options = Options::new()
            .timeout_ms(Some(TIMEOUT_MS))
            .strip_ansi_escape_codes(false);
        let pty = rexpect::session::spawn_with_options(cmd, options).unwrap();
        let mut sh = Pty { pty, dir };
        sh.run("true");
        sh
    }

    pub(crate) fn bash() -> Pty {
        Pty::spawn(
            "bash",
            &["--noprofile", "--rcfile", "rc.bash", "-i"],
            |dir, _| {
                let rc = format!(
                    "PS1='$ '\nHISTFILE={}\nbind 'set enable-bracketed-paste off' 2>/dev/null\neval \"$('{BIN}' init bash)\"\n",
                    dir.join("home/history").display()
                );
                std::fs::write(dir.join("rc.bash"), rc).unwrap();
            },
        )
    }

    pub(crate) fn zsh() -> Pty {
        Pty::spawn("zsh", &["-i"], |dir, cmd| {
            let rc = format!(
                "PS1='%% '\nHISTFILE={}\nunset zle_bracketed_paste\neval \"$('{BIN}' init zsh)\"\n",
                dir.join("home/history").display()
            );
            std::fs::write(dir.join("home/.zshrc"), rc).unwrap();
            cmd.env("ZDOTDIR", dir.join("home"));
        })
    }

    /// Types `line` and a marker line; returns what the terminal showed up to the marker.
    pub(crate) fn run(&mut self, line: &str) -> String {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        self.pty.send_line(line).unwrap();
        self.pty
            .send_line(&format!("printf '%s_%s\\n' done {n}"))
            .unwrap();
        match self.pty.exp_string(&format!("done_{n}")) {
            Ok(text) => text,
            Err(e) => panic!("`{line}` did not come back: {e}"),
        }
    }

    pub(crate) fn victim_left(&self) -> bool {
        self.dir.path().join("victim").exists()
    }
}

/// bash: `fc -s` re-runs a line the hook denied (history kept it); the check sees only `fc`.
#[test]
fn bash_fc_reruns_a_denied_line_unchecked() {
    if !installed("bash") {
        return;
    }
    let mut sh = Pty::bash();
    let out = sh.run("rm -rf victim");
    assert!(out.contains("cmdguard: denied"), "{out}");
    let out = sh.run("fc -s rm");
    assert!(sh.victim_left(), "fc re-ran the denied line: {out}");
}

/// bash: clearing PS0 (an `ask` assignment) must not quietly turn the hook off.
#[test]
fn bash_clearing_ps0_quietly_turns_the_hook_off() {
    if !installed("bash") {
        return;
    }
    for tamper in ["PS0=", "unset PS0", "shopt -u promptvars"] {
        let mut sh = Pty::bash();
        sh.run(tamper);
        let out = sh.run("rm -rf victim");
        assert!(
            sh.victim_left(),
            "after `{tamper}` a denied line ran: {out}"
        );
        assert!(out.contains("cmdguard:"), "after `{tamper}`: {out}");
    }
}

/// zsh: a line continued with a backslash is checked one physical line at a time, but zsh
/// runs the joined text.
#[test]
fn zsh_continued_line_is_checked_whole() {
    if !installed("zsh") {
        return;
    }
    let mut sh = Pty::zsh();
    sh.pty.send_line("echo x; r\\").unwrap();
    let out = sh.run("m -rf victim");
    assert!(sh.victim_left(), "the joined line ran rm: {out}");
}

/// zsh: history expansion happens after the accept-line widget, so `!!` (checked as the text
/// `!rm`) re-runs the line the hook denied and kept in history; so does `r rm`. (`!!` does
/// too, but here the previous line is the harness's marker.)
#[test]
fn zsh_history_expansion_reruns_a_denied_line() {
    if !installed("zsh") {
        return;
    }
    for replay in ["!rm", "r rm"] {
        let mut sh = Pty::zsh();
        let out = sh.run("rm -rf victim");
        assert!(out.contains("cmdguard: denied"), "{out}");
        let out = sh.run(replay);
        assert!(sh.victim_left(), "`{replay}` re-ran the denied line: {out}");
    }
}

/// A workflow step `uses: actions/github-script` runs the JavaScript in its `with.script`,
/// which is in the file: scan must not call it clean.
#[test]
fn workflow_github_script_inline_code_is_not_clean() {
    use cmdguard::Verdict;
    use cmdguard::integrations::scan::FileKind;
    let text = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/github-script@v7\n        with:\n          script: require('child_process').execSync('rm -rf /tmp/x')\n";
    let r = crate::scan_subset::report(".github/workflows/a.yml", text, FileKind::Workflow, &[]);
    assert!(r.verdict >= Verdict::Ask, "{r:#?}");
}

/// zsh and fish: binding Enter straight to the shell's own accept widget (an `ask` line)
/// turns the hook off with no word about it; the next denied line runs.
#[test]
fn zsh_and_fish_rebinding_enter_quietly_turns_the_hook_off() {
    let mut shells = Vec::new();
    if installed("zsh") {
        shells.push((
            Pty::zsh(),
            "bindkey '^M' .accept-line; bindkey '^J' .accept-line",
        ));
    }
    if installed("fish") {
        let fish = Pty::spawn(
            "fish",
            &[
                "--no-config",
                "-i",
                "-C",
                &format!("'{BIN}' init fish | source"),
            ],
            |_, _| {},
        );
        shells.push((fish, r"bind \r execute; bind \n execute"));
    }
    for (mut sh, tamper) in shells {
        sh.run(tamper);
        let out = sh.run("rm -rf victim");
        assert!(
            sh.victim_left(),
            "after `{tamper}` a denied line ran: {out}"
        );
    }
}

/// `cmdguard install --settings FILE` run on `settings`: (exit status, stdout+stderr, file).
fn install(settings: &str) -> (i32, String, String) {
    let dir = Scratch::new();
    let file = dir.write("settings.json", settings);
    let o = Command::new(BIN)
        .args(["install", "claude-code", "--settings"])
        .arg(&file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let after = std::fs::read_to_string(&file).unwrap();
    (o.status.code().unwrap_or(-1), said, after)
}

/// A cmdguard hook under a matcher that is not the shell tool's checks nothing: install must
/// not say the Bash hook is already there.
#[test]
fn install_counts_a_hook_only_under_a_matcher_for_the_shell_tool() {
    let settings = format!(
        r#"{{"hooks":{{"PreToolUse":[{{"matcher":"Read","hooks":[{{"type":"command","command":"{BIN} hook claude-code"}}]}}]}}}}"#
    );
    let (_, said, after) = install(&settings);
    let v: serde_json::Value = serde_json::from_str(&after).unwrap();
    let bash_hooked = v["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["matcher"] == "Bash");
    assert!(
        bash_hooked,
        "no group for Bash after install: {said}\n{after}"
    );
}

/// Claude Code runs no hook while `disableAllHooks` is true: install must say so.
#[test]
fn install_warns_when_the_settings_disable_all_hooks() {
    let (code, said, _) = install(r#"{"disableAllHooks": true}"#);
    assert!(
        code != 0 || said.contains("disableAllHooks"),
        "install reported success silently: {said}"
    );
}

/// An alias defined on an `ask` line runs a denied command under a name cmdguard only asks
/// about (bash; zsh and fish likewise).
#[test]
fn alias_of_a_denied_command_runs() {
    if !installed("bash") {
        return;
    }
    let mut sh = Pty::bash();
    sh.run("alias x='rm -rf victim'");
    let out = sh.run("x");
    assert!(sh.victim_left(), "the alias ran a denied command: {out}");
}
