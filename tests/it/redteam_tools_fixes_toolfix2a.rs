//! Fixes for the red team's third round against the tool groups (issue 17,
//! notes/redteam-s7-tools.jsonl), fixer toolfix2a: `move` checks its destination, hooks
//! outside `.git` (`core.hooksPath`, husky) ask, `browser_screenshot`'s `save_to` writes as
//! `write_file` writes, and the `fs` tools keep the analyser's `[sensitive]` files. The red
//! team's tests (from its `redtools2` branch, tests/it/redteam_tools_c.rs) come first,
//! unchanged but for the module path of the child-process test; then tests of each rule.

use std::fs;
use std::path::Path;
use std::time::Duration;

use cmdguard::policy::Choice;
use cmdguard::tool::{AgentHandle, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::red::{Red, browser_setup};
use crate::scratch::Scratch;

/// A user who grants writes to one subdirectory (`scratch/`, answering "allow and grant" to
/// overwriting a file there) has granted nothing else; but `move` asks about (and checks
/// the grant of) its source only when the destination is new. An executable copied into the
/// granted directory (asked as executable, passed by the grant), rewritten there, then moved
/// to `.git/hooks/pre-commit` lands as a git hook without one more question: the user's next
/// `git commit` runs the agent's text.
#[cfg(unix)]
#[test]
fn a_grant_for_one_directory_does_not_let_move_plant_a_git_hook_elsewhere() {
    use cmdguard::policy::{ChoiceOutcome, Policy, PolicySettings, Prompt};
    use std::os::unix::fs::PermissionsExt;
    use std::sync::{Arc, Mutex};
    let dir = Scratch::new();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args([
                "-c",
                "user.name=r",
                "-c",
                "user.email=r@r",
                "-c",
                "core.hooksPath=.git/hooks",
            ])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    let gradlew = dir.write("gradlew", "#!/bin/sh\necho build\n");
    fs::set_permissions(&gradlew, fs::Permissions::from_mode(0o755)).unwrap();
    dir.write("scratch/notes.txt", "notes\n");
    let granted = fs::canonicalize(dir.path()).unwrap().join("scratch");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let policy = Arc::new(Policy::new(PolicySettings {
        auto_confirm: false,
        state_file: None,
    }));
    let ws = Workspace::new(dir.path())
        .unwrap()
        .with_permission(policy, move |p: &Prompt| {
            let mut seen = seen.lock().unwrap();
            seen.push(p.command.clone());
            // Grant the scratch directory the first time; no to everything after.
            ChoiceOutcome::user(if seen.len() == 1 {
                Choice::GrantPath {
                    path: granted.clone(),
                }
            } else {
                Choice::No
            })
        });
    let agent = AgentHandle::new("red").with_workspace(ws);
    let toolbox = ToolBox::new().with_defaults(&["fs"]).unwrap();
    let call = |tool: &str, args: Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    };
    let said = [
        call(
            "write_file",
            json!({"path": "scratch/notes.txt", "content": "more notes\n"}),
        ),
        call("copy", json!({"src": "gradlew", "dst": "scratch/h"})),
        call(
            "write_file",
            json!({"path": "scratch/h", "content": "#!/bin/sh\ntouch HOOKED\n"}),
        ),
        call(
            "move",
            json!({"src": "scratch/h", "dst": ".git/hooks/pre-commit"}),
        ),
    ];
    let committed = git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    let asked = asked.lock().unwrap().clone();
    assert!(
        !dir.path().join("HOOKED").exists(),
        "the user granted only scratch/ and was asked {asked:#?}; the agent planted a git hook \
         that ran at the user's commit ({committed:?}): {said:#?}"
    );
}

