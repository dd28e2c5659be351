//! integrations/audit: the opt-in audit log — one JSON line per decision a hook made, appended
//! under an exclusive lock on the log file — and `cmdguard log`, which reads it back. A line
//! holds the command, where it ran, what was decided and why; it never holds an environment
//! value (no variable of the hook's environment is ever written).
//!
//! The log is on when `CMDGUARD_AUDIT_LOG` names a file, or when a user, system or
//! `CMDGUARD_CONFIG` layer sets `audit_log = "FILE"` (a project config may not: a repository
//! choosing where decisions are written could aim them at any file).
//!
//! ```
//! use cmdguard::integrations::audit::{AuditRecord, append, read};
//! use cmdguard::Verdict;
//! let dir = std::env::temp_dir().join(format!("cmdguard-audit-doc-{}", std::process::id()));
//! let log = dir.join("audit.jsonl");
//! let mut r = AuditRecord::now("claude-code", Verdict::Ask);
//! r.command = Some("ls > out.txt".into());
//! append(&log, &r)?;
//! let (records, bad) = read(&log)?;
//! assert_eq!((records.len(), bad.len()), (1, 0));
//! assert_eq!(records[0].command.as_deref(), Some("ls > out.txt"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use serde::{Deserialize, Serialize};

use crate::Verdict;
use crate::config::{ConfigSources, Env};

/// The environment variable naming the audit log file; it wins over the config's `audit_log`.
pub const AUDIT_ENV: &str = "CMDGUARD_AUDIT_LOG";

/// One decision, as one line of the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When, in UTC, to the second (`2026-11-30T17:20:00Z`).
    pub time: String,
    /// Which agent's hook asked (`claude-code`, `gemini`, `codex`).
    pub agent: String,
    /// The directory the command was to run in, when the payload said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The command, when the payload could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// What the hook answered: the verdict the agent acted on.
    pub verdict: Verdict,
    /// The analyser's own verdict, before grants, the assessor, `--ask-as` and the bypass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis_verdict: Option<Verdict>,
    /// The codes of the analyser's findings, in order.
    #[serde(default)]
    pub codes: Vec<String>,
    /// The ids of the rules that matched or produced findings, first use first.
    #[serde(default)]
    pub rules: Vec<String>,
    /// The step of the policy that settled it (`analyser_allow`, `grant`, `prompt`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// The risk assessor's answer, when it was asked (its decision, reason and kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assessment: Option<serde_json::Value>,
    /// What became of the prompt: `deferred to the agent`, `auto-confirm: yes`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Set when `CMDGUARD_BYPASS` changed the answer: what it would have been.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bypass: Option<String>,
    /// Why the command could not be checked (a payload that could not be read, a timeout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The agent's session id, when the payload gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl AuditRecord {
    /// A record of `verdict` for `agent`, stamped now, the rest empty.
    pub fn now(agent: &str, verdict: Verdict) -> AuditRecord {
        AuditRecord {
            time: rfc3339(unix_now()),
            agent: agent.to_string(),
            cwd: None,
            command: None,
            verdict,
            analysis_verdict: None,
            codes: Vec::new(),
            rules: Vec::new(),
            route: None,
            assessment: None,
            prompt: None,
            bypass: None,
            error: None,
            session: None,
        }
    }
}

/// Appends `record` as one line, creating the file (mode 0600) and its directory when needed.
/// The line is written with one `write` under an exclusive lock, so concurrent hooks never
/// interleave their lines.
pub fn append(path: &Path, record: &AuditRecord) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
    line.push(b'\n');
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        // Commands can hold secrets typed on the command line: the log is the user's alone.
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.lock()?;
    file.write_all(&line)?;
    file.flush()
    // The lock is released when the file is closed.
}

/// Every record in the log, and the 1-based numbers of the lines that are not records. A
/// missing file is an empty log.
pub fn read(path: &Path) -> io::Result<(Vec<AuditRecord>, Vec<usize>)> {
    let text = match File::open(path) {
        Ok(f) => {
            f.lock_shared()?;
            fs::read(path)?
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(e),
    };
    let mut records = Vec::new();
    let mut bad = Vec::new();
    for (n, line) in text.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<AuditRecord>(line) {
            Ok(r) => records.push(r),
            Err(_) => bad.push(n + 1),
        }
    }
    Ok((records, bad))
}

