//! cli: the `cmdguard` command line — arguments, output formats and exit codes — as a thin
//! layer over the library. It never analyses anything itself.

use std::ffi::OsString;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use cmdguard::{AllowlistBuilder, Analysis, Analyzer, ConfigError, Verdict, Workdir};

/// Exit status for a usage error (BSD sysexits EX_USAGE).
pub const EXIT_USAGE: i32 = 64;
/// Exit status for an internal error (EX_SOFTWARE).
pub const EXIT_INTERNAL: i32 = 70;
/// Exit status for a configuration error (EX_CONFIG).
pub const EXIT_CONFIG: i32 = 78;

/// Decides whether a shell command may run without asking a human.
///
/// Exit status: 0 allow, 1 ask, 2 deny; 64 usage error, 70 internal error, 78 config error.
#[derive(Debug, Parser)]
#[command(name = "cmdguard", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Analyse a command and print the verdict with its reasons.
    Check(CheckArgs),
    /// Print the embedded default allowlist.
    DefaultAllowlist,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Print one JSON object with verdict, findings and segments.
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    /// Read JSON lines from stdin (`{"cmd": "…"}` or a JSON string) and print one JSON verdict
    /// per line; the exit status is the strictest verdict.
    #[arg(long, conflicts_with = "stdin")]
    jsonl: bool,
    /// Read one command from stdin (all of it, newlines included).
    #[arg(long)]
    stdin: bool,
    /// Use this allowlist instead of the embedded default.
    #[arg(long, value_name = "FILE")]
    allowlist: Option<PathBuf>,
    /// Extend the allowlist with this file (repeatable).
    #[arg(long = "allowlist-add", value_name = "FILE")]
    allowlist_add: Vec<PathBuf>,
    /// Add this deny pack (a `[pack]` table and `[[deny]]` rules; repeatable).
    #[arg(long = "pack", value_name = "FILE")]
    pack: Vec<PathBuf>,
    /// The directory the command will run in (default: the current directory). git commands
    /// are checked against the config of the repository there; with --jsonl a line's own
    /// `"cwd"` field wins.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The command to analyse; several words are joined with spaces.
    #[arg(
        value_name = "COMMAND",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    command: Vec<OsString>,
}

/// Runs the CLI and returns the process exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    let dashdash = args.iter().any(|a| a == "--");
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::DefaultAllowlist => {
            print!("{}", cmdguard::DEFAULT_ALLOWLIST);
            0
        }
        Command::Check(args) => {
            // clap takes an unknown `--flag` as the start of the command; without `--` it is
            // far more likely a mistyped option than a command starting with `-`.
            if let Some(first) = args.command.first()
                && first.as_encoded_bytes().starts_with(b"-")
                && !dashdash
            {
                eprintln!(
                    "cmdguard: unknown option `{}`; put `--` before a command that starts with `-`",
                    first.to_string_lossy()
                );
                return EXIT_USAGE;
            }
            check(args)
        }
    }
}

fn analyzer(args: &CheckArgs) -> Result<Analyzer, ConfigError> {
    if args.allowlist.is_none() && args.allowlist_add.is_empty() && args.pack.is_empty() {
        // The embedded list's examples are verified by the test suite, not on every run.
        return Ok(Analyzer::default());
    }
    let mut builder = AllowlistBuilder::new();
    match &args.allowlist {
        // A replacement allowlist keeps the default deny packs; `[packs] disable` turns them off.
        Some(p) => builder.add_file(p)?.add_default_packs(),
        None => builder.add_default(),
    };
    for p in &args.allowlist_add {
        builder.add_file(p)?;
    }
    for p in &args.pack {
        builder.add_pack_file(p)?;
    }
    Ok(Analyzer::new(builder.build()?))
}

fn check(args: CheckArgs) -> i32 {
    let analyzer = match analyzer(&args) {
        Ok(a) => a,
        Err(e) => {
            match std::error::Error::source(&e) {
                Some(cause) => eprintln!("cmdguard: config error: {e}: {cause}"),
                None => eprintln!("cmdguard: config error: {e}"),
            }
            return EXIT_CONFIG;
        }
    };
    let workdir = match workdir(args.cwd.as_deref()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = if args.jsonl {
        jsonl(&analyzer, &workdir, &mut out)
    } else {
        let bytes = if args.stdin {
            if !args.command.is_empty() {
                eprintln!(
                    "cmdguard: give the command either as an argument or with --stdin, not both"
                );
                return EXIT_USAGE;
            }
            let mut buf = Vec::new();
            if let Err(e) = io::stdin().read_to_end(&mut buf) {
                eprintln!("cmdguard: cannot read stdin: {e}");
                return EXIT_INTERNAL;
            }
            buf
        } else if args.command.is_empty() {
            eprintln!(
                "cmdguard: no command given\n\nUsage: cmdguard check [OPTIONS] [--] <COMMAND>..."
            );
            return EXIT_USAGE;
        } else {
            join_os(&args.command)
        };
        let a = analyzer.analyze_bytes_in(&bytes, &workdir);
        let written = if args.json {
            serde_json::to_writer(&mut out, &a)
                .map_err(io::Error::other)
                .and_then(|()| writeln!(out))
        } else {
            human(&a, &mut out)
        };
        written.map(|()| a.verdict)
    };
    match result.and_then(|v| out.flush().map(|()| v)) {
        Ok(v) => v.exit_code(),
        Err(e) => {
            eprintln!("cmdguard: cannot write output: {e}");
            EXIT_INTERNAL
        }
    }
}

/// The current directory (or `--cwd`), `$HOME` and `$CDPATH`; an exit status when unusable.
fn workdir(cwd: Option<&Path>) -> Result<Workdir, i32> {
    let w = match (Workdir::from_env(), cwd) {
        (Ok(w), _) => w,
        // A deleted current directory does not matter when --cwd is absolute.
        (Err(_), Some(dir)) if dir.is_absolute() => Workdir::new("/"),
        (Err(e), _) => {
            eprintln!("cmdguard: cannot tell the current directory ({e}); pass --cwd DIR");
            return Err(EXIT_INTERNAL);
        }
    };
    let Some(dir) = cwd else { return Ok(w) };
    let dir = w.cwd().join(dir);
    if !dir.is_dir() {
        eprintln!("cmdguard: --cwd {}: not a directory", dir.display());
        return Err(EXIT_USAGE);
    }
    Ok(w.in_dir(dir))
}

fn join_os(parts: &[OsString]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(p.as_encoded_bytes());
    }
    out
}

