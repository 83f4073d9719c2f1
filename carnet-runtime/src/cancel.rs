//! The signal a tool receives when its call is abandoned.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll, Waker};

/// Fires when the call it belongs to is abandoned before it finished: the conversation's
/// future was dropped, a timeout ran out, or the MCP client sent `notifications/cancelled`
/// (carnet's MCP server drops the call's future then). An `async` tool is dropped at its next
/// `.await` anyway; the signal is for work a tool hands elsewhere (a spawned task, a thread,
/// a request to another service), which should stop when nobody will read its result.
///
/// Cloning shares the signal; [`Cancellation::cancelled`] is a `'static` future, so a
/// spawned task can wait on it.
///
/// # Examples
///
/// ```
/// use carnet_runtime::Cancellation;
///
/// let signal = Cancellation::new();
/// let seen = signal.clone();
/// assert!(!seen.is_cancelled());
/// signal.cancel();
/// assert!(seen.is_cancelled());
/// carnet_runtime::block_on(seen.cancelled()); // ready at once
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancellation(Arc<State>);

#[derive(Debug, Default)]
struct State {
    fired: AtomicBool,
    wakers: Mutex<Vec<Waker>>,
}

impl Cancellation {
    /// A signal that has not fired.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the call was abandoned.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.fired.load(Ordering::Acquire)
    }

    /// Fires the signal (the session does, when the call's future is dropped unfinished).
    pub fn cancel(&self) {
        self.0.fired.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut *self.0.wakers.lock().unwrap_or_else(PoisonError::into_inner));
        for waker in wakers {
            waker.wake();
        }
    }

    /// A future that completes when the signal fires.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }
}

/// The future of [`Cancellation::cancelled`].
#[derive(Debug)]
#[must_use = "a future does nothing unless polled"]
pub struct Cancelled(Cancellation);

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        let state = &(self.0).0;
        if state.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let mut wakers = state.wakers.lock().unwrap_or_else(PoisonError::into_inner);
        // Checked again under the lock: `cancel` takes the wakers under it after setting
        // the flag, so no wake-up is lost in between.
        if state.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
            wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// Fires its signal when dropped before [`CancelOnDrop::finish`]: held by a call's future.
pub(crate) struct CancelOnDrop {
    pub(crate) signal: Cancellation,
    finished: bool,
}

impl CancelOnDrop {
    pub(crate) fn new() -> Self {
        CancelOnDrop {
            signal: Cancellation::new(),
            finished: false,
        }
    }

    /// The call finished: dropping no longer cancels.
    pub(crate) fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.finished {
            self.signal.cancel();
        }
    }
}

/// `future`'s output, or `None` when `stop` completes first. `stop` is polled first, so work
/// that is always ready (a flood of connections) never keeps a stop from being seen. What
/// `tokio::select!` with `biased;` does for two branches, without compiling tokio's proc
/// macros in every build that has tokio.
#[cfg(any(feature = "mcp", feature = "remote"))]
pub(crate) async fn unless<T>(stop: impl Future, future: impl Future<Output = T>) -> Option<T> {
    let mut stop = std::pin::pin!(stop);
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| {
        if stop.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        future.as_mut().poll(cx).map(Some)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_an_unfinished_call_fires_a_finished_one_does_not() {
        let guard = CancelOnDrop::new();
        let signal = guard.signal.clone();
        drop(guard);
        assert!(signal.is_cancelled());
        let guard = CancelOnDrop::new();
        let signal = guard.signal.clone();
        guard.finish();
        assert!(!signal.is_cancelled());
    }

    #[test]
    fn a_waiting_thread_wakes() {
        let signal = Cancellation::new();
        let waiting = signal.cancelled();
        let thread = std::thread::spawn(move || crate::block_on(waiting));
        std::thread::sleep(std::time::Duration::from_millis(20));
        signal.cancel();
        thread.join().unwrap();
    }
}
