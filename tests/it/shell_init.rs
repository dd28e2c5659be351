//! `cmdguard init bash|zsh|fish` (issue 16 §2), `cmdguard completions` and `cmdguard man`: the
//! snippets are loaded into real interactive shells driven in a pseudo-terminal, and a denied
//! line's marker file must not appear while an allowed line runs, an `ask` warns and runs,
//! and `CMDGUARD_DISABLE=1` lets everything through. The generated completions and man pages
//! must load in the programs that read them. A shell that is not installed is skipped with a
//! message (`.ci/run` installs zsh and fish).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use rexpect::reader::Options;
use rexpect::session::PtySession;

use crate::scratch::Scratch;

const BIN: &str = env!("CARGO_BIN_EXE_cmdguard");

/// How long one line may take to come back: the debug binary checks in well under a second,
/// but two cores are shared by many test threads.
const TIMEOUT_MS: u64 = 30_000;

fn installed(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipping: {program} is not installed");
    }
    found
}

/// The output of `cmdguard ARGS` (exit status 0 required).
fn cmdguard_stdout(args: &[&str]) -> String {
    let o = Command::new(BIN).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {o:?}");
    String::from_utf8(o.stdout).unwrap()
}

/// A shell in a pty, in a scratch directory with a `victim` directory that the denied lines
/// try to delete, and no config file of this machine in reach.
struct Shell {
    pty: PtySession,
    dir: Scratch,
    lines: usize,
}

impl Shell {
    fn spawn(program: &str, args: &[&str], setup: impl FnOnce(&Path, &mut Command)) -> Shell {
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
        let mut shell = Shell { pty, dir, lines: 0 };
        shell.run("true");
        shell
    }

    /// Types `line`, then a line that prints a marker the typed text does not contain, and
    /// returns everything the terminal showed up to that marker.
    fn run(&mut self, line: &str) -> String {
        static N: AtomicUsize = AtomicUsize::new(0);
        self.lines += 1;
        let n = N.fetch_add(1, Ordering::Relaxed);
        self.pty.send_line(line).unwrap();
        self.pty
            .send_line(&format!("printf '%s_%s\\n' done {n}"))
            .unwrap();
        match self.pty.exp_string(&format!("done_{n}")) {
            Ok(text) => text,
            Err(e) => panic!("line {} `{line}` did not come back: {e}", self.lines),
        }
    }

    fn exists(&self, rel: &str) -> bool {
        self.dir.path().join(rel).exists()
    }
}

/// The lines every shell must handle the same way: `tamper` redefines the hook's function,
/// `disable` is the shell's way to set CMDGUARD_DISABLE=1.
fn common_contract(sh: &mut Shell, tamper: &str, disable: &str) {
    let out = sh.run("printf '%s-%s\\n' allowed ran");
    assert!(out.contains("allowed-ran"), "{out}");
    assert!(
        !out.contains("cmdguard:"),
        "an allowed line is quiet: {out}"
    );

    let out = sh.run("touch denied-marker; rm -rf victim");
    assert!(out.contains("cmdguard: denied, not run:"), "{out}");
    assert!(
        out.contains("recursive delete"),
        "the reason is shown: {out}"
    );
    assert!(
        !sh.exists("denied-marker"),
        "no command of a denied line runs"
    );
    assert!(sh.exists("victim"));

    let out = sh.run("touch asked-marker");
    assert!(out.contains("cmdguard: ask, running it anyway:"), "{out}");
    assert!(out.contains("`touch` is not in the allowlist"), "{out}");
    assert!(sh.exists("asked-marker"), "an ask runs after the warning");

    // cmdguard allows defining a function whose body it allows; the hook's own are kept.
    let out = sh.run(tamper);
    assert!(out.contains("touches the shell hook itself"), "{out}");
    sh.run("rm -rf victim");
    assert!(
        sh.exists("victim"),
        "the hook still blocks after `{tamper}`"
    );

    sh.run(disable);
    let out = sh.run("touch off-marker; rm -rf victim");
    assert!(!out.contains("cmdguard:"), "{out}");
    assert!(sh.exists("off-marker"));
    assert!(
        !sh.exists("victim"),
        "CMDGUARD_DISABLE=1 lets a denied line run"
    );
}