/// The s6 fix refuses to rewrite a file with more than one hard link (its other names may be
/// outside the workspace) in `write_file` and `copy`; `browser_screenshot`'s `save_to`
/// writes with `fs::write` by path: a user who says yes to "overwrite <ws>/shot.png" has the
/// PNG written into the outside file the link shares.
#[cfg(unix)]
#[test]
fn a_screenshot_is_not_saved_through_a_hard_link_to_an_outside_file() {
    let dir = Scratch::new();
    let Some((toolbox, agent, asked)) = browser_setup(&dir, Choice::Yes) else {
        return;
    };
    let outside = Scratch::new();
    let victim = outside.write("victim.conf", "the user's config\n");
    fs::hard_link(&victim, dir.path().join("shot.png")).unwrap();
    dir.write("a.html", "<body style='background:#0f0'>hi</body>");
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
    let said = call("browser_screenshot", json!({"save_to": "shot.png"}));
    assert_eq!(
        fs::read_to_string(&victim).ok().as_deref(),
        Some("the user's config\n"),
        "save_to wrote into {} (outside the workspace) through a hard link: {said:?}, asked {:?}",
        victim.display(),
        asked.lock().unwrap()
    );
}

/// `save_to` onto a FIFO of the workspace (a repository can hold one; the user is asked to
/// "overwrite" it and says yes): `fs::write` opens it for writing and blocks until a reader
/// comes, forever; the run's cancellation does not reach it. (`write_file` opens with
/// `O_NONBLOCK` and refuses.)
#[cfg(unix)]
#[test]
fn a_screenshot_saved_onto_a_fifo_does_not_hang_the_call() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = Scratch::new();
    let Some((toolbox, agent, asked)) = browser_setup(&dir, Choice::Yes) else {
        return;
    };
    let fifo = dir.path().join("shot.png");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    dir.write("a.html", "<body>hi</body>");
    let url = format!(
        "file://{}/a.html",
        fs::canonicalize(dir.path()).unwrap().display()
    );
    toolbox
        .call_tool_blocking(
            &agent,
            "browser_page",
            json!({"action": "navigate", "url": url}),
            (),
        )
        .unwrap();
    let (tb, ag) = (toolbox.clone(), agent.clone());
    let call = std::thread::spawn(move || {
        tb.call_tool_blocking(
            &ag,
            "browser_screenshot",
            json!({"save_to": "shot.png"}),
            (),
        )
        .map_err(|e| format!("{e:?}"))
    });
    std::thread::sleep(Duration::from_secs(3));
    agent.run.cancel("the user pressed stop");
    let start = std::time::Instant::now();
    while !call.is_finished() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let hung = !call.is_finished();
    // Release the writer, whatever happened.
    let _ = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .map(|mut r| {
            std::thread::sleep(Duration::from_millis(500));
            let mut sink = Vec::new();
            let _ = std::io::Read::read_to_end(&mut r, &mut sink);
        });
    let said = call.join().unwrap();
    assert!(
        !hung,
        "browser_screenshot with save_to onto a FIFO still ran 10 s after the run was cancelled \
         (asked {:?}); it ended only when the test opened the FIFO: {said:?}",
        asked.lock().unwrap()
    );
}

/// The s6 fix asks before a new file appears inside `.git` or as an executable, because git
/// runs hooks beyond every check. A repository that sets `core.hooksPath` (husky, the usual
/// hook manager of JavaScript projects, sets `.husky/_`, whose wrappers run `sh -e
/// .husky/<hook>`) runs hooks from files that are neither in `.git` nor executable:
/// `write_file .husky/pre-commit` is a new plain file, asked about by nobody, and the user's
/// next `git commit` runs it. The user here answers no to every question.
#[cfg(unix)]
#[test]
fn a_hook_in_the_repositorys_hooks_path_is_not_planted_without_a_question() {
    use std::os::unix::fs::PermissionsExt;
    let r = Red::new(Choice::No);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-c", "user.name=r", "-c", "user.email=r@r"])
            .args(args)
            .current_dir(r.dir.path())
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    assert!(
        git(&["config", "core.hooksPath", ".husky/_"])
            .status
            .success()
    );
    // What the hook manager installs: a wrapper per hook that runs the project's script.
    let wrapper = r.dir.write(
        ".husky/_/pre-commit",
        "#!/bin/sh\nscript=.husky/pre-commit\n[ -f \"$script\" ] || exit 0\nexec sh -e \"$script\"\n",
    );
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    let said = r.call(
        "write_file",
        json!({"path": ".husky/pre-commit", "content": "touch HOOKED\n"}),
    );
    let committed = git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    assert!(
        !r.dir.path().join("HOOKED").exists() || !r.asked().is_empty(),
        "write_file planted a hook (nobody asked: {:?}) that the user's git commit ran \
         ({committed:?}): {said:?}",
        r.asked()
    );
}

