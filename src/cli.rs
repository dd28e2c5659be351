//! cli: the `cmdguard` command line — arguments, output formats and exit codes — as a thin
//! layer over the library. It never analyses anything itself.

use std::ffi::OsString;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use cmdguard::config::{self, ConfigSources, Env, Layer, Origins};
use cmdguard::integrations;
use cmdguard::policy::rules::CommandRules;
use cmdguard::{Analysis, Analyzer, ConfigError, Verdict, Workdir};

// `cmdguard scan` and the SARIF form of `check`.
mod scan;
// `init`, `completions`, `man` and `explain`.
mod shells;

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
    /// List, add or remove the grants in the persisted state file.
    Policy(PolicyArgs),
    /// Show, check and trust configuration layers.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check every command in shell scripts, Dockerfiles, GitHub Actions workflows, Makefiles
    /// and package.json scripts, reported at file:line:column (text, JSON or SARIF).
    Scan(scan::ScanArgs),
    /// Answer an agent's hook: one tool call as JSON on stdin, the decision in the agent's
    /// format on stdout (see README, Integrations).
    Hook(integrations::hook::HookArgs),
    /// Add cmdguard's hook to an agent's settings file (keeps the rest, makes a backup).
    Install(integrations::install::InstallArgs),
    /// Print decisions from the audit log.
    Log(integrations::audit::LogArgs),
    /// Print a snippet that checks each interactive command line before the shell runs it
    /// (ask warns, deny blocks): `eval "$(cmdguard init bash)"` in ~/.bashrc.
    Init(shells::InitArgs),
    /// Print shell completions for cmdguard.
    Completions(shells::CompletionsArgs),
    /// Print cmdguard's man page (roff): `cmdguard man | man -l -`.
    Man(shells::ManArgs),
    /// Take one command through every stage: segments and the rule each matched, findings
    /// under their spans, the assessor's answer, the time each stage took.
    Explain(shells::ExplainArgs),
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Print the effective configuration: every layer's file, the settings and the rules.
    Show {
        /// Follow each value with the file and line it came from.
        #[arg(long)]
        origin: bool,
        /// The directory whose project config to consider (default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
    },
    /// Validate a config file; exit 78 with file:line:column and key when it is wrong.
    Check {
        /// Check it as a project's `.cmdguard.toml` (the keys a project may set).
        #[arg(long)]
        project: bool,
        /// The config file.
        file: PathBuf,
    },
    /// Trust the project at DIR (default: the current directory) as its config is now.
    Trust {
        /// The project directory.
        dir: Option<PathBuf>,
    },
    /// Stop trusting the project at DIR (default: the current directory).
    Untrust {
        /// The project directory.
        dir: Option<PathBuf>,
    },
}

/// The options that choose the configuration and the directory, shared by `check`, `scan` and
/// `explain`.
#[derive(Debug, Clone, Default, clap::Args)]
struct ConfigArgs {
    /// Use this allowlist instead of the embedded default.
    #[arg(long, value_name = "FILE")]
    allowlist: Option<PathBuf>,
    /// Extend the allowlist with this file (repeatable).
    #[arg(long = "allowlist-add", value_name = "FILE")]
    allowlist_add: Vec<PathBuf>,
    /// Read no config file (system, user, project, CMDGUARD_CONFIG, Claude Code settings):
    /// only the built-in default and these flags (and so no assessor).
    #[arg(long)]
    no_config: bool,
    /// Add this deny pack (a `[pack]` table and `[[deny]]` rules; repeatable).
    #[arg(long = "pack", value_name = "FILE")]
    pack: Vec<PathBuf>,
    /// The directory the commands will run in (default: the current directory). git commands
    /// are checked against the config of the repository there, and its project config is read.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Print one JSON object with verdict, findings and segments.
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    /// Output format: `text` (the default), `json` (as `--json`) or `sarif` (a SARIF 2.1.0 log
    /// whose artifact is `cmdguard:command`, or `cmdguard:stdin` with `--stdin`).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "jsonl"])]
    format: Option<scan::Format>,
    /// Read JSON lines from stdin (`{"cmd": "…"}` or a JSON string) and print one JSON verdict
    /// per line; the exit status is the strictest verdict. A line's own `"cwd"` field wins
    /// over --cwd.
    #[arg(long, conflicts_with = "stdin")]
    jsonl: bool,
    /// Read one command from stdin (all of it, newlines included).
    #[arg(long)]
    stdin: bool,
    #[command(flatten)]
    config: ConfigArgs,
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
            // A mistyped hook command must block the agent's tool call, not let it through:
            // agents run the tool when a hook exits with anything but 0 or 2.
            let hook = args.get(1).is_some_and(|a| a == "hook");
            let code = match (e.use_stderr(), hook) {
                (true, true) => 2,
                (true, false) => EXIT_USAGE,
                (false, _) => 0,
            };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::DefaultAllowlist => {
            print!("{}", cmdguard::DEFAULT_ALLOWLIST);
            0
        }
        Command::Policy(args) => policy(args),
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
        Command::Config(c) => config_command(c),
        Command::Scan(args) => scan::run(args),
        Command::Hook(args) => integrations::hook::run(&args),
        Command::Install(args) => integrations::install::run(&args),
        Command::Log(args) => integrations::audit::run_log(&args),
        Command::Init(a) => shells::init(&a),
        Command::Completions(a) => shells::completions(&a),
        Command::Man(a) => shells::man(&a),
        Command::Explain(a) => shells::explain(a),
    }
}

