//! cli/scan: `cmdguard scan FILE…` — reads each file, hands it to the library's scanner with
//! the same configuration `check` uses, and prints text, JSON or SARIF; also the SARIF form of
//! `check`. It never analyses anything itself.

use std::io::{self, Write};
use std::path::PathBuf;

use cmdguard::Verdict;
use cmdguard::integrations::scan::{self, FileKind, FileReport, Reason, ScanReport, sarif};

use super::{ConfigArgs, EXIT_INTERNAL, EXIT_USAGE, config_error, guard, workdir};

/// Exit status for a file that cannot be read (BSD sysexits EX_NOINPUT).
pub const EXIT_NOINPUT: i32 = 66;

/// Output formats of `scan` and `check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: each command that is not allowed, with its reasons at file:line:column.
    Text,
    /// One JSON object: the verdict and every file's commands with their reasons.
    Json,
    /// A SARIF 2.1.0 log, for CI code scanning.
    Sarif,
}

#[derive(Debug, clap::Args)]
pub struct ScanArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Read every file as this kind instead of telling it from the name or `#!` line:
    /// shell_script, dockerfile, workflow, makefile, package_json.
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    #[command(flatten)]
    config: ConfigArgs,
    /// The files to scan.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// `cmdguard scan …`: exit status 0/1/2 as the strictest verdict, 64 for a file of unknown
/// kind, 66 for a file that cannot be read.
pub fn run(args: ScanArgs) -> i32 {
    let forced = match args.kind.as_deref().map(|k| (k, FileKind::from_name(k))) {
        None => None,
        Some((_, Some(k))) => Some(k),
        Some((k, None)) => {
            eprintln!(
                "cmdguard: unknown kind `{k}`; use shell_script, dockerfile, workflow, makefile or package_json"
            );
            return EXIT_USAGE;
        }
    };
    let mut inputs = Vec::new();
    for path in &args.files {
        let input = match read_regular(path) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("cmdguard: {}: cannot read: {e}", path.display());
                return EXIT_NOINPUT;
            }
        };
        let head = match &input {
            Input::Text(bytes) => {
                String::from_utf8_lossy(&bytes[..bytes.len().min(256)]).into_owned()
            }
            Input::Unread(_) => String::new(),
        };
        let Some(kind) = forced.or_else(|| FileKind::detect(path, &head)) else {
            eprintln!(
                "cmdguard: {}: cannot tell what kind of file this is; pass --kind (shell_script, dockerfile, workflow, makefile, package_json)",
                path.display()
            );
            return EXIT_USAGE;
        };
        inputs.push((path.display().to_string(), input, kind));
    }
    let guard = match guard(&args.config) {
        Ok(g) => g,
        Err(e) => return config_error(&e),
    };
    let workdir = match workdir(args.config.cwd.as_deref()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let analyze = |cmd: &str| guard.finish(guard.analyzer.analyze_in(cmd, &workdir));
    let files: Vec<FileReport> = inputs
        .iter()
        .map(|(path, input, kind)| match input {
            Input::Text(bytes) => scan::scan_bytes(path, bytes, *kind, &analyze),
            Input::Unread(why) => scan::unread(path, *kind, why),
        })
        .collect();
    let report = ScanReport::new(files);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = match args.format {
        Format::Text => text(&report, &mut out),
        Format::Json => json_out(&serde_json::to_value(&report), &mut out),
        Format::Sarif => {
            let raw: Vec<&[u8]> = args.files.iter().map(|p| path_bytes(p)).collect();
            json_out(&Ok(sarif::log_with_paths(&report, &raw)), &mut out)
        }
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => report.verdict.exit_code(),
        Err(e) => {
            eprintln!("cmdguard: cannot write output: {e}");
            EXIT_INTERNAL
        }
    }
}

/// Files larger than this are not read (each asks): no file people commit holds this many
/// commands, and a device or a growing file must not fill memory.
const MAX_FILE: u64 = 16 << 20;

/// What scan read of one path.
enum Input {
    /// A regular file's bytes.
    Text(Vec<u8>),
    /// A path scan did not read, and why (it asks).
    Unread(String),
}

