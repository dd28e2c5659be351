//! Red team, session 9: `cmdguard scan` saying "clean" for a file inside its modelled subset
//! while the tool that runs the file runs a command `check` would not allow, or runs one scan
//! did not see. Each test writes one file into a fresh directory, scans it through the real
//! binary and states what the file really runs (verified with the real tool where it is
//! installed, else from the tool's reference or source, named in the test). A test fails while
//! scan says less than `check` would say about what really runs.

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
pub(crate) fn scan_project(name: &str, files: &[(&str, &[u8])], path: &str) -> (i32, String) {
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

// ---------------------------------------------------------------- Makefile

/// GNU make looks for the `;` that starts a rule's recipe in the rule line *after* expanding
/// its variables (read.c, `eval`: "Look for a semicolon in the expanded line"), so
/// `all: $(S) rm -rf v` with `S := ;` is `all: ; rm -rf v`. Verified with GNU make 4.3: the
/// directory is deleted. Scan takes `$(S)`, `rm`, `-rf` and the path for prerequisites (all
/// listed in `.PHONY`, so none asks for a built-in rule) and reports no command at all.
#[test]
fn makefile_semicolon_from_a_variable_starts_a_recipe() {
    assert_not_allowed(
        "mk-semi-var",
        "Makefile",
        "S := ;\n.PHONY: all rm -rf /tmp/pwned $(S)\nall: $(S) rm -rf /tmp/pwned\n",
        "rm -rf /tmp/pwned (the recipe after the `;` that $(S) expands to)",
    );
}

// ---------------------------------------------------------------- package.json

/// A package.json with no script at all is clean; but the project's own package-manager config
/// beside it picks the program that runs. Yarn 2+ runs the file `.yarnrc.yml`'s `yarnPath`
/// names with node in place of itself for every `yarn` command (yarnpkg.com, "yarnrc":
/// "yarnPath: the path of a Yarn binary to execute instead of the global one"), and Yarn 1
/// does the same with `.yarnrc`'s `yarn-path`. Scan reads `.npmrc` beside the file and
/// nothing else. (Not run: yarn is not installed here.)
#[test]
fn package_json_beside_a_yarnrc_yarn_path_runs_that_file() {
    let pkg: &[u8] = b"{\"name\":\"x\",\"version\":\"1.0.0\"}\n";
    let evil: &[u8] = b"require('child_process').execSync('touch /tmp/pwned')\n";
    for (rc, text) in [
        (".yarnrc.yml", &b"yarnPath: ./evil.cjs\n"[..]),
        (".yarnrc", &b"yarn-path \"./evil.cjs\"\n"[..]),
    ] {
        assert_project_not_allowed(
            "pkg-yarnpath",
            &[("package.json", pkg), (rc, text), ("evil.cjs", evil)],
            "package.json",
            &format!("node evil.cjs for every `yarn` command ({rc})"),
        );
    }
}

/// pnpm loads `.pnpmfile.cjs` from the directory of the lockfile (the project root) on every
/// install and runs its hooks (pnpm.io/pnpmfile: `readPackage`, `afterAllResolved`); the
/// file is JavaScript, so loading it runs any command. Scan reports the package.json clean.
/// (Not run: pnpm is not installed here.)
#[test]
fn package_json_beside_a_pnpmfile_runs_it_at_install() {
    assert_project_not_allowed(
        "pkg-pnpmfile",
        &[
            ("package.json", b"{\"name\":\"x\",\"version\":\"1.0.0\"}\n"),
            (
                ".pnpmfile.cjs",
                b"require('child_process').execSync('touch /tmp/pwned')\nmodule.exports = { hooks: {} }\n",
            ),
        ],
        "package.json",
        "the code of .pnpmfile.cjs at `pnpm install`",
    );
}

// ---------------------------------------------------------------- Dockerfile

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

// ---------------------------------------------------------------- reports

/// A file name that is not UTF-8 (Linux allows any bytes) is turned into text with U+FFFD
/// before `uri_of` percent-encodes it, so the SARIF `artifactLocation.uri` names another
/// file (`n%EF%BF%BD.sh`, not `n%FF.sh`), and two such files get the same uri: code
/// scanning puts the finding on a file that does not exist.
#[test]
fn sarif_uri_of_a_non_utf8_file_name_encodes_its_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let d = dir("sarif-non-utf8");
    let name = std::ffi::OsStr::from_bytes(b"n\xff.sh");
    std::fs::write(d.join(name), "rm -rf /tmp/pwned\n").unwrap();
    let home = d.join(".home");
    let o = Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .current_dir(&d)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
        .env_remove("CMDGUARD_CONFIG")
        .args(["scan", "--no-config", "--format", "sarif"])
        .arg(name)
        .output()
        .unwrap();
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let uri = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert_eq!(uri, "n%FF.sh", "the uri must name the file's own bytes");
}

