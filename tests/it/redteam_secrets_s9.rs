//! Red team, session 9, against issue 12's secret rules (`public_vars`, `public_paths`, the git
//! history rule). Each test asserts what real bash, git and coreutils show is needed: a row that
//! fails here is a way a secret's value or content reaches output under `allow`, or a false ask.
//! Ground truth for every row is written beside it (bash 5.2, git 2.39, GNU coreutils 9.1).
//! The lead kept here the 21 of the red team's 26 tests that pass after this session's fixes,
//! unchanged; the 5 still failing stay on branch `redsec` (closing note, session 9).

use std::path::Path;

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

/// A project whose `.env` is committed and then edited (tracked and modified).
fn project_with_tracked_env(s: &Scratch) -> Workdir {
    let dir = project(s);
    let proj = s.path().join("home/proj");
    s.write("home/proj/.env", "TOKEN=FAKEENV\n");
    git(&proj, &["init", "-q"]);
    git(&proj, &["add", "-f", "."]);
    git(&proj, &["commit", "-qm", "i"]);
    s.write("home/proj/.env", "TOKEN=FAKEENV2\n");
    dir
}

/// git 2.39 printed `-TOKEN=FAKEENV +TOKEN=FAKEENV2` for every row: a diff without a pathspec
/// shows every changed tracked file, a tracked `.env` included (`git diff -- .env` asks).
#[test]
fn worktree_diffs_print_tracked_secrets() {
    let s = Scratch::new();
    let dir = project_with_tracked_env(&s);
    check_in(
        &dir,
        &[
            ("git diff", Ask, READ),
            ("git diff HEAD", Ask, READ),
            ("git diff -U0", Ask, READ),
            ("git diff --word-diff", Ask, READ),
            ("git diff HEAD --", Ask, READ),
            ("git diff src/..", Ask, READ),
            ("git -C src diff", Ask, READ),
            ("git diff --stat -p", Ask, READ),
            ("git diff -- .env", Ask, READ),
        ],
    );
}

/// The same once the edit is staged: `git diff --cached` and `git status -v` print the staged
/// `.env` patch (git 2.39).
#[test]
fn staged_diffs_print_tracked_secrets() {
    let s = Scratch::new();
    let dir = project_with_tracked_env(&s);
    git(&s.path().join("home/proj"), &["add", ".env"]);
    check_in(
        &dir,
        &[
            ("git diff --cached", Ask, READ),
            ("git diff --staged HEAD", Ask, READ),
            ("git status -v", Ask, READ),
        ],
    );
}

/// `git stash list` takes log options (`-p` prints each stash's patch), and `git stash show`
/// prints the patch, not the stat, once it gets any diff option or `--`: git 2.39 printed the
/// `.env` patch for every row.
#[test]
fn stash_patches_ask() {
    let s = Scratch::new();
    let dir = project_with_tracked_env(&s);
    git(&s.path().join("home/proj"), &["stash", "-q"]);
    check_in(
        &dir,
        &[
            ("git stash list -p", Ask, READ),
            ("git stash list --format=%B -p", Ask, READ),
            ("git stash show --", Ask, READ),
            ("git stash show --color", Ask, READ),
            ("git stash show --no-color", Ask, READ),
            ("git stash show -M", Ask, READ),
            ("git stash show --relative", Ask, READ),
            ("git stash show --find-renames", Ask, READ),
            ("git stash show", Allow, None),
        ],
    );
}

/// `git log -S`/`-G` pick commits by the content of their diffs: git printed the commit for
/// `-G 'TOKEN=FAKEE'` and nothing for `-G 'TOKEN=FAKEX'`, an oracle that recovers a committed
/// secret a character at a time.
#[test]
fn pickaxe_searches_are_an_oracle_on_committed_content() {
    let s = Scratch::new();
    let dir = project_with_tracked_env(&s);
    check_in(
        &dir,
        &[
            ("git log --oneline -G 'TOKEN=FAKEE'", Ask, READ),
            ("git log --oneline -S TOKEN=FAKEE", Ask, READ),
            ("git log -G FAKE", Ask, READ),
        ],
    );
}

/// `git -C DIR` reads another repository outside the project: git printed `db_password=…` for
/// every row, while the same reads after `cd ../other &&` ask.
#[test]
fn git_dash_c_outside_the_project_is_a_read_outside() {
    let s = Scratch::new();
    let dir = project(&s);
    let other = s.path().join("home/other");
    s.write("home/other/config.yml", "db_password=FAKEOTHER\n");
    git(&other, &["init", "-q"]);
    git(&other, &["add", "."]);
    git(&other, &["commit", "-qm", "i"]);
    s.write("home/other/config.yml", "db_password=FAKEOTHER2\n");
    git(&s.path().join("home/proj"), &["init", "-q"]);
    check_in(
        &dir,
        &[
            ("git -C ../other show HEAD:config.yml", Ask, READ),
            ("git -C ../other cat-file -p HEAD:config.yml", Ask, READ),
            ("git -C ../other grep password", Ask, READ),
            ("git -C ../other blame config.yml", Ask, READ),
            ("git -C ../other diff", Ask, READ),
            ("git -C ../other diff HEAD", Ask, READ),
            ("cd ../other && git show HEAD:config.yml", Ask, READ),
            ("cd ../other && git diff", Ask, READ),
        ],
    );
}

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

