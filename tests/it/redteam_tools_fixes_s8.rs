//! Fixes for the fourth round of red-team findings against the tool groups (issue 17) that
//! fall to the workspace's rule for new files: the red team's own tests (from
//! `redteam_tools_d.rs`, unchanged), followed by tables that pin each part of the rule that
//! lists which new files are free (see `tool/workspace.rs`, "Which new files are free").

use std::fs;
use std::process::Command;

use cmdguard::policy::Choice;
use serde_json::{Value, json};

use crate::red::{Red, browser_setup};
use crate::scratch::Scratch;

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

/// Files and directories a table row starts from, relative to the workspace: a name ending in
/// `/` is a directory; `gitdir:NAME` is a minimal git directory (HEAD, objects/, refs/,
/// config).
fn set_up(r: &Red, setup: &[&str]) {
    for item in setup {
        if let Some(dir) = item.strip_prefix("gitdir:") {
            r.dir.gitdir(dir, "[core]\n\tbare = true\n");
        } else if let Some(dir) = item.strip_suffix('/') {
            fs::create_dir_all(r.dir.path().join(dir)).unwrap();
        } else {
            r.dir.write(item, "x\n");
        }
    }
}

/// Runs `tool` with `args` for a user who answers no, from `setup`, and says whether it was
/// asked (and so refused) or went through without a question; anything else is a failure
/// message.
fn asks(setup: &[&str], tool: &str, args: Value) -> Result<bool, String> {
    let r = Red::new(Choice::No);
    set_up(&r, setup);
    let said = r.call(tool, args.clone());
    match (said, r.asked().is_empty()) {
        (Ok(_), true) => Ok(false),
        (Err(_), false) => Ok(true),
        (said, _) => Err(format!("{tool} {args}: {said:?}, asked {:?}", r.asked())),
    }
}