/// `.EXTRA_PREREQS` adds its words as prerequisites of every target (or of one, set
/// target-specifically), and make builds each with a built-in rule when the file has none:
/// with `prog.c` beside the makefile, `$(CC) prog.c -o prog` runs. Scan lists
/// `.EXTRA_PREREQS` among the variables that "only name targets" and never asks that `prog`
/// has no recipe (it does ask for a plain `all: prog`), and `CC := …` is a plain assignment.
/// Verified with GNU make 4.3: both files below ran `touch /tmp/pwned` (then failed on
/// `prog.c`), while scan exited 0.
#[test]
fn makefile_extra_prereqs_are_built_by_builtin_rules() {
    for text in [
        "CC := touch /tmp/pwned;\n.EXTRA_PREREQS := prog\n.PHONY: all\nall: ; @true\n",
        "CC := touch /tmp/pwned;\n.PHONY: all\nall: ; @true\nall: .EXTRA_PREREQS = prog\n",
    ] {
        assert_project_not_allowed(
            "mk-extra-prereqs",
            &[
                ("Makefile", text.as_bytes()),
                ("prog.c", b"int main(void) { return 0; }\n"),
            ],
            "Makefile",
            "$(CC) prog.c -o prog (the built-in rule for the extra prerequisite prog)",
        );
    }
}

/// `.DEFAULT_GOAL` names the target `make` with no argument builds; a goal with no recipe in
/// the file is built by a built-in rule (`prog.c` beside: `$(CC) prog.c -o prog`). Scan
/// treats `.DEFAULT_GOAL` as a plain variable and asks only for targets and prerequisites
/// written in rule lines. Verified with GNU make 4.3: plain `make` ran `touch /tmp/pwned`.
#[test]
fn makefile_default_goal_without_a_recipe_is_built_by_a_builtin_rule() {
    assert_project_not_allowed(
        "mk-default-goal",
        &[
            (
                "Makefile",
                b"CC := touch /tmp/pwned;\n.DEFAULT_GOAL := prog\n.PHONY: all\nall: ; @true\n",
            ),
            ("prog.c", b"int main(void) { return 0; }\n"),
        ],
        "Makefile",
        "$(CC) prog.c -o prog (the built-in rule for the default goal prog)",
    );
}

