//! assess/asynchronous.rs: assessors that await — the trait, an adapter for the synchronous
//! ones, and a guard (panic, timeout) that needs no particular async runtime. It never starts an
//! executor; the caller's runtime polls.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use crate::assess::guard::panic_text;
use crate::assess::{AssessRequest, Assessment, RiskAssessor};
use crate::tool::BoxFuture;

/// An assessor for async runtimes: it returns a future, so a model call can be awaited without
/// holding a thread.
///
/// The future may borrow the assessor and the request. It must not need a specific runtime
/// unless the caller provides it (an assessor calling a tokio-based HTTP client is polled inside
/// tokio). Wrap it in [`AsyncGuarded`] so that a panic or a timeout fails closed.
///
/// ```
/// use cmdguard::Analyzer;
/// use cmdguard::assess::{Assessment, AssessRequest, AsyncRiskAssessor, Decision};
/// use cmdguard::tool::BoxFuture;
///
/// struct Remote;
///
/// impl AsyncRiskAssessor for Remote {
///     fn assess_async<'a>(&'a self, request: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment> {
///         Box::pin(async move {
///             // a real one awaits an HTTP call here
///             if request.command.starts_with("cargo ") {
///                 Assessment::allow("builds the project")
///             } else {
///                 Assessment::unsure_other("not a build")
///             }
///         })
///     }
/// }
///
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     let waker = std::task::Waker::noop();
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = std::pin::pin!(f);
/// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// let analysis = Analyzer::default().analyze("cargo build");
/// let request = AssessRequest::new("cargo build", &analysis);
/// let answer = block_on(Remote.assess_async(&request)); // `.await` in a runtime
/// assert_eq!(answer.decision, Decision::Allow);
/// ```
pub trait AsyncRiskAssessor: Send + Sync {
    /// Assesses one request.
    fn assess_async<'a>(&'a self, request: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment>;
}

/// A synchronous [`RiskAssessor`] as an [`AsyncRiskAssessor`]: it runs inside `poll`, on the
/// executor's thread, so use it for assessors that answer quickly (rules, not model calls).
pub struct Inline<A>(pub A);

impl<A: RiskAssessor> AsyncRiskAssessor for Inline<A> {
    fn assess_async<'a>(&'a self, request: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment> {
        Box::pin(async move { self.0.assess(request) })
    }
}

/// Guards an [`AsyncRiskAssessor`]: a panic while its future is polled, or no answer within the
/// timeout, answers `Unsure { kind: unable_to_assess }`.
///
/// The timeout needs no runtime: the first poll starts a small timer thread that sleeps until
/// the deadline and wakes the task; it ends early when the future finishes or is dropped. A
/// future that blocks inside `poll` cannot be interrupted (no guard can); that is what
/// [`Guarded`](crate::assess::Guarded) and its worker thread are for.
pub struct AsyncGuarded<A> {
    inner: A,
    timeout: Duration,
}

impl<A: AsyncRiskAssessor> AsyncGuarded<A> {
    /// Guards `assessor`, giving up on an answer after `timeout`.
    pub fn new(assessor: A, timeout: Duration) -> AsyncGuarded<A> {
        AsyncGuarded {
            inner: assessor,
            timeout,
        }
    }
}

impl<A: AsyncRiskAssessor> AsyncRiskAssessor for AsyncGuarded<A> {
    fn assess_async<'a>(&'a self, request: &'a AssessRequest<'a>) -> BoxFuture<'a, Assessment> {
        // Building the future may panic too (a synchronous prelude in `assess_async`).
        let future = catch_unwind(AssertUnwindSafe(|| self.inner.assess_async(request)));
        match future {
            Ok(future) => Box::pin(WithGuard {
                future: Some(future),
                timer: Timer::new(self.timeout),
            }),
            Err(payload) => {
                let reason = format!("assessor panicked: {}", panic_text(&*payload));
                Box::pin(std::future::ready(Assessment::unable(reason)))
            }
        }
    }
}

/// The future [`AsyncGuarded`] returns.
struct WithGuard<'a> {
    /// `None` once it has answered or panicked: it is never polled again.
    future: Option<BoxFuture<'a, Assessment>>,
    timer: Timer,
}

impl Future for WithGuard<'_> {
    type Output = Assessment;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Assessment> {
        let Some(future) = self.future.as_mut() else {
            return Poll::Ready(Assessment::unable("assessment polled after it answered"));
        };
        // Sound to assert: a future that panicked is dropped right after and never polled again.
        let polled = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)));
        let answer = match polled {
            Ok(Poll::Ready(answer)) => answer,
            Ok(Poll::Pending) => match self.timer.poll_fired(cx.waker()) {
                TimerState::Pending => return Poll::Pending,
                TimerState::Fired => Assessment::unable(format!(
                    "assessor timed out after {} ms",
                    self.timer.timeout.as_millis()
                )),
                TimerState::Failed(error) => {
                    Assessment::unable(format!("cannot start the assessor's timer: {error}"))
                }
            },
            Err(payload) => {
                Assessment::unable(format!("assessor panicked: {}", panic_text(&*payload)))
            }
        };
        self.future = None;
        self.timer.stop();
        Poll::Ready(answer)
    }
}

/// What the timer says when polled.
enum TimerState {
    Pending,
    Fired,
    Failed(std::io::Error),
}

/// A deadline kept by a sleeping thread, started on the first poll.
struct Timer {
    timeout: Duration,
    shared: Option<Arc<TimerShared>>,
}

struct TimerShared {
    state: Mutex<TimerInner>,
    wakeup: Condvar,
}

struct TimerInner {
    fired: bool,
    stopped: bool,
    waker: Waker,
}

impl Timer {
    fn new(timeout: Duration) -> Timer {
        Timer {
            timeout,
            shared: None,
        }
    }

    fn poll_fired(&mut self, waker: &Waker) -> TimerState {
        if let Some(shared) = &self.shared {
            let mut inner = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
            if inner.fired {
                return TimerState::Fired;
            }
            inner.waker.clone_from(waker);
            return TimerState::Pending;
        }
        let deadline = Instant::now() + self.timeout;
        let shared = Arc::new(TimerShared {
            state: Mutex::new(TimerInner {
                fired: false,
                stopped: false,
                waker: waker.clone(),
            }),
            wakeup: Condvar::new(),
        });
        let for_thread = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name("cmdguard-assess-timer".to_owned())
            .spawn(move || run_timer(&for_thread, deadline));
        match spawned {
            Ok(_) => {
                self.shared = Some(shared);
                TimerState::Pending
            }
            Err(error) => TimerState::Failed(error),
        }
    }

    /// Lets the timer thread end now instead of at the deadline.
    fn stop(&mut self) {
        if let Some(shared) = self.shared.take() {
            let mut inner = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
            inner.stopped = true;
            shared.wakeup.notify_all();
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The timer thread: sleeps until the deadline (or until stopped), then wakes the task.
fn run_timer(shared: &TimerShared, deadline: Instant) {
    let mut inner = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if inner.stopped {
            return;
        }
        let now = Instant::now();
        if now >= deadline {
            inner.fired = true;
            inner.waker.wake_by_ref();
            return;
        }
        inner = shared
            .wakeup
            .wait_timeout(inner, deadline - now)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}