/// The analyser asks before `cat .env` or `grep -r KEY .` reads a credential file the
/// `[sensitive]` list names, in the workspace too; the `fs` tools read the same files with
/// no question: `read_file .env`, and `grep` with `skip_ignored: false` (or where the
/// file is not ignored) quotes its lines. The user here answers no to everything and is
/// never asked.
#[test]
fn the_fs_tools_do_not_read_a_credential_file_that_cat_would_be_asked_about() {
    use cmdguard::{Analyzer, Verdict, Workdir};
    let r = Red::new(Choice::No);
    r.dir.write(".env", "STRIPE_KEY=sk_live_51Hredteam\n");
    r.dir.write(
        ".ssh/id_ed25519",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nredteam\n",
    );
    let analyzer = Analyzer::default();
    let here = Workdir::new(fs::canonicalize(r.dir.path()).unwrap());
    let cat = analyzer.analyze_in("cat .env .ssh/id_ed25519", &here);
    assert_ne!(
        cat.verdict,
        Verdict::Allow,
        "the analyser's own view changed"
    );
    let read = [
        r.call("read_file", json!({"path": ".env"})),
        r.call("read_file", json!({"path": ".ssh/id_ed25519"})),
        r.call(
            "grep",
            json!({"path": ".", "pattern": "sk_live|PRIVATE", "skip_ignored": false}),
        ),
    ];
    let leaked: Vec<String> = read
        .iter()
        .filter(|v| {
            v.as_ref().is_ok_and(|v| {
                v.to_string().contains("sk_live") || v.to_string().contains("PRIVATE KEY")
            })
        })
        .map(|v| format!("{v:?}"))
        .collect();
    assert!(
        leaked.is_empty() || !r.asked().is_empty(),
        "`cat` of these files is {} ({:?}); the fs tools returned them without a question: \
         {leaked:#?}",
        cat.verdict,
        cat.findings
            .iter()
            .map(|f| f.message.clone())
            .collect::<Vec<_>>()
    );
}

/// The diagnostic tools read the file too, and quote what they complain about: a credential
/// file is read by them only after a yes, as by `read_file`.
#[test]
fn the_diagnostic_tools_do_not_read_a_credential_file_unasked() {
    let r = Red::new(Choice::No);
    r.dir.write(".env", "STRIPE_KEY=sk_live_51Hredteam\n{\n");
    r.dir.write("ok.json", "{}\n");
    for (tool, args) in [
        ("check_syntax", json!({"path": ".env", "language": "json"})),
        ("check_lint", json!({"path": ".env", "language": "json"})),
        ("diff_files", json!({"path_a": "ok.json", "path_b": ".env"})),
    ] {
        let before = r.asked().len();
        let out = r.call(tool, args);
        assert!(
            out.as_ref()
                .is_err_and(|e| !e.to_string().contains("sk_live")),
            "{tool}: {out:?}"
        );
        assert_eq!(r.asked().len(), before + 1, "{tool}: asked once");
    }
    assert!(r.call("check_syntax", json!({"path": "ok.json"})).is_ok());
}

