//! The `browser` group against a real headless Chromium and pages served on 127.0.0.1 by a
//! small server thread of the test. Without chromium the tests say so and pass, except under
//! CMDGUARD_DIFF_REQUIRE (CI), where a missing browser is a failure.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use cmdguard::tool::groups::browser::BrowserConfig;
use cmdguard::tool::{AgentHandle, CallError, ToolBox, Workspace};
use serde_json::{Value, json};

use crate::scratch::Scratch;

const HOME: &str = r#"<!doctype html><html><head><title>Home page</title></head><body>
<h1>Hello browser</h1>
<p>Some <strong>bold</strong> text and <a href="/form">the form</a>.</p>
<ul><li>first</li><li>second</li></ul>
<script>console.log('home loaded', 42); console.error('something broke');</script>
</body></html>"#;

const FORM: &str = r#"<!doctype html><html><head><title>Form</title></head><body>
<form id="f" onsubmit="event.preventDefault(); show();">
  <label for="name">Name</label> <input id="name" name="name" value="old">
  <select id="color"><option value="r">Red</option><option value="g">Green</option></select>
  <button id="go" type="button" onclick="show()">Send</button>
</form>
<div id="out"></div>
<script>
function show() {
  const text = 'Hi ' + document.getElementById('name').value + ' in ' + document.getElementById('color').value;
  document.getElementById('out').textContent = text;
  console.log('submitted', text);
}
setTimeout(() => { const d = document.createElement('p'); d.id = 'late'; d.textContent = 'late'; document.body.appendChild(d); }, 300);
</script></body></html>"#;

const BOX: &str = r#"<!doctype html><html><head><style>
body { margin: 0; } #box { position: absolute; left: 30px; top: 40px; width: 200px; height: 100px; background: red; }
#tall { height: 3000px; }
</style></head><body><div id="box"></div><div id="tall"></div></body></html>"#;

/// Serves the pages above on 127.0.0.1; `/slow` sends its headers and part of the body, then
/// stalls for a minute.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    format!("http://{addr}")
}

fn answer(mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
    }
    let path = request.split(' ').nth(1).unwrap_or("/").to_owned();
    let body = match path.as_str() {
        "/" => HOME,
        "/form" => FORM,
        "/box" => BOX,
        "/download" => r#"<a id="get" href="/file.bin">get it</a>"#,
        "/file.bin" => {
            let name = download_name();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"{name}\"\r\nContent-Length: 4\r\nConnection: close\r\n\r\ndata"
            );
            return;
        }
        "/slow" => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<html><body>wait",
            );
            std::thread::sleep(Duration::from_secs(60));
            return;
        }
        _ => {
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            return;
        }
    };
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The browser to test with, or `None` (with a message) where chromium is not installed; under
/// CMDGUARD_DIFF_REQUIRE a missing chromium fails.
fn chromium() -> Option<BrowserConfig> {
    let config = BrowserConfig::default();
    if config.chromium_path.is_file() {
        return Some(config);
    }
    assert!(
        std::env::var_os("CMDGUARD_DIFF_REQUIRE").is_none(),
        "chromium is required in CI (.ci/run installs it)"
    );
    eprintln!(
        "skipping: no chromium at {}",
        config.chromium_path.display()
    );
    None
}

struct Setup {
    dir: Scratch,
    toolbox: ToolBox,
    agent: AgentHandle,
    base: String,
}

impl Setup {
    fn new() -> Option<Setup> {
        Setup::with(|_| {})
    }

    /// A setup whose browser configuration `adjust` changed.
    fn with(adjust: impl FnOnce(&mut BrowserConfig)) -> Option<Setup> {
        let mut config = chromium()?;
        adjust(&mut config);
        let dir = Scratch::new();
        let ws = Workspace::new(dir.path()).unwrap();
        Some(Setup {
            toolbox: ToolBox::new().with_defaults(&["browser"]).unwrap(),
            agent: AgentHandle::new("tester")
                .with_workspace(ws)
                .with_browser(config),
            dir,
            base: serve(),
        })
    }

