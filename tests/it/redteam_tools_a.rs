//! Red-team findings against the built-in tool groups (issue 17), the part about the
//! workspace, `fs` and `patch` (the rest is in redteam_tools_b.rs): each test reproduces one
//! way a tool escapes the workspace, writes without the permission it promises or panics,
//! with real files in scratch directories. Each one failed while its finding stood.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt};
use cmdguard::tool::{AgentHandle, ToolBox, Workspace};
use serde_json::json;

use crate::red::Red;
use crate::scratch::Scratch;

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// A planted dangling link (a cloned repository can hold one) whose target is outside: the
/// write follows it and creates the target. With auto-confirm nobody is asked; a person is
/// asked to "overwrite" the link's own path, not the outside file that is written.
#[cfg(unix)]
#[test]
fn write_file_through_a_dangling_symlink_creates_nothing_outside() {
    let mut escaped = Vec::new();
    for (answer, auto_confirm) in [(Choice::No, true), (Choice::Yes, false)] {
        let r = Red::with(answer, auto_confirm);
        symlink(&r.out("planted.txt"), &r.dir.path().join("notes.txt"));
        let said = r.call(
            "write_file",
            json!({"path": "notes.txt", "content": "pwned\n"}),
        );
        if r.out("planted.txt").exists() {
            escaped.push(format!(
                "auto_confirm {auto_confirm}: {said:?}, asked {:?}",
                r.asked()
            ));
        }
    }
    assert!(
        escaped.is_empty(),
        "write_file created a file outside the workspace: {escaped:#?}"
    );
}

/// `copy` copies a dangling link into the temporary directory as a link, without asking
/// (nothing is overwritten); `write_file` there is never asked either, and follows the link
/// out of the workspace. The user, who answers no to everything, is never asked.
#[cfg(unix)]
#[test]
fn a_dangling_symlink_copied_into_the_temp_dir_writes_outside_without_asking() {
    let r = Red::new(Choice::No);
    symlink(&r.out("loot.txt"), &r.dir.path().join("link"));
    let temp = r.temp();
    let dst = format!("{temp}/link");
    let copied = r.call("copy", json!({"src": "link", "dst": dst}));
    let wrote = r.call("write_file", json!({"path": dst, "content": "pwned\n"}));
    assert!(
        !r.out("loot.txt").exists(),
        "a file outside the workspace was written (copy: {copied:?}, write_file: {wrote:?}, asked: {:?})",
        r.asked()
    );
}

/// `copy` onto a dangling link asks to "overwrite" the link, then writes through it to the
/// outside target.
#[cfg(unix)]
#[test]
fn copy_onto_a_dangling_symlink_writes_nothing_outside() {
    let r = Red::new(Choice::Yes);
    r.dir.write("src.txt", "data\n");
    symlink(&r.out("dst.txt"), &r.dir.path().join("dst.txt"));
    let _ = r.call("copy", json!({"src": "src.txt", "dst": "dst.txt"}));
    assert!(
        !r.out("dst.txt").exists(),
        "copy wrote outside the workspace (asked: {:?})",
        r.asked()
    );
}

/// `apply_patch` writes the new text to a fixed scratch name next to the file
/// (`.<name>.cmdguard-patch`) with a plain write, which follows a link planted at that name:
/// the patched text lands outside, and the file itself becomes a link to the outside file.
#[cfg(unix)]
#[test]
fn apply_patch_writes_nothing_through_a_link_at_its_scratch_name() {
    let r = Red::new(Choice::Yes);
    r.dir.write("f.txt", "a\n");
    symlink(
        &r.out("loot.txt"),
        &r.dir.path().join(".f.txt.cmdguard-patch"),
    );
    let said = r.call(
        "apply_patch",
        json!({"patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n"}),
    );
    let f = r.dir.path().join("f.txt");
    assert!(
        !r.out("loot.txt").exists(),
        "apply_patch wrote outside the workspace: {said:?}"
    );
    assert!(
        !fs::symlink_metadata(&f).unwrap().file_type().is_symlink(),
        "f.txt was replaced by a link"
    );
}

