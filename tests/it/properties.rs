//! The fuzz targets' properties, mirrored as proptest so `cargo test` exercises them on stable:
//! no panic, spans in bounds and on char boundaries, verdict = strictest finding, determinism,
//! and never `allow` for input bash would read differently.

use cmdguard::{Analyzer, Verdict};
use proptest::prelude::*;

fn holds(analyzer: &Analyzer, data: &[u8]) -> Result<(), TestCaseError> {
    let a = analyzer.analyze_bytes(data);
    for f in &a.findings {
        prop_assert!(
            f.span.start <= f.span.end && f.span.end <= a.cmd.len(),
            "{f:?}"
        );
        prop_assert!(a.cmd.is_char_boundary(f.span.start) && a.cmd.is_char_boundary(f.span.end));
    }
    let strictest = a
        .findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Verdict::Allow);
    prop_assert_eq!(a.verdict, strictest);
    if std::str::from_utf8(data).is_err() || data.contains(&0) {
        prop_assert_ne!(a.verdict, Verdict::Allow);
    }
    prop_assert_eq!(&analyzer.analyze_bytes(data), &a);
    Ok(())
}

/// Pieces of bash syntax, so generated commands reach deep constructs rather than word soup.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("ls".to_string()),
        Just("rm".to_string()),
        Just("git".to_string()),
        Just("diff".to_string()),
        Just("echo".to_string()),
        Just("sed".to_string()),
        Just("-rf".to_string()),
        Just("-i".to_string()),
        Just(" ".to_string()),
        Just("|".to_string()),
        Just("&&".to_string()),
        Just(";".to_string()),
        Just("\n".to_string()),
        Just("&".to_string()),
        Just("$(".to_string()),
        Just(")".to_string()),
        Just("`".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("\\".to_string()),
        Just("<<EOF\n".to_string()),
        Just("EOF".to_string()),
        Just(">".to_string()),
        Just("<".to_string()),
        Just("2>&1".to_string()),
        Just("{a,b}".to_string()),
        Just("$x".to_string()),
        Just("${x:-y}".to_string()),
        Just("$((1+x))".to_string()),
        Just("[[".to_string()),
        Just("]]".to_string()),
        Just("(".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("#".to_string()),
        Just("*".to_string()),
        Just("=".to_string()),
        Just("f()".to_string()),
        Just("bash -c ".to_string()),
        Just("eval ".to_string()),
        Just("xargs ".to_string()),
        Just("time ".to_string()),
        Just("<<<".to_string()),
        Just("é".to_string()),
        "[a-z]{1,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_hold_the_properties(data in proptest::collection::vec(any::<u8>(), 0..256)) {
        holds(&Analyzer::default(), &data)?;
    }

    #[test]
    fn generated_bash_holds_the_properties(parts in proptest::collection::vec(token(), 0..40)) {
        holds(&Analyzer::default(), parts.concat().as_bytes())?;
    }
}

/// Every input a fuzzer found a problem with (`tests/data/fuzz/`, copied from
/// `fuzz/artifacts/`) still holds the properties: crashes and hangs stay fixed.
#[test]
fn fuzzer_findings_hold_the_properties() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    let analyzer = Analyzer::default();
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = holds(&analyzer, &data) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n > 0, "no fuzzer findings in {}", dir.display());
}
