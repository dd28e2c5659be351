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
//! What runs is what was judged: bash starts as `bash --noprofile --norc -c`, without the
//! host's variables that make bash run code or change options when it starts
//! ([`STARTUP_VARIABLES`] and every exported function, `BASH_FUNC_name%%`), and the model's
//! `envs` are not put in bash's environment but exported by the script bash runs, which is
//! exactly the text that was judged (`export NAME='value'` lines, then the command).
//!
//! Processes that leave the process group (`setsid`, a daemon that double-forks) are found
//! by a mark: each command's environment carries `CMDGUARD_JOB=<random id>`, and on Linux
//! every process whose initial environment (`/proc/<pid>/environ`) holds that mark is killed
//! when the command ends (a `bash` call), times out, is cancelled or stopped, and when the
//! workspace is dropped. Nothing waits on output without a deadline: a process still holding
//! the output pipe after that is left behind and its output ignored. A command that could
//! start a program without the mark is refused before it starts: `env` with any option but
//! `-0`, `-v`, `-C`, `--` (so `env -i`, `env -u`, `env -`, `env -S`), `exec -c`, and any
//! mention of `CMDGUARD_JOB` (assigning or unsetting it asks in the analyser anyway). What the
//! mark still cannot catch: a program the command runs that clears its own children's
//! environment (an allowlisted program that does so and daemonizes), one that changed user
//! (setuid) so that its environment cannot be read, one in another PID namespace, and
//! (outside Linux) anything outside the process group. The refusal looks at every word of
//! every segment, so an argument that merely reads `env -i` (`grep env -i f`) is refused too.
//!
//! bash starts in the directory that was checked: it is opened without following links
//! before the command is judged, bash is started in that open directory (Linux: through
//! `/proc/self/fd`), and the path must still lead to it after judging. Outside Linux bash is
//! started by path after that check. bash itself keeps its directory as a path (`$PWD`), which
//! its `pwd -P` and `cd -P` resolve again: a directory replaced while the command runs can
//! lead those elsewhere, so a `bash` call whose directory's name no longer leads to the
//! directory it ran in ends in an error that says so (with the output). Not seen: a
//! directory moved away and back (same inode) during the run, and background jobs (checked
//! at start only).
//!
//! bash reads its script in the locale of `LC_ALL`, `LC_CTYPE` and `LANG`; the analyser asks
//! for any assignment of them but C, POSIX and UTF-8 locales, and the tool does not start bash
//! at all when its own environment sets one of them to anything else.
//!
//! On Windows the group is empty: there is no bash to judge commands for (a notice says so
//! once).

use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::tool::workspace::Dir;
use crate::tool::{Tool, ToolCallContext, Workspace, tool};

/// The default timeout of `bash`, in seconds.
pub const DEFAULT_TIMEOUT: u64 = 300;
/// The longest timeout a model may ask for, in seconds.
pub const MAX_TIMEOUT: u64 = 24 * 3600;
/// How long a command gets between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(5);
/// The default `max_output_size`, in bytes.
pub const DEFAULT_OUTPUT: usize = 16_000;
/// The largest `max_output_size` honoured, in bytes: a larger request is cut to this, as the
/// output is held in memory (beginning, end and unread part).
pub const MAX_OUTPUT: usize = 1_000_000;
/// The environment variable that marks every process a command starts.
pub const JOB_MARK: &str = "CMDGUARD_JOB";
/// Variables bash reads when it starts, before the command runs, that run code or change how
/// the command is read; removed from the host's environment. From the
/// Bash Reference Manual (6.2 "Bash Startup Files": `BASH_ENV`, `ENV`; 5.2 "Bash Variables":
/// `SHELLOPTS`, `BASHOPTS`, `POSIXLY_CORRECT`, `BASH_XTRACEFD`, `PS4`, `BASH_COMPAT`,
/// `BASH_LOADABLES_PATH`, `EXECIGNORE`, `GLOBIGNORE`, `CDPATH`, `FUNCNEST`, `PROMPT_COMMAND`,
/// `IFS`) and bash's `variables.c` (`initialize_shell_variables` imports `BASH_FUNC_name%%`
/// as functions, and `POSIX_PEDANTIC`); exported functions are removed by their prefix.
pub const STARTUP_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "POSIXLY_CORRECT",
    "POSIX_PEDANTIC",
    "BASH_XTRACEFD",
    "PS4",
    "BASH_COMPAT",
    "BASH_LOADABLES_PATH",
    "EXECIGNORE",
    "GLOBIGNORE",
    "CDPATH",
    "FUNCNEST",
    "PROMPT_COMMAND",
    "IFS",
    JOB_MARK,
];
/// The prefix of an exported bash function's variable (`BASH_FUNC_name%%`).
const EXPORTED_FUNCTION: &str = "BASH_FUNC_";
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

