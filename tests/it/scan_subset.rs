//! The subset `scan` models for each file kind (red team s8): a file inside it is read exactly
//! and, when its commands are allowed, stays clean (the near misses); a construct outside it
//! asks with a reason of its own, whatever the commands are. One table per file kind, each row
//! a whole file, its verdict and the scan codes it must (or must not) carry.

use cmdguard::integrations::scan::{self, FileKind, FileReport};
use cmdguard::{Analyzer, Verdict};

/// A file's scan report, read as `kind` from `path` in a fresh directory holding `beside`
/// (files a package.json is judged with).
pub(crate) fn report(
    path: &str,
    text: &str,
    kind: FileKind,
    beside: &[(&str, &str)],
) -> FileReport {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cmdguard-scan-subset-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body) in beside {
        std::fs::write(dir.join(name), body).unwrap();
    }
    let analyzer = Analyzer::default();
    let analyze = |c: &str| analyzer.analyze(c);
    let full = dir.join(path);
    let r = scan::scan_text(&full.display().to_string(), text, kind, &analyze);
    std::fs::remove_dir_all(&dir).unwrap();
    r
}

/// Every scan or finding code the report holds, file-level and per command.
pub(crate) fn codes(r: &FileReport) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = r
        .reasons
        .iter()
        .chain(r.commands.iter().flat_map(|c| c.reasons.iter()))
        .map(|x| x.code)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Scans each row's file (the text, and the code it must ask with; `None`: it must be
/// allowed, clean) as `kind` at `path`.
fn check<T: AsRef<str>>(kind: FileKind, path: &str, table: &[(T, Option<&str>)]) {
    for (text, want) in table {
        let text = text.as_ref();
        let r = report(path, text, kind, &[]);
        match want {
            None => assert_eq!(
                (r.verdict, codes(&r)),
                (Verdict::Allow, vec![]),
                "a near miss must stay clean:\n{text}"
            ),
            Some(code) => {
                assert!(r.verdict >= Verdict::Ask, "must ask:\n{text}\n{r:#?}");
                assert!(
                    codes(&r).contains(code),
                    "must ask with `{code}`:\n{text}\n{:?}",
                    codes(&r)
                );
            }
        }
    }
}

#[test]
fn shell_scripts_are_read_only_under_plain_shebangs() {
    check(
        FileKind::ShellScript,
        "s.sh",
        &[
            ("#!/bin/sh\nls\n", None),
            ("#!/bin/bash\nls\n", None),
            ("#!/usr/bin/env bash\nls\n", None),
            ("#!/usr/bin/env sh\nls\n", None),
            ("#!/bin/bash -eu\nls\n", None),
            ("ls\n", None),
            // bash quoting under bash is read as bash.
            ("#!/bin/bash\necho $'a\\tb'\n", None),
            ("#!/usr/bin/env -S bash -e\nls\n", Some("unsupported_shell")),
            (
                "#!/usr/bin/env BASH_ENV=x bash\nls\n",
                Some("unsupported_shell"),
            ),
            ("#!./bash\nls\n", Some("unsupported_shell")),
            ("#!/usr/local/bin/bash\nls\n", Some("unsupported_shell")),
            ("#!/bin/bash -e -u\nls\n", Some("unsupported_shell")),
            // sh is dash: `$'…'` is bash quoting dash reads as `$` and a string.
            ("#!/bin/sh\necho $'a'\n", Some("unsupported_shell")),
            ("echo $'a'\n", Some("unsupported_shell")),
        ],
    );
    // With no `#!` line, a `.bash` file is bash's.
    check(FileKind::ShellScript, "init.bash", &[("echo $'a'\n", None)]);
}

