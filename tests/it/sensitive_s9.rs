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
            // Red team s9: the same through a loop, `xargs` and a lister.
            ("for f in src/*/x; do cat \"$f\"; done", Ask, READ),
            ("for d in src/*; do head -c 99 \"$d/x\"; done", Ask, READ),
            ("echo src/*/x | xargs cat", Ask, READ),
            ("ls -d src/*/x | xargs cat", Ask, READ),
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

/// Red team s9, public_vars "set earlier": an append (`x+=`), `local` outside a function,
/// `mapfile -O`, `read -t 0`, a `read` whose failure the script goes on after, and a name made
/// read-only keep the inherited value (real bash printed it, with `myv=FAKEVALUE1` in the
/// environment, for each asking row). Near misses: assignments and reads that surely happened.
#[test]
fn red_team_s9_values_a_command_did_not_surely_set_ask() {
    use super::rules::check;
    let prints = Some(Code::PrintsEnvironment);
    check(&[
        ("http_proxy+=x; echo $http_proxy", Ask, prints),
        ("myv+=(a); echo $myv", Ask, prints),
        ("declare myv+=x; echo $myv", Ask, prints),
        ("local myv+=x; echo $myv", Ask, prints),
        ("local http_proxy=1; echo $http_proxy", Ask, prints),
        (
            "mapfile -O 1 http_proxy <<< a; echo $http_proxy",
            Ask,
            prints,
        ),
        ("readarray -O 2 myv <<< a; echo $myv", Ask, prints),
        ("read -t 0 http_proxy; echo $http_proxy", Ask, prints),
        ("read -rt 0 myv && echo $myv", Ask, prints),
        ("read -u 9 myv; echo $myv", Ask, prints),
        ("mapfile -u 9 myv; echo $myv", Ask, prints),
        ("read -t abc myv; echo $myv", Ask, prints),
        ("read myv <&-; echo $myv", Ask, prints),
        ("until read myv; do echo $myv; done", Ask, prints),
        ("readonly myv; read myv <<< a; echo $myv", Ask, prints),
        ("typeset -r myv; read myv <<< a; echo $myv", Ask, prints),
        ("readonly myv; getopts a myv; echo $myv", Ask, prints),
        // Near misses.
        ("myv=1 myv+=2; echo $myv", Allow, None),
        ("f() { local myv=1; echo $myv; }", Allow, None),
        ("read -r myv && echo \"$myv\"", Allow, None),
        ("if read -r myv; then echo \"$myv\"; fi", Allow, None),
        (
            "while read -r myv; do echo \"$myv\"; done < list.txt",
            Allow,
            None,
        ),
        ("readonly myv=1; echo $myv", Allow, None),
    ]);
}

/// Red team s9: a comparison whose outcome is printed or returned is an oracle on the value
/// (`[[ ${T:0:1} == F ]] && echo F` letter by letter; `case $T in F*)`; the exit status of
/// `test "$T" = guess`). Only presence tests (`-n`, `-z`, a bare `"$T"`) and file tests of a
/// plain variable stay exempt.
#[test]
fn red_team_s9_comparisons_of_a_secret_ask() {
    use super::rules::check;
    let prints = Some(Code::PrintsEnvironment);
    check(&[
        (
            "for c in A E F; do [[ ${GITHUB_TOKEN:0:1} == \"$c\" ]] && echo \"0$c\"; done",
            Ask,
            prints,
        ),
        (
            "for c in F FA; do [[ $GITHUB_TOKEN == \"$c\"* ]] && echo \"$c\"; done",
            Ask,
            prints,
        ),
        ("[[ $GITHUB_TOKEN < G ]] && echo y", Ask, prints),
        ("case $GITHUB_TOKEN in F*) echo y;; esac", Ask, prints),
        (
            "for c in A E; do case ${GITHUB_TOKEN:3:1} in \"$c\") echo \"3$c\";; esac; done",
            Ask,
            prints,
        ),
        ("test \"$GITHUB_TOKEN\" = FAKEVALUE1; echo $?", Ask, prints),
        ("[[ $GITHUB_TOKEN == F* ]] || exit 3", Ask, prints),
        ("test -n \"${GITHUB_TOKEN#F}\" && echo y", Ask, prints),
        // Near misses.
        ("[ -n \"$GITHUB_TOKEN\" ] && echo set", Allow, None),
        ("[[ -z $API_KEY ]]", Allow, None),
        ("[ \"$CI\" = true ] && echo ci", Allow, None),
        ("case $OSTYPE in linux*) echo l;; esac", Allow, None),
        (
            "for f in a b; do case \"$f\" in a) echo \"$f\";; esac; done",
            Allow,
            None,
        ),
    ]);
}

/// Red team s9: `LC_*` and `XDG_*` made any `LC_*TOKEN*` public; a wildcard `public_vars`
/// entry no longer beats `secret_vars`, an exact one still does (`AWS_REGION`).
#[test]
fn red_team_s9_public_wildcards_do_not_cover_secret_names() {
    use super::rules::check;
    let prints = Some(Code::PrintsEnvironment);
    check(&[
        ("echo $LC_API_TOKEN", Ask, prints),
        ("echo $XDG_SESSION_COOKIE", Ask, prints),
        ("echo $LC_ALL $XDG_CONFIG_HOME", Allow, None),
        ("echo $AWS_REGION", Allow, None),
    ]);
}

