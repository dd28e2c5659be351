//! `cmdguard scan` and `check --format sarif` through the real binary: the fixture files in
//! tests/data/scan/ (a script, a Dockerfile, a workflow, a Makefile, a package.json) with known
//! commands at known positions, text and JSON snapshots, exit codes, and the SARIF logs
//! validated against the official SARIF 2.1.0 schema.

use std::path::PathBuf;
use std::process::{Command, Output};

use cmdguard::Analyzer;
use cmdguard::integrations::scan::{self, FileKind};
use proptest::prelude::*;
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scan");

/// The fixtures, as named from their directory.
const FILES: &[&str] = &[
    "deploy.sh",
    "Dockerfile",
    ".github/workflows/ci.yml",
    "Makefile",
    "package.json",
];

/// The file-level construct fixtures: one per red-team row that scan used to allow, and near
/// misses (`plain.*`) that must stay clean.
const CONSTRUCTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scan/constructs");

/// The binary run in the fixtures' directory with no config file in reach.
fn cmdguard(args: &[&str], stdin: Option<&str>) -> Output {
    cmdguard_in(DIR, args, stdin)
}

/// The binary run in `dir` with no config file in reach.
fn cmdguard_in(dir: &str, args: &[&str], stdin: Option<&str>) -> Output {
    let home = std::env::temp_dir().join(format!("cmdguard-scan-home-{}", std::process::id()));
    let mut c = Command::new(env!("CARGO_BIN_EXE_cmdguard"));
    c.current_dir(dir)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("CLAUDE_CONFIG_DIR", home.join("claude"))
        .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
        .env_remove("CMDGUARD_CONFIG")
        .args(args);
    match stdin {
        None => c.output().unwrap(),
        Some(input) => {
            use std::io::Write;
            let mut child = c
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            child.wait_with_output().unwrap()
        }
    }
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn scan(extra: &[&str], files: &[&str]) -> Output {
    let mut args = vec!["scan", "--no-config"];
    args.extend_from_slice(extra);
    args.extend_from_slice(files);
    cmdguard(&args, None)
}

#[test]
fn text_output_of_each_fixture() {
    let mut all = String::new();
    for file in FILES {
        let o = scan(&[], &[file]);
        all.push_str(&format!("$ cmdguard scan {file}   # exit {}\n", code(&o)));
        all.push_str(&stdout(&o));
        all.push('\n');
    }
    insta::assert_snapshot!(all);
}

#[test]
fn json_output_of_all_fixtures() {
    let o = scan(&["--format", "json"], FILES);
    assert_eq!(code(&o), 2);
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn exit_status_is_the_strictest_verdict() {
    let table = [
        ("deploy.sh", 2),
        ("Dockerfile", 2),
        (".github/workflows/ci.yml", 1),
        ("Makefile", 2),
        ("package.json", 2),
    ];
    for (file, want) in table {
        for format in ["text", "json", "sarif"] {
            let o = scan(&["--format", format], &[file]);
            assert_eq!(code(&o), want, "{file} --format {format}");
        }
    }
}

/// Every reason as (file, line, column, code).
fn reasons(report: &Value) -> Vec<(String, u64, u64, String)> {
    let mut out = Vec::new();
    for f in report["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        let commands = f["commands"].as_array().unwrap();
        let file_reasons = f["reasons"].as_array().cloned().unwrap_or_default();
        let command_reasons = commands
            .iter()
            .flat_map(|c| c["reasons"].as_array().unwrap().clone());
        for r in file_reasons.into_iter().chain(command_reasons) {
            out.push((
                path.to_string(),
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["column"].as_u64().unwrap(),
                r["code"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

#[test]
fn known_commands_are_reported_at_their_file_line_and_column() {
    // Each row was read off the fixture by hand: the text at that line and column is the
    // program word, redirect or expression named.
    let table: &[(&str, u64, u64, &str)] = &[
        // deploy.sh: a function body, a download piped to sh, the call of the function, a
        // redirect, a root delete.
        ("deploy.sh", 9, 3, "denied"),
        ("deploy.sh", 16, 1, "denied"),
        ("deploy.sh", 17, 5, "exec"),
        ("deploy.sh", 18, 1, "function_call"),
        ("deploy.sh", 19, 11, "redirect"),
        ("deploy.sh", 20, 1, "denied"),
        // Dockerfile: a continuation after a dropped comment line, the exec form's script, a
        // heredoc body, a SHELL other than sh.
        ("Dockerfile", 5, 5, "not_allowlisted"),
        ("Dockerfile", 7, 18, "redirect"),
        ("Dockerfile", 11, 1, "denied"),
        ("Dockerfile", 15, 5, "unsupported_shell"),
        // The workflow: an expression inside a block scalar, a redirect, a pwsh step.
        (".github/workflows/ci.yml", 12, 24, "template_expansion"),
        (".github/workflows/ci.yml", 14, 22, "redirect"),
        (".github/workflows/ci.yml", 21, 14, "unsupported_shell"),
        // The Makefile: a make variable as the program, a continued recipe line.
        ("Makefile", 7, 2, "template_expansion"),
        ("Makefile", 10, 3, "denied"),
        // package.json: each script at its string's first character.
        ("package.json", 6, 15, "not_allowlisted"),
        ("package.json", 7, 15, "denied"),
    ];
    let o = scan(&["--format", "json"], FILES);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let got = reasons(&report);
    for (file, line, column, code) in table {
        assert!(
            got.iter()
                .any(|(f, l, c, k)| f == file && l == line && c == column && k == code),
            "no `{code}` at {file}:{line}:{column}; got {got:#?}"
        );
    }
    // And the allowed commands stay allowed: nothing is reported on these lines.
    let quiet: &[(&str, u64)] = &[
        ("deploy.sh", 3),
        ("deploy.sh", 5),
        ("deploy.sh", 6),
        ("Dockerfile", 6),
        (".github/workflows/ci.yml", 9),
        (".github/workflows/ci.yml", 13),
        ("Makefile", 6),
        ("Makefile", 16),
    ];
    for (file, line) in quiet {
        assert!(
            !got.iter().any(|(f, l, _, _)| f == file && l == line),
            "{file}:{line} should have no reason; got {got:#?}"
        );
    }
}

/// The official SARIF 2.1.0 schema: `CMDGUARD_SARIF_SCHEMA`, else where `.ci/sarif-schema.sh`
/// puts it. `None` (with a note) when it is not there — except in CI, where that fails.
fn sarif_schema() -> Option<Value> {
    let path = std::env::var_os("CMDGUARD_SARIF_SCHEMA").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/sarif-schema/sarif-schema-2.1.0.json")
        },
        PathBuf::from,
    );
    let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        || std::env::var_os("CMDGUARD_SARIF_REQUIRE").is_some();
    match std::fs::read(&path) {
        Ok(bytes) => {
            let schema: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(
                schema["id"],
                "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
                "{} is not the SARIF 2.1.0 schema",
                path.display()
            );
            Some(schema)
        }
        Err(e) => {
            assert!(
                !required,
                "the SARIF schema is missing at {} ({e}); run .ci/sarif-schema.sh",
                path.display()
            );
            eprintln!(
                "note: SARIF schema validation skipped: {} ({e}); run `bash .ci/sarif-schema.sh` to fetch it",
                path.display()
            );
            None
        }
    }
}

fn assert_valid_sarif(schema: &Value, log: &Value, what: &str) {
    let validator = jsonschema::draft4::new(schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: invalid SARIF: {errors:#?}");
}

#[test]
fn sarif_logs_are_valid_against_the_official_schema() {
    let mut logs = Vec::new();
    let o = scan(&["--format", "sarif"], FILES);
    logs.push((
        "scan of the fixtures",
        serde_json::from_slice::<Value>(&o.stdout).unwrap(),
    ));
    let o = cmdguard(
        &[
            "check",
            "--no-config",
            "--format",
            "sarif",
            "ls > out.txt; rm -rf /",
        ],
        None,
    );
    assert_eq!(code(&o), 2);
    logs.push((
        "check of a command",
        serde_json::from_slice(&o.stdout).unwrap(),
    ));
    let o = cmdguard(
        &["check", "--no-config", "--format", "sarif", "--stdin"],
        Some("ls\ncurl x | sh\n"),
    );
    assert_eq!(code(&o), 2);
    logs.push(("check --stdin", serde_json::from_slice(&o.stdout).unwrap()));
    let o = cmdguard(
        &["check", "--no-config", "--format", "sarif", "git status"],
        None,
    );
    assert_eq!(code(&o), 0);
    logs.push((
        "an allowed command",
        serde_json::from_slice(&o.stdout).unwrap(),
    ));

    // What code scanning needs, whether or not the schema is at hand.
    let scan_log = &logs[0].1;
    let results = scan_log["runs"][0]["results"].as_array().unwrap();
    let o = scan(&["--format", "json"], FILES);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        results.len(),
        reasons(&report).len(),
        "one result per reason"
    );
    let rules = scan_log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for r in results {
        let i = usize::try_from(r["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[i]["id"], r["ruleId"]);
        assert!(
            rules[i]["help"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let level = r["level"].as_str().unwrap();
        assert!(level == "error" || level == "warning", "{r}");
    }
    let denied = results
        .iter()
        .find(|r| {
            r["ruleId"] == "denied"
                && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    == "package.json"
        })
        .unwrap();
    assert_eq!(denied["level"], "error");
    assert_eq!(
        denied["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 7, "startColumn": 15, "endLine": 7, "endColumn": 23})
    );
    let stdin_uri = &logs[2].1["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert_eq!(stdin_uri, "cmdguard:stdin");
    assert_eq!(logs[3].1["runs"][0]["results"], serde_json::json!([]));

    if let Some(schema) = sarif_schema() {
        for (what, log) in &logs {
            assert_valid_sarif(&schema, log, what);
        }
        // The validator is not vacuous: a log without its version is rejected.
        let mut broken = logs[0].1.clone();
        broken.as_object_mut().unwrap().remove("version");
        assert!(!jsonschema::draft4::new(&schema).unwrap().is_valid(&broken));
    }
}

#[test]
fn files_that_cannot_be_scanned_are_usage_errors() {
    let o = scan(&[], &["no-such-file.sh"]);
    assert_eq!(code(&o), 66);
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let dir = std::env::temp_dir().join(format!("cmdguard-scan-kind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "hello\n").unwrap();
    let notes = notes.to_str().unwrap();
    let o = scan(&[], &[notes]);
    assert_eq!(code(&o), 64);
    assert!(String::from_utf8_lossy(&o.stderr).contains("pass --kind"));
    // With --kind, the same file is read as a script: `hello` is not allowlisted.
    let o = scan(&["--kind", "shell_script"], &[notes]);
    assert_eq!(code(&o), 1);
    std::fs::remove_dir_all(&dir).unwrap();
    let o = scan(&["--kind", "perl"], &["deploy.sh"]);
    assert_eq!(code(&o), 64);
}

#[test]
fn pasted_text_asks_even_where_the_shell_would_read_it_as_text() {
    // GitHub Actions replaces `${{ }}` before bash reads the script, so single quotes do not
    // protect it: a title holding `'; rm -rf ~; '` runs.
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let table: &[(FileKind, &str)] = &[
        (
            FileKind::Workflow,
            "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo '${{ github.event.issue.title }}'\n",
        ),
        (FileKind::Makefile, "a:\n\techo '$(MSG)'\n"),
        (FileKind::Makefile, "a:\n\techo '$@'\n"),
    ];
    for (kind, text) in table {
        let report = scan::scan_text("f", text, *kind, &analyze);
        assert_eq!(report.verdict, cmdguard::Verdict::Ask, "{text}");
        let codes: Vec<&str> = report.commands[0].reasons.iter().map(|r| r.code).collect();
        assert_eq!(codes, ["template_expansion"], "{text}");
    }
}

/// A reason's place and code: (line, column, code).
type Place = (u64, u64, &'static str);

/// Every construct fixture: its verdict, and reasons (line, column, code) it must have. The
/// rows marked "red team" were each allowed before, while the tool ran something scan never
/// looked at; the `plain.*` files hold the same constructs in their plain forms.
const CONSTRUCT_TABLE: &[(&str, &str, &[Place])] = &[
    // Makefiles (see `real_make_runs_what_the_makefile_fixtures_hide` for what make does).
    ("bash-env.mk", "ask", &[(2, 8, "environment")]), // red team
    ("exported-path.mk", "ask", &[(1, 8, "environment")]), // red team
    ("inherited-path.mk", "ask", &[(1, 1, "environment")]),
    (
        "shellflags.mk",
        "deny",
        &[(1, 1, "shell_options"), (1, 19, "denied")],
    ), // red team
    (
        "shell-args.mk",
        "ask",
        &[(1, 1, "shell_options"), (1, 20, "exec")],
    ),
    (
        "define-eval.mk",
        "deny",
        &[(5, 1, "unmodelled_construct"), (3, 2, "denied")],
    ), // red team
    ("include.mk", "ask", &[(1, 1, "unread_file")]), // red team
    ("recipe-shell.mk", "deny", &[(2, 15, "denied")]), // red team
    (
        "makeflags-eval.mk",
        "ask",
        &[(1, 1, "unmodelled_construct")],
    ),
    (
        "variable-rule.mk",
        "deny",
        &[(2, 1, "unmodelled_construct"), (1, 12, "denied")],
    ),
    ("target-export.mk", "ask", &[(2, 13, "environment")]),
    ("call-shell.mk", "deny", &[(1, 19, "denied")]),
    (
        "conditional.mk",
        "ask",
        &[
            (2, 1, "unmodelled_construct"),
            (4, 1, "unmodelled_construct"),
        ],
    ), // red team s8
    ("plain.mk", "allow", &[]),
    // Dockerfiles.
    (
        "shell-script.Dockerfile",
        "deny",
        &[(2, 1, "shell_options"), (2, 23, "denied")],
    ), // red team
    ("bash-env.Dockerfile", "ask", &[(2, 5, "environment")]), // red team
    (
        "env-path.Dockerfile",
        "ask",
        &[
            (2, 5, "environment"),
            (2, 30, "environment"),
            (3, 5, "environment"),
        ],
    ),
    (
        "onbuild.Dockerfile",
        "deny",
        &[(2, 13, "denied"), (3, 1, "unmodelled_construct")],
    ),
    (
        "frontend.Dockerfile",
        "ask",
        &[(1, 10, "unmodelled_construct")],
    ),
    ("plain.Dockerfile", "allow", &[]),
    // Workflows.
    (
        ".github/workflows/shell-command.yml",
        "deny",
        &[(7, 16, "shell_options"), (7, 24, "denied")],
    ), // red team
    (
        ".github/workflows/shell-file.yml",
        "deny",
        &[
            (7, 16, "shell_options"),
            (7, 21, "exec"),
            (9, 16, "shell_options"),
            (11, 16, "shell_options"),
            (11, 44, "exec"),
            (13, 16, "shell_options"),
            (13, 21, "exec"),
            (15, 16, "shell_options"),
            (17, 16, "shell_options"),
            (17, 22, "denied"),
        ],
    ), // red team
    (
        ".github/workflows/docker-step.yml",
        "deny",
        &[(6, 15, "unmodelled_construct"), (8, 23, "denied")],
    ), // red team
    (
        ".github/workflows/env.yml",
        "ask",
        &[
            (3, 3, "environment"),
            (8, 7, "environment"),
            (12, 11, "environment"),
            (15, 10, "environment"),
        ],
    ),
    (".github/workflows/plain.yml", "allow", &[]),
];

#[test]
fn file_level_constructs_ask_or_deny_at_their_place() {
    for (file, verdict, want) in CONSTRUCT_TABLE {
        let o = cmdguard_in(
            CONSTRUCTS,
            &["scan", "--no-config", "--format", "json", file],
            None,
        );
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(report["verdict"], *verdict, "{file}: {report:#}");
        let got = reasons(&report);
        for (line, column, code) in *want {
            assert!(
                got.iter()
                    .any(|(_, l, c, k)| l == line && c == column && k == code),
                "no `{code}` at {file}:{line}:{column}; got {got:#?}"
            );
        }
    }
    // Every fixture in the directory is in the table.
    let mut listed: Vec<&str> = CONSTRUCT_TABLE.iter().map(|(f, _, _)| *f).collect();
    listed.sort_unstable();
    let mut found = Vec::new();
    for dir in ["", ".github/workflows"] {
        for entry in std::fs::read_dir(PathBuf::from(CONSTRUCTS).join(dir)).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                let name = entry.file_name().into_string().unwrap();
                found.push(if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                });
            }
        }
    }
    found.sort_unstable();
    assert_eq!(listed, found);
}

#[test]
fn text_output_of_the_construct_fixtures() {
    let mut all = String::new();
    for (file, _, _) in CONSTRUCT_TABLE {
        let o = cmdguard_in(CONSTRUCTS, &["scan", "--no-config", file], None);
        all.push_str(&format!("$ cmdguard scan {file}   # exit {}\n", code(&o)));
        all.push_str(&stdout(&o));
        all.push('\n');
    }
    insta::assert_snapshot!(all);
}

#[test]
fn construct_fixtures_give_valid_sarif() {
    let files: Vec<&str> = CONSTRUCT_TABLE.iter().map(|(f, _, _)| *f).collect();
    let mut args = vec!["scan", "--no-config", "--format", "sarif"];
    args.extend_from_slice(&files);
    let o = cmdguard_in(CONSTRUCTS, &args, None);
    assert_eq!(code(&o), 2);
    let log: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for id in [
        "shell_options",
        "environment",
        "unread_file",
        "unmodelled_construct",
    ] {
        let rule = rules.iter().find(|r| r["id"] == id).unwrap();
        assert!(
            rule["help"]["text"].as_str().is_some_and(|t| t.len() > 40),
            "{id}"
        );
        assert!(
            log["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["ruleId"] == id && r["level"] == "warning"),
            "no result for {id}"
        );
    }
    if let Some(schema) = sarif_schema() {
        assert_valid_sarif(&schema, &log, "scan of the construct fixtures");
    }
}

/// Whether `make` can be run here; `false` (with a note) when it cannot — except in CI or with
/// `CMDGUARD_MAKE_REQUIRE`, where that fails.
pub(crate) fn make_available() -> bool {
    let ok = Command::new("make")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        || std::env::var_os("CMDGUARD_MAKE_REQUIRE").is_some();
    assert!(ok || !required, "GNU make is needed for this test");
    if !ok {
        eprintln!("note: GNU make not found; the fixtures were not run under make");
    }
    ok
}

/// What the Makefile fixtures do under real GNU make, in a directory holding `v/` and the
/// helpers they name (`./evil.sh`, `./bin/ls`, `x.mk`, each of which deletes `v`): every
/// fixture that asks or denies for a hidden command really runs it, and the plain one does
/// not. This keeps the fixtures honest: each is an attack on make, not a guess about it.
#[test]
fn real_make_runs_what_the_makefile_fixtures_hide() {
    if !make_available() {
        return;
    }
    // `makeflags-eval.mk` is left out: GNU make before 4.4.1 reads a `MAKEFLAGS` set in the
    // makefile only in sub-makes; 4.4.1 applies it at once (its NEWS). It asks either way.
    let deleting = [
        "bash-env.mk",
        "exported-path.mk",
        "inherited-path.mk",
        "shellflags.mk",
        "shell-args.mk",
        "define-eval.mk",
        "include.mk",
        "recipe-shell.mk",
        "variable-rule.mk",
        "target-export.mk",
        "call-shell.mk",
    ];
    let base = std::env::temp_dir().join(format!("cmdguard-scan-make-{}", std::process::id()));
    for (file, deletes) in deleting
        .iter()
        .map(|f| (*f, true))
        .chain(std::iter::once(("plain.mk", false)))
    {
        let dir = base.join(file);
        std::fs::create_dir_all(dir.join("v")).unwrap();
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("evil.sh"), "rm -rf v\n").unwrap();
        std::fs::write(dir.join("bin/ls"), "#!/bin/sh\nrm -rf v\n").unwrap();
        std::fs::write(dir.join("x.mk"), "y:\n\trm -rf v\n").unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.join("bin/ls"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
            std::fs::set_permissions(dir.join("evil.sh"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
        }
        std::fs::copy(PathBuf::from(CONSTRUCTS).join(file), dir.join("Makefile")).unwrap();
        let o = Command::new("make")
            .args(["-s", "-f", "Makefile"])
            .current_dir(&dir)
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS")
            .env_remove("BASH_ENV")
            .output()
            .unwrap();
        assert_eq!(
            !dir.join("v").exists(),
            deletes,
            "{file}: make {} v\nstdout: {}\nstderr: {}",
            if deletes { "kept" } else { "deleted" },
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn npm_scripts_ask_for_their_path_even_when_they_run_only_builtins() {
    // npm puts `node_modules/.bin` first on PATH and looks the script's shell `sh` up on that
    // PATH too (red team s8: a `node_modules/.bin/sh` ran for `npm test` of `echo ok`), so a
    // script of builtins alone asks as well.
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let table: &[(&str, &[&str])] = &[
        (
            r#"echo \"Error: no test specified\" && exit 1"#,
            &["project_path"],
        ),
        ("cd build && pwd", &["project_path"]),
        ("test -d build || printf none", &["project_path"]),
        ("ls", &["project_path"]),
        ("echo $(ls)", &["project_path"]),
        ("echo() { ls; }; echo", &["project_path", "function_call"]),
        (
            "$X",
            &["project_path", "prints_environment", "dynamic_command"],
        ),
        ("sh -c 'echo hi'", &["project_path"]),
    ];
    for (script, want) in table {
        let text = format!("{{\"scripts\": {{\"s\": \"{script}\"}}}}");
        let report = scan::scan_text("package.json", &text, FileKind::PackageJson, &analyze);
        let mut got: Vec<&str> = report
            .commands
            .iter()
            .flat_map(|c| c.reasons.iter().map(|r| r.code))
            .collect();
        got.dedup();
        assert_eq!(&got, want, "{script}");
    }
}

/// Inputs whose reading once cost time or memory that grew faster than the file (each
/// nested `$(shell` a piece holding the rest of the line; a `$(` re-scanned to the line's end
/// for each reference; one analysis per `ENV` key; a quote scan from the line start for each
/// `<<`): each is now read in bounded time, and what was not read asks.
#[test]
fn pathological_files_are_scanned_in_bounded_time() {
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let n = 20_000;
    let table: Vec<(FileKind, String)> = vec![
        (
            FileKind::Makefile,
            format!("X := {}\n", "$(shell ".repeat(n)),
        ),
        (FileKind::Makefile, format!("{}\n", "$(eval ".repeat(n))),
        (FileKind::Makefile, format!("X = {}\n", "$(".repeat(n))),
        (
            FileKind::Makefile,
            format!("all:\n\techo {}\n", "$(shell ".repeat(n)),
        ),
        (FileKind::Makefile, format!("export {}\n", "A ".repeat(n))),
        (
            FileKind::Makefile,
            (0..50)
                .map(|i| {
                    format!(
                        "define D{i}\n{}endef\n",
                        format!("$(eval $(D{}))\n", i + 1).repeat(50)
                    )
                })
                .collect::<String>()
                + "$(eval $(D0))\n",
        ),
        (
            FileKind::Dockerfile,
            format!("FROM x\nENV {}\n", "A=1 ".repeat(n)),
        ),
        (
            FileKind::Dockerfile,
            format!("FROM x\nRUN echo {}\n", "\"<<\" ".repeat(n)),
        ),
        (
            FileKind::Workflow,
            format!(
                "env:\n{}jobs: {{}}\n",
                (0..n / 4)
                    .map(|i| format!("  A{i}: 1\n"))
                    .collect::<String>()
            ),
        ),
    ];
    for (kind, text) in &table {
        let start = std::time::Instant::now();
        let report = scan::scan_text("f", text, *kind, &analyze);
        let took = start.elapsed();
        assert!(
            took < std::time::Duration::from_secs(20),
            "{kind} of {} bytes took {took:?}",
            text.len()
        );
        assert!(
            report.reasons.len() <= 1001,
            "{kind}: {}",
            report.reasons.len()
        );
    }
}

#[test]
fn fuzzer_finds_do_not_panic() {
    // Each once panicked (an unclosed `$(` read as a one-variable reference); each is a line
    // scan cannot read through, so it asks.
    let analyzer = Analyzer::default();
    for text in [
        "endef$(eval $(",
        "$(eval $(",
        "$(",
        "X = $(\n$(X)\n",
        "a: $(eval $(\n",
    ] {
        let report = scan::scan_text("f", text, FileKind::Makefile, &|c: &str| {
            analyzer.analyze(c)
        });
        assert_eq!(report.verdict, cmdguard::Verdict::Ask, "{text}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any text, read as any kind: no panic, and every position is inside the file.
    #[test]
    fn scanning_any_text_reports_positions_inside_the_file(
        text in "(RUN |\t|  - run: |\\$\\(|\\$\\{\\{|\"|\\\\\n|<<EOF\n|EOF\n|define |endef|\\$\\(eval |\\$\\(shell |SHELL |ENV |env:|export |include |shell: |\\{0\\}|[a-z ;|&>\n:{}\\[\\],=]){0,40}",
        kind in prop::sample::select(vec![
            FileKind::ShellScript,
            FileKind::Dockerfile,
            FileKind::Workflow,
            FileKind::Makefile,
            FileKind::PackageJson,
        ]),
    ) {
        let analyzer = Analyzer::default();
        let report = scan::scan_text("f", &text, kind, &|c: &str| analyzer.analyze(c));
        let lines = text.split('\n').count();
        let positions = report
            .reasons
            .iter()
            .chain(report.commands.iter().flat_map(|c| c.reasons.iter()))
            .flat_map(|r| [r.start, r.end])
            .chain(report.commands.iter().flat_map(|c| [c.start, c.end]));
        for p in positions {
            prop_assert!(p.line >= 1 && p.line <= lines, "{p:?} in {text:?}");
            let width = text.split('\n').nth(p.line - 1).map_or(0, |l| l.chars().count());
            prop_assert!(p.column >= 1 && p.column <= width + 1, "{p:?} in {text:?}");
        }
        for c in &report.commands {
            prop_assert!(c.start <= c.end, "{c:?}");
            let strictest = cmdguard::Verdict::strictest(c.reasons.iter().map(|r| r.severity));
            prop_assert_eq!(c.verdict, strictest);
        }
    }
}

/// The s6 red team's scan rows, each a file written to a directory of its own and scanned by
/// the binary: (file name, text, verdict, a reason's (line, column, code) it must have).
const RED_TEAM_SCAN_ROWS: &[(&str, &str, &str, Option<Place>)] = &[
    // false-deny: GNU make continues a comment across `\`-newline, so line 2 is comment text.
    (
        "Makefile",
        "X = 1 # \\\nY := $(shell rm -rf v)\nall: ; @true\n",
        "allow",
        None,
    ),
    // …and a comment after text on one line is comment text too.
    (
        "Makefile",
        "X = 1 # $(shell rm -rf v)\nall: ; @true\n",
        "allow",
        None,
    ),
    // deny-missed: a variable holding a literal recipe line, and `$(strip …)` of a literal.
    (
        "Makefile",
        "X = rm -rf v\nall: ; $(X)\n",
        "deny",
        Some((2, 8, "denied")),
    ),
    (
        "Makefile",
        "all: ; $(strip rm -rf v)\n",
        "deny",
        Some((1, 8, "denied")),
    ),
    (
        "Makefile",
        "R = rm\nX = $(R) -rf v\nall:\n\t$(subst q,v,$(X))\n",
        "deny",
        Some((4, 2, "denied")),
    ),
    // scan-allow-runs: keys of package.json whose commands npm tools run.
    (
        "package.json",
        r#"{"scripts": {"x": "echo hi"}, "husky": {"hooks": {"pre-commit": "rm -rf v"}}}"#,
        "deny",
        Some((1, 66, "denied")),
    ),
    (
        "package.json",
        r#"{"scripts": {"x": "echo hi"}, "lint-staged": {"*.js": "rm -rf v"}}"#,
        "deny",
        Some((1, 56, "denied")),
    ),
    (
        "package.json",
        r#"{"scripts": {"x": "echo hi"}, "simple-git-hooks": {"pre-commit": "rm -rf v"}}"#,
        "deny",
        Some((1, 67, "denied")),
    ),
    (
        "package.json",
        r#"{"scripts": {"x": "echo hi"}, "nodemonConfig": {"exec": "rm -rf v"}}"#,
        "deny",
        Some((1, 58, "denied")),
    ),
    (
        "package.json",
        r#"{"scripts": {"x": "echo hi"}, "gypfile": true}"#,
        "ask",
        Some((1, 31, "unmodelled_construct")),
    ),
    (
        "package.json",
        r#"{"scripts": {"x": "echo hi"}, "someTool": {"run": "x"}}"#,
        "ask",
        Some((1, 31, "unmodelled_construct")),
    ),
    // Near misses: common keys whose tools run no command from them stay as they were.
    (
        "package.json",
        r#"{"name": "x", "version": "1.0.0", "private": true, "type": "module", "main": "index.js", "dependencies": {"a": "1"}, "devDependencies": {"b": "2"}, "eslintConfig": {"extends": "x"}, "prettier": {"semi": false}, "jest": {"testEnvironment": "node"}, "browserslist": ["defaults"], "engines": {"node": ">=18"}, "packageManager": "pnpm@9.1.0", "gypfile": false}"#,
        "allow",
        None,
    ),
];

/// Regression (s6 red team, scan rows): each row scanned through the binary, and each
/// Makefile row also run by real GNU make, which must agree about whether `v` is deleted.
#[test]
fn red_team_scan_rows_get_their_verdicts() {
    let base = std::env::temp_dir().join(format!("cmdguard-scan-red-{}", std::process::id()));
    let make = make_available();
    for (n, (name, text, verdict, place)) in RED_TEAM_SCAN_ROWS.iter().enumerate() {
        let dir = base.join(n.to_string());
        std::fs::create_dir_all(dir.join("v")).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
        let o = cmdguard_in(
            dir.to_str().unwrap(),
            &["scan", "--no-config", "--format", "json", name],
            None,
        );
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(report["verdict"], *verdict, "{text}: {report:#}");
        if let Some((line, column, code)) = place {
            let got = reasons(&report);
            assert!(
                got.iter()
                    .any(|(_, l, c, k)| l == line && c == column && k == code),
                "no `{code}` at {line}:{column} in {text}; got {got:#?}"
            );
        }
        if make && *name == "Makefile" {
            Command::new("make")
                .args(["-s", "-f", "Makefile"])
                .current_dir(&dir)
                .env_remove("MAKEFLAGS")
                .env_remove("MFLAGS")
                .output()
                .unwrap();
            assert_eq!(
                !dir.join("v").exists(),
                *verdict == "deny",
                "{text}: make and scan disagree"
            );
        }
    }
    std::fs::remove_dir_all(&base).unwrap();
}