/// Under `auto_confirm` every question takes its default answer: yes for changes that
/// destroy nothing, no for deletions (and, since s6, for moves into the temporary
/// directory). The s6 fix asks before a new file appears in `.git` or as an executable, but
/// with the default yes: auto-confirm says yes, and the agent plants an executable git hook
/// that the user's next `git commit` runs, with nobody asked.
#[cfg(unix)]
#[test]
fn auto_confirm_does_not_plant_an_executable_git_hook() {
    use std::os::unix::fs::PermissionsExt;
    let r = Red::with(Choice::No, true);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-c", "user.name=r", "-c", "user.email=r@r"])
            .args(["-c", "core.hooksPath=.git/hooks"])
            .args(args)
            .current_dir(r.dir.path())
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    let gradlew = r.dir.write("gradlew", "#!/bin/sh\necho build\n");
    fs::set_permissions(&gradlew, fs::Permissions::from_mode(0o755)).unwrap();
    let said = [
        r.call(
            "copy",
            json!({"src": "gradlew", "dst": ".git/hooks/pre-commit"}),
        ),
        r.call(
            "write_file",
            json!({"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch HOOKED\n"}),
        ),
    ];
    let committed = git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    assert!(
        !r.dir.path().join("HOOKED").exists(),
        "auto-confirm let the agent plant a git hook that ran at the user's commit \
         ({committed:?}): {said:?}"
    );
}

/// Runs this test binary again for the one test `name` with `REDTEAM_CHILD` set to `case`, so
/// that a crash (a stack overflow aborts the whole process) is seen from outside.
fn run_child(name: &str, case: &str) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("REDTEAM_CHILD", case)
        .output()
        .unwrap()
}

/// Makes `depth` directories nested in `root` (`d/d/d/…`), each level created relative to
/// the one above (paths past PATH_MAX cannot be named whole).
#[cfg(unix)]
fn nest(root: &Path, depth: usize) {
    let script = format!(
        "cd '{}' && i=0; while [ $i -lt {depth} ]; do mkdir d && cd d || exit 1; i=$((i+1)); done; echo x > f",
        root.display()
    );
    let made = std::process::Command::new("sh")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(made.success());
}

