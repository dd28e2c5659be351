//! tool/groups/browser.rs: the `browser` group — a real headless Chromium driven over the
//! DevTools protocol by the crate's own small client ([`cdp`], the `--remote-debugging-pipe`
//! transport: no websocket, no HTTP, no extra crates). The runtime gives the agent a
//! [`BrowserConfig`] with [`AgentHandle::with_browser`](crate::tool::AgentHandle::with_browser);
//! the browser starts on the first call and is closed when the last handle is dropped.
//!
//! The browser is a network tool: it reaches every http(s) host the machine reaches, like the
//! `cmd` group's `curl` would, services on localhost and the local network included. Of the
//! local disk it opens only `file://` URLs of files inside
//! the agent's workspace: the URL a tool is given is checked, every `file:` request a page
//! makes (a frame, an image, a link it follows) is intercepted and failed when it leads out of
//! the workspace, and a page whose address left the workspace is neither read nor driven.
//! Every target the browser makes (a window a page opens with `window.open` or a
//! `target=_blank` link, a frame in another process, a worker) is attached paused and gets
//! the same interception before it runs. What a page makes the tools return is bounded: a
//! log entry's text ([`MAX_LOG_TEXT_CHARS`]), the log text of one `browser_logs` call and the
//! JSON of one `browser_evaluate` result ([`MAX_RESULT_CHARS`]), each cut said; the client
//! bounds one message from the browser and the events it keeps per page (see [`cdp`]).
//! Downloads are refused. Screenshots saved with `save_to` stay inside the workspace and ask before overwriting a
//! file, as `write_file` does.

mod cdp;

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::tool::{Crop, Tool, ToolCallContext, Workspace, defer_tool_image, fit_image, tool};

use cdp::{CdpError, Chromium, Event};

/// The most characters `browser_snapshot` returns at once.
pub const MAX_SNAPSHOT_CHARS: usize = 100_000;
/// The most log entries kept per browser; older ones are dropped first.
pub const MAX_LOG_ENTRIES: usize = 1000;
/// The most characters of one log entry's text kept; the rest is cut and the cut said.
pub const MAX_LOG_TEXT_CHARS: usize = 10_000;
/// The most characters of log text one `browser_logs` call returns, and of the JSON of one
/// `browser_evaluate` result: a page decides how much it logs or returns.
pub const MAX_RESULT_CHARS: usize = MAX_SNAPSHOT_CHARS;
/// The longest wait any browser tool accepts, in milliseconds.
pub const MAX_TIMEOUT_MS: u64 = 120_000;
/// How long the browser gets to start and answer its first command.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

/// The launch flags besides `--headless`, `--disable-gpu`, `--no-sandbox` (as root only),
/// `--window-size`, the pipe and the fresh `--user-data-dir`: no background traffic of the
/// browser's own, no first-run UI.
pub const LAUNCH_FLAGS: &[&str] = &[
    // The browser phones home for nothing: no component or safe-browsing updates, no sync,
    // no QUIC probes; only the pages the agent opens make requests.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--no-first-run",
    "--no-default-browser-check",
    // Containers have a tiny /dev/shm.
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--password-store=basic",
    "--use-mock-keychain",
    "--hide-scrollbars",
];

/// The tools of the group, in the order a model sees them.
pub fn tools() -> Vec<Tool> {
    vec![
        browser_page_tool(),
        browser_resize_tool(),
        browser_snapshot_tool(),
        browser_interact_tool(),
        browser_evaluate_tool(),
        browser_logs_tool(),
        browser_screenshot_tool(),
    ]
}

type Ctx = ToolCallContext<()>;
type Outcome<T = String> = Result<T, String>;

/// How to start the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserConfig {
    /// The Chromium (or Chrome) executable.
    pub chromium_path: PathBuf,
    /// The window (and first viewport) size, width and height in CSS pixels.
    pub window_size: (u32, u32),
    /// Flags added after [`LAUNCH_FLAGS`].
    pub extra_args: Vec<String>,
    /// How long any one command may take the browser to answer (a script that never ends, a
    /// hung renderer); navigation and waits have their own `timeout_ms`.
    pub command_timeout: Duration,
}

impl Default for BrowserConfig {
    /// Debian's `/usr/bin/chromium`, 1280×800, commands answered within 30 seconds.
    fn default() -> Self {
        BrowserConfig {
            chromium_path: PathBuf::from("/usr/bin/chromium"),
            window_size: (1280, 800),
            extra_args: Vec::new(),
            command_timeout: Duration::from_secs(30),
        }
    }
}

/// One browser for one configuration, started lazily by the first browser tool call and
/// closed (the process group killed, the process reaped, its profile directory removed) when
/// dropped or [closed](BrowserSession::close).
///
/// Clones of an [`AgentHandle`](crate::tool::AgentHandle) share it; the `file:` requests of
/// its pages are judged against the workspace of the latest browser tool call.
pub struct BrowserSession {
    config: BrowserConfig,
    state: Mutex<Option<Running>>,
    /// The workspace of the latest call: `file:` requests of the pages are judged against it.
    workspace: Arc<Mutex<Option<Workspace>>>,
}

struct Running {
    browser: Chromium,
    pages: Vec<OpenPage>,
    current: Option<u32>,
    next_id: u32,
    logs: VecDeque<LogEntry>,
    timeout: Duration,
}

/// A page the tools opened: its id for the model, its target and its flattened session.
struct OpenPage {
    id: u32,
    target: String,
    session: String,
}

impl BrowserSession {
    /// A session that will start the browser `config` describes when first used.
    pub fn new(config: BrowserConfig) -> Self {
        BrowserSession {
            config,
            state: Mutex::new(None),
            workspace: Arc::new(Mutex::new(None)),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &BrowserConfig {
        &self.config
    }

    /// True once the browser has been started (and not closed).
    pub fn is_running(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The browser's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|r| r.browser.pid())
    }

    /// Closes the browser now (its pages are lost); the next browser tool call starts a fresh
    /// one.
    pub fn close(&self) {
        let running = self
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(running);
    }

    fn with<T>(
        &self,
        workspace: Option<&Workspace>,
        f: impl FnOnce(&mut Running) -> Outcome<T>,
    ) -> Outcome<T> {
        *self
            .workspace
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = workspace.cloned();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.is_none() {
            *state = Some(launch(&self.config, Arc::clone(&self.workspace))?);
        }
        let Some(running) = state.as_mut() else {
            return Err("the browser is not running".to_owned());
        };
        running.collect_logs();
        let result = f(running);
        // A browser whose connection died is dropped, so the next call starts a fresh one.
        if result.is_err() && !running.browser.is_connected() {
            *state = None;
        }
        result
    }
}

impl fmt::Debug for BrowserSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BrowserSession")
            .field("config", &self.config)
            .field("running", &self.is_running())
            .finish()
    }
}

fn is_root() -> bool {
    #[cfg(unix)]
    {
        rustix::process::geteuid().is_root()
    }
    #[cfg(not(unix))]
    {
        false
    }
}

