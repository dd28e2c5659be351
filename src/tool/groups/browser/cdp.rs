//! tool/groups/browser/cdp.rs: a minimal Chrome DevTools Protocol client over
//! `--remote-debugging-pipe` — it starts Chromium with a fresh profile, sends commands and
//! matches their replies, keeps events per session, and kills and reaps the browser when
//! dropped. It knows nothing of tools or workspaces: which intercepted requests may go on is
//! decided by the [`RequestFilter`] it is given.
//!
//! The pipe: Chromium reads JSON commands from its fd 3 and writes replies and events to its
//! fd 4, each message ended by a NUL byte. The crate forbids `unsafe`, so there is no
//! `pre_exec` + `dup2`: Chromium is started through `/bin/sh`, whose redirections `3<&0 4>&1`
//! move the two pipes std gives the child as stdin and stdout to fds 3 and 4 before `exec`
//! (so the process is Chromium's own, with the shell's pid).
//!
//! What the browser sends is bounded: one message at [`MAX_MESSAGE_BYTES`] (a larger reply
//! fails its command, a larger event is dropped), a session's events at [`MAX_EVENTS`] and
//! [`MAX_EVENT_BYTES`]. A target the browser attaches by itself (auto-attach) gets the
//! `file:` interception, and auto-attach of its own targets, before it is let run.
//!
//! Every wait is bounded: a reply by the caller's timeout, an awaited event by its deadline,
//! the close by [`CLOSE_GRACE`]. Writes are not: a command is a few hundred bytes and
//! Chromium reads its pipe on a thread of its own, so a write could only block on a browser
//! that stopped reading with a full pipe buffer. The reader thread is not joined; it ends when
//! the pipe closes, which the kill of the process group makes sure of.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The most events kept per session; the oldest are dropped first.
pub const MAX_EVENTS: usize = 5000;
/// The most bytes of events (as the browser sent them) kept per session; the oldest are
/// dropped first.
pub const MAX_EVENT_BYTES: usize = 32 << 20;
/// The largest message read from the browser. A larger reply fails its command (a page can
/// make a result of any size); a larger event is dropped.
pub const MAX_MESSAGE_BYTES: usize = 8 << 20;
/// How long a closing browser gets to end its helper processes before they are all killed.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Decides whether a request paused by the `Fetch` domain may go on (`true`) or fails with
/// `AccessDenied` (`false`); it is given the request's URL. It runs on the reader thread.
pub type RequestFilter = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// What went wrong talking to the browser.
#[derive(Debug)]
pub enum CdpError {
    /// The browser did not start or did not answer its first command.
    Launch {
        /// The executable.
        program: PathBuf,
        /// Why, with the end of the browser's own error output when there is one.
        reason: String,
    },
    /// No reply (or awaited event) in time.
    Timeout {
        /// The command, or the event waited for.
        method: String,
        /// How long it waited.
        after: Duration,
    },
    /// The browser answered a command with an error.
    Protocol {
        /// The command.
        method: String,
        /// The protocol's error code.
        code: i64,
        /// The protocol's message.
        message: String,
    },
    /// The connection is gone: the browser exited or closed its pipe.
    Closed {
        /// What ended it.
        reason: String,
    },
}

impl fmt::Display for CdpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CdpError::Launch { program, reason } => {
                write!(
                    f,
                    "cannot start the browser {}: {reason}",
                    program.display()
                )
            }
            CdpError::Timeout { method, after } => write!(
                f,
                "the browser did not answer {method} within {} ms",
                after.as_millis()
            ),
            CdpError::Protocol {
                method,
                code,
                message,
            } => write!(f, "the browser refused {method}: {message} ({code})"),
            CdpError::Closed { reason } => write!(f, "the browser is gone: {reason}"),
        }
    }
}

impl std::error::Error for CdpError {}

/// One event of the protocol (`Page.loadEventFired`, `Runtime.consoleAPICalled`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's name.
    pub method: String,
    /// Its parameters.
    pub params: Value,
}