    fn call(&self, tool: &str, args: Value) -> Result<Value, String> {
        call(&self.toolbox, &self.agent, tool, args)
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        self.call(tool, args.clone())
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    fn err(&self, tool: &str, args: Value) -> String {
        match self.call(tool, args.clone()) {
            Ok(v) => panic!("{tool} {args} succeeded: {v}"),
            Err(e) => e,
        }
    }

    fn open(&self, path: &str) -> Value {
        self.ok(
            "browser_page",
            json!({"action": "navigate", "url": format!("{}{path}", self.base)}),
        )
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }
}

fn call(toolbox: &ToolBox, agent: &AgentHandle, tool: &str, args: Value) -> Result<Value, String> {
    toolbox
        .call_tool_blocking(agent, tool, args, ())
        .map_err(|e| match e {
            CallError::Failed(info) => info.error,
            other => format!("{other:?}"),
        })
}

fn text(v: &Value) -> &str {
    v["content"].as_str().unwrap()
}

#[test]
fn browser_tools_refuse_without_a_browser_or_with_a_missing_executable() {
    let toolbox = ToolBox::new().with_defaults(&["browser"]).unwrap();
    let bare = AgentHandle::new("tester");
    let e = call(&toolbox, &bare, "browser_page", json!({"action": "list"})).unwrap_err();
    assert!(e.contains("no browser is configured"), "{e}");
    let missing = AgentHandle::new("tester").with_browser(BrowserConfig {
        chromium_path: "/nonexistent/chromium".into(),
        ..BrowserConfig::default()
    });
    let e = call(
        &toolbox,
        &missing,
        "browser_page",
        json!({"action": "list"}),
    )
    .unwrap_err();
    assert!(e.contains("no browser at /nonexistent/chromium"), "{e}");
    assert!(!missing.browser().unwrap().is_running());
}

#[test]
fn browser_opens_pages_and_reads_them_in_three_formats() {
    let Some(s) = Setup::new() else { return };
    let pages = s.open("/");
    assert_eq!(pages.as_array().unwrap().len(), 1, "{pages}");
    assert_eq!(pages[0]["title"], "Home page");
    assert_eq!(pages[0]["current"], true);

    let html = s.ok(
        "browser_snapshot",
        json!({"format": "html", "selector": "h1"}),
    );
    assert_eq!(text(&html), "<h1>Hello browser</h1>");
    assert_eq!(html["url"], format!("{}/", s.base));

    let md = s.ok("browser_snapshot", json!({"format": "markdown"}));
    let md = text(&md);
    assert!(md.contains("# Hello browser"), "{md}");
    assert!(md.contains("Some **bold** text"), "{md}");
    assert!(md.contains(&format!("[the form]({}/form)", s.base)), "{md}");
    assert!(md.contains("- first\n- second"), "{md}");
    assert!(!md.contains("console.log"), "scripts are not text: {md}");

    let ax = s.ok("browser_snapshot", json!({"format": "accessibility"}));
    let ax = text(&ax);
    assert!(ax.contains("heading \"Hello browser\""), "{ax}");
    assert!(ax.contains("link \"the form\""), "{ax}");
    let item = s.ok(
        "browser_snapshot",
        json!({"format": "accessibility", "selector": "li"}),
    );
    assert!(text(&item).starts_with("listitem"), "{item}");

    // Paging through a long text.
    let part = s.ok(
        "browser_snapshot",
        json!({"format": "html", "start_char": 5, "max_chars": 10}),
    );
    assert_eq!(text(&part).chars().count(), 10);
    assert_eq!(part["next_start_char"], 15);
    let e = s.err("browser_snapshot", json!({"selector": "#nothing"}));
    assert_eq!(e, "no element matches the selector '#nothing'");

    // Several pages: new, select, close.
    let pages = s.ok(
        "browser_page",
        json!({"action": "new", "url": format!("{}/form", s.base)}),
    );
    let pages = pages.as_array().unwrap();
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[1]["title"], "Form");
    assert_eq!(pages[1]["current"], true);
    let first = pages[0]["id"].as_u64().unwrap();
    let second = pages[1]["id"].as_u64().unwrap();
    s.ok(
        "browser_page",
        json!({"action": "select", "page_id": first}),
    );
    let title = s.ok("browser_evaluate", json!({"expression": "document.title"}));
    assert_eq!(title, "Home page");
    let pages = s.ok("browser_page", json!({"action": "close", "page_id": first}));
    assert_eq!(pages.as_array().unwrap().len(), 1);
    assert_eq!(pages[0]["id"], second);
    assert_eq!(pages[0]["current"], true);
    let e = s.err(
        "browser_page",
        json!({"action": "select", "page_id": first}),
    );
    assert!(e.starts_with(&format!("no page {first}")), "{e}");
    let reloaded = s.ok("browser_page", json!({"action": "reload"}));
    assert_eq!(reloaded[0]["title"], "Form");
}

