//! Bounded work (issue 11): every input gets a verdict, however deep it nests, and the work
//! grows at most linearly with the input. Coding agents run the command when a hook times out
//! or crashes, so a stack overflow or a quadratic path is a way around every rule.

use std::path::Path;
use std::time::{Duration, Instant};

use cmdguard::{Analyzer, Code, Verdict, Workdir};
use proptest::prelude::*;

#[path = "../../benches/hostile/inputs.rs"]
mod inputs;

/// `s` quoted for bash in single quotes.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The constructs that nest, each as a chain `n` deep around `ls`.
const CONSTRUCTS: &[&str] = &[
    "command_substitution",
    "subshell",
    "group",
    "eval",
    "bash_c",
    "env",
    "timeout",
    "xargs",
    "find_exec",
    "double_brackets",
    "arithmetic",
    "braces",
    "heredoc",
    "process_substitution",
    "if",
];

fn chain(construct: &str, n: usize) -> String {
    match construct {
        "command_substitution" => format!("echo {}ls{}", "$(".repeat(n), ")".repeat(n)),
        "subshell" => format!("{}ls{}", "(".repeat(n), ")".repeat(n)),
        "group" => format!("{}ls{}", "{ ".repeat(n), "; }".repeat(n)),
        "eval" => format!("{}ls", "eval ".repeat(n)),
        // Quoting doubles at each level: kept shallow enough to stay under the byte limit.
        "bash_c" => (0..n.min(12)).fold("ls".to_string(), |s, _| format!("bash -c {}", quote(&s))),
        "env" => format!("{}ls", "env ".repeat(n)),
        "timeout" => format!("{}ls", "timeout 5 ".repeat(n)),
        "xargs" => format!("{}ls", "xargs ".repeat(n)),
        "find_exec" => format!("{}ls{}", "find . -exec ".repeat(n), " ;".repeat(n)),
        "double_brackets" => format!("[[ {}a{} ]]", "( ".repeat(n), " )".repeat(n)),
        "arithmetic" => format!("echo $(({}1{}))", "(".repeat(n), ")".repeat(n)),
        "braces" => format!("echo {}b{}", "{a,".repeat(n), "}".repeat(n)),
        "heredoc" => {
            (0..n.min(400)).fold("ls".to_string(), |s, k| format!("bash <<'E{k}'\n{s}\nE{k}"))
        }
        "process_substitution" => format!("cat {}x{}", "<(cat ".repeat(n), ")".repeat(n)),
        "if" => format!("{}ls{}", "if true; then ".repeat(n), "; fi".repeat(n)),
        other => panic!("no construct {other}"),
    }
}

/// A verdict, the strictest finding's, and never `allow` past every depth limit.
fn gives_a_verdict(analyzer: &Analyzer, construct: &str, n: usize) -> Result<(), TestCaseError> {
    let cmd = chain(construct, n);
    let a = analyzer.analyze(&cmd);
    let strictest = a
        .findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Verdict::Allow);
    prop_assert_eq!(a.verdict, strictest);
    if n > 400 && !matches!(construct, "bash_c" | "heredoc") {
        prop_assert_ne!(a.verdict, Verdict::Allow, "{} {}", construct, n);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Deep chains of every construct that recurses give a verdict without crashing: on the
    /// test thread's small stack, in a debug build.
    #[test]
    fn deep_chains_give_a_verdict(
        construct in proptest::sample::select(CONSTRUCTS),
        n in 1usize..3000,
    ) {
        gives_a_verdict(&Analyzer::default(), construct, n)?;
    }
}

/// The largest chain of each construct that fits in the command limit.
#[test]
fn chains_as_long_as_the_byte_limit_give_a_verdict() {
    let analyzer = Analyzer::default();
    let max = analyzer.allowlist().limits().max_bytes;
    for construct in CONSTRUCTS {
        let unit = chain(construct, 2).len() - chain(construct, 1).len();
        let n = (max - 16) / unit.max(1);
        gives_a_verdict(&analyzer, construct, n).unwrap();
    }
}

/// `env env … ls` past the depth limit asks with `limit_exceeded` (it was a stack overflow);
/// a deny rule found before the budget ran out still denies.
#[test]
fn wrapper_chains_past_the_depth_limit_ask() {
    let analyzer = Analyzer::default();
    let a = analyzer.analyze(&format!("{}ls", "env ".repeat(4000)));
    assert_eq!(a.verdict, Verdict::Ask);
    assert!(
        a.findings.iter().any(|f| f.code == Code::LimitExceeded),
        "{a:?}"
    );
    let a = analyzer.analyze(&format!("rm -rf /; {}ls", "env ".repeat(4000)));
    assert_eq!(a.verdict, Verdict::Deny);
    assert_eq!(analyzer.analyze("env env env ls").verdict, Verdict::Allow);
}

/// One budget for the whole analysis: nested `eval`s that each brace-expand the next one's
/// text run out of it and ask, rather than each getting a fresh allowance.
#[test]
fn nested_scripts_share_one_budget() {
    let analyzer = Analyzer::default();
    let cmd = format!(
        "eval {{1..100}}{}",
        quote(&format!(
            ";eval {{1..100}}{}",
            quote(&format!(";eval {}", quote("echo {1..100}")))
        ))
    );
    let a = analyzer.analyze(&cmd);
    assert_eq!(a.verdict, Verdict::Ask);
    assert!(a.findings.iter().any(|f| f.code == Code::LimitExceeded));
}

/// The median of `reps` timings of `f`.
fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[reps / 2]
}

fn time_row(analyzer: &Analyzer, row: &str, k: usize, scratch: &Path) -> Duration {
    let case = inputs::case(row, k, scratch).unwrap();
    let workdir = case.dir.as_ref().map(Workdir::new);
    median(5, || {
        let a = match &workdir {
            Some(w) => analyzer.analyze_in(&case.cmd, w),
            None => analyzer.analyze(&case.cmd),
        };
        std::hint::black_box(a);
    })
}

/// Every row of issue 11's table grows at most about linearly: 4 times the input takes less
/// than 10 times as long (quadratic work would take 16 times). Ratios of medians, not wall
/// times, so a slow or busy machine does not fail it; a row over the bound is measured again
/// before it fails.
#[test]
fn hostile_rows_grow_linearly() {
    let analyzer = Analyzer::default();
    let scratch = std::env::temp_dir().join(format!("cmdguard-growth-{}", std::process::id()));
    let mut failures = Vec::new();
    for row in inputs::ROWS {
        let ratio = || {
            let small = time_row(&analyzer, row, 1, &scratch);
            let large = time_row(&analyzer, row, 4, &scratch);
            // Below a tenth of a millisecond, timer noise is all there is to measure.
            let floor = Duration::from_micros(100);
            (
                large.max(floor).as_secs_f64() / small.max(floor).as_secs_f64(),
                small,
                large,
            )
        };
        // A busy machine makes single measurements noisy: a row fails only when three
        // measurements in a row are over the bound.
        let mut seen = Vec::new();
        let linear = (0..3).any(|_| {
            let (r, small, large) = ratio();
            seen.push(format!("{small:?} → {large:?} ({r:.1}×)"));
            r < 10.0
        });
        // The measured growth, for the log (`--nocapture`).
        eprintln!("growth {row}: {}", seen.join(", "));
        if !linear {
            failures.push(format!("{row}: {}", seen.join(", ")));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "super-linear growth:\n{}",
        failures.join("\n")
    );
}
