//! Red team, session 9, against issue 12's secret rules (`public_vars`, `public_paths`, the git
//! history rule). Each test asserts what real bash, git and coreutils show is needed: a row that
//! fails here is a way a secret's value or content reaches output under `allow`, or a false ask.
//! Ground truth for every row is written beside it (bash 5.2, git 2.39, GNU coreutils 9.1).
//! The lead kept here 12 of the red team's 26 tests: those that pass after this session's fixes and
//! that no fixer copied (9 are in redteam_secrets_fixes_s9.rs), unchanged; the 5 still failing
//! stay on branch `redsec` (closing note, session 9).

use crate::scratch::Scratch;

use cmdguard::{Analyzer, Code, Verdict, Workdir};

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

// (a) public_vars: "set earlier" that does not set.

/// `x+=v` appends to the inherited value: with `http_proxy=FAKEVALUE1` in the environment bash
/// printed `FAKEVALUE1x`.
#[test]
fn append_assignment_keeps_the_inherited_value() {
    check(&[
        ("http_proxy+=x; echo $http_proxy", Ask, PRINTS),
        ("myv+=x; echo $myv", Ask, PRINTS),
        // An array append keeps element 0; bash printed `FAKEVALUE1`, then `FAKEVALUE1x`.
        ("myv+=(a); echo $myv", Ask, PRINTS),
        ("declare myv+=x; echo $myv", Ask, PRINTS),
        ("local myv+=x; echo $myv", Ask, PRINTS),
    ]);
}

/// At top level `local` fails ("can only be used in a function") and assigns nothing: bash
/// printed the inherited `FAKEVALUE1`.
#[test]
fn local_outside_a_function_assigns_nothing() {
    check(&[
        ("local http_proxy=1; echo $http_proxy", Ask, PRINTS),
        ("local myv=1; echo $myv", Ask, PRINTS),
    ]);
}

/// `mapfile -O N` does not clear the array, so element 0 (what `$x` expands to) keeps the
/// inherited value: bash printed `FAKEVALUE1`.
#[test]
fn mapfile_with_an_origin_keeps_element_zero() {
    check(&[
        (
            "mapfile -O 1 http_proxy <<< a; echo $http_proxy",
            Ask,
            PRINTS,
        ),
        ("mapfile -t -O 1 myv <<< a; echo ${myv[0]}", Ask, PRINTS),
        ("readarray -O 2 myv <<< a; echo $myv", Ask, PRINTS),
    ]);
}

/// `read -t 0` only polls for input and never assigns: bash printed `FAKEVALUE1`.
#[test]
fn read_that_reads_nothing_assigns_nothing() {
    check(&[("read -t 0 http_proxy; echo $http_proxy", Ask, PRINTS)]);
}

/// A `read` or `mapfile` that fails leaves the variable as inherited, and the list goes on: bash
/// printed its error and then `FAKEVALUE1` for every row.
#[test]
fn read_that_fails_assigns_nothing() {
    check(&[
        ("read -u 9 myv; echo $myv", Ask, PRINTS),
        ("mapfile -u 9 myv; echo $myv", Ask, PRINTS),
        ("read -t abc myv; echo $myv", Ask, PRINTS),
        ("read -n -1 myv; echo $myv", Ask, PRINTS),
        ("read -N abc myv <<< a; echo $myv", Ask, PRINTS),
        ("mapfile -n abc myv <<< a; echo $myv", Ask, PRINTS),
        ("read myv <&-; echo $myv", Ask, PRINTS),
    ]);
    let s = Scratch::new();
    // `src` is a directory: "read: read error: 0: Is a directory".
    check_in(&project(&s), &[("read myv < src; echo $myv", Ask, PRINTS)]);
}

// (b) public_paths and reads after a cd.

/// `/etc` and `/opt` are public, but these are the documented places of credentials (system git
/// config with `http.extraheader`, pip and npm global configs with tokens, boto, fetchmail,
/// wpa_supplicant, systemd credentials, the docker daemon key, deployed apps' configs).
#[test]
fn system_config_files_that_hold_credentials_ask() {
    check(&[
        ("cat /etc/gitconfig", Ask, READ),
        ("cat /etc/pip.conf", Ask, READ),
        ("cat /etc/npmrc", Ask, READ),
        ("cat /usr/local/etc/npmrc", Ask, READ),
        ("cat /etc/boto.cfg", Ask, READ),
        ("cat /etc/fetchmailrc", Ask, READ),
        ("cat /etc/wpa_supplicant/wpa_supplicant.conf", Ask, READ),
        ("cat /etc/credstore/x", Ask, READ),
        ("cat /etc/docker/key.json", Ask, READ),
        ("cat /opt/app/config/database.yml", Ask, READ),
        ("cat /opt/app/secrets.env", Ask, READ),
    ]);
}

// (c) git: history, stash, work tree and other repositories.

/// npm's global config is `PREFIX/etc/npmrc` and pip's site config `PREFIX/pip.conf`; under nvm
/// and pyenv the prefix is inside a public toolchain place, and both hold registry tokens.
#[test]
fn toolchain_prefixes_hold_global_package_manager_configs() {
    check(&[
        ("cat ~/.nvm/versions/node/v20/etc/npmrc", Ask, READ),
        ("cat ~/.pyenv/versions/3.11/pip.conf", Ask, READ),
    ]);
}

/// `LC_*` and `XDG_*` are public, but a secret-looking name under them is not: bash printed
/// `FAKEVALUE1` (Debian's sshd forwards `LC_*` by default, a known way to ship tokens).
#[test]
fn public_wildcards_do_not_cover_secret_looking_names() {
    check(&[
        ("echo $LC_API_TOKEN", Ask, PRINTS),
        ("echo $XDG_SESSION_COOKIE", Ask, PRINTS),
        ("echo $LC_ALL", Allow, None),
    ]);
}

