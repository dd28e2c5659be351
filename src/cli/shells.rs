//! cli/shells: the `init`, `completions`, `man` and `explain` subcommands — arguments and
//! output only; the snippets and the explanation come from `cmdguard::integrations`.

use std::ffi::OsString;
use std::io::{self, Read, Write};

use clap::CommandFactory;
use cmdguard::integrations::explain::Explanation;
use cmdguard::integrations::shell::Shell;

use super::{Cli, EXIT_INTERNAL, EXIT_USAGE};

/// `cmdguard init SHELL`.
#[derive(Debug, clap::Args)]
pub(super) struct InitArgs {
    /// The shell to print the snippet for.
    #[arg(value_enum)]
    shell: InitShell,
}

/// The shells `init` supports (clap's spelling of [`Shell`]).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum InitShell {
    Bash,
    Zsh,
    Fish,
}

/// `cmdguard completions SHELL`.
#[derive(Debug, clap::Args)]
pub(super) struct CompletionsArgs {
    /// The shell to print completions for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `cmdguard explain`: the options of `check` that choose the configuration and the directory.
#[derive(Debug, clap::Args)]
pub(super) struct ExplainArgs {
    /// Read one command from stdin (all of it, newlines included).
    #[arg(long)]
    stdin: bool,
    #[command(flatten)]
    config: super::ConfigArgs,
    /// The command to explain; several words are joined with spaces.
    #[arg(
        value_name = "COMMAND",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    command: Vec<OsString>,
}

/// Prints the snippet for one shell, calling this very binary by its absolute path.
pub(super) fn init(args: &InitArgs) -> i32 {
    let shell = match args.shell {
        InitShell::Bash => Shell::Bash,
        InitShell::Zsh => Shell::Zsh,
        InitShell::Fish => Shell::Fish,
    };
    // A path that is not UTF-8 cannot be written into the snippet faithfully: fall back to
    // looking cmdguard up on PATH.
    let exe = std::env::current_exe().ok();
    let program = exe
        .as_deref()
        .and_then(|p| p.to_str())
        .unwrap_or("cmdguard");
    print_all(&shell.init_script(program))
}

/// Prints completions generated from the clap definition.
pub(super) fn completions(args: &CompletionsArgs) -> i32 {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "cmdguard", &mut buf);
    print_all(&String::from_utf8_lossy(&buf))
}

/// `cmdguard man [SUBCOMMAND]`.
#[derive(Debug, clap::Args)]
pub(super) struct ManArgs {
    /// Print the page of this subcommand (`cmdguard-check(1)`, …) instead of the main one.
    #[arg(value_name = "SUBCOMMAND")]
    subcommand: Option<String>,
}

/// Prints a man page generated from the clap definition: the main page lists the
/// subcommands, each subcommand has its own page with its options.
pub(super) fn man(args: &ManArgs) -> i32 {
    let main = Cli::command();
    let cmd = match &args.subcommand {
        None => main,
        Some(name) => match main.find_subcommand(name) {
            Some(sub) => sub.clone().name(format!("cmdguard-{}", sub.get_name())),
            None => {
                let names: Vec<&str> = main.get_subcommands().map(|s| s.get_name()).collect();
                eprintln!(
                    "cmdguard: no subcommand `{name}`; one of: {}",
                    names.join(", ")
                );
                return EXIT_USAGE;
            }
        },
    };
    let mut buf = Vec::new();
    match clap_mangen::Man::new(cmd).render(&mut buf) {
        Ok(()) => print_all(&roff_ascii(&String::from_utf8_lossy(&buf))),
        Err(e) => {
            eprintln!("cmdguard: cannot render the man page: {e}");
            EXIT_INTERNAL
        }
    }
}

/// `cmdguard explain`: exit status as for `check` (0 allow, 1 ask, 2 deny).
pub(super) fn explain(args: ExplainArgs) -> i32 {
    let config = match super::load_config(&args.config) {
        Ok(c) => c,
        Err(e) => return super::config_error(&e),
    };
    let assessor = match config.build_assessor() {
        Ok(a) => a,
        Err(e) => return super::config_error(&e),
    };
    let workdir = match super::workdir(args.config.cwd.as_deref()) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let bytes = if args.stdin {
        if !args.command.is_empty() {
            eprintln!("cmdguard: give the command either as an argument or with --stdin, not both");
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
            "cmdguard: no command given\n\nUsage: cmdguard explain [OPTIONS] [--] <COMMAND>..."
        );
        return EXIT_USAGE;
    } else {
        super::join_os(&args.command)
    };
    let e = Explanation::for_config(
        &config,
        &bytes,
        Some(&workdir),
        assessor
            .as_ref()
            .map(|a| a as &dyn cmdguard::assess::RiskAssessor),
    );
    // anstream drops the styles when stdout is not a terminal, or NO_COLOR is set.
    let mut out = anstream::stdout();
    match out
        .write_all(e.render().as_bytes())
        .and_then(|()| out.flush())
    {
        Ok(()) => e.analysis.verdict.exit_code(),
        Err(err) => {
            eprintln!("cmdguard: cannot write output: {err}");
            EXIT_INTERNAL
        }
    }
}

/// The page with every non-ASCII character as a groff escape (`…` is `\[u2026]`): troff
/// reads its input as Latin-1 unless a preprocessor converts it, and `man -l` is not the only
/// reader.
fn roff_ascii(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

fn print_all(text: &str) -> i32 {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cmdguard: cannot write output: {e}");
            EXIT_INTERNAL
        }
    }
}
