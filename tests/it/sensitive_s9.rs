//! Sensitive reads, session 9 (issue 12): a variable the command assigns a literal once is
//! read as that literal, a wildcard in a directory part is expanded level by level through
//! symlinks, `..` after a symlink is applied where the kernel applies it, and a git pathspec
//! counts as a file only where git can see it as one. Every row that asks was run under real
//! bash in the same layout and printed the secret (`bash_reads` below checks it each run); each
//! allowed row printed none.

use crate::scratch::Scratch;

use cmdguard::{Code, Verdict, Workdir};

use Verdict::{Allow, Ask};

const READ: Option<Code> = Some(Code::SensitiveRead);

/// `check` with `home/proj` of `s` as working directory and `home` as `$HOME`, and each row
/// run under real bash there: an asking row must print `SECRET` (the file it is about was
/// read), an allowed one must not.
#[track_caller]
fn check_with_bash(s: &Scratch, rows: &[(&str, Verdict, Option<Code>)]) {
    let proj = s.path().join("home/proj");
    let dir = Workdir::new(&proj).with_home(s.path().join("home"));
    super::rules::check_in(&dir, rows);
    for (cmd, verdict, _) in rows {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(&proj)
            .env("HOME", s.path().join("home"))
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&out.stdout).contains("SECRET");
        assert_eq!(
            printed,
            *verdict == Ask,
            "bash -c {cmd:?} printed {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// A home with credentials and a note outside the project, and a project whose `src/out`
/// links to a directory outside it and `keys` to `~/.ssh`.
#[cfg(unix)]
fn layout() -> Scratch {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    s.write("home/.ssh/config", "SECRET ssh");
    s.write("home/.ssh/id_rsa", "SECRET key");
    s.write("home/notes.txt", "SECRET note");
    s.write("home/other/x", "SECRET other");
    s.write("home/.config/gh/hosts.yml", "SECRET token");
    s.write("home/proj/README.md", "readme");
    s.write("home/proj/src/real/x", "fine");
    s.write("home/proj/src/lib/x", "fine");
    let proj = s.path().join("home/proj");
    symlink("../.ssh", proj.join("keys")).unwrap();
    symlink("../../other", proj.join("src/out")).unwrap();
    s
}

/// Limit (a) of session 8: `d=src; cat $d/x` asked because the value was not carried. A
/// literal assigned once, surely before the use, is read as written; anything that may give
/// the variable another value keeps the read unknown (asks).
#[cfg(unix)]
#[test]
fn a_literal_assigned_once_is_read_as_its_value() {
    let s = layout();
    check_with_bash(
        &s,
        &[
            ("d=src; cat $d/real/x", Allow, None),
            ("d=src; cat \"$d/real/x\"", Allow, None),
            ("f=src/real/x; cat \"$f\"", Allow, None),
            ("f=src/real/x; cat \"${f}\"", Allow, None),
            ("f=src/real; cat $f/x && wc -c $f/x", Allow, None),
            ("d=src && cat \"$d/lib/x\"", Allow, None),
            ("d=keys; cat \"$d/config\"", Ask, READ),
            ("d=keys; cat $d/id_rsa", Ask, READ),
            ("d=~/.ssh; cat $d/config", Ask, READ),
            ("d=~; cat $d/notes.txt", Ask, READ),
            ("d=..; cat $d/notes.txt", Ask, READ),
            ("d=src/out; cat $d/x", Ask, READ),
            ("f=keys/config; cat \"$f\"", Ask, READ),
            // Near misses the other way: any second source of a value keeps it unknown.
            ("d=src; d=keys; cat $d/config", Ask, READ),
            ("(d=src); d=keys; cat $d/config", Ask, READ),
        ],
    );
}

/// The same near misses without bash: a branch, a subshell or a pipeline may not have run
/// the assignment, and a read or `+=` gives another value (the read of `$d` then asks).
#[test]
fn a_literal_not_surely_assigned_first_stays_unknown() {
    use super::rules::check;
    let prints = Some(Code::PrintsEnvironment);
    check(&[
        ("if true; then d=src; fi; cat $d/x", Ask, prints),
        ("(d=src); cat $d/x", Ask, prints),
        ("d=src | cat $d/x", Ask, prints),
        ("d=src cat $d/x", Ask, prints),
        ("d=src; read d; cat $d/x", Ask, READ),
        ("d=src; d+=/../..; cat $d/x", Ask, READ),
        ("d=src; IFS=/; cat $d/x", Ask, READ),
        // A name built at run time may be the variable's (all three set `d` to `keys` in bash).
        ("d=src; n=d; eval \"$n=keys\"; cat $d/config", Ask, READ),
        ("d=src; printf -v \"${n}d\" keys; cat $d/config", Ask, READ),
        ("d=src; n=d; : ${!n:=keys}; cat $d/config", Ask, READ),
        ("d=src; cat $d/x", Allow, None),
    ]);
}

/// Limit (b) of session 8: a wildcard in a directory part (`cat src/*/x`, `for d in src/*;
/// do cat "$d/x"; done`) was judged by its last part only, so a symlink below the wildcard
/// that led out of the project was read without asking.
#[cfg(unix)]
#[test]
fn a_wildcard_in_a_directory_part_is_followed_through_symlinks() {
    let s = layout();
    check_with_bash(
        &s,
        &[
            ("cat src/*/x", Ask, READ),
            ("cat src/[a-z]*/x", Ask, READ),
            ("for d in src/*; do cat \"$d/x\"; done", Ask, READ),
            ("for d in src/*; do cat \"$d\"/x; done", Ask, READ),
            ("cat */id_rsa", Ask, READ),
            // Near misses: the wildcard matches only directories inside.
            ("cat src/r*/x", Allow, None),
            ("cat src/[lr]*/x", Allow, None),
            ("for d in src/r* src/l*; do cat \"$d/x\"; done", Allow, None),
        ],
    );
}

/// Found while fixing (b): `..` after a symlink was applied to the text, so `keys/../x`
/// (`keys -> ~/.ssh`) was judged as `x` in the project while the kernel reads `~/x`.
#[cfg(unix)]
#[test]
fn dot_dot_after_a_symlink_climbs_from_where_the_link_leads() {
    let s = layout();
    check_with_bash(
        &s,
        &[
            ("cat keys/../notes.txt", Ask, READ),
            ("cat keys/../.config/gh/hosts.yml", Ask, READ),
            ("cat src/out/../notes.txt", Ask, READ),
            ("cat src/out/../other/x", Ask, READ),
            ("head -c 99 src/out/../notes.txt", Ask, READ),
            ("cat src/*/../notes.txt", Ask, READ),
            // Near misses: `..` after real directories.
            ("cat src/real/../lib/x", Allow, None),
            ("cat ./src/../src/real/x", Allow, None),
            ("cat ../proj/src/real/x", Allow, None),
        ],
    );
}
