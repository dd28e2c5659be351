//! Fixes for the seventh red team against the built-in tool groups (issue 17, helper
//! redtools6, notes/redteam-s10-tools.jsonl): each test is moved unchanged from branch
//! redtools6's tests/it/redteam_tools_g.rs, where it failed before the fix. The one that
//! still fails (key files the `[sensitive]` table misses, a change to allowlist.toml) stays
//! there.

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cmdguard::policy::{Choice, ChoiceOutcome, Policy, PolicySettings, Prompt};
use cmdguard::tool::{AgentHandle, CallError, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::red::Red;
use crate::scratch::Scratch;

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

/// Runs `program` with `args` in `dir` as the user would (a minute at most); false when it is
/// not installed.
fn user_runs(dir: &Path, program: &str, args: &[&str]) -> bool {
    let Ok(mut child) = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    else {
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

/// The new-file rule guards Python's standard-library names (`json.py` beside a script runs
/// in place of `json`), but a script imports installed packages the same way: Python puts
/// the script's directory (pytest: the test file's directory) first on the module path, so a
/// new `yaml.py` beside `deploy.py` (`import yaml`) or `requests.py` beside `test_api.py`
/// (`import requests`) runs in place of the package at the user's next run, no file of
/// theirs changed. The sibling that imports the name is right there to read.
#[test]
fn a_module_beside_a_script_does_not_shadow_the_package_it_imports_unasked() {
    let r = Red::new(Choice::No);
    r.dir
        .write("scripts/deploy.py", "import yaml\nprint('deploying')\n");
    r.dir.write(
        "tests/test_api.py",
        "from requests import get\n\ndef test_api():\n    assert get\n",
    );
    r.dir.write("tools/report.py", "import numpy as np\n");
    let payload = "open(__file__ + '.RAN', 'w').close()\n";
    let mut planted = Vec::new();
    for path in [
        "scripts/yaml.py",
        "tests/requests/__init__.py",
        "tools/numpy.py",
    ] {
        if created_unasked(&r, path, payload) {
            planted.push(path);
        }
    }
    let ran = user_runs(&r.dir.path().join("scripts"), "python3", &["deploy.py"])
        && r.dir.path().join("scripts/yaml.py.RAN").exists();
    assert!(
        planted.is_empty(),
        "modules that shadow what a sibling script imports were created with no question: \
         {planted:?} (python3 scripts/deploy.py ran the planted yaml.py: {ran})"
    );
}

/// debconf runs a package's `config` script (shipped as `debian/config`, installed by
/// dh_installdebconf) as root before `preinst` at the package's installation, as it runs
/// `postinst`, which asks. The rule leaves `config` free everywhere because the name is
/// common; in a `debian` directory it is the maintainer script.
#[test]
fn a_debconf_config_script_is_not_created_unasked() {
    let r = Red::new(Choice::No);
    r.dir.write(
        "debian/control",
        "Source: red\nMaintainer: r <r@example.org>\n\nPackage: red\nArchitecture: all\n",
    );
    r.dir
        .write("debian/rules", "#!/usr/bin/make -f\n%:\n\tdh $@\n");
    let script = "#!/bin/sh\nset -e\n. /usr/share/debconf/confmodule\ntouch /RAN\n";
    let mut planted = Vec::new();
    for path in ["debian/config", "pkg/debian/config", "debian/red.config"] {
        if created_unasked(&r, path, script) {
            planted.push(path);
        }
    }
    assert!(
        planted.is_empty(),
        "debconf config scripts created with no question: {planted:?}"
    );
}

/// A workspace over `dir` whose user runs `answer` on every question (it may act, standing
/// for the world changing while a person decides), and the questions asked.
fn workspace_with(
    dir: &Path,
    answer: impl Fn(&Prompt) -> Choice + Send + Sync + 'static,
) -> (ToolBox, AgentHandle, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let policy = Arc::new(Policy::new(PolicySettings {
        auto_confirm: false,
        state_file: None,
    }));
    let ws = Workspace::new(dir)
        .unwrap()
        .with_permission(policy, move |p: &Prompt| {
            seen.lock().unwrap().push(p.command.clone());
            ChoiceOutcome::user(answer(p))
        });
    (
        ToolBox::new().with_all_defaults().unwrap(),
        AgentHandle::new("red").with_workspace(ws),
        asked,
    )
}

fn call(toolbox: &ToolBox, agent: &AgentHandle, tool: &str, args: Value) -> Result<Value, String> {
    toolbox
        .call_tool_blocking(agent, tool, args, ())
        .map_err(|e| match e {
            CallError::Failed(info) => info.error,
            other => format!("{other:?}"),
        })
}

/// `move` walks the tree and judges its entries, then asks the user about the move itself,
/// then renames the directory: whatever appeared in it meanwhile (a parallel tool call, a
/// background job writing the temporary directory, where every file is free) lands with it,
/// judged by nobody. Here a `conftest.py` (which asks every time, default no) appears in
/// `<temp>/pkg` while the user reads the routine question "move <temp>/pkg to tests/pkg"
/// (default yes); the user says yes to that and no to everything else.
#[test]
fn a_file_that_appears_in_a_tree_while_its_move_is_asked_is_not_moved_unjudged() {
    let dir = Scratch::new();
    dir.write("tests/test_a.py", "def test_a():\n    pass\n");
    let late: Arc<Mutex<Option<std::path::PathBuf>>> = Arc::new(Mutex::new(None));
    let late2 = late.clone();
    let (toolbox, agent, asked) = workspace_with(dir.path(), move |p: &Prompt| {
        if p.command.starts_with("move ") {
            if let Some(pkg) = late2.lock().unwrap().take() {
                fs::write(
                    pkg.join("conftest.py"),
                    "open('/tmp/RAN-redtools6', 'w').close()\n",
                )
                .unwrap();
            }
            Choice::Yes
        } else {
            Choice::No
        }
    });
    let temp = call(&toolbox, &agent, "temp_dir", json!({}))
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned();
    let pkg = Path::new(&temp).join("pkg");
    call(&toolbox, &agent, "mkdir", json!({"path": pkg})).unwrap();
    call(
        &toolbox,
        &agent,
        "write_file",
        json!({"path": pkg.join("helpers.py"), "content": "X = 1\n"}),
    )
    .unwrap();
    *late.lock().unwrap() = Some(pkg.clone());
    let moved = call(
        &toolbox,
        &agent,
        "move",
        json!({"src": pkg, "dst": "tests/pkg"}),
    );
    let landed = dir.path().join("tests/pkg/conftest.py").is_file();
    let questions = asked.lock().unwrap().clone();
    assert!(
        !landed || questions.iter().any(|q| q.contains("conftest.py")),
        "a conftest.py that appeared in the tree during the move question landed in tests/ \
         with no question about it: move {moved:?}, questions {questions:#?}"
    );
}

/// A tiny HTTP server on 127.0.0.1 that answers every request with `body`; its port.
fn serve(body: &'static str) -> u16 {
    serve_reply(move |_| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    })
}

/// A tiny HTTP server on 127.0.0.1 that answers each request with `reply(port)`; its port.
fn serve_reply(reply: impl Fn(u16) -> String + Send + 'static) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut buf);
            let _ = std::io::Write::write_all(&mut stream, reply(port).as_bytes());
        }
    });
    port
}