#[test]
fn browser_opens_only_web_and_workspace_addresses() {
    let Some(s) = Setup::new() else { return };
    std::fs::write(
        s.root().join("local.html"),
        "<title>Local</title><p>from disk</p>",
    )
    .unwrap();
    let local = format!("file://{}/local.html", s.root().display());
    let pages = s.ok("browser_page", json!({"action": "navigate", "url": local}));
    assert_eq!(pages[0]["title"], "Local");
    let outside = Scratch::new();
    outside.write("secret.html", "<title>Secret</title>");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        outside.path().join("secret.html"),
        s.root().join("link.html"),
    )
    .unwrap();
    let link = format!("file://{}/link.html", s.root().display());
    let dotdot = format!("file://{}/../", s.root().display());
    let spaced = format!("file://{} /local.html", s.root().display());
    for (url, why) in [
        (link.as_str(), "not within the agent's workspace"),
        (dotdot.as_str(), "not within the agent's workspace"),
        (spaced.as_str(), "is not a URL"),
        ("file:///etc/passwd", "not within the agent's workspace"),
        (
            "FILE://localhost/etc/passwd",
            "not within the agent's workspace",
        ),
        ("file:/etc/passwd", "is not a local file URL"),
        ("file://example.com/etc/passwd", "is not a local file URL"),
        ("file:///etc%2fpasswd", "is not a local file URL"),
        ("http:///etc/passwd", "is not a URL"),
        ("ht\ttp://example.com", "is not a URL"),
        ("view-source:http://example.com", "not 'view-source:'"),
        ("javascript:alert(1)", "not 'javascript:'"),
        ("chrome://settings", "not 'chrome:'"),
        ("data:text/html,hi", "not 'data:'"),
        ("example.com", "is not a URL"),
    ] {
        let e = s.err("browser_page", json!({"action": "navigate", "url": url}));
        assert!(e.contains(why), "{url}: {e}");
    }
    let page = s.ok("browser_snapshot", json!({"format": "markdown"}));
    assert_eq!(text(&page), "from disk", "refused addresses never opened");

    // A link of a workspace page that leads out of the workspace: the page moves, but the
    // tools refuse to read it until it is navigated back.
    std::fs::write(
        s.root().join("out.html"),
        "<a id=out href='file:///etc/hostname'>out</a>",
    )
    .unwrap();
    let out = format!("file://{}/out.html", s.root().display());
    s.ok("browser_page", json!({"action": "navigate", "url": out}));
    s.ok(
        "browser_interact",
        json!({"action": "click", "selector": "#out"}),
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while !s.ok("browser_page", json!({"action": "list"}))[0]["url"]
        .as_str()
        .unwrap()
        .contains("/etc/")
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    for (tool, args) in [
        ("browser_snapshot", json!({"format": "html"})),
        (
            "browser_evaluate",
            json!({"expression": "document.body.innerText"}),
        ),
        ("browser_screenshot", json!({})),
    ] {
        let e = s.err(tool, args);
        assert!(e.starts_with("the page left the workspace"), "{tool}: {e}");
    }
    s.open("/");
}

#[test]
fn browser_fills_a_form_clicks_and_sees_the_result() {
    let Some(s) = Setup::new() else { return };
    s.open("/form");
    s.ok(
        "browser_interact",
        json!({"action": "fill", "selector": "#name", "value": "Ada"}),
    );
    s.ok(
        "browser_interact",
        json!({"action": "select", "selector": "#color", "value": "Green"}),
    );
    s.ok(
        "browser_interact",
        json!({"action": "click", "selector": "#go"}),
    );
    let out = s.ok(
        "browser_evaluate",
        json!({"expression": "document.querySelector('#out').textContent"}),
    );
    assert_eq!(out, "Hi Ada in g");

    // Enter in the field submits the form.
    s.ok(
        "browser_interact",
        json!({"action": "fill", "selector": "#name", "value": "Grace"}),
    );
    s.ok(
        "browser_interact",
        json!({"action": "press", "selector": "#name", "value": "Enter"}),
    );
    let out = s.ok(
        "browser_snapshot",
        json!({"format": "html", "selector": "#out"}),
    );
    assert_eq!(text(&out), "<div id=\"out\">Hi Grace in g</div>");

    let waited = s.ok(
        "browser_interact",
        json!({"action": "wait", "selector": "#late"}),
    );
    assert_eq!(waited, "#late is there");
    let e = s.err(
        "browser_interact",
        json!({"action": "select", "selector": "#color", "value": "Blue"}),
    );
    assert!(e.contains("no option \"Blue\""), "{e}");
    let e = s.err(
        "browser_interact",
        json!({"action": "fill", "selector": "#name"}),
    );
    assert_eq!(e, "fill needs a value");
}