/// Reads `path` when it is a regular file of at most [`MAX_FILE`] bytes, opened without
/// following a symlink and without blocking on a FIFO; anything else is [`Input::Unread`]. A
/// symlink is never followed: it may point outside the tree (`/proc/self/environ`, a
/// credentials file), and the report, with the text of each command, is often published.
fn read_regular(path: &std::path::Path) -> io::Result<Input> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Ok(Input::Unread(
            "a symbolic link: scan does not follow it (it may point outside the tree); scan the file it points to".into(),
        ));
    }
    if !meta.is_file() {
        return Ok(Input::Unread(
            "not a regular file (a FIFO, a device or a directory): scan does not read it".into(),
        ));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    // The path may have been swapped since it was looked at: judge the file opened.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Input::Unread(
            "not a regular file (a FIFO, a device or a directory): scan does not read it".into(),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE {
        return Ok(Input::Unread(format!(
            "larger than {} MiB: scan does not read it",
            MAX_FILE >> 20
        )));
    }
    Ok(Input::Text(bytes))
}

/// Writes a JSON value, pretty, and a newline.
pub fn json_out(
    v: &Result<serde_json::Value, serde_json::Error>,
    out: &mut impl Write,
) -> io::Result<()> {
    let v = v.as_ref().map_err(|e| io::Error::other(e.to_string()))?;
    serde_json::to_writer_pretty(&mut *out, v).map_err(io::Error::other)?;
    writeln!(out)
}

/// The raw bytes of a path (on Unix any bytes but NUL; elsewhere its text).
fn path_bytes(path: &std::path::Path) -> &[u8] {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes()
    }
    #[cfg(not(unix))]
    {
        path.to_str().map_or(&[][..], str::as_bytes)
    }
}

/// `path` with its control characters escaped (`\u{1b}`), so a file name cannot move the
/// cursor, erase a line or hide the findings after it on a terminal (red team s9).
fn shown(path: &str) -> String {
    path.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Each command that is not allowed, its reasons under it, then a count.
fn text(report: &ScanReport, out: &mut impl Write) -> io::Result<()> {
    let mut counts = [0usize; 3];
    for file in &report.files {
        let path = &shown(&file.path);
        for r in &file.reasons {
            reason_line(out, "", path, r)?;
        }
        for cmd in &file.commands {
            counts[cmd.verdict.exit_code() as usize] += 1;
            if cmd.verdict == Verdict::Allow {
                continue;
            }
            let (l, c) = (cmd.start.line, cmd.start.column);
            writeln!(
                out,
                "{path}:{l}:{c}: {}: {} ({})",
                cmd.verdict, cmd.text, cmd.context
            )?;
            for r in &cmd.reasons {
                reason_line(out, "  ", path, r)?;
            }
        }
    }
    let files = report.files.len();
    let [allow, ask, deny] = counts;
    writeln!(
        out,
        "{}: {files} file{}, {} command{}: {allow} allow, {ask} ask, {deny} deny",
        report.verdict,
        if files == 1 { "" } else { "s" },
        allow + ask + deny,
        if allow + ask + deny == 1 { "" } else { "s" },
    )
}

/// One reason as `PATH:LINE:COLUMN: SEVERITY [CODE]: MESSAGE`, after `indent`: a file's own
/// reasons stand alone, a command's are indented under it.
fn reason_line(out: &mut impl Write, indent: &str, path: &str, r: &Reason) -> io::Result<()> {
    let (l, c) = (r.start.line, r.start.column);
    writeln!(
        out,
        "{indent}{path}:{l}:{c}: {} [{}]: {}",
        r.severity, r.code, r.message
    )
}

/// `check --format sarif`: the command's SARIF log, located at a pseudo-URI.
pub fn check_sarif(
    a: &cmdguard::Analysis,
    from_stdin: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let uri = if from_stdin {
        sarif::STDIN_URI
    } else {
        sarif::COMMAND_URI
    };
    json_out(&Ok(sarif::check_log(a, uri)), out)
}
