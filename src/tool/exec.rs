//! tool/exec.rs: the few async pieces the tool layer needs — a boxed future type, a wrapper that
//! turns a panic while polling into a value (and keeps the panic hook quiet about it), a join
//! over many futures with a cap on how many run at once, and a blocking executor. It never knows
//! what a tool is; it only drives futures.

use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// A boxed, `Send` future, the return type of type-erased tool handlers.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What happens to the report of a panic inside a tool, besides the [`CallError::Failed`] the
/// call returns (see [`ToolBox::panic_output`]).
///
/// [`CallError::Failed`]: crate::tool::CallError::Failed
/// [`ToolBox::panic_output`]: crate::tool::ToolBox::panic_output
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PanicOutput {
    /// The panic is only returned as an error; nothing is printed. The default: a caught panic
    /// is an ordinary tool failure, and the default hook's message and backtrace on stderr
    /// would only clutter the runtime's output.
    #[default]
    Captured,
    /// The panic also goes to the process's panic hook, which by default prints it (and a
    /// backtrace when `RUST_BACKTRACE` asks) to stderr.
    PanicHook,
}

thread_local! {
    /// Whether a panic on this thread happens while a tool is polled with
    /// [`PanicOutput::Captured`].
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
}

/// Installs, once per process, a panic hook that stays silent for panics of tools polled with
/// [`PanicOutput::Captured`] and hands every other panic to the hook that was there before.
fn install_quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Polls `future`, turning a panic inside `poll` into `Err(message)`; `output` decides whether
/// the panic hook also sees it.
///
/// `AssertUnwindSafe` is sound here because a panicking future is dropped right after and never
/// polled again, so no broken invariant inside it can be observed.
pub(crate) async fn catch_panic<T>(
    future: BoxFuture<'_, T>,
    output: PanicOutput,
) -> Result<T, String> {
    if output == PanicOutput::Captured {
        install_quiet_hook();
    }
    CatchPanic {
        future: Some(future),
        output,
    }
    .await
}

struct CatchPanic<'a, T> {
    future: Option<BoxFuture<'a, T>>,
    output: PanicOutput,
}

impl<T> Future for CatchPanic<'_, T> {
    type Output = Result<T, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let capturing = self.output == PanicOutput::Captured;
        let Some(future) = self.future.as_mut() else {
            return Poll::Ready(Err("future polled after completion".to_owned()));
        };
        // Nested calls (a tool calling another) restore the outer state afterwards.
        let outer = CAPTURING.with(|flag| flag.replace(capturing));
        let polled = catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)));
        CAPTURING.with(|flag| flag.set(outer));
        match polled {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => {
                self.future = None;
                Poll::Ready(Ok(value))
            }
            Err(payload) => {
                self.future = None;
                Poll::Ready(Err(panic_message(payload.as_ref())))
            }
        }
    }
}

/// The text a panic carried: `panic!("…")` payloads are `&str` or `String`.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}

/// Runs `futures` concurrently, at most `limit` at a time (at least one), and returns their
/// outputs in input order. A future starts when an earlier one finishes and frees its place.
pub(crate) async fn join_limited<'a, T: Send + 'a>(
    futures: Vec<BoxFuture<'a, T>>,
    limit: usize,
) -> Vec<T> {
    JoinLimited {
        slots: futures.into_iter().map(Slot::Waiting).collect(),
        limit: limit.max(1),
    }
    .await
}

enum Slot<'a, T> {
    /// Not started: it waits for a free place.
    Waiting(BoxFuture<'a, T>),
    Running(BoxFuture<'a, T>),
    Done(T),
    Taken,
}

struct JoinLimited<'a, T> {
    slots: Vec<Slot<'a, T>>,
    limit: usize,
}

// Every field is a boxed (so already pinned) future or a plain value, never self-referential.
impl<T> Unpin for JoinLimited<'_, T> {}

impl<T> Future for JoinLimited<'_, T> {
    type Output = Vec<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let limit = self.limit;
        loop {
            let mut running = 0;
            for slot in &mut self.slots {
                if let Slot::Running(future) = slot {
                    match future.as_mut().poll(cx) {
                        Poll::Ready(value) => *slot = Slot::Done(value),
                        Poll::Pending => running += 1,
                    }
                }
            }
            // Start waiting futures in order while there is room; poll again when any started.
            let mut started = false;
            for slot in &mut self.slots {
                if running >= limit {
                    break;
                }
                if matches!(slot, Slot::Waiting(_))
                    && let Slot::Waiting(future) = std::mem::replace(slot, Slot::Taken)
                {
                    *slot = Slot::Running(future);
                    running += 1;
                    started = true;
                }
            }
            if started {
                continue;
            }
            if running > 0 {
                return Poll::Pending;
            }
            break;
        }
        let outputs = self
            .slots
            .iter_mut()
            .filter_map(|slot| match std::mem::replace(slot, Slot::Taken) {
                Slot::Done(value) => Some(value),
                Slot::Waiting(_) | Slot::Running(_) | Slot::Taken => None,
            })
            .collect();
        Poll::Ready(outputs)
    }
}

/// Wakes the thread that is blocked in [`block_on`].
struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Drives `future` to completion on the current thread, parking while it is pending.
///
/// This is enough for tools that do not depend on a particular async runtime; a tool that needs
/// tokio's reactor must be called from inside tokio with the async API instead.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return value,
            Poll::Pending => thread::park(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A future that is pending a given number of times before it is ready, waking itself each
    /// time, so the executors' pending paths are exercised.
    struct YieldTimes(u32, u32);

    impl Future for YieldTimes {
        type Output = u32;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            if self.0 == 0 {
                Poll::Ready(self.1)
            } else {
                self.0 -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    #[test]
    fn join_all_keeps_input_order_when_futures_finish_out_of_order() {
        let futures: Vec<BoxFuture<'_, u32>> = vec![
            Box::pin(YieldTimes(3, 1)),
            Box::pin(YieldTimes(0, 2)),
            Box::pin(YieldTimes(1, 3)),
        ];
        assert_eq!(block_on(join_limited(futures, 8)), vec![1, 2, 3]);
    }

    #[test]
    fn join_limited_runs_at_most_limit_futures_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};

        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let futures: Vec<BoxFuture<'_, u32>> = (0..10)
            .map(|n| {
                let (running, most) = (running.clone(), most.clone());
                let future: BoxFuture<'_, u32> = Box::pin(async move {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    YieldTimes(3, 0).await;
                    running.fetch_sub(1, Ordering::SeqCst);
                    n
                });
                future
            })
            .collect();
        assert_eq!(
            block_on(join_limited(futures, 4)),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(most.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn catch_panic_turns_a_panic_while_polling_into_its_message() {
        let future: BoxFuture<'_, u32> = Box::pin(async {
            YieldTimes(2, 0).await;
            panic!("boom after yielding")
        });
        assert_eq!(
            block_on(catch_panic(future, PanicOutput::Captured)),
            Err("boom after yielding".to_owned())
        );
        let formatted: BoxFuture<'_, u32> = Box::pin(async { panic!("code {}", 7) });
        assert_eq!(
            block_on(catch_panic(formatted, PanicOutput::Captured)),
            Err("code 7".to_owned())
        );
    }

    #[test]
    fn catch_panic_passes_values_through() {
        let future: BoxFuture<'_, u32> = Box::pin(YieldTimes(2, 9));
        assert_eq!(block_on(catch_panic(future, PanicOutput::Captured)), Ok(9));
    }
}
