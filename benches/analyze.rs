//! Criterion benches named after the stages. `analyze/agent_corpus` runs the 2,000 real agent
//! commands of `benches/data/agent-commands.txt` (time per iteration / 2,000 = per command);
//! `hostile/*` shows that time stays linear in the size of adversarial input.

use std::hint::black_box;

use cmdguard::Analyzer;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const AGENT_CORPUS: &str = include_str!("data/agent-commands.txt");
const TYPICAL: &str = "git diff --stat | head -20";
const PIPELINE: &str = "rg --files | sed 's/foo/bar/g' | sort | uniq -c | sort -rn | head -5";

fn analyze(c: &mut Criterion) {
    let analyzer = Analyzer::default();
    let corpus: Vec<&str> = AGENT_CORPUS.lines().collect();
    let mut g = c.benchmark_group("analyze");
    g.throughput(Throughput::Elements(corpus.len() as u64));
    g.bench_function("agent_corpus", |b| {
        b.iter(|| {
            for cmd in &corpus {
                black_box(analyzer.analyze(black_box(cmd)));
            }
        })
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("typical", |b| {
        b.iter(|| analyzer.analyze(black_box(TYPICAL)))
    });
    g.bench_function("pipeline", |b| {
        b.iter(|| analyzer.analyze(black_box(PIPELINE)))
    });
    g.finish();
    c.bench_function("startup/default_analyzer", |b| b.iter(Analyzer::default));
}

fn hostile(c: &mut Criterion) {
    let analyzer = Analyzer::default();
    let mut g = c.benchmark_group("hostile");
    g.sample_size(10);
    for kb in [4usize, 16, 64] {
        let n = kb * 1024;
        let inputs = [
            ("parens", "(".repeat(n)),
            ("pipes", "ls|".repeat(n / 3)),
            ("substitutions", "$(".repeat(n / 2)),
            ("words", "a ".repeat(n / 2)),
        ];
        for (name, input) in inputs {
            g.throughput(Throughput::Bytes(input.len() as u64));
            g.bench_with_input(BenchmarkId::new(name, kb), &input, |b, input| {
                b.iter(|| analyzer.analyze(black_box(input)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, analyze, hostile);
criterion_main!(benches);
