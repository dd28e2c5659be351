//! The `cmdguard` binary: a thin layer over the library (see `cli.rs`).

mod cli;

fn main() {
    // A panic must never look like a verdict: report it as an internal error (70).
    let code =
        std::panic::catch_unwind(|| cli::run(std::env::args_os())).unwrap_or(cli::EXIT_INTERNAL);
    std::process::exit(code);
}
