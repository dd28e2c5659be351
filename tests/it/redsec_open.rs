//! Red team, session 9 (branch `redsec`), the tests main did not yet pass, against issue 12's secret rules (`public_vars`, `public_paths`, the git
//! history rule). Each test asserts what real bash, git and coreutils show is needed: a row that
//! fails here is a way a secret's value or content reaches output under `allow`, or a false ask.
//! Ground truth for every row is written beside it (bash 5.2, git 2.39, GNU coreutils 9.1).

use std::path::Path;

use crate::scratch::Scratch;

use cmdguard::{Code, Verdict, Workdir};

use super::rules::{check, check_in};
use Verdict::{Allow, Ask};

const PRINTS: Option<Code> = Some(Code::PrintsEnvironment);
const READ: Option<Code> = Some(Code::SensitiveRead);

/// A project at `home/proj` in a scratch directory, with `home` as the home directory.
fn project(s: &Scratch) -> Workdir {
    s.write("home/proj/README.md", "hi\n");
    s.write("home/proj/src/a.rs", "fn a() {}\n");
    Workdir::new(s.path().join("home/proj")).with_home(s.path().join("home"))
}

// (b) public_paths and reads after a cd.

/// `cd src && cat ../README.md` reads the project's own README (`cat src/../README.md` passes):
/// a false ask on a common agent command.
#[test]
fn reads_back_into_the_project_after_a_cd_pass() {
    let s = Scratch::new();
    s.write("home/proj/sub/f", "x\n");
    git(&s.path().join("home/proj"), &["init", "-q"]);
    check_in(
        &project(&s),
        &[
            ("cd src && cat ../README.md", Allow, None),
            ("cd sub && cat ../README.md", Allow, None),
            ("cat src/../README.md", Allow, None),
            ("cd .. && cd proj && cat README.md", Allow, None),
            ("cd src; cat a.rs; cd ..; cat README.md", Allow, None),
            ("cd src && head ../README.md ../sub/f", Allow, None),
            ("cd src && diff a.rs ../README.md", Allow, None),
            ("cd src && wc -l < ../README.md", Allow, None),
            ("cd \"$PWD\" && cat README.md", Allow, None),
            (
                "cd \"$(git rev-parse --show-toplevel)\" && cat README.md",
                Allow,
                None,
            ),
        ],
    );
}

// git: history.