/// The audit log in force: `CMDGUARD_AUDIT_LOG`, else the config's `audit_log` as `env`'s
/// layers set it (a config that does not load names no log here; the caller reports it).
pub fn configured_path(env: &Env, env_value: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    if let Some(v) = env_value.filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v));
    }
    ConfigSources::discover(env)
        .load()
        .ok()
        .and_then(|c| c.audit_log.map(|s| s.value))
}

/// The `audit_log` the system, user and `CMDGUARD_CONFIG` files set (the last one wins, as
/// when the layers merge), read without compiling anything: for a hook that failed before its
/// configuration could load, so that the failure is still logged.
pub fn path_from_files(sources: &ConfigSources) -> Option<PathBuf> {
    #[derive(Deserialize)]
    struct OnlyLog {
        audit_log: Option<String>,
    }
    let files = [&sources.system, &sources.user, &sources.env_config];
    files.into_iter().flatten().rev().find_map(|file| {
        let text = fs::read_to_string(file).ok()?;
        let value = toml::from_str::<OnlyLog>(&text).ok()?.audit_log?;
        let p = PathBuf::from(value);
        Some(match file.parent() {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p,
        })
    })
}

/// `cmdguard log`: decisions from the audit log, oldest first.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The audit log [default: $CMDGUARD_AUDIT_LOG, else `audit_log` from the config].
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only decisions since then: a duration back from now (`90s`, `30m`, `2h`, `7d`) or a UTC
    /// time (`2026-11-30`, `2026-11-30T17:00:00Z`).
    #[arg(long, value_name = "DURATION|TIME", value_parser = parse_since)]
    pub since: Option<u64>,
    /// Only decisions answered with this verdict (allow, ask or deny).
    #[arg(long, value_name = "VERDICT", value_parser = parse_verdict)]
    pub verdict: Option<Verdict>,
    /// Print the matching lines as stored (JSON lines).
    #[arg(long)]
    pub json: bool,
}

/// Exit status when no audit log is configured or the config does not load (EX_CONFIG).
const EXIT_CONFIG: i32 = 78;
/// Exit status when the log cannot be read (EX_IOERR).
const EXIT_IO: i32 = 74;

/// Runs `cmdguard log` and returns the exit status.
pub fn run_log(args: &LogArgs) -> i32 {
    let path = match &args.file {
        Some(p) => p.clone(),
        None => {
            let env = Env::process();
            if std::env::var_os(AUDIT_ENV).is_none_or(|v| v.is_empty())
                && let Err(e) = ConfigSources::discover(&env).load()
            {
                eprintln!("cmdguard: config error: {e}");
                return EXIT_CONFIG;
            }
            match configured_path(&env, std::env::var_os(AUDIT_ENV).as_deref()) {
                Some(p) => p,
                None => {
                    eprintln!(
                        "cmdguard: no audit log is configured; set `audit_log = \"FILE\"` in your config, or {AUDIT_ENV}=FILE, or pass --file FILE"
                    );
                    return EXIT_CONFIG;
                }
            }
        }
    };
    let (records, bad) = match read(&path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cmdguard: cannot read {}: {e}", path.display());
            return EXIT_IO;
        }
    };
    for n in bad {
        eprintln!(
            "cmdguard: {}:{n}: not an audit record; skipped",
            path.display()
        );
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let shown = records.iter().filter(|r| {
        args.verdict.is_none_or(|v| r.verdict == v)
            && args
                .since
                .is_none_or(|since| parse_time(&r.time).is_some_and(|t| t >= since))
    });
    let mut written = Ok(());
    for r in shown {
        written = if args.json {
            serde_json::to_writer(&mut out, r)
                .map_err(io::Error::other)
                .and_then(|()| writeln!(out))
        } else {
            writeln!(out, "{}", one_line(r))
        };
        if written.is_err() {
            break;
        }
    }
    match written.and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cmdguard: cannot write output: {e}");
            EXIT_IO
        }
    }
}