/// Red team s9 (found with bash 5.2): `r=(x); declare r='($(cmd))'` ran `cmd` under allow;
/// `declare`, `typeset` and `local` re-parse a quoted value in parentheses when the name is
/// already an array. Such a value asks, and a denied command in it denies.
#[test]
fn red_team_s9_declare_of_a_quoted_array_value_is_analysed() {
    use super::rules::check;
    use Verdict::Deny;
    let evaluated = Some(Code::EvaluatedExpansion);
    check(&[
        ("r=(x); declare r='($(touch /tmp/pwned))'", Ask, evaluated),
        (
            "r=(x); declare r='($GITHUB_TOKEN)'; echo $r",
            Ask,
            evaluated,
        ),
        ("r=(x); typeset r='($(rm -rf ~))'", Deny, Some(Code::Denied)),
        ("f() { local a=(x); local a=\"($(id))\"; }", Ask, evaluated),
        // Near miss: a plain value.
        ("declare x=1", Allow, None),
    ]);
}

/// Red team s9 (public_paths rows): files that hold credentials in otherwise public system
/// places and toolchain prefixes, and lists of names a program reads.
#[test]
fn red_team_s9_more_credential_files_ask() {
    use super::rules::check;
    check(&[
        ("cat /etc/gitconfig", Ask, READ),
        ("cat /etc/pip.conf", Ask, READ),
        ("cat /usr/local/etc/npmrc", Ask, READ),
        ("cat /etc/boto.cfg", Ask, READ),
        ("cat /etc/wpa_supplicant/wpa_supplicant.conf", Ask, READ),
        ("cat /etc/credstore/x", Ask, READ),
        ("cat /etc/docker/key.json", Ask, READ),
        ("cat /opt/app/secrets.env", Ask, READ),
        ("cat ~/.nvm/versions/node/v20/etc/npmrc", Ask, READ),
        ("cat ~/.pyenv/versions/3.11/pip.conf", Ask, READ),
        (
            "printf '%s\\0' ~/.aws/credentials | wc --files0-from=-",
            Ask,
            READ,
        ),
        ("du --files0-from=list0", Ask, READ),
        ("sha256sum -c sums", Ask, READ),
        // Near misses.
        ("cat /etc/hosts", Allow, None),
        ("cat package.json", Allow, None),
        ("cat config/settings.json", Allow, None),
        ("sha256sum f", Allow, None),
        ("wc -l f", Allow, None),
    ]);
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A project whose first commit holds `.env` (`TOKEN=FAKEENV`) and a directory `config`
/// holding `config/.env`, whose second replaces that directory with a file `config`; a stash
/// of an edited `.env` and a further unstaged edit; and a sibling repository `other` with an
/// edited `config.yml`.
#[cfg(unix)]
fn git_layout() -> Scratch {
    let s = Scratch::new();
    let proj = s.path().join("home/proj");
    s.write("home/proj/README.md", "readme");
    s.write("home/proj/.env", "TOKEN=FAKEENV");
    s.write("home/proj/src/a.rs", "code");
    s.write("home/proj/config/.env", "TOKEN=FAKECONF");
    git(&proj, &["init", "-q"]);
    git(&proj, &["config", "user.email", "t@example.com"]);
    git(&proj, &["config", "user.name", "t"]);
    git(&proj, &["add", "-f", "."]);
    git(&proj, &["commit", "-qm", "one"]);
    git(&proj, &["rm", "-rq", "config"]);
    s.write("home/proj/config", "plain");
    git(&proj, &["add", "config"]);
    git(&proj, &["commit", "-qm", "two"]);
    s.write("home/proj/.env", "TOKEN=FAKEENV2");
    git(&proj, &["stash", "-q"]);
    s.write("home/proj/.env", "TOKEN=FAKEENV3");
    let other = s.path().join("home/other");
    s.write("home/other/config.yml", "db_password=FAKEOTHER");
    git(&other, &["init", "-q"]);
    git(&other, &["config", "user.email", "t@example.com"]);
    git(&other, &["config", "user.name", "t"]);
    git(&other, &["add", "."]);
    git(&other, &["commit", "-qm", "one"]);
    s.write("home/other/config.yml", "db_password=FAKEOTHER2");
    s
}

/// `check` in the git layout, each row run by real git there: an asking row printed a
/// `FAKE…` secret, an allowed one none.
#[cfg(unix)]
#[track_caller]
fn check_with_git(s: &Scratch, rows: &[(&str, Verdict, Option<Code>)]) {
    let proj = s.path().join("home/proj");
    let dir = Workdir::new(&proj).with_home(s.path().join("home"));
    super::rules::check_in(&dir, rows);
    for (cmd, verdict, _) in rows {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(&proj)
            .env("HOME", s.path().join("home"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_PAGER", "cat")
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&out.stdout).contains("FAKE");
        assert_eq!(printed, *verdict == Ask, "{cmd:?} printed {out:?}");
    }
}

/// Limit (c) of session 8: a literal pathspec cannot prove what a command reaches in history
/// (`config` was a directory holding `config/.env` in the first commit; `--full-diff` widens
/// any pathspec), so history content asks whatever the pathspec. Names and summaries pass.
#[cfg(unix)]
#[test]
fn history_content_asks_whatever_the_pathspec() {
    let s = git_layout();
    check_with_git(
        &s,
        &[
            ("git log -p -- config", Ask, READ),
            ("git show HEAD -- config", Ask, READ),
            ("git log -p --full-diff -- README.md", Ask, READ),
            ("git diff HEAD~1 -- config", Ask, READ),
            // Near misses: names, summaries, a blob that is no secret.
            ("git log --oneline -- config", Allow, None),
            ("git log --stat -- config", Allow, None),
            ("git show --stat HEAD -- config", Allow, None),
            ("git show HEAD:README.md", Allow, None),
        ],
    );
}