#[test]
fn dockerfiles_are_read_only_in_the_modelled_subset() {
    check(
        FileKind::Dockerfile,
        "Dockerfile",
        &[
            // Near misses.
            (
                "# syntax=docker/dockerfile:1\n# escape=\\\nFROM debian AS base\nWORKDIR /app\nCOPY . .\nRUN --mount=type=cache,target=/root/.cache ls \\\n  -la\nFROM base\nRUN <<EOF\nls\nEOF\nCOPY <<EOF /app/x\nRUN rm -rf /\nEOF\nRUN pwd\n",
                None,
            ),
            (
                "FROM rust AS build\nRUN --mount=type=cache,target=/usr/local/cargo/registry --network=none ls\n",
                None,
            ),
            ("FROM x\nRUN echo hi \\\\\n", None),
            ("FROM x\nRUN cat <<<hi\n", None),
            ("FROM x\nCOPY a.txt /srv/a.txt\n", None),
            ("FROM x\nRUN ls  \t\n", None),
            // Directives.
            ("#!/usr/bin/env x\nFROM x\n", Some("unmodelled_construct")),
            ("# check=skip=all\nFROM x\n", Some("unmodelled_construct")),
            (
                "#  syntax = other/frontend\nFROM x\n",
                Some("unmodelled_construct"),
            ),
            (
                "  # syntax=other/frontend\nFROM x\n",
                Some("unmodelled_construct"),
            ),
            // Blanks and heredocs.
            ("FROM x\nRUN ls\u{a0}-la\n", Some("unmodelled_construct")),
            (
                "FROM x\nRUN echo x<<EOF\nEOF\n",
                Some("unmodelled_construct"),
            ),
            ("FROM x\nRUN echo \"<<EOF\"\n", Some("unmodelled_construct")),
            (
                "FROM x\nRUN cat 2<<EOF\nEOF\n",
                Some("unmodelled_construct"),
            ),
            (
                "FROM x\nRUN cat <<E\"O\"F\nEOF\n",
                Some("unmodelled_construct"),
            ),
            // RUN options and where files land.
            (
                "FROM x\nRUN --mount=type=bind,source=a,target=/usr/bin/ls ls\n",
                Some("unmodelled_construct"),
            ),
            (
                "FROM x\nRUN --mount=type=cache,target=/usr ls\n",
                Some("unmodelled_construct"),
            ),
            (
                "FROM x\nRUN --mount=type=secret,id=a,env=BASH_ENV ls\n",
                Some("unmodelled_construct"),
            ),
            (
                "FROM x\nRUN --security=insecure ls\n",
                Some("unmodelled_construct"),
            ),
            (
                "FROM x\nCOPY ls /usr/local/bin/\n",
                Some("unmodelled_construct"),
            ),
            (
                "FROM x\nADD https://x/sh /bin/sh\n",
                Some("unmodelled_construct"),
            ),
            ("FROM x\nCOPY . /\n", Some("unmodelled_construct")),
            ("FROM x\nCOPY a.txt .\n", Some("unmodelled_construct")),
            (
                "FROM x\nWORKDIR /usr\nCOPY ls bin/\n",
                Some("unmodelled_construct"),
            ),
            // The environment and the shell a stage inherits.
            (
                "ARG LD_PRELOAD=/x.so\nFROM x\nARG LD_PRELOAD\nRUN ls\n",
                Some("environment"),
            ),
            (
                "FROM x AS a\nSHELL [\"pwsh\", \"-c\"]\nFROM a\nRUN ls\n",
                Some("unsupported_shell"),
            ),
            ("FROM x\nRUN echo $'a'\n", Some("unsupported_shell")),
        ],
    );
}

