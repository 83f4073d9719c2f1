//! Calls of the stateless revision (`2026-07-28`) waiting for their host's input: the
//! gateway's side of multi round-trip requests (SEP-2322, `input_required` results).
//!
//! A remote tool's server of the 2025 revisions asks for input in the middle of a call
//! (`elicitation/create`, `sampling/createMessage`) on the connection carnet holds open to
//! it. A host of the stateless revision cannot be sent a request; it is asked instead with an
//! `input_required` result holding what the server asked, and calls the tool again with its
//! answers (`inputResponses`) and the result's `requestState`. Meanwhile the call waits here,
//! still running, the server's request unanswered:
//!
//! - a call of a server that passes remote toolsets through runs on a task of its own, under
//!   an [`Asking`](running::Asking) host: the host of the request being answered (progress and log messages go
//!   to it), and the channel the server's requests for input go to when that host declared the
//!   capability (in the request's `_meta`);
//! - each request is named by its kind and a number of the call (`elicitation-1`,
//!   `sampling-2`); requests the server sends together (the next within [`GATHER`] of the
//!   last, [`MAX_ASKED`] at most) are asked in one result;
//! - `requestState` is sealed with the server's session keys (`cr1.`, the format of
//!   [`super::handle`]) and names the waiting call, its tool, this process and an expiry. A
//!   state that was altered is refused (`-32602`), and so is one whose call no longer waits
//!   (answered, or given up after [`InputWait::wait`]) or waits in another process: a retry
//!   must reach the replica that answered the round before it;
//! - a retry without the answer to a request is asked it again (a new `input_required`
//!   result); an answer that is not an object is refused (`-32602`); answers to requests not
//!   asked are ignored;
//! - at most [`InputWait::max_calls`] calls wait at once: beyond, the server's request is
//!   refused, as a host without the capability refuses it, and the call goes on.
//!
//! A call the host cancels while it runs is stopped (the server's call cancelled); a call
//! given up while it waits is stopped the same way.

mod running;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::handle::SessionKeys;
use super::messages::{self, InputRefused};
use super::rpc::RpcError;
use crate::relay::{self, RelayError};
pub(super) use running::{Ended, Running};
use running::{MAX_ASKED, Next};

/// How long after a server's request for input its next one is still asked in the same
/// result (a server asking for several things at once sends them together).
const GATHER: Duration = Duration::from_millis(20);
/// The version of a sealed `requestState` ([`SessionKeys::seal_bytes`]).
const STATE_VERSION: &str = "cr1";

/// How many calls of the stateless revision may wait for their host's input at once, and for
/// how long, set with [`Server::input_wait`](super::Server::input_wait).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use carnet_runtime::mcp::InputWait;
///
/// let wait = InputWait::default().with_max_calls(100).with_wait(Duration::from_secs(120));
/// assert_eq!(wait.max_calls, 100);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct InputWait {
    /// Calls waiting at once (default 1,000); a server's request beyond it is refused.
    pub max_calls: usize,
    /// How long a call waits for the host's answers (default 10 minutes, a person may be
    /// answering); then it is stopped, and its `requestState` refused.
    pub wait: Duration,
}

impl Default for InputWait {
    fn default() -> Self {
        InputWait {
            max_calls: 1_000,
            wait: Duration::from_mins(10),
        }
    }
}

impl InputWait {
    /// Sets [`InputWait::max_calls`].
    #[must_use]
    pub fn with_max_calls(mut self, max_calls: usize) -> Self {
        self.max_calls = max_calls;
        self
    }

    /// Sets [`InputWait::wait`].
    #[must_use]
    pub fn with_wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }
}

/// How a round of a call ends.
pub(super) enum Round<T = Ended> {
    /// The call ended, giving this.
    Ended(T),
    /// The call waits for the host's input: the `input_required` result asking for it.
    InputRequired(Value),
}

/// What [`Waiting::park`] seals into a `requestState`.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The process the call waits in.
    process: String,
    /// The waiting call, in that process.
    call: u64,
    tool: String,
    /// When the call stops waiting, in UNIX milliseconds.
    exp: u64,
}

fn millis(since_epoch: Duration) -> u64 {
    u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX)
}

/// The calls of one server waiting for their host's input.
pub(super) struct Waiting<T = Ended> {
    calls: Mutex<HashMap<u64, Running<T>>>,
    next: AtomicU64,
    /// This process, for a state brought to another replica.
    process: String,
    limits: InputWait,
}