fn launch(config: &BrowserConfig, workspace: Arc<Mutex<Option<Workspace>>>) -> Outcome<Running> {
    if !config.chromium_path.is_file() {
        return Err(format!(
            "no browser at {}: install chromium (apt-get install chromium) or set BrowserConfig::chromium_path",
            config.chromium_path.display()
        ));
    }
    let (width, height) = config.window_size;
    let mut args: Vec<String> = vec!["--headless".to_owned(), "--disable-gpu".to_owned()];
    // Chromium's sandbox refuses to start as root; everyone else keeps it.
    if is_root() {
        args.push("--no-sandbox".to_owned());
    }
    args.extend(LAUNCH_FLAGS.iter().map(|f| (*f).to_owned()));
    args.push(format!("--window-size={width},{height}"));
    args.extend(config.extra_args.iter().cloned());
    args.push("about:blank".to_owned());
    let filter: cdp::RequestFilter = Arc::new(move |url: &str| {
        let workspace = workspace.lock().unwrap_or_else(PoisonError::into_inner);
        request_allowed(workspace.as_ref(), url)
    });
    let browser = Chromium::launch(&config.chromium_path, &args, LAUNCH_TIMEOUT, filter)
        .map_err(|e| e.to_string())?;
    let mut running = Running {
        browser,
        pages: Vec::new(),
        current: None,
        next_id: 1,
        logs: VecDeque::new(),
        timeout: config.command_timeout,
    };
    // A download would land in ~/Downloads, outside the workspace: none starts.
    running.browser_call("Browser.setDownloadBehavior", json!({"behavior": "deny"}))?;
    // Every target the browser makes from now on (a window a page opens, a tab a link with
    // `target=_blank` opens) is attached paused; the client turns on its `file:`
    // interception before it runs (see `cdp::Reader::intercept`).
    running.browser_call("Target.setAutoAttach", cdp::auto_attach())?;
    // The window Chromium opens at start becomes page 1, or a new one when there is none.
    let targets = running.browser_call("Target.getTargets", json!({}))?;
    let first = targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["type"] == "page")
        .and_then(|t| t["targetId"].as_str())
        .map(str::to_owned);
    let target = match first {
        Some(target) => target,
        None => running.create_target()?,
    };
    running.adopt(target)?;
    Ok(running)
}

impl Running {
    fn browser_call(&self, method: &str, params: Value) -> Outcome<Value> {
        self.browser
            .call(None, method, params, self.timeout)
            .map_err(|e| e.to_string())
    }

    fn create_target(&self) -> Outcome<String> {
        let created = self.browser_call("Target.createTarget", json!({"url": "about:blank"}))?;
        created["targetId"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| "the browser opened no page".to_owned())
    }

    /// Attaches to `target` (a flattened session), turns on the events the tools read and
    /// the interception of `file:` requests, and makes it the current page.
    fn adopt(&mut self, target: String) -> Outcome<u32> {
        let attached = self.browser_call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        )?;
        let Some(session) = attached["sessionId"].as_str().map(str::to_owned) else {
            return Err("the browser gave no session for the page".to_owned());
        };
        let page = Page {
            browser: &self.browser,
            target: &target,
            session: &session,
            timeout: self.timeout,
        };
        // Interception first: nothing of the page loads before the filter is in place.
        page.call("Fetch.enable", cdp::fetch_patterns())?;
        // The page's own targets (frames in another process, workers) likewise.
        page.call("Target.setAutoAttach", cdp::auto_attach())?;
        page.call("Page.enable", json!({}))?;
        page.call("Page.setLifecycleEventsEnabled", json!({"enabled": true}))?;
        page.call("Runtime.enable", json!({}))?;
        page.call("Log.enable", json!({}))?;
        let id = self.next_id;
        self.next_id += 1;
        self.pages.push(OpenPage {
            id,
            target,
            session,
        });
        self.current = Some(id);
        Ok(id)
    }

    fn page(&self, id: Option<u32>) -> Outcome<Page<'_>> {
        let Some(id) = id.or(self.current) else {
            return Err("no page is open: open one with browser_page(action=\"new\")".to_owned());
        };
        self.pages
            .iter()
            .find(|p| p.id == id)
            .map(|p| Page {
                browser: &self.browser,
                target: &p.target,
                session: &p.session,
                timeout: self.timeout,
            })
            .ok_or_else(|| {
                format!("no page {id}: browser_page(action=\"list\") shows the open pages")
            })
    }

    /// The open pages. A page that closed itself (`window.close()`) is dropped from the list
    /// here.
    fn list(&mut self) -> Outcome<Vec<PageInfo>> {
        let mut found = Vec::new();
        let mut gone = Vec::new();
        for p in &self.pages {
            let info = self.browser.call(
                None,
                "Target.getTargetInfo",
                json!({"targetId": p.target}),
                self.timeout,
            );
            match info {
                Ok(info) => {
                    let text =
                        |key: &str| info["targetInfo"][key].as_str().unwrap_or("").to_owned();
                    found.push(PageInfo {
                        id: p.id,
                        url: text("url"),
                        title: text("title"),
                        current: false,
                    });
                }
                Err(CdpError::Protocol { .. }) => gone.push(p.session.clone()),
                Err(e) => return Err(e.to_string()),
            }
        }
        for session in &gone {
            self.browser.forget_session(session);
        }
        self.pages.retain(|p| !gone.contains(&p.session));
        if !self.pages.iter().any(|p| Some(p.id) == self.current) {
            self.current = self.pages.last().map(|p| p.id);
        }
        for info in &mut found {
            info.current = Some(info.id) == self.current;
        }
        Ok(found)
    }

    /// Moves the console messages, exceptions and browser log entries the pages sent since
    /// the last call into the log, and drops the other events no wait will ask for, so that
    /// the client's bounded buffers keep room for the log.
    fn collect_logs(&mut self) {
        for page in &self.pages {
            for event in self.browser.take_events(&page.session, is_log_event) {
                if let Some(entry) = log_entry(page.id, &event) {
                    if self.logs.len() >= MAX_LOG_ENTRIES {
                        self.logs.pop_front();
                    }
                    self.logs.push_back(entry);
                }
            }
            self.browser
                .take_events(&page.session, |e| !is_navigation_event(e));
        }
        // The browser's own events (targets coming and going) are not read.
        self.browser.take_events("", |_| true);
    }
}

/// One open page, borrowed for one tool call.
struct Page<'a> {
    browser: &'a Chromium,
    target: &'a str,
    session: &'a str,
    timeout: Duration,
}

impl Page<'_> {
    fn call(&self, method: &str, params: Value) -> Outcome<Value> {
        self.call_within(method, params, self.timeout)
            .map_err(|e| e.to_string())
    }

    fn call_within(&self, method: &str, params: Value, limit: Duration) -> Result<Value, CdpError> {
        self.browser.call(Some(self.session), method, params, limit)
    }

    fn url(&self) -> Outcome<String> {
        let info = self.browser.call(
            None,
            "Target.getTargetInfo",
            json!({"targetId": self.target}),
            self.timeout,
        );
        let info = info.map_err(|e| e.to_string())?;
        Ok(info["targetInfo"]["url"].as_str().unwrap_or("").to_owned())
    }

    /// True for a lifecycle event `name` of this page's main frame and document `loader`.
    fn is_lifecycle(&self, event: &Event, loader: &str, name: &str) -> bool {
        event.method == "Page.lifecycleEvent"
            && event.params["frameId"] == self.target
            && event.params["loaderId"] == loader
            && event.params["name"] == name
    }

    /// Drops the buffered navigation events, before a navigation whose own are awaited.
    fn forget_navigation_events(&self) {
        self.browser.take_events(self.session, is_navigation_event);
    }
}

/// The events navigation waits for (see [`navigate`] and [`reload`]).
fn is_navigation_event(event: &Event) -> bool {
    matches!(
        event.method.as_str(),
        "Page.lifecycleEvent" | "Page.frameNavigated"
    )
}

fn is_log_event(event: &Event) -> bool {
    matches!(
        event.method.as_str(),
        "Runtime.consoleAPICalled" | "Runtime.exceptionThrown" | "Log.entryAdded"
    )
}

/// One console message, uncaught exception or browser log entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// The page it came from.
    pub page_id: u32,
    /// `console`, `exception` or `browser`.
    pub kind: &'static str,
    /// `log`, `info`, `warning`, `error`, `debug`, …
    pub level: String,
    /// The message.
    pub text: String,
}

/// `text` cut to `max` characters, with what was cut said at its end.
fn cut_text(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => format!(
            "{}… [cut: {} more characters]",
            &text[..at],
            text[at..].chars().count()
        ),
    }
}

