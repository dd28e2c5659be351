//! tool/groups/cmd.rs: the `cmd` group — shell commands the agent asks to run. **Every command
//! is judged before it starts**: the analyser, then for `ask` the confirmation policy (its risk
//! assessor and the person), through [`Workspace::permit_command`]. A refused command returns
//! an error and never starts. An allowed one runs in `bash -c` in its own process group, in a
//! directory inside the workspace, with a timeout and cancellation (SIGTERM to the group, then
//! SIGKILL after 5 seconds), its output (stdout and stderr interleaved) cut to its head and
//! tail.
//!
//! Background jobs (`bash_background`, `bash_wait`, `bash_read`, `bash_list`, `bash_stop`)
//! belong to the workspace and are killed with it.
//!
//! On Windows the group is empty: there is no bash to judge commands for (a notice says so
//! once).

use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::tool::{Tool, ToolCallContext, Workspace, tool};

/// The default timeout of `bash`, in seconds.
pub const DEFAULT_TIMEOUT: u64 = 300;
/// The longest timeout a model may ask for, in seconds.
pub const MAX_TIMEOUT: u64 = 24 * 3600;
/// How long a command gets between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(5);
/// The default `max_output_size`, in bytes.
pub const DEFAULT_OUTPUT: usize = 16_000;
/// The most background jobs a workspace keeps (running or finished and unread).
pub const MAX_JOBS: usize = 32;

/// The tools of the group, in the order a model sees them.
#[cfg(unix)]
pub fn tools() -> Vec<Tool> {
    vec![
        bash_tool(),
        bash_background_tool(),
        bash_wait_tool(),
        bash_read_tool(),
        bash_list_tool(),
        bash_stop_tool(),
    ]
}

/// The tools of the group: none on this platform (said once on stderr).
#[cfg(not(unix))]
pub fn tools() -> Vec<Tool> {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    NOTICE.call_once(|| {
        eprintln!("cmdguard: the `cmd` tools (bash) are not registered on this platform");
    });
    Vec::new()
}

type Ctx = ToolCallContext<()>;
type Outcome<T = String> = Result<T, String>;

/// What a finished (or stopped) command did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandResult {
    /// The exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// True when it ran out of time (or was cancelled) and was killed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// stdout and stderr as they came, cut in the middle when longer than the limit.
    pub output: String,
    /// How many bytes were cut out of the middle, when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted_bytes: Option<u64>,
}

fn workspace(ctx: &Ctx) -> Outcome<Workspace> {
    super::agent_workspace(ctx).cloned()
}

/// Checks the command where it would run and says where that is. The command is judged as
/// bash will see it: with the `envs` exported first, since they change what programs do.
fn admit(
    ws: &Workspace,
    command: &str,
    cd: Option<&str>,
    envs: &BTreeMap<String, String>,
) -> Outcome<PathBuf> {
    let dir = match cd {
        Some(cd) => ws.resolve(cd).map_err(|e| e.to_string())?,
        None => ws.workdir().to_path_buf(),
    };
    if !dir.is_dir() {
        return Err(format!("cd: {} is not a directory", dir.display()));
    }
    for name in envs.keys() {
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
        if !valid {
            return Err(format!("{name:?} is not a valid environment variable name"));
        }
    }
    let judged = if envs.is_empty() {
        command.to_owned()
    } else {
        let exports: Vec<String> = envs
            .iter()
            .map(|(k, v)| format!("{k}='{}'", v.replace('\'', r"'\''")))
            .collect();
        format!("export {}\n{command}", exports.join(" "))
    };
    ws.permit_command(&judged, &dir)?;
    Ok(dir)
}