/// Checks the command where it would run and returns where that is and the script to run.
/// The command is judged as bash will see it: with the `envs` exported first, since they
/// change what programs do; the script is the judged text itself.
///
/// The directory is opened (component by component, no link followed) before the command is
/// judged and bash is started in that open directory, not by its path: a directory swapped
/// for a link meanwhile does not move the command elsewhere. After judging, the path must
/// still lead to the open directory, since the analyser read the repository there by path.
fn admit(
    ws: &Workspace,
    command: &str,
    cd: Option<&str>,
    envs: &BTreeMap<String, String>,
) -> Outcome<(Dir, String)> {
    let dir = match cd {
        Some(cd) => ws.resolve(cd).map_err(|e| e.to_string())?,
        None => ws.workdir().to_path_buf(),
    };
    if !dir.is_dir() {
        return Err(format!("cd: {} is not a directory", dir.display()));
    }
    let held = ws
        .dir(&dir)
        .map_err(|e| format!("cd: {}: {e}", dir.display()))?;
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
    keeps_the_mark(ws, &judged)?;
    inherited_locale()?;
    ws.permit_command(&judged, &dir)?;
    still_there(&held)?;
    Ok((held, judged))
}

/// Checks that the path of `held` still leads to it (same device and inode).
fn still_there(held: &Dir) -> Outcome<()> {
    #[cfg(unix)]
    {
        let moved = || {
            format!(
                "cd: {} changed while the command was checked; not run",
                held.path().display()
            )
        };
        let open = rustix::fs::fstat(held.fd()).map_err(|_| moved())?;
        let named = rustix::fs::stat(held.path()).map_err(|_| moved())?;
        if (open.st_dev, open.st_ino) != (named.st_dev, named.st_ino) {
            return Err(moved());
        }
    }
    #[cfg(not(unix))]
    let _ = held;
    Ok(())
}