/// `%(raw)` is the raw content of the object a ref points at: with a tag on the blob of a
/// committed `.env`, git 2.39 printed `TOKEN=FAKE…` for both rows.
#[test]
fn raw_ref_formats_print_the_objects_refs_point_at() {
    let s = Scratch::new();
    let dir = project_with_tracked_env(&s);
    let proj = s.path().join("home/proj");
    let blob = std::process::Command::new("git")
        .arg("-C")
        .arg(&proj)
        .args(["rev-parse", "HEAD:.env"])
        .output()
        .unwrap();
    let blob = String::from_utf8(blob.stdout).unwrap();
    git(&proj, &["tag", "keyblob", blob.trim()]);
    check_in(
        &dir,
        &[
            ("git for-each-ref --format='%(raw)'", Ask, READ),
            ("git tag -l --format='%(raw)'", Ask, READ),
            ("git for-each-ref --format='%(refname)'", Allow, None),
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

/// Programs outside the default allowlist documented to print a credential, under a user's rule
/// for the program (`Bash(aws:*)` in an agent's settings): `SECRET_PRINTERS` must still ask.
/// Each row is the program's documented way to print a token, key, password or secret value.
#[test]
fn more_credential_printers_ask_under_user_rules() {
    use cmdguard::RuleOrigin;
    use cmdguard::policy::rules::{CommandRule, CommandRules, RuleAction};
    let mut rules = CommandRules::default();
    for p in [
        "aws",
        "az",
        "gcloud",
        "docker",
        "kubectl",
        "git",
        "pip",
        "heroku",
        "vault",
        "terraform",
        "op",
        "security",
        "pass",
        "sops",
        "glab",
        "helm",
        "npm",
        "bw",
    ] {
        rules.push(
            CommandRule::parse(&format!("{p}:*"), RuleAction::Allow, RuleOrigin::BuiltIn).unwrap(),
        );
    }
    let rows: &[(&str, Verdict, Option<Code>)] = &[
        // aws: the rows beside `sts assume-role` and `ssm get-parameter(s)`.
        (
            "aws sts assume-role-with-web-identity --role-arn x",
            Ask,
            READ,
        ),
        ("aws sts assume-role-with-saml --role-arn x", Ask, READ),
        ("aws sts get-federation-token --name x", Ask, READ),
        ("aws iam create-access-key", Ask, READ),
        ("aws eks get-token --cluster-name x", Ask, READ),
        ("aws rds generate-db-auth-token --hostname h", Ask, READ),
        ("aws sso get-role-credentials --role-name x", Ask, READ),
        ("aws ecr-public get-login-password", Ask, READ),
        (
            "aws ssm get-parameters-by-path --path / --with-decryption",
            Ask,
            READ,
        ),
        (
            "aws lambda get-function-configuration --function-name f",
            Ask,
            READ,
        ),
        // azure
        ("az storage account keys list -n x", Ask, READ),
        ("az storage account show-connection-string -n x", Ask, READ),
        ("az acr login -n x --expose-token", Ask, READ),
        ("az ad sp create-for-rbac", Ask, READ),
        // containers: `compose config` interpolates `.env`, `inspect` shows `-e` values
        ("docker compose config", Ask, READ),
        ("docker inspect web", Ask, READ),
        ("kubectl exec pod -- env", Ask, READ),
        // git's credential helpers answer `get` with the password
        ("git credential-store get", Ask, READ),
        ("git credential-cache get", Ask, READ),
        // package managers and platforms
        ("pip config list", Ask, READ),
        ("pip config get global.index-url", Ask, READ),
        ("heroku config", Ask, READ),
        ("heroku config:get DATABASE_URL", Ask, READ),
        ("vault token create", Ask, READ),
        ("vault kv get -field=password secret/x", Ask, READ),
        ("terraform output -raw db_password", Ask, READ),
        ("terraform output -json", Ask, READ),
        ("terraform state pull", Ask, READ),
        ("terraform show -json", Ask, READ),
        ("helm get values release", Ask, READ),
        ("glab auth status --show-token", Ask, READ),
        ("npm token create", Ask, READ),
        // password managers and decrypters
        ("op read op://vault/item/password", Ask, READ),
        ("op item get x --fields password --reveal", Ask, READ),
        ("bw get password x", Ask, READ),
        ("pass show email", Ask, READ),
        ("security find-generic-password -s x -w", Ask, READ),
        ("sops -d secrets.enc.yaml", Ask, READ),
        // Near misses.
        ("aws s3 ls", Allow, None),
        ("terraform plan", Allow, None),
        ("heroku apps", Allow, None),
    ];
    let analyzer = Analyzer::default();
    let mut failures = Vec::new();
    for (cmd, want, code) in rows {
        let mut a = analyzer.analyze(cmd);
        rules.apply(&mut a);
        let has = |c: Code| {
            a.findings
                .iter()
                .any(|f| f.code == c && f.severity > Verdict::Allow)
        };
        if a.verdict != *want || code.is_some_and(|c| !has(c)) {
            failures.push(format!("{cmd:?}: want {want} {code:?}, got {}", a.verdict));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Files whose documented purpose is to hold credentials, read inside the project: Composer's
/// `auth.json`, Yarn's `npmAuthToken`, Bundler's host credentials, Azure Functions' local
/// settings, a Firebase service-account key, MySQL's client password, tokens and legacy auth
/// files the table anchors at the home only.
#[test]
fn project_credential_files_ask() {
    check(&[
        ("cat auth.json", Ask, READ),
        ("cat .yarnrc.yml", Ask, READ),
        ("cat .bundle/config", Ask, READ),
        ("cat local.settings.json", Ask, READ),
        ("cat my-proj-firebase-adminsdk-abc12.json", Ask, READ),
        ("cat .my.cnf", Ask, READ),
        ("cat .vault-token", Ask, READ),
        ("cat .s3cfg", Ask, READ),
        ("cat .boto", Ask, READ),
        ("cat .dockercfg", Ask, READ),
        ("cat .git/credentials", Ask, READ),
        ("cat package.json", Allow, None),
    ]);
}
