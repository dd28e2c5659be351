//! Risk assessment: a second opinion on the commands the analyser could not allow.
//!
//! The analyser's `ask` means "not proven safe", not "dangerous": `cargo test` runs project code,
//! `npm install` writes files. A [`RiskAssessor`] looks at such a command — with the analysis,
//! the working directory and the paths the runtime lets the agent write — and answers
//! [`Decision::Allow`], [`Decision::Unsure`] or [`Decision::Reject`]. The confirmation policy turns
//! that answer into a prompt (or none).
//!
//! This module sits above the core: the analyser never imports it. It never runs the command it
//! assesses.
//!
//! # Closures are assessors
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
//!
//! # Combining assessors
//!
//! [`FirstDecisive`] asks its assessors in order and returns the first `Allow` or `Reject`
//! (a cheap rule first, a model only when the rule is unsure); [`Strictest`] asks them all and
//! returns the strictest answer, `Reject` > `Unsure` > `Allow` (two opinions that must agree
//! before a command runs unasked). With no assessor, or when none is decisive, the answer is
//! `Unsure`, never `Allow`.
//!
//! ```
//! use cmdguard::Analyzer;
//! use cmdguard::assess::{
//!     Assessment, AssessRequest, Decision, FirstDecisive, RiskAssessor, Strictest, UnsureKind,
//! };
//!
//! let analysis = Analyzer::default().analyze("make");
//! let request = AssessRequest::new("make", &analysis);
//! let no_idea = |_: &AssessRequest<'_>| Assessment::unsure_other("no rule for this");
//! let fine = |_: &AssessRequest<'_>| Assessment::allow("builds the project");
//! let wary = |_: &AssessRequest<'_>| {
//!     Assessment::unsure(UnsureKind::ModifyExistingFiles, "rewrites build outputs")
//! };
//!
//! let first = FirstDecisive::new().or(no_idea).or(fine).or(wary);
//! assert_eq!(first.assess(&request).decision, Decision::Allow);
//!
//! let strictest = Strictest::new().and(fine).and(wary);
//! assert_eq!(strictest.assess(&request).kind, Some(UnsureKind::ModifyExistingFiles));
//! ```
//!
//! # Failing closed
//!
//! An assessor that errors, panics or takes too long answers
//! `Unsure { kind: unable_to_assess }`, never `Allow`. [`Fallible`] turns a
//! [`TryRiskAssessor`]'s error into that answer; [`Guarded`] runs an assessor on a worker
//! thread, catching its panic and giving up after a timeout:
//!
//! ```
//! use std::time::Duration;
//! use cmdguard::Analyzer;
//! use cmdguard::assess::{Assessment, AssessRequest, Guarded, RiskAssessor, UnsureKind};
//!
//! let analysis = Analyzer::default().analyze("npm install");
//! let request = AssessRequest::new("npm install", &analysis);
//! let slow = |_: &AssessRequest<'_>| {
//!     std::thread::sleep(Duration::from_secs(5));
//!     Assessment::allow("too late to count")
//! };
//! let guarded = Guarded::new(slow, Duration::from_millis(50));
//! let answer = guarded.assess(&request);
//! assert_eq!(answer.kind, Some(UnsureKind::UnableToAssess));
//! assert_eq!(answer.reason.as_deref(), Some("assessor timed out after 50 ms"));
//! ```
//!
//! [`AsyncRiskAssessor`] is the same for runtimes that await: an LLM call need not hold a
//! thread. It needs no particular executor; [`AsyncGuarded`] adds the panic catch and a
//! timeout to it without one.
//!
//! # The assessors that ship
//!
//! - [`CommandAssessor`] runs a program you configure (no shell), writes the request as JSON
//!   on its stdin and reads a JSON decision from its stdout; the format is documented there.
//! - [`AgentAssessor`] is a small agent: a model you supply through [`ChatModel`] gets
//!   cmdguard's system prompt ([`SYSTEM_PROMPT`]) and four read-only tools confined to the
//!   working directory and the allowed paths, and must end with a strict JSON answer.
//! - With the `openai` feature (on by default), `OpenAiChat` is a [`ChatModel`] for any
//!   OpenAI-compatible chat-completions endpoint over http; `openai-tls` adds https.
//!
//! The async pieces need no cargo feature: they are plain `std` futures, and no executor comes
//! with them.

