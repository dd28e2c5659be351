//! The fast segmenter against the full path: for any input, the shipped analyser (fast path
//! where it accepts) and the reference without the fast path give the same `Analysis` —
//! verdict, findings with spans, segments with every field. Inputs are tried as they come and
//! also reshaped toward the fast path's subset (control bytes to blanks, the second half
//! joined by a list operator), so accepted inputs are common. Properties of the `analyze`
//! target hold too.
//!
//! Where the fast path declines, both sides run the same code; only the wall clock
//! (`[limits] max_ms`) could make them differ, so those inputs compare only when neither
//! side ran out of time.
#![no_main]

#[path = "common.rs"]
mod common;

use std::sync::OnceLock;

use cmdguard::{Analysis, Analyzer};
use libfuzzer_sys::fuzz_target;

fn reference() -> &'static Analyzer {
    static FULL: OnceLock<Analyzer> = OnceLock::new();
    FULL.get_or_init(|| Analyzer::default().without_fast_path())
}

fn out_of_time(a: &Analysis) -> bool {
    a.findings.iter().any(|f| f.message.contains("longer than its time limit"))
}

fn compare(cmd: &str) {
    let fast = common::analyzer();
    let a = fast.analyze(cmd);
    common::check_properties(&a);
    let taken = fast.fast_path_accepts(cmd);
    let b = reference().analyze(cmd);
    if !taken && (out_of_time(&a) || out_of_time(&b)) {
        return;
    }
    assert_eq!(a, b, "fast path (taken: {taken}) differs from the full path on {cmd:?}");
    common::log_allowed(&a, "fuzz/fast_vs_full");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    compare(text);
    // Toward the subset: control bytes become blanks, and a list operator picked by the first
    // byte joins the two halves.
    let blank: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if blank != text {
        compare(&blank);
    }
    if let Some(first) = data.first() {
        let mid = (1..=blank.len() / 2).rev().find(|i| blank.is_char_boundary(*i)).unwrap_or(0);
        let op = [" | ", " && ", " || ", "; ", " 2>&1 | ", " > /dev/null; "][*first as usize % 6];
        let joined = format!("{}{op}{}", &blank[..mid], &blank[mid..]);
        compare(&joined);
    }
});
