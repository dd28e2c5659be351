//! assess/guard.rs: the guards that make a failing assessor fail closed — an error, a panic or a
//! timeout becomes `Unsure { kind: unable_to_assess }`. They never turn a failure into `Allow`.

use std::any::Any;
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use crate::assess::{AssessRequest, Assessment, OwnedRequest, RiskAssessor};

/// An assessor that may fail with an error; wrap it in [`Fallible`] to use it as a
/// [`RiskAssessor`]. Closures returning `Result<Assessment, E>` implement it.
pub trait TryRiskAssessor: Send + Sync {
    /// What went wrong; its text becomes the reason of the `Unsure` answer.
    type Error: Display;

    /// Assesses one request, or fails.
    fn try_assess(&self, request: &AssessRequest<'_>) -> Result<Assessment, Self::Error>;
}

impl<F, E> TryRiskAssessor for F
where
    F: Fn(&AssessRequest<'_>) -> Result<Assessment, E> + Send + Sync,
    E: Display,
{
    type Error = E;

    fn try_assess(&self, request: &AssessRequest<'_>) -> Result<Assessment, E> {
        self(request)
    }
}

/// A [`TryRiskAssessor`] as a [`RiskAssessor`]: an error is
/// `Unsure { kind: unable_to_assess, reason: "assessor failed: …" }`.
///
/// ```
/// use cmdguard::Analyzer;
/// use cmdguard::assess::{Assessment, AssessRequest, Fallible, RiskAssessor, UnsureKind};
///
/// let analysis = Analyzer::default().analyze("make");
/// let request = AssessRequest::new("make", &analysis);
/// let broken = Fallible(|_: &AssessRequest<'_>| Err::<Assessment, _>("no network"));
/// let answer = broken.assess(&request);
/// assert_eq!(answer.kind, Some(UnsureKind::UnableToAssess));
/// assert_eq!(answer.reason.as_deref(), Some("assessor failed: no network"));
/// ```
pub struct Fallible<A>(pub A);

impl<A: TryRiskAssessor> RiskAssessor for Fallible<A> {
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        self.0
            .try_assess(request)
            .unwrap_or_else(|error| Assessment::unable(format!("assessor failed: {error}")))
    }
}

/// Runs an assessor on a worker thread with a timeout, and catches its panic.
///
/// Each call copies the request into an [`OwnedRequest`] (the worker thread may outlive the
/// borrow when it times out), spawns a thread, and waits for its answer up to the timeout. A
/// panic answers `Unsure { unable_to_assess, "assessor panicked: …" }`, a timeout
/// `Unsure { unable_to_assess, "assessor timed out after N ms" }`.
///
/// A thread cannot be killed: after a timeout the worker runs on until the assessor returns,
/// and its answer is dropped. Give the assessor its own deadline too when it holds resources
/// (the [`CommandAssessor`](crate::assess::CommandAssessor) kills its child; the
/// [`AgentAssessor`](crate::assess::AgentAssessor)'s model has a request timeout). A caught
/// panic still goes through the process's panic hook, which prints it by default.
pub struct Guarded<A> {
    inner: Arc<A>,
    timeout: Duration,
}

impl<A: RiskAssessor + 'static> Guarded<A> {
    /// Guards `assessor`, giving up on an answer after `timeout`.
    pub fn new(assessor: A, timeout: Duration) -> Guarded<A> {
        Guarded {
            inner: Arc::new(assessor),
            timeout,
        }
    }

    /// The timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

impl<A: RiskAssessor + 'static> RiskAssessor for Guarded<A> {
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        let owned = OwnedRequest::from_request(request);
        let inner = Arc::clone(&self.inner);
        let (sender, receiver) = mpsc::sync_channel(1);
        let spawned = thread::Builder::new()
            .name("cmdguard-assess".to_owned())
            .spawn(move || {
                let answer = catch_unwind(AssertUnwindSafe(|| {
                    owned.with_request(|request| inner.assess(request))
                }))
                .unwrap_or_else(|payload| {
                    Assessment::unable(format!("assessor panicked: {}", panic_text(&*payload)))
                });
                // The receiver is gone after a timeout; the late answer is dropped on purpose.
                let _ = sender.send(answer);
            });
        if let Err(error) = spawned {
            return Assessment::unable(format!("cannot start the assessor thread: {error}"));
        }
        match receiver.recv_timeout(self.timeout) {
            Ok(answer) => answer,
            Err(mpsc::RecvTimeoutError::Timeout) => Assessment::unable(format!(
                "assessor timed out after {} ms",
                self.timeout.as_millis()
            )),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Assessment::unable("assessor thread ended without an answer")
            }
        }
    }
}

/// The text a panic carried: `panic!("…")` payloads are `&str` or `String`.
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with a non-string payload".to_owned()
    }
}
