//! Placeholder until the sed script parser lands: rejects every script (fail closed).
#![allow(missing_docs)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SedDialect {
    pub posix: bool,
    pub sandbox: bool,
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SedProblem {
    pub offset: usize,
    pub reason: String,
}
pub fn check_sed_script(_script: &str, _d: SedDialect) -> Result<(), SedProblem> {
    Err(SedProblem {
        offset: 0,
        reason: "not verified".into(),
    })
}