/// "All or nothing": every hunk is checked first, and when writing the second file fails the
/// first stays unchanged. The red team took the old fixed scratch name of g.txt with a
/// directory; scratch names are random now (see the test above), so here g.txt's directory is
/// removed while the user is asked (as another process could do it) and writing g.txt's new
/// text fails. No scratch file is left behind either.
#[test]
fn apply_patch_leaves_every_file_unchanged_when_one_write_fails() {
    let dir = Scratch::new();
    dir.write("f.txt", "a\n");
    dir.write("sub/g.txt", "a\n");
    let sub = dir.path().join("sub");
    let policy = Arc::new(Policy::new(PolicySettings {
        auto_confirm: false,
        state_file: None,
    }));
    let ws = Workspace::new(dir.path())
        .unwrap()
        .with_permission(policy, move |p: &Prompt| {
            if p.command.contains("g.txt") {
                fs::remove_dir_all(&sub).unwrap();
            }
            ChoiceOutcome::user(Choice::Yes)
        });
    let toolbox = ToolBox::new().with_all_defaults().unwrap();
    let agent = AgentHandle::new("red").with_workspace(ws);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n\
                 --- a/sub/g.txt\n+++ b/sub/g.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let said = toolbox.call_tool_blocking(&agent, "apply_patch", json!({"patch": patch}), ());
    assert!(said.is_err(), "{said:?}");
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\n",
        "f.txt was patched although the patch failed: {said:?}"
    );
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["f.txt"], "{said:?}");
}

/// Bad patches are input; they must give an error, not a panic (a panic is caught by the
/// ToolBox, but says "panicked" and the model learns nothing about its patch).
#[test]
fn apply_patch_never_panics_on_malformed_hunks() {
    let r = Red::new(Choice::Yes);
    r.dir.write("f.txt", "a\nb\n");
    let mut panics = Vec::new();
    for patch in [
        // A hunk line that starts with a multi-byte character.
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n\u{e9}b\n",
        // A start line near usize::MAX: the search for the hunk overflows.
        "--- a/f.txt\n+++ b/f.txt\n@@ -18446744073709551615,2 +1,2 @@\n a\n-b\n+c\n",
    ] {
        let e = r.call("apply_patch", json!({"patch": patch})).unwrap_err();
        if e.contains("panicked") {
            panics.push(format!("{patch:?}: {e}"));
        }
    }
    // A panic poisons nothing: the next patch applies.
    r.call(
        "apply_patch",
        json!({"patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"}),
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(r.dir.path().join("f.txt")).unwrap(),
        "a\nc\n"
    );
    assert!(panics.is_empty(), "{panics:#?}");
}

/// A patch to a CRLF file (as `git diff` writes it, `\r` kept) changes one line, and every
/// other line of the file silently loses its `\r`.
#[test]
fn apply_patch_keeps_the_line_endings_of_lines_it_does_not_change() {
    let r = Red::new(Choice::Yes);
    r.dir.write("w.txt", "one\r\ntwo\r\nthree\r\nfour\r\n");
    r.call(
        "apply_patch",
        json!({"patch": "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n one\r\n-two\r\n+TWO\r\n three\r\n"}),
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(r.dir.path().join("w.txt")).unwrap(),
        "one\r\nTWO\r\nthree\r\nfour\r\n"
    );
}

/// The check and the write are separate path operations: a directory swapped for a link to
/// outside between `resolve` and `fs::write` (by a background job, another process) sends
/// the write outside. Here a thread swaps `sub` while `write_file("sub/N.txt")` runs.
#[cfg(unix)]
#[test]
fn a_directory_swapped_for_a_link_between_check_and_write_keeps_writes_inside() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let r = Red::new(Choice::No);
    let sub = r.dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, target, at) = (stop.clone(), r.outside.path().to_path_buf(), sub.clone());
    let swapper = std::thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            let _ = fs::remove_dir_all(&at);
            let _ = std::os::unix::fs::symlink(&target, &at);
            std::thread::yield_now();
            let _ = fs::remove_file(&at);
            let _ = fs::create_dir(&at);
            std::thread::yield_now();
        }
    });
    let start = Instant::now();
    let mut written = 0;
    while start.elapsed() < Duration::from_secs(10) {
        for n in 0..100 {
            let path = format!("sub/{n}.txt");
            if r.call("write_file", json!({"path": path, "content": "x"}))
                .is_ok()
            {
                written += 1;
            }
        }
        if fs::read_dir(r.outside.path()).unwrap().next().is_some() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let escaped: Vec<_> = fs::read_dir(r.outside.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        escaped.is_empty(),
        "{} of {written} writes landed outside after {:?}: {escaped:?}",
        escaped.len(),
        start.elapsed()
    );
}