/// The log entry an event makes, its text cut to [`MAX_LOG_TEXT_CHARS`].
fn log_entry(page_id: u32, event: &Event) -> Option<LogEntry> {
    let mut entry = raw_log_entry(page_id, event)?;
    entry.text = cut_text(&entry.text, MAX_LOG_TEXT_CHARS);
    Some(entry)
}

fn raw_log_entry(page_id: u32, event: &Event) -> Option<LogEntry> {
    let p = &event.params;
    let text_of = |v: &Value| v.as_str().unwrap_or("").to_owned();
    match event.method.as_str() {
        "Runtime.consoleAPICalled" => {
            let text = p["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|arg| match (&arg["value"], &arg["description"]) {
                    (Value::String(s), _) => s.clone(),
                    (Value::Null, Value::String(d)) => d.clone(),
                    (Value::Null, _) => text_of(&arg["type"]),
                    (v, _) => v.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" ");
            Some(LogEntry {
                page_id,
                kind: "console",
                level: text_of(&p["type"]),
                text,
            })
        }
        "Runtime.exceptionThrown" => {
            let details = &p["exceptionDetails"];
            let text = details["exception"]["description"]
                .as_str()
                .unwrap_or_else(|| details["text"].as_str().unwrap_or("exception"))
                .to_owned();
            Some(LogEntry {
                page_id,
                kind: "exception",
                level: "error".to_owned(),
                text,
            })
        }
        "Log.entryAdded" => Some(LogEntry {
            page_id,
            kind: "browser",
            level: text_of(&p["entry"]["level"]),
            text: text_of(&p["entry"]["text"]),
        }),
        _ => None,
    }
}

fn session(ctx: &Ctx) -> Outcome<Arc<BrowserSession>> {
    ctx.agent().browser().cloned().ok_or_else(|| {
        "no browser is configured: the runtime gives the agent one with AgentHandle::with_browser"
            .to_owned()
    })
}

fn timeout(ms: u64) -> Outcome<Duration> {
    if ms == 0 || ms > MAX_TIMEOUT_MS {
        return Err(format!("timeout_ms must be between 1 and {MAX_TIMEOUT_MS}"));
    }
    Ok(Duration::from_millis(ms))
}

/// The scheme of `url`, lowercased, when it has a well-formed one.
fn scheme(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| scheme.to_ascii_lowercase())
}

/// The path a `file:` URL names — `file:///p` or `file://localhost/p`, percent-decoded, query
/// and fragment cut off — or `None` for any other form and for what Chromium might read
/// differently from us: backslashes, encoded slashes, backslashes or NULs, bytes that are not
/// UTF-8.
fn file_url_path(url: &str) -> Option<String> {
    let rest = url
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("file://"))
        .and(url.get(7..))?;
    let slash = rest.find('/')?;
    let host = &rest[..slash];
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = rest[slash..].split(['?', '#']).next()?;
    let lower = path.to_ascii_lowercase();
    if path.contains('\\') || ["%2f", "%5c", "%00"].iter().any(|e| lower.contains(e)) {
        return None;
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The `file://` URL of an absolute path, every byte but unreserved ones and `/` escaped.
fn file_url(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    let mut url = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    Some(url)
}

/// True when `url` is a `file:` URL of something inside `workspace`. Everything else is
/// false: with no workspace no file opens.
fn file_url_allowed(workspace: Option<&Workspace>, url: &str) -> bool {
    // A page's own request for a credential file (`<script src='.env'>`) fails: nobody is
    // there to ask, and the page could send it anywhere.
    workspace.is_some_and(|ws| {
        file_url_path(url).is_some_and(|p| {
            ws.resolve(&p)
                .is_ok_and(|r| ws.sensitive_named(&p, &r).is_none())
        })
    })
}

/// True when a request a page makes (paused by [`cdp::INTERCEPTED`]) may go on: a `file:` URL
/// of the workspace that is no credential file ([`file_url_allowed`]), or any other URL but
/// a cloud metadata service's ([`metadata_service`]).
fn request_allowed(workspace: Option<&Workspace>, url: &str) -> bool {
    match scheme(url).as_deref() {
        Some("file") => file_url_allowed(workspace, url),
        _ => {
            metadata_service(url).is_none()
                && workspace.is_none_or(|ws| served_credential(ws, url).is_none())
        }
    }
}

/// Host names of cloud instance metadata services (lower case): Google's, AWS's, Tencent's,
/// and the bare names some clouds resolve. Their addresses are [`metadata_address`]'s.
const METADATA_HOSTS: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
    "metadata.azure.internal",
];

/// Why `url` (an http(s) or ws(s) URL) names a cloud instance metadata service, which hands
/// the machine's cloud credentials to any program on it that asks (`curl` of it asks in the
/// analyser): the host is one of [`METADATA_HOSTS`] or an address [`metadata_address`]
/// takes for one, in any form the browser reads (`0xa9fea9fe`, `2852039166`). A name that
/// only resolves to such an address (a DNS record of the model's choosing) is not seen, a
/// limit.
fn metadata_service(url: &str) -> Option<String> {
    let (host, _) = url_parts(url)?;
    let host = host.as_str();
    let why = |what: &str| Some(format!("{host} is {what}"));
    if METADATA_HOSTS.contains(&host) {
        return why("the name of a cloud instance metadata service");
    }
    let ip = match whatwg_ipv4(host) {
        Some(v4) => std::net::IpAddr::V4(v4),
        None => std::net::IpAddr::V6(host.parse().ok()?),
    };
    if metadata_address(ip) {
        return why("a cloud instance metadata service's address");
    }
    None
}

/// The host (lower case, without a trailing dot, an IPv6 address without its brackets) and
/// the path (percent-decoded, without query and fragment) of an http(s)-like `url`.
fn url_parts(url: &str) -> Option<(String, String)> {
    let (_, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host.split(':').next()?
    };
    let host = host.to_ascii_lowercase().trim_end_matches('.').to_owned();
    let path = tail.split(['?', '#']).next().unwrap_or("");
    let mut bytes = Vec::with_capacity(path.len());
    let raw = path.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let hex = (raw[i] == b'%')
            .then(|| raw.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match hex {
            Some(b) => {
                bytes.push(b);
                i += 3;
            }
            None => {
                bytes.push(raw[i]);
                i += 1;
            }
        }
    }
    Some((host, String::from_utf8_lossy(&bytes).replace('\\', "/")))
}

/// Why `url` would read a credential file over a web server on this machine: its host is a
/// loopback one (`localhost`, `127.0.0.0/8`, `::1`) and its path, taken as a path of the
/// workspace, is a credential file's ([`Workspace::sensitive`]): `http://127.0.0.1:8000/.env`
/// from a `python3 -m http.server` the user allowed is the workspace's `.env`.
fn served_credential(ws: &Workspace, url: &str) -> Option<String> {
    let (host, path) = url_parts(url)?;
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || match whatwg_ipv4(&host) {
            Some(v4) => v4.is_loopback(),
            None => host.parse::<std::net::Ipv6Addr>().is_ok_and(|v6| {
                v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
            }),
        };
    let relative = path.trim_start_matches('/');
    if !loopback || relative.is_empty() {
        return None;
    }
    let pattern = ws.sensitive(&ws.workdir().join(relative))?;
    Some(format!(
        "it names a credential file ([sensitive] {pattern}) on a web server of this machine"
    ))
}

/// True for an address a cloud instance metadata service answers on: IPv4 link-local
/// (`169.254.0.0/16`: AWS, Azure, GCP, Oracle, DigitalOcean, ECS task credentials at
/// `169.254.170.2`), Alibaba's `100.100.100.200`, AWS's IPv6 `fd00:ec2::254`, IPv6
/// link-local (`fe80::/10`), and those addresses mapped into IPv6.
fn metadata_address(ip: std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => {
            v4.is_link_local() || v4 == std::net::Ipv4Addr::new(100, 100, 100, 200)
        }
        std::net::IpAddr::V6(v6) => {
            v6.segments()[0] & 0xffc0 == 0xfe80
                || v6 == std::net::Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| metadata_address(std::net::IpAddr::V4(v4)))
        }
    }
}

