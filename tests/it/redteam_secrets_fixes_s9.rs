//! Fixes for red team session 9's git and table rows against issue 12's secret rules (helper
//! secgit). Each test is copied unchanged from the red team's `redteam_secrets_s9.rs`; ground
//! truth for every row is written beside it (bash 5.2, git 2.39, GNU coreutils 9.1).

use std::path::Path;

use crate::scratch::Scratch;

use cmdguard::{Analyzer, Code, Verdict, Workdir};

use super::rules::{check, check_in};
use Verdict::{Allow, Ask};

const READ: Option<Code> = Some(Code::SensitiveRead);

/// A project at `home/proj` in a scratch directory, with `home` as the home directory.
fn project(s: &Scratch) -> Workdir {
    s.write("home/proj/README.md", "hi\n");
    s.write("home/proj/src/a.rs", "fn a() {}\n");
    Workdir::new(s.path().join("home/proj")).with_home(s.path().join("home"))
}

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
            // The red team's near miss, changed by the lead's rule for limit (c): a literal
            // pathspec no longer proves history content harmless (it may have been a directory
            // in an older commit), so this asks too. The wider forms above ask either way.
            ("git log -p -- README.md", Ask, READ),
            ("git log --stat -- README.md", Allow, None),
        ],
    );
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