#[test]
fn browser_evaluates_scripts_and_collects_logs() {
    let Some(s) = Setup::new() else { return };
    s.open("/");
    let v = s.ok(
        "browser_evaluate",
        json!({"expression": "[1 + 2, document.querySelectorAll('li').length, {a: 'b'}]"}),
    );
    assert_eq!(v, json!([3, 2, {"a": "b"}]));
    let v = s.ok(
        "browser_evaluate",
        json!({"expression": "new Promise(r => setTimeout(() => r('later'), 50))"}),
    );
    assert_eq!(v, "later");
    let e = s.err("browser_evaluate", json!({"expression": "nosuchthing.x"}));
    assert!(
        e.starts_with("the script threw: ReferenceError: nosuchthing is not defined"),
        "{e}"
    );

    // Console messages arrive as events; give them a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    let logs = loop {
        let logs = s.ok("browser_logs", json!({"kind": "console"}));
        if logs.as_array().unwrap().len() >= 2 || Instant::now() > deadline {
            break logs;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let lines: Vec<(String, String)> = logs
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["level"].as_str().unwrap().to_owned(),
                e["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        lines.contains(&("log".into(), "home loaded 42".into())),
        "{lines:?}"
    );
    assert!(
        lines.contains(&("error".into(), "something broke".into())),
        "{lines:?}"
    );
    let errors = s.ok("browser_logs", json!({"kind": "error"}));
    assert!(
        errors
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["level"] == "error"),
        "{errors}"
    );
    s.ok("browser_logs", json!({"clear": true}));
    assert_eq!(s.ok("browser_logs", json!({})), json!([]));
}

#[test]
fn browser_screenshots_are_queued_as_png_of_the_right_size() {
    let Some(s) = Setup::new() else { return };
    s.open("/box");
    assert_eq!(
        s.ok("browser_resize", json!({"width": 800, "height": 600})),
        "the viewport is 800x600"
    );
    let said = s.ok("browser_screenshot", json!({}));
    assert_eq!(said, "the screenshot (800x600) follows");
    let queued = s.agent.run.take_deferred_images();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (queued[0].tool.as_str(), queued[0].image.media_type),
        ("browser_screenshot", "image/png")
    );
    let img = image::load_from_memory(&queued[0].image.data)
        .unwrap()
        .to_rgb8();
    assert_eq!(img.dimensions(), (800, 600));
    assert_eq!(
        img.get_pixel(100, 80).0,
        [255, 0, 0],
        "the red box is drawn"
    );
    assert_eq!(img.get_pixel(5, 5).0, [255, 255, 255]);

    std::fs::create_dir_all(s.root().join("shots")).unwrap();
    let said = s.ok(
        "browser_screenshot",
        json!({"selector": "#box", "save_to": "shots/box.png"}),
    );
    let saved = s.root().canonicalize().unwrap().join("shots/box.png");
    assert_eq!(
        said,
        format!(
            "the screenshot (200x100) follows; saved to {}",
            saved.display()
        )
    );
    let on_disk = image::load_from_memory(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!((on_disk.width(), on_disk.height()), (200, 100));
    let queued = s.agent.run.take_deferred_images();
    let img = image::load_from_memory(&queued[0].image.data)
        .unwrap()
        .to_rgb8();
    assert_eq!(img.dimensions(), (200, 100));
    assert_eq!(img.get_pixel(10, 10).0, [255, 0, 0]);

    let said = s.ok(
        "browser_screenshot",
        json!({"clip": {"x": 0, "y": 0, "width": 50, "height": 60}}),
    );
    assert_eq!(said, "the screenshot (50x60) follows");
    s.agent.run.take_deferred_images();

    // The whole 3000-pixel page, scaled to 1000 pixels on its long side.
    let said = s.ok("browser_screenshot", json!({"full_page": true}));
    assert_eq!(
        said,
        "the screenshot follows at 267x1000 (original 800x3000)"
    );
    s.agent.run.take_deferred_images();

    let e = s.err("browser_screenshot", json!({"save_to": "/tmp/outside.png"}));
    assert!(e.contains("not within the agent's workspace"), "{e}");
    assert!(s.agent.run.take_deferred_images().is_empty());
}

