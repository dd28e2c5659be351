//! assess/command.rs: `CommandAssessor`, which asks a program you configure — the request as
//! JSON on its stdin, the decision as JSON on its stdout. It never runs a shell and never turns
//! a failure into anything but `Unsure { kind: unable_to_assess }`.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::assess::{AssessRequest, Assessment, Decision, RiskAssessor, UnsureKind};

/// The version of the JSON request [`CommandAssessor`] writes; it changes when a field changes
/// meaning or goes away (new fields may appear without a new version).
pub const REQUEST_VERSION: u32 = 1;

/// How much of the program's stderr is kept for the reason of a failure.
const STDERR_KEPT: usize = 2048;

/// The longest reason kept from the program's answer, in bytes.
const MAX_REASON: usize = 1000;

/// Asks a program: runs it (argv, no shell), writes the request as JSON on its stdin, and reads
/// one JSON decision from its stdout.
///
/// # The request (stdin)
///
/// ```json
/// {
///   "version": 1,
///   "command": "npm install left-pad",
///   "verdict": "ask",
///   "findings": [{"code": "not_allowlisted", "message": "…", "severity": "ask"}],
///   "segments": [{"argv": ["npm", "install", "left-pad"]}],
///   "cwd": "/home/me/project",
///   "allowed_paths": ["/tmp"]
/// }
/// ```
///
/// `cwd` is `null` when the runtime did not give one; paths that are not UTF-8 are written with
/// U+FFFD in place of the bad bytes. The program runs in the caller's working directory with
/// the caller's environment; stdin is closed after the request.
///
/// # The answer (stdout)
///
/// ```json
/// {"decision": "unsure", "reason": "installs a package", "kind": "install_package_outside_allowed_paths"}
/// ```
///
/// `decision` is `allow`, `unsure` or `reject`; `reason` is optional (kept up to 1000 bytes);
/// `kind` is one of the [`UnsureKind`] names, read only for `unsure`, which without a kind is
/// `other`. Any other key is an error.
///
/// # Failures
///
/// A program that cannot start, exits with a non-zero status, prints something that is not
/// such an answer, prints more than the output cap (64 KiB by default), or has not answered
/// and exited within the timeout (30 s by default) answers
/// `Unsure { kind: unable_to_assess }` with a reason naming the failure. On a timeout or an
/// oversized answer the program is killed — on Unix with its whole process group, so that a
/// script's children go too. Stderr is read (so the program never blocks on a full pipe) and
/// its first line is quoted in the reason of a failed exit.
///
/// ```no_run
/// use std::time::Duration;
/// use cmdguard::Analyzer;
/// use cmdguard::assess::{AssessRequest, CommandAssessor, RiskAssessor};
///
/// let assessor = CommandAssessor::new("/usr/local/bin/ask-my-policy")
///     .arg("--strict")
///     .timeout(Duration::from_secs(5));
/// let analysis = Analyzer::default().analyze("npm install");
/// let answer = assessor.assess(&AssessRequest::new("npm install", &analysis));
/// println!("{:?}: {:?}", answer.decision, answer.reason);
/// ```
#[derive(Debug, Clone)]
pub struct CommandAssessor {
    program: PathBuf,
    args: Vec<String>,
    timeout: Duration,
    max_output: usize,
}