/// Auto-confirm never deletes (delete's default is no), but `move` is not destructive (its
/// default is yes): moving a whole tree into the temporary directory passes, and the temporary
/// directory is removed with the workspace (or `delete` there asks nobody). A person is
/// asked to "move …" with yes as the default, for what is a deletion.
#[test]
fn moving_a_tree_into_the_temp_dir_is_asked_as_a_deletion() {
    let r = Red::with(Choice::No, true);
    r.dir.write("src/main.rs", "fn main() {}\n");
    let temp = r.temp();
    let moved = r.call("move", json!({"src": "src", "dst": temp}));
    let deleted = r.call("delete", json!({"path": format!("{temp}/src")}));
    let Red {
        dir,
        toolbox,
        agent,
        ..
    } = r;
    drop((toolbox, agent));
    assert!(
        dir.path().join("src/main.rs").exists(),
        "src/ is gone under auto-confirm (move: {moved:?}, delete: {deleted:?})"
    );
}

/// New files never ask ("they destroy nothing"), `copy` keeps a file's mode, and the temp
/// dir changes without asking: copy any executable of the repository into the temp dir,
/// replace its text there, copy it to `.git/hooks/pre-commit`. No question at all, and the
/// user's next `git commit` runs the agent's code, beyond every check cmdguard makes.
#[cfg(unix)]
#[test]
fn the_agent_cannot_plant_an_executable_git_hook_without_a_question() {
    use std::os::unix::fs::PermissionsExt;
    let r = Red::new(Choice::No);
    let root = r.dir.path();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-c", "user.name=u", "-c", "user.email=u@example.org"])
            .args(args)
            .current_dir(root)
            .output()
            .unwrap()
    };
    if git(&["init", "-q"]).status.code() != Some(0) {
        eprintln!("skipping: git init failed");
        return;
    }
    let script = r.dir.write("gradlew", "#!/bin/sh\necho build\n");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let temp = r.temp();
    let steps = [
        r.call(
            "copy",
            json!({"src": "gradlew", "dst": format!("{temp}/h")}),
        ),
        r.call(
            "write_file",
            json!({"path": format!("{temp}/h"), "content": "#!/bin/sh\ntouch HOOKED\n"}),
        ),
        r.call(
            "copy",
            json!({"src": format!("{temp}/h"), "dst": ".git/hooks/pre-commit"}),
        ),
    ];
    // The user, later, in a shell.
    git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    assert!(
        !root.join("HOOKED").exists(),
        "git commit ran the agent's hook; asked {:?}; steps {steps:?}",
        r.asked()
    );
}

/// `Workspace::resolve` follows dangling links (where a write would land) through chains,
/// relative and absolute, and refuses loops and anything that ends outside.
#[cfg(unix)]
#[test]
fn resolve_follows_dangling_links_to_where_a_write_would_land() {
    let r = Red::new(Choice::No);
    let root = fs::canonicalize(r.dir.path()).unwrap();
    let out = fs::canonicalize(r.outside.path()).unwrap();
    fs::create_dir(root.join("d")).unwrap();
    // chain -> d/next -> ../target.txt (missing): lands on target.txt in the workspace.
    symlink(Path::new("d/next"), &root.join("chain"));
    symlink(Path::new("../target.txt"), &root.join("d/next"));
    // A dangling link to a missing directory, used as a parent.
    symlink(Path::new("newdir"), &root.join("dirlink"));
    symlink(Path::new("loop2"), &root.join("loop1"));
    symlink(Path::new("loop1"), &root.join("loop2"));
    symlink(&out.join("x/y"), &root.join("far"));
    symlink(Path::new("../../.."), &root.join("d/up"));
    let ws = Workspace::new(&root).unwrap();
    let cases: [(&str, Result<PathBuf, &str>); 6] = [
        ("chain", Ok(root.join("target.txt"))),
        ("dirlink/f.txt", Ok(root.join("newdir/f.txt"))),
        ("loop1", Err("levels of symbolic links")),
        ("far", Err("not within")),
        ("far/z", Err("not within")),
        ("d/up/etc/passwd", Err("not within")),
    ];
    for (path, want) in cases {
        let got = ws.resolve(path).map_err(|e| e.to_string());
        match (&got, &want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w, "{path}"),
            (Err(g), Err(w)) => assert!(g.contains(w), "{path}: {g}"),
            _ => panic!("{path}: got {got:?}, want {want:?}"),
        }
    }
    // The write through the chain lands where resolve said, inside.
    r.call("write_file", json!({"path": "chain", "content": "x"}))
        .unwrap();
    assert_eq!(fs::read_to_string(root.join("target.txt")).unwrap(), "x");
}

