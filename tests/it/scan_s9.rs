//! Session 9's audit of the scan subsets against the real tools (GNU make 4.3, dash, bash,
//! npm, GitHub's runner): each test pins one way a file read as clean while the tool ran a
//! command scan had not judged, and the near misses that must stay clean.

use std::path::Path;
use std::process::Command;

use cmdguard::integrations::scan::{self, FileKind, FileReport};
use cmdguard::{Analyzer, Verdict};

use crate::scan::make_available;
use crate::scan_subset::codes;

/// A fresh directory for one test, removed first if an earlier run left it.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cmdguard-scan-s9-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The scan report of the file at `path` (read from disk) as `kind`.
fn scan_path(path: &Path, kind: FileKind) -> FileReport {
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let text = std::fs::read_to_string(path).unwrap();
    scan::scan_text(&path.display().to_string(), &text, kind, &analyze)
}

/// The plain Makefile of the tests below: one phony target whose recipe is allowed.
const PLAIN_MAKEFILE: &str = ".PHONY: a\na:\n\tls\n";

/// GNU make remakes the makefile itself before reading it, with its built-in rules too: a
/// `Makefile.sh` beside a clean `Makefile` is copied over it (`%: %.sh`) and its recipes run.
/// Each such source beside the makefile asks; files no built-in rule reads stay clean.
#[test]
fn a_source_make_remakes_the_makefile_from_asks() {
    let table: &[(&str, Option<&str>)] = &[
        ("Makefile.sh", Some("unread_file")),
        ("Makefile.c", Some("unread_file")),
        ("Makefile.y", Some("unread_file")),
        ("Makefile.web", Some("unread_file")),
        ("Makefile,v", Some("unread_file")),
        ("Makefile.c,v", Some("unread_file")),
        ("s.Makefile", Some("unread_file")),
        ("RCS/", Some("unread_file")),
        ("SCCS/", Some("unread_file")),
        // automake's inputs and other neighbours: no built-in rule makes `Makefile` of them.
        ("Makefile.am", None),
        ("Makefile.in", None),
        ("Makefile.bak", None),
        ("README.sh", None),
    ];
    for (beside, want) in table {
        let dir = fresh_dir("remake");
        std::fs::write(dir.join("Makefile"), PLAIN_MAKEFILE).unwrap();
        match beside.strip_suffix('/') {
            Some(d) => std::fs::create_dir(dir.join(d)).unwrap(),
            None => std::fs::write(dir.join(beside), "x\n").unwrap(),
        }
        let r = scan_path(&dir.join("Makefile"), FileKind::Makefile);
        match want {
            Some(code) => {
                assert_eq!(r.verdict, Verdict::Ask, "{beside}: {r:#?}");
                assert_eq!(codes(&r), [*code], "{beside}");
            }
            None => assert_eq!((r.verdict, codes(&r)), (Verdict::Allow, vec![]), "{beside}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The attack itself, under real GNU make: a newer `Makefile.sh` replaces the clean
/// `Makefile` and its recipe runs.
#[test]
fn real_make_remakes_the_makefile_from_a_sh_file_beside_it() {
    if !make_available() {
        return;
    }
    let dir = fresh_dir("remake-real");
    std::fs::write(dir.join("Makefile"), PLAIN_MAKEFILE).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(dir.join("Makefile"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    std::fs::write(dir.join("Makefile.sh"), ".PHONY: a\na:\n\ttouch ran\n").unwrap();
    let r = scan_path(&dir.join("Makefile"), FileKind::Makefile);
    assert_eq!(r.verdict, Verdict::Ask);
    Command::new("make")
        .arg("-s")
        .current_dir(&dir)
        .env_remove("MAKEFLAGS")
        .output()
        .unwrap();
    assert!(
        dir.join("ran").exists(),
        "make ran the recipe of Makefile.sh"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The scan report of `text` as a shell script with no `#!` line (read as sh, as dash runs
/// it), and whether dash and bash, run on it in a directory holding an executable `]]` and
/// `x` that each create `ran`, created it.
fn sh_script(text: &str) -> (FileReport, Option<(bool, bool)>) {
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let r = scan::scan_text("s.sh", text, FileKind::ShellScript, &analyze);
    let run = |shell: &str| -> Option<bool> {
        let dir = fresh_dir(&format!("sh-{shell}"));
        for helper in ["]]", "x"] {
            let p = dir.join(helper);
            std::fs::write(&p, "touch ran\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(dir.join("victim"), "kept\n").unwrap();
        std::fs::write(dir.join("s.sh"), text).unwrap();
        let status = Command::new(shell)
            .arg("s.sh")
            .current_dir(&dir)
            .env("PATH", "/usr/bin:/bin")
            .output()
            .ok()?;
        let _ = status;
        let ran = dir.join("ran").exists()
            || std::fs::read_to_string(dir.join("victim")).unwrap_or_default() != "kept\n";
        std::fs::remove_dir_all(&dir).unwrap();
        Some(ran)
    };
    let both = run("dash").zip(run("bash"));
    (r, both)
}

/// bash's `[[ … ]]` and `(( … ))` are keywords dash does not have: dash runs a command named
/// `[[` (its `|`, `||`, `>` are then dash's own pipes, lists and redirections) or two nested
/// subshells. Read as bash, each looked harmless, and sh scripts, Makefile recipes, npm
/// scripts and Dockerfile `RUN` lines (all `sh -c`) with them were clean. Under sh each asks.
#[test]
fn bash_keywords_dash_lacks_ask_under_sh() {
    let hidden = [
        "[[ x =~ a|sh ]]",
        "if [[ x =~ a|sh ]]; then :; fi",
        "[[ a == a||sh ]]",
        "[[ a > victim ]]",
        "((./x))",
        "i=0; ((i++))",
    ];
    for text in hidden {
        let (r, ran) = sh_script(&format!("{text}\n"));
        assert!(
            r.verdict >= Verdict::Ask && codes(&r).contains(&"unsupported_shell"),
            "{text}: {r:#?}"
        );
        // Where dash runs something here, bash does not: the two readings differ.
        if let Some((dash, bash)) = ran
            && text != "i=0; ((i++))"
        {
            assert_eq!((dash, bash), (true, false), "{text}");
        }
    }
    // POSIX forms dash reads as bash does stay clean.
    for text in ["[ a = b ] || echo $((1 + 2))\n", "(ls) && test -n x\n"] {
        let (r, _) = sh_script(text);
        assert_eq!((r.verdict, codes(&r)), (Verdict::Allow, vec![]), "{text}");
    }
    // Under bash (a `#!/bin/bash` line) the keywords are bash's own.
    let (r, _) = sh_script("#!/bin/bash\n[[ x =~ a|sh ]] && ((1))\n");
    assert_eq!((r.verdict, codes(&r)), (Verdict::Allow, vec![]));
}

/// A `$'…'` string under sh whose first 40 bytes end inside a character: quoting it in the
/// message cut the text there and panicked (found in this audit).
#[test]
fn a_long_bash_only_string_with_wide_characters_does_not_panic() {
    let (r, _) = sh_script("echo $'aéééééééééééééééééééééééééééé'\n");
    assert_eq!(r.verdict, Verdict::Ask);
    assert!(codes(&r).contains(&"unsupported_shell"));
}

/// The scan report of `text` as a GitHub Actions workflow.
fn workflow(text: &str) -> FileReport {
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    scan::scan_text(
        ".github/workflows/ci.yml",
        text,
        FileKind::Workflow,
        &analyze,
    )
}

/// Jobs merged into `jobs:` with a YAML merge key (`<<: *jobs`) were never read: the jobs map
/// was walked by its own keys, so the merged job's `run:` went unjudged and the file was
/// clean. Merged jobs and merged `env:` names are read as a reader that honours `<<` reads
/// them; the map's own keys win over merged ones.
#[test]
fn jobs_and_env_merged_with_yaml_merge_keys_are_read() {
    let merged_jobs = "on: push\nx: &jobs\n  evil:\n    runs-on: ubuntu-latest\n    steps:\n      - run: rm -rf v\njobs:\n  <<: *jobs\n";
    let r = workflow(merged_jobs);
    assert_eq!(r.verdict, Verdict::Deny, "{r:#?}");
    assert_eq!(r.commands[0].context, "jobs.evil.steps[0].run");
    // A list of merged maps, and a job of the map's own that overrides a merged one.
    let listed = "on: push\na: &a\n  one:\n    runs-on: ubuntu-latest\n    steps:\n      - run: rm -rf v\nb: &b\n  two:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ls\njobs:\n  <<: [*a, *b]\n  one:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pwd\n";
    let r = workflow(listed);
    let contexts: Vec<(&str, &str)> = r
        .commands
        .iter()
        .map(|c| (c.context.as_str(), c.text.as_str()))
        .collect();
    assert_eq!(
        contexts,
        [
            ("jobs.one.steps[0].run", "pwd"),
            ("jobs.two.steps[0].run", "ls")
        ]
    );
    assert_eq!(r.verdict, Verdict::Allow);
    // A merged `env:` name is judged by its name.
    let env = "on: push\nx: &e\n  PATH: /tmp\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      <<: *e\n    steps:\n      - run: ls\n";
    let r = workflow(env);
    assert_eq!((r.verdict, codes(&r)), (Verdict::Ask, vec!["environment"]));
    assert!(r.reasons[0].message.contains("`PATH`"), "{:?}", r.reasons);
}

/// The files beside a package.json or Makefile are looked up by the path scan was given; a
/// directory whose name is not UTF-8 was looked up under its lossy text (U+FFFD), another
/// directory, so an `.npmrc` with `script-shell` beside the file went unseen (found in this
/// session's review). Such a path asks.
#[cfg(unix)]
#[test]
fn files_beside_a_path_that_is_not_utf8_cannot_be_checked_and_ask() {
    use std::os::unix::ffi::OsStrExt;
    let base = fresh_dir("non-utf8");
    let dir = base.join(std::ffi::OsStr::from_bytes(b"d\xff"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.json"), r#"{"name":"x"}"#).unwrap();
    std::fs::write(dir.join(".npmrc"), "script-shell=./evil.sh\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .current_dir(&base)
        .env("HOME", base.join(".home"))
        .env("XDG_CONFIG_HOME", base.join(".home/config"))
        .env_remove("CMDGUARD_CONFIG")
        .args(["scan", "--no-config", "--format", "json"])
        .arg(std::ffi::OsStr::from_bytes(b"d\xff/package.json"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["verdict"], "ask", "{report:#}");
    assert_eq!(report["files"][0]["reasons"][0]["code"], "unread_file");
    std::fs::remove_dir_all(&base).unwrap();
}

/// Near misses of this session's fixes, which must stay clean: a rule line whose variables
/// expand to known text with no `;`, a `.DEFAULT_GOAL` with a recipe, a cache mount under a
/// home directory, a hosted runner label, a plain `config` value.
#[test]
fn near_misses_of_the_s9_fixes_stay_clean() {
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let clean = |path: &str, text: &str, kind: FileKind| {
        let r = scan::scan_text(path, text, kind, &analyze);
        assert_eq!((r.verdict, codes(&r)), (Verdict::Allow, vec![]), "{text}");
    };
    clean(
        "/nonexistent/cmdguard-s9/Makefile",
        "OBJS := a b\n.PHONY: all $(OBJS)\nall: $(OBJS)\n\tls\n",
        FileKind::Makefile,
    );
    clean(
        "/nonexistent/cmdguard-s9/Makefile",
        ".DEFAULT_GOAL := all\n.PHONY: all\nall:\n\tls\n",
        FileKind::Makefile,
    );
    clean(
        "/nonexistent/cmdguard-s9/Dockerfile",
        "FROM debian\nRUN --mount=type=cache,target=/root/.cache/pip ls\n",
        FileKind::Dockerfile,
    );
    clean(
        "/nonexistent/cmdguard-s9/Dockerfile",
        "FROM debian AS base\nWORKDIR /app\nONBUILD COPY . .\n",
        FileKind::Dockerfile,
    );
    clean(
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04-arm\n    steps:\n      - run: ls\n",
        FileKind::Workflow,
    );
    clean(
        "/nonexistent/cmdguard-s9/package.json",
        r#"{"name":"x","config":{"port":8080}}"#,
        FileKind::PackageJson,
    );
}