/// `copy` walks the source tree recursively, once to check its links (`check_links`) and once
/// to count executables (`executables`), one stack frame per level, before copying; a
/// repository (or the agent, with `mkdir`) can nest directories as deep as the file system
/// lets it. A tool call runs on whatever thread the runtime gives it, often a 2 MiB async
/// worker; there the walk overflows the stack, which aborts the whole agent process.
#[cfg(unix)]
#[test]
fn copy_of_a_deep_tree_does_not_overflow_the_stack() {
    const NAME: &str =
        "redteam_tools_fixes_toolfix2a::copy_of_a_deep_tree_does_not_overflow_the_stack";
    if let Ok(dir) = std::env::var("REDTEAM_CHILD") {
        let ws = Workspace::new(&dir).unwrap();
        let agent = AgentHandle::new("red").with_workspace(ws);
        let toolbox = ToolBox::new().with_defaults(&["fs"]).unwrap();
        let said = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                toolbox
                    .call_tool_blocking(&agent, "copy", json!({"src": "d", "dst": "e"}), ())
                    .map_err(|e| format!("{e:?}"))
            })
            .unwrap()
            .join();
        println!("copy: {said:?}");
        return;
    }
    let dir = Scratch::new();
    nest(dir.path(), 2000);
    let out = run_child(NAME, &dir.path().display().to_string());
    let _ = std::process::Command::new("rm")
        .args(["-rf"])
        .arg(dir.path())
        .status();
    assert!(
        out.status.success(),
        "copy of a 2000-deep tree killed the process: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains("overflow") || l.contains("copy:"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Runs `git` in `dir` with a fixed identity.
fn git_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(["-c", "user.name=r", "-c", "user.email=r@r"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The allowlist's answer to "is this file a credential", for tools that read by path: the
/// same table `cat` is judged by, exceptions included.
#[test]
fn the_allowlist_says_which_paths_are_sensitive() {
    use cmdguard::Analyzer;
    let analyzer = Analyzer::default();
    let list = analyzer.allowlist();
    let home = Path::new("/home/u");
    let cases: &[(&str, bool)] = &[
        ("/w/app/.env", true),
        ("/w/app/.ssh/id_ed25519", true),
        ("/home/u/.ssh/id_rsa", true),
        ("/home/u/.ssh/id_rsa.pub", false),
        ("/w/app/README.md", false),
        ("/w/app/src/env.rs", false),
    ];
    for (path, sensitive) in cases {
        assert_eq!(
            list.sensitive_path(Path::new(path), Some(home)).is_some(),
            *sensitive,
            "{path}"
        );
    }
    // The same verdict as `cat` in that place.
    let here = cmdguard::Workdir::new("/w/app").with_home(home);
    for (path, sensitive) in cases {
        let cat = analyzer.analyze_in(&format!("cat {path}"), &here);
        assert_eq!(
            cat.verdict != cmdguard::Verdict::Allow,
            *sensitive,
            "cat {path}: {:?}",
            cat.findings
        );
    }
}

/// `grep` skips credential files and says which; other files are still searched.
#[test]
fn grep_names_the_credential_files_it_did_not_search() {
    let r = Red::new(Choice::Yes);
    r.dir.write(".env", "KEY=needle\n");
    r.dir.write("notes.txt", "needle\n");
    let found = r
        .call(
            "grep",
            json!({"path": ".", "pattern": "needle", "skip_ignored": false}),
        )
        .unwrap();
    assert_eq!(found["matches"], json!(["notes.txt:1:needle"]), "{found}");
    let skipped = found["skipped"].as_str().unwrap_or_default();
    assert!(skipped.contains(".env"), "{found}");
    assert!(r.asked().is_empty(), "grep asked {:?}", r.asked());
}

/// `read_file` of a credential file asks; yes reads it, no refuses it, and a workspace
/// without a confirmation policy refuses it. `file_info` does not look into it.
#[test]
fn read_file_of_a_credential_file_asks_every_time() {
    for (answer, reads) in [(Choice::Yes, true), (Choice::No, false)] {
        let r = Red::new(answer.clone());
        r.dir.write(".env", "KEY=secret\n");
        let read = r.call("read_file", json!({"path": ".env"}));
        assert_eq!(read.is_ok(), reads, "{answer:?}: {read:?}");
        let again = r.call("read_file", json!({"path": ".env"}));
        assert_eq!(again.is_ok(), reads, "{answer:?}: {again:?}");
        assert_eq!(r.asked().len(), 2, "{:?}", r.asked());
        let info = r.call("file_info", json!({"path": ".env"})).unwrap();
        assert!(
            info["lines"].is_null() && info["sensitive"].is_string(),
            "{info}"
        );
    }
    let dir = Scratch::new();
    dir.write(".env", "KEY=secret\n");
    let agent = AgentHandle::new("a").with_workspace(Workspace::new(dir.path()).unwrap());
    let toolbox = ToolBox::new().with_defaults(&["fs"]).unwrap();
    let read = toolbox.call_tool_blocking(&agent, "read_file", json!({"path": ".env"}), ());
    assert!(read.is_err(), "{read:?}");
}

/// Copying or moving a credential file (or a directory holding one) to another name would
/// let it be read there without a question: the copy and the move ask about it first.
#[test]
fn copy_and_move_of_a_credential_file_ask() {
    let cases: &[(&str, &str, &str)] = &[
        ("copy", ".env", "notes.txt"),
        ("move", ".env", "notes.txt"),
        ("copy", "keys/.aws", "public"),
        ("move", "keys/.aws", "public"),
    ];
    for (tool, src, dst) in cases {
        let r = Red::new(Choice::No);
        r.dir.write(".env", "KEY=secret\n");
        r.dir
            .write("keys/.aws/config", "aws_secret_access_key = x\n");
        let said = r.call(tool, json!({"src": src, "dst": dst}));
        assert!(said.is_err(), "{tool} {src} {dst}: {said:?}");
        assert!(
            r.asked().iter().any(|q| q.contains("credential")),
            "{tool} {src} {dst}: {:?}",
            r.asked()
        );
        assert!(!r.dir.path().join(dst).exists(), "{tool} {src} {dst}");
    }
}

/// A credential file that keeps a credential file's name where it lands stays guarded there:
/// moving or copying it (inside a tree) asks nothing more than any move or copy.
#[test]
fn a_credential_file_that_keeps_its_name_is_not_asked_about_when_moved() {
    for tool in ["copy", "move"] {
        let r = Red::new(Choice::Yes);
        r.dir.write("app/.env", "KEY=secret\n");
        let said = r.call(tool, json!({"src": "app", "dst": "app2"}));
        assert!(said.is_ok(), "{tool}: {said:?}");
        assert!(
            !r.asked().iter().any(|q| q.contains("credential")),
            "{tool}: {:?}",
            r.asked()
        );
        assert!(r.dir.path().join("app2/.env").exists(), "{tool}");
    }
}

/// A move asks about both of its sides: a grant for one directory covers neither a move out
/// of it to an ungranted place, nor a move into it from one.
#[test]
fn a_move_is_covered_by_a_grant_only_when_both_sides_are() {
    use cmdguard::policy::{ChoiceOutcome, Policy, PolicySettings, Prompt};
    use std::sync::{Arc, Mutex};
    let cases: &[(&str, &str, usize)] = &[
        ("granted/a.txt", "granted/b.txt", 0),
        ("granted/a.txt", "elsewhere.txt", 1),
        ("b.txt", "granted/c.txt", 1),
    ];
    for (src, dst, questions) in cases {
        let dir = Scratch::new();
        dir.write("granted/a.txt", "a\n");
        dir.write("b.txt", "b\n");
        let policy = Arc::new(Policy::new(PolicySettings {
            auto_confirm: false,
            state_file: None,
        }));
        let granted = fs::canonicalize(dir.path()).unwrap().join("granted");
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        let first = Arc::new(Mutex::new(true));
        let ws = Workspace::new(dir.path())
            .unwrap()
            .with_permission(policy, move |p: &Prompt| {
                let mut first = first.lock().unwrap();
                if *first {
                    // The setup question: grant the directory.
                    *first = false;
                    return ChoiceOutcome::user(Choice::GrantPath {
                        path: granted.clone(),
                    });
                }
                seen.lock().unwrap().push(p.command.clone());
                ChoiceOutcome::user(Choice::No)
            });
        let agent = AgentHandle::new("a").with_workspace(ws);
        let toolbox = ToolBox::new().with_defaults(&["fs"]).unwrap();
        toolbox
            .call_tool_blocking(
                &agent,
                "write_file",
                json!({"path": "granted/a.txt", "content": "a2\n"}),
                (),
            )
            .unwrap();
        let said = toolbox.call_tool_blocking(&agent, "move", json!({"src": src, "dst": dst}), ());
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), *questions, "{src} -> {dst}: {asked:?}");
        assert_eq!(said.is_ok(), *questions == 0, "{src} -> {dst}: {said:?}");
    }
}

/// Where git runs hooks from, a new file asks (every time, default no) and an existing one
/// is overwritten only after a question, grants notwithstanding: `.git`, the directory
/// `core.hooksPath` names (and its parent below the work tree), a hook manager's files; and
/// where the repository's config cannot be read, anywhere in the repository.
#[test]
fn new_files_where_git_runs_hooks_ask() {
    // (repository config lines, path written, asks)
    let cases: &[(&str, &str, bool)] = &[
        ("", "src/main.rs", false),
        ("", ".git/hooks/pre-commit", true),
        ("", ".husky/pre-commit", true),
        ("", ".pre-commit-config.yaml", true),
        ("", "lefthook.yml", true),
        (
            "[core]\n\thooksPath = tools/hooks\n",
            "tools/hooks/pre-push",
            true,
        ),
        ("[core]\n\thooksPath = tools/hooks\n", "tools/run.sh", true),
        ("[core]\n\thooksPath = tools/hooks\n", "src/main.rs", false),
        ("[core]\n\thooksPath = hooks\n", "src/main.rs", false),
        ("[core]\n\thooksPath = hooks\n", "hooks/pre-commit", true),
        ("[include]\n\tpath = other.conf\n", "src/main.rs", true),
        ("[core\n", "src/main.rs", true),
    ];
    for (config, path, asks) in cases {
        let r = Red::new(Choice::No);
        assert!(git_in(r.dir.path(), &["init", "-q"]).status.success());
        if !config.is_empty() {
            let file = r.dir.path().join(".git/config");
            let mut text = fs::read_to_string(&file).unwrap();
            text.push_str(config);
            fs::write(&file, text).unwrap();
        }
        fs::create_dir_all(r.dir.path().join(path).parent().unwrap()).unwrap();
        let said = r.call(
            "write_file",
            json!({"path": path, "content": "touch HOOKED\n"}),
        );
        assert_eq!(said.is_err(), *asks, "{config:?} {path}: {said:?}");
        assert_eq!(
            !r.asked().is_empty(),
            *asks,
            "{config:?} {path}: {:?}",
            r.asked()
        );
    }
}

/// Under auto-confirm, a change where git runs hooks or reads its configuration takes the
/// default no: overwriting `.git/config` (a `core.fsmonitor` there runs at the next `git
/// status`) and creating an executable.
#[test]
fn auto_confirm_refuses_changes_that_run_beyond_every_check() {
    let r = Red::with(Choice::Yes, true);
    assert!(git_in(r.dir.path(), &["init", "-q"]).status.success());
    let before = fs::read_to_string(r.dir.path().join(".git/config")).unwrap();
    let said = r.call(
        "write_file",
        json!({"path": ".git/config", "content": "[core]\n\tfsmonitor = touch HOOKED\n"}),
    );
    assert!(said.is_err(), "{said:?}");
    assert_eq!(
        fs::read_to_string(r.dir.path().join(".git/config")).unwrap(),
        before
    );
    // An ordinary file is still written under auto-confirm.
    r.dir.write("notes.txt", "a\n");
    let said = r.call("write_file", json!({"path": "notes.txt", "content": "b\n"}));
    assert!(said.is_ok(), "{said:?}");
}

/// A tree past the depth limit is refused with an error before anything is copied; one
/// within it is copied whole.
#[cfg(unix)]
#[test]
fn copy_refuses_a_tree_deeper_than_its_limit_and_copies_one_within_it() {
    use cmdguard::tool::groups::fs::MAX_TREE_DEPTH;
    for (depth, copies) in [(10, true), (MAX_TREE_DEPTH + 1, false)] {
        let r = Red::new(Choice::No);
        nest(r.dir.path(), depth);
        let said = r.call("copy", json!({"src": "d", "dst": "e"}));
        assert_eq!(said.is_ok(), copies, "depth {depth}: {said:?}");
        assert_eq!(r.dir.path().join("e").exists(), copies, "depth {depth}");
    }
}

/// A tree copied or moved to a new name is checked file by file: a hook manager's directory
/// inside it, or a tree that would hold the directory `core.hooksPath` names, asks.
#[test]
fn a_copied_or_moved_tree_is_checked_where_each_file_lands() {
    // (tool, source tree file, destination, asks)
    let cases: &[(&str, &str, &str, bool)] = &[
        ("copy", "tmpl/.husky/pre-commit", "site", true),
        ("move", "tmpl/.husky/pre-commit", "site", true),
        ("copy", "tmpl/y/hooks/pre-commit", "x", true),
        ("move", "tmpl/y/hooks/pre-commit", "x", true),
        ("copy", "tmpl/src/main.rs", "site", false),
    ];
    for (tool, file, dst, asks) in cases {
        let r = Red::new(Choice::Yes);
        assert!(git_in(r.dir.path(), &["init", "-q"]).status.success());
        assert!(
            git_in(r.dir.path(), &["config", "core.hooksPath", "x/y/hooks"])
                .status
                .success()
        );
        r.dir.write(file, "touch HOOKED\n");
        let said = r.call(tool, json!({"src": "tmpl", "dst": dst}));
        let hook_questions = r.asked().iter().filter(|q| q.starts_with("create")).count();
        assert_eq!(
            hook_questions > 0,
            *asks,
            "{tool} {file} -> {dst}: {said:?}, asked {:?}",
            r.asked()
        );
    }
}