/// `host` read as an IPv4 address the way browsers read one (the URL standard): one to four
/// dot-separated numbers, each decimal, hexadecimal (`0x`) or octal (a leading `0`), the
/// last filling the bytes left (`169.254.43518`, `0xa9fea9fe`); `None` for anything else.
fn whatwg_ipv4(host: &str) -> Option<std::net::Ipv4Addr> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let parts: Vec<&str> = host.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut numbers = Vec::with_capacity(parts.len());
    for part in &parts {
        let (digits, radix) =
            if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
                (hex, 16)
            } else if part.len() > 1 && part.starts_with('0') {
                (&part[1..], 8)
            } else {
                (*part, 10)
            };
        let n = if digits.is_empty() {
            0
        } else {
            u64::from_str_radix(digits, radix).ok()?
        };
        numbers.push(n);
    }
    let (last, first) = numbers.split_last()?;
    if first.iter().any(|n| *n > 255) || *last >= 256u64.pow(5 - numbers.len() as u32) {
        return None;
    }
    let mut value = *last;
    for (i, n) in first.iter().enumerate() {
        value += n << (8 * (3 - i));
    }
    u32::try_from(value).ok().map(std::net::Ipv4Addr::from)
}

/// The address the browser may open for `raw`: http(s) anywhere, `about:blank`, and `file://`
/// only for a file inside the workspace (rebuilt from its resolved path).
fn checked_url(ctx: &Ctx, raw: &str) -> Outcome<String> {
    let raw = raw.trim();
    let not_a_url = || format!("'{raw}' is not a URL; give a full http:// or https:// address");
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(not_a_url());
    }
    let scheme = scheme(raw).ok_or_else(not_a_url)?;
    match scheme.as_str() {
        "http" | "https" => {
            let rest = &raw[scheme.len() + 1..];
            match rest.strip_prefix("//") {
                Some(host) if !host.is_empty() && !host.starts_with('/') => {
                    if let Some(why) = metadata_service(raw) {
                        return Err(format!(
                            "the browser does not open '{raw}': {why}, which hands out this \
                             machine's cloud credentials"
                        ));
                    }
                    // Nobody is asked: the request would fail in the browser anyway (see
                    // `request_allowed`); `read_file` asks for the file itself.
                    if let Some(why) = ctx
                        .agent()
                        .workspace()
                        .and_then(|ws| served_credential(ws, raw))
                    {
                        return Err(format!(
                            "the browser does not open '{raw}': {why}; read the file with \
                             read_file, which asks the user"
                        ));
                    }
                    Ok(raw.to_owned())
                }
                _ => Err(not_a_url()),
            }
        }
        "about" if raw.eq_ignore_ascii_case("about:blank") => Ok("about:blank".to_owned()),
        "file" => {
            let path = file_url_path(raw)
                .ok_or_else(|| format!("'{raw}' is not a local file URL (file:///path)"))?;
            let ws = ctx.agent().workspace().ok_or_else(|| {
                "file:// URLs need a workspace (AgentHandle::with_workspace)".to_owned()
            })?;
            let resolved = ws.resolve_read(&path).map_err(|e| e.to_string())?;
            file_url(&resolved)
                .ok_or_else(|| format!("cannot make a URL of {}", resolved.display()))
        }
        other => Err(format!(
            "the browser opens only http(s) URLs, about:blank and file:// URLs inside the workspace, not '{other}:'"
        )),
    }
}

/// Refuses to read or drive a page that a link or script took somewhere the tools do not
/// open (a file outside the workspace, another scheme): the address was checked when opened,
/// the page may have moved since.
fn guard(ctx: &Ctx, page: &Page<'_>) -> Outcome<()> {
    let url = page.url()?;
    let ok = match scheme(&url).as_deref() {
        Some("http" | "https") => metadata_service(&url).is_none(),
        Some("about") => url == "about:blank",
        Some("file") => file_url_allowed(ctx.agent().workspace(), &url),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the page left the workspace: it is at '{url}', which the browser tools do not read; navigate it elsewhere"
        ))
    }
}

/// When `browser_page` returns after opening an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    /// After the load event (images, scripts and styles loaded).
    Load,
    /// Once the HTML is parsed.
    DomContentLoaded,
    /// Right after the navigation is committed.
    Commit,
}

impl WaitUntil {
    /// The lifecycle event that ends the wait, and the name the model knows.
    fn event(self) -> Option<(&'static str, &'static str)> {
        match self {
            WaitUntil::Load => Some(("load", "load")),
            WaitUntil::DomContentLoaded => Some(("DOMContentLoaded", "domcontentloaded")),
            WaitUntil::Commit => None,
        }
    }
}

/// What `browser_page` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PageAction {
    /// List the open pages.
    List,
    /// Open a new page (at `url` when given) and make it current.
    New,
    /// Open `url` in the page.
    Navigate,
    /// Reload the page.
    Reload,
    /// Make the page current.
    Select,
    /// Close the page.
    Close,
}

/// One open page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageInfo {
    /// Its id, for `page_id`.
    pub id: u32,
    /// Its address.
    pub url: String,
    /// Its title.
    pub title: String,
    /// True for the page the other tools use when no `page_id` is given.
    pub current: bool,
}

/// Waits for the lifecycle event `until` of the document `loader` of the page's main frame,
/// or stops the loading and fails at `deadline`.
fn wait_loaded(
    page: &Page<'_>,
    loader: &str,
    until: WaitUntil,
    deadline: Instant,
    url: &str,
    limit: Duration,
) -> Outcome<()> {
    let Some((event, name)) = until.event() else {
        return Ok(());
    };
    page.browser
        .wait_event(page.session, event, deadline, |e| {
            page.is_lifecycle(e, loader, event)
        })
        .map(|_| ())
        .map_err(|e| {
            let _ = page.call("Page.stopLoading", json!({}));
            match e {
                CdpError::Timeout { .. } => format!(
                    "timed out after {} ms waiting for {url} to reach '{name}'",
                    limit.as_millis()
                ),
                other => other.to_string(),
            }
        })
}

/// Opens `url` in `page` and waits as `until` says, `limit` in all; on a timeout the loading
/// is stopped.
fn navigate(page: &Page<'_>, url: &str, until: WaitUntil, limit: Duration) -> Outcome<()> {
    let deadline = Instant::now() + limit;
    page.forget_navigation_events();
    let opened = page
        .call_within("Page.navigate", json!({"url": url}), limit)
        .map_err(|e| {
            let _ = page.call("Page.stopLoading", json!({}));
            match e {
                CdpError::Timeout { .. } => {
                    format!("timed out after {} ms opening {url}", limit.as_millis())
                }
                other => format!("cannot open {url}: {other}"),
            }
        })?;
    if let Some(error) = opened["errorText"].as_str().filter(|e| !e.is_empty()) {
        return Err(format!("cannot open {url}: {error}"));
    }
    // A jump within the document (`#part`) has no new loader and nothing to wait for.
    let Some(loader) = opened["loaderId"].as_str() else {
        return Ok(());
    };
    wait_loaded(page, loader, until, deadline, url, limit)
}

