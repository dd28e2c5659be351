//! Git repository config (issue 3 part 4): with a working directory, allowed git commands ask
//! when the repository they would run in names programs git runs — found by reading its files,
//! never by running git — and `cd` moves the commands after it to another repository.

use crate::scratch::Scratch;
use std::path::{Path, PathBuf};

use cmdguard::{Analysis, Analyzer, Code, Verdict, Workdir};

const CLEAN: &str = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\tname = x\n[alias]\n\tst = !rm -rf x\n";

fn analyze_in(cmd: &str, dir: &Path) -> Analysis {
    Analyzer::default().analyze_in(cmd, &Workdir::new(dir))
}

#[track_caller]
fn asks_naming(a: &Analysis, needles: &[&str]) {
    assert_eq!(a.verdict, Verdict::Ask, "{a:#?}");
    let f = a
        .findings
        .iter()
        .filter(|f| f.code == Code::RepoConfig)
        .find(|f| needles.iter().all(|n| f.message.contains(n)));
    assert!(
        f.is_some(),
        "no repo_config finding naming {needles:?}: {a:#?}"
    );
}

/// A fresh repository `r` with `config`: `cmd` run there asks naming every needle.
#[track_caller]
fn asks_in_repo(config: &str, cmd: &str, needles: &[&str]) {
    let s = Scratch::new();
    s.repo("r", config);
    asks_naming(&analyze_in(cmd, &s.path().join("r")), needles);
}

#[track_caller]
fn allowed(a: &Analysis) {
    assert_eq!(a.verdict, Verdict::Allow, "{a:#?}");
}

#[test]
fn each_program_key_makes_git_ask_naming_key_and_file() {
    let cases = [
        ("[core]\n\tfsmonitor = ./watch.sh\n", "core.fsmonitor"),
        ("[core]\n\tpager = less -R; id\n", "core.pager"),
        ("[pager]\n\tlog = ./p\n", "pager.log"),
        ("[diff]\n\texternal = ./d\n", "diff.external"),
        ("[diff \"img\"]\n\ttextconv = exif\n", "diff.img.textconv"),
        ("[filter \"lfs\"]\n\tsmudge = ./s %f\n", "filter.lfs.smudge"),
        ("[filter \"x\"]\n\tclean = ./c\n", "filter.x.clean"),
        ("[core]\n\thooksPath = .husky\n", "core.hookspath"),
        ("[CORE]\n\tFSMONITOR\n", "core.fsmonitor"),
        ("[core] fsmonitor = x\n", "core.fsmonitor"),
        ("[gpg]\n\tprogram = ./g\n", "gpg.program"),
        ("[core]\n\tworktree = /elsewhere\n", "core.worktree"),
    ];
    for (config, key) in cases {
        let s = Scratch::new();
        let file = s.repo("r", config);
        let file = file.display().to_string();
        for cmd in [
            "git status",
            "git diff",
            "git log -p",
            "git --no-pager show HEAD",
        ] {
            asks_naming(&analyze_in(cmd, &s.path().join("r")), &[key, &file]);
        }
    }
}

#[test]
fn clean_repositories_and_switched_off_keys_stay_allowed() {
    for config in [
        CLEAN,
        "[core]\n\tfsmonitor = false\n",
        "[pager]\n\tlog = off\n",
        "[core]\n\tpager = \"\"\n",
        "# only comments\n; here\n",
        "",
    ] {
        let s = Scratch::new();
        s.repo("r", config);
        allowed(&analyze_in(
            "git status && git log -5 | head",
            &s.path().join("r"),
        ));
    }
    // Not in a repository at all.
    let s = Scratch::new();
    allowed(&analyze_in("git status", s.path()));
}

/// Issue 10 §5: `[git] inert_keys` is the allowlist behind `program_keys`. A key nobody
/// listed — `pretty.<alias>` or `format.pretty` holding `%G?`, which make a plain `git log` run
/// gpg — asks; the keys `git init`, `git remote add` and tools like gh write stay allowed.
#[test]
fn keys_not_known_to_be_inert_ask() {
    for (config, key) in [
        ("[pretty]\n\tsig = %G?\n", "pretty.sig"),
        ("[format]\n\tpretty = %G?\n", "format.pretty"),
        (
            "[log]\n\tsomeFutureCommand = ./x\n",
            "log.somefuturecommand",
        ),
        ("[gpg]\n\tformat = ssh\n", "gpg.format"),
        // A sort key is a ref-filter atom: `signature` runs gpg for `git branch` / `git tag`.
        ("[branch]\n\tsort = signature\n", "branch.sort"),
        ("[tag]\n\tsort = signature\n", "tag.sort"),
        ("[core]\n\texcludesFile = /dev/stdin\n", "core.excludesfile"),
    ] {
        asks_in_repo(config, "git log -1", &[key, "inert_keys"]);
    }
    for config in [
        "[remote \"origin\"]\n\turl = https://example.invalid/r\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\tgh-resolved = base\n",
        "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n\tvscode-merge-base = origin/main\n",
        "[user]\n\tname = A\n\temail = a@example.invalid\n[color]\n\tui = auto\n[advice]\n\tdetachedHead = false\n",
        "[lfs \"https://example.invalid\"]\n\tlocksverify = false\n",
    ] {
        let s = Scratch::new();
        s.repo("r", config);
        allowed(&analyze_in("git status && git log -1", &s.path().join("r")));
    }
}

