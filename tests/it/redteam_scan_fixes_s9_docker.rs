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

/// The file really runs a command `check` does not allow: scan must not exit 0.
fn assert_not_allowed(name: &str, path: &str, text: &str, what_runs: &str) {
    assert_project_not_allowed(name, &[(path, text.as_bytes())], path, what_runs);
}

/// As [`assert_not_allowed`], with other files beside the scanned one.
fn assert_project_not_allowed(name: &str, files: &[(&str, &[u8])], path: &str, what_runs: &str) {
    let (code, report) = scan_project(name, files, path);
    assert_ne!(
        code, 0,
        "scan allowed {path} although it runs {what_runs}\n--- report\n{report}"
    );
}

/// `FROM` expands the global `ARG`s declared before the first `FROM` (Dockerfile reference,
/// "Understand how ARG and FROM interact"), and BuildKit matches the expanded name against the
/// earlier stages (dockerfile2llb expands `BaseName` with the meta args before looking the
/// stage up; `ARG TARGET=dev` + `FROM ${TARGET}` is a common pattern). So `FROM $B` with
/// `ARG B=base` is built from stage `base` and keeps its `SHELL ["python3", "-c"]`. Scan only
/// matches the literal text, resets the shell to sh and allows the body, which python3 runs
/// (checked: `python3 -c` of this body creates the file, `sh -c` of it does not).
#[test]
fn dockerfile_stage_named_through_a_global_arg_keeps_its_shell() {
    for from in ["FROM $B", "FROM ${B}", "FROM \"base\""] {
        assert_not_allowed(
            "df-from-arg-stage",
            "Dockerfile",
            &format!(
                "ARG B=base\nFROM python:3-alpine AS base\nSHELL [\"python3\", \"-c\"]\n{from}\nRUN <<EOF\necho='\\''\n__import__(\"os\").system(\"touch /tmp/pwned\")\n#'\nEOF\n"
            ),
            "python3 running os.system(\"touch /tmp/pwned\")",
        );
    }
}

/// `ONBUILD COPY`/`ONBUILD ADD` run in every stage and image built `FROM` this one (here the
/// next stage of the same file: BuildKit runs a base stage's `OnBuild` triggers when a stage
/// is built from it). A plain `COPY evil /usr/bin/ls` asks (s8); under `ONBUILD` the same
/// copy passes, and the next stage's `RUN ls` runs the copied file. (Not run: no docker.)
#[test]
fn dockerfile_onbuild_copy_over_a_program_changes_what_run_runs() {
    for op in ["COPY", "ADD"] {
        assert_not_allowed(
            "df-onbuild-copy",
            "Dockerfile",
            &format!("FROM debian AS base\nONBUILD {op} evil /usr/bin/ls\nFROM base\nRUN ls\n"),
            "the copied `evil` as `ls` in the stage built FROM base",
        );
    }
}

/// `ONBUILD RUN` runs in the stage (or image) built `FROM` this one, under the shell of this
/// stage's *final* image config — a `SHELL` written after the `ONBUILD` line included (it
/// sets `Config.Shell` of the image whose `OnBuild` triggers the child runs). Scan analyses
/// the trigger with the shell in effect where the `ONBUILD` line stands (sh: one assignment,
/// allowed) and the later `SHELL ["python3", "-c"]` governs no RUN of its own stage, so
/// nothing asks. Checked: `python3 -c` of the trigger text creates the file, `sh -c` does
/// not. (Not run: no docker.)
#[test]
fn dockerfile_onbuild_run_uses_the_stages_final_shell() {
    assert_not_allowed(
        "df-onbuild-final-shell",
        "Dockerfile",
        "FROM python:3-alpine AS base\nONBUILD RUN echo='\\'' ; __import__(\"os\").system(\"touch /tmp/pwned\") #'\nSHELL [\"python3\", \"-c\"]\nFROM base\n",
        "python3 running os.system(\"touch /tmp/pwned\") as the ONBUILD trigger in the stage FROM base",
    );
}

/// An `ONBUILD WORKDIR` trigger changes the working directory of the stage built `FROM` this
/// one before any of its own instructions. Scan gives the child the base stage's plain
/// `WORKDIR /tmp`, so its relative `COPY evil ls` lands, to scan, in `/tmp`; after the
/// trigger it lands in `/usr/bin` and `RUN ls` runs it. (Not run: no docker.)
#[test]
fn dockerfile_onbuild_workdir_moves_a_relative_copy_into_a_program_directory() {
    assert_not_allowed(
        "df-onbuild-workdir",
        "Dockerfile",
        "FROM debian AS base\nWORKDIR /tmp\nONBUILD WORKDIR /usr/bin\nFROM base\nCOPY evil ls\nRUN ls\n",
        "the copied `evil` as /usr/bin/ls",
    );
}

