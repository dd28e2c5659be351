//! Criterion benches named after the stages. `analyze/agent_corpus` runs the 2,000 real agent
//! commands of `benches/data/agent-commands.txt` (time per iteration / 2,000 = per command);
//! `repository/*` is the cost of reading a repository's config for git commands;
//! `hostile/*` shows that time stays linear in the size of adversarial input, including every
//! row of issue 11's table (`benches/hostile/inputs.rs`) at three sizes.

#![allow(
    clippy::expect_used,
    reason = "a bench that cannot set up its scratch repository should stop"
)]

use std::hint::black_box;

use cmdguard::{Analyzer, Workdir};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

#[path = "hostile/inputs.rs"]
mod inputs;

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
    // The default list compiles `[sensitive]` and each program's entries when a check first
    // reaches them, so building it is no longer all a fresh process pays: this is building it
    // plus its first check, as `cmdguard check 'git status'` does.
    c.bench_function("startup/default_analyzer_first_check", |b| {
        b.iter(|| Analyzer::default().analyze(black_box(TYPICAL)))
    });
}

/// The cost of reading the repository for git commands: `analyze_in` in a small repository
/// whose config includes another file, against the pure `analyze`.
fn repository(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("cmdguard-bench-{}", std::process::id()));
    let git = dir.join("src/.git");
    for sub in ["objects", "refs", "hooks"] {
        std::fs::create_dir_all(git.join(sub)).expect("temp dir");
    }
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").expect("temp dir");
    std::fs::write(
        git.join("config"),
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = x\n[include]\n\tpath = extra\n",
    )
    .expect("temp dir");
    std::fs::write(git.join("extra"), "[user]\n\tname = x\n").expect("temp dir");
    let analyzer = Analyzer::default();
    let workdir = Workdir::new(dir.join("src"));
    let mut g = c.benchmark_group("repository");
    g.bench_function("analyze/git_status", |b| {
        b.iter(|| analyzer.analyze(black_box("git status")))
    });
    g.bench_function("analyze_in/git_status", |b| {
        b.iter(|| analyzer.analyze_in(black_box("git status"), &workdir))
    });
    g.bench_function("analyze_in/no_git", |b| {
        b.iter(|| analyzer.analyze_in(black_box(TYPICAL_NO_GIT), &workdir))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

const TYPICAL_NO_GIT: &str = "ls -la src | head -20";

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
            (
                "heredoc",
                format!("cat <<EOF\n{}EOF\n", "line of text\n".repeat(n / 13)),
            ),
        ];
        for (name, input) in inputs {
            g.throughput(Throughput::Bytes(input.len() as u64));
            g.bench_with_input(BenchmarkId::new(name, kb), &input, |b, input| {
                b.iter(|| analyzer.analyze(black_box(input)))
            });
        }
    }
    // The rows of issue 11's table, each at three sizes: time should grow at most linearly.
    let scratch = std::env::temp_dir().join(format!("cmdguard-hostile-{}", std::process::id()));
    for row in inputs::ROWS {
        for k in [1usize, 2, 4] {
            let case = inputs::case(row, k, &scratch).expect("scratch repository");
            let workdir = case.dir.as_ref().map(Workdir::new);
            g.throughput(Throughput::Elements(k as u64));
            g.bench_with_input(BenchmarkId::new(*row, k), &case.cmd, |b, cmd| {
                b.iter(|| match &workdir {
                    Some(w) => analyzer.analyze_in(black_box(cmd), w),
                    None => analyzer.analyze(black_box(cmd)),
                })
            });
        }
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&scratch);
}

criterion_group!(benches, analyze, repository, hostile);
criterion_main!(benches);