#[test]
fn browser_waits_are_bounded_by_their_timeouts() {
    let Some(s) = Setup::new() else { return };
    s.open("/form");
    let started = Instant::now();
    let e = s.err(
        "browser_page",
        json!({"action": "navigate", "url": format!("{}/slow", s.base), "timeout_ms": 1500}),
    );
    assert!(e.contains("timed out"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );

    let started = Instant::now();
    let e = s.err(
        "browser_interact",
        json!({"action": "wait", "selector": "#never", "timeout_ms": 300}),
    );
    assert_eq!(e, "no element matches '#never' after 300 ms");
    assert!(started.elapsed() < Duration::from_secs(5));
    let e = s.err("browser_page", json!({"action": "list", "timeout_ms": 0}));
    assert!(e.starts_with("timeout_ms must be between 1 and"), "{e}");

    // The browser still works after a timed-out navigation.
    s.open("/");
    let title = s.ok("browser_evaluate", json!({"expression": "document.title"}));
    assert_eq!(title, "Home page");
}

/// The processes of process group `pgid` that are still alive (zombies left to init are not).
#[cfg(target_os = "linux")]
fn live_group_members(pgid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            found.push(pid);
        }
    }
    found
}

#[cfg(target_os = "linux")]
#[test]
fn browser_processes_are_killed_and_reaped_on_close_and_on_drop() {
    let Some(s) = Setup::new() else { return };
    s.open("/");
    let session = s.agent.browser().unwrap().clone();
    let first = session.pid().unwrap();
    assert!(
        live_group_members(first).contains(&first),
        "the browser runs in its own process group"
    );
    let proc_dir = |pid: u32| Path::new("/proc").join(pid.to_string());

    // close(): gone now, and the next call starts a fresh browser.
    session.close();
    assert!(!session.is_running());
    assert!(!proc_dir(first).exists(), "browser {first} was not reaped");
    let pages = s.open("/form");
    assert_eq!(pages[0]["title"], "Form");
    let second = session.pid().unwrap();
    assert_ne!(first, second);

    // Dropping the last handle closes it too.
    drop(session);
    drop(s);
    assert!(
        !proc_dir(second).exists(),
        "browser {second} was not reaped"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    for pgid in [first, second] {
        while !live_group_members(pgid).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            live_group_members(pgid),
            Vec::<u32>::new(),
            "helpers of {pgid} live on"
        );
    }
}

#[test]
fn browser_commands_that_never_answer_fail_with_a_timeout() {
    let Some(s) = Setup::with(|c| c.command_timeout = Duration::from_millis(1000)) else {
        return;
    };
    s.open("/");
    for expression in ["new Promise(() => {})", "(() => { while (true) {} })()"] {
        let started = Instant::now();
        let e = s.err("browser_evaluate", json!({ "expression": expression }));
        assert_eq!(
            e,
            "the script did not finish: the browser did not answer Runtime.evaluate within 1000 ms",
            "{expression}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{expression}: {:?}",
            started.elapsed()
        );
    }
    // The endless loop was terminated: the page answers again.
    assert_eq!(s.ok("browser_evaluate", json!({"expression": "1 + 1"})), 2);
}

