//! Fixes for the fourth round of red-team findings against the tool groups (issue 17) that
//! fall to the workspace's rule for new files: the red team's own tests (from
//! `redteam_tools_d.rs`, unchanged), followed by tables that pin each part of the rule that
//! lists which new files are free (see `tool/workspace.rs`, "Which new files are free").

use std::fs;
use std::process::Command;

use cmdguard::policy::Choice;
use serde_json::{Value, json};

use crate::red::Red;

/// `git` run in `dir`, as the user would run it; its output is not looked at.
fn git(dir: &std::path::Path, args: &[&str]) {
    let _ = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output();
}

/// The s6/s7 fix asks (every time, default no) before a tool creates a file a git hook
/// manager reads, by name ([`cmdguard::tool::HOOK_MANAGER_NAMES`]): `.husky`, `.githooks`,
/// lefthook's YAML files and `.pre-commit-config.yaml`. Hook managers read more names than
/// that: lefthook its TOML and JSON configs, husky 4 (its `.git/hooks` wrappers) `.huskyrc*`
/// and `husky.config.js`, and the commands husky's `pre-commit` usually runs read
/// lint-staged's and commitlint's configs (a `.js` one is code). Each is created here without a
/// question by a user who answers no to everything, and runs at the next commit.
#[test]
fn hook_manager_configs_are_asked_about_whatever_their_format() {
    let r = Red::new(Choice::No);
    git(r.dir.path(), &["init", "-q", "."]);
    let payload = format!("touch {}", r.out("HOOKED").display());
    let files = [
        (
            "lefthook.toml",
            format!("[pre-commit.commands.x]\nrun = \"{payload}\"\n"),
        ),
        (
            "lefthook.json",
            format!("{{\"pre-commit\":{{\"commands\":{{\"x\":{{\"run\":\"{payload}\"}}}}}}}}\n"),
        ),
        (
            ".lefthook.toml",
            format!("[pre-commit.commands.x]\nrun = \"{payload}\"\n"),
        ),
        (
            ".huskyrc",
            format!("{{\"hooks\":{{\"pre-commit\":\"{payload}\"}}}}\n"),
        ),
        (
            ".huskyrc.json",
            format!("{{\"hooks\":{{\"pre-commit\":\"{payload}\"}}}}\n"),
        ),
        (
            "husky.config.js",
            format!("module.exports = {{hooks: {{'pre-commit': '{payload}'}}}};\n"),
        ),
        (".lintstagedrc.json", format!("{{\"*\": \"{payload}\"}}\n")),
        (
            "lint-staged.config.js",
            format!("require('child_process').execSync('{payload}');\n"),
        ),
        (
            "commitlint.config.js",
            format!("require('child_process').execSync('{payload}');\n"),
        ),
    ];
    let mut unasked = Vec::new();
    for (name, content) in &files {
        let before = r.asked().len();
        let said = r.call("write_file", json!({"path": name, "content": content}));
        if said.is_ok() && r.asked().len() == before {
            unasked.push(format!("{name}: {said:?}"));
        }
    }
    assert!(
        unasked.is_empty(),
        "hook manager configs created with no question (the user answers no): {unasked:#?}"
    );
}

/// git takes a directory holding `HEAD`, `objects/` and `refs/` for a bare repository
/// (`safe.bareRepository` is `all` by default) and runs what its `config` names:
/// `core.fsmonitor` runs at every `git status` there. The write tools ask about `.git` and
/// hook places by name, and `runs_beyond_checks` reads the hooks path of the repository
/// around the file; a repository the agent builds under another name is none of them. Here
/// a user who answers no to everything is asked nothing, and the user's next `git status`
/// in `sub` runs the agent's command.
#[test]
fn a_repository_planted_under_another_name_is_asked_about() {
    let r = Red::new(Choice::No);
    git(r.dir.path(), &["init", "-q", "."]);
    let marker = r.out("PWNED");
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch {}; false\"\n",
        marker.display()
    );
    let steps = [
        r.call("mkdir", json!({"path": "sub/objects"})),
        r.call("mkdir", json!({"path": "sub/refs"})),
        r.call(
            "write_file",
            json!({"path": "sub/config", "content": config}),
        ),
        r.call(
            "write_file",
            json!({"path": "sub/HEAD", "content": "ref: refs/heads/main\n"}),
        ),
    ];
    let asked = r.asked();
    git(&r.dir.path().join("sub"), &["status"]);
    assert!(
        !asked.is_empty() || steps.iter().any(Result::is_err),
        "a repository config naming a program was planted with no question: {steps:?}; \
         the user's `git status` in sub then ran it: {} (marker {})",
        marker.exists(),
        marker.display()
    );
}