mod agent;
mod asynchronous;
mod combine;
mod command;
mod fs_tools;
mod guard;
#[cfg(feature = "openai")]
mod openai;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::analyzer::Analysis;

pub use agent::{
    AgentAssessor, AgentLimits, AsyncAgentAssessor, AsyncChatModel, ChatMessage, ChatModel,
    ModelError, Role, SYSTEM_PROMPT, ToolCall,
};
pub use asynchronous::{AsyncGuarded, AsyncRiskAssessor, Inline};
pub use combine::{FirstDecisive, Strictest};
pub use command::{CommandAssessor, REQUEST_VERSION};
pub use fs_tools::{Confinement, assessor_tools, looks_secret};
pub use guard::{Fallible, Guarded, TryRiskAssessor};
#[cfg(feature = "openai")]
pub use openai::OpenAiChat;

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

/// An owned copy of an [`AssessRequest`], for work that outlives the borrow: a worker thread
/// ([`Guarded`]), a future that must be `'static`, a queue.
///
/// The request view borrows on purpose — the caller already holds the command and the analysis,
/// and most assessors answer before returning — so only the guards that need `'static` pay for
/// the copy (the command, the analysis with its segments and findings, and the paths).
#[derive(Debug, Clone)]
pub struct OwnedRequest {
    /// The command as the agent wrote it.
    pub command: String,
    /// The analyser's result for it.
    pub analysis: Analysis,
    /// The working directory the command runs in, when known.
    pub cwd: Option<PathBuf>,
    /// Paths outside the working directory that the agent may write.
    pub allowed_paths: Vec<PathBuf>,
}

impl OwnedRequest {
    /// Copies a borrowed request.
    pub fn from_request(request: &AssessRequest<'_>) -> OwnedRequest {
        OwnedRequest {
            command: request.command.to_owned(),
            analysis: request.analysis.clone(),
            cwd: request.cwd.map(Path::to_path_buf),
            allowed_paths: request
                .allowed_paths
                .iter()
                .map(|path| path.to_path_buf())
                .collect(),
        }
    }

    /// Calls `f` with a borrowed view of this request.
    ///
    /// A view cannot be returned directly: its `allowed_paths` is a slice of borrowed paths,
    /// which is built here for the duration of the call.
    ///
    /// ```
    /// use std::path::Path;
    /// use cmdguard::Analyzer;
    /// use cmdguard::assess::{AssessRequest, OwnedRequest};
    ///
    /// let analysis = Analyzer::default().analyze("ls");
    /// let paths = [Path::new("/tmp")];
    /// let request = AssessRequest::new("ls", &analysis).with_allowed_paths(&paths);
    /// let owned = OwnedRequest::from_request(&request);
    /// assert_eq!(owned.with_request(|r| r.allowed_paths.len()), 1);
    /// ```
    pub fn with_request<R>(&self, f: impl FnOnce(&AssessRequest<'_>) -> R) -> R {
        let paths: Vec<&Path> = self.allowed_paths.iter().map(PathBuf::as_path).collect();
        let request = AssessRequest {
            command: &self.command,
            analysis: &self.analysis,
            cwd: self.cwd.as_deref(),
            allowed_paths: &paths,
        };
        f(&request)
    }
}

// Assessors are shared between the threads that check commands.
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<Assessment>();
    shareable::<OwnedRequest>();
    shareable::<FirstDecisive>();
    shareable::<Strictest>();
    shareable::<CommandAssessor>();
    shareable::<Guarded<CommandAssessor>>();
    shareable::<
        AgentAssessor<fn(&[ChatMessage], &[serde_json::Value]) -> Result<ChatMessage, ModelError>>,
    >();
};