#[test]
fn browser_pages_in_the_workspace_load_no_file_from_outside_it() {
    let Some(s) = Setup::new() else { return };
    let outside = Scratch::new();
    let red_page = "<body style='margin:0;background:#f00'></body>";
    outside.write("red.html", red_page);
    s.dir.write("red.html", red_page);
    let mut png = Vec::new();
    image::RgbImage::from_pixel(4, 4, image::Rgb([0, 0, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    std::fs::write(outside.path().join("blue.png"), &png).unwrap();
    std::fs::write(s.root().join("blue.png"), &png).unwrap();
    let frames = |dir: &Path| {
        format!(
            "<body style='margin:0'><iframe src='file://{0}/red.html' style='border:0;width:100px;height:100px'></iframe><img id=img src='file://{0}/blue.png'></body>",
            dir.display()
        )
    };
    // The same page twice: framing the workspace's own files, and framing the outside's.
    s.dir.write("inside.html", &frames(s.root()));
    s.dir.write("outside.html", &frames(outside.path()));
    let mut seen = Vec::new();
    for page in ["inside.html", "outside.html"] {
        let url = format!("file://{}/{page}", s.root().display());
        s.ok("browser_page", json!({"action": "navigate", "url": url}));
        let width = s.ok(
            "browser_evaluate",
            json!({"expression": "document.getElementById('img').naturalWidth"}),
        );
        s.ok(
            "browser_screenshot",
            json!({"clip": {"x": 0, "y": 0, "width": 100, "height": 100}}),
        );
        let shot = s.agent.run.take_deferred_images();
        let pixel = image::load_from_memory(&shot[0].image.data)
            .unwrap()
            .to_rgb8()
            .get_pixel(50, 50)
            .0;
        seen.push((page, width, pixel == [255, 0, 0]));
    }
    assert_eq!(
        seen,
        [
            ("inside.html", json!(4), true),
            ("outside.html", json!(0), false)
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_browser_that_exits_at_start_is_an_error_that_quotes_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new();
    let fake = dir.write(
        "chromium",
        "#!/bin/sh\necho 'cannot open display: :0' >&2\nexit 1\n",
    );
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let toolbox = ToolBox::new().with_defaults(&["browser"]).unwrap();
    let agent = AgentHandle::new("tester").with_browser(BrowserConfig {
        chromium_path: fake.clone(),
        ..BrowserConfig::default()
    });
    let started = Instant::now();
    // Another test's fork may still hold the script open for writing while it execs
    // (ETXTBSY, "Text file busy"): that race is the test's, so try again.
    let mut e = String::new();
    for _ in 0..50 {
        e = call(&toolbox, &agent, "browser_page", json!({"action": "list"})).unwrap_err();
        if !e.contains("Text file busy") {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The fake may exit before or after the first command reaches its pipe: the read side
    // then sees the pipe closed, the write side a broken pipe. Both quote what it said.
    let head = format!(
        "cannot start the browser {}: the browser is gone: ",
        fake.display()
    );
    let how = e.strip_prefix(&head).unwrap_or_else(|| panic!("{e}"));
    assert!(
        [
            "the browser closed its pipe; it said: cannot open display: :0",
            "cannot write to its pipe: Broken pipe (os error 32); it said: cannot open display: :0",
        ]
        .contains(&how),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!agent.browser().unwrap().is_running());
}

#[test]
fn a_page_that_closes_itself_leaves_the_list() {
    let Some(s) = Setup::new() else { return };
    s.open("/");
    let pages = s.ok("browser_page", json!({"action": "new"}));
    let first = pages[0]["id"].clone();
    let second = pages[1]["id"].clone();
    // A page with no history may close itself.
    s.ok(
        "browser_evaluate",
        json!({"expression": "setTimeout(() => window.close(), 0), 1"}),
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    let pages = loop {
        let pages = s.ok("browser_page", json!({"action": "list"}));
        if pages.as_array().unwrap().len() == 1 || Instant::now() > deadline {
            break pages;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(pages.as_array().unwrap().len(), 1, "{pages}");
    assert_eq!(pages[0]["id"], first);
    assert_eq!(pages[0]["current"], true);
    let e = s.err(
        "browser_page",
        json!({"action": "select", "page_id": second}),
    );
    assert!(e.starts_with("no page"), "{e}");
    assert_eq!(
        s.ok("browser_evaluate", json!({"expression": "document.title"})),
        "Home page"
    );
}

/// The name the test server gives its download, unique to this test process.
fn download_name() -> String {
    format!("cmdguard-download-{}.bin", std::process::id())
}

#[test]
fn browser_downloads_nothing() {
    let Some(s) = Setup::new() else { return };
    s.open("/download");
    s.ok(
        "browser_interact",
        json!({"action": "click", "selector": "#get"}),
    );
    // Where Chromium would put it: the user's Downloads (headless downloads by default), the
    // working directory, the workspace.
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let places: Vec<std::path::PathBuf> = [
        home.map(|h| h.join("Downloads")),
        std::env::current_dir().ok(),
        Some(s.root().to_path_buf()),
    ]
    .into_iter()
    .flatten()
    .map(|dir| dir.join(download_name()))
    .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let found: Vec<_> = places.iter().filter(|p| p.exists()).collect();
    for p in &found {
        let _ = std::fs::remove_file(p);
    }
    assert_eq!(
        found,
        Vec::<&std::path::PathBuf>::new(),
        "a download was written"
    );
    // The page is still there to use.
    assert_eq!(s.ok("browser_evaluate", json!({"expression": "1"})), 1);
}
