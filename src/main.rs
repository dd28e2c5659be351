//! The `cmdguard` binary: a thin layer over the library (see `cli.rs`).

mod cli;

fn main() {
    // A panic must never look like a verdict: report it as an internal error (70) — or, for
    // an agent's hook, as exit 2, the one status every agent treats as "blocked".
    let hook = std::env::args_os().nth(1).is_some_and(|a| a == "hook");
    let failed = if hook { 2 } else { cli::EXIT_INTERNAL };
    let code = std::panic::catch_unwind(|| cli::run(std::env::args_os())).unwrap_or(failed);
    std::process::exit(code);
}
