//! Arbitrary text as allowlist TOML: loading returns a value or a located error, never a panic.
#![no_main]

use cmdguard::{Allowlist, Analyzer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(list) = Allowlist::from_toml(text, None) {
        let _ = Analyzer::new(list);
    }
});
