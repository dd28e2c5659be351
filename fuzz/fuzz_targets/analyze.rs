//! Arbitrary bytes through the analyser: it never panics, spans lie inside the input on char
//! boundaries, the verdict is the strictest finding, bytes bash would read differently never
//! come out `allow`, and analysing twice gives the same result. With
//! `CMDGUARD_FUZZ_ALLOWS=FILE`, allowed inputs are logged for the differential test.
#![no_main]

#[path = "common.rs"]
mod common;

use cmdguard::Verdict;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let analyzer = common::analyzer();
    let a = analyzer.analyze_bytes(data);
    common::check_properties(&a);
    if std::str::from_utf8(data).is_err() || data.contains(&0) {
        assert_ne!(a.verdict, Verdict::Allow, "bad bytes allowed");
    }
    assert_eq!(analyzer.analyze_bytes(data), a, "not deterministic");
    common::log_allowed(&a, "fuzz/analyze");
});