#[test]
fn the_repository_is_found_by_walking_up_as_git_does() {
    let s = Scratch::new();
    s.repo("r", "[core]\n\tfsmonitor = ./x\n");
    std::fs::create_dir_all(s.path().join("r/src/deep")).unwrap();
    asks_naming(
        &analyze_in("git status", &s.path().join("r/src/deep")),
        &["core.fsmonitor"],
    );
    // Through a symlink, git walks up from where the link leads.
    let s2 = Scratch::new();
    std::os::unix::fs::symlink(s.path().join("r/src/deep"), s2.path().join("link")).unwrap();
    asks_naming(
        &analyze_in("git status", &s2.path().join("link")),
        &["core.fsmonitor"],
    );
    asks_naming(
        &analyze_in("cd link && git status", s2.path()),
        &["core.fsmonitor"],
    );
    // Inside the git directory itself.
    asks_naming(
        &analyze_in("git log", &s.path().join("r/.git/objects")),
        &["core.fsmonitor"],
    );
}

#[test]
fn includes_are_followed_whatever_their_condition() {
    let s = Scratch::new();
    s.repo(
        "r",
        "[include]\n\tpath = ../extra.inc\n[includeIf \"onbranch:main\"]\n\tpath = /nonexistent/skip\n",
    );
    let inc = s.write("r/extra.inc", "[include]\n\tpath = nested/more\n");
    let more = s.write("r/nested/more", "[diff \"x\"]\n\ttextconv = ./t\n");
    let a = analyze_in("git diff", &s.path().join("r"));
    asks_naming(&a, &["diff.x.textconv", &more.display().to_string()]);
    drop(inc);

    let s = Scratch::new();
    s.repo(
        "r",
        "[includeIf \"gitdir:/elsewhere/\"]\n\tpath = cond.inc\n",
    );
    s.write("r/.git/cond.inc", "[core]\n\tpager = ./p\n");
    asks_naming(
        &analyze_in("git log", &s.path().join("r")),
        &["core.pager", "cond.inc"],
    );

    // A missing include is skipped, as git skips it.
    let s = Scratch::new();
    s.repo("r", "[include]\n\tpath = missing.inc\n");
    allowed(&analyze_in("git log", &s.path().join("r")));

    // `~/` needs a home directory; without one the include cannot be read.
    let s = Scratch::new();
    s.repo("r", "[include]\n\tpath = ~/team.inc\n");
    s.write("home/team.inc", "[core]\n\tfsmonitor = ./f\n");
    let dir = Workdir::new(s.path().join("r"));
    asks_naming(
        &Analyzer::default().analyze_in("git status", &dir),
        &["unknown home", "~/team.inc"],
    );
    let dir = dir.with_home(s.path().join("home"));
    asks_naming(
        &Analyzer::default().analyze_in("git status", &dir),
        &["core.fsmonitor", "team.inc"],
    );

    // An include cycle ends (each file is read once).
    let s = Scratch::new();
    s.repo("r", "[include]\n\tpath = config\n");
    allowed(&analyze_in("git log", &s.path().join("r")));
}

#[test]
fn worktrees_read_the_common_config_and_their_own() {
    let s = Scratch::new();
    s.repo("main", "[core]\n\tfsmonitor = ./x\n");
    s.gitdir("main/.git/worktrees/wt", "");
    std::fs::remove_file(s.path().join("main/.git/worktrees/wt/config")).unwrap();
    s.write("main/.git/worktrees/wt/commondir", "../..\n");
    let gitdir = s.path().join("main/.git/worktrees/wt");
    s.write("wt/.git", &format!("gitdir: {}\n", gitdir.display()));
    asks_naming(
        &analyze_in("git status", &s.path().join("wt")),
        &["core.fsmonitor", "main/.git/config"],
    );

    let s = Scratch::new();
    s.repo("main", CLEAN);
    s.write("main/.git/config.worktree", "[diff]\n\texternal = ./e\n");
    asks_naming(
        &analyze_in("git diff", &s.path().join("main")),
        &["diff.external", "config.worktree"],
    );

    // A submodule's `.git` file with a relative path.
    let s = Scratch::new();
    s.repo("super", CLEAN);
    s.gitdir("super/.git/modules/sub", "[core]\n\tpager = ./p\n");
    s.write("super/sub/.git", "gitdir: ../.git/modules/sub\n");
    asks_naming(
        &analyze_in("git log", &s.path().join("super/sub")),
        &["core.pager"],
    );
}