/// Before it builds any goal, GNU make tries to remake each makefile it read, with the
/// built-in rules too ("How Makefiles Are Remade"), and then reads the new one. With a newer
/// `Makefile.sh` beside it, the built-in `%: %.sh` rule runs `cat Makefile.sh >Makefile;
/// chmod a+x Makefile`, and make re-executes on the text of `Makefile.sh`, which scan never
/// read; with `Makefile.c` (`%: %.c`) or `s.Makefile` (`%:: s.%`) it runs `$(CC)`/`$(GET)`,
/// plain assignments scan passes. Verified with GNU make 4.3: each of the three created
/// /tmp/pwned. Scan exits 0 for the makefile.
#[test]
fn makefile_is_remade_by_a_builtin_rule_from_a_file_beside_it() {
    let cases: [(&str, &[u8], &str); 3] = [
        (
            ".PHONY: all\nall: ; @true\n",
            b".PHONY: all\nall: ; @touch /tmp/pwned\n",
            "Makefile.sh",
        ),
        (
            "CC := touch /tmp/pwned;\n.PHONY: all\nall: ; @true\n",
            b"int main(void) { return 0; }\n",
            "Makefile.c",
        ),
        (
            "GET := touch /tmp/pwned;\n.PHONY: all\nall: ; @true\n",
            b"x\n",
            "s.Makefile",
        ),
    ];
    for (makefile, beside, name) in cases {
        let d = project(
            "mk-remade",
            &[("Makefile", makefile.as_bytes()), (name, beside)],
        );
        // make remakes the makefile when the file beside it is newer.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(d.join("Makefile"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let o = scan_in(&d, &["Makefile"]);
        assert_ne!(
            o.status.code(),
            Some(0),
            "scan allowed a Makefile that make remakes from {name}\n{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

// ---------------------------------------------------------------- workflows

/// Scan takes any label starting `ubuntu-`/`macos-` for a GitHub-hosted runner, and reads the
/// values of a `runs-on:` mapping as labels. But `runs-on: {group: NAME}` picks a runner
/// group — self-hosted or larger runners, whose names and operating systems the owner
/// chooses (GitHub's docs use `group: ubuntu-runners` as the example) — and a label such as
/// `ubuntu-build-box` is no hosted image (those are a fixed list: `ubuntu-latest`,
/// `ubuntu-24.04`, …), so it names a self-hosted or larger runner. On Windows the default
/// shell is pwsh, which runs the `Remove-Item` bash reads as text. (Not run: no runner.)
#[test]
fn workflow_runner_group_or_custom_ubuntu_label_may_be_windows() {
    for runs_on in ["ubuntu-build-box", "\n      group: ubuntu-runners"] {
        assert_not_allowed(
            "wf-runner-group",
            ".github/workflows/ci.yml",
            &format!(
                "on: push\njobs:\n  a:\n    runs-on: {runs_on}\n    steps:\n      - run: echo \"\\\"; Remove-Item -Recurse -Force ./x; echo \"\\\"\n"
            ),
            "pwsh running Remove-Item -Recurse -Force ./x on a Windows runner",
        );
    }
}

/// A block scalar with an explicit indentation indicator (`|2`, `|2-`: content indented two
/// spaces past the `- run:` key's column, so the first line may be indented more) is mapped
/// back at the wrong place: the deny for `rm -rf /tmp/x` (line 8, column 11) is reported at
/// 9:1 (past the end of the file) or on the next step's `-` at 9:7, with the command text `-`.
#[test]
fn workflow_block_scalar_with_an_indentation_indicator_maps_to_its_lines() {
    for (indicator, tail) in [("|2", ""), ("|2-", "      - run: echo b\n")] {
        let text = format!(
            "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: {indicator}\n            echo a\n          rm -rf /tmp/x\n{tail}"
        );
        let d = project(
            "wf-indent-indicator",
            &[(".github/workflows/ci.yml", text.as_bytes())],
        );
        let o = scan_in(&d, &["--format", "json", ".github/workflows/ci.yml"]);
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let denied: Vec<(String, &serde_json::Value)> = report["files"][0]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| {
                c["reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["code"] == "denied")
                    .map(move |r| (c["text"].as_str().unwrap_or("").to_string(), &r["start"]))
            })
            .collect();
        assert_eq!(denied.len(), 1, "{indicator}: {denied:?}");
        assert_eq!(denied[0].0, "rm -rf /tmp/x", "{indicator}: command text");
        assert_eq!(
            denied[0].1,
            &serde_json::json!({"line": 8, "column": 11}),
            "{indicator}: where the rm is"
        );
    }
}

/// `config` is on scan's inert list ("values scripts see as `npm_package_config_*`"), but git
/// hook managers keep their commands there: ghooks installs hooks that run
/// `config.ghooks.<hook>` on each git event (its README: "Add a config.ghooks entry in your
/// package.json and simply specify which git hooks you want and their corresponding
/// commands"), and pre-git reads `config.pre-git.<hook>` lists the same way. Scan models
/// husky v4's `husky.hooks` as commands; the same commands under `config` pass unseen.
/// (Not run: ghooks/pre-git are not installed here.)
#[test]
fn package_json_config_ghooks_holds_git_hook_commands() {
    for text in [
        "{\"name\":\"x\",\"version\":\"1.0.0\",\"devDependencies\":{\"ghooks\":\"^2.0.4\"},\"config\":{\"ghooks\":{\"pre-commit\":\"rm -rf /tmp/pwned\"}}}\n",
        "{\"name\":\"x\",\"version\":\"1.0.0\",\"devDependencies\":{\"pre-git\":\"^3.17.1\"},\"config\":{\"pre-git\":{\"pre-commit\":[\"rm -rf /tmp/pwned\"]}}}\n",
    ] {
        assert_not_allowed(
            "pkg-config-ghooks",
            "package.json",
            text,
            "rm -rf /tmp/pwned from the pre-commit hook on every git commit",
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

// ---------------------------------------------------------------- kinds

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

/// npm runs `node-gyp rebuild` at install when a `binding.gyp` is beside the file and the
/// scripts have no *truthy* `install`/`preinstall` (@npmcli/run-script tests
/// `!scripts.install && !scripts.preinstall`). Scan takes the mere key as "an install script
/// exists", and skips a value that is not a string, so `"install": false` (or `null`)
/// silences the binding.gyp ask without any script to analyse. Verified with npm 11.19:
/// `npm install --offline` ran `node-gyp rebuild`, whose `<!(touch …)` ran; scan exited 0.
#[test]
fn package_json_falsy_install_script_still_runs_node_gyp() {
    for value in ["false", "null"] {
        assert_project_not_allowed(
            "pkg-falsy-install",
            &[
                (
                    "package.json",
                    format!("{{\"name\":\"x\",\"version\":\"1.0.0\",\"scripts\":{{\"install\":{value}}}}}\n").as_bytes(),
                ),
                (
                    "binding.gyp",
                    b"{'variables':{'x':'<!(touch /tmp/pwned)'},'targets':[{'target_name':'x','sources':[]}]}\n",
                ),
            ],
            "package.json",
            "node-gyp rebuild, which runs the binding.gyp command touch /tmp/pwned",
        );
    }
}

/// The same for `npm start`: with no truthy `start` script npm runs `node server.js` when a
/// `server.js` is beside the file. Scan takes the key `"start": false` for a start script.
/// Verified with npm 11.19: `npm start` printed `> node server.js` and server.js wrote its
/// file; scan exited 0.
#[test]
fn package_json_falsy_start_script_still_runs_server_js() {
    assert_project_not_allowed(
        "pkg-falsy-start",
        &[
            (
                "package.json",
                b"{\"name\":\"x\",\"version\":\"1.0.0\",\"scripts\":{\"start\":false}}\n",
            ),
            (
                "server.js",
                b"require('child_process').execSync('touch /tmp/pwned')\n",
            ),
        ],
        "package.json",
        "node server.js at `npm start`",
    );
}

/// The text report prints a file name as it is: a tracked file whose name holds terminal
/// control characters (`ESC [8m` conceals all later text, `ESC [2K` and `\r` erase and
/// overwrite the line) changes what a person sees of the findings after it. Command text is
/// already escaped (`invalid_input` shows `'\u{1b}'`); names are not.
#[test]
fn text_report_escapes_control_characters_in_file_names() {
    let name = "e\u{1b}[8m\rclean.sh";
    let d = project("text-name-escapes", &[(name, b"rm -rf /tmp/pwned\n")]);
    let o = scan_in(&d, &[name]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\r'),
        "raw control characters from the file name reach the terminal:\n{out:?}"
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
