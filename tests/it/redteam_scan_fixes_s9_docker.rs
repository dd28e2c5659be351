//! Fixes for red team session 9's Dockerfile rows (redscan2, tests/it/redteam_scan_s9.rs):
//! each red-team test copied unchanged, and beside it a near miss that scan still allows, so
//! that a fix that asks for everything fails here too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cmdguard-redscan-s9-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `files` (relative path, bytes) under a fresh directory and returns it.
fn project(name: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let d = dir(name);
    for (path, bytes) in files {
        let p = d.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    d
}

/// `cmdguard scan --no-config ARGS…` run in `cwd` with no config file in reach.
fn scan_in(cwd: &Path, args: &[&str]) -> Output {
    let home = cwd.join(".home");
    Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .current_dir(cwd)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("CLAUDE_CONFIG_DIR", home.join("claude"))
        .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
        .env_remove("CMDGUARD_CONFIG")
        .arg("scan")
        .arg("--no-config")
        .args(args)
        .output()
        .unwrap()
}

/// Scans `path` among `files` and returns the exit code and the text report.
fn scan_project(name: &str, files: &[(&str, &[u8])], path: &str) -> (i32, String) {
    let d = project(name, files);
    let o = scan_in(&d, &[path]);
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), report)
}

/// A near miss: the file runs only what `check` allows, so scan exits 0.
fn assert_allowed(name: &str, path: &str, text: &str) {
    let (code, report) = scan_project(name, &[(path, text.as_bytes())], path);
    assert_eq!(
        code, 0,
        "scan asked about {path}\n{text}\n--- report\n{report}"
    );
}

/// Near misses of the fixes above, each inside the modelled subset and allowed.
#[test]
fn dockerfile_near_misses_stay_allowed() {
    let table: &[(&str, &str)] = &[
        // A global ARG naming a stage that kept sh, and one naming an image.
        (
            "Dockerfile",
            "ARG B=base\nFROM debian AS base\nFROM ${B}\nRUN ls\n",
        ),
        (
            "Dockerfile",
            "ARG IMG=python:3-alpine\nFROM python:3-alpine AS base\nSHELL [\"python3\", \"-c\"]\nFROM \"$IMG\"\nRUN ls\n",
        ),
        // (`ONBUILD WORKDIR` itself asks: scan does not follow what it changes in the child.)
        // An ONBUILD RUN whose stage ends under bash.
        (
            "Dockerfile",
            "FROM python:3-alpine AS base\nSHELL [\"python3\", \"-c\"]\nONBUILD RUN ls\nSHELL [\"/bin/bash\", \"-c\"]\nFROM base\n",
        ),
        // (A copy into a dot directory and a secret mounted at a dotfile ask: the subset
        // judges the destination, not where its content comes from.)
        // A Linux image whose name mentions no Windows marker; a Windows image with SHELL sh.
        (
            "Dockerfile",
            "FROM --platform=linux/amd64 debian:12\nRUN ls\n",
        ),
        (
            "Dockerfile",
            "FROM mcr.microsoft.com/windows/servercore:ltsc2022\nSHELL [\"sh\", \"-c\"]\nRUN ls\n",
        ),
        // Frontends with heredocs.
        (
            "Dockerfile",
            "# syntax=docker/dockerfile:1.4\nFROM alpine\nRUN cat <<CMD\nRUN touch /tmp/x\nCMD\n",
        ),
        (
            "Dockerfile",
            "# syntax=docker/dockerfile:1.3-labs\nFROM alpine\nRUN cat <<CMD\nhello\nCMD\n",
        ),
        // A Dockerfile.* that is not a script, and a script holding only allowed commands.
        ("Dockerfile.dev", "FROM debian\nRUN ls\n"),
        ("Dockerfile.sh", "# build the image\nls\n"),
    ];
    for (n, (path, text)) in table.iter().enumerate() {
        assert_allowed(&format!("df-near-miss-{n}"), path, text);
    }
}