#[test]
fn unreadable_config_is_not_vouched_for() {
    asks_in_repo(
        "[core]\n\tfsmonitor = \"unterminated\n",
        "git status",
        &["cannot be parsed", "config:2"],
    );
    let s = Scratch::new();
    std::fs::create_dir_all(s.path().join("r")).unwrap();
    s.write("r/.git", "not a gitdir line\n");
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["`.git` file"],
    );
}

#[test]
fn hooks_that_read_only_commands_set_off_ask() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    s.repo("r", CLEAN);
    let exec = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    // Hooks git does not run for these commands, samples and non-executable files are fine.
    exec(
        &s.write("r/.git/hooks/pre-commit", "#!/bin/sh\nid\n"),
        0o755,
    );
    exec(
        &s.write("r/.git/hooks/post-index-change.sample", "#!/bin/sh\nid\n"),
        0o755,
    );
    exec(
        &s.write("r/.git/hooks/post-index-change", "#!/bin/sh\nid\n"),
        0o644,
    );
    allowed(&analyze_in("git status", &s.path().join("r")));
    exec(&s.path().join("r/.git/hooks/post-index-change"), 0o755);
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["post-index-change"],
    );
}

#[test]
fn cd_moves_later_git_commands_to_its_repository() {
    let s = Scratch::new();
    s.repo("bad", "[core]\n\tfsmonitor = ./x\n");
    s.repo("good", CLEAN);
    let cwd = s.path();
    allowed(&analyze_in("git status", cwd));
    allowed(&analyze_in("cd good && git status", cwd));
    allowed(&analyze_in("cd bad", cwd));
    allowed(&analyze_in("cd bad && ls", cwd));
    allowed(&analyze_in("git status; cd bad", cwd));
    for cmd in [
        "cd bad && git status",
        "cd bad; git log",
        "cd ./bad/ && git diff",
        "cd good/../bad && git log",
        &format!("cd {} && git log", cwd.join("bad").display()),
        "cd good && cd ../bad && git log",
        "builtin cd bad && git log",
        "command cd bad && git log",
        "cd -L -- bad && git log",
        "cd bad && timeout 5 git status",
        "cd bad && env git status",
        "cd bad && git status | head",
        "env -C bad git status",
        "env --chdir=bad git log",
        "env -Cbad git log",
        "env -C good/../bad git log",
        "env -i -C bad LC_ALL=C git diff",
        // Over-approximations, on the side of asking: the subshell's `cd` is counted for
        // the rest of the line, and a loop may run its `cd` before the git command.
        "(cd bad); git status",
        "for i in 1 2; do git status; cd bad; done",
        "if true; then git log; else cd bad; fi",
        "eval 'cd bad'; git log",
        "bash -c 'cd bad && git status'",
    ] {
        asks_naming(&analyze_in(cmd, cwd), &["core.fsmonitor"]);
    }
    // `link/..` is the cwd to a logical `cd`, but where the link leads to `cd -P`; when the
    // logical path is no directory, bash falls back to the physical one.
    let s2 = Scratch::new();
    s2.repo("far/bad", "[core]\n\tfsmonitor = ./x\n");
    std::fs::create_dir_all(s2.path().join("far/deep")).unwrap();
    std::fs::create_dir_all(s2.path().join("here")).unwrap();
    std::os::unix::fs::symlink(s2.path().join("far/deep"), s2.path().join("here/link")).unwrap();
    let here = s2.path().join("here");
    asks_naming(
        &analyze_in("cd -P link/../bad && git log", &here),
        &["core.fsmonitor"],
    );
    asks_naming(
        &analyze_in("cd link/../bad && git log", &here),
        &["core.fsmonitor"],
    );
    allowed(&analyze_in("cd link/.. && git log", &here));
    // A bare repository is a repository too.
    let s = Scratch::new();
    s.gitdir("bare.git", "[core]\n\tbare = true\n\tpager = ./p\n");
    asks_naming(
        &analyze_in("cd bare.git && git log", s.path()),
        &["core.pager"],
    );
}

#[test]
fn cd_to_a_run_time_directory_makes_later_git_ask() {
    let s = Scratch::new();
    for cmd in [
        "cd \"$D\" && git status",
        "cd $(mktemp -d) && git log",
        "cd - && git log",
        "cd && git log",
        "cd ~ && git log",
        "cd ~other && git log",
        "cd ~/\"x\" && git log",
        "env -C \"$d\" git status",
        "for d in a b; do (cd \"$d\" && git status); done",
    ] {
        asks_naming(&analyze_in(cmd, s.path()), &["run time"]);
    }
    // A substitution in `cd`'s own words runs before the `cd`.
    s.repo("clean", CLEAN);
    let a = analyze_in(
        "cd \"$(git rev-parse --show-toplevel)\"",
        &s.path().join("clean"),
    );
    assert!(
        !a.findings.iter().any(|f| f.code == Code::RepoConfig),
        "{a:#?}"
    );
    // Known home: `cd ~/x` is static.
    s.repo("home/proj", "[core]\n\tfsmonitor = ./x\n");
    let dir = Workdir::new(s.path()).with_home(s.path().join("home"));
    let a = Analyzer::default().analyze_in("cd ~/proj && git status", &dir);
    asks_naming(&a, &["core.fsmonitor"]);
    allowed(&Analyzer::default().analyze_in("cd ~ && git status", &dir));
}

