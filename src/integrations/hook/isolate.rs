//! integrations/hook/isolate: the decision runs in a child process, so a crash is an answer too.
//!
//! A panic is caught where it happens and a slow decision meets `--timeout`, but a process that
//! dies — a segfault in a C grammar scanner, a stack overflow, an allocation failure — cannot
//! answer for itself, and every agent runs the tool when its hook dies. So `cmdguard hook`
//! starts itself again as a worker (`--worker`, hidden), which reads the payload from the
//! inherited stdin and writes the answer into a pipe. The supervisor forwards that answer only
//! when the worker exited normally with 0 or 2 (the only statuses an answer has); any other
//! end — a signal, another status, silence past the deadline — becomes the `--on-error`
//! answer, written by the supervisor. A worker that cannot be started leaves the decision to
//! this process, which still answers panics and timeouts.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{AskAs, HookArgs};

/// How long past `--timeout` the supervisor waits for the worker's own timeout answer.
const GRACE: Duration = Duration::from_secs(2);

/// How the worker ended, when it did not give an answer the supervisor can forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Exited normally with 0 or 2: its stdout is the answer.
    Answered {
        /// What the worker wrote.
        stdout: Vec<u8>,
        /// Its exit status.
        code: i32,
    },
    /// Anything else, said for a person.
    Failed(String),
}

/// Runs the decision in a worker process; `None` when no worker could be started.
pub(super) fn supervise(args: &HookArgs) -> Option<Outcome> {
    let exe = std::env::current_exe().ok()?;
    let mut child = Command::new(exe)
        .args(worker_args(args))
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(args.timeout) + GRACE;
    let mut pipe = child.stdout.take()?;
    let (tx, rx) = mpsc::channel();
    // The answer is small, but the read blocks until the worker closes its stdout.
    let reader = std::thread::Builder::new()
        .name("cmdguard-hook-reader".into())
        .spawn(move || {
            let mut out = Vec::new();
            let read = pipe.read_to_end(&mut out).map(|_| out);
            let _ = tx.send(read);
        });
    if reader.is_err() {
        stop(&mut child);
        return Some(Outcome::Failed(
            "cmdguard could not read its worker's answer".into(),
        ));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    let stdout = match rx.recv_timeout(left) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            stop(&mut child);
            return Some(Outcome::Failed(format!(
                "cmdguard could not read its worker's answer: {e}"
            )));
        }
        Err(_) => {
            stop(&mut child);
            return Some(Outcome::Failed(past_deadline(args)));
        }
    };
    // stdout is closed; the worker is exiting (or has left a child holding nothing of ours).
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            Ok(None) => {
                stop(&mut child);
                return Some(Outcome::Failed(past_deadline(args)));
            }
            Err(e) => {
                stop(&mut child);
                return Some(Outcome::Failed(format!(
                    "cmdguard lost its worker process: {e}"
                )));
            }
        }
    };
    Some(judge_exit(status, stdout))
}

/// What a finished worker's status and output amount to.
pub(super) fn judge_exit(status: ExitStatus, stdout: Vec<u8>) -> Outcome {
    match (status.code(), status.signal()) {
        (Some(code @ (0 | 2)), _) => Outcome::Answered { stdout, code },
        (_, Some(signal)) => Outcome::Failed(format!(
            "its checking process was killed by signal {signal}{}",
            signal_name(signal)
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        )),
        (Some(code), None) => Outcome::Failed(format!(
            "its checking process ended with status {code} instead of an answer"
        )),
        (None, None) => Outcome::Failed("its checking process ended without an answer".into()),
    }
}

/// Caps the worker's address space at `mib` MiB (0: no cap). Past it, an allocation fails and
/// the worker aborts, which the supervisor answers as a failure.
pub(super) fn limit_memory(mib: u64) -> Result<(), String> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    if mib == 0 {
        return Ok(());
    }
    let bytes = mib.saturating_mul(1024 * 1024);
    let now = getrlimit(Resource::As);
    let current = match now.maximum {
        Some(max) => bytes.min(max),
        None => bytes,
    };
    setrlimit(
        Resource::As,
        Rlimit {
            current: Some(current),
            maximum: now.maximum,
        },
    )
    .map_err(|e| format!("cannot cap the checking process's memory: {e}"))
}

fn worker_args(args: &HookArgs) -> Vec<String> {
    let mut v = vec![
        "hook".to_string(),
        args.agent.name().to_string(),
        "--timeout".into(),
        args.timeout.to_string(),
        "--max-memory".into(),
        args.max_memory.to_string(),
        "--worker".into(),
    ];
    for (flag, value) in [("--ask-as", args.ask_as), ("--on-error", args.on_error)] {
        if let Some(a) = value {
            v.push(flag.into());
            v.push(ask_as_name(a).into());
        }
    }
    v
}

fn ask_as_name(a: AskAs) -> &'static str {
    match a {
        AskAs::Ask => "ask",
        AskAs::Deny => "deny",
    }
}

fn past_deadline(args: &HookArgs) -> String {
    format!(
        "cmdguard did not decide within {} s (--timeout)",
        args.timeout
    )
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(raw: i32) -> ExitStatus {
        ExitStatus::from_raw(raw)
    }

    #[test]
    fn only_a_normal_exit_with_0_or_2_is_an_answer() {
        // Raw wait statuses: exit code in the second byte, a signal in the low seven bits.
        let table: &[(i32, bool, &str)] = &[
            (0, true, ""),
            (2 << 8, true, ""),
            (1 << 8, false, "status 1"),
            (101 << 8, false, "status 101"),
            (11, false, "signal 11 (SIGSEGV)"),
            (6, false, "signal 6 (SIGABRT)"),
            (9, false, "signal 9 (SIGKILL)"),
            (31, false, "signal 31"),
        ];
        for &(raw, answered, said) in table {
            match judge_exit(status(raw), b"out".to_vec()) {
                Outcome::Answered { stdout, code } => {
                    assert!(answered, "raw {raw} forwarded");
                    assert_eq!(stdout, b"out");
                    assert_eq!(code, raw >> 8);
                }
                Outcome::Failed(why) => {
                    assert!(!answered, "raw {raw} refused");
                    assert!(why.contains(said), "raw {raw}: {why}");
                }
            }
        }
    }
}