/// `--files0-from` and `-c` hand the program names nobody saw, like `xargs -a FILE`: GNU wc 9.1
/// printed `1 1 8 …/.aws/credentials` for the first row, having read the secret, while
/// `wc -c ~/.aws/credentials` asks.
#[test]
fn file_lists_read_from_a_file_or_stdin_are_reads() {
    check(&[
        (
            "printf '%s\\0' ~/.aws/credentials | wc --files0-from=-",
            Ask,
            READ,
        ),
        (
            "printf '%s\\0' ~/.aws/credentials | du --files0-from=- -b",
            Ask,
            READ,
        ),
        (
            "echo \"x  $HOME/.aws/credentials\" | sha256sum -c",
            Ask,
            READ,
        ),
        ("wc -c ~/.aws/credentials", Ask, READ),
    ]);
    let s = Scratch::new();
    s.write("home/proj/list0", "../notes.txt\0");
    s.write("home/proj/sums", "x  ../notes.txt\n");
    s.write("home/notes.txt", "FAKE\n");
    check_in(
        &project(&s),
        &[
            ("wc --files0-from=list0", Ask, READ),
            ("du --files0-from=list0", Ask, READ),
            ("sha256sum -c sums", Ask, READ),
        ],
    );
}

/// bash's `*/y` matches through a symlinked directory: with `ext -> ~/.config/x` in the project,
/// cat printed `~/.config/x/y` for both rows, a read outside the project (`cat ext/y` asks).
#[cfg(unix)]
#[test]
fn globs_through_a_symlinked_directory_leave_the_project() {
    use std::os::unix::fs::symlink;
    let s = Scratch::new();
    let dir = project(&s);
    s.write("home/.config/x/y", "FAKEY\n");
    let home = s.path().join("home");
    symlink(home.join(".config/x"), home.join("proj/ext")).unwrap();
    check_in(
        &dir,
        &[
            ("cat */y", Ask, READ),
            ("cat e*/y", Ask, READ),
            ("for f in */y; do cat \"$f\"; done", Ask, READ),
            ("for d in *; do cat \"$d/y\"; done", Ask, READ),
            ("echo */y | xargs cat", Ask, READ),
            ("ls -d */y | xargs cat", Ask, READ),
            ("cat ext/y", Ask, READ),
            ("cat s*/a.rs", Allow, None),
        ],
    );
}

/// `readonly NAME` keeps the inherited value; a later `read`, `mapfile` or `getopts` on it fails
/// ("readonly variable") and the list goes on: bash printed `FAKEVALUE1` for every row.
#[test]
fn builtins_that_fail_on_a_readonly_variable_assign_nothing() {
    check(&[
        ("readonly myv; read myv <<< a; echo $myv", Ask, PRINTS),
        ("readonly myv; mapfile myv <<< a; echo $myv", Ask, PRINTS),
        ("readonly myv; getopts a myv; echo $myv", Ask, PRINTS),
        ("typeset -r myv; read myv <<< a; echo $myv", Ask, PRINTS),
        ("declare -r myv; read myv <<< a; echo $myv", Ask, PRINTS),
    ]);
}

/// When the name is already an indexed array, bash 5.2's `declare NAME='(…)'` re-parses the
/// quoted value as a compound assignment and expands it: `$(touch …)` ran and `$GITHUB_TOKEN`
/// printed `FAKEVALUE1` for every row. Without the earlier array bash keeps the literal.
#[test]
fn declare_of_an_existing_array_evaluates_a_quoted_value() {
    check(&[
        ("r=(x); declare r='($GITHUB_TOKEN)'; echo $r", Ask, PRINTS),
        ("r=(); declare r='($GITHUB_TOKEN)'; echo $r", Ask, PRINTS),
        ("r[0]=x; declare r='($GITHUB_TOKEN)'; echo $r", Ask, PRINTS),
        (
            "mapfile r <<< x; declare r='($GITHUB_TOKEN)'; echo $r",
            Ask,
            PRINTS,
        ),
        (
            "read -a r <<< x; declare r='($GITHUB_TOKEN)'; echo $r",
            Ask,
            PRINTS,
        ),
        (
            "r=(x); declare -- r='($GITHUB_TOKEN)'; echo $r",
            Ask,
            PRINTS,
        ),
        (
            "r=(x); declare r=\"(\\$GITHUB_TOKEN)\"; echo $r",
            Ask,
            PRINTS,
        ),
        (
            "r=(x); declare r=\\(\\$GITHUB_TOKEN\\); echo $r",
            Ask,
            PRINTS,
        ),
        (
            "f=(x); declare f='([0]=$GITHUB_TOKEN)'; echo \"$f\"",
            Ask,
            PRINTS,
        ),
    ]);
}

/// The same re-parse runs command substitutions (`$(touch /tmp/rs/pwned)` created the file), so
/// each row must be at least a question whatever finding says so, and `rm -rf ~` a deny.
#[test]
fn declare_of_an_existing_array_runs_substitutions() {
    let analyzer = Analyzer::default();
    let rows = [
        ("r=(x); declare r='($(touch /tmp/pwned))'", Ask),
        ("r=(x); typeset r='($(cat ~/.ssh/id_rsa))'; echo $r", Ask),
        ("r=(x); typeset r='($(rm -rf ~))'", Verdict::Deny),
    ];
    let wrong: Vec<String> = rows
        .iter()
        .map(|(cmd, floor)| (cmd, floor, analyzer.analyze(cmd).verdict))
        .filter(|(_, floor, got)| got < floor)
        .map(|(cmd, floor, got)| format!("{cmd:?}: want at least {floor}, got {got}"))
        .collect();
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