#[test]
fn cdpath_is_searched_like_bash_does() {
    let s = Scratch::new();
    s.repo("elsewhere/proj", "[core]\n\tfsmonitor = ./x\n");
    let dir = Workdir::new(s.path()).with_cdpath(s.path().join("elsewhere").display().to_string());
    asks_naming(
        &Analyzer::default().analyze_in("cd proj && git status", &dir),
        &["core.fsmonitor"],
    );
    // `./proj` skips CDPATH, and there is no ./proj here.
    allowed(&Analyzer::default().analyze_in("cd ./proj && git status", &dir));
}

#[test]
fn git_options_that_pick_another_repository_are_refused() {
    let s = Scratch::new();
    s.repo("good", CLEAN);
    // `git -C DIR` is checked against DIR's repository instead (issue 10 §7; more in
    // tests/it/precision.rs).
    s.repo("evil", "[core]\n\tfsmonitor = touch pwned\n");
    asks_naming(
        &analyze_in("git -C ../evil status", &s.path().join("good")),
        &["core.fsmonitor"],
    );
    for cmd in [
        "git --git-dir=/tmp/x/.git log",
        "git --work-tree=/tmp status",
        "GIT_DIR=/tmp/x git log",
    ] {
        let a = analyze_in(cmd, &s.path().join("good"));
        assert_eq!(a.verdict, Verdict::Ask, "{cmd}");
        if cmd.starts_with("git") {
            let why = &a.findings[0].message;
            assert!(why.contains("global option"), "{cmd}: {why}");
        }
    }
}

#[test]
fn without_a_working_directory_nothing_is_read() {
    let s = Scratch::new();
    s.repo("r", "[core]\n\tfsmonitor = ./x\n");
    allowed(&Analyzer::default().analyze("cd r && git status"));
}

#[test]
fn program_keys_are_configurable_and_checked_at_load() {
    let s = Scratch::new();
    s.repo(
        "r",
        "[core]\n\tfsmonitor = ./x\n[my \"tool\"]\n\trun = ./y\n",
    );
    let list = cmdguard::AllowlistBuilder::new()
        .add_default()
        .add_toml("[git]\nprogram_keys = [\"my.*.run\"]\n", None)
        .build()
        .unwrap();
    let analyzer = Analyzer::new(list);
    let a = analyzer.analyze_in("git status", &Workdir::new(s.path().join("r")));
    asks_naming(&a, &["my.tool.run"]);
    // Replacing program_keys cannot make a key pass: `inert_keys` is the allowlist, and
    // core.fsmonitor is not on it.
    asks_naming(&a, &["core.fsmonitor", "inert_keys"]);

    let e = cmdguard::Allowlist::from_toml("[git]\nprogram_keys = [\"core\"]\n", None).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (2, Some("program_keys")));
}

