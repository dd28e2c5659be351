//! Red team, round s10, on issue 16's integrations, not fixed yet: each test is an input the
//! hooks or scan let through although `cmdguard check` denies what actually runs (or another
//! contract break), verified with the real shell or binary. The harness is in
//! `redteam_scan_fixes_s10`.

use std::process::Command;

use crate::redteam_scan_fixes_s10::{BIN, Pty, installed};

/// bash: a `bind -x` key binding runs its command outside any checked line.
#[test]
fn bash_bind_x_runs_a_denied_command_unchecked() {
    if !installed("bash") {
        return;
    }
    let mut sh = Pty::bash();
    sh.run(r#"bind -x '"\C-t": rm -rf victim'"#);
    sh.pty.send_control('t').unwrap();
    let out = sh.run("true");
    assert!(sh.victim_left(), "the key ran a denied command: {out}");
}

/// fish: a key binding runs its command without Enter, so the hook never sees it.
#[test]
fn fish_bind_runs_a_denied_command_unchecked() {
    if !installed("fish") {
        return;
    }
    let mut sh = Pty::spawn(
        "fish",
        &[
            "--no-config",
            "-i",
            "-C",
            &format!("'{BIN}' init fish | source"),
        ],
        |_, _| {},
    );
    sh.run(r"bind \ct 'rm -rf victim'");
    sh.pty.send_control('t').unwrap();
    let out = sh.run("true");
    assert!(sh.victim_left(), "the key ran a denied command: {out}");
}

/// `check` denies `trap 'rm -rf victim' EXIT` for the code the trap installs; an alias, a
/// `bind -x` binding, `PROMPT_COMMAND` and `PS1` install code the shell runs later just as
/// well, and the interactive hooks run whatever only asks.
#[test]
fn check_analyses_code_installed_for_later_like_a_trap_body() {
    let verdict = |c: &str| {
        Command::new(BIN)
            .args(["check", "--", c])
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(verdict("trap 'rm -rf victim' EXIT"), Some(2));
    for line in [
        "alias x='rm -rf victim'",
        r#"bind -x '"\C-t": rm -rf victim'"#,
        "PROMPT_COMMAND='rm -rf victim'",
        "PS1='$(rm -rf victim)'",
    ] {
        assert_eq!(verdict(line), Some(2), "{line}");
    }
}

/// A `run:` scalar with a YAML tag (`!!str`) is reported where its text starts, not inside
/// the tag.
#[test]
fn workflow_tagged_run_scalar_is_located_after_its_tag() {
    use cmdguard::integrations::scan::FileKind;
    let text = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: !!str rm -rf /tmp/x\n";
    let r = crate::scan_subset::report(".github/workflows/t.yml", text, FileKind::Workflow, &[]);
    let c = &r.commands[0];
    assert_eq!(
        (c.text.as_str(), c.start.line, c.start.column),
        ("rm -rf /tmp/x", 6, 20),
        "{r:#?}"
    );
}

/// bash and dash drop NUL bytes from a script's text: `r\0m -rf /tmp/v` runs `rm -rf /tmp/v`.
#[test]
fn script_nul_byte_is_dropped_as_bash_drops_it() {
    use cmdguard::Verdict;
    use cmdguard::integrations::scan::FileKind;
    let text = "#!/bin/bash\necho start\nr\0m -rf /tmp/v\n";
    let r = crate::scan_subset::report("nul.sh", text, FileKind::ShellScript, &[]);
    assert_eq!(r.verdict, Verdict::Deny, "{r:#?}");
}