/// Reloads `page` and waits as `until` says.
fn reload(page: &Page<'_>, until: WaitUntil, limit: Duration) -> Outcome<()> {
    let deadline = Instant::now() + limit;
    let url = page.url()?;
    page.forget_navigation_events();
    page.call_within("Page.reload", json!({}), limit)
        .map_err(|e| e.to_string())?;
    if until == WaitUntil::Commit {
        return Ok(());
    }
    let target = page.target;
    let navigated = page
        .browser
        .wait_event(page.session, "Page.frameNavigated", deadline, |e| {
            e.method == "Page.frameNavigated" && e.params["frame"]["id"] == target
        })
        .map_err(|e| match e {
            CdpError::Timeout { .. } => {
                format!("timed out after {} ms reloading {url}", limit.as_millis())
            }
            other => other.to_string(),
        })?;
    let loader = navigated.params["frame"]["loaderId"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    wait_loaded(page, &loader, until, deadline, &url, limit)
}

/// Manages the browser's pages: `list` them, open a `new` one (at `url` if given), `navigate`
/// to a `url`, `reload`, `select` the page the other tools use, or `close` one. Returns the
/// open pages. The browser reaches whatever this machine reaches; only http(s), about:blank
/// and file:// URLs inside the workspace open.
#[tool]
fn browser_page(
    /// `list`, `new`, `navigate`, `reload`, `select` or `close`.
    action: PageAction,
    /// The page (default: the current one).
    page_id: Option<u32>,
    /// The address, for `new` and `navigate`.
    url: Option<String>,
    /// `load`, `domcontentloaded` or `commit`: when to return after opening a page.
    #[tool(default = "load")]
    wait_until: WaitUntil,
    /// How long to wait, in milliseconds.
    #[tool(default = 30000)]
    timeout_ms: u64,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Vec<PageInfo>> {
    let limit = timeout(timeout_ms)?;
    let url = url.map(|u| checked_url(ctx, &u)).transpose()?;
    session(ctx)?.with(ctx.agent().workspace(), |b| {
        match action {
            PageAction::List => {}
            PageAction::New => {
                let target = b.create_target()?;
                let id = b.adopt(target)?;
                if let Some(url) = &url {
                    navigate(&b.page(Some(id))?, url, wait_until, limit)?;
                }
            }
            PageAction::Navigate => {
                let url = url.as_deref().ok_or("navigate needs a url")?;
                navigate(&b.page(page_id)?, url, wait_until, limit)?;
            }
            PageAction::Reload => {
                let page = b.page(page_id)?;
                guard(ctx, &page)?;
                reload(&page, wait_until, limit)?;
            }
            PageAction::Select => {
                let id = page_id.ok_or("select needs a page_id")?;
                b.page(Some(id))?;
                b.current = Some(id);
            }
            PageAction::Close => {
                let page = b.page(page_id)?;
                let (target, session) = (page.target.to_owned(), page.session.to_owned());
                b.browser_call("Target.closeTarget", json!({"targetId": target}))?;
                b.browser.forget_session(&session);
                b.pages.retain(|p| p.target != target);
                if !b.pages.iter().any(|p| Some(p.id) == b.current) {
                    b.current = b.pages.last().map(|p| p.id);
                }
            }
        }
        b.list()
    })
}

/// Sets the size of the page's viewport in CSS pixels (what `browser_screenshot` captures).
#[tool]
fn browser_resize(
    /// Width, 100 to 4000.
    width: u32,
    /// Height, 100 to 4000.
    height: u32,
    /// The page (default: the current one).
    page_id: Option<u32>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    for (name, v) in [("width", width), ("height", height)] {
        if !(100..=4000).contains(&v) {
            return Err(format!("{name} must be between 100 and 4000, not {v}"));
        }
    }
    session(ctx)?.with(ctx.agent().workspace(), |b| {
        let page = b.page(page_id)?;
        guard(ctx, &page)?;
        page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )?;
        Ok(format!("the viewport is {width}x{height}"))
    })
}

/// What `browser_snapshot` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotFormat {
    /// The accessibility tree: one line per node, `role "name"`, indented.
    Accessibility,
    /// The HTML.
    Html,
    /// The visible text as Markdown (headings, links, lists, form fields).
    Markdown,
}

/// What `browser_snapshot` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// The page's address.
    pub url: String,
    /// The requested slice of the text.
    pub content: String,
    /// Length of the whole text, in characters.
    pub total_chars: usize,
    /// Where to start to read on, when more follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_char: Option<usize>,
}

// Runs in the page: a small DOM-to-Markdown walk over what a reader sees.
const MARKDOWN_JS: &str = r#"(root) => {
  const out = [];
  const skip = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','HEAD']);
  const text = (s) => s.replace(/\s+/g, ' ');
  function walk(n) {
    if (n.nodeType === 3) { out.push(text(n.textContent)); return; }
    if (n.nodeType !== 1 || skip.has(n.tagName)) return;
    const style = window.getComputedStyle(n);
    if (style.display === 'none' || style.visibility === 'hidden') return;
    const t = n.tagName;
    const kids = () => n.childNodes.forEach(walk);
    if (/^H[1-6]$/.test(t)) { out.push('\n\n' + '#'.repeat(+t[1]) + ' '); kids(); out.push('\n\n'); }
    else if (t === 'A') { out.push('['); kids(); out.push('](' + n.href + ')'); }
    else if (t === 'LI') { out.push('\n- '); kids(); }
    else if (t === 'BR') { out.push('\n'); }
    else if (t === 'IMG') { out.push('![' + (n.alt || '') + '](' + n.src + ')'); }
    else if (t === 'PRE') { out.push('\n\n```\n' + n.innerText + '\n```\n\n'); }
    else if (t === 'INPUT' || t === 'TEXTAREA' || t === 'SELECT') {
      const label = n.name || n.id || n.type;
      out.push(' [' + t.toLowerCase() + ' ' + label + '=' + JSON.stringify(n.value) + '] ');
    }
    else if (t === 'BUTTON') { out.push(' [button '); kids(); out.push('] '); }
    else if (['P','DIV','SECTION','ARTICLE','MAIN','HEADER','FOOTER','NAV','UL','OL','TABLE','TR','FORM','BLOCKQUOTE'].includes(t)) { out.push('\n\n'); kids(); out.push('\n\n'); }
    else if (t === 'TD' || t === 'TH') { out.push(' | '); kids(); }
    else if (t === 'STRONG' || t === 'B') { out.push('**'); kids(); out.push('**'); }
    else if (t === 'EM' || t === 'I') { out.push('*'); kids(); out.push('*'); }
    else if (t === 'CODE') { out.push('`'); kids(); out.push('`'); }
    else kids();
  }
  walk(root);
  return out.join('').split('\n').map(l => l.trim()).join('\n').replace(/\n{3,}/g, '\n\n').trim();
}"#;