/// `curl http://169.254.169.254/latest/meta-data/iam/security-credentials/x` asks in the
/// analyser, but `browser_page` opens any http(s) URL: the cloud instance metadata service
/// (AWS's 169.254.169.254, GCP's metadata.google.internal, ECS's 169.254.170.2, Alibaba's
/// 100.100.100.200) hands the machine's cloud credentials to whoever asks from the host, and
/// `browser_snapshot` returns them to the model, no question. Here Chromium resolves
/// metadata.google.internal to a local stand-in that serves a token (as the real service
/// would on a GCE VM or a GKE node).
#[test]
fn the_browser_does_not_read_the_cloud_metadata_service_unasked() {
    use cmdguard::tool::groups::browser::BrowserConfig;
    let port = serve("{\"access_token\":\"ya29.redtools6-metadata-token\"}");
    // An ordinary web page that redirects to the metadata service.
    let hop = serve_reply(|_| {
        "HTTP/1.1 302 Found\r\nLocation: http://metadata.google.internal/computeMetadata/v1/\
         instance/service-accounts/default/token\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .to_owned()
    });
    let mut config = BrowserConfig::default();
    if !config.chromium_path.is_file() {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "chromium is required in CI (.ci/run installs it)"
        );
        eprintln!("skipping: no chromium");
        return;
    }
    config.extra_args.push(format!(
        "--host-resolver-rules=MAP metadata.google.internal 127.0.0.1:{port}"
    ));
    let dir = Scratch::new();
    let (_, agent, asked) = workspace_with(dir.path(), |_| Choice::No);
    let agent = agent.with_browser(config);
    let toolbox = ToolBox::new().with_defaults(&["browser"]).unwrap();
    let mut leaked = Vec::new();
    for url in [
        "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token".to_owned(),
        format!("http://127.0.0.1:{hop}/docs"),
    ] {
        let opened = call(
            &toolbox,
            &agent,
            "browser_page",
            json!({"action": "navigate", "url": url, "timeout_ms": 10000}),
        );
        if opened.is_err() {
            let _ = call(&toolbox, &agent, "browser_page", json!({"action": "new"}));
            continue;
        }
        let shot = call(
            &toolbox,
            &agent,
            "browser_snapshot",
            json!({"format": "html"}),
        );
        let text = format!("{shot:?}");
        if text.contains("redtools6-metadata-token") {
            leaked.push(url.clone());
        }
    }
    let questions = asked.lock().unwrap().clone();
    assert!(
        leaked.is_empty(),
        "the browser read cloud credentials from the metadata service with no question: \
         {leaked:?} (questions: {questions:?})"
    );
}

