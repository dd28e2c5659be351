//! The seed corpus: labelled cases from the test suites of the systems cmdguard descends from.
//! Every case must pass; an expectation is never loosened to make it pass.
//!
//! The corpus file is a verbatim copy of the shared seed corpus. Where a later issue made a
//! verdict *stricter* than a seed label (issue 12's deny packs turn some `ask` cases into
//! `deny`), the case is listed in [`ESCALATED`] with the rule that now denies it: the test
//! then demands exactly that deny, from exactly that rule — never anything looser.

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

/// Seed cases labelled `ask` that issue 12 requires to be denied: the command, and the
/// pack-qualified rule that must deny it. Every entry discards work or deletes files that the
/// seed's source systems only asked about.
const ESCALATED: &[(&str, &str)] = &[
    ("git checkout .", "core.git/git-checkout-discard-all"),
    ("find . -delete", "core.filesystem/find-delete"),
    ("git branch -D main", "core.git/git-branch-force-delete"),
    ("git clean -fd", "core.git/git-clean-force"),
    ("git checkout -- src/app.py", "core.git/git-checkout-paths"),
    ("git restore src/app.py", "core.git/git-restore-worktree"),
    ("find . -exec xargs rm \\;", "core.filesystem/xargs-rm"),
    (
        "python3 -c 'import shutil; shutil.rmtree(\"x\")'",
        "interpreters.python.delete",
    ),
];

/// The verdict a seed case must get now, and the rule that must give it when it was escalated.
fn expected(cmd: &str, label: Verdict) -> (Verdict, Option<&'static str>) {
    match ESCALATED.iter().find(|(c, _)| *c == cmd) {
        Some((_, rule)) if label == Verdict::Ask => (Verdict::Deny, Some(rule)),
        _ => (label, None),
    }
}

fn run(
    analyzer: &Analyzer,
    cases: impl Iterator<Item = (String, Verdict, String)>,
) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut failures = Vec::new();
    for (cmd, label, source) in cases {
        n += 1;
        let a = analyzer.analyze(&cmd);
        let (want, rule) = expected(&cmd, label);
        let by_rule = rule.is_none_or(|r| {
            a.findings
                .iter()
                .any(|f| f.severity == Verdict::Deny && f.rule.as_deref() == Some(r))
        });
        if a.verdict != want || !by_rule {
            let why: Vec<String> = a
                .findings
                .iter()
                .map(|f| format!("{}:{}:{}:{:?}", f.severity, f.code, f.message, f.rule))
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
    let seed = cases();
    for (cmd, _) in ESCALATED {
        assert!(
            seed.iter()
                .any(|c| c.cmd == *cmd && c.expect == Verdict::Ask),
            "{cmd:?} is listed as escalated but is not an `ask` seed case"
        );
    }
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