/// A `COPY` to a destination outside the program directories is inside scan's subset, but a
/// configuration file an allowed program reads can name a command: git runs
/// `core.fsmonitor` from `$HOME/.gitconfig` on `git status` in any repository (checked with
/// git 2.47: `HOME=… git status` in a fresh repository ran the fsmonitor command), and
/// `COPY . /src` brings the checkout's `.git`. `check` allows `git status`; scan allows the
/// file. (Not run: no docker; the git part is verified locally.)
#[test]
fn dockerfile_copy_of_a_git_config_makes_git_status_run_a_command() {
    for text in [
        "FROM debian\nCOPY <<EOF /root/.gitconfig\n[core]\n\tfsmonitor = \"touch /tmp/pwned; false\"\nEOF\nCOPY . /src\nWORKDIR /src\nRUN git status\n",
        // The same file bind-mounted for one RUN (`gitconfig` in the build context).
        "FROM debian\nCOPY . /src\nWORKDIR /src\nRUN --mount=type=bind,source=gitconfig,target=/root/.gitconfig git status\n",
    ] {
        assert_not_allowed(
            "df-gitconfig",
            "Dockerfile",
            text,
            "touch /tmp/pwned (core.fsmonitor, run by git status)",
        );
    }
}

/// On a Windows base image Docker's default shell is `cmd /S /C`, not `/bin/sh -c`
/// (Dockerfile reference, SHELL: "The default shell on Windows is `["cmd", "/S", "/C"]`").
/// cmd has no `\` escape: `"\"` is a whole quoted string and the `&` after it separates
/// commands, so the RUN below runs `del /s /q C:\x`; sh reads one quoted string for `echo`
/// (checked: `sh -c` of it prints the text). Scan reads every stage as sh and allows it.
/// (Not run: no Windows docker.)
#[test]
fn dockerfile_windows_base_image_runs_run_under_cmd() {
    for from in [
        "FROM mcr.microsoft.com/windows/servercore:ltsc2022",
        "FROM --platform=windows/amd64 mcr.microsoft.com/windows/nanoserver:ltsc2022",
    ] {
        assert_not_allowed(
            "df-windows-cmd",
            "Dockerfile",
            &format!("{from}\nRUN echo \"\\\" & del /s /q C:\\x & echo \\\"\"\n"),
            "cmd running del /s /q C:\\x",
        );
    }
}

/// Heredocs came with the Dockerfile frontend 1.3-labs/1.4; `# syntax=docker/dockerfile:1.2`
/// (Docker's own frontend, which scan accepts) does not know them, and neither does the legacy
/// builder. There `RUN cat <<CMD` is a shell heredoc with no body, the next line is an
/// instruction of its own (`RUN touch /tmp/pwned` runs), and the terminator `CMD` is a valid
/// empty `CMD` (BuildKit's `parseCmd` takes no argument count). Scan reads the lines as the
/// body of `cat` and allows the file. (Not run: no docker; from BuildKit's parser source.)
#[test]
fn dockerfile_heredoc_under_a_frontend_without_heredocs_is_instructions() {
    assert_not_allowed(
        "df-old-frontend-heredoc",
        "Dockerfile",
        "# syntax=docker/dockerfile:1.2\nFROM alpine\nRUN cat <<CMD\nRUN touch /tmp/pwned\nCMD\n",
        "RUN touch /tmp/pwned as an instruction of its own",
    );
}

/// `FileKind::detect` takes any `Dockerfile.*` for a Dockerfile before it looks at a `.sh`
/// suffix, so a helper script named `Dockerfile.sh` (run as `sh Dockerfile.sh`, which the
/// `*.sh` pattern of the documented pre-commit hook also selects) is read as Dockerfile
/// instructions: `cmd ;rm -rf …` is a `CMD` (not analysed: it runs in a container), while sh
/// runs `cmd` (not found) and then the `rm -rf`. Verified: `sh Dockerfile.sh` deleted the
/// directory and scan exited 0; the same text as `x.sh` is denied.
#[test]
fn script_named_like_a_dockerfile_is_read_as_instructions() {
    for name in ["Dockerfile.sh", "dockerfile.bash"] {
        assert_not_allowed(
            "kind-dockerfile-sh",
            name,
            "# build the image\ncmd ;rm -rf /tmp/pwned\n",
            "rm -rf /tmp/pwned when the script runs",
        );
    }
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