/// Reads the page (or the first element matching `selector`) as its accessibility tree, its
/// HTML or Markdown, `max_chars` characters from `start_char`.
#[tool]
fn browser_snapshot(
    /// `accessibility`, `html` or `markdown`.
    #[tool(default = "markdown")]
    format: SnapshotFormat,
    /// A CSS selector; default the whole page.
    selector: Option<String>,
    /// Where to start, in characters.
    #[tool(default = 0)]
    start_char: usize,
    /// How many characters at most.
    #[tool(default = 20000)]
    max_chars: usize,
    /// The page (default: the current one).
    page_id: Option<u32>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Snapshot> {
    if max_chars == 0 || max_chars > MAX_SNAPSHOT_CHARS {
        return Err(format!(
            "max_chars must be between 1 and {MAX_SNAPSHOT_CHARS}"
        ));
    }
    session(ctx)?.with(ctx.agent().workspace(), |b| {
        let page = b.page(page_id)?;
        guard(ctx, &page)?;
        let text = match format {
            SnapshotFormat::Html | SnapshotFormat::Markdown => {
                let target = match &selector {
                    Some(s) => format!("document.querySelector({})", js_string(s)),
                    None => "document.documentElement".to_owned(),
                };
                let body = match format {
                    SnapshotFormat::Html => "(el) => el.outerHTML",
                    SnapshotFormat::Markdown | SnapshotFormat::Accessibility => MARKDOWN_JS,
                };
                let script = format!(
                    "(() => {{ const el = {target}; if (!el) return null; return ({body})(el); }})()"
                );
                match evaluate(&page, &script)? {
                    Value::String(s) => s,
                    _ => return Err(no_match(selector.as_deref().unwrap_or("html"))),
                }
            }
            SnapshotFormat::Accessibility => accessibility(&page, selector.as_deref())?,
        };
        let total_chars = text.chars().count();
        let content: String = text.chars().skip(start_char).take(max_chars).collect();
        let end = start_char.saturating_add(max_chars);
        Ok(Snapshot {
            url: page.url()?,
            content,
            total_chars,
            next_start_char: (end < total_chars).then_some(end),
        })
    })
}

fn no_match(selector: &str) -> String {
    format!("no element matches the selector '{selector}'")
}

/// `s` as a JavaScript string literal.
fn js_string(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// The value of `expression` (awaited), or the exception it threw. A script that runs past
/// the command timeout is terminated.
fn evaluate(page: &Page<'_>, expression: &str) -> Outcome<Value> {
    // The page cuts a long result itself: a page decides how large it is, and the whole of
    // it would cross the pipe and land in the model's context.
    let wrapped = format!(
        "(async () => {{ try {{ return {{ ok: await ({expression}) }}; }} catch (e) {{ return {{ error: String(e && e.stack || e) }}; }} }})().then(r => {{ if (!('ok' in r)) return JSON.stringify(r); const s = JSON.stringify(r.ok) ?? 'null'; return JSON.stringify(s.length > {MAX_RESULT_CHARS} ? {{ cut: s.length, head: s.slice(0, {MAX_RESULT_CHARS}) }} : {{ json: s }}); }})"
    );
    let result = page
        .call_within(
            "Runtime.evaluate",
            json!({"expression": wrapped, "awaitPromise": true, "returnByValue": true}),
            page.timeout,
        )
        .map_err(|e| {
            if matches!(e, CdpError::Timeout { .. }) {
                let _ = page.call("Runtime.terminateExecution", json!({}));
            }
            match e {
                CdpError::Timeout { .. } => format!("the script did not finish: {e}"),
                _ => format!("the script's result could not be read: {e}"),
            }
        })?;
    if let Some(details) = result.get("exceptionDetails") {
        let said = details["exception"]["description"]
            .as_str()
            .or_else(|| details["text"].as_str())
            .unwrap_or("an exception");
        return Err(format!("the script threw: {said}"));
    }
    let Some(json) = result["result"]["value"].as_str() else {
        return Err("the expression returned nothing readable".to_owned());
    };
    let parsed: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if let (Some(length), Some(head)) = (parsed["cut"].as_u64(), parsed["head"].as_str()) {
        return Ok(Value::String(format!(
            "{}… [cut: the result's JSON is {length} characters; these are the first {MAX_RESULT_CHARS}]",
            cut_text(head, MAX_RESULT_CHARS)
        )));
    }
    if let Some(Value::String(error)) = parsed.get("error") {
        return Err(format!(
            "the script threw: {}",
            cut_text(error, MAX_LOG_TEXT_CHARS)
        ));
    }
    match parsed["json"].as_str() {
        Some(json) => serde_json::from_str(json).map_err(|e| e.to_string()),
        None => Err("the expression returned nothing readable".to_owned()),
    }
}

/// The text of an accessibility value (`{"type": …, "value": …}`), read loosely: whatever
/// Chromium sends that is not a string is shown as JSON.
fn ax_text(v: &Value) -> String {
    match &v["value"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The backend DOM node id of the first element matching `selector`.
fn backend_node(page: &Page<'_>, selector: &str) -> Outcome<i64> {
    let found = page.call(
        "Runtime.evaluate",
        json!({"expression": format!("document.querySelector({})", js_string(selector))}),
    )?;
    if found.get("exceptionDetails").is_some() {
        return Err(format!("'{selector}' is not a valid CSS selector"));
    }
    let Some(object) = found["result"]["objectId"].as_str() else {
        return Err(no_match(selector));
    };
    let described = page.call("DOM.describeNode", json!({"objectId": object}));
    let _ = page.call("Runtime.releaseObject", json!({"objectId": object}));
    described?["node"]["backendNodeId"]
        .as_i64()
        .ok_or_else(|| no_match(selector))
}

/// The accessibility tree (`Accessibility.getFullAXTree`, read as plain JSON so that
/// properties newer than this code do not matter) as indented `role "name"` lines, from the
/// root or from the node of the first element matching `selector`.
fn accessibility(page: &Page<'_>, selector: Option<&str>) -> Outcome<String> {
    let tree = page.call("Accessibility.getFullAXTree", json!({}))?;
    let nodes: &[Value] = tree["nodes"].as_array().map_or(&[], Vec::as_slice);
    let id_of = |n: &Value| n["nodeId"].as_str().map(str::to_owned);
    let root = match selector {
        None => nodes.first().and_then(id_of),
        Some(s) => {
            let backend = backend_node(page, s)?;
            nodes
                .iter()
                .find(|n| n["backendDOMNodeId"].as_i64() == Some(backend))
                .and_then(id_of)
        }
    };
    let Some(root) = root else {
        return Err("the page has no accessibility node there".to_owned());
    };
    let by_id: std::collections::HashMap<&str, &Value> = nodes
        .iter()
        .filter_map(|n| Some((n["nodeId"].as_str()?, n)))
        .collect();
    let mut out = String::new();
    let mut stack = vec![(root, 0usize)];
    // Each node is shown once even if a malformed tree lists it under two parents.
    let mut seen = std::collections::HashSet::new();
    while let Some((id, depth)) = stack.pop() {
        let Some(node) = by_id.get(id.as_str()) else {
            continue;
        };
        if !seen.insert(id) {
            continue;
        }
        let role = ax_text(&node["role"]);
        let name = ax_text(&node["name"]);
        let ignored = node["ignored"].as_bool().unwrap_or(false);
        let shown = !ignored && !matches!(role.as_str(), "none" | "generic" | "InlineTextBox");
        let next = if shown {
            out.push_str(&"  ".repeat(depth));
            out.push_str(&role);
            if !name.is_empty() {
                out.push(' ');
                out.push_str(&js_string(&name));
            }
            let value = ax_text(&node["value"]);
            if !value.is_empty() {
                out.push_str(" value=");
                out.push_str(&js_string(&value));
            }
            out.push('\n');
            depth + 1
        } else {
            depth
        };
        let children = node["childIds"].as_array().map_or(&[][..], Vec::as_slice);
        for child in children.iter().rev() {
            if let Some(child) = child.as_str() {
                stack.push((child.to_owned(), next));
            }
        }
    }
    Ok(out)
}

/// What `browser_interact` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InteractAction {
    /// Click the element.
    Click,
    /// Replace the text of an input or textarea with `value`, typed key by key.
    Fill,
    /// Press the key `value` (e.g. `Enter`, `Tab`, `a`), in the element when given.
    Press,
    /// Choose the option of a `<select>` whose value or text is `value`.
    Select,
    /// Wait until an element matches the selector.
    Wait,
}

/// Named keys `press` knows: the key, its `code`, its Windows virtual key code and the text
/// it types (Enter types a carriage return, which submits a form).
const NAMED_KEYS: &[(&str, &str, u32, &str)] = &[
    ("Enter", "Enter", 13, "\r"),
    ("Tab", "Tab", 9, ""),
    ("Escape", "Escape", 27, ""),
    ("Backspace", "Backspace", 8, ""),
    ("Delete", "Delete", 46, ""),
    ("ArrowUp", "ArrowUp", 38, ""),
    ("ArrowDown", "ArrowDown", 40, ""),
    ("ArrowLeft", "ArrowLeft", 37, ""),
    ("ArrowRight", "ArrowRight", 39, ""),
    ("Home", "Home", 36, ""),
    ("End", "End", 35, ""),
    ("PageUp", "PageUp", 33, ""),
    ("PageDown", "PageDown", 34, ""),
    ("Space", "Space", 32, " "),
];

/// The `Input.dispatchKeyEvent` fields of `key`: a named key or one character.
fn key_fields(key: &str) -> Outcome<Value> {
    if let Some(&(name, code, vk, text)) = NAMED_KEYS.iter().find(|k| k.0 == key) {
        let name = if name == "Space" { " " } else { name };
        return Ok(json!({"key": name, "code": code, "windowsVirtualKeyCode": vk, "text": text}));
    }
    let mut chars = key.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        let names: Vec<&str> = NAMED_KEYS.iter().map(|k| k.0).collect();
        return Err(format!(
            "cannot press '{key}': give one character or one of {}",
            names.join(", ")
        ));
    };
    let upper = c.to_ascii_uppercase();
    let (code, vk) = if c.is_ascii_alphabetic() {
        (format!("Key{upper}"), u32::from(upper))
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), u32::from(c))
    } else {
        (String::new(), 0)
    };
    Ok(
        json!({"key": c.to_string(), "code": code, "windowsVirtualKeyCode": vk, "text": c.to_string()}),
    )
}