/// A running Chromium and the connection to it. Dropping it closes the browser, kills what is
/// left of its process group, reaps it and removes its profile directory.
pub struct Chromium {
    child: Child,
    writer: Arc<Mutex<ChildStdin>>,
    shared: Arc<Shared>,
    profile: ProfileDir,
}

/// What the reader thread and the callers share: replies by id, events by session.
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    next_id: AtomicU64,
}

#[derive(Default)]
struct State {
    /// Commands waiting for their reply; `Some` once it arrived.
    pending: HashMap<u64, Option<Reply>>,
    /// Events by session id (`""` for the browser's own).
    events: HashMap<String, Events>,
    /// Why the connection ended, once it did.
    closed: Option<String>,
}

type Reply = Result<Value, (i64, String)>;

/// One session's buffered events with their sizes, bounded by [`MAX_EVENTS`] and
/// [`MAX_EVENT_BYTES`].
#[derive(Default)]
struct Events {
    queue: VecDeque<(usize, Event)>,
    bytes: usize,
}

impl Events {
    /// Keeps `event` (`size` bytes as sent), dropping the oldest to stay within the bounds.
    fn push(&mut self, size: usize, event: Event) {
        while self.queue.len() >= MAX_EVENTS
            || (!self.queue.is_empty() && self.bytes + size > MAX_EVENT_BYTES)
        {
            if let Some((old, _)) = self.queue.pop_front() {
                self.bytes -= old;
            }
        }
        self.bytes += size;
        self.queue.push_back((size, event));
    }

    /// Removes and returns the events `wanted` picks, oldest first.
    fn take(&mut self, wanted: impl Fn(&Event) -> bool) -> Vec<Event> {
        let mut taken = Vec::new();
        let mut kept = VecDeque::new();
        for (size, event) in self.queue.drain(..) {
            if wanted(&event) {
                self.bytes -= size;
                taken.push(event);
            } else {
                kept.push_back((size, event));
            }
        }
        self.queue = kept;
        taken
    }