impl<T: Send + 'static> Waiting<T> {
    pub(super) fn new(limits: InputWait) -> Waiting<T> {
        let mut process = [0u8; 8];
        getrandom::fill(&mut process).expect("the operating system gives random bytes");
        Waiting {
            calls: Mutex::default(),
            next: AtomicU64::new(1),
            process: format!("{:016x}", u64::from_le_bytes(process)),
            limits,
        }
    }

    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Running<T>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `running` for the request being answered, until the call ends or waits for the
    /// host's input (its requests unanswered after a retry first). `cancelled` completes when
    /// the host cancels the request: the call is stopped.
    pub(super) async fn round(
        self: &Arc<Self>,
        keys: &SessionKeys,
        mut running: Running<T>,
        cancelled: impl Future<Output = ()>,
    ) -> Result<Round<T>, RpcError> {
        running.asking.answered_by(relay::current());
        let mut cancelled = std::pin::pin!(cancelled);
        while running.asked.is_empty() {
            match running.next(cancelled.as_mut()).await {
                Next::Ended(Ok(ended)) => return Ok(Round::Ended(ended)),
                Next::Ended(Err(_)) => return Err(messages::call_stopped(&running.tool)),
                Next::Cancelled => return Err(messages::cancelled(&running.tool)),
                Next::Asked(ask) => {
                    running.ask(ask);
                    while running.asked.len() < MAX_ASKED {
                        match tokio::time::timeout(GATHER, running.asks.recv()).await {
                            Ok(Some(ask)) => running.ask(ask),
                            _ => break,
                        }
                    }
                    if self.calls().len() >= self.limits.max_calls {
                        let message = messages::too_many_waiting(self.limits.max_calls);
                        for (_, ask) in std::mem::take(&mut running.asked) {
                            let _ = ask.answer.send(Err(RelayError {
                                code: relay::INTERNAL_ERROR,
                                message: message.clone(),
                            }));
                        }
                    }
                }
            }
        }
        Ok(Round::InputRequired(self.park(keys, running)))
    }

    /// Keeps `running` until its host answers: the `input_required` result asking for its
    /// unanswered requests, whose `requestState` names it.
    fn park(self: &Arc<Self>, keys: &SessionKeys, running: Running<T>) -> Value {
        let call = self.next.fetch_add(1, Ordering::Relaxed);
        let exp = SystemTime::now()
            .checked_add(self.limits.wait)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(u64::MAX, millis);
        let sealed = Sealed {
            process: self.process.clone(),
            call,
            tool: running.tool.clone(),
            exp,
        };
        let state = keys.seal_bytes(
            STATE_VERSION,
            &serde_json::to_vec(&sealed).expect("a request state serializes"),
        );
        let requests: Map<String, Value> = running
            .asked
            .iter()
            .map(|(key, ask)| (key.clone(), json!({ "method": ask.method, "params": ask.params })))
            .collect();
        self.calls().insert(call, running);
        let waiting = Arc::downgrade(self);
        let wait = self.limits.wait;
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            // Given up: dropping it stops the call.
            let given_up = waiting.upgrade().and_then(|waiting| waiting.calls().remove(&call));
            drop(given_up);
        });
        json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
        })
    }

    /// The call `state` names, for a retry of tool `tool` bringing the host's `responses`
    /// (`inputResponses`): each answered request answered (the others asked again by
    /// [`Waiting::round`]).
    pub(super) fn resume(
        &self,
        keys: &SessionKeys,
        state: &str,
        tool: &str,
        responses: Option<&Value>,
    ) -> Result<Running<T>, RpcError> {
        let refused = |why: InputRefused<'_>| messages::input_refused(&why);
        let payload = keys
            .open_bytes(STATE_VERSION, state)
            .map_err(|_| refused(InputRefused::NotOurs))?;
        let sealed: Sealed = serde_json::from_slice(&payload).map_err(|_| refused(InputRefused::NotOurs))?;
        if sealed.process != self.process {
            return Err(refused(InputRefused::Elsewhere));
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, millis);
        if now >= sealed.exp {
            return Err(refused(InputRefused::GivenUp(self.limits.wait)));
        }
        if sealed.tool != tool {
            return Err(refused(InputRefused::OtherTool {
                waiting: &sealed.tool,
                called: tool,
            }));
        }
        let none = Map::new();
        let responses = match responses {
            None | Some(Value::Null) => &none,
            Some(Value::Object(responses)) => responses,
            Some(_) => return Err(refused(InputRefused::Responses)),
        };
        let mut running = self
            .calls()
            .remove(&sealed.call)
            .ok_or_else(|| refused(InputRefused::NotWaiting))?;
        let wrong = running
            .asked
            .keys()
            .find(|key| responses.get(*key).is_some_and(|answer| !answer.is_object()))
            .cloned();
        if let Some(key) = wrong {
            self.calls().insert(sealed.call, running);
            return Err(refused(InputRefused::Response(&key)));
        }
        for (key, answer) in responses {
            if let Some(ask) = running.asked.remove(key) {
                let _ = ask.answer.send(Ok(answer.clone()));
            }
        }
        Ok(running)
    }
}

#[cfg(test)]
mod tests;
