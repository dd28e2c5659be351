//! Risk assessment: a second opinion on the commands the analyser could not allow.
//!
//! The analyser's `ask` means "not proven safe", not "dangerous": `cargo test` runs project code,
//! `npm install` writes files. A [`RiskAssessor`] looks at such a command — with the analysis,
//! the working directory and the paths the runtime lets the agent write — and answers
//! [`Decision::Allow`], [`Decision::Unsure`] or [`Decision::Reject`]. The confirmation policy turns
//! that answer into a prompt (or none).
//!
//! This module sits above the core: the analyser never imports it.
//!
//! Any function or closure with the right signature is an assessor:
//!
//! ```
//! use cmdguard::Analyzer;
//! use cmdguard::assess::{Assessment, AssessRequest, RiskAssessor};
//!
//! let analyzer = Analyzer::default();
//! let analysis = analyzer.analyze("cargo test");
//! let request = AssessRequest::new("cargo test", &analysis);
//! let only_cargo = |req: &AssessRequest<'_>| {
//!     if req.command.starts_with("cargo ") {
//!         Assessment::allow("cargo in the project")
//!     } else {
//!         Assessment::unsure_other("not cargo")
//!     }
//! };
//! assert!(only_cargo.assess(&request).decision.is_allow());
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::analyzer::Analysis;

/// What an assessor decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Safe to run without asking.
    Allow,
    /// A human should confirm; the prompt defaults to yes.
    Unsure,
    /// Dangerous; the prompt defaults to no.
    Reject,
}

impl Decision {
    /// True for [`Decision::Allow`].
    pub fn is_allow(self) -> bool {
        self == Decision::Allow
    }

    /// How strict the decision is: `Allow` < `Unsure` < `Reject`.
    pub fn rank(self) -> u8 {
        match self {
            Decision::Allow => 0,
            Decision::Unsure => 1,
            Decision::Reject => 2,
        }
    }
}

/// Why an assessor is unsure. Serialised in snake_case
/// (`install_package_outside_allowed_paths`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnsureKind {
    /// Installs a package somewhere the agent may not write: always confirmed by a human.
    InstallPackageOutsideAllowedPaths,
    /// Changes the state of the system (services, users, settings): always confirmed by a human.
    ChangeSystemStatus,
    /// Modifies files that already exist.
    ModifyExistingFiles,
    /// The assessor could not decide: it failed, timed out, or answered something malformed.
    UnableToAssess,
    /// Any other reason.
    Other,
}

impl UnsureKind {
    /// The snake_case name used in JSON and in prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            UnsureKind::InstallPackageOutsideAllowedPaths => {
                "install_package_outside_allowed_paths"
            }
            UnsureKind::ChangeSystemStatus => "change_system_status",
            UnsureKind::ModifyExistingFiles => "modify_existing_files",
            UnsureKind::UnableToAssess => "unable_to_assess",
            UnsureKind::Other => "other",
        }
    }
}

/// An assessor's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assessment {
    /// The decision.
    pub decision: Decision,
    /// A short reason a person reads.
    pub reason: Option<String>,
    /// Why the assessor is unsure; set for [`Decision::Unsure`] answers.
    pub kind: Option<UnsureKind>,
}

impl Assessment {
    /// An `Allow` with a reason.
    pub fn allow(reason: impl Into<String>) -> Assessment {
        Assessment {
            decision: Decision::Allow,
            reason: Some(reason.into()),
            kind: None,
        }
    }

    /// A `Reject` with a reason.
    pub fn reject(reason: impl Into<String>) -> Assessment {
        Assessment {
            decision: Decision::Reject,
            reason: Some(reason.into()),
            kind: None,
        }
    }

    /// An `Unsure` of the given kind with a reason.
    pub fn unsure(kind: UnsureKind, reason: impl Into<String>) -> Assessment {
        Assessment {
            decision: Decision::Unsure,
            reason: Some(reason.into()),
            kind: Some(kind),
        }
    }

    /// An `Unsure` of kind [`UnsureKind::Other`].
    pub fn unsure_other(reason: impl Into<String>) -> Assessment {
        Assessment::unsure(UnsureKind::Other, reason)
    }

    /// The answer for an assessor that failed: `Unsure { kind: unable_to_assess }`, never `Allow`.
    pub fn unable(reason: impl Into<String>) -> Assessment {
        Assessment::unsure(UnsureKind::UnableToAssess, reason)
    }
}

/// What an assessor sees: a borrowed view of one request.
#[derive(Debug, Clone, Copy)]
pub struct AssessRequest<'a> {
    /// The command as the agent wrote it.
    pub command: &'a str,
    /// The analyser's result for it.
    pub analysis: &'a Analysis,
    /// The working directory the command runs in, when known.
    pub cwd: Option<&'a Path>,
    /// Paths outside the working directory that the agent may write.
    pub allowed_paths: &'a [&'a Path],
}

impl<'a> AssessRequest<'a> {
    /// A request with no working directory and no extra allowed paths.
    pub fn new(command: &'a str, analysis: &'a Analysis) -> AssessRequest<'a> {
        AssessRequest {
            command,
            analysis,
            cwd: None,
            allowed_paths: &[],
        }
    }

    /// The same request in `cwd`.
    pub fn in_dir(self, cwd: &'a Path) -> AssessRequest<'a> {
        AssessRequest {
            cwd: Some(cwd),
            ..self
        }
    }

    /// The same request with extra paths the agent may write.
    pub fn with_allowed_paths(self, allowed_paths: &'a [&'a Path]) -> AssessRequest<'a> {
        AssessRequest {
            allowed_paths,
            ..self
        }
    }
}

/// Decides the commands the analyser asked about.
///
/// Implementations must not panic and must not block for long; wrap them in the guards this
/// module provides so that a panic, an error or a timeout becomes
/// `Unsure { kind: unable_to_assess }`.
pub trait RiskAssessor: Send + Sync {
    /// Assesses one request.
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment;
}

impl<F> RiskAssessor for F
where
    F: Fn(&AssessRequest<'_>) -> Assessment + Send + Sync,
{
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        self(request)
    }
}
