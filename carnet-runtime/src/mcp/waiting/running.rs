//! A call running on a task of its own, and the host it sees: where its server's requests
//! for input go until the client answers them ([`super::Waiting`]).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::dispatch::BoxFuture;
use crate::relay::{self, Host, RelayError};
use crate::{Session, SessionState, ToolOutput};

/// The most requests one `input_required` result asks; the others wait for the next round.
pub(super) const MAX_ASKED: usize = 16;

/// A server's request for input, waiting for the host's answer.
pub(super) struct Ask {
    pub(super) method: &'static str,
    pub(super) params: Value,
    pub(super) answer: oneshot::Sender<Result<Value, RelayError>>,
}

/// The host a waiting call sees: the host of the request being answered (each round has its
/// own), and where the server's requests go.
pub(super) struct Asking {
    host: Mutex<Option<Arc<dyn Host>>>,
    asks: mpsc::Sender<Ask>,
}

impl Asking {
    fn host(&self) -> Option<Arc<dyn Host>> {
        self.host.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub(super) fn answered_by(&self, host: Option<Arc<dyn Host>>) {
        *self.host.lock().unwrap_or_else(PoisonError::into_inner) = host;
    }
}

/// The host went away, or the call stopped waiting, before an answer came.
fn unanswered() -> RelayError {
    RelayError {
        code: relay::INTERNAL_ERROR,
        message: "the client gave no answer: the call waiting for it was given up".to_owned(),
    }
}

impl Host for Asking {
    fn progress_token(&self) -> Option<Value> {
        self.host()?.progress_token()
    }

    fn declares(&self, name: &str) -> bool {
        self.declared(name)
    }

    fn declared(&self, name: &str) -> bool {
        self.host().is_some_and(|host| host.declared(name))
    }

    fn log_level(&self) -> Option<usize> {
        self.host()?.log_level()
    }

    fn notify(&self, method: &'static str, params: Value) -> BoxFuture<'static, ()> {
        match self.host() {
            Some(host) => host.notify(method, params),
            None => Box::pin(std::future::ready(())),
        }
    }

    fn request(&self, method: &'static str, params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        let asks = self.asks.clone();
        Box::pin(async move {
            let (answer, answered) = oneshot::channel();
            asks.send(Ask { method, params, answer })
                .await
                .map_err(|_| unanswered())?;
            answered.await.unwrap_or_else(|_| Err(unanswered()))
        })
    }

    fn relays(&self) -> bool {
        true
    }
}

/// A task's handle that stops the task when dropped.
pub(super) struct Aborting<T>(pub(super) tokio::task::JoinHandle<T>);

impl<T> Drop for Aborting<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a call's task gives when it ends: the session it ran on, the session's state before
/// it (a changed state is sealed into the result), and its output.
pub(in crate::mcp) type Ended = (Session, SessionState, ToolOutput);

/// A call running on its own task, which may wait for its host's input; `T` what the task
/// gives when it ends.
pub(in crate::mcp) struct Running<T = Ended> {
    pub(super) task: Aborting<T>,
    pub(super) asks: mpsc::Receiver<Ask>,
    pub(super) asking: Arc<Asking>,
    pub(super) tool: String,
    /// The requests asked and not answered yet, by the name the host was given.
    pub(super) asked: BTreeMap<String, Ask>,
    /// Requests asked so far (for their names).
    numbered: usize,
}

impl<T: Send + 'static> Running<T> {
    /// Starts `call`, the future of tool `tool`'s call, on a task of its own.
    pub(in crate::mcp) fn start<F>(tool: String, call: F) -> Running<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        let (sender, asks) = mpsc::channel(MAX_ASKED);
        let asking = Arc::new(Asking {
            host: Mutex::new(relay::current()),
            asks: sender,
        });
        let host: Arc<dyn Host> = Arc::clone(&asking) as Arc<dyn Host>;
        let task = tokio::spawn(relay::HOST.scope(host, call));
        Running {
            task: Aborting(task),
            asks,
            asking,
            tool,
            asked: BTreeMap::new(),
            numbered: 0,
        }
    }

    /// Names `ask` and keeps it until answered.
    pub(super) fn ask(&mut self, ask: Ask) {
        self.numbered += 1;
        let kind = ask.method.split('/').next().unwrap_or(ask.method);
        self.asked.insert(format!("{kind}-{}", self.numbered), ask);
    }

    /// The next thing to happen: the call ends, the server asks, or the host cancels.
    pub(super) async fn next(&mut self, cancelled: Pin<&mut impl Future<Output = ()>>) -> Next<T> {
        let mut cancelled = cancelled;
        std::future::poll_fn(|cx| {
            if let Poll::Ready(ended) = Pin::new(&mut self.task.0).poll(cx) {
                return Poll::Ready(Next::Ended(ended));
            }
            if let Poll::Ready(Some(ask)) = self.asks.poll_recv(cx) {
                return Poll::Ready(Next::Asked(ask));
            }
            if cancelled.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Next::Cancelled);
            }
            Poll::Pending
        })
        .await
    }
}

pub(super) enum Next<T> {
    Ended(Result<T, tokio::task::JoinError>),
    Asked(Ask),
    Cancelled,
}