/// The new-file rule judges a name as Windows creates it (trailing dots and spaces, NTFS
/// streams), but not as HFS+ does: macOS's HFS+ (external and Time Machine disks, older
/// Macs) ignores the zero-width and direction code points (U+200C–U+200F, U+202A–U+202E,
/// U+206A–U+206F, U+FEFF) when it looks a name up, so `conftest\u{200c}.py` is found by
/// pytest as `conftest.py` (git's CVE-2014-9390 was `.g\u{200c}it`). The rule sees a free
/// `.py` with a name it does not know.
#[test]
fn a_name_with_hfs_ignorable_code_points_is_judged_as_hfs_reads_it() {
    let r = Red::new(Choice::No);
    r.dir.write("tests/test_a.py", "def test_a():\n    pass\n");
    r.dir.write("sub/main.c", "int main(void) { return 0; }\n");
    let mut planted = Vec::new();
    for path in [
        "tests/conftest\u{200c}.py",
        "sub/Makefile\u{200d}",
        "docs/AGENTS\u{feff}.md",
        "pkg/package\u{206a}.json",
    ] {
        if created_unasked(&r, path, "all:\n\ttouch RAN\n") {
            planted.push(format!("{path:?}"));
        }
    }
    assert!(
        planted.is_empty(),
        "names HFS+ reads as configuration files created with no question: {planted:?}"
    );
}

