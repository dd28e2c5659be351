//! tool/exec.rs: the few async pieces the tool layer needs — a boxed future type, a wrapper that
//! turns a panic while polling into a value, a join over many futures and a blocking executor.
//! It never knows what a tool is; it only drives futures.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// A boxed, `Send` future, the return type of type-erased tool handlers.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Polls `future`, turning a panic inside `poll` into `Err(message)`.
///
/// `AssertUnwindSafe` is sound here because a panicking future is dropped right after and never
/// polled again, so no broken invariant inside it can be observed.
pub(crate) async fn catch_panic<T>(future: BoxFuture<'_, T>) -> Result<T, String> {
    CatchPanic {
        future: Some(future),
    }
    .await
}

struct CatchPanic<'a, T> {
    future: Option<BoxFuture<'a, T>>,
}

impl<T> Future for CatchPanic<'_, T> {
    type Output = Result<T, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(future) = self.future.as_mut() else {
            return Poll::Ready(Err("future polled after completion".to_owned()));
        };
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
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

/// Runs all `futures` concurrently and returns their outputs in input order.
pub(crate) async fn join_all<'a, T: Send + 'a>(futures: Vec<BoxFuture<'a, T>>) -> Vec<T> {
    JoinAll {
        slots: futures.into_iter().map(Slot::Pending).collect(),
    }
    .await
}

enum Slot<'a, T> {
    Pending(BoxFuture<'a, T>),
    Done(T),
    Taken,
}

struct JoinAll<'a, T> {
    slots: Vec<Slot<'a, T>>,
}

// Every field is a boxed (so already pinned) future or a plain value, never self-referential.
impl<T> Unpin for JoinAll<'_, T> {}

impl<T> Future for JoinAll<'_, T> {
    type Output = Vec<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut all_done = true;
        for slot in &mut self.slots {
            if let Slot::Pending(future) = slot {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *slot = Slot::Done(value),
                    Poll::Pending => all_done = false,
                }
            }
        }
        if !all_done {
            return Poll::Pending;
        }
        let outputs = self
            .slots
            .iter_mut()
            .filter_map(|slot| match std::mem::replace(slot, Slot::Taken) {
                Slot::Done(value) => Some(value),
                Slot::Pending(_) | Slot::Taken => None,
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
        assert_eq!(block_on(join_all(futures)), vec![1, 2, 3]);
    }

    #[test]
    fn catch_panic_turns_a_panic_while_polling_into_its_message() {
        let future: BoxFuture<'_, u32> = Box::pin(async {
            YieldTimes(2, 0).await;
            panic!("boom after yielding")
        });
        assert_eq!(
            block_on(catch_panic(future)),
            Err("boom after yielding".to_owned())
        );
        let formatted: BoxFuture<'_, u32> = Box::pin(async { panic!("code {}", 7) });
        assert_eq!(block_on(catch_panic(formatted)), Err("code 7".to_owned()));
    }

    #[test]
    fn catch_panic_passes_values_through() {
        let future: BoxFuture<'_, u32> = Box::pin(YieldTimes(2, 9));
        assert_eq!(block_on(catch_panic(future)), Ok(9));
    }
}