/// Runs real git in `dir`, isolated from the user's and system config.
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@b")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@b")
        .env_remove("GIT_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A comparison prints nothing, but `&& echo` or a `case` arm prints its outcome, and the loop
/// variable it echoes counts as set by the command: with `GITHUB_TOKEN=FAKEVALUE1` bash printed
/// `1A 0F 2K` for the first row, the prefix `F FA FAK FAKE FAKEV FAKEVA` for the third — one
/// command over 64 letters and 40 offsets prints the whole token.
#[test]
fn comparisons_that_print_their_outcome_reveal_the_value() {
    check(&[
        (
            "for c in A E F K L U V 1; do [[ ${GITHUB_TOKEN:0:1} == \"$c\" ]] && echo \"0$c\"; \
             [[ ${GITHUB_TOKEN:1:1} == \"$c\" ]] && echo \"1$c\"; \
             [[ ${GITHUB_TOKEN:2:1} == \"$c\" ]] && echo \"2$c\"; done",
            Ask,
            PRINTS,
        ),
        (
            "for c in A E F K L U V 1; do case ${GITHUB_TOKEN:3:1} in \"$c\") echo \"3$c\";; esac; done",
            Ask,
            PRINTS,
        ),
        (
            "for c in F FA FAK FAKE FAKEV FAKEVA; do [[ $GITHUB_TOKEN == \"$c\"* ]] && echo \"$c\"; done",
            Ask,
            PRINTS,
        ),
        ("[[ $GITHUB_TOKEN < G ]] && echo y", Ask, PRINTS),
        ("case $GITHUB_TOKEN in F*) echo y;; esac", Ask, PRINTS),
        ("echo ${#GITHUB_TOKEN}", Ask, PRINTS),
        // The exit status is output too: bash printed `0` for both.
        ("[[ $GITHUB_TOKEN == F* ]]; echo $?", Ask, PRINTS),
        ("test \"$GITHUB_TOKEN\" = FAKEVALUE1; echo $?", Ask, PRINTS),
        // Whether it is set or empty is no secret.
        ("[ -n \"$GITHUB_TOKEN\" ] && echo set", Allow, None),
    ]);
}

/// `ps` and `/proc/N/cmdline` print other processes' arguments, where tokens are passed
/// (`mysql -pPASS`, `curl -u user:pass`, servers started with `--api-key`).
#[test]
fn other_processes_command_lines_carry_credentials() {
    check(&[
        ("ps aux", Ask, READ),
        ("ps -ef", Ask, READ),
        ("ps -eo args", Ask, READ),
        ("cat /proc/1/cmdline", Ask, READ),
        ("cat /proc/self/cmdline", Allow, None),
    ]);
}

/// Commit `one` adds `README.md` and `.env`, `two` edits both, `mv` renames `.env` to
/// `config.txt`, `clean` empties it. git 2.39 printed `TOKEN=FAKECOMMITTED` from `.env` for
/// every row: `--full-diff` shows whole commits that touch the path, `--follow` goes on under
/// the path's old name.
#[test]
fn full_diff_and_follow_widen_a_literal_pathspec() {
    let s = Scratch::new();
    let dir = project(&s);
    let proj = s.path().join("home/proj");
    s.write("home/proj/.env", "TOKEN=FAKECOMMITTED\n");
    git(&proj, &["init", "-q"]);
    git(&proj, &["add", "-f", "."]);
    git(&proj, &["commit", "-qm", "one"]);
    s.write("home/proj/README.md", "hi2\n");
    s.write("home/proj/.env", "TOKEN=FAKECOMMITTED2\n");
    git(&proj, &["add", "-f", "."]);
    git(&proj, &["commit", "-qm", "two"]);
    git(&proj, &["mv", ".env", "config.txt"]);
    git(&proj, &["commit", "-qm", "mv"]);
    s.write("home/proj/config.txt", "nothing\n");
    git(&proj, &["commit", "-qam", "clean"]);
    check_in(
        &dir,
        &[
            ("git log -p --full-diff -- README.md", Ask, READ),
            ("git log --full-diff -p -- README.md", Ask, READ),
            ("git show --full-diff HEAD~2 -- README.md", Ask, READ),
            ("git log -p --follow -- config.txt", Ask, READ),
            ("git log --follow -p -- config.txt", Ask, READ),
            ("git log -p --follow config.txt", Ask, READ),
            // Decision (c) of session 9: a literal pathspec proves nothing without reading git's
            // objects (it may have been a directory holding `.env` in an older commit).
            ("git log -p -- README.md", Ask, READ),
        ],
    );
}

/// The kernel resolves a symlink before the `..` after it: with `ext -> ~/.config/x` and
/// `awsdir -> ~/.aws` in the project, cat printed the gh token and `~/notes.txt` for every
/// row, reads outside the project that `..` folded lexically hides.
#[cfg(unix)]
#[test]
fn dotdot_after_a_symlinked_directory_leaves_the_project() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    let dir = project(&s);
    s.write("home/.config/x/y", "y\n");
    s.write("home/.config/gh/hosts.yml", "oauth_token: FAKEGH\n");
    s.write("home/.aws/config", "[default]\n");
    s.write("home/notes.txt", "FAKENOTES\n");
    let home = s.path().join("home");
    symlink(home.join(".config/x"), home.join("proj/ext")).unwrap();
    symlink(home.join(".aws"), home.join("proj/awsdir")).unwrap();
    check_in(
        &dir,
        &[
            ("cat ext/../gh/hosts.yml", Ask, READ),
            ("cat awsdir/../.config/gh/hosts.yml", Ask, READ),
            ("head -5 awsdir/../.config/gh/hosts.yml", Ask, READ),
            ("cat awsdir/../notes.txt", Ask, READ),
            ("wc -l < awsdir/../notes.txt", Ask, READ),
            ("grep . awsdir/../notes.txt", Ask, READ),
            ("sed -n p awsdir/../notes.txt", Ask, READ),
            ("awk 1 awsdir/../notes.txt", Ask, READ),
            ("jq -R . awsdir/../notes.txt", Ask, READ),
            ("diff awsdir/../notes.txt README.md", Ask, READ),
            (
                "while read -r l; do echo \"$l\"; done < awsdir/../notes.txt",
                Ask,
                READ,
            ),
            ("cat ext/y", Ask, READ),
            // After `cd` into the link, `..` in a read is physical too (cat printed the token);
            // this asks today and must keep asking once reads back into the project pass.
            ("cd ext && cat ../gh/hosts.yml", Ask, READ),
            // bash's `cd` itself is logical: `cd ext/..` is the project again (cat printed it).
            ("cd ext/.. && cat README.md", Allow, None),
        ],
    );
}