/// A record as `cmdguard log` prints it: time, verdict, agent, directory, command, codes.
pub fn one_line(r: &AuditRecord) -> String {
    let command = r
        .command
        .as_deref()
        .map(shown)
        .unwrap_or_else(|| "-".to_string());
    let mut line = format!(
        "{}  {:<5}  {}  {}  $ {command}",
        r.time,
        r.verdict.as_str(),
        r.agent,
        r.cwd.as_deref().unwrap_or("-"),
    );
    if !r.codes.is_empty() {
        line.push_str(&format!("  [{}]", r.codes.join(", ")));
    }
    if let Some(b) = &r.bypass {
        line.push_str(&format!("  bypass: {b}"));
    }
    if let Some(e) = &r.error {
        line.push_str(&format!("  error: {}", shown(e)));
    }
    line
}

/// `text` on one line: control characters (newlines, escapes) shown as `\u{…}`.
fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn parse_verdict(s: &str) -> Result<Verdict, String> {
    match s {
        "allow" => Ok(Verdict::Allow),
        "ask" => Ok(Verdict::Ask),
        "deny" => Ok(Verdict::Deny),
        _ => Err(format!("`{s}` is not a verdict; use allow, ask or deny")),
    }
}

/// `--since`: a duration back from now, or a UTC time; seconds since the epoch.
fn parse_since(s: &str) -> Result<u64, String> {
    if let Some(t) = parse_time(s) {
        return Ok(t);
    }
    let back = parse_duration(s).ok_or_else(|| {
        format!(
            "`{s}` is neither a duration (`90s`, `30m`, `2h`, `7d`) nor a UTC time (`2026-11-30`, `2026-11-30T17:00:00Z`)"
        )
    })?;
    Ok(unix_now().saturating_sub(back.as_secs()))
}

/// `90s`, `30m`, `2h`, `7d`.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let unit = s.chars().last()?;
    let n: u64 = s.get(..s.len() - unit.len_utf8())?.parse().ok()?;
    let secs = match unit {
        's' => n,
        'm' => n.checked_mul(60)?,
        'h' => n.checked_mul(3600)?,
        'd' => n.checked_mul(86_400)?,
        _ => return None,
    };
    Some(Duration::from_secs(secs))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX);
    let rest = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM:SSZ` as seconds since the epoch.
pub fn parse_time(s: &str) -> Option<u64> {
    let num = |a: usize, b: usize| -> Option<i64> {
        let part = s.get(a..b)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let sep = |i: usize, c: u8| s.as_bytes().get(i) == Some(&c);
    if !(sep(4, b'-') && sep(7, b'-')) {
        return None;
    }
    let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let clock = match s.len() {
        10 => 0,
        20 if sep(10, b'T') && sep(13, b':') && sep(16, b':') && sep(19, b'Z') => {
            let (h, mi, se) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
            if h > 23 || mi > 59 || se > 60 {
                return None;
            }
            h * 3600 + mi * 60 + se
        }
        _ => return None,
    };
    u64::try_from(days_from_civil(y, m, d) * 86_400 + clock).ok()
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// (year, month, day) to days since 1970-01-01, the inverse of [`civil_from_days`].
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_through_the_text_form() {
        for secs in [0, 951_782_400, 1_700_000_000, 1_796_000_000, 4_102_444_800] {
            assert_eq!(parse_time(&rfc3339(secs)), Some(secs), "{}", rfc3339(secs));
        }
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(parse_time("2000-02-29"), Some(951_782_400));
    }

    #[test]
    fn malformed_times_and_durations_are_refused() {
        for bad in [
            "",
            "2026-13-01",
            "2026-11-30T25:00:00Z",
            "2026-11-30 17:00:00",
            "2026-11-30T17:00:00+01:00",
            "x026-11-30",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
        for bad in ["", "m", "10", "10w", "-5m", "1.5h"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        assert_eq!(parse_duration("2h"), Some(Duration::from_secs(7200)));
    }
}
