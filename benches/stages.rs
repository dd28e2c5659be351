//! Criterion benches per stage and per input class: for each class of command (simple,
//! pipeline, chain, substitution, heredoc, nested shell, long, pathological) one group holds
//! the bare tree-sitter-bash parse of the input beside each stage of cmdguard on the same
//! input — input checks, parse, segment, check — and the whole `Analyzer::analyze`, so the
//! report shows each stage's ratio to the bare parse. The `pathological` group runs the
//! inputs of `benches/hostile/pathological.rs` at a quarter, half and all of their size.
//!
//! While iterating, run a quick pass: `cargo bench --bench stages -- --quick` (or name a
//! group: `cargo bench --bench stages -- class/pipeline --quick`). `BENCHMARKS.md` has the
//! numbers.

#![allow(
    clippy::expect_used,
    reason = "a bench whose grammar does not load should stop"
)]

use std::hint::black_box;

use cmdguard::{Analyzer, stages};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tree_sitter::Parser;

#[path = "hostile/pathological.rs"]
mod pathological;

const SIMPLE: &str = "git status";
const PIPELINE: &str = "rg --files | sed 's/foo/bar/g' | sort | uniq -c | sort -rn | head -5 | cat";
const CHAIN: &str = "cargo build --release && cargo test -- --nocapture; echo done || true";
const SUBSTITUTION: &str = r#"echo "$(git rev-parse --show-toplevel)/README.md" $(date +%s)"#;
const HEREDOC: &str = "cat <<'EOF'\nline one\nline two with $HOME\nEOF";
const NESTED_SHELL: &str = r#"sh -c "cargo test 2>&1 | tail -20""#;

/// About 2 KB: forty allowlisted commands joined by `&&`.
fn long() -> String {
    let one = "grep -rn --include='*.rs' TODO src/ && ls -la target/debug && git log --oneline -5";
    vec![one; 14].join(" && ")
}

/// 1,000 nested subshells: parsed, and past the nesting limit.
fn pathological_class() -> String {
    format!("{}ls{}", "(".repeat(1000), ")".repeat(1000))
}

fn bash_parser() -> Parser {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("tree-sitter-bash loads");
    p
}

fn classes(c: &mut Criterion) {
    let analyzer = Analyzer::default();
    let mut bare = bash_parser();
    let long = long();
    let pathological = pathological_class();
    let inputs: [(&str, &str); 8] = [
        ("simple", SIMPLE),
        ("pipeline", PIPELINE),
        ("chain", CHAIN),
        ("substitution", SUBSTITUTION),
        ("heredoc", HEREDOC),
        ("nested_shell", NESTED_SHELL),
        ("long", &long),
        ("pathological", &pathological),
    ];
    for (class, cmd) in inputs {
        let mut g = c.benchmark_group(format!("class/{class}"));
        g.throughput(Throughput::Bytes(cmd.len() as u64));
        g.bench_function("tree_sitter", |b| {
            b.iter(|| bare.parse(black_box(cmd), None))
        });
        g.bench_function("input_checks", |b| {
            b.iter(|| stages::input_checks(&analyzer, black_box(cmd)))
        });
        g.bench_function("parse", |b| {
            b.iter(|| stages::parse(&analyzer, black_box(cmd)))
        });
        let tree = stages::parse(&analyzer, cmd).expect("the class inputs parse");
        g.bench_function("segment", |b| {
            b.iter(|| stages::segment(&analyzer, &tree, black_box(cmd)))
        });
        let script = stages::segment(&analyzer, &tree, cmd);
        g.bench_function("check", |b| {
            b.iter(|| stages::check(&analyzer, black_box(cmd), &script))
        });
        g.bench_function("analyze", |b| b.iter(|| analyzer.analyze(black_box(cmd))));
        g.finish();
    }
}

/// Each pathological input at a quarter, half and all of the size the issue names: the time
/// should grow at most linearly. Beside it, the bare parse of the inputs cmdguard would parse
/// at all (the others are refused by size before any parsing).
fn pathological(c: &mut Criterion) {
    let analyzer = Analyzer::default();
    let max = analyzer.allowlist().limits().max_bytes;
    let mut bare = bash_parser();
    let mut g = c.benchmark_group("pathological");
    g.sample_size(10);
    for row in pathological::ROWS {
        for quarters in [1, 2, 4] {
            let input = (row.build)(row.full * quarters / 4);
            g.throughput(Throughput::Bytes(input.len() as u64));
            let id = format!("{}/{}", row.name, quarters);
            g.bench_with_input(BenchmarkId::new("analyze", &id), &input, |b, input| {
                b.iter(|| analyzer.analyze(black_box(input)))
            });
            if input.len() <= max {
                g.bench_with_input(BenchmarkId::new("tree_sitter", &id), &input, |b, input| {
                    b.iter(|| bare.parse(black_box(input), None))
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, classes, pathological);
criterion_main!(benches);