/// Makes a program that exits with `status` whatever it is asked: cmdguard failing.
fn failing_program(dir: &Path, status: i32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(format!("fail-{status}"));
    std::fs::write(
        &p,
        format!("#!/bin/sh\necho 'config error' >&2\nexit {status}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// The `init` snippet for `shell`, calling `program` instead of this cmdguard.
fn snippet_calling(shell: &str, program: &Path) -> String {
    let text = cmdguard_stdout(&["init", shell]);
    let from = format!("'{BIN}'");
    assert_eq!(text.matches(&from).count(), 1, "{text}");
    text.replace(&from, &format!("'{}'", program.display()))
}

fn bash() -> Shell {
    bash_calling(None)
}

/// bash with the snippet calling `program` (this cmdguard when `None`).
fn bash_calling(program: Option<&Path>) -> Shell {
    Shell::spawn(
        "bash",
        &["--noprofile", "--rcfile", "rc.bash", "-i"],
        |dir, _| {
            let hook = match program {
                Some(p) => snippet_calling("bash", p),
                None => format!("eval \"$('{BIN}' init bash)\""),
            };
            let rc = format!(
                "PS1='$ '\nHISTFILE={}\nbind 'set enable-bracketed-paste off' 2>/dev/null\n{hook}\n",
                dir.join("home/history").display()
            );
            std::fs::write(dir.join("rc.bash"), rc).unwrap();
        },
    )
}

#[test]
fn bash_warns_on_ask_blocks_a_denied_line_and_can_be_disabled() {
    if !installed("bash") {
        return;
    }
    common_contract(
        &mut bash(),
        "__cmdguard_check() { return 0; }",
        "export CMDGUARD_DISABLE=1",
    );
}

/// The DEBUG trap fires in subshells, pipelines and substitutions too, and a multi-line
/// construct is checked whole, as history saved it.
#[test]
fn bash_blocks_every_command_of_a_denied_line_wherever_it_runs() {
    if !installed("bash") {
        return;
    }
    let mut sh = bash();
    for (i, line) in [
        "(touch m0; rm -rf victim)",
        "touch m1 | rm -rf victim",
        "echo $(touch m2; rm -rf victim)",
        "f() { touch m3; rm -rf victim; }; f",
        "{ touch m4; } && rm -rf victim",
        "touch m5 & rm -rf victim",
    ]
    .iter()
    .enumerate()
    {
        let out = sh.run(line);
        assert!(out.contains("cmdguard: denied"), "{line}: {out}");
        assert!(!sh.exists(&format!("m{i}")), "{line}: a command ran");
        assert!(sh.exists("victim"), "{line}");
    }
    sh.pty.send_line("for i in 1; do").unwrap();
    let out = sh.run("touch m6; rm -rf victim; done");
    assert!(out.contains("cmdguard: denied"), "{out}");
    assert!(!sh.exists("m6") && sh.exists("victim"));
    // A later line runs again, and so does the user's PROMPT_COMMAND after a denied line.
    sh.run("PROMPT_COMMAND+=$'\\n''prompts=$((prompts+1))'");
    let before = sh.run("echo \"prompts=$prompts\"");
    sh.run("rm -rf victim");
    let after = sh.run("echo \"prompts=$prompts\"");
    let count = |s: &str| {
        let at = s.rfind("prompts=").unwrap() + "prompts=".len();
        s[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse::<u32>()
            .unwrap()
    };
    // Four prompts lie between the two reads (each `run` types two lines); the one after
    // the denied line must have run PROMPT_COMMAND too.
    assert_eq!(count(&after), count(&before) + 4, "{before} / {after}");
    let out = sh.run("printf '%s-%s\\n' still runs");
    assert!(out.contains("still-runs"), "{out}");
}

/// A line history did not save (here: a leading space with HISTCONTROL=ignorespace) is
/// checked one simple command at a time: the denied command is still skipped.
#[test]
fn bash_checks_a_line_history_did_not_keep_command_by_command() {
    if !installed("bash") {
        return;
    }
    let mut sh = bash();
    sh.run("HISTCONTROL=ignorespace");
    let out = sh.run(" touch spaced-marker; rm -rf victim");
    assert!(out.contains("cmdguard: denied"), "{out}");
    assert!(sh.exists("victim"), "the denied command is skipped");
    // Only the line's own denied command is skipped: `touch` asked and ran on its own.
    assert!(sh.exists("spaced-marker"));
}

/// cmdguard missing, or exiting with a usage, internal or config error: the line runs with a
/// warning saying it was not checked (the shell stays usable, and nothing runs silently).
#[test]
fn bash_and_zsh_warn_and_run_when_cmdguard_is_missing_or_fails() {
    let scratch = Scratch::new();
    let programs = [
        scratch.path().join("no-such-cmdguard"),
        failing_program(scratch.path(), 64),
        failing_program(scratch.path(), 70),
        failing_program(scratch.path(), 78),
    ];
    for program in &programs {
        let mut shells = Vec::new();
        if installed("bash") {
            shells.push(bash_calling(Some(program)));
        }
        if installed("zsh") {
            shells.push(zsh_calling(Some(program)));
        }
        for mut sh in shells {
            let out = sh.run("touch failed-marker");
            assert!(
                out.contains("cmdguard: could not check this command (exit status"),
                "{}: {out}",
                program.display()
            );
            assert!(sh.exists("failed-marker"));
        }
    }
}

fn zsh() -> Shell {
    zsh_calling(None)
}

/// zsh with the snippet calling `program` (this cmdguard when `None`).
fn zsh_calling(program: Option<&Path>) -> Shell {
    Shell::spawn("zsh", &["-i"], |dir, cmd| {
        let hook = match program {
            Some(p) => snippet_calling("zsh", p),
            None => format!("eval \"$('{BIN}' init zsh)\""),
        };
        let rc = format!(
            "PS1='%% '\nHISTFILE={}\nunset zle_bracketed_paste\n{hook}\n",
            dir.join("home/history").display()
        );
        std::fs::write(dir.join("home/.zshrc"), rc).unwrap();
        cmd.env("ZDOTDIR", dir.join("home"));
    })
}

#[test]
fn zsh_warns_on_ask_blocks_a_denied_line_and_can_be_disabled() {
    if !installed("zsh") {
        return;
    }
    let mut sh = zsh();
    let out = sh.run("echo $(touch subst-marker; rm -rf victim)");
    assert!(out.contains("cmdguard: denied"), "{out}");
    assert!(!sh.exists("subst-marker"));
    common_contract(
        &mut sh,
        "__cmdguard_check() { return 0 }",
        "export CMDGUARD_DISABLE=1",
    );
}

#[test]
fn fish_warns_on_ask_blocks_a_denied_line_and_can_be_disabled() {
    if !installed("fish") {
        return;
    }
    let mut sh = Shell::spawn(
        "fish",
        &[
            "--no-config",
            "-i",
            "-C",
            &format!("'{BIN}' init fish | source"),
        ],
        |_, _| {},
    );
    common_contract(
        &mut sh,
        "function __cmdguard_enter; commandline -f execute; end",
        "set -gx CMDGUARD_DISABLE 1",
    );
}

/// Each snippet and each completion script is valid syntax for its shell.
#[test]
fn init_snippets_and_completions_parse_in_their_shells() {
    for (shell, check) in [
        ("bash", vec!["bash", "-n"]),
        ("zsh", vec!["zsh", "-n"]),
        ("fish", vec!["fish", "--no-execute"]),
    ] {
        if !installed(check[0]) {
            continue;
        }
        for what in ["init", "completions"] {
            let text = cmdguard_stdout(&[what, shell]);
            assert!(text.len() > 200, "{what} {shell}: {text}");
            let dir = Scratch::new();
            let file = dir.write("script", &text);
            let o = Command::new(check[0])
                .args(&check[1..])
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                o.status.success() && o.stderr.is_empty(),
                "{what} {shell}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// Completions name every subcommand; loading the bash ones defines the completion function.
#[test]
fn bash_completions_complete_the_subcommands() {
    if !installed("bash") {
        return;
    }
    let dir = Scratch::new();
    let file = dir.write("c.bash", &cmdguard_stdout(&["completions", "bash"]));
    let script = format!(
        "source '{}'\nCOMP_WORDS=(cmdguard ex); COMP_CWORD=1; COMP_LINE='cmdguard ex'; COMP_POINT=11\n\
         _cmdguard cmdguard ex cmdguard\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        file.display()
    );
    let o = Command::new("bash").args(["-c", &script]).output().unwrap();
    let got = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        got.trim(),
        "explain",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The main page and every subcommand's page render with groff without a warning.
#[test]
fn man_pages_render_without_warnings() {
    if !installed("groff") {
        return;
    }
    let main = cmdguard_stdout(&["man"]);
    for sub in [
        "check",
        "init",
        "explain",
        "completions",
        "man",
        "config",
        "policy",
    ] {
        assert!(main.contains(&format!("cmdguard\\-{sub}(1)")), "{sub}");
    }
    let mut pages = vec![("cmdguard".to_string(), main)];
    for sub in ["check", "explain", "init", "completions"] {
        pages.push((format!("cmdguard-{sub}"), cmdguard_stdout(&["man", sub])));
    }
    for (name, page) in pages {
        let dir = Scratch::new();
        let file = dir.write("page.1", &page);
        let o = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            o.status.success() && o.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("NAME") && text.contains(&name),
            "{name}: {text}"
        );
    }
    let o = Command::new(BIN).args(["man", "nope"]).output().unwrap();
    assert_eq!(o.status.code(), Some(64));
}