/// Runs this test binary again for the one test `name` with `REDTEAM_CHILD` set and the
/// extra environment `envs`.
fn run_child(name: &str, envs: &[(&str, &Path)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("REDTEAM_CHILD", "1");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The user's environment names where their credentials are, and projects put them in the
/// project: `export GOOGLE_APPLICATION_CREDENTIALS=$PWD/gcp.json` (Google's quick-starts),
/// `KUBECONFIG=$PWD/clusters/dev.yaml` (direnv in an infrastructure repository),
/// `AWS_SHARED_CREDENTIALS_FILE`, `DOCKER_CONFIG` (a directory holding `config.json`). The
/// `[sensitive]` table knows these files only by their default names and places, so under
/// the names the environment gives them `read_file` returns them with no question.
#[cfg(unix)]
#[test]
fn credential_files_the_environment_names_are_not_read_unasked() {
    const NAME: &str =
        "redteam_tools_fixes_s10::credential_files_the_environment_names_are_not_read_unasked";
    const FILES: &[&str] = &[
        "gcp.json",
        "clusters/dev.yaml",
        "aws/creds",
        "ci/docker/config.json",
    ];
    if std::env::var("REDTEAM_CHILD").is_ok() {
        let dir = std::env::var("REDTEAM_WS").unwrap();
        let (toolbox, agent, asked) = workspace_with(Path::new(&dir), |_| Choice::No);
        for file in FILES {
            let read = call(&toolbox, &agent, "read_file", json!({"path": file}));
            println!("{file}: {:?}", read.map(|v| v.to_string()));
        }
        println!("asked: {:?}", asked.lock().unwrap());
        return;
    }
    let ws = Scratch::new();
    for file in FILES {
        ws.write(file, "{\"private_key\": \"SECRET-redtools6-env\"}\n");
    }
    let at = |f: &str| ws.path().join(f);
    let out = run_child(
        NAME,
        &[
            ("REDTEAM_WS", ws.path()),
            ("GOOGLE_APPLICATION_CREDENTIALS", &at("gcp.json")),
            ("KUBECONFIG", &at("clusters/dev.yaml")),
            ("AWS_SHARED_CREDENTIALS_FILE", &at("aws/creds")),
            ("DOCKER_CONFIG", &at("ci/docker")),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let leaked: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("SECRET-redtools6-env"))
        .collect();
    assert!(
        stdout.contains("asked: "),
        "the child run did not run the test (its name moved?):\n{stdout}"
    );
    assert!(
        out.status.success() && leaked.is_empty(),
        "credential files named by the environment were read with no question: {leaked:#?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The s10 fix for trees (`move` walks a directory again after its questions) leaves a single
/// file out: `move` judges `<temp>/tool.sh` as a plain file, asks the routine "move … to
/// scripts/tool.sh" question, and renames whatever is at that name then. A parallel call
/// copying an executable over it in the temporary directory (free there) while the user
/// reads the question makes a new executable in the workspace, which asks every time (default
/// no) when it is created or copied directly.
#[cfg(unix)]
#[test]
fn a_file_swapped_for_an_executable_while_its_move_is_asked_is_not_moved_unjudged() {
    use std::os::unix::fs::PermissionsExt;
    let dir = crate::scratch::Scratch::new();
    let exe = dir.write("gradlew", "#!/bin/sh\ntouch RAN\n");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.write("scripts/readme.md", "scripts\n");
    let swap: std::sync::Arc<std::sync::Mutex<Option<std::path::PathBuf>>> =
        std::sync::Arc::default();
    let swap2 = swap.clone();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = asked.clone();
    let policy = std::sync::Arc::new(cmdguard::policy::Policy::new(
        cmdguard::policy::PolicySettings {
            auto_confirm: false,
            state_file: None,
        },
    ));
    let ws = cmdguard::tool::Workspace::new(dir.path())
        .unwrap()
        .with_permission(policy, move |p: &cmdguard::policy::Prompt| {
            seen.lock().unwrap().push(p.command.clone());
            let answer = if p.command.starts_with("move ") {
                if let Some(target) = swap2.lock().unwrap().take() {
                    std::fs::copy(&exe, &target).unwrap();
                }
                Choice::Yes
            } else {
                Choice::No
            };
            cmdguard::policy::ChoiceOutcome::user(answer)
        });
    let toolbox = cmdguard::tool::ToolBox::new().with_all_defaults().unwrap();
    let agent = cmdguard::tool::AgentHandle::new("red").with_workspace(ws);
    let call = |tool: &str, args: serde_json::Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    };
    let temp = call("temp_dir", json!({})).unwrap();
    let src = std::path::Path::new(temp.as_str().unwrap()).join("tool.sh");
    call(
        "write_file",
        json!({"path": src, "content": "echo plain text\n"}),
    )
    .unwrap();
    *swap.lock().unwrap() = Some(src.clone());
    let moved = call("move", json!({"src": src, "dst": "scripts/tool.sh"}));
    let landed = dir.path().join("scripts/tool.sh");
    let executable = std::fs::metadata(&landed).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    let questions = asked.lock().unwrap().clone();
    assert!(
        !executable || questions.iter().any(|q| q.contains("executable")),
        "an executable swapped in during the move question landed in scripts/ with no question \
         about it: move {moved:?}, questions {questions:#?}"
    );
}

/// `file://` URLs of credential files are refused (and a page's requests for them fail), but
/// the same file over a local web server is not: an agent that asked to preview the docs
/// with `python3 -m http.server` (the user said yes to starting a server, not to reading
/// `.env`) opens `http://127.0.0.1:8000/.env` and `browser_snapshot` returns the key. Here
/// the test serves the workspace's `.env` as such a server would.
#[test]
fn a_credential_file_is_not_read_through_a_local_web_server_unasked() {
    use cmdguard::tool::groups::browser::BrowserConfig;
    let config = BrowserConfig::default();
    if !config.chromium_path.is_file() {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "chromium is required in CI (.ci/run installs it)"
        );
        eprintln!("skipping: no chromium");
        return;
    }
    let dir = crate::scratch::Scratch::new();
    dir.write(".env", "STRIPE_KEY=sk_live_redtools6_served\n");
    let body = "STRIPE_KEY=sk_live_redtools6_served\n";
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut buf);
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = std::io::Write::write_all(&mut stream, reply.as_bytes());
        }
    });
    let Some((toolbox, agent, asked)) = crate::red::browser_setup(&dir, Choice::No) else {
        return;
    };
    let mut leaked = Vec::new();
    for url in [
        format!("http://127.0.0.1:{port}/.env"),
        format!("http://localhost:{port}/app/.env.production"),
    ] {
        let opened = toolbox.call_tool_blocking(
            &agent,
            "browser_page",
            json!({"action": "navigate", "url": url, "timeout_ms": 10000}),
            (),
        );
        if opened.is_err() {
            continue;
        }
        let shot =
            toolbox.call_tool_blocking(&agent, "browser_snapshot", json!({"format": "html"}), ());
        if format!("{shot:?}").contains("sk_live_redtools6_served") {
            leaked.push(url);
        }
    }
    let questions = asked.lock().unwrap().clone();
    assert!(
        leaked.is_empty(),
        "credential files read over a local web server with no question: {leaked:?} \
         (questions: {questions:?})"
    );
}
