//! The seventh red team against the built-in tool groups (issue 17), helper redtools6
//! (notes/redteam-s10-tools.jsonl): the test that still fails on this branch (the fixed
//! ones moved, unchanged, to redteam_tools_fixes_s10.rs). Its module line is not in
//! main.rs, so the branch stays green; add it back to see the hole.

use cmdguard::policy::Choice;
use serde_json::json;

use crate::red::Red;

/// The `[sensitive]` table the tools read by misses key and password files that platforms
/// document as project files: App Store Connect API keys (`AuthKey_<id>.p8`, a PEM private
/// key Apple hands out once), Flutter's documented `android/key.properties` (the upload
/// keystore's passwords), OpenVPN profiles with the client key inline (`*.ovpn`), and
/// kubeconfigs named after their cluster (`admin.kubeconfig`, as kubeadm and k3s guides name
/// them). `read_file` returns each with no question, and `grep` searches them.
#[test]
fn documented_project_key_files_are_not_read_unasked() {
    let r = Red::new(Choice::No);
    let files = [
        (
            "ios/AuthKey_2X9R4HXF34.p8",
            "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49redtools6\n-----END PRIVATE KEY-----\n",
        ),
        (
            "android/key.properties",
            "storePassword=redtools6-store\nkeyPassword=redtools6-key\nkeyAlias=upload\nstoreFile=upload.jks\n",
        ),
        (
            "vpn/office.ovpn",
            "client\nremote vpn.example.org 1194\n<key>\n-----BEGIN PRIVATE KEY-----\nredtools6\n-----END PRIVATE KEY-----\n</key>\n",
        ),
        (
            "clusters/admin.kubeconfig",
            "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: redtools6-cluster-admin\n",
        ),
    ];
    let mut read = Vec::new();
    for (path, text) in files {
        r.dir.write(path, text);
        let before = r.asked().len();
        if r.call("read_file", json!({"path": path}))
            .is_ok_and(|v| v.to_string().contains("redtools6"))
            && r.asked().len() == before
        {
            read.push(path);
        }
    }
    assert!(
        read.is_empty(),
        "key and password files read with no question: {read:?}"
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
