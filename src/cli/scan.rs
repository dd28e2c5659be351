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
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("cmdguard: {}: cannot read: {e}", path.display());
                return EXIT_NOINPUT;
            }
        };
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(256)]).into_owned();
        let Some(kind) = forced.or_else(|| FileKind::detect(path, &head)) else {
            eprintln!(
                "cmdguard: {}: cannot tell what kind of file this is; pass --kind (shell_script, dockerfile, workflow, makefile, package_json)",
                path.display()
            );
            return EXIT_USAGE;
        };
        inputs.push((path.display().to_string(), bytes, kind));
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
        .map(|(path, bytes, kind)| scan::scan_bytes(path, bytes, *kind, &analyze))
        .collect();
    let report = ScanReport::new(files);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = match args.format {
        Format::Text => text(&report, &mut out),
        Format::Json => json_out(&serde_json::to_value(&report), &mut out),
        Format::Sarif => json_out(&Ok(sarif::log(&report)), &mut out),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => report.verdict.exit_code(),
        Err(e) => {
            eprintln!("cmdguard: cannot write output: {e}");
            EXIT_INTERNAL
        }
    }
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

/// Each command that is not allowed, its reasons under it, then a count.
fn text(report: &ScanReport, out: &mut impl Write) -> io::Result<()> {
    let mut counts = [0usize; 3];
    for file in &report.files {
        let path = &file.path;
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