#[test]
fn makefiles_are_read_only_in_the_modelled_subset() {
    check(
        FileKind::Makefile,
        "Makefile",
        &[
            // Near misses.
            (
                ".PHONY: all list\nall: list\nlist:\n\tls -la\n\n# a comment\n\tgit status\n",
                None,
            ),
            ("SHELL := /bin/bash\n.PHONY: a\na:\n\techo $$'x'\n", None),
            ("all: prog\n\tls\nprog: ;\n", None),
            // GNU make before 4.4.1 does not apply `-r` to the makefile that sets it.
            (
                "MAKEFLAGS += --no-builtin-rules\nall: prog\n\tls\n",
                Some("unmodelled_construct"),
            ),
            (".PHONY: a\na: ; ls\n", None),
            // A target with a recipe of its own needs no built-in rule.
            ("all:\n\tls\n", None),
            ("X := a \\\n  b\n.PHONY: a\na:\n\tls\n", None),
            // Outside the subset.
            (
                "ifdef X\n.PHONY: a\nendif\n.PHONY: a\na:\n\tls\n",
                Some("unmodelled_construct"),
            ),
            ("define X\nls\nendef\n", Some("unmodelled_construct")),
            (
                ".ONESHELL:\n.PHONY: a\na:\n\tls\n",
                Some("unmodelled_construct"),
            ),
            (".RECIPEPREFIX := >\n", Some("unmodelled_construct")),
            ("all: prog\n\tls\n", Some("unmodelled_construct")),
            (".PHONY: a\na: X != ls\n", Some("unmodelled_construct")),
            (
                ".PHONY: a\na: .SHELLFLAGS = -ec\n",
                Some("unmodelled_construct"),
            ),
            (".PHONY: a\na: \\\n ; ls\n", Some("unmodelled_construct")),
            (
                ".PHONY: a\na:\n\tls\nSHELL = ./x.sh\n",
                Some("unsupported_shell"),
            ),
            // A tab line with no rule before it is a Makefile line: here a `!=` make runs.
            ("\tX != touch v\n", Some("not_allowlisted")),
            (".PHONY: a\na:\n\techo $$'x'\n", Some("unsupported_shell")),
            // `SHELL ?=` sets nothing (make always has a SHELL): the recipe runs under sh.
            (
                "SHELL ?= /bin/bash\n.PHONY: a\na:\n\techo $$'x'\n",
                Some("unsupported_shell"),
            ),
            (
                "SHELL := /bin/bash\nSHELL += -x\n.PHONY: a\na:\n\tls\n",
                Some("unsupported_shell"),
            ),
        ],
    );
}

#[test]
fn workflows_are_read_only_on_known_runners() {
    let job = |head: &str| format!("on: push\njobs:\n  a:\n{head}    steps:\n      - run: ls\n");
    let near = [
        job("    runs-on: ubuntu-latest\n"),
        job("    runs-on: macos-14\n"),
        job("    runs-on: [self-hosted, linux]\n    defaults:\n      run:\n        shell: bash\n"),
    ];
    let outside = [
        (
            job("    runs-on: [self-hosted, linux]\n"),
            "unsupported_shell",
        ),
        (job("    runs-on: my-runner\n"), "unsupported_shell"),
        (
            job("    runs-on: ubuntu-latest\n    container: node:20\n"),
            "unmodelled_construct",
        ),
        (
            job("    runs-on: ubuntu-latest\n    services:\n      db:\n        image: postgres\n"),
            "unmodelled_construct",
        ),
    ];
    let mut table: Vec<(String, Option<&str>)> = near.into_iter().map(|t| (t, None)).collect();
    table.extend(outside.into_iter().map(|(t, c)| (t, Some(c))));
    check(FileKind::Workflow, ".github/workflows/ci.yml", &table);
}

#[test]
fn package_json_beside_files_and_duplicate_keys() {
    let ask_codes = |text: &str, beside: &[(&str, &str)]| {
        let r = report("package.json", text, FileKind::PackageJson, beside);
        (r.verdict, codes(&r))
    };
    // A package with no scripts and nothing beside it is clean; every script asks for npm's
    // PATH (its `sh` is looked up there).
    assert_eq!(
        ask_codes(r#"{"name":"x","version":"1.0.0"}"#, &[]),
        (Verdict::Allow, vec![])
    );
    assert_eq!(
        ask_codes(r#"{"scripts":{"test":"echo ok"}}"#, &[]),
        (Verdict::Ask, vec!["project_path"])
    );
    assert_eq!(
        ask_codes(r#"{"name":"x"}"#, &[("server.js", "require('fs')\n")]),
        (Verdict::Ask, vec!["unmodelled_construct"])
    );
    // With a start script of its own, server.js is not run by default.
    assert_eq!(
        ask_codes(
            r#"{"scripts":{"start":"ls"}}"#,
            &[("server.js", "require('fs')\n")]
        ),
        (Verdict::Ask, vec!["project_path"])
    );
    assert_eq!(
        ask_codes(r#"{"name":"x","name":"y"}"#, &[]),
        (Verdict::Ask, vec!["unmodelled_construct"])
    );
    assert_eq!(
        ask_codes(
            r#"{"name":"x"}"#,
            &[(".npmrc", "registry=https://r/\rscript-shell=./x.sh\n")]
        ),
        (Verdict::Ask, vec!["unmodelled_construct"])
    );
    assert_eq!(
        ask_codes(r#"{"name":"x"}"#, &[(".npmrc", "registry=https://r/\r\n")]),
        (Verdict::Allow, vec![])
    );
}
