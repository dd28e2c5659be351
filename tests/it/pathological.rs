//! Pathological inputs (issue 15): 1 MiB of operators, 10k levels of nesting, a 100k-stage
//! pipeline, 64 KiB of `$(`, and their relatives just under the byte limit. Each gets `ask`
//! with the reason that stopped it, at a quarter, half and all of its size. Their times are
//! measured by the `pathological` bench group (`benches/stages.rs`), never here.

use cmdguard::{Analyzer, Code, Verdict};

#[path = "../../benches/hostile/pathological.rs"]
mod rows;

/// Each row's verdict and the code of the finding that says why, at the full size.
const EXPECTED: &[(&str, Verdict, Code)] = &[
    ("semicolons_1mib", Verdict::Ask, Code::LimitExceeded),
    ("operators_1mib", Verdict::Ask, Code::LimitExceeded),
    ("subshells_10k", Verdict::Ask, Code::LimitExceeded),
    ("substitutions_10k", Verdict::Ask, Code::LimitExceeded),
    ("open_parens_10k", Verdict::Ask, Code::ParseError),
    ("pipeline_100k", Verdict::Ask, Code::LimitExceeded),
    (
        "open_substitutions_64kib",
        Verdict::Ask,
        Code::LimitExceeded,
    ),
    ("open_substitutions_32kib", Verdict::Ask, Code::ParseError),
    ("statements_32kib", Verdict::Ask, Code::LimitExceeded),
    ("backquotes_32kib", Verdict::Ask, Code::ParseError),
];

#[test]
fn pathological_inputs_ask_with_their_reason() {
    let analyzer = Analyzer::default();
    assert_eq!(EXPECTED.len(), rows::ROWS.len());
    for (row, (name, verdict, code)) in rows::ROWS.iter().zip(EXPECTED) {
        assert_eq!(row.name, *name);
        let a = analyzer.analyze(&(row.build)(row.full));
        assert_eq!(a.verdict, *verdict, "{name}: {:?}", a.findings);
        assert!(
            a.findings
                .iter()
                .any(|f| f.code == *code && f.severity == *verdict),
            "{name}: no {code:?} among {:?}",
            a.findings.iter().map(|f| f.code).collect::<Vec<_>>()
        );
    }
}

/// Smaller sizes of the same shapes never pass either.
#[test]
fn pathological_inputs_ask_at_every_size() {
    let analyzer = Analyzer::default();
    for row in rows::ROWS {
        for quarters in [1, 2] {
            let a = analyzer.analyze(&(row.build)(row.full * quarters / 4));
            assert_eq!(a.verdict, Verdict::Ask, "{} at {quarters}/4", row.name);
        }
    }
}
