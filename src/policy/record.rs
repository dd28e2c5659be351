//! policy/record: the [`DecisionRecord`] every request leaves behind — what was asked, who
//! decided, how long each stage took. Plain data serialised as JSON for an audit log; it never
//! influences a decision.

use std::time::Duration;

use serde::Serialize;

use super::confirm::{Choice, ChoiceOutcome};
use super::prefix::Prefix;
use crate::assess::Assessment;
use crate::{Analysis, Code, Verdict};

/// What happens to the command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[must_use = "a refused command must not run"]
pub enum Outcome {
    /// Run it.
    Run,
    /// Do not run it; tell the agent `message`.
    Refused {
        /// "Command `…` was rejected by confirmation (…)", or why the analyser denied it.
        message: String,
    },
}

impl Outcome {
    /// True for [`Outcome::Run`].
    pub fn runs(&self) -> bool {
        match self {
            Outcome::Run => true,
            Outcome::Refused { .. } => false,
        }
    }
}

/// Which step of the flow settled the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// The analyser allowed it: no assessor, no prompt.
    AnalyserAllow,
    /// The analyser denied it: no assessor, no prompt.
    AnalyserDeny,
    /// A remembered prefix covered every reason to ask.
    Grant,
    /// The assessor allowed it.
    AssessorAllow,
    /// A prompt was answered (by a person or by auto-confirm).
    Prompt,
}

/// A prompt and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptRecord {
    /// The prompt's title.
    pub title: String,
    /// Its default answer.
    pub default: Choice,
    /// The answer and who gave it.
    pub answer: ChoiceOutcome,
}

/// How long each stage took, in microseconds; `None` for a stage that did not run here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Timings {
    /// The analyser (set by [`Policy::check`](super::Policy::check), or by the caller).
    pub analyse_us: Option<u64>,
    /// The risk assessor.
    pub assess_us: Option<u64>,
    /// The prompt, human think time included.
    pub prompt_us: Option<u64>,
}

/// Microseconds, saturating.
pub(crate) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Everything about one request, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionRecord {
    /// The command.
    pub command: String,
    /// The analyser's verdict.
    pub verdict: Verdict,
    /// The codes of the analyser's findings, in order.
    pub codes: Vec<Code>,
    /// The step that settled it.
    pub route: Route,
    /// The prefix grant that covered it, when one did.
    pub granted_by: Option<Prefix>,
    /// The assessor's answer, when it was asked.
    pub assessment: Option<Assessment>,
    /// The prompt and its answer, when there was one.
    pub prompt: Option<PromptRecord>,
    /// What happens to the command.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Stage timings.
    pub timings: Timings,
    /// Problems that did not change the outcome (a grant that could not be saved).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl DecisionRecord {
    /// A record of `analysis` settled at `route` with `outcome`; the rest empty.
    pub(crate) fn new(analysis: &Analysis, route: Route, outcome: Outcome) -> DecisionRecord {
        DecisionRecord {
            command: analysis.cmd.clone(),
            verdict: analysis.verdict,
            codes: analysis.findings.iter().map(|f| f.code).collect(),
            route,
            granted_by: None,
            assessment: None,
            prompt: None,
            outcome,
            timings: Timings::default(),
            warnings: Vec::new(),
        }
    }
}