/// Refuses a command that could start a program without the job mark in its environment
/// (such a program, in a new session, would outlive the call): `env` with an option other
/// than those listed here (`-i`, `-u`, `-`, `-S` and any unknown one drop or rewrite
/// variables), `env` given its options by `xargs`, `exec -c`, any word that names the mark,
/// an option known only at run time in those places, and a program named only at run time. Every word of every segment the analyser found is looked at, so a
/// wrapper (`nice env -u …`, `xargs env -i …`) is seen too. Assigning or unsetting the mark's
/// variable in the shell already asks in the analyser (it is not an inert variable).
fn keeps_the_mark(ws: &Workspace, judged: &str) -> Outcome<()> {
    let refuse = |what: &str| {
        Err(format!(
            "command not run: {what} would start programs without the job mark ({JOB_MARK}) that lets the bash tool stop everything a call started; run the programs without clearing or unsetting environment variables"
        ))
    };
    if judged.contains(JOB_MARK) {
        return refuse(&format!("it names {JOB_MARK}, which"));
    }
    for seg in ws.analyzer().analyze(judged).segments {
        let words = &seg.argv;
        if seg.dynamic.contains(&0) {
            return refuse("a program named only at run time (it could be `env -i`)");
        }
        // `… | xargs env`: xargs gives `env` the words it reads, options included.
        let feeds = |k: usize| {
            words[..k]
                .iter()
                .any(|w| matches!(w.rsplit('/').next(), Some("xargs" | "parallel")))
        };
        for (k, word) in words.iter().enumerate() {
            let base = word.rsplit('/').next().unwrap_or(word);
            let known = |j: usize| !seg.dynamic.contains(&j);
            match base {
                "env"
                    if (k + 1 == words.len() && feeds(k))
                        || !env_options_keep_the_mark(&words[k + 1..], |j| known(k + 1 + j)) =>
                {
                    return refuse(
                        "`env` with an option that clears, unsets or rewrites variables (or one known only at run time)",
                    );
                }
                "exec"
                    if words[k + 1..]
                        .iter()
                        .enumerate()
                        .take_while(|(j, w)| w.starts_with('-') || !known(k + 1 + j))
                        .any(|(j, w)| {
                            !known(k + 1 + j) || (!w.starts_with("--") && w.contains('c'))
                        }) =>
                {
                    return refuse("`exec -c` (or an `exec` option known only at run time)");
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// True when the options after an `env` word (`rest`) are all among those that leave the
/// environment as it is: `-0`/`--null`, `-v`/`--debug`, `-C DIR`/`--chdir DIR`, `--`.
/// `known(j)` says whether word `j` of `rest` is known before the command runs.
fn env_options_keep_the_mark(rest: &[String], known: impl Fn(usize) -> bool) -> bool {
    let mut j = 0;
    while let Some(word) = rest.get(j) {
        if !known(j) {
            return false;
        }
        match word.as_str() {
            "--" => return true,
            "-0" | "--null" | "-v" | "--debug" => j += 1,
            "-C" | "--chdir" => j += 2,
            w if w.starts_with("--chdir=") || (w.starts_with("-C") && w.len() > 2) => j += 1,
            w if w.starts_with('-') => return false,
            _ => return true,
        }
    }
    true
}

/// Refuses to start bash when the environment it inherits sets the locale to one in which
/// bash could read the command differently from the analyser (see
/// `check::vars::locale_reads_as_utf8`): each of `LC_ALL`, `LC_CTYPE` and `LANG` must be
/// unset, empty, `C`, `POSIX` or a UTF-8 locale, since a command may unset the ones before it.
fn inherited_locale() -> Outcome<()> {
    for name in crate::check::vars::CTYPE_VARIABLES {
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        let proven = value
            .to_str()
            .is_some_and(crate::check::vars::locale_reads_as_utf8);
        if !proven {
            return Err(format!(
                "the bash tool does not start with {name}={}: in that locale bash may read a command differently from how cmdguard judged it; start the agent with a UTF-8 or C locale",
                value.to_string_lossy()
            ));
        }
    }
    Ok(())
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
    /// The most bytes of output to return (at most 1000000).
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
    let (dir, script) = admit(&ws, command, cd.as_deref(), &envs)?;
    let mut job = Job::start(command, &script, &dir, max_output_size.min(MAX_OUTPUT))?;
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
    // bash ran in the open directory, but names it resolved by path (its own `$PWD`, which
    // `pwd -P` and `cd -P` resolve again, or `$PWD/…` in the command) lead wherever the
    // directory's name led at that moment.
    if still_there(&dir).is_err() {
        return Err(format!(
            "{} was replaced while the command ran: bash ran in the directory that was checked, but paths it resolved by name may have led elsewhere, so its result is not returned as valid; exit code {:?}, output:\n{}",
            dir.path().display(),
            result.exit_code,
            result.output
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
    /// The most bytes of output kept (beginning and end; at most 1000000).
    #[tool(default = 16000)]
    max_output_size: usize,
    #[tool(context)] ctx: &Ctx,
) -> Outcome<JobInfo> {
    let ws = workspace(ctx)?;
    let envs = envs.unwrap_or_default();
    let full = || {
        let mut jobs = ws.jobs().lock().unwrap_or_else(PoisonError::into_inner);
        jobs.forget_read();
        jobs.map.len() >= MAX_JOBS
    };
    let too_many = || format!("{MAX_JOBS} background jobs already; stop or wait for some first");
    if full() {
        return Err(too_many());
    }
    // The job table is not locked while the command is judged: that may mean asking a person,
    // and the other job tools answer meanwhile. The count is checked again after.
    let (dir, script) = admit(&ws, command, cd.as_deref(), &envs)?;
    let mut jobs = ws.jobs().lock().unwrap_or_else(PoisonError::into_inner);
    jobs.forget_read();
    if jobs.map.len() >= MAX_JOBS {
        return Err(too_many());
    }
    let job = Job::start(command, &script, &dir, max_output_size.min(MAX_OUTPUT))?;
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
            job.kill_marked();
            let _ = job.child.wait();
        }
        self.map.clear();
    }
}

/// A running (or finished) command and its captured output.
struct Job {
    command: String,
    /// `CMDGUARD_JOB=<id>`, as it appears in the environment of what the command starts.
    mark: String,
    child: Child,
    capture: Arc<Mutex<Capture>>,
    reader: Option<JoinHandle<()>>,
    started: Instant,
    status: Option<ExitStatus>,
}

impl Job {
    /// Starts `bash --noprofile --norc -c script` in `dir`, in a new process group, with the
    /// host's startup variables removed and the job's mark added, stdin closed, stdout and
    /// stderr into one pipe read by a thread.
    fn start(command: &str, script: &str, dir: &Dir, limit: usize) -> Outcome<Job> {
        let (reader, writer) = std::io::pipe().map_err(|e| format!("cannot make a pipe: {e}"))?;
        let writer2 = writer
            .try_clone()
            .map_err(|e| format!("cannot make a pipe: {e}"))?;
        let mark = format!("{JOB_MARK}={}", new_mark());
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-c"]).arg(script);
        for name in STARTUP_VARIABLES {
            cmd.env_remove(name);
        }
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with(EXPORTED_FUNCTION) {
                cmd.env_remove(name);
            }
        }
        // On Linux bash starts in the open directory itself (`/proc/self/fd/N` is resolved
        // by the child to what the descriptor holds, not walked by name); elsewhere by path.
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            cmd.current_dir(format!("/proc/self/fd/{}", dir.fd().as_raw_fd()));
        }
        #[cfg(not(target_os = "linux"))]
        cmd.current_dir(dir.path());
        cmd.env(JOB_MARK, &mark[JOB_MARK.len() + 1..])
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
            mark,
            child,
            capture,
            reader: Some(reader),
            started: Instant::now(),
            status: None,
        })
    }

    /// The exit status, once the command exited. The moment bash has exited, what it left in
    /// its process group is killed, while bash (a zombie until reaped here) still holds the
    /// group's id: a group is never signalled after its id could have been reused.
    fn poll(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() && exited_unreaped(&mut self.child) {
            self.signal_group(true);
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

    /// Sends `signal` to every process carrying this job's mark, until none is left (for
    /// SIGKILL) or once (for SIGTERM). Linux only: elsewhere nothing has a readable mark.
    fn signal_marked(&self, kill: bool) {
        #[cfg(target_os = "linux")]
        {
            use rustix::process::Signal;
            let signal = if kill { Signal::KILL } else { Signal::TERM };
            // A process may fork while its siblings are killed: look again, a bounded number
            // of times.
            for _ in 0..50 {
                if signal_marked(self.mark.as_bytes(), signal) == 0 || !kill {
                    break;
                }
                thread::sleep(Duration::from_millis(5));
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = kill;
        }
    }

    /// SIGKILL to the group (while bash is not reaped, so the group id is still its own) and
    /// to every process carrying the job's mark.
    fn kill_marked(&self) {
        if self.status.is_none() {
            self.signal_group(true);
        }
        self.signal_marked(true);
    }

    /// Stops the command: SIGTERM to its group and its marked processes, SIGKILL to them all
    /// after [`KILL_GRACE`] (or as soon as bash has exited).
    fn stop(&mut self) {
        if self.poll().is_none() {
            self.signal_group(false);
            self.signal_marked(false);
            let deadline = Instant::now() + KILL_GRACE;
            while self.poll().is_none() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(20));
            }
        }
        self.kill_marked();
        if self.poll().is_none() {
            self.status = self.child.wait().ok();
        }
    }

    /// After the command exited: kills what it left running (in its group or marked) and
    /// collects the rest of its output. A reader that a process escaping both still keeps
    /// open is waited for a second at most, then left behind.
    fn finish(&mut self) {
        let Some(reader) = self.reader.take() else {
            return;
        };
        let wait = |reader: &JoinHandle<()>| {
            let deadline = Instant::now() + Duration::from_secs(1);
            while !reader.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
            reader.is_finished()
        };
        self.kill_marked();
        if wait(&reader) {
            let _ = reader.join();
        }
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
        self.kill_marked();
        if self.poll().is_none() {
            let _ = self.child.wait();
        }
    }
}

/// True once `child` has exited, without reaping it (Linux `waitid` with `WNOWAIT`), so
/// that its process group id stays its own until it is reaped. Elsewhere it is reaped here.
pub(crate) fn exited_unreaped(child: &mut Child) -> bool {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(Pid::from_child(child)), options) {
            Ok(found) => found.is_some(),
            // Not waitable (already reaped): std's own wait says what happened.
            Err(_) => child.try_wait().ok().flatten().is_some(),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        child.try_wait().ok().flatten().is_some()
    }
}

/// A fresh job id: this process's id and 64 random bits (from std's randomly seeded hasher).
fn new_mark() -> String {
    use std::hash::{BuildHasher, Hasher};
    let random = std::hash::RandomState::new().build_hasher().finish();
    format!("{}-{random:016x}", std::process::id())
}

/// Sends `signal` to every process whose initial environment holds `mark` (`NAME=value`);
/// returns how many were signalled. Processes whose environment cannot be read (another
/// user's, a zombie's) are not.
#[cfg(target_os = "linux")]
fn signal_marked(mark: &[u8], signal: rustix::process::Signal) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut signalled = 0;
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|var| var == mark)
            && rustix::process::kill_process(pid, signal).is_ok()
        {
            signalled += 1;
        }
    }
    signalled
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
