//! The seed corpus: labelled cases from the test suites of the systems cmdguard descends from.
//! Every case must pass; an expectation is never loosened to make it pass.

use cmdguard::{AllowlistBuilder, Analyzer, Verdict};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    cmd: String,
    expect: Verdict,
    expect_xun_profile: Option<Verdict>,
    source: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/seed-tests.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run(
    analyzer: &Analyzer,
    cases: impl Iterator<Item = (String, Verdict, String)>,
) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut failures = Vec::new();
    for (cmd, want, source) in cases {
        n += 1;
        let a = analyzer.analyze(&cmd);
        if a.verdict != want {
            let why: Vec<String> = a
                .findings
                .iter()
                .map(|f| format!("{}:{}:{}", f.severity, f.code, f.message))
                .collect();
            failures.push(format!(
                "{cmd:?}: want {want}, got {} [{}] ({source})",
                a.verdict,
                why.join("; ")
            ));
        }
    }
    (n, failures)
}

#[test]
fn every_seed_case_gets_its_expected_verdict() {
    let (n, failures) = run(
        &Analyzer::default(),
        cases().into_iter().map(|c| (c.cmd, c.expect, c.source)),
    );
    assert_eq!(n, 185);
    assert!(
        failures.is_empty(),
        "{} of {n} seed cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_xun_profile_reproduces_xuns_verdicts() {
    let list = AllowlistBuilder::new()
        .add_default()
        .add_toml(include_str!("../../profiles/xun.toml"), None)
        .build()
        .unwrap();
    let analyzer = Analyzer::new(list);
    let xun: Vec<_> = cases()
        .into_iter()
        .filter_map(|c| c.expect_xun_profile.map(|v| (c.cmd, v, c.source)))
        .collect();
    assert!(xun.len() >= 40);
    let (n, failures) = run(&analyzer, xun.into_iter());
    assert!(
        failures.is_empty(),
        "{} of {n} xun cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