/// Checks every row `(setup, tool, args, asks)` and lists the ones that came out otherwise.
fn check(rows: &[(&[&str], &str, Value, bool)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(
            |(setup, tool, args, want)| match asks(setup, tool, args.clone()) {
                Ok(got) if got == *want => None,
                Ok(got) => Some(format!(
                    "{tool} {args} from {setup:?}: asks {got}, want {want}"
                )),
                Err(e) => Some(e),
            },
        )
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Each part of the rule for new files, through `write_file`: a row that asks, then its near
/// miss that does not.
#[test]
fn write_file_asks_about_each_kind_of_file_that_is_not_free() {
    let w = |path: &str| json!({"path": path, "content": "x\n"});
    let rows: &[(&[&str], &str, Value, bool)] = &[
        // A dotfile or a file inside a dot-directory.
        (&["sub/"], "write_file", w("sub/.envrc"), true),
        (&["sub/"], "write_file", w("sub/envrc.md"), false),
        (
            &["a/.vscode/"],
            "write_file",
            w("a/.vscode/tasks.json"),
            true,
        ),
        (
            &["a/vscode/"],
            "write_file",
            w("a/vscode/tasks.json"),
            false,
        ),
        // A directory code is loaded from.
        (
            &["lib/node_modules/x/"],
            "write_file",
            w("lib/node_modules/x/index.js"),
            true,
        ),
        (
            &["lib/nodes/x/"],
            "write_file",
            w("lib/nodes/x/index.js"),
            false,
        ),
        // A tool's configuration by name or pattern.
        (&["tests/"], "write_file", w("tests/conftest.py"), true),
        (&["tests/"], "write_file", w("tests/test_conf.py"), false),
        (&["web/"], "write_file", w("web/vite.config.ts"), true),
        (&["web/"], "write_file", w("web/vite.ts"), false),
        (&["docs/"], "write_file", w("docs/CLAUDE.md"), true),
        (&["docs/"], "write_file", w("docs/claude-notes.md"), false),
        // A kind not known to be inert; a build tool's extensionless name.
        (&["infra/"], "write_file", w("infra/main.tf"), true),
        (&["infra/"], "write_file", w("infra/main.md"), false),
        (&["sub/"], "write_file", w("sub/Justfile"), true),
        (&["sub/"], "write_file", w("sub/fixture"), false),
        // The top of the workspace, of a repository, of a project with a manifest.
        (&[], "write_file", w("main.py"), true),
        (&[], "write_file", w("notes.md"), false),
        (&["src/"], "write_file", w("src/main.py"), false),
        (
            &["vendor/lib/.git/"],
            "write_file",
            w("vendor/lib/x.py"),
            true,
        ),
        (&["vendor/lib/"], "write_file", w("vendor/lib/x.py"), false),
        (
            &["crate/Cargo.toml"],
            "write_file",
            w("crate/build.rs"),
            true,
        ),
        (
            &["crate/Cargo.toml", "crate/src/"],
            "write_file",
            w("crate/src/build.rs"),
            false,
        ),
        (
            &["pkgs/a/package.json"],
            "write_file",
            w("pkgs/a/index.js"),
            true,
        ),
        (
            &["pkgs/a/package.json"],
            "write_file",
            w("pkgs/a/README.md"),
            false,
        ),
        (
            &["pkgs/a/package.json", "pkgs/a/src/"],
            "write_file",
            w("pkgs/a/src/index.js"),
            false,
        ),
        // A git directory: HEAD anywhere, its parts beside a HEAD, anything inside one.
        (&["sub/"], "write_file", w("sub/HEAD"), true),
        (&["sub/"], "write_file", w("sub/HEADER.md"), false),
        (&["sub/HEAD"], "write_file", w("sub/config"), true),
        (&["sub/"], "write_file", w("sub/config"), false),
        (&["gitdir:g"], "write_file", w("g/notes.txt"), true),
        (
            &["h/HEAD", "h/objects/"],
            "write_file",
            w("h/notes.txt"),
            false,
        ),
        (
            &["gitdir:g", "g/hooks/"],
            "write_file",
            w("g/hooks/pre-commit"),
            true,
        ),
    ];
    check(rows);
}

/// `mkdir` asks only about a directory that makes, or lies inside, a git directory; other new
/// directories (dot-directories included: what is put in them asks) are free.
#[test]
fn mkdir_asks_about_a_directory_that_makes_a_repository() {
    let m = |path: &str| json!({"path": path});
    let rows: &[(&[&str], &str, Value, bool)] = &[
        (&["sub/HEAD"], "mkdir", m("sub/objects"), true),
        (&["sub/"], "mkdir", m("sub/objects"), false),
        (
            &["sub/HEAD", "sub/objects/"],
            "mkdir",
            m("sub/refs/heads"),
            true,
        ),
        (&["sub/objects/"], "mkdir", m("sub/refs/heads"), false),
        (&[], "mkdir", m("x/HEAD"), true),
        (&[], "mkdir", m("x/HEADS"), false),
        (&["gitdir:g"], "mkdir", m("g/info"), true),
        (&["gitdir:g"], "mkdir", m("gx/info"), false),
        (&[], "mkdir", m(".git/hooks"), true),
        (&[], "mkdir", m("a/b/c"), false),
        (&[], "mkdir", m(".github/workflows"), false),
    ];
    check(rows);
}

/// `copy` and `move` judge each entry of a tree where it lands: a tree holding a git
/// directory's layout, a manifest or a dot-directory asks; one of sources does not. A single
/// file lands under the rule for its new name.
#[test]
fn copy_and_move_judge_each_entry_where_it_lands() {
    let cp = |src: &str, dst: &str| json!({"src": src, "dst": dst});
    let bare: &[&str] = &["t/HEAD", "t/objects/", "t/refs/", "t/config"];
    let no_head: &[&str] = &["t/objects/", "t/refs/", "t/config"];
    let mut rows: Vec<(&[&str], &str, Value, bool)> = Vec::new();
    for tool in ["copy", "move"] {
        rows.extend([
            (bare, tool, cp("t", "sub"), true),
            (no_head, tool, cp("t", "sub"), false),
            (
                &["t/crate/Cargo.toml", "t/crate/src/lib.rs"][..],
                tool,
                cp("t", "u"),
                true,
            ),
            (&["t/crate/src/lib.rs"][..], tool, cp("t", "u"), false),
            (&["t/src/.husky/pre-commit"][..], tool, cp("t", "u"), true),
            (&["t/src/husky/notes.md"][..], tool, cp("t", "u"), false),
            (
                &["a.txt", "sub/HEAD"][..],
                tool,
                cp("a.txt", "sub/config"),
                true,
            ),
            (
                &["a.txt", "sub/"][..],
                tool,
                cp("a.txt", "sub/config"),
                false,
            ),
            (&["a.txt", "sub/"][..], tool, cp("a.txt", "sub/HEAD"), true),
            (&["a.txt"][..], tool, cp("a.txt", "Makefile"), true),
            (&["a.txt"][..], tool, cp("a.txt", "b.txt"), false),
        ]);
    }
    // A move asks about both of its sides besides: only a free copy is compared here.
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|(_, tool, _, asks)| *tool == "copy" || *asks)
        .collect();
    check(&rows);
}

/// `apply_patch` edits existing files only: it cannot create `HEAD` or a configuration, and
/// a change to the config of a git directory planted under another name asks every time
/// (refused under auto-confirm), where an ordinary file's change goes through.
#[test]
fn apply_patch_cannot_plant_a_repository_and_asks_to_change_one() {
    let r = Red::with(Choice::Yes, true);
    r.dir.write("src/a.rs", "fn a() {}\n");
    r.dir.gitdir("sub", "[core]\n\tbare = true\n");
    let edit = |path: &str, old: &str, new: &str| {
        format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n")
    };
    let created = r.call(
        "apply_patch",
        json!({"patch": "--- /dev/null\n+++ b/x/HEAD\n@@ -0,0 +1 @@\n+ref: refs/heads/main\n"}),
    );
    assert!(created.is_err(), "{created:?}");
    assert!(!r.dir.path().join("x/HEAD").exists());
    let config = r.call(
        "apply_patch",
        json!({"patch": edit("sub/config", "\tbare = true", "\tfsmonitor = touch PWNED")}),
    );
    assert!(
        config.as_ref().is_err_and(|e| e.contains("git")),
        "{config:?}"
    );
    let plain = r.call(
        "apply_patch",
        json!({"patch": edit("src/a.rs", "fn a() {}", "fn b() {}")}),
    );
    assert!(plain.is_ok(), "{plain:?}");
}

/// Under auto-confirm the question about a new file that is not free takes its default, no;
/// a free file is written.
#[test]
fn auto_confirm_refuses_a_new_file_that_is_not_free() {
    let r = Red::with(Choice::Yes, true);
    fs::create_dir_all(r.dir.path().join("src")).unwrap();
    let said = r.call("write_file", json!({"path": "main.py", "content": "x\n"}));
    assert!(
        said.as_ref().is_err_and(|e| e.contains("auto-confirm")),
        "{said:?}"
    );
    let said = r.call(
        "write_file",
        json!({"path": "src/main.py", "content": "x\n"}),
    );
    assert!(said.is_ok(), "{said:?}");
}

/// What an agent usually writes is not asked about: sources, tests, test data, snapshots and
/// documents below the top of a Rust and a Python project, and a README at the top.
#[test]
fn an_agent_writing_sources_tests_and_docs_is_not_asked() {
    let r = Red::new(Choice::No);
    git(r.dir.path(), &["init", "-q", "."]);
    r.dir.write("Cargo.toml", "[package]\nname = \"x\"\n");
    r.dir
        .write("py/pyproject.toml", "[project]\nname = \"y\"\n");
    for dir in [
        "src/tool",
        "tests/data",
        "tests/snapshots",
        "docs",
        "py/y",
        "py/tests",
    ] {
        fs::create_dir_all(r.dir.path().join(dir)).unwrap();
    }
    let paths = [
        "src/foo.rs",
        "src/tool/mod.rs",
        "tests/it.rs",
        "tests/data/case.json",
        "tests/snapshots/it__case.snap",
        "docs/x.md",
        "docs/diagram.svg",
        "py/y/__init__.py",
        "py/y/core.py",
        "py/tests/test_x.py",
        "py/README.md",
        "README.md",
        "CHANGELOG.md",
    ];
    for path in paths {
        let said = r.call("write_file", json!({"path": path, "content": "x\n"}));
        assert!(said.is_ok(), "{path}: {said:?}, asked {:?}", r.asked());
    }
    assert_eq!(r.asked(), Vec::<String>::new());
}

/// A hook manager's file that exists is asked about every time it is rewritten, in every
/// format the tool reads (refused under auto-confirm); another TOML file is rewritten as any
/// file is.
#[test]
fn rewriting_a_hook_managers_file_asks_every_time_in_every_format() {
    for (name, refused) in [
        ("lefthook.toml", true),
        ("lefthook-local.json", true),
        (".huskyrc.js", true),
        ("commitlint.config.ts", true),
        (".lintstagedrc.yaml", true),
        ("rustfmt.toml", false),
    ] {
        let r = Red::with(Choice::Yes, true);
        r.dir.write(name, "old\n");
        let said = r.call("write_file", json!({"path": name, "content": "new\n"}));
        assert_eq!(said.is_err(), refused, "{name}: {said:?}");
    }
}

/// `browser_screenshot`'s `save_to` writes as `write_file` does: a new file that is not free
/// (a HEAD, a dot-directory) asks and is refused by a user who says no; a PNG under `shots/`
/// is saved without a question.
#[test]
fn a_screenshot_is_saved_under_the_rule_for_new_files() {
    let dir = Scratch::new();
    let Some((toolbox, agent, asked)) = browser_setup(&dir, Choice::No) else {
        return;
    };
    dir.write("a.html", "<body>hi</body>");
    fs::create_dir_all(dir.path().join("shots")).unwrap();
    fs::create_dir_all(dir.path().join("bare/objects")).unwrap();
    fs::create_dir_all(dir.path().join("bare/refs")).unwrap();
    fs::create_dir_all(dir.path().join(".github")).unwrap();
    let call = |tool: &str, args: Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    };
    let url = format!(
        "file://{}/a.html",
        fs::canonicalize(dir.path()).unwrap().display()
    );
    call("browser_page", json!({"action": "navigate", "url": url})).unwrap();
    for (save_to, saved) in [
        ("bare/HEAD", false),
        (".github/shot.png", false),
        ("shots/shot.png", true),
    ] {
        let before = asked.lock().unwrap().len();
        let said = call("browser_screenshot", json!({"save_to": save_to}));
        let was_asked = asked.lock().unwrap().len() > before;
        assert_eq!(
            (said.is_ok(), was_asked, dir.path().join(save_to).exists()),
            (saved, !saved, saved),
            "{save_to}: {said:?}"
        );
    }
}
