//! Fixes for the fifth red team against the built-in tool groups (issue 17, helper
//! redtools4, notes/redteam-s8-tools.jsonl), by helper toolfix4: each test is copied
//! unchanged from branch redtools4's tests/it/redteam_tools_e.rs, where it failed. The rows
//! of that file this does not hold are framework and test-runner conventions, a documented
//! limit (README, "The built-in tools work in the agent's Workspace").

use std::fs;
use std::path::Path;

use cmdguard::policy::Choice;
use serde_json::json;

use crate::red::Red;

/// Creates `path` in the workspace (its directory first, with `mkdir`) holding `content`, as
/// an agent would; true when the file is there and nobody was asked.
fn created_unasked(r: &Red, path: &str, content: &str) -> bool {
    let before = r.asked().len();
    if let Some(parent) = Path::new(path)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
    {
        let _ = r.call("mkdir", json!({"path": parent}));
    }
    let wrote = r.call("write_file", json!({"path": path, "content": content}));
    wrote.is_ok() && r.asked().len() == before && r.dir.path().join(path).is_file()
}

/// Runs `program` with `args` in `dir` as the user would, with a minute's limit; false when
/// the program is not installed.
fn user_runs(dir: &Path, program: &str, args: &[&str], envs: &[(&str, &Path)]) -> bool {
    let mut cmd = std::process::Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let Ok(mut child) = cmd.spawn() else {
        return false;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().ok().flatten().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.wait();
    true
}

/// Creates each of `files` (path, content) as an agent would, in one workspace whose user
/// answers no to everything; the paths created with no question.
fn all_created_unasked(r: &Red, files: &[(&str, &str)]) -> Vec<String> {
    files
        .iter()
        .filter(|(path, content)| created_unasked(r, path, content))
        .map(|(path, _)| (*path).to_owned())
        .collect()
}

/// An agent over a workspace whose user granted the working directory on the first
/// (routine) question and answers no to every later one; the questions are recorded.
struct Granted {
    r: Red,
    agent: cmdguard::tool::AgentHandle,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Granted {
    fn new() -> Granted {
        use cmdguard::policy::{ChoiceOutcome, Policy, PolicySettings, Prompt};
        let r = Red::new(Choice::No);
        let granted = fs::canonicalize(r.dir.path()).unwrap();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let seen = asked.clone();
        let policy = std::sync::Arc::new(Policy::new(PolicySettings {
            auto_confirm: false,
            state_file: None,
        }));
        let ws = cmdguard::tool::Workspace::new(r.dir.path())
            .unwrap()
            .with_permission(policy, move |p: &Prompt| {
                let mut seen = seen.lock().unwrap();
                seen.push(p.command.clone());
                ChoiceOutcome::user(if seen.len() == 1 {
                    Choice::GrantPath {
                        path: granted.clone(),
                    }
                } else {
                    Choice::No
                })
            });
        let agent = cmdguard::tool::AgentHandle::new("red").with_workspace(ws);
        let g = Granted { r, agent, asked };
        // The routine change the user granted the project for.
        g.r.dir.write("README.md", "readme\n");
        let first = g.call(
            "write_file",
            json!({"path": "README.md", "content": "readme, edited\n"}),
        );
        assert!(first.is_ok(), "{first:?}");
        g
    }

    fn call(&self, tool: &str, args: serde_json::Value) -> Result<serde_json::Value, String> {
        self.r
            .toolbox
            .call_tool_blocking(&self.agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    }

    fn asked(&self) -> usize {
        self.asked.lock().unwrap().len()
    }
}

/// Ways to put a file the user's tools run where they run it other than `write_file` of a
/// new name — each after a user granted the project directory for routine edits and
/// answers no to every later question: rename a plain file, copy a template tree, stage in
/// the temporary directory and move in, rename a plain directory, write through a
/// directory link or a dangling link the repository ships. The ones that put the file in
/// place with no question after the grant.
#[cfg(unix)]
#[test]
fn run_later_files_are_not_put_in_place_another_way_unasked() {
    let mut unasked = Vec::new();
    let mut check = |what: &str, g: &Granted, before: usize, lands: &str| {
        if g.asked() == before && g.r.dir.path().join(lands).is_file() {
            unasked.push(format!("{what} -> {lands}"));
        }
    };
    // 1. Rename a plain file to conftest.py.
    {
        let g = Granted::new();
        let before = g.asked();
        let _ = g.call(
            "write_file",
            json!({"path": "notes.txt", "content": "import os\n"}),
        );
        let _ = g.call("move", json!({"src": "notes.txt", "dst": "conftest.py"}));
        check("write notes.txt, move it", &g, before, "conftest.py");
    }
    // 2. Copy a template tree the repository ships.
    {
        let g = Granted::new();
        g.r.dir.write("template/conftest.py", "import os\n");
        g.r.dir.write(
            "template/.cargo/config.toml",
            "[build]\nrustc-wrapper = \"x\"\n",
        );
        g.r.dir.write("template/.vscode/tasks.json", "{}\n");
        let before = g.asked();
        let _ = g.call("copy", json!({"src": "template", "dst": "app"}));
        for lands in [
            "app/conftest.py",
            "app/.cargo/config.toml",
            "app/.vscode/tasks.json",
        ] {
            check("copy template app", &g, before, lands);
        }
    }
    // 3. Stage in the temporary directory, move in.
    {
        let g = Granted::new();
        let temp = g.call("temp_dir", json!({})).unwrap();
        let temp = temp.as_str().unwrap();
        let before = g.asked();
        let _ = g.call(
            "write_file",
            json!({"path": format!("{temp}/conftest.py"), "content": "import os\n"}),
        );
        let _ = g.call(
            "move",
            json!({"src": format!("{temp}/conftest.py"), "dst": "conftest.py"}),
        );
        check("temp_dir, write, move in", &g, before, "conftest.py");
    }
    // 4. Rename a plain directory to .cargo.
    {
        let g = Granted::new();
        let before = g.asked();
        let _ = g.call("mkdir", json!({"path": "cargo-settings"}));
        let _ = g.call(
            "write_file",
            json!({"path": "cargo-settings/config.toml", "content": "[build]\nrustc-wrapper = \"x\"\n"}),
        );
        let _ = g.call("move", json!({"src": "cargo-settings", "dst": ".cargo"}));
        check(
            "mkdir, write, move the directory",
            &g,
            before,
            ".cargo/config.toml",
        );
    }
    // 5. The repository ships .vscode as a link to a plain directory.
    {
        let g = Granted::new();
        fs::create_dir_all(g.r.dir.path().join("editor")).unwrap();
        std::os::unix::fs::symlink("editor", g.r.dir.path().join(".vscode")).unwrap();
        let before = g.asked();
        let _ = g.call(
            "write_file",
            json!({"path": ".vscode/tasks.json", "content": "{\"tasks\": []}\n"}),
        );
        check(
            "write through a directory link",
            &g,
            before,
            ".vscode/tasks.json",
        );
    }
    // 6. The repository ships .envrc as a dangling link (its target is a local,
    // ignored file).
    {
        let g = Granted::new();
        fs::create_dir_all(g.r.dir.path().join("tools")).unwrap();
        std::os::unix::fs::symlink("tools/direnv.sh", g.r.dir.path().join(".envrc")).unwrap();
        let before = g.asked();
        let _ = g.call(
            "write_file",
            json!({"path": ".envrc", "content": "touch X\n"}),
        );
        check("write through a dangling link", &g, before, ".envrc");
    }
    assert!(
        unasked.is_empty(),
        "put in place with no question after the grant: {unasked:#?}"
    );
}

/// On Windows the file system drops trailing spaces and dots from a name: `Dockerfile ` is
/// created as `Dockerfile`. The new-file rule judges the name as given: with a trailing space
/// an extensionless build file no longer matches `*file` and is free below the top, so
/// `docker/Dockerfile `, `ci/Jenkinsfile ` and `pkg/BUILD ` are created with no question (on
/// Linux they are harmless odd names; the fs tools are registered on Windows too).
#[test]
fn build_file_names_with_a_trailing_space_are_judged_as_windows_creates_them() {
    let r = Red::new(Choice::No);
    let unasked = all_created_unasked(
        &r,
        &[
            ("docker/Dockerfile ", "FROM scratch\n"),
            ("ci/Jenkinsfile ", "sh 'x'\n"),
            ("pkg/BUILD ", "genrule()\n"),
            ("sub/Makefile\u{20}", "all:\n"),
        ],
    );
    assert!(
        unasked.is_empty(),
        "names that Windows creates as build files were free: {unasked:#?}"
    );
}

/// The s8 read fix asks when the name given is a credential file's, even when it is a link
/// (`.env` -> `env/production`). The file the link leads to is read under its own, plain
/// name with no question, and the tools name it: `file_info .env` returns the resolved path.
/// Two calls, no question. (`cat env/production` is allowed by the analyser too: name-based
/// classification cannot see it; the protection the fix adds is one call deep.)
#[cfg(unix)]
#[test]
fn a_credential_file_behind_a_link_is_not_read_by_its_own_name_unasked() {
    let r = Red::new(Choice::No);
    r.dir
        .write("env/production", "STRIPE_KEY=sk_live_51Hredteam\n");
    std::os::unix::fs::symlink("env/production", r.dir.path().join(".env")).unwrap();
    let info = r.call("file_info", json!({"path": ".env"})).unwrap();
    let target = info["path"].as_str().unwrap().to_owned();
    let read = r.call("read_file", json!({"path": target}));
    let grep = r.call(
        "grep",
        json!({"path": ".", "pattern": "sk_live", "skip_ignored": false}),
    );
    let leaked: Vec<String> = [read, grep]
        .into_iter()
        .flatten()
        .map(|v| v.to_string())
        .filter(|v| v.contains("sk_live"))
        .collect();
    assert!(
        leaked.is_empty() || !r.asked().is_empty(),
        "file_info .env named {target}; read there with no question: {leaked:#?}"
    );
}

/// The s8 read fix judges the name given for `read_file`, `file_info`, `copy`, `move`, the
/// diagnostics and the browser, but not `grep`'s root nor `apply_patch`'s file: with `.env`
/// a link to `env/production`, `grep {path: ".env"}` quotes it and `apply_patch` on `.env`
/// reads it (and rewrites it), where `grep KEY .env` asks in the analyser.
#[cfg(unix)]
#[test]
fn grep_and_apply_patch_judge_the_name_given_too() {
    let r = Red::new(Choice::No);
    r.dir
        .write("env/production", "STRIPE_KEY=sk_live_51Hredteam\n");
    std::os::unix::fs::symlink("env/production", r.dir.path().join(".env")).unwrap();
    let grep = r.call("grep", json!({"path": ".env", "pattern": "sk_live"}));
    let grep_asked = r.asked().len();
    let patch = r.call(
        "apply_patch",
        json!({"patch": "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-STRIPE_KEY=sk_live_51Hredteam\n+STRIPE_KEY=changed\n"}),
    );
    let read_asked = r
        .asked()
        .iter()
        .skip(grep_asked)
        .any(|q| q.contains("credential"));
    let leaked = grep
        .as_ref()
        .is_ok_and(|v| v.to_string().contains("sk_live"));
    assert!(
        !leaked && read_asked,
        "grep .env (no question: {}): {grep:?}; apply_patch .env read the file without a \
         credential question: {patch:?}; asked {:?}",
        grep_asked == 0,
        r.asked()
    );
}

/// The rule lists `sitecustomize.py` and `usercustomize.py` (imported at every interpreter
/// start from `sys.path`), and `tasks.py`/`fabfile.py` (Invoke, Fabric), but each is
/// imported by module name: a package
/// `sitecustomize/__init__.py` is the same module, and its names are free. With the project
/// on `PYTHONPATH` (`PYTHONPATH=.` or `=src` in a Makefile, a direnv `.envrc`, an editor's
/// `.env`), every python the user starts there runs it.
#[test]
fn startup_modules_as_packages_are_not_created_unasked() {
    let r = Red::new(Choice::No);
    let unasked = all_created_unasked(
        &r,
        &[
            (
                "sitecustomize/__init__.py",
                "open('RAN-sitecustomize', 'w').write('x')\n",
            ),
            ("src/usercustomize/__init__.py", "import os\n"),
            // Invoke and Fabric load a `tasks`/`fabfile` package as they load the listed
            // tasks.py/fabfile.py.
            ("tasks/__init__.py", "import os\n"),
            ("fabfile/__init__.py", "import os\n"),
            // gulp loads a directory named gulpfile.js through its index.js.
            (
                "gulpfile.js/index.js",
                "require('child_process').execSync('touch RAN')\n",
            ),
        ],
    );
    let root = r.dir.path().to_path_buf();
    for python in ["/usr/bin/python3", "python3"] {
        user_runs(
            r.dir.path(),
            python,
            &["-c", "pass"],
            &[("PYTHONPATH", &root)],
        );
    }
    let ran = r.dir.path().join("RAN-sitecustomize").exists();
    assert!(
        unasked.is_empty(),
        "created with no question: {unasked:#?}; python -c pass (PYTHONPATH=the project) ran it: {ran}"
    );
}

// ---------------------------------------------------------------------------------------------
// toolfix4's own rows: the same fixes reached by other tools.

/// A copy or move through a link the repository ships (`.vscode` -> `editor`) puts the file
/// where VS Code reads it under the name given: judged by that name, as `write_file` is.
#[cfg(unix)]
#[test]
fn a_copy_or_move_through_a_shipped_link_is_judged_by_the_name_given() {
    let mut unasked = Vec::new();
    for tool in ["copy", "move"] {
        let g = Granted::new();
        fs::create_dir_all(g.r.dir.path().join("editor")).unwrap();
        std::os::unix::fs::symlink("editor", g.r.dir.path().join(".vscode")).unwrap();
        g.r.dir.write("template/tasks.json", "{\"tasks\": []}\n");
        let before = g.asked();
        let done = g.call(
            tool,
            json!({"src": "template/tasks.json", "dst": ".vscode/tasks.json"}),
        );
        if g.asked() == before || done.is_ok() {
            unasked.push(format!("{tool}: {done:?}"));
        }
    }
    assert!(
        unasked.is_empty(),
        "put in place through .vscode with no question (or despite a no): {unasked:#?}"
    );
}

/// A link into the temporary directory makes what is written there read under the link's
/// name: `.envrc` -> `<temp>/envrc` is a dotfile direnv loads, asked about although the
/// file lands in the temporary directory (which is otherwise free).
#[cfg(unix)]
#[test]
fn a_write_through_a_link_into_the_temporary_directory_is_judged_by_the_name_given() {
    let r = Red::new(Choice::No);
    let temp = r.temp();
    std::os::unix::fs::symlink(Path::new(&temp).join("envrc"), r.dir.path().join(".envrc"))
        .unwrap();
    let wrote = r.call(
        "write_file",
        json!({"path": ".envrc", "content": "touch X\n"}),
    );
    assert!(
        wrote.is_err() && r.asked().iter().any(|q| q.contains(".envrc")),
        "{wrote:?}; asked {:?}",
        r.asked()
    );
    // A plain name through the same kind of link stays free.
    std::os::unix::fs::symlink(
        Path::new(&temp).join("n.txt"),
        r.dir.path().join("notes.txt"),
    )
    .unwrap();
    let before = r.asked().len();
    let wrote = r.call("write_file", json!({"path": "notes.txt", "content": "x\n"}));
    assert!(wrote.is_ok() && r.asked().len() == before, "{wrote:?}");
}

/// A credential-named link that `list_dir` or `glob` lists guards the file it leads to: read
/// under its own name afterwards, it asks. A link no tool came across is not known.
#[cfg(unix)]
#[test]
fn a_credential_link_a_listing_shows_guards_the_file_it_leads_to() {
    for lister in ["list_dir", "glob"] {
        let r = Red::new(Choice::No);
        r.dir
            .write("env/production", "STRIPE_KEY=sk_live_51Hredteam\n");
        std::os::unix::fs::symlink("env/production", r.dir.path().join(".env")).unwrap();
        let plain = r.call("read_file", json!({"path": "env/production"}));
        assert!(
            plain.is_ok() && r.asked().is_empty(),
            "{lister}: before any tool saw the link, env/production is a plain file: {plain:?}"
        );
        r.call(lister, json!({"path": "."})).unwrap();
        let read = r.call("read_file", json!({"path": "env/production"}));
        assert!(
            read.is_err() && r.asked().iter().any(|q| q.contains("credential")),
            "{lister}: {read:?}; asked {:?}",
            r.asked()
        );
    }
}

/// `file_info` of a credential file reached through a link names the link, never the file
/// it leads to; a plain link is named by where it leads, as before.
#[cfg(unix)]
#[test]
fn file_info_names_a_credential_link_by_the_name_given() {
    let r = Red::new(Choice::No);
    r.dir.write("env/production", "STRIPE_KEY=x\n");
    r.dir.write("docs/real.md", "# doc\n");
    std::os::unix::fs::symlink("env/production", r.dir.path().join(".env")).unwrap();
    std::os::unix::fs::symlink("docs/real.md", r.dir.path().join("doc.md")).unwrap();
    let root = fs::canonicalize(r.dir.path()).unwrap();
    let env = r.call("file_info", json!({"path": ".env"})).unwrap();
    let doc = r.call("file_info", json!({"path": "doc.md"})).unwrap();
    assert_eq!(
        (env["path"].as_str(), doc["path"].as_str()),
        (
            root.join(".env").to_str(),
            root.join("docs/real.md").to_str()
        )
    );
    assert!(env.get("sensitive").is_some(), "{env}");
}