    /// Removes and returns the first event `wanted` picks.
    fn take_first(&mut self, wanted: impl Fn(&Event) -> bool) -> Option<Event> {
        let at = self.queue.iter().position(|(_, e)| wanted(e))?;
        let (size, event) = self.queue.remove(at)?;
        self.bytes -= size;
        Some(event)
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Chromium {
    /// Starts `program` with `args`, `--remote-debugging-pipe` and a fresh `--user-data-dir`,
    /// and waits up to `timeout` for it to answer. Requests paused by the `Fetch` domain (see
    /// [`Chromium::call`] with `Fetch.enable`) go on only where `filter` says so.
    pub fn launch(
        program: &Path,
        args: &[String],
        timeout: Duration,
        filter: RequestFilter,
    ) -> Result<Chromium, CdpError> {
        let launch_error = |reason: String| CdpError::Launch {
            program: program.to_owned(),
            reason,
        };
        if !program.is_file() {
            return Err(launch_error("no such file".to_owned()));
        }
        let profile = ProfileDir::create()
            .map_err(|e| launch_error(format!("cannot create its profile directory: {e}")))?;
        let log = fs::File::create(profile.log_path())
            .map_err(|e| launch_error(format!("cannot create its log file: {e}")))?;
        let mut child = spawn(program, args, &profile.path, log).map_err(launch_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(launch_error("its pipes were not opened".to_owned()));
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            next_id: AtomicU64::new(1),
        });
        let writer = Arc::new(Mutex::new(stdin));
        let reader = Reader {
            shared: Arc::clone(&shared),
            writer: Arc::clone(&writer),
            filter,
        };
        thread::Builder::new()
            .name("cmdguard-cdp".to_owned())
            .spawn(move || reader.run(stdout))
            .map_err(|e| launch_error(format!("cannot start its reader thread: {e}")))?;
        let browser = Chromium {
            child,
            writer,
            shared,
            profile,
        };
        match browser.call(None, "Browser.getVersion", json!({}), timeout) {
            Ok(_) => Ok(browser),
            Err(e) => {
                let said = browser.profile.log_tail();
                let reason = if said.is_empty() {
                    e.to_string()
                } else {
                    format!("{e}; it said: {said}")
                };
                Err(launch_error(reason))
            }
        }
    }

    /// The browser's process id (also its process group's).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True while the connection is open.
    pub fn is_connected(&self) -> bool {
        self.shared.lock().closed.is_none()
    }

    /// Sends `method` with `params` to `session` (`None`: the browser itself) and waits up to
    /// `timeout` for the reply's `result`.
    pub fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = Value::String(session.to_owned());
        }
        {
            let mut state = self.shared.lock();
            if let Some(reason) = &state.closed {
                return Err(CdpError::Closed {
                    reason: reason.clone(),
                });
            }
            state.pending.insert(id, None);
        }
        if let Err(e) = write_message(&self.writer, &message) {
            self.shared.lock().pending.remove(&id);
            return Err(CdpError::Closed {
                reason: format!("cannot write to its pipe: {e}"),
            });
        }
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            if let Some(Some(_)) = state.pending.get(&id) {
                let reply = state.pending.remove(&id).flatten();
                return match reply {
                    Some(Ok(result)) => Ok(result),
                    Some(Err((code, message))) => Err(CdpError::Protocol {
                        method: method.to_owned(),
                        code,
                        message,
                    }),
                    None => Err(CdpError::Closed {
                        reason: "the reply was lost".to_owned(),
                    }),
                };
            }
            if let Some(reason) = &state.closed {
                let reason = reason.clone();
                state.pending.remove(&id);
                return Err(CdpError::Closed { reason });
            }
            let now = Instant::now();
            if now >= deadline {
                state.pending.remove(&id);
                return Err(CdpError::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                });
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Removes and returns the buffered events of `session` that `wanted` picks, oldest first.
    pub fn take_events(&self, session: &str, wanted: impl Fn(&Event) -> bool) -> Vec<Event> {
        let mut state = self.shared.lock();
        let Some(events) = state.events.get_mut(session) else {
            return Vec::new();
        };
        events.take(wanted)
    }