/// Runs a shell command in bash and returns its exit code and output. The command is checked
/// by cmdguard first (and, when it is not plainly safe, by the user); a refused command does
/// not run. Output longer than `max_output_size` bytes keeps its beginning and end.
#[tool]
fn bash(
    /// The command line.
    command: &str,
    /// Seconds before the command is stopped (SIGTERM, then SIGKILL 5 s later).
    #[tool(default = 300)]
    timeout: u64,
    /// The directory to run in, inside the workspace; the working directory when absent.
    cd: Option<String>,
    /// Environment variables to set for the command.
    envs: Option<BTreeMap<String, String>>,
    /// The most bytes of output to return.
    #[tool(default = 16000)]
    max_output_size: usize,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<CommandResult> {
    let ws = workspace(ctx)?;
    if timeout == 0 || timeout > MAX_TIMEOUT {
        return Err(format!(
            "timeout must be between 1 and {MAX_TIMEOUT} seconds"
        ));
    }
    let envs = envs.unwrap_or_default();
    let dir = admit(&ws, command, cd.as_deref(), &envs)?;
    let mut job = Job::start(command, &dir, &envs, max_output_size)?;
    let deadline = Instant::now() + Duration::from_secs(timeout);
    let mut timed_out = false;
    loop {
        if job.poll().is_some() {
            break;
        }
        if Instant::now() >= deadline || ctx.check_cancelled().is_err() {
            timed_out = true;
            job.stop();
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    job.finish();
    let mut result = job.result(false);
    result.timed_out = timed_out;
    if let Some(c) = ctx.run().cancelled() {
        return Err(format!(
            "command stopped: the run was cancelled ({})",
            c.reason
        ));
    }
    Ok(result)
}

/// What `bash_background` and `bash_list` report about a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobInfo {
    /// The job's id, for the other `bash_*` tools.
    pub id: u64,
    /// The command.
    pub command: String,
    /// The process id of its bash (also its process group id).
    pub pid: u32,
    /// True while it runs.
    pub running: bool,
    /// The exit code, once it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Seconds since it started.
    pub seconds: u64,
}

/// Starts a shell command in the background (checked first, like `bash`) and returns its job
/// id at once. Read its output with `bash_read`, wait for it with `bash_wait`, stop it with
/// `bash_stop`.
#[tool]
fn bash_background(
    /// The command line.
    command: &str,
    /// The directory to run in, inside the workspace.
    cd: Option<String>,
    /// Environment variables to set for the command.
    envs: Option<BTreeMap<String, String>>,
    /// The most bytes of output kept (beginning and end).
    #[tool(default = 16000)]
    max_output_size: usize,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<JobInfo> {
    let ws = workspace(ctx)?;
    let envs = envs.unwrap_or_default();
    let mut jobs = ws.jobs().lock().unwrap_or_else(PoisonError::into_inner);
    jobs.forget_read();
    if jobs.map.len() >= MAX_JOBS {
        return Err(format!(
            "{MAX_JOBS} background jobs already; stop or wait for some first"
        ));
    }
    let dir = admit(&ws, command, cd.as_deref(), &envs)?;
    let job = Job::start(command, &dir, &envs, max_output_size)?;
    jobs.next += 1;
    let id = jobs.next;
    let info = job.info(id);
    jobs.map.insert(id, job);
    Ok(info)
}

/// What `bash_wait`, `bash_read` and `bash_stop` return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobOutput {
    /// The job.
    pub id: u64,
    /// True while it runs.
    pub running: bool,
    /// The result: the exit status once it ended, and the output not read before.
    #[serde(flatten)]
    pub result: CommandResult,
}

fn with_job<T>(ctx: &Ctx, id: u64, f: impl FnOnce(&mut Job) -> T) -> Outcome<T> {
    let ws = workspace(ctx)?;
    let mut jobs = ws.jobs().lock().unwrap_or_else(PoisonError::into_inner);
    let job = jobs
        .map
        .get_mut(&id)
        .ok_or_else(|| format!("no background job {id}"))?;
    Ok(f(job))
}

fn output_of(id: u64, job: &mut Job) -> JobOutput {
    let running = job.poll().is_none();
    if !running {
        job.finish();
    }
    JobOutput {
        id,
        running,
        result: job.result(true),
    }
}

/// Waits for a background job to end, at most `timeout` seconds, and returns its status and
/// the output not read before.
#[tool]
fn bash_wait(
    /// The job id.
    id: u64,
    /// The most seconds to wait.
    #[tool(default = 30)]
    timeout: u64,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<JobOutput> {
    let deadline = Instant::now() + Duration::from_secs(timeout.min(MAX_TIMEOUT));
    loop {
        let done = with_job(ctx, id, |job| job.poll().is_some())?;
        if done || Instant::now() >= deadline {
            break;
        }
        ctx.check_cancelled()
            .map_err(|c| format!("wait cancelled: {}", c.reason))?;
        thread::sleep(Duration::from_millis(20));
    }
    with_job(ctx, id, |job| output_of(id, job))
}

/// Returns a background job's output not read before, and whether it still runs.
#[tool]
fn bash_read(
    /// The job id.
    id: u64,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<JobOutput> {
    with_job(ctx, id, |job| output_of(id, job))
}

/// Lists the background jobs.
#[tool]
fn bash_list(#[tool(context)] ctx: &Ctx) -> Outcome<Vec<JobInfo>> {
    let ws = workspace(ctx)?;
    let mut jobs = ws.jobs().lock().unwrap_or_else(PoisonError::into_inner);
    Ok(jobs
        .map
        .iter_mut()
        .map(|(id, job)| {
            job.poll();
            job.info(*id)
        })
        .collect())
}

/// Stops a background job (SIGTERM to its process group, SIGKILL 5 s later) and returns its
/// final status and unread output.
#[tool]
fn bash_stop(
    /// The job id.
    id: u64,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<JobOutput> {
    let ws = workspace(ctx)?;
    let mut job = {
        let mut jobs = ws.jobs().lock().unwrap_or_else(PoisonError::into_inner);
        jobs.map
            .remove(&id)
            .ok_or_else(|| format!("no background job {id}"))?
    };
    job.stop();
    job.finish();
    Ok(output_of(id, &mut job))
}

/// The workspace's background jobs.
#[derive(Default)]
pub(crate) struct Jobs {
    next: u64,
    map: BTreeMap<u64, Job>,
}

impl Jobs {
    /// Drops finished jobs whose output was read to the end, to make room.
    fn forget_read(&mut self) {
        self.map.retain(|_, job| {
            job.poll().is_none()
                || !job
                    .capture
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .unread
                    .is_empty()
        });
    }

    /// Kills every job's process group at once (the workspace is going away).
    pub(crate) fn stop_all(&mut self) {
        for job in self.map.values_mut() {
            job.signal_group(true);
            let _ = job.child.wait();
        }
        self.map.clear();
    }
}

/// A running (or finished) command and its captured output.
struct Job {
    command: String,
    child: Child,
    capture: Arc<Mutex<Capture>>,
    reader: Option<JoinHandle<()>>,
    started: Instant,
    status: Option<ExitStatus>,
}

impl Job {
    /// Starts `bash -c command` in `dir`, in a new process group, stdin closed, stdout and
    /// stderr into one pipe read by a thread.
    fn start(
        command: &str,
        dir: &std::path::Path,
        envs: &BTreeMap<String, String>,
        limit: usize,
    ) -> Outcome<Job> {
        let (reader, writer) = std::io::pipe().map_err(|e| format!("cannot make a pipe: {e}"))?;
        let writer2 = writer
            .try_clone()
            .map_err(|e| format!("cannot make a pipe: {e}"))?;
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(command)
            .current_dir(dir)
            .envs(envs)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(writer2);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd.spawn().map_err(|e| format!("cannot start bash: {e}"))?;
        // The parent's copies of the pipe's write end go with `cmd`: only the command holds
        // it now, so the reader sees the end when the command (and what it started) is done.
        drop(cmd);
        let capture = Arc::new(Mutex::new(Capture::new(limit)));
        let sink = capture.clone();
        let reader = thread::spawn(move || {
            let mut reader = reader;
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => sink
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(&buf[..n]),
                }
            }
        });
        Ok(Job {
            command: command.to_owned(),
            child,
            capture,
            reader: Some(reader),
            started: Instant::now(),
            status: None,
        })
    }

    /// The exit status, once the command exited.
    fn poll(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }

    /// Sends SIGTERM (or SIGKILL) to the command's process group.
    fn signal_group(&self, kill: bool) {
        #[cfg(unix)]
        {
            use rustix::process::{Pid, Signal, kill_process_group};
            let signal = if kill { Signal::KILL } else { Signal::TERM };
            let _ = kill_process_group(Pid::from_child(&self.child), signal);
        }
        #[cfg(not(unix))]
        {
            let _ = kill;
        }
    }

    /// Stops the command: SIGTERM to its group, SIGKILL after [`KILL_GRACE`].
    fn stop(&mut self) {
        if self.poll().is_some() {
            return;
        }
        self.signal_group(false);
        let deadline = Instant::now() + KILL_GRACE;
        while self.poll().is_none() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        if self.poll().is_none() {
            self.signal_group(true);
            self.status = self.child.wait().ok();
        }
    }

    /// After the command exited: collects the rest of its output. Whatever it left running in
    /// its process group (and holding the pipe) is killed after a second.
    fn finish(&mut self) {
        let Some(reader) = self.reader.take() else {
            return;
        };
        let deadline = Instant::now() + Duration::from_secs(1);
        while !reader.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        if !reader.is_finished() {
            self.signal_group(true);
        }
        let _ = reader.join();
    }

    fn result(&mut self, unread_only: bool) -> CommandResult {
        let mut capture = self.capture.lock().unwrap_or_else(PoisonError::into_inner);
        let (output, omitted) = if unread_only {
            capture.take_unread()
        } else {
            capture.head_and_tail()
        };
        let status = self.status;
        #[cfg(unix)]
        let signal = {
            use std::os::unix::process::ExitStatusExt;
            status.and_then(|s| s.signal())
        };
        #[cfg(not(unix))]
        let signal = None;
        CommandResult {
            exit_code: status.and_then(|s| s.code()),
            signal,
            timed_out: false,
            output,
            omitted_bytes: (omitted > 0).then_some(omitted),
        }
    }

    fn info(&self, id: u64) -> JobInfo {
        JobInfo {
            id,
            command: self.command.clone(),
            pid: self.child.id(),
            running: self.status.is_none(),
            exit_code: self.status.and_then(|s| s.code()),
            seconds: self.started.elapsed().as_secs(),
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if self.poll().is_none() {
            self.signal_group(true);
            let _ = self.child.wait();
        }
    }
}

/// A command's output: the first half of the limit, a ring of the last half, and what has not
/// been read yet (for background jobs), each bounded.
struct Capture {
    limit: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    unread: VecDeque<u8>,
    unread_dropped: u64,
}

impl Capture {
    fn new(limit: usize) -> Capture {
        Capture {
            limit,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            unread: VecDeque::new(),
            unread_dropped: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let head_room = (self.limit / 2).saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(head_room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        let tail_cap = self.limit - self.limit / 2;
        self.tail.extend(rest);
        while self.tail.len() > tail_cap {
            self.tail.pop_front();
        }
        self.unread.extend(bytes);
        while self.unread.len() > self.limit {
            self.unread.pop_front();
            self.unread_dropped += 1;
        }
    }

    /// The output cut to its head and tail, and how many bytes the cut left out.
    fn head_and_tail(&self) -> (String, u64) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let omitted = self.total - kept;
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if omitted > 0 {
            out.push_str(&format!("\n[… {omitted} bytes omitted …]\n"));
        }
        let (a, b) = self.tail.as_slices();
        let mut tail = a.to_vec();
        tail.extend_from_slice(b);
        out.push_str(&String::from_utf8_lossy(&tail));
        (out, omitted)
    }

    /// The output not read before (its oldest part dropped past the limit), marked read.
    fn take_unread(&mut self) -> (String, u64) {
        let dropped = std::mem::take(&mut self.unread_dropped);
        let bytes: Vec<u8> = self.unread.drain(..).collect();
        let mut out = String::new();
        if dropped > 0 {
            out.push_str(&format!("[… {dropped} earlier bytes dropped …]\n"));
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
        (out, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_head_and_tail_and_counts_the_cut() {
        let mut c = Capture::new(10);
        c.push(b"0123456789abcdefghij");
        let (out, omitted) = c.head_and_tail();
        assert_eq!(omitted, 10);
        assert_eq!(out, "01234\n[… 10 bytes omitted …]\nfghij");
        let (unread, dropped) = c.take_unread();
        assert_eq!(
            (unread.as_str(), dropped),
            ("[… 10 earlier bytes dropped …]\nabcdefghij", 10)
        );
        assert_eq!(c.take_unread(), (String::new(), 0));
        let mut small = Capture::new(100);
        small.push(b"ok\n");
        assert_eq!(small.head_and_tail(), ("ok\n".to_owned(), 0));
    }
}