fn jsonl(analyzer: &Analyzer, workdir: &Workdir, out: &mut impl Write) -> io::Result<Verdict> {
    let mut worst = Verdict::Allow;
    let stdin = io::stdin();
    for (n, line) in stdin.lock().split(b'\n').enumerate() {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let a = match parse_line(&line) {
            Ok((cmd, None)) => analyzer.analyze_in(&cmd, workdir),
            Ok((cmd, Some(cwd))) => {
                let dir = workdir.cwd().join(cwd);
                analyzer.analyze_in(&cmd, &workdir.clone().in_dir(dir))
            }
            Err(why) => {
                // A line that is not a command still gets a verdict, and never `allow`.
                let mut a = analyzer.analyze_bytes(&[0xff]);
                a.cmd = String::from_utf8_lossy(&line).into_owned();
                if let Some(f) = a.findings.first_mut() {
                    f.message = format!("line {} is not a JSON command: {why}", n + 1);
                    f.span = cmdguard::Span::new(0, a.cmd.len());
                }
                a.segments.clear();
                a.findings.truncate(1);
                a
            }
        };
        worst = worst.max(a.verdict);
        serde_json::to_writer(&mut *out, &a).map_err(io::Error::other)?;
        writeln!(out)?;
    }
    Ok(worst)
}

/// A JSON line: the command, and the directory it runs in when the line says.
fn parse_line(line: &[u8]) -> Result<(String, Option<String>), String> {
    let v: serde_json::Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    match v {
        serde_json::Value::String(s) => Ok((s, None)),
        serde_json::Value::Object(mut m) => {
            let cwd = match m.remove("cwd") {
                None => None,
                Some(serde_json::Value::String(c)) => Some(c),
                Some(_) => return Err("`cwd` must be a string".into()),
            };
            match m.remove("cmd") {
                Some(serde_json::Value::String(s)) => Ok((s, cwd)),
                _ => Err("expected a string field `cmd`".into()),
            }
        }
        _ => Err("expected a JSON string or an object with `cmd`".into()),
    }
}

/// The human explanation: the verdict, then each finding with a caret under its span.
fn human(a: &Analysis, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{}: {}", a.verdict, one_line(&a.cmd))?;
    let shown: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.severity > Verdict::Allow)
        .collect();
    let notes: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.severity == Verdict::Allow)
        .collect();
    for f in shown.iter().chain(notes.iter()) {
        writeln!(out, "  {} [{}]: {}", f.severity, f.code, f.message)?;
        if let Some((line, col, width)) = locate(&a.cmd, f.span) {
            writeln!(out, "    {line}")?;
            writeln!(out, "    {}{}", " ".repeat(col), "^".repeat(width.max(1)))?;
        }
    }
    if a.findings.is_empty() {
        for s in &a.segments {
            writeln!(
                out,
                "  allowed: `{}` (rule `{}`)",
                s.argv.join(" "),
                s.matched
                    .as_ref()
                    .map_or_else(|| "-".to_string(), ToString::to_string)
            )?;
        }
    }
    Ok(())
}

fn one_line(s: &str) -> String {
    let flat: String = s.chars().map(|c| if c == '\n' { '⏎' } else { c }).collect();
    if flat.chars().count() > 120 {
        flat.chars().take(119).chain(std::iter::once('…')).collect()
    } else {
        flat
    }
}

/// The source line holding `span.start`, the caret column and width, in characters.
fn locate(src: &str, span: cmdguard::Span) -> Option<(String, usize, usize)> {
    let start = span.start.min(src.len());
    if !src.is_char_boundary(start) {
        return None;
    }
    let line_start = src[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = src[start..]
        .find('\n')
        .map(|i| start + i)
        .unwrap_or(src.len());
    let line = &src[line_start..line_end];
    if line.chars().count() > 200 {
        return None;
    }
    let col = src[line_start..start].chars().count();
    let end = span.end.clamp(start, line_end);
    let width = src.get(start..end).map(|s| s.chars().count()).unwrap_or(1);
    let printable: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Some((printable, col, width))
}