/// Waits up to `limit` for an element to match `selector`.
fn wait_for(page: &Page<'_>, selector: &str, limit: Duration) -> Outcome<()> {
    let deadline = Instant::now() + limit;
    let probe = format!("document.querySelector({}) !== null", js_string(selector));
    loop {
        if evaluate(page, &probe)? == Value::Bool(true) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "no element matches '{selector}' after {} ms",
                limit.as_millis()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Scrolls the element into view and clicks its middle with the mouse.
fn click(page: &Page<'_>, selector: &str) -> Outcome<()> {
    let middle = evaluate(
        page,
        &format!(
            "(() => {{ const el = document.querySelector({}); if (!el) return null; el.scrollIntoView({{block: 'center', inline: 'center'}}); const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r.width, r.height]; }})()",
            js_string(selector)
        ),
    )?;
    let v: Option<[f64; 4]> = serde_json::from_value(middle).ok();
    let [x, y, width, height] = v.ok_or_else(|| no_match(selector))?;
    if width < 1.0 || height < 1.0 {
        return Err(format!("the element '{selector}' has no visible size"));
    }
    for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
        page.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )?;
    }
    Ok(())
}

/// Acts on the page like a user: `click` an element, `fill` a field with `value`, `press` a
/// key, `select` an option, or `wait` for an element to appear (up to `timeout_ms`).
#[tool]
fn browser_interact(
    /// `click`, `fill`, `press`, `select` or `wait`.
    action: InteractAction,
    /// A CSS selector (optional for `press`).
    selector: Option<String>,
    /// The text for `fill`, the key for `press`, the option for `select`.
    value: Option<String>,
    /// How long to wait for the element, in milliseconds.
    #[tool(default = 5000)]
    timeout_ms: u64,
    /// The page (default: the current one).
    page_id: Option<u32>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let limit = timeout(timeout_ms)?;
    let needs_value = |what: &str| value.clone().ok_or_else(|| format!("{what} needs a value"));
    let selector_or = |what: &str| {
        selector
            .clone()
            .ok_or_else(|| format!("{what} needs a selector"))
    };
    session(ctx)?.with(ctx.agent().workspace(), |b| {
        let page = b.page(page_id)?;
        guard(ctx, &page)?;
        match action {
            InteractAction::Click => {
                let s = selector_or("click")?;
                wait_for(&page, &s, limit)?;
                click(&page, &s)?;
                Ok(format!("clicked {s}"))
            }
            InteractAction::Fill => {
                let s = selector_or("fill")?;
                let text = needs_value("fill")?;
                wait_for(&page, &s, limit)?;
                evaluate(
                    &page,
                    &format!(
                        "(() => {{ const el = document.querySelector({}); el.focus(); if ('value' in el) {{ el.value = ''; }} }})()",
                        js_string(&s)
                    ),
                )?;
                page.call("Input.insertText", json!({"text": text}))?;
                Ok(format!("filled {s}"))
            }
            InteractAction::Press => {
                let key = needs_value("press")?;
                let fields = key_fields(&key)?;
                if let Some(s) = &selector {
                    wait_for(&page, s, limit)?;
                    evaluate(
                        &page,
                        &format!("document.querySelector({}).focus()", js_string(s)),
                    )?;
                }
                let down = if fields["text"] == "" { "rawKeyDown" } else { "keyDown" };
                for kind in [down, "keyUp"] {
                    let mut event = fields.clone();
                    event["type"] = json!(kind);
                    page.call("Input.dispatchKeyEvent", event)
                        .map_err(|e| format!("cannot press '{key}': {e}"))?;
                }
                Ok(format!("pressed {key}"))
            }
            InteractAction::Select => {
                let s = selector_or("select")?;
                let choice = needs_value("select")?;
                wait_for(&page, &s, limit)?;
                let script = format!(
                    "(() => {{ const el = document.querySelector({sel}); const want = {want};
                      if (!el || el.tagName !== 'SELECT') return 'not a <select>';
                      const opt = [...el.options].find(o => o.value === want || o.text.trim() === want);
                      if (!opt) return 'no option ' + JSON.stringify(want);
                      el.value = opt.value;
                      el.dispatchEvent(new Event('input', {{ bubbles: true }}));
                      el.dispatchEvent(new Event('change', {{ bubbles: true }}));
                      return 'ok'; }})()",
                    sel = js_string(&s),
                    want = js_string(&choice)
                );
                match evaluate(&page, &script)? {
                    Value::String(ok) if ok == "ok" => Ok(format!("selected {choice} in {s}")),
                    other => Err(format!(
                        "cannot select in {s}: {}",
                        other.as_str().unwrap_or("failed")
                    )),
                }
            }
            InteractAction::Wait => {
                let s = selector_or("wait")?;
                wait_for(&page, &s, limit)?;
                Ok(format!("{s} is there"))
            }
        }
    })
}

/// Runs a JavaScript expression in the page (promises are awaited) and returns its value as
/// JSON, or the exception it threw.
#[tool]
fn browser_evaluate(
    /// The expression, e.g. `document.title` or `(() => { … })()`.
    expression: &str,
    /// The page (default: the current one).
    page_id: Option<u32>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Value> {
    session(ctx)?.with(ctx.agent().workspace(), |b| {
        let page = b.page(page_id)?;
        guard(ctx, &page)?;
        evaluate(&page, expression)
    })
}

/// Which log entries `browser_logs` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogKind {
    /// Everything.
    All,
    /// `console.*` calls.
    Console,
    /// Uncaught exceptions, console errors and the browser's errors (failed loads, …).
    Error,
}

