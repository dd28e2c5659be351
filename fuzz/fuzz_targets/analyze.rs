//! Arbitrary bytes through the analyser: it never panics, spans lie inside the input on char
//! boundaries, the verdict is the strictest finding, and analysing twice gives the same result.
#![no_main]

use cmdguard::{Analyzer, Verdict};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let analyzer = Analyzer::default();
    let a = analyzer.analyze_bytes(data);
    for f in &a.findings {
        assert!(f.span.start <= f.span.end && f.span.end <= a.cmd.len(), "span out of bounds: {f:?}");
        assert!(a.cmd.is_char_boundary(f.span.start) && a.cmd.is_char_boundary(f.span.end));
    }
    let strictest = a.findings.iter().map(|f| f.severity).max().unwrap_or(Verdict::Allow);
    assert_eq!(a.verdict, strictest);
    if std::str::from_utf8(data).is_err() || data.contains(&0) {
        assert_ne!(a.verdict, Verdict::Allow, "bad bytes allowed");
    }
    assert_eq!(analyzer.analyze_bytes(data), a, "not deterministic");
});
