//! The fast path in numbers: over the 2,000 agent commands of `benches/data/agent-commands.txt`,
//! warm and on one thread, the per-command cost of the bare tree-sitter-bash parse, of
//! `Analyzer::analyze` through the parser only (the reference, as before the fast path) and of
//! `Analyzer::analyze` as shipped — each command's time is the best of `ROUNDS` rounds, and the
//! report gives mean, p50 and p99 over the commands, per input class too, with the share of
//! commands the fast segmenter takes.
//!
//! Not criterion: criterion reports one distribution per benchmark, and the targets of issue 15
//! are about the distribution over commands. Run it alone on a quiet machine:
//!
//! ```text
//! cargo bench --bench fast              # ROUNDS=15
//! FAST_BENCH_ROUNDS=5 cargo bench --bench fast
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use cmdguard::Analyzer;
use tree_sitter::Parser;

const AGENT_CORPUS: &str = include_str!("data/agent-commands.txt");
const ROUNDS: usize = 15;

/// Whether a command belongs to a class.
type IsClass = fn(&str) -> bool;

/// The input classes of issue 15, decided from the text (first match wins).
const CLASSES: &[(&str, IsClass)] = &[
    ("heredoc", |c| c.contains("<<")),
    ("nested shell", |c| {
        ["sh -c", "bash -c", "eval "].iter().any(|p| c.contains(p))
    }),
    ("substitution", |c| {
        c.contains("$(") || c.contains('`') || c.contains("<(")
    }),
    ("long", |c| c.len() > 160),
    ("chain", |c| {
        c.contains("&&") || c.contains("||") || c.contains(';')
    }),
    ("pipeline", |c| c.contains('|')),
    ("simple", |_| true),
];

fn class_of(cmd: &str) -> &'static str {
    CLASSES
        .iter()
        .find(|(_, is)| is(cmd))
        .map_or("simple", |(name, _)| name)
}

/// Best time of `rounds` runs of `f`.
fn best(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Mean, p50 and p99 in microseconds.
fn stats(times: &[Duration]) -> (f64, f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut us: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e6).collect();
    us.sort_by(f64::total_cmp);
    let mean = us.iter().sum::<f64>() / us.len() as f64;
    let at = |q: f64| us[((us.len() - 1) as f64 * q).round() as usize];
    (mean, at(0.50), at(0.99))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run one round then.
    let benching = std::env::args().any(|a| a == "--bench");
    let rounds = std::env::var("FAST_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if benching { ROUNDS } else { 1 });
    let corpus: Vec<&str> = AGENT_CORPUS.lines().collect();
    let full = Analyzer::default().without_fast_path();
    let fast = Analyzer::default();
    let Ok(mut parser) = new_parser() else {
        eprintln!("tree-sitter-bash did not load");
        return;
    };

    // For instruction counts on a loaded machine: one pass of one path over the corpus, e.g.
    // `FAST_BENCH_ONLY=fast valgrind --tool=callgrind target/release/deps/fast-* --bench`,
    // minus the same with `FAST_BENCH_ONLY=none` (start-up).
    if let Ok(only) = std::env::var("FAST_BENCH_ONLY") {
        for cmd in &corpus {
            match only.as_str() {
                "parse" => drop(black_box(parser.parse(black_box(cmd), None))),
                "full" => drop(black_box(full.analyze(black_box(cmd)))),
                "fast" => drop(black_box(fast.analyze(black_box(cmd)))),
                _ => {}
            }
        }
        return;
    }

    let mut rows = Vec::with_capacity(corpus.len());
    for cmd in &corpus {
        let parse = best(rounds, || {
            black_box(parser.parse(black_box(cmd), None));
        });
        let reference = best(rounds, || {
            black_box(full.analyze(black_box(cmd)));
        });
        let shipped = best(rounds, || {
            black_box(fast.analyze(black_box(cmd)));
        });
        rows.push((*cmd, parse, reference, shipped));
    }

    let accepted = corpus.iter().filter(|c| fast.fast_path_accepts(c)).count();
    println!(
        "agent corpus: {} commands, best of {rounds} rounds each; fast path takes {accepted} ({:.1}%)",
        corpus.len(),
        100.0 * accepted as f64 / corpus.len() as f64
    );
    println!(
        "{:<14} {:>5} {:>6} | {:>24} | {:>24} | {:>24} | {:>6} {:>6}",
        "class",
        "n",
        "fast%",
        "parse mean/p50/p99 µs",
        "full analyze mean/p50/p99",
        "analyze mean/p50/p99",
        "full/p",
        "now/p"
    );
    let mut names: Vec<&str> = vec!["all"];
    names.extend(CLASSES.iter().map(|(n, _)| *n));
    for name in names {
        let picked: Vec<_> = rows
            .iter()
            .filter(|r| name == "all" || class_of(r.0) == name)
            .collect();
        let taken = picked
            .iter()
            .filter(|r| fast.fast_path_accepts(r.0))
            .count();
        let col = |k: usize| -> Vec<Duration> {
            picked
                .iter()
                .map(|r| match k {
                    0 => r.1,
                    1 => r.2,
                    _ => r.3,
                })
                .collect()
        };
        let (p, f, s) = (stats(&col(0)), stats(&col(1)), stats(&col(2)));
        println!(
            "{name:<14} {:>5} {:>5.1}% | {:>7.2} {:>7.2} {:>8.1} | {:>7.2} {:>7.2} {:>8.1} | {:>7.2} {:>7.2} {:>8.1} | {:>5.2}× {:>5.2}×",
            picked.len(),
            100.0 * taken as f64 / picked.len().max(1) as f64,
            p.0,
            p.1,
            p.2,
            f.0,
            f.1,
            f.2,
            s.0,
            s.1,
            s.2,
            f.0 / p.0,
            s.0 / p.0,
        );
    }
}

fn new_parser() -> Result<Parser, tree_sitter::LanguageError> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_bash::LANGUAGE.into())?;
    Ok(p)
}