/// The truth is what git does. For each way a repository can make git run a program, build a
/// real repository with real `git`, point the setting at a script that leaves a marker, and run
/// every allowed read-only git command: whenever git ran the script, cmdguard must have asked.
#[test]
fn real_git_runs_a_repository_program_only_where_cmdguard_asks() {
    let git_ok = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !git_ok {
        if std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_some() {
            panic!("git is not installed and CMDGUARD_DIFF_REQUIRE is set");
        }
        eprintln!("\n*** SKIPPED real_git_…: `git` is not installed.\n");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    /// Applies a setting to a fresh repository, pointing it at the marker script.
    type Setup = fn(&Path, &str);
    let cases: Vec<(&str, Setup)> = vec![
        ("core.fsmonitor", |r, s| {
            git_config(r, &["core.fsmonitor", s])
        }),
        ("diff.external", |r, s| git_config(r, &["diff.external", s])),
        ("diff.tc.textconv", |r, s| {
            git_config(r, &["diff.tc.textconv", s])
        }),
        ("filter.f.clean", |r, s| {
            git_config(r, &["filter.f.clean", s])
        }),
        ("filter.f.smudge", |r, s| {
            git_config(r, &["filter.f.smudge", s])
        }),
        ("core.pager", |r, s| git_config(r, &["core.pager", s])),
        ("pager.log", |r, s| git_config(r, &["pager.log", s])),
        ("post-index-change hook", |r, s| {
            install(&r.join(".git/hooks/post-index-change"), s)
        }),
        ("core.hooksPath", |r, s| {
            install(&r.join("myhooks/post-index-change"), s);
            git_config(r, &["core.hooksPath", "myhooks"]);
        }),
        ("include.path", |r, s| {
            std::fs::write(r.join("inc.cfg"), format!("[core]\n\tfsmonitor = {s}\n")).unwrap();
            git_config(r, &["include.path", "../inc.cfg"]);
        }),
        ("submodule core.fsmonitor", |r, s| {
            let sub = submodule(r);
            git_config(&sub, &["core.fsmonitor", s]);
        }),
        ("submodule post-index-change hook", |r, s| {
            let sub = submodule(r);
            install(&sub.join(".git/hooks/post-index-change"), s);
        }),
        ("dotted section header", |r, s| {
            append(&r.join(".gitattributes"), "*.txt diff=a.b\n");
            append(
                &r.join(".git/config"),
                &format!("[diff.a \"b\"]\n\ttextconv = {s}\n"),
            );
        }),
        ("core.hooksPath = off", |r, s| {
            install(&r.join("off/post-index-change"), s);
            git_config(r, &["core.hooksPath", "off"]);
        }),
        ("includeIf gitdir", |r, s| {
            std::fs::write(
                r.join("inc.cfg"),
                format!("[diff \"tc\"]\n\ttextconv = {s}\n"),
            )
            .unwrap();
            git_config(r, &["includeIf.gitdir:/.path", "../inc.cfg"]);
        }),
    ];
    let commands = [
        "git status",
        "git status --short",
        "git diff",
        "git diff --stat",
        "git log -p -1",
        "git log --oneline",
        "git show",
        "git blame a.txt",
        "git grep -e one",
        "git branch",
        "git stash list",
        "git ls-files",
        "git rev-parse HEAD",
        "git cat-file -p HEAD:a.txt",
    ];
    let analyzer = Analyzer::default();
    let mut ran_somewhere = Vec::new();
    for (name, setup) in &cases {
        for cmd in commands {
            let s = Scratch::new();
            let repo = s.path().join("r");
            let marker = s.path().join("RAN");
            let script = s.write(
                "prog.sh",
                &format!(
                    "#!/bin/sh\ntouch '{}'\nexec cat \"$@\" 2>/dev/null\n",
                    marker.display()
                ),
            );
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
            init_repo(&repo);
            setup(&repo, &script.display().to_string());
            // Make the work tree differ from the index so status and diff have work to do.
            std::fs::write(repo.join("a.txt"), "one\ntwo changed\n").unwrap();
            let verdict = analyzer.analyze_in(cmd, &Workdir::new(&repo));
            let args: Vec<&str> = cmd.split(' ').skip(1).collect();
            let _ = git(&repo, &args);
            let ran = marker.exists();
            if ran {
                ran_somewhere.push(format!("{name}: {cmd}"));
                assert!(
                    verdict.verdict != Verdict::Allow
                        && verdict.findings.iter().any(|f| f.code == Code::RepoConfig),
                    "git ran the program set by {name} for `{cmd}`, but cmdguard said {:?}",
                    verdict
                );
            }
        }
    }
    eprintln!("git ran a configured program in: {ran_somewhere:#?}");
    // The test means something only if git really ran programs in many of these cases.
    assert!(
        ran_somewhere.len() >= 20,
        "git ran a configured program in only {} cases: {ran_somewhere:?}",
        ran_somewhere.len()
    );
}

/// Runs real git in `repo`, isolated from the user's and system config.
fn git(repo: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_PAGER")
        .env_remove("PAGER")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn git_config(repo: &Path, args: &[&str]) {
    let mut all = vec!["config"];
    all.extend_from_slice(args);
    let o = git(repo, &all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn install(path: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::copy(script, path).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Commits a nested repository `sub` (with a commit and a changed file) into `repo` as a
/// gitlink, the way an embedded repository or an old-style submodule sits in a work tree.
fn submodule(repo: &Path) -> PathBuf {
    let sub = repo.join("sub");
    init_repo(&sub);
    std::fs::write(sub.join("a.txt"), "one\ntwo changed\n").unwrap();
    add_and_commit(repo, &["sub"], "sub");
    sub
}

/// `git add PATHS && git commit -m MESSAGE`, asserting both succeed.
fn add_and_commit(repo: &Path, paths: &[&str], message: &str) {
    let mut add = vec!["add"];
    add.extend_from_slice(paths);
    let commit = [
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        message,
    ];
    for args in [&add[..], &commit[..]] {
        let o = git(repo, args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// A repository with one commit of `a.txt`, whose attributes name the `tc` diff driver and the
/// `f` filter.
fn init_repo(repo: &Path) {
    std::fs::create_dir_all(repo).unwrap();
    assert!(git(repo, &["init", "-q"]).status.success());
    std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(repo.join(".gitattributes"), "*.txt diff=tc filter=f\n").unwrap();
    add_and_commit(repo, &["a.txt", ".gitattributes"], "init");
}

#[test]
fn inherited_git_environment_makes_git_ask() {
    let s = Scratch::new();
    s.repo("r", CLEAN);
    let dir = Workdir::new(s.path().join("r"));
    allowed(&Analyzer::default().analyze_in("git status", &dir));
    for var in cmdguard::GIT_ENV_REDIRECTS {
        let a = Analyzer::default().analyze_in("git status", &dir.clone().with_git_env(*var));
        asks_naming(&a, &[var]);
        allowed(&Analyzer::default().analyze_in("ls", &dir.clone().with_git_env(*var)));
    }
    // The CLI reads its own environment.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .args(["check", "--cwd"])
        .arg(s.path().join("r"))
        .arg("git log")
        .env("GIT_DIR", "/elsewhere/.git")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Bypasses a red-team review found (each was `allow` while real git ran the program).
#[test]
fn red_team_bypasses_stay_closed() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let fsmon = "[core]\n\tfsmonitor = ./x\n";
    // 1. `[diff.a "b"]` is the driver `a.b`: the key is diff.a.b.textconv.
    asks_in_repo(
        "[diff.a \"b\"]\n\ttextconv = ./t\n",
        "git diff",
        &["diff.a.b.textconv"],
    );
    // 2. `\b` in a value is a backspace character, not a deletion.
    asks_in_repo(
        "[core]\n\tfsmonitor = ./x\\b\\b\\b\n",
        "git status",
        &["core.fsmonitor"],
    );
    // 3. `core.hooksPath = off` is a directory named `off`, not a boolean.
    asks_in_repo(
        "[core]\n\thooksPath = off\n",
        "git status",
        &["core.hookspath"],
    );
    // 4. `%(prefix)` is interpolated by git.
    asks_in_repo(
        "[include]\n\tpath = %(prefix)/../../tmp/x.inc\n",
        "git status",
        &["cannot locate"],
    );
    // 5. An include through a symlink and `..` is resolved by the kernel, not textually.
    let s = Scratch::new();
    s.repo("r", "[include]\n\tpath = lnk/../evil.inc\n");
    s.write("o/evil.inc", fsmon);
    std::fs::create_dir_all(s.path().join("o/deep")).unwrap();
    symlink(s.path().join("o/deep"), s.path().join("r/.git/lnk")).unwrap();
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["core.fsmonitor", "evil.inc"],
    );
    // 6. and 7. The same for `commondir` and for the `.git` file.
    let s = Scratch::new();
    s.repo("o/main", fsmon);
    std::fs::create_dir_all(s.path().join("o/main/deep")).unwrap();
    s.gitdir("wtgit", "");
    std::fs::remove_file(s.path().join("wtgit/config")).unwrap();
    symlink(s.path().join("o/main/deep"), s.path().join("wtgit/lnk")).unwrap();
    s.write("wtgit/commondir", "lnk/../.git\n");
    std::fs::create_dir_all(s.path().join("wt")).unwrap();
    s.write(
        "wt/.git",
        &format!("gitdir: {}\n", s.path().join("wtgit").display()),
    );
    asks_naming(
        &analyze_in("git status", &s.path().join("wt")),
        &["core.fsmonitor"],
    );
    let s = Scratch::new();
    s.gitdir("x/realgit", fsmon);
    std::fs::create_dir_all(s.path().join("x/y")).unwrap();
    std::fs::create_dir_all(s.path().join("w")).unwrap();
    symlink(s.path().join("x/y"), s.path().join("w/lnk")).unwrap();
    s.write("w/.git", "gitdir: lnk/../realgit\n");
    asks_naming(
        &analyze_in("git status", &s.path().join("w")),
        &["core.fsmonitor"],
    );
    // 8. git keeps spaces in a `gitdir:` path; only CR and LF are stripped.
    let s = Scratch::new();
    s.gitdir("w/realgit ", fsmon);
    s.gitdir("w/realgit", CLEAN);
    s.write("w/.git", "gitdir: realgit \n");
    asks_naming(
        &analyze_in("git status", &s.path().join("w")),
        &["core.fsmonitor"],
    );
    // 9. An inner `.git` with an invalid HEAD is walked past, as git does.
    let s = Scratch::new();
    s.repo("r", fsmon);
    for sub in ["objects", "refs"] {
        std::fs::create_dir_all(s.path().join("r/sub/.git").join(sub)).unwrap();
    }
    s.write("r/sub/.git/HEAD", "garbage\n");
    asks_naming(
        &analyze_in("git status", &s.path().join("r/sub")),
        &["core.fsmonitor"],
    );
    // 10. HEAD may be a (dangling) symlink into refs/.
    let s = Scratch::new();
    s.repo("r", fsmon);
    std::fs::remove_file(s.path().join("r/.git/HEAD")).unwrap();
    symlink("refs/heads/main", s.path().join("r/.git/HEAD")).unwrap();
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["core.fsmonitor"],
    );
    // 11. A partial clone fetches on a read, which runs maintenance and `pre-auto-gc`.
    asks_in_repo(
        "[extensions]\n\tpartialClone = origin\n",
        "git log -p",
        &["partialclone"],
    );
    let s = Scratch::new();
    s.repo("r", CLEAN);
    let hook = s.write("r/.git/hooks/pre-auto-gc", "#!/bin/sh\n");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    asks_naming(
        &analyze_in("git log -p", &s.path().join("r")),
        &["pre-auto-gc"],
    );
    // 12. `diff.submodule = diff` runs git diff inside submodules, even ones only in history.
    asks_in_repo(
        "[diff]\n\tsubmodule = diff\n",
        "git log -p",
        &["diff.submodule"],
    );
    assert_eq!(
        analyze_in("git log -p --submodule=diff", s.path()).verdict,
        Verdict::Ask
    );
    // A FIFO where `.git` would be is walked past, and never read (a read would hang).
    let s = Scratch::new();
    s.repo("r", fsmon);
    std::fs::create_dir_all(s.path().join("r/sub")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(s.path().join("r/sub/.git"))
        .status();
    if fifo.is_ok_and(|st| st.success()) {
        asks_naming(
            &analyze_in("git status", &s.path().join("r/sub")),
            &["core.fsmonitor"],
        );
        let s2 = Scratch::new();
        s2.repo("q", CLEAN);
        std::fs::remove_file(s2.path().join("q/.git/config")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(s2.path().join("q/.git/config"))
            .status()
            .unwrap();
        assert!(made.success());
        asks_naming(
            &analyze_in("git status", &s2.path().join("q")),
            &["not a regular file"],
        );
    }
}

/// Bypasses a second red-team round found: git's C strings, its exact HEAD test, `access()`,
/// includes resolved from the path git opened, and an object format config can lie about.
#[test]
fn red_team_round_two_stays_closed() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;
    let fsmon = "[core]\n\tfsmonitor = ./x\n";
    // 1. A NUL in a subsection: git reads `[core "fsmonitor\0x"] x` as core.fsmonitor.
    let s = Scratch::new();
    s.repo("r", "[core \"fsmonitor\0x\"]\n\tx = ./x\n");
    asks_naming(&analyze_in("git status", &s.path().join("r")), &["NUL"]);
    // 2. A relative include in a symlinked config starts from the link's directory.
    let s = Scratch::new();
    s.repo("r", "");
    s.write("elsewhere/config", "[include]\n\tpath = inc\n");
    std::fs::remove_file(s.path().join("r/.git/config")).unwrap();
    symlink(
        s.path().join("elsewhere/config"),
        s.path().join("r/.git/config"),
    )
    .unwrap();
    s.write("r/.git/inc", fsmon);
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["core.fsmonitor"],
    );
    // 3. git reads only the first 255 bytes of HEAD, however long it is.
    let s = Scratch::new();
    s.repo("r", fsmon);
    let long = format!("ref: refs/heads/main\n{}", "\n".repeat(1_100_000));
    s.write("r/.git/HEAD", &long);
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["core.fsmonitor"],
    );
    // 4. `commondir` ends at a NUL.
    let s = Scratch::new();
    s.repo("r", fsmon);
    s.write("r/.git/commondir", ".\0x");
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["core.fsmonitor"],
    );
    // 5. `objects` is tested with access(X_OK), which root passes whatever the mode.
    let s = Scratch::new();
    s.repo("r", fsmon);
    let objects = s.path().join("r/.git/objects");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&objects, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::metadata(objects.join(".")).is_ok() {
        asks_naming(
            &analyze_in("git status", &s.path().join("r")),
            &["core.fsmonitor"],
        );
    }
    std::fs::set_permissions(&objects, std::fs::Permissions::from_mode(0o755)).unwrap();
    // 6.-8. Decoy inner repositories git rejects, and a HEAD git accepts.
    for head in ["symlink-to-file", "vertical-tab"] {
        let s = Scratch::new();
        s.repo("r", fsmon);
        for sub in ["objects", "refs"] {
            std::fs::create_dir_all(s.path().join("r/sub/.git").join(sub)).unwrap();
        }
        if head == "symlink-to-file" {
            s.write("r/sub/.git/headfile", "ref: refs/heads/main\n");
            symlink("headfile", s.path().join("r/sub/.git/HEAD")).unwrap();
        } else {
            s.write("r/sub/.git/HEAD", "ref:\u{b}refs/heads/main\n");
        }
        asks_naming(
            &analyze_in("git status", &s.path().join("r/sub")),
            &["core.fsmonitor"],
        );
    }
    let s = Scratch::new();
    s.repo("r", fsmon);
    std::fs::remove_file(s.path().join("r/.git/HEAD")).unwrap();
    symlink(
        std::ffi::OsStr::from_bytes(b"refs/heads/\xff"),
        s.path().join("r/.git/HEAD"),
    )
    .unwrap();
    asks_naming(
        &analyze_in("git status", &s.path().join("r")),
        &["core.fsmonitor"],
    );
}

/// Red-team round two, case 9: a SHA-256 repository whose config hides its object format
/// still has its submodules read, since the index is parsed both ways.
#[test]
fn sha256_indexes_are_read_whatever_the_config_says() {
    if !std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("*** SKIPPED sha256_indexes_…: `git` is not installed.");
        return;
    }
    let s = Scratch::new();
    let repo = s.path().join("r");
    std::fs::create_dir_all(&repo).unwrap();
    let o = git(&repo, &["init", "-q", "--object-format=sha256"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sub = repo.join("sub");
    init_repo(&sub);
    git_config(&sub, &["core.fsmonitor", "./x"]);
    let oid = format!("{}1241", "0".repeat(60));
    let o = git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{oid},sub"),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Hide the object format from a reader that trusts the file named `config`.
    std::fs::rename(repo.join(".git/config"), repo.join(".git/realcfg")).unwrap();
    std::os::unix::fs::symlink("realcfg", repo.join(".git/config")).unwrap();
    asks_naming(&analyze_in("git status", &repo), &["core.fsmonitor"]);
}

/// Bypasses a third red-team round found in how the command line moves git around.
#[test]
fn red_team_round_three_stays_closed() {
    let fsmon = "[core]\n\tfsmonitor = ./x\n";
    let s = Scratch::new();
    s.repo("sub", fsmon);
    let cwd = s.path();
    for cmd in [
        // `command`/`builtin` options before `cd`.
        "command -p cd sub; git status",
        "command -- cd sub; git status",
        "builtin -- cd sub; git status",
    ] {
        asks_naming(&analyze_in(cmd, cwd), &["core.fsmonitor"]);
    }
    for cmd in [
        // bash expands `~` after `=` and `:` in assignment-like words.
        "cd a=~/x && git status",
        "cd a=b:~root/x; git status",
        // `--chdir=~/x` is not tilde-expanded by bash: a literal `~` directory.
        "env --chdir=~/x git status",
        // `sh` is not bash: its `cd` target is not read the way bash would read it.
        "sh -c 'cd {1..1}; git status'",
        // `cd` through `eval` inside a loop runs before the next round's git.
        "for i in 1 2; do git status; eval cd sub; done",
    ] {
        asks_naming(&analyze_in(cmd, cwd), &["run time"]);
    }
    // A function defined through eval can stand in for `ls` later.
    let a = analyze_in("eval 'ls(){ git status; }'; cd sub; ls", cwd);
    assert_eq!(a.verdict, Verdict::Ask);
    assert!(
        a.findings.iter().any(|f| f.code == Code::FunctionCall),
        "{a:#?}"
    );

    // A `commondir` too large to read is not a reason to look elsewhere.
    let s = Scratch::new();
    s.repo("src", fsmon);
    s.gitdir("src/.git/worktrees/w", "");
    std::fs::remove_file(s.path().join("src/.git/worktrees/w/config")).unwrap();
    let big = format!("../..{}", "\n".repeat(17 << 20));
    s.write("src/.git/worktrees/w/commondir", &big);
    let gitdir = s.path().join("src/.git/worktrees/w");
    s.write("w/.git", &format!("gitdir: {}\n", gitdir.display()));
    asks_naming(
        &analyze_in("git status", &s.path().join("w")),
        &["commondir"],
    );

    // Submodule repositories in `.git/modules`, populated or not.
    let s = Scratch::new();
    s.repo("m", CLEAN);
    s.gitdir(
        "m/.git/modules/x",
        "[remote \"origin\"]\n\tuploadpack = ./evil\n",
    );
    asks_naming(
        &analyze_in(
            "git grep --recurse-submodules -e foo HEAD",
            &s.path().join("m"),
        ),
        &["uploadpack"],
    );
    s.gitdir("m/.git/modules/a/b", fsmon);
    asks_naming(
        &analyze_in("git status", &s.path().join("m")),
        &["core.fsmonitor"],
    );
}

/// The CLI starts from `$PWD`, so a `cd ..` out of a symlinked directory goes where bash goes.
#[test]
fn the_cli_starts_from_the_logical_working_directory() {
    let s = Scratch::new();
    s.repo("top", "[core]\n\tfsmonitor = ./x\n");
    std::fs::create_dir_all(s.path().join("clean/inner")).unwrap();
    std::os::unix::fs::symlink(s.path().join("clean/inner"), s.path().join("top/link")).unwrap();
    let logical = s.path().join("top/link");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .args(["check", "cd ..; git status"])
        .current_dir(&logical)
        .env("PWD", &logical)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