impl CommandAssessor {
    /// Runs `program` (a path, or a name looked up in `PATH`) with no arguments, a 30 s timeout
    /// and a 64 KiB output cap.
    pub fn new(program: impl Into<PathBuf>) -> CommandAssessor {
        CommandAssessor {
            program: program.into(),
            args: Vec::new(),
            timeout: Duration::from_secs(30),
            max_output: 64 * 1024,
        }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<String>) -> CommandAssessor {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<String>>) -> CommandAssessor {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// How long the program may take to answer and exit.
    pub fn timeout(mut self, timeout: Duration) -> CommandAssessor {
        self.timeout = timeout;
        self
    }

    /// The most bytes read from the program's stdout; more is a failure.
    pub fn max_output(mut self, bytes: usize) -> CommandAssessor {
        self.max_output = bytes;
        self
    }

    /// The program.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The JSON written on the program's stdin for `request` (see the type's documentation).
    pub fn request_json(request: &AssessRequest<'_>) -> String {
        let wire = WireRequest {
            version: REQUEST_VERSION,
            command: request.command,
            verdict: request.analysis.verdict.as_str(),
            findings: request
                .analysis
                .findings
                .iter()
                .map(|finding| WireFinding {
                    code: finding.code.as_str(),
                    message: &finding.message,
                    severity: finding.severity.as_str(),
                })
                .collect(),
            segments: request
                .analysis
                .segments
                .iter()
                .map(|segment| WireSegment {
                    argv: &segment.argv,
                })
                .collect(),
            cwd: request.cwd.map(|cwd| cwd.to_string_lossy().into_owned()),
            allowed_paths: request
                .allowed_paths
                .iter()
                .map(|path| path.to_string_lossy().into_owned())
                .collect(),
        };
        // Serialising plain strings and numbers cannot fail.
        serde_json::to_string(&wire).unwrap_or_default()
    }

    /// Parses the program's answer (see the type's documentation).
    pub fn parse_answer(stdout: &[u8]) -> Result<Assessment, String> {
        let answer: WireAnswer = serde_json::from_slice(stdout).map_err(|error| {
            format!(
                "assessor answered something that is not a decision ({error}): {}",
                quote(stdout)
            )
        })?;
        let reason = answer.reason.map(|reason| truncate(reason, MAX_REASON));
        let kind = match answer.decision {
            Decision::Unsure => Some(answer.kind.unwrap_or(UnsureKind::Other)),
            Decision::Allow | Decision::Reject => None,
        };
        Ok(Assessment {
            decision: answer.decision,
            reason,
            kind,
        })
    }

    fn run(&self, request: &AssessRequest<'_>) -> Result<Assessment, String> {
        let deadline = Instant::now() + self.timeout;
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so a timeout kills what the program started as well.
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot start assessor {:?}: {error}", self.program))?;
        let input = Self::request_json(request);
        if let Some(mut stdin) = child.stdin.take() {
            // A thread, so that a program that answers before reading its input cannot block us
            // on a full pipe; a program that never reads gets a broken pipe, which is fine.
            thread::spawn(move || {
                let _ = stdin.write_all(input.as_bytes());
            });
        }
        let stdout = read_capped(child.stdout.take(), self.max_output);
        let stderr = drain_stderr(child.stderr.take());
        let output = match stdout.recv_timeout(remaining(deadline)) {
            Ok(Ok(output)) => output,
            Ok(Err(Overflow::TooBig)) => {
                kill(&mut child);
                return Err(format!(
                    "assessor printed more than {} bytes",
                    self.max_output
                ));
            }
            Ok(Err(Overflow::Io(error))) => {
                kill(&mut child);
                return Err(format!("cannot read the assessor's answer: {error}"));
            }
            Err(_) => {
                kill(&mut child);
                return Err(self.timed_out());
            }
        };
        let status = match wait_until(&mut child, deadline) {
            Some(status) => status,
            None => {
                kill(&mut child);
                return Err(self.timed_out());
            }
        };
        if !status.success() {
            // The program has exited; its stderr ends unless a child of it holds the pipe.
            let stderr = stderr
                .recv_timeout(Duration::from_millis(200))
                .unwrap_or_default();
            let first_line = stderr.lines().next().unwrap_or("").trim();
            let said = if first_line.is_empty() {
                String::new()
            } else {
                format!(": {first_line}")
            };
            return Err(format!("assessor exited with {status}{said}"));
        }
        Self::parse_answer(&output)
    }

    fn timed_out(&self) -> String {
        format!("assessor timed out after {} ms", self.timeout.as_millis())
    }
}

impl RiskAssessor for CommandAssessor {
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        self.run(request).unwrap_or_else(Assessment::unable)
    }
}

#[derive(Serialize)]
struct WireRequest<'a> {
    version: u32,
    command: &'a str,
    verdict: &'static str,
    findings: Vec<WireFinding<'a>>,
    segments: Vec<WireSegment<'a>>,
    cwd: Option<String>,
    allowed_paths: Vec<String>,
}

#[derive(Serialize)]
struct WireFinding<'a> {
    code: &'static str,
    message: &'a str,
    severity: &'static str,
}

#[derive(Serialize)]
struct WireSegment<'a> {
    argv: &'a [String],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireAnswer {
    decision: Decision,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    kind: Option<UnsureKind>,
}

enum Overflow {
    TooBig,
    Io(io::Error),
}

/// Reads `stdout` to its end on a thread, failing as soon as it holds more than `cap` bytes.
fn read_capped(
    stdout: Option<ChildStdout>,
    cap: usize,
) -> mpsc::Receiver<Result<Vec<u8>, Overflow>> {
    let (sender, receiver) = mpsc::sync_channel(1);
    thread::spawn(move || {
        let result = match stdout {
            Some(stdout) => {
                let mut output = Vec::new();
                let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
                match stdout.take(limit).read_to_end(&mut output) {
                    Ok(_) if output.len() > cap => Err(Overflow::TooBig),
                    Ok(_) => Ok(output),
                    Err(error) => Err(Overflow::Io(error)),
                }
            }
            None => Ok(Vec::new()),
        };
        let _ = sender.send(result);
    });
    receiver
}

/// Reads `stderr` to its end on a thread, keeping its first bytes.
fn drain_stderr(stderr: Option<ChildStderr>) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::sync_channel(1);
    thread::spawn(move || {
        let Some(mut stderr) = stderr else {
            return;
        };
        let mut kept = Vec::new();
        let mut buffer = [0_u8; 8192];
        loop {
            match stderr.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = STDERR_KEPT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                }
            }
        }
        let _ = sender.send(String::from_utf8_lossy(&kept).into_owned());
    });
    receiver
}

/// Waits for the child to exit until `deadline`; `None` when it has not.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            Ok(None) | Err(_) => return None,
        }
    }
}

/// Kills the child (on Unix, its whole process group) and reaps it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(child),
            rustix::process::Signal::KILL,
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// The start of the program's output, for an error message.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]);
    let more = bytes.len().saturating_sub(80);
    if more == 0 {
        format!("{text:?}")
    } else {
        format!("{text:?}, {more} bytes more")
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
pub(crate) fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}