#[derive(Debug, clap::Args)]
struct PolicyArgs {
    /// The state file [default: $XDG_STATE_HOME/cmdguard/state.json, else
    /// ~/.local/state/cmdguard/state.json].
    #[arg(long, value_name = "FILE", global = true)]
    state: Option<PathBuf>,
    #[command(subcommand)]
    action: PolicyAction,
}

#[derive(Debug, Subcommand)]
enum PolicyAction {
    /// Print the granted command prefixes, one per line.
    List,
    /// Grant a command prefix, one argument per word: `cmdguard policy add npm test`.
    Add {
        /// The words of the prefix.
        #[arg(required = true, value_name = "WORD", allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Remove a granted command prefix (exit status 1 when it was not granted).
    Remove {
        /// The words of the prefix.
        #[arg(required = true, value_name = "WORD", allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// List, add or remove the paths file tools may write under.
    Paths {
        #[command(subcommand)]
        action: PathsAction,
    },
}

#[derive(Debug, Subcommand)]
enum PathsAction {
    /// Print the granted write paths, one per line.
    List,
    /// Grant writes under a path (made absolute against the current directory).
    Add {
        /// The path.
        path: PathBuf,
    },
    /// Remove a granted write path (exit status 1 when it was not granted).
    Remove {
        /// The path.
        path: PathBuf,
    },
}

/// `cmdguard policy …`: the grants in the state file.
fn policy(args: PolicyArgs) -> i32 {
    use cmdguard::policy::{Prefix, StateFile};

    let Some(path) = args.state.or_else(StateFile::default_path) else {
        eprintln!(
            "cmdguard: cannot tell where the state file is (no $XDG_STATE_HOME or $HOME); pass --state FILE"
        );
        return EXIT_CONFIG;
    };
    let file = StateFile::new(path);
    let prefix = |words: Vec<String>| {
        if let Some(w) = words.iter().find(|w| w.chars().any(char::is_whitespace)) {
            return Err(format!(
                "`{w}` holds a space; give each word of the prefix as its own argument"
            ));
        }
        Prefix::new(words).map_err(|e| e.to_string())
    };
    let absolute = |p: PathBuf| -> Result<PathBuf, String> {
        let p = if p.is_absolute() {
            p
        } else {
            std::env::current_dir()
                .map_err(|e| {
                    format!("cannot tell the current directory ({e}); give an absolute path")
                })?
                .join(p)
        };
        cmdguard::policy::normal_path(&p).map_err(|e| e.to_string())
    };
    let result = match args.action {
        PolicyAction::List => file.load().map(|g| {
            for p in g.commands {
                println!("{p}");
            }
            0
        }),
        PolicyAction::Add { words } => match prefix(words) {
            Err(e) => return policy_usage(&e),
            Ok(p) => file.update(|g| g.add_command(p.clone())).map(|(_, added)| {
                report_change(
                    added,
                    &format!("added `{p}`"),
                    &format!("`{p}` was already granted"),
                )
            }),
        },
        PolicyAction::Remove { words } => match prefix(words) {
            Err(e) => return policy_usage(&e),
            Ok(p) => file.update(|g| g.remove_command(&p)).map(|(_, removed)| {
                report_removal(
                    removed,
                    &format!("removed `{p}`"),
                    &format!("`{p}` was not granted"),
                )
            }),
        },
        PolicyAction::Paths { action } => match action {
            PathsAction::List => file.load().map(|g| {
                for p in g.write_paths {
                    println!("{}", p.display());
                }
                0
            }),
            PathsAction::Add { path } => match absolute(path) {
                Err(e) => return policy_usage(&e),
                Ok(p) => {
                    file.update(|g| g.add_write_path(&p).unwrap_or(false))
                        .map(|(_, added)| {
                            let shown = p.display();
                            report_change(
                                added,
                                &format!("added `{shown}`"),
                                &format!("`{shown}` was already granted"),
                            )
                        })
                }
            },
            PathsAction::Remove { path } => match absolute(path) {
                Err(e) => return policy_usage(&e),
                Ok(p) => file
                    .update(|g| g.remove_write_path(&p).unwrap_or(false))
                    .map(|(_, removed)| {
                        let shown = p.display();
                        report_removal(
                            removed,
                            &format!("removed `{shown}`"),
                            &format!("`{shown}` was not granted"),
                        )
                    }),
            },
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cmdguard: {e}");
            match e.kind {
                cmdguard::policy::StateErrorKind::Io(_) => EXIT_INTERNAL,
                cmdguard::policy::StateErrorKind::Corrupt(_)
                | cmdguard::policy::StateErrorKind::Version(_) => EXIT_CONFIG,
            }
        }
    }
}

fn policy_usage(why: &str) -> i32 {
    eprintln!(
        "cmdguard: {why}\n\nUsage: cmdguard policy [--state FILE] <list|add|remove|paths> [ARGS]..."
    );
    EXIT_USAGE
}

/// Prints what an add did; adding what is already there is not an error.
fn report_change(changed: bool, done: &str, already: &str) -> i32 {
    println!("{}", if changed { done } else { already });
    0
}

/// Prints what a removal did; exit status 1 when there was nothing to remove.
fn report_removal(removed: bool, done: &str, missing: &str) -> i32 {
    if removed {
        println!("{done}");
        0
    } else {
        eprintln!("cmdguard: {missing}");
        1
    }
}

/// The analyser and the command rules `check` uses: the layered configuration (or, with
/// `--no-config`, the built-in default), with the `--allowlist` flags as the last layer.
struct Guard {
    analyzer: Analyzer,
    rules: CommandRules,
    /// Imported Claude Code allow rules: they only name themselves on what still asks.
    claude_allow: CommandRules,
}

impl Guard {
    fn finish(&self, mut a: Analysis) -> Analysis {
        self.rules.apply(&mut a);
        config::name_covering_rules(&mut a, &self.claude_allow);
        a
    }
}

fn guard(args: &ConfigArgs) -> Result<Guard, ConfigError> {
    let config = load_config(args)?;
    Ok(Guard {
        analyzer: config.analyzer,
        rules: config.command_rules,
        claude_allow: config.claude_allow,
    })
}

/// The layered configuration `check` (and `explain`) use, notes about changed files printed.
fn load_config(args: &ConfigArgs) -> Result<config::Config, ConfigError> {
    let mut sources = if args.no_config {
        ConfigSources::built_in()
    } else {
        let env = Env::process();
        let env = match &args.cwd {
            Some(dir) => {
                let cwd = std::env::current_dir().unwrap_or_default().join(dir);
                env.in_dir(cwd)
            }
            None => env,
        };
        ConfigSources::discover(&env)
    };
    sources.allowlist = args.allowlist.clone();
    sources.allowlist_add = args.allowlist_add.clone();
    sources.packs = args.pack.clone();
    let config = sources.load()?;
    for f in &config.files {
        if f.status == config::FileStatus::Changed {
            eprintln!("cmdguard: note: {} {}", f.path, f.status.as_str());
        }
    }
    Ok(config)
}

fn config_error(e: &ConfigError) -> i32 {
    match std::error::Error::source(e) {
        Some(cause) => eprintln!("cmdguard: config error: {e}: {cause}"),
        None => eprintln!("cmdguard: config error: {e}"),
    }
    EXIT_CONFIG
}

/// `cmdguard config …`.
fn config_command(c: ConfigCommand) -> i32 {
    match c {
        ConfigCommand::Show { origin, cwd } => {
            let mut env = Env::process();
            if let Some(dir) = cwd {
                env = env.in_dir(std::env::current_dir().unwrap_or_default().join(dir));
            }
            match ConfigSources::discover(&env).load() {
                Ok(c) => {
                    let origins = if origin {
                        Origins::Shown
                    } else {
                        Origins::Hidden
                    };
                    print!("{}", config::show(&c, origins));
                    0
                }
                Err(e) => config_error(&e),
            }
        }
        ConfigCommand::Check { project, file } => {
            let layer = if project { Layer::Project } else { Layer::User };
            match config::check_file(&file, layer) {
                Ok(()) => {
                    println!("{}: ok", file.display());
                    0
                }
                Err(e) => config_error(&e),
            }
        }
        ConfigCommand::Trust { dir } => trust(dir.as_deref(), TrustChange::Trust),
        ConfigCommand::Untrust { dir } => trust(dir.as_deref(), TrustChange::Untrust),
    }
}

/// What `config trust` / `untrust` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TrustChange {
    Trust,
    Untrust,
}

fn trust(dir: Option<&Path>, change: TrustChange) -> i32 {
    let env = Env::process();
    let sources = ConfigSources::discover(&env);
    let Some(store_path) = sources.trust_store.clone() else {
        eprintln!("cmdguard: cannot tell where the trust store goes; set HOME or XDG_STATE_HOME");
        return EXIT_USAGE;
    };
    let dir = dir.map_or_else(
        || std::env::current_dir().unwrap_or_default(),
        Path::to_path_buf,
    );
    let dir = match dir.canonicalize() {
        Ok(d) if d.is_dir() => d,
        _ => {
            eprintln!("cmdguard: {}: not a directory", dir.display());
            return EXIT_USAGE;
        }
    };
    let (mut store, note) = config::trust::TrustStore::load(&store_path);
    if let Some(n) = note {
        eprintln!("cmdguard: note: {n}");
    }
    match change {
        TrustChange::Trust => {
            // A project config that would fail to load is not worth trusting.
            let file = dir.join(config::PROJECT_CONFIG);
            if file.is_file()
                && let Err(e) = config::check_file(&file, Layer::Project)
            {
                return config_error(&e);
            }
            store.trust(&dir);
            println!("trusted {} as its config files are now", dir.display());
        }
        TrustChange::Untrust => {
            if store.untrust(&dir) {
                println!("no longer trusted: {}", dir.display());
            } else {
                println!("was not trusted: {}", dir.display());
            }
        }
    }
    match store.save(&store_path) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cmdguard: cannot write {}: {e}", store_path.display());
            EXIT_INTERNAL
        }
    }
}

