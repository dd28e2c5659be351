//! Fixes for the third round of red-team findings against the tool groups (issue 17) that
//! fall to the `cmd`, `browser` and `diagnostic` groups: each test is the red team's own
//! (from `redteam_tools_c.rs`, unchanged but for its module path), followed by tables that
//! pin the rule the fix applies.

use std::fs;
use std::path::Path;
use std::time::Duration;

use cmdguard::policy::Choice;
use cmdguard::tool::{AgentHandle, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::red::{Red, browser_setup};
use crate::scratch::Scratch;

/// The processes whose command line holds `needle` (a unique argument), by pid.
#[cfg(target_os = "linux")]
fn processes_with(needle: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|b| *b == 0).any(|w| w == needle.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Ends the processes this test started (by pid), whatever the outcome.
#[cfg(target_os = "linux")]
fn kill_all(pids: &[i32]) {
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

/// True when `program` is on the PATH.
fn installed(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The fix for escaped processes marks each command's environment with `CMDGUARD_JOB` and
/// kills what carries the mark. `env -u CMDGUARD_JOB` is an allowed wrapper (no question):
/// what it starts carries no mark, and with `setsid -f` it is in no group either, so it
/// outlives the call and the workspace, as before the fix.
#[cfg(target_os = "linux")]
#[test]
fn a_command_that_drops_the_job_mark_still_dies_with_its_call() {
    let mut survivors = Vec::new();
    for (n, command) in ["env -u CMDGUARD_JOB setsid -f sleep {s} >/dev/null 2>&1"]
        .into_iter()
        .enumerate()
    {
        let secs = format!("{}.{}", 70 + n, std::process::id());
        let r = Red::new(Choice::No);
        let said = r.call("bash", json!({"command": command.replace("{s}", &secs)}));
        let asked = r.asked();
        drop(r);
        std::thread::sleep(Duration::from_millis(300));
        let left = processes_with(&secs);
        kill_all(&left);
        if !left.is_empty() {
            survivors.push(format!(
                "{command}: {said:?} (asked {asked:?}) left {left:?} running"
            ));
        }
    }
    assert!(survivors.is_empty(), "{survivors:#?}");
}

/// bash reads its script in the locale the script sets, command by command; the analyser
/// reads it as UTF-8 and counts every `LC_*` as inert. In BIG5 the last byte of `中`
/// (E4 B8 AD) starts a two-byte character with the backslash after it, so `echo 中\;touch
/// MARK` (one `echo` to the analyser) is `echo 中\` and `touch MARK` to bash. The model picks
/// the locale through `envs` (or an `export` line); it only needs to be installed (here one
/// is built with `localedef` and found through `LOCPATH`, as `locale-gen zh_TW.BIG5` would
/// install it). Run in a child process with `LOCPATH` set, on a workspace with no
/// confirmation policy: only what the analyser allows runs.
#[cfg(target_os = "linux")]
#[test]
fn a_locale_the_model_picks_does_not_change_what_bash_reads() {
    const NAME: &str =
        "redteam_tools_fixes_toolfix2b::a_locale_the_model_picks_does_not_change_what_bash_reads";
    if let Ok(dir) = std::env::var("REDTEAM_CHILD") {
        let ws = Workspace::new(&dir).unwrap();
        let agent = AgentHandle::new("red").with_workspace(ws);
        let toolbox = ToolBox::new().with_defaults(&["cmd"]).unwrap();
        let call = |args: Value| toolbox.call_tool_blocking(&agent, "bash", args, ());
        println!(
            "envs: {:?}",
            call(json!({
                "command": "echo 中\\;touch MARK1",
                "envs": {"LC_ALL": "zh_TW.BIG5"},
            }))
        );
        println!(
            "export: {:?}",
            call(json!({"command": "export LC_ALL=zh_TW.BIG5\necho 中\\;touch MARK2"}))
        );
        return;
    }
    let locales = Scratch::new();
    let built = std::process::Command::new("localedef")
        .args(["-i", "zh_TW", "-f", "BIG5"])
        .arg(locales.path().join("zh_TW.BIG5"))
        .output();
    if !built.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("skipping: cannot build a BIG5 locale here: {built:?}");
        return;
    }
    let dir = Scratch::new();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--test-threads=1", "--nocapture"])
        .env("REDTEAM_CHILD", dir.path())
        .env("LOCPATH", locales.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let ran: Vec<&str> = ["MARK1", "MARK2"]
        .into_iter()
        .filter(|m| dir.path().join(m).exists())
        .collect();
    assert!(
        ran.is_empty(),
        "allowed commands ran `touch` ({ran:?}), which the analyser never saw: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `check_lint` runs shellcheck, which reads the `.shellcheckrc` of the file's directory: a
/// repository's `external-sources=true` makes it open every file a `# shellcheck source=`
/// directive names, anywhere. Whether an outside file parses shows in the answer ("Parsing
/// of sourced file failed"); `/dev/zero` grows shellcheck by gigabytes until the 60-second
/// timeout (1.3 GB in 8 s measured by hand, under a 2 GB ulimit).
#[test]
fn check_lint_reads_nothing_outside_the_workspace_for_a_repository_rc_file() {
    if !installed("shellcheck") {
        assert!(
            std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
            "shellcheck is required in CI (.ci/run installs it)"
        );
        eprintln!("skipping: shellcheck is not installed");
        return;
    }
    let r = Red::new(Choice::No);
    let secret = r.out("secret.sh");
    r.dir.write(".shellcheckrc", "external-sources=true\n");
    r.dir.write(
        "a.sh",
        &format!(
            "#!/bin/bash\n# shellcheck source={}\nsource ./lib.sh\necho \"$X\"\n",
            secret.display()
        ),
    );
    let mut answers = Vec::new();
    for outside in ["X=1\n", "if then fi (\n"] {
        fs::write(&secret, outside).unwrap();
        answers.push(r.call("check_lint", json!({"path": "a.sh"})));
    }
    assert_eq!(
        answers[0],
        answers[1],
        "check_lint's answer depends on {} (outside the workspace)",
        secret.display()
    );
}

/// Every `file:` request of a page is intercepted (`Fetch.enable` on the page's session) and
/// failed when it leads out of the workspace; but a window the page opens (`window.open` in
/// a click handler, clicked by `browser_interact`) is a new target nobody attached to: its
/// requests are not intercepted. A workspace page (a cloned repository's docs) opens another
/// workspace page in a new window, which loads a script from outside the workspace and
/// posts what it defines back to its opener, where `browser_evaluate` reads it.
#[cfg(unix)]
#[test]
fn a_window_a_workspace_page_opens_loads_nothing_from_outside_it() {
    let dir = Scratch::new();
    let Some((toolbox, agent, _)) = browser_setup(&dir, Choice::No) else {
        return;
    };
    let outside = Scratch::new();
    let secret = outside.write("settings.js", "var TOKEN = 'hunter2-outside';\n");
    let root = fs::canonicalize(dir.path()).unwrap();
    dir.write(
        "b.html",
        &format!(
            "<script>opener.postMessage('opened', '*')</script><script src='file://{}'></script><script>opener.postMessage(typeof TOKEN == 'undefined' ? 'blocked' : TOKEN, '*')</script>",
            secret.display()
        ),
    );
    dir.write(
        "a.html",
        &format!(
            "<body><a id=go href='#' onclick=\"window.open('file://{}/b.html'); return false\">docs</a><p id=got>nothing</p>\
             <script>addEventListener('message', e => document.getElementById('got').textContent = e.data)</script></body>",
            root.display()
        ),
    );
    let call = |tool: &str, args: Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    };
    let url = format!("file://{}/a.html", root.display());
    call("browser_page", json!({"action": "navigate", "url": url})).unwrap();
    let clicked = call(
        "browser_interact",
        json!({"action": "click", "selector": "#go"}),
    );
    let mut got = Ok(Value::Null);
    for _ in 0..50 {
        got = call(
            "browser_evaluate",
            json!({"expression": "document.getElementById('got').textContent"}),
        );
        if got
            .as_ref()
            .is_ok_and(|v| v.to_string().contains("hunter2"))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !got.as_ref()
            .is_ok_and(|v| v.to_string().contains("hunter2")),
        "a workspace page read {} (outside the workspace) through a window it opened: click \
         {clicked:?}, read {got:?}",
        secret.display()
    );
}

/// `browser_snapshot` cuts its text at `MAX_SNAPSHOT_CHARS` and `bash` its output at
/// `MAX_OUTPUT`; `browser_logs` and `browser_evaluate` return whatever the page made, and the
/// CDP client buffers any message whole (up to 5000 events per page, 1000 log entries of any
/// size). Any web page the agent visits decides how much lands in the agent's memory and in
/// the model's context: here 20 console messages of 5 MB and one 50 MB string.
#[cfg(unix)]
#[test]
fn browser_logs_and_evaluate_results_are_capped() {
    let dir = Scratch::new();
    let Some((toolbox, agent, _)) = browser_setup(&dir, Choice::No) else {
        return;
    };
    dir.write(
        "flood.html",
        "<script>for (let i = 0; i < 20; i++) console.log(String(i).repeat(5000000)); document.title = 'done'</script>",
    );
    let call = |tool: &str, args: Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    };
    let url = format!(
        "file://{}/flood.html",
        fs::canonicalize(dir.path()).unwrap().display()
    );
    call("browser_page", json!({"action": "navigate", "url": url})).unwrap();
    let size = |v: &Result<Value, String>| match v {
        Ok(v) => v.to_string().len(),
        Err(e) => e.len(),
    };
    let logs = call("browser_logs", json!({"clear": true}));
    let evaluated = call(
        "browser_evaluate",
        json!({"expression": "'x'.repeat(50000000)"}),
    );
    let sizes = [
        ("browser_logs", size(&logs)),
        ("browser_evaluate", size(&evaluated)),
    ];
    assert!(
        sizes.iter().all(|(_, n)| *n <= 1_000_000),
        "tool results of {sizes:?} bytes"
    );
}

/// `bash`'s `cd` is resolved and checked, the command judged there, then bash is started in
/// that directory by its path (`Command::current_dir`): the s6 held-directory fix does not
/// reach it. A directory swapped for a link to outside meanwhile (a background job, another
/// process) runs the judged command outside the workspace, where everything it reads (and,
/// for `git`, the repository configuration it obeys) is not what was judged.
#[cfg(unix)]
#[test]
fn bash_runs_in_the_directory_that_was_checked() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let r = Red::new(Choice::No);
    let sub = r.dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let outside = fs::canonicalize(r.outside.path()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, target, at) = (stop.clone(), outside.clone(), sub.clone());
    let swapper = std::thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            let _ = fs::remove_dir(&at);
            let _ = std::os::unix::fs::symlink(&target, &at);
            std::thread::sleep(Duration::from_micros(200));
            let _ = fs::remove_file(&at);
            let _ = fs::create_dir(&at);
            std::thread::sleep(Duration::from_micros(200));
        }
    });
    let start = std::time::Instant::now();
    let mut ran = 0;
    let mut escaped = None;
    while start.elapsed() < Duration::from_secs(15) && escaped.is_none() {
        if let Ok(out) = r.call("bash", json!({"command": "pwd -P", "cd": "sub"})) {
            ran += 1;
            let text = out["output"].as_str().unwrap_or("").trim().to_owned();
            if Path::new(&text).starts_with(&outside) {
                escaped = Some(text);
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        escaped.is_none(),
        "after {ran} allowed runs in `sub` ({:?}), one ran in {escaped:?}, outside the workspace",
        start.elapsed()
    );
}

/// The rule behind the job-mark fix: a command that could start a program without the mark
/// in its environment is refused before it starts, even when the user would say yes (every
/// question here is answered yes); `env` with options that keep the environment, and words
/// that only look alike, still run.
#[cfg(unix)]
#[test]
fn a_command_that_could_drop_the_job_mark_is_refused() {
    let r = Red::new(Choice::Yes);
    r.dir.write("f", "x\n");
    let refused = [
        "env -u CMDGUARD_JOB true",
        "env -uCMDGUARD_JOB true",
        "env --unset=HOME true",
        "env -i PATH=/usr/bin true",
        "env -iu X true",
        "env - true",
        "env --ignore-environment true",
        "env -S 'true' ",
        "env -v -u X true",
        "env $opt true",
        "nice env -i true",
        "/usr/bin/env -u X true",
        "exec -c true",
        "exec -lc true",
        "printenv CMDGUARD_JOB",
        "CMDGUARD_JOB=x true",
        "echo -i true | xargs env",
        "echo -i true | xargs nice env",
        "\"$c\" -i true",
    ];
    let runs = [
        "true",
        "env LC_ALL=C true",
        "env -- true",
        "env -C . true",
        "grep -c x f",
        "echo environment -i",
    ];
    let mut wrong = Vec::new();
    for command in refused {
        let said = r.call("bash", json!({"command": command}));
        if !said.as_ref().is_err_and(|e| e.contains("job mark")) {
            wrong.push(format!(
                "{command}: {said:?} (want refused for the job mark)"
            ));
        }
    }
    for command in runs {
        let said = r.call("bash", json!({"command": command}));
        if said.as_ref().is_err_and(|e| e.contains("job mark")) {
            wrong.push(format!("{command}: {said:?} (want run)"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The bash tool does not start when the locale it inherits is one the analyser cannot read
/// as bash would (each of `LC_ALL`, `LC_CTYPE`, `LANG`, since a command may unset those
/// before it); run in a child process with the variable set.
#[cfg(unix)]
#[test]
fn bash_does_not_start_in_an_inherited_locale_that_is_not_proven() {
    const NAME: &str = "redteam_tools_fixes_toolfix2b::bash_does_not_start_in_an_inherited_locale_that_is_not_proven";
    if let Ok(dir) = std::env::var("REDTEAM_CHILD") {
        let ws = Workspace::new(&dir).unwrap();
        let agent = AgentHandle::new("red").with_workspace(ws);
        let toolbox = ToolBox::new().with_defaults(&["cmd"]).unwrap();
        let said =
            toolbox.call_tool_blocking(&agent, "bash", json!({"command": "echo ran-$((6*7))"}), ());
        println!("said: {said:?}");
        return;
    }
    let cases = [
        ("LANG", "zh_TW.BIG5", false),
        ("LC_CTYPE", "ja_JP.SJIS", false),
        ("LC_ALL", "zh_TW", false),
        ("LANG", "C.UTF-8", true),
        ("LC_ALL", "C", true),
    ];
    let mut wrong = Vec::new();
    for (name, value, runs) in cases {
        let dir = Scratch::new();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--test-threads=1", "--nocapture"])
            .env("REDTEAM_CHILD", dir.path())
            .env_remove("LC_ALL")
            .env_remove("LC_CTYPE")
            .env_remove("LANG")
            .env(name, value)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let ran = stdout.contains("ran-42");
        if !out.status.success() || ran != runs || (!runs && !stdout.contains("locale")) {
            wrong.push(format!("{name}={value}: ran {ran}, want {runs}: {stdout}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The popup fix intercepts a new window's requests instead of stopping the window: a window
/// a workspace page opens runs (it tells its opener), and its request for a file outside the
/// workspace fails (`TOKEN` stays undefined), so the opener reads `blocked`.
#[cfg(unix)]
#[test]
fn a_window_a_page_opens_runs_with_its_outside_requests_failed() {
    let dir = Scratch::new();
    let Some((toolbox, agent, _)) = browser_setup(&dir, Choice::No) else {
        return;
    };
    let outside = Scratch::new();
    let secret = outside.write("settings.js", "var TOKEN = 'hunter2-outside';\n");
    let root = fs::canonicalize(dir.path()).unwrap();
    dir.write(
        "b.html",
        &format!(
            "<script src='file://{}'></script><script src='inside.js'></script><script>opener.postMessage((typeof TOKEN == 'undefined' ? 'blocked' : TOKEN) + '+' + INSIDE, '*')</script>",
            secret.display()
        ),
    );
    dir.write("inside.js", "var INSIDE = 'inside-loaded';\n");
    dir.write(
        "a.html",
        &format!(
            "<body><a id=go href='file://{}/b.html' target=_blank rel=opener>docs</a><p id=got>nothing</p>\
             <script>addEventListener('message', e => document.getElementById('got').textContent = e.data)</script></body>",
            root.display()
        ),
    );
    let call = |tool: &str, args: Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
    };
    let url = format!("file://{}/a.html", root.display());
    call("browser_page", json!({"action": "navigate", "url": url})).unwrap();
    call(
        "browser_interact",
        json!({"action": "click", "selector": "#go"}),
    )
    .unwrap();
    let mut got = Ok(Value::Null);
    for _ in 0..100 {
        got = call(
            "browser_evaluate",
            json!({"expression": "document.getElementById('got').textContent"}),
        );
        if got.as_ref().is_ok_and(|v| v != "nothing") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(got, Ok(json!("blocked+inside-loaded")));
}

/// What the caps leave: a long log entry is cut with the cut said, a `browser_logs` call past
/// its budget ends with a `cut` entry and keeps the rest for the next call (with `clear`),
/// and a long `browser_evaluate` result is cut and says so; short ones are whole.
#[cfg(unix)]
#[test]
fn capped_browser_results_say_what_was_cut_and_keep_the_rest() {
    use cmdguard::tool::groups::browser::{MAX_LOG_TEXT_CHARS, MAX_RESULT_CHARS};
    let dir = Scratch::new();
    let Some((toolbox, agent, _)) = browser_setup(&dir, Choice::No) else {
        return;
    };
    dir.write(
        "logs.html",
        "<script>console.log('short'); for (let i = 0; i < 15; i++) console.log(String(i % 10).repeat(20000));</script>",
    );
    let call = |tool: &str, args: Value| {
        toolbox
            .call_tool_blocking(&agent, tool, args, ())
            .map_err(|e| format!("{e:?}"))
            .unwrap()
    };
    let url = format!(
        "file://{}/logs.html",
        fs::canonicalize(dir.path()).unwrap().display()
    );
    call("browser_page", json!({"action": "navigate", "url": url}));
    let mut read = Vec::new();
    for _ in 0..4 {
        let logs = call("browser_logs", json!({"clear": true}));
        read.push(logs.as_array().unwrap().clone());
        if read.last().unwrap().iter().all(|e| e["kind"] != "cut") {
            break;
        }
    }
    let first = &read[0];
    assert_eq!(first[0]["text"], "short");
    let long = first[1]["text"].as_str().unwrap();
    assert!(
        long.starts_with(&"0".repeat(MAX_LOG_TEXT_CHARS)),
        "{}",
        &long[..50]
    );
    assert!(
        long.ends_with("[cut: 10000 more characters]"),
        "{}",
        &long[long.len() - 60..]
    );
    assert_eq!(first.last().unwrap()["kind"], "cut", "{first:?}");
    // 1 + 15 entries, 10 of 10 000 characters per call: all read over the calls, none twice.
    let entries: usize = read
        .iter()
        .map(|r| r.iter().filter(|e| e["kind"] == "console").count())
        .sum();
    assert_eq!(entries, 16, "{read:?}");
    let short = call("browser_evaluate", json!({"expression": "'x'.repeat(10)"}));
    assert_eq!(short, json!("xxxxxxxxxx"));
    let long = call(
        "browser_evaluate",
        json!({"expression": "'y'.repeat(3000000)"}),
    );
    let text = long.as_str().unwrap();
    assert!(text.starts_with(&format!("\"{}", "y".repeat(1000))));
    assert!(
        text.ends_with(&format!(
            "[cut: the result's JSON is 3000002 characters; these are the first {MAX_RESULT_CHARS}]"
        )),
        "{}",
        &text[text.len() - 100..]
    );
    assert!(text.len() < MAX_RESULT_CHARS + 200);
}