    /// Waits until `session` has an event that `wanted` picks and removes and returns the
    /// first, or fails with [`CdpError::Timeout`] (naming `what`) at `deadline`.
    pub fn wait_event(
        &self,
        session: &str,
        what: &str,
        deadline: Instant,
        wanted: impl Fn(&Event) -> bool,
    ) -> Result<Event, CdpError> {
        let started = Instant::now();
        let mut state = self.shared.lock();
        loop {
            if let Some(events) = state.events.get_mut(session)
                && let Some(event) = events.take_first(&wanted)
            {
                return Ok(event);
            }
            if let Some(reason) = &state.closed {
                return Err(CdpError::Closed {
                    reason: reason.clone(),
                });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(CdpError::Timeout {
                    method: what.to_owned(),
                    after: deadline.saturating_duration_since(started),
                });
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Drops everything buffered for `session` (a closed page).
    pub fn forget_session(&self, session: &str) {
        self.shared.lock().events.remove(session);
    }

    /// Asks the browser to close, gives it [`CLOSE_GRACE`] to end its helpers, then kills its
    /// whole process group and reaps it.
    fn shutdown(&mut self) {
        let exited = matches!(self.child.try_wait(), Ok(Some(_)));
        if !exited {
            let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
            let close = json!({"id": id, "method": "Browser.close", "params": {}});
            if write_message(&self.writer, &close).is_ok() {
                // The pipe closes when the browser is done; the process is reaped below, so its
                // pid (the group's id) cannot be reused before the group is killed.
                let deadline = Instant::now() + CLOSE_GRACE;
                let mut state = self.shared.lock();
                while state.closed.is_none() && Instant::now() < deadline {
                    state = self
                        .shared
                        .changed
                        .wait_timeout(state, deadline.saturating_duration_since(Instant::now()))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
            kill_group(&self.child);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.shutdown();
        // `profile` is dropped after this, with the browser gone.
    }
}

impl fmt::Debug for Chromium {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chromium")
            .field("pid", &self.child.id())
            .field("profile", &self.profile.path)
            .field("connected", &self.is_connected())
            .finish()
    }
}

#[cfg(unix)]
fn spawn(program: &Path, args: &[String], profile: &Path, log: fs::File) -> Result<Child, String> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut command = Command::new("/bin/sh");
    command
        // `$0` is the program, `$@` its arguments: the pipes std opened as the child's stdin
        // and stdout become fds 3 and 4; stdin then reads nothing, stdout joins the log.
        .arg("-c")
        .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>&2"#)
        .arg(program)
        .args(args)
        .arg("--remote-debugging-pipe")
        .arg(format!("--user-data-dir={}", profile.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        // Its own process group, so that the renderers and helpers it starts can be killed
        // with it.
        .process_group(0);
    command
        .spawn()
        .map_err(|e| format!("cannot run /bin/sh: {e}"))
}

#[cfg(not(unix))]
fn spawn(_: &Path, _: &[String], _: &Path, _: fs::File) -> Result<Child, String> {
    Err("the browser tools need a unix system (the pipe is passed on fds 3 and 4)".to_owned())
}

#[cfg(unix)]
fn kill_group(child: &Child) {
    use rustix::process::{Pid, Signal, kill_process_group};
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
}

#[cfg(not(unix))]
fn kill_group(_: &Child) {}

fn write_message(writer: &Mutex<ChildStdin>, message: &Value) -> io::Result<()> {
    let mut bytes = message.to_string().into_bytes();
    bytes.push(0);
    let mut writer = writer.lock().unwrap_or_else(PoisonError::into_inner);
    writer.write_all(&bytes)?;
    writer.flush()
}

/// The thread that reads the browser's fd 4: replies go to their callers, events to their
/// session's buffer, paused requests to the filter.
struct Reader {
    shared: Arc<Shared>,
    writer: Arc<Mutex<ChildStdin>>,
    filter: RequestFilter,
}

impl Reader {
    fn run(self, stdout: ChildStdout) {
        let mut input = BufReader::new(stdout);
        let mut buf = Vec::new();
        let reason = loop {
            buf.clear();
            match read_message(&mut input, &mut buf) {
                Ok(None) => break "the browser closed its pipe".to_owned(),
                Ok(Some(size)) if size > MAX_MESSAGE_BYTES => self.too_large(&buf),
                Ok(Some(size)) => {
                    // A message that is not JSON cannot be matched to anything; it is dropped.
                    if let Ok(message) = serde_json::from_slice::<Value>(&buf) {
                        self.dispatch(size, message);
                    }
                }
                Err(e) => break format!("cannot read its pipe: {e}"),
            }
        };
        self.shared.lock().closed = Some(reason);
        self.shared.changed.notify_all();
    }

    /// A message over [`MAX_MESSAGE_BYTES`], of which `head` is the beginning: a reply (the
    /// browser writes `{"id":N,` first) fails its command; anything else is dropped.
    fn too_large(&self, head: &[u8]) {
        let id = head.strip_prefix(b"{\"id\":").map(|rest| {
            rest.iter()
                .take_while(|b| b.is_ascii_digit())
                .fold(0u64, |n, b| {
                    n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
                })
        });
        let Some(id) = id else {
            return;
        };
        let mut state = self.shared.lock();
        if let Some(slot) = state.pending.get_mut(&id) {
            *slot = Some(Err((
                -32000,
                format!("the answer was larger than {MAX_MESSAGE_BYTES} bytes and was dropped"),
            )));
            drop(state);
            self.shared.changed.notify_all();
        }
    }

    fn dispatch(&self, size: usize, mut message: Value) {
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            let reply = match message.get_mut("error") {
                Some(error) => Err((
                    error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_owned(),
                )),
                None => Ok(message
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            };
            let mut state = self.shared.lock();
            // A reply nobody waits for any more (timed out, or the filter's) is dropped.
            if let Some(slot) = state.pending.get_mut(&id) {
                *slot = Some(reply);
                drop(state);
                self.shared.changed.notify_all();
            }
            return;
        }
        let Some(Value::String(method)) = message.get_mut("method").map(Value::take) else {
            return;
        };
        let session = match message.get_mut("sessionId").map(Value::take) {
            Some(Value::String(s)) => s,
            _ => String::new(),
        };
        let params = message
            .get_mut("params")
            .map(Value::take)
            .unwrap_or(Value::Null);
        if method == "Fetch.requestPaused" {
            self.decide(&session, &params);
            return;
        }
        if method == "Target.attachedToTarget" {
            self.intercept(&params);
        }
        let mut state = self.shared.lock();
        if method == "Target.detachedFromTarget"
            && let Some(gone) = params["sessionId"].as_str()
        {
            state.events.remove(gone);
        }
        state
            .events
            .entry(session)
            .or_default()
            .push(size, Event { method, params });
        drop(state);
        self.shared.changed.notify_all();
    }

    /// A target the browser attached to by itself (auto-attach: a window a page opened, a
    /// frame in another process, a worker), still paused: its `file:` requests are
    /// intercepted like a page's, its own new targets are attached the same way, and only
    /// then does it run. The commands go in order on the target's session, so interception is
    /// on before it runs; their replies are not waited for (this is the reader's thread).
    fn intercept(&self, params: &Value) {
        let Some(session) = params["sessionId"].as_str() else {
            return;
        };
        for (method, params) in [
            ("Fetch.enable", fetch_patterns()),
            ("Target.setAutoAttach", auto_attach()),
            ("Runtime.runIfWaitingForDebugger", json!({})),
        ] {
            let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
            let message =
                json!({"id": id, "method": method, "params": params, "sessionId": session});
            // A failed write means the pipe is gone; the read loop sees that next.
            let _ = write_message(&self.writer, &message);
        }
    }

    /// Lets a paused request go on or fails it, as the filter says; a request it cannot read
    /// fails.
    fn decide(&self, session: &str, params: &Value) {
        let Some(request_id) = params.get("requestId").and_then(Value::as_str) else {
            return;
        };
        let url = params
            .pointer("/request/url")
            .and_then(Value::as_str)
            .unwrap_or("");
        let allowed = !url.is_empty() && (self.filter)(url);
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (method, params) = if allowed {
            ("Fetch.continueRequest", json!({"requestId": request_id}))
        } else {
            (
                "Fetch.failRequest",
                json!({"requestId": request_id, "errorReason": "AccessDenied"}),
            )
        };
        let message = json!({"id": id, "method": method, "params": params, "sessionId": session});
        // A failed write means the pipe is gone; the read loop sees that next.
        let _ = write_message(&self.writer, &message);
    }
}

/// URL patterns (Chromium's wildcards) of the requests the `Fetch` domain pauses for the
/// [`RequestFilter`]: every `file:` URL, every URL that may name a cloud instance metadata
/// service, and every request to a loopback server (the filter reads the host and path;
/// others go on at once).
pub const INTERCEPTED: &[&str] = &[
    "file:*",
    "*169.254.*",
    "*100.100.100.200*",
    "*metadata*",
    "*instance-data*",
    "*fd00:ec2::254*",
    "*[fe8*",
    "*[fe9*",
    "*[fea*",
    "*[feb*",
    "*[::ffff:*",
    // Loopback servers, whose paths may name the workspace's credential files.
    "*://127.*",
    "*://localhost*",
    "*.localhost*",
    "*://[::1]*",
    "*@127.*",
    "*@localhost*",
];

/// The parameters of `Fetch.enable` that pause the [`INTERCEPTED`] requests.
pub fn fetch_patterns() -> Value {
    let patterns: Vec<Value> = INTERCEPTED
        .iter()
        .map(|p| json!({"urlPattern": p}))
        .collect();
    json!({ "patterns": patterns })
}

/// The parameters of `Target.setAutoAttach` that make every new target wait, flattened into
/// the connection, until [`Reader`] has turned on its interception.
pub fn auto_attach() -> Value {
    json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
}

/// Reads one NUL-ended message into `buf`, keeping at most [`MAX_MESSAGE_BYTES`] + 1 bytes of
/// it (the rest is read and dropped); returns its whole size, or `None` at the end of the
/// pipe.
fn read_message(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
    let mut size = 0usize;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((size > 0).then_some(size));
        }
        let (part, done) = match chunk.iter().position(|b| *b == 0) {
            Some(end) => (&chunk[..end], Some(end + 1)),
            None => (chunk, None),
        };
        let room = (MAX_MESSAGE_BYTES + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        size = size.saturating_add(part.len());
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            return Ok(Some(size));
        }
    }
}

/// The browser's fresh profile directory (and its log), removed when dropped.
struct ProfileDir {
    path: PathBuf,
}

impl ProfileDir {
    fn create() -> io::Result<ProfileDir> {
        static N: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last = None;
        for _ in 0..16 {
            let path = base.join(format!(
                "cmdguard-chromium-{}-{}-{nanos}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let mut builder = fs::DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                builder.mode(0o700);
            }
            match builder.create(&path) {
                Ok(()) => return Ok(ProfileDir { path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free name")))
    }

    fn log_path(&self) -> PathBuf {
        self.path.join("chromium.log")
    }

    /// The last lines the browser wrote to stderr, on one line.
    fn log_tail(&self) -> String {
        let text = fs::read(self.log_path()).unwrap_or_default();
        let text = String::from_utf8_lossy(&text[text.len().saturating_sub(4096)..]);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        lines[lines.len().saturating_sub(3)..].join(" | ")
    }
}

impl Drop for ProfileDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_whole_up_to_the_cap_and_counted_past_it() {
        let big = MAX_MESSAGE_BYTES + 10;
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"id\":1}\0");
        let head = b"{\"id\":7,";
        input.extend_from_slice(head);
        input.resize(input.len() + big - head.len(), b'x');
        input.push(0);
        input.extend_from_slice(b"last");
        let mut reader = io::BufReader::with_capacity(4096, io::Cursor::new(input));
        let mut buf = Vec::new();
        assert_eq!(read_message(&mut reader, &mut buf).unwrap(), Some(8));
        assert_eq!(buf, b"{\"id\":1}");
        buf.clear();
        assert_eq!(read_message(&mut reader, &mut buf).unwrap(), Some(big));
        assert_eq!(buf.len(), MAX_MESSAGE_BYTES + 1);
        assert!(buf.starts_with(b"{\"id\":7,"));
        buf.clear();
        // A last message without its NUL is still one message; then the end.
        assert_eq!(read_message(&mut reader, &mut buf).unwrap(), Some(4));
        assert_eq!(buf, b"last");
        buf.clear();
        assert_eq!(read_message(&mut reader, &mut buf).unwrap(), None);
    }

    #[test]
    fn a_session_keeps_its_newest_events_within_the_byte_bound() {
        let mut events = Events::default();
        let event = |n: u64| Event {
            method: "x".to_owned(),
            params: json!(n),
        };
        for n in 0..10 {
            events.push(MAX_EVENT_BYTES / 4, event(n));
        }
        assert_eq!(events.queue.len(), 4);
        assert_eq!(events.bytes, MAX_EVENT_BYTES);
        assert_eq!(events.take_first(|_| true), Some(event(6)));
        assert_eq!(events.take(|_| true).len(), 3);
        assert_eq!(events.bytes, 0);
    }
}