fn check(args: CheckArgs) -> i32 {
    let guard = match guard(&args.config) {
        Ok(g) => g,
        Err(e) => return config_error(&e),
    };
    let workdir = match workdir(args.config.cwd.as_deref()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = if args.jsonl {
        jsonl(&guard, &workdir, &mut out)
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
        let a = guard.finish(guard.analyzer.analyze_bytes_in(&bytes, &workdir));
        let written = if args.format == Some(scan::Format::Sarif) {
            scan::check_sarif(&a, args.stdin, &mut out)
        } else if args.json || args.format == Some(scan::Format::Json) {
            serde_json::to_writer(&mut out, &a)
                .map_err(io::Error::other)
                .and_then(|()| writeln!(out))
        } else {
            human(&a, &mut out)
        };
        written.map(|()| a.verdict)
    };
    // The process exits next: freeing the compiled allowlist one allocation at a time would
    // cost a tenth of a check's instructions for nothing.
    std::mem::forget(guard);
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

fn jsonl(guard: &Guard, workdir: &Workdir, out: &mut impl Write) -> io::Result<Verdict> {
    let analyzer = &guard.analyzer;
    let mut worst = Verdict::Allow;
    let stdin = io::stdin();
    for (n, line) in stdin.lock().split(b'\n').enumerate() {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let a = match parse_line(&line) {
            Ok((cmd, None)) => guard.finish(analyzer.analyze_in(&cmd, workdir)),
            Ok((cmd, Some(cwd))) => {
                let dir = workdir.cwd().join(cwd);
                guard.finish(analyzer.analyze_in(&cmd, &workdir.clone().in_dir(dir)))
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
