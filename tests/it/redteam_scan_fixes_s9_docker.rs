//! Near misses of the fixes for red team session 9's Dockerfile rows (redscan2): files inside
//! the modelled subset that scan still allows, so that a fix that asks for everything fails
//! here. The red team's own tests are in `redteam_scan_fixes_s9.rs`.

use super::redteam_scan_fixes_s9::scan_project;

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
