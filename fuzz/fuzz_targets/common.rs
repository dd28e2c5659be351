//! What the analysing targets share: one analyser, the property checks, and the log of allowed
//! commands for the differential test.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use cmdguard::{Analysis, Analyzer, Verdict};

/// Distinct allowed commands logged per run at most; the differential test runs each one.
const MAX_LOGGED: usize = 20_000;

pub fn analyzer() -> &'static Analyzer {
    static ANALYZER: OnceLock<Analyzer> = OnceLock::new();
    ANALYZER.get_or_init(Analyzer::default)
}

/// The properties every analysis must have, whatever the input.
pub fn check_properties(a: &Analysis) {
    for f in &a.findings {
        assert!(f.span.start <= f.span.end && f.span.end <= a.cmd.len(), "span out of bounds: {f:?}");
        assert!(a.cmd.is_char_boundary(f.span.start) && a.cmd.is_char_boundary(f.span.end));
    }
    let strictest = a.findings.iter().map(|f| f.severity).max().unwrap_or(Verdict::Allow);
    assert_eq!(a.verdict, strictest);
}

struct Log {
    file: std::fs::File,
    seen: HashSet<u64>,
}

/// With `CMDGUARD_FUZZ_ALLOWS=FILE`, appends each distinct allowed command to FILE as a JSON
/// line, which the differential test reads through `CMDGUARD_DIFF_EXTRA=FILE`.
pub fn log_allowed(a: &Analysis, origin: &str) {
    static LOG: OnceLock<Option<Mutex<Log>>> = OnceLock::new();
    if a.verdict != Verdict::Allow {
        return;
    }
    let log = LOG.get_or_init(|| {
        let path = std::env::var_os("CMDGUARD_FUZZ_ALLOWS")?;
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path).ok()?;
        Some(Mutex::new(Log { file, seen: HashSet::new() }))
    });
    let Some(log) = log else { return };
    let Ok(mut log) = log.lock() else { return };
    let mut h = DefaultHasher::new();
    a.cmd.hash(&mut h);
    if log.seen.len() >= MAX_LOGGED || !log.seen.insert(h.finish()) {
        return;
    }
    let line = serde_json::json!({ "cmd": a.cmd, "origin": origin });
    let _ = writeln!(log.file, "{line}");
}
