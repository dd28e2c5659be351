//! tool/groups/system.rs: the `system` group — what machine and what time it is, and a
//! cancellable pause. Read-only; none of them touches the workspace.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::tool::{Tool, ToolCallContext, tool};

/// The longest `sleep` a model may ask for, in seconds.
pub const MAX_SLEEP_SECONDS: f64 = 600.0;

/// The tools of the group, in the order a model sees them.
pub fn tools() -> Vec<Tool> {
    vec![system_info_tool(), datetime_tool(), sleep_tool()]
}

/// What `system_info` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SystemInfo {
    /// The operating system family: `linux`, `macos`, `windows`, …
    pub os: String,
    /// The distribution or product and its version, when the system says (`Debian GNU/Linux
    /// 12 (bookworm)`), else the kernel release.
    pub version: String,
    /// The kernel release, where there is one (`6.1.0-18-amd64`).
    pub kernel: Option<String>,
    /// The CPU architecture: `x86_64`, `aarch64`, …
    pub arch: String,
    /// The IANA time zone (`Europe/Berlin`), when known.
    pub timezone: Option<String>,
    /// The locale from `LC_ALL`, `LC_CTYPE` or `LANG`, when set.
    pub locale: Option<String>,
}

/// Tells the operating system, its version, the CPU architecture, the time zone and the
/// locale of the machine the tools run on.
#[tool(idempotent)]
fn system_info() -> SystemInfo {
    let kernel = kernel_release();
    SystemInfo {
        os: std::env::consts::OS.to_owned(),
        version: os_release()
            .or_else(|| kernel.clone())
            .unwrap_or_else(|| "unknown".to_owned()),
        kernel,
        arch: std::env::consts::ARCH.to_owned(),
        timezone: jiff::tz::TimeZone::system().iana_name().map(str::to_owned),
        locale: ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty())),
    }
}

/// Tells the current local date and time in ISO 8601 with the UTC offset
/// (`2026-11-30T18:05:07.123+01:00`) and the time zone's name.
#[tool]
fn datetime() -> String {
    let now = jiff::Zoned::now();
    let stamp = now.timestamp().display_with_offset(now.offset());
    match now.time_zone().iana_name() {
        Some(zone) => format!("{stamp} ({zone})"),
        None => stamp.to_string(),
    }
}

/// Waits for the given number of seconds (at most 600), e.g. for a server to start. Stops
/// early, with an error, when the run is cancelled.
#[tool]
fn sleep(
    /// How long to wait, in seconds (fractions allowed).
    seconds: f64,
    ctx: &ToolCallContext<()>,
) -> Result<String, String> {
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("seconds must be 0 or more, not {seconds}"));
    }
    if seconds > MAX_SLEEP_SECONDS {
        return Err(format!(
            "seconds must be at most {MAX_SLEEP_SECONDS}, not {seconds}"
        ));
    }
    let total = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    loop {
        ctx.check_cancelled()
            .map_err(|c| format!("sleep cancelled: {}", c.reason))?;
        let left = total.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Ok(format!("slept {seconds} s"));
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// `PRETTY_NAME` from os-release, where the system has one.
fn os_release() -> Option<String> {
    let text = ["/etc/os-release", "/usr/lib/os-release"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())?;
    text.lines().find_map(|line| {
        let value = line.strip_prefix("PRETTY_NAME=")?;
        let value = value.trim().trim_matches('"').trim_matches('\'');
        (!value.is_empty()).then(|| value.to_owned())
    })
}

#[cfg(unix)]
fn kernel_release() -> Option<String> {
    let name = rustix::system::uname();
    Some(name.release().to_string_lossy().into_owned())
}

#[cfg(not(unix))]
fn kernel_release() -> Option<String> {
    None
}
