//! Placeholder until the awk program checker lands: rejects every program (fail closed).
#![allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwkProblem {
    pub offset: usize,
    pub reason: String,
}
pub fn check_awk_program(_p: &str) -> Result<(), AwkProblem> {
    Err(AwkProblem {
        offset: 0,
        reason: "not verified".into(),
    })
}