/// Returns the pages' console messages, uncaught exceptions and browser log entries (oldest
/// first, at most 1000 kept, each cut at 10000 characters, 100000 characters of text per
/// call: a last entry of kind `cut` says how many more there are); `clear` empties the log
/// afterwards, but for the entries not returned.
#[tool]
fn browser_logs(
    /// `all`, `console` or `error`.
    #[tool(default = "all")]
    kind: LogKind,
    /// Empty the log after reading.
    #[tool(default = false)]
    clear: bool,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<Vec<LogEntry>> {
    session(ctx)?.with(ctx.agent().workspace(), |b| {
        let wanted = |e: &LogEntry| match kind {
            LogKind::All => true,
            LogKind::Console => e.kind == "console",
            LogKind::Error => e.kind == "exception" || e.level == "error",
        };
        let mut picked = Vec::new();
        let mut chars = 0usize;
        let mut left = VecDeque::new();
        for entry in &b.logs {
            if !wanted(entry) {
                continue;
            }
            let size = entry.text.chars().count();
            if left.is_empty() && chars + size <= MAX_RESULT_CHARS {
                chars += size;
                picked.push(entry.clone());
            } else {
                left.push_back(entry.clone());
            }
        }
        if !left.is_empty() {
            picked.push(LogEntry {
                page_id: 0,
                kind: "cut",
                level: "info".to_owned(),
                text: format!(
                    "{} more entries not shown: one call returns at most {MAX_RESULT_CHARS} characters of log text; call again with clear=true to read the next ones",
                    left.len()
                ),
            });
        }
        if clear {
            b.logs = left;
        }
        Ok(picked)
    })
}

/// Decodes standard base64 (with or without padding), as the protocol sends screenshots.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let digits = text.trim_end_matches('=').as_bytes();
    if digits.len() % 4 == 1 || text.len() - digits.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= sextet(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// Shows you the page: a PNG of the viewport, the whole page (`full_page`), one element
/// (`selector`) or a rectangle (`clip`, CSS pixels), arriving as a message after this round's
/// tool results, scaled down to at most 1000 pixels a side. `save_to` also writes the full-size
/// PNG to a file of the workspace.
#[tool(required_capabilities = ["vision"])]
fn browser_screenshot(
    /// A CSS selector: capture only that element.
    selector: Option<String>,
    /// Capture only this rectangle of the page.
    clip: Option<Crop>,
    /// Capture the whole page, not only the viewport.
    #[tool(default = false)]
    full_page: bool,
    /// A file of the workspace to write the PNG to.
    save_to: Option<String>,
    /// The page (default: the current one).
    page_id: Option<u32>,
    #[tool(context)] ctx: &Ctx,
) -> Outcome {
    let save = match &save_to {
        Some(p) => {
            let ws = ctx.agent().workspace().ok_or_else(|| {
                "save_to needs a workspace (AgentHandle::with_workspace)".to_owned()
            })?;
            Some((ws.clone(), p, ws.resolve(p).map_err(|e| e.to_string())?))
        }
        None => None,
    };
    let png = session(ctx)?.with(ctx.agent().workspace(), |b| {
        let page = b.page(page_id)?;
        guard(ctx, &page)?;
        let area = match (&selector, clip) {
            (Some(_), Some(_)) => return Err("give selector or clip, not both".to_owned()),
            (Some(s), None) => {
                let rect = evaluate(
                    &page,
                    &format!(
                        "(() => {{ const el = document.querySelector({}); if (!el) return null; el.scrollIntoView({{block: 'nearest'}}); const r = el.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }})()",
                        js_string(s)
                    ),
                )?;
                let v: Option<[f64; 4]> = serde_json::from_value(rect).ok();
                let [x, y, width, height] = v.ok_or_else(|| no_match(s))?;
                if width < 1.0 || height < 1.0 {
                    return Err(format!("the element '{s}' has no visible size"));
                }
                Some([x, y, width, height])
            }
            (None, Some(c)) => Some([
                f64::from(c.x),
                f64::from(c.y),
                f64::from(c.width),
                f64::from(c.height),
            ]),
            (None, None) if full_page => {
                let size = evaluate(
                    &page,
                    "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]",
                )?;
                let v: Option<[f64; 2]> = serde_json::from_value(size).ok();
                let [width, height] = v.ok_or("cannot measure the page")?;
                Some([0.0, 0.0, width, height])
            }
            (None, None) => None,
        };
        let mut params = json!({"format": "png", "fromSurface": true});
        if let Some([x, y, width, height]) = area {
            params["clip"] = json!({"x": x, "y": y, "width": width, "height": height, "scale": 1});
            params["captureBeyondViewport"] = json!(true);
        }
        let shot = page.call("Page.captureScreenshot", params)?;
        shot["data"]
            .as_str()
            .and_then(decode_base64)
            .ok_or_else(|| "the browser sent no readable image".to_owned())
    })?;
    let mut saved = String::new();
    if let Some((ws, given, path)) = save {
        // As write_file writes: through the held directory, no link, FIFO or hard link.
        ws.write_file(given, &path, &png)?;
        saved = format!("; saved to {}", path.display());
    }
    let (image, fitted) = fit_image(png, None).map_err(|e| e.to_string())?;
    let (w, h) = fitted.sent;
    let (ow, oh) = fitted.original;
    defer_tool_image(ctx, image.data, &format!("screenshot ({w}x{h})"))
        .map_err(|e| e.to_string())?;
    Ok(if (w, h) == (ow, oh) {
        format!("the screenshot ({w}x{h}) follows{saved}")
    } else {
        format!("the screenshot follows at {w}x{h} (original {ow}x{oh}){saved}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_what_the_protocol_sends_and_refuses_the_rest() {
        for (text, bytes) in [
            ("", Some(&b""[..])),
            ("TQ==", Some(b"M")),
            ("TWE=", Some(b"Ma")),
            ("TWFu", Some(b"Man")),
            ("TWFuTQ", Some(b"ManM")),
            ("/+9A", Some(&[0xff, 0xef, 0x40][..])),
            ("T", None),
            ("TW=a", None),
            ("TQ===", None),
            ("T!==", None),
        ] {
            assert_eq!(decode_base64(text).as_deref(), bytes, "{text}");
        }
    }

    #[test]
    fn cloud_metadata_services_are_known_in_every_form() {
        let rows: &[(&str, bool)] = &[
            ("http://169.254.169.254/latest/meta-data/", true),
            ("http://169.254.170.2/v2/credentials/x", true),
            ("http://user@169.254.169.254:80/x", true),
            ("http://0xa9fea9fe/", true),
            ("http://2852039166/", true),
            ("http://0251.0376.0251.0376/", true),
            ("http://169.254.43518/", true),
            ("http://[fd00:ec2::254]/latest/", true),
            ("http://[::ffff:169.254.169.254]/", true),
            ("http://[fe80::1]/", true),
            ("http://100.100.100.200/latest/meta-data/", true),
            ("http://METADATA.google.internal./computeMetadata/v1/", true),
            ("http://metadata/computeMetadata/v1/", true),
            ("https://example.com/metadata/169.254.169.254", false),
            ("http://127.0.0.1:8080/", false),
            ("http://169.255.169.254/", false),
            ("http://metadata.example.com/", false),
            ("http://[::1]/", false),
            ("http://1.2.3.4.5/", false),
        ];
        let wrong: Vec<String> = rows
            .iter()
            .filter(|(url, known)| metadata_service(url).is_some() != *known)
            .map(|(url, known)| format!("{url}: want {known}"))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn file_urls_are_read_strictly() {
        for (url, path) in [
            ("file:///w/a.html", Some("/w/a.html")),
            ("FILE://localhost/w/a%20b.html", Some("/w/a b.html")),
            ("file:///w/a.html?x=1#top", Some("/w/a.html")),
            ("file:///w/%C3%A9", Some("/w/é")),
            ("file://host/w/a", None),
            ("file:/w/a", None),
            ("file:///w/..\\..\\etc", None),
            ("file:///w/a%2F..%2F..%2Fetc", None),
            ("file:///w/a%5c", None),
            ("file:///w/a%00", None),
            ("file:///w/%ff", None),
            ("file:///w/%zz", None),
            ("file:///w/%4", None),
            ("http:///w/a", None),
        ] {
            assert_eq!(file_url_path(url).as_deref(), path, "{url}");
        }
    }

    #[test]
    fn file_urls_are_built_with_everything_unusual_escaped() {
        assert_eq!(
            file_url(Path::new("/w/a b#?%é.html")).as_deref(),
            Some("file:///w/a%20b%23%3F%25%C3%A9.html")
        );
        let built = file_url(Path::new("/w/x y/%41.html")).unwrap_or_default();
        assert_eq!(file_url_path(&built).as_deref(), Some("/w/x y/%41.html"));
    }

    #[test]
    fn keys_are_named_keys_or_one_character() {
        assert_eq!(
            key_fields("Enter").ok().map(|k| k["text"].clone()),
            Some(json!("\r"))
        );
        assert_eq!(
            key_fields("a").ok().map(|k| k["code"].clone()),
            Some(json!("KeyA"))
        );
        assert_eq!(
            key_fields("7")
                .ok()
                .map(|k| k["windowsVirtualKeyCode"].clone()),
            Some(json!(55))
        );
        let e = key_fields("Hyper").unwrap_err();
        assert!(
            e.starts_with("cannot press 'Hyper': give one character or one of Enter"),
            "{e}"
        );
    }
}