/// New files that are not harmless ask, outside the temporary directory: anything in `.git`
/// (hooks, config) and executables, by write_file, copy or move (also out of the temporary
/// directory, which asks about the destination). A plain new file does not ask.
#[cfg(unix)]
#[test]
fn new_files_in_git_or_executable_ones_are_asked_about() {
    use std::os::unix::fs::PermissionsExt;
    let r = Red::new(Choice::No);
    r.dir.write(".git/HEAD", "ref: refs/heads/main\n");
    fs::create_dir(r.dir.path().join(".git/hooks")).unwrap();
    let script = r.dir.write("run.sh", "#!/bin/sh\n");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    r.dir.write("plain.txt", "p\n");
    let temp = r.temp();
    fs::write(format!("{temp}/h"), "#!/bin/sh\n").unwrap();
    let cases = [
        (
            "write_file",
            json!({"path": ".git/config", "content": "[core]\n"}),
            ".git/config",
        ),
        (
            "copy",
            json!({"src": "plain.txt", "dst": ".git/hooks/pre-commit"}),
            ".git/hooks/pre-commit",
        ),
        (
            "copy",
            json!({"src": "run.sh", "dst": "run2.sh"}),
            "run2.sh",
        ),
        (
            "move",
            json!({"src": format!("{temp}/h"), "dst": ".git/hooks/post-merge"}),
            ".git/hooks/post-merge",
        ),
        (
            "move",
            json!({"src": format!("{temp}/h"), "dst": "h.txt"}),
            "h.txt",
        ),
    ];
    for (tool, args, made) in cases {
        let before = r.asked().len();
        let said = r.call(tool, args.clone());
        assert!(
            said.as_ref().is_err_and(|e| e.contains("refused")),
            "{tool} {args}: {said:?}"
        );
        assert_eq!(
            r.asked().len(),
            before + 1,
            "{tool} {args}: {:?}",
            r.asked()
        );
        assert!(!r.dir.path().join(made).exists(), "{tool} {args}");
    }
    // A plain new file, and an executable inside the temporary directory, ask nothing.
    r.call("copy", json!({"src": "plain.txt", "dst": "plain2.txt"}))
        .unwrap();
    r.call(
        "copy",
        json!({"src": "run.sh", "dst": format!("{temp}/run.sh")}),
    )
    .unwrap();
    assert_eq!(r.asked().len(), 5, "{:?}", r.asked());
}

/// `copy` checks each link of a tree where it will be: a relative link that climbs out of the
/// copied tree is refused when it would point outside from there, and copied when it stays
/// inside; nothing is copied when one link is refused.
#[cfg(unix)]
#[test]
fn copied_links_are_checked_where_they_land() {
    let r = Red::new(Choice::No);
    r.dir.write("tree/sub/a.txt", "a\n");
    symlink(Path::new("../sub/a.txt"), &r.dir.path().join("tree/sub/up"));
    symlink(
        Path::new("../../tree/sub/a.txt"),
        &r.dir.path().join("tree/sub/far"),
    );
    r.call("copy", json!({"src": "tree", "dst": "copy"}))
        .unwrap();
    assert_eq!(
        fs::read_to_string(r.dir.path().join("copy/sub/up")).unwrap(),
        "a\n"
    );
    // One level up, `../../tree/sub/a.txt` climbs out of the working directory.
    let said = r.call("copy", json!({"src": "tree/sub", "dst": "s2"}));
    assert!(
        said.as_ref()
            .is_err_and(|e| e.contains("outside the agent's workspace")),
        "{said:?}"
    );
    assert!(!r.dir.path().join("s2").exists());
    assert!(r.asked().is_empty(), "{:?}", r.asked());
}

/// A hard link in the workspace (a planted archive can hold one) shares its contents with a
/// file outside: rewriting it in place would change that file. Both writes that replace
/// contents in place refuse it; the outside file keeps its text.
#[cfg(unix)]
#[test]
fn a_hard_link_to_an_outside_file_is_not_written_through() {
    let red = Red::new(Choice::Yes);
    let secret = red.out("victim.txt");
    fs::write(&secret, "outside\n").unwrap();
    fs::hard_link(&secret, red.dir.path().join("h.txt")).unwrap();
    fs::write(red.dir.path().join("src.txt"), "agent\n").unwrap();
    let e = red
        .call("write_file", json!({"path": "h.txt", "content": "agent\n"}))
        .unwrap_err();
    assert!(e.contains("hard links"), "{e}");
    let e = red
        .call("copy", json!({"src": "src.txt", "dst": "h.txt"}))
        .unwrap_err();
    assert!(e.contains("hard links"), "{e}");
    assert_eq!(fs::read_to_string(&secret).unwrap(), "outside\n");
    // A file with one link is still rewritten.
    red.call("write_file", json!({"path": "src.txt", "content": "new\n"}))
        .unwrap();
    assert_eq!(
        fs::read_to_string(red.dir.path().join("src.txt")).unwrap(),
        "new\n"
    );
}
