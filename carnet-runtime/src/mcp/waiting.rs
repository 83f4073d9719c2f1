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
//!   an [`Asking`] host: the host of the request being answered (progress and log messages go
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

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use super::handle::SessionKeys;
use super::messages::{self, InputRefused};
use super::rpc::RpcError;
use crate::dispatch::BoxFuture;
use crate::relay::{self, Host, RelayError};
use crate::{Session, SessionState, ToolOutput};

/// How long after a server's request for input its next one is still asked in the same
/// result (a server asking for several things at once sends them together).
const GATHER: Duration = Duration::from_millis(20);
/// The most requests one `input_required` result asks; the others wait for the next round.
const MAX_ASKED: usize = 16;
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

/// A server's request for input, waiting for the host's answer.
struct Ask {
    method: &'static str,
    params: Value,
    answer: oneshot::Sender<Result<Value, RelayError>>,
}

/// The host a waiting call sees: the host of the request being answered (each round has its
/// own), and where the server's requests go.
struct Asking {
    host: Mutex<Option<Arc<dyn Host>>>,
    asks: mpsc::Sender<Ask>,
}

impl Asking {
    fn host(&self) -> Option<Arc<dyn Host>> {
        self.host.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn answered_by(&self, host: Option<Arc<dyn Host>>) {
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
struct Aborting<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Aborting<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a call's task gives when it ends: the session it ran on, the session's state before
/// it (a changed state is sealed into the result), and its output.
pub(super) type Ended = (Session, SessionState, ToolOutput);

/// A call running on its own task, which may wait for its host's input; `T` what the task
/// gives when it ends.
pub(super) struct Running<T = Ended> {
    task: Aborting<T>,
    asks: mpsc::Receiver<Ask>,
    asking: Arc<Asking>,
    tool: String,
    /// The requests asked and not answered yet, by the name the host was given.
    asked: BTreeMap<String, Ask>,
    /// Requests asked so far (for their names).
    numbered: usize,
}

impl<T: Send + 'static> Running<T> {
    /// Starts `call`, the future of tool `tool`'s call, on a task of its own.
    pub(super) fn start<F>(tool: String, call: F) -> Running<T>
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
    fn ask(&mut self, ask: Ask) {
        self.numbered += 1;
        let kind = ask.method.split('/').next().unwrap_or(ask.method);
        self.asked.insert(format!("{kind}-{}", self.numbered), ask);
    }

    /// The next thing to happen: the call ends, the server asks, or the host cancels.
    async fn next(&mut self, cancelled: Pin<&mut impl Future<Output = ()>>) -> Next<T> {
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

enum Next<T> {
    Ended(Result<T, tokio::task::JoinError>),
    Asked(Ask),
    Cancelled,
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
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;

    /// A host of the stateless revision: it declared elicitation and sampling, and no request
    /// reaches it.
    struct Stateless;

    impl Host for Stateless {
        fn progress_token(&self) -> Option<Value> {
            None
        }
        fn declares(&self, _name: &str) -> bool {
            false
        }
        fn declared(&self, name: &str) -> bool {
            matches!(name, "elicitation" | "sampling")
        }
        fn log_level(&self) -> Option<usize> {
            None
        }
        fn notify(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, ()> {
            Box::pin(std::future::ready(()))
        }
        fn request(&self, method: &'static str, _params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
            panic!("`{method}` sent to a host of the stateless revision")
        }
    }

    /// Sets its flag when dropped (the call was stopped, or ended).
    struct Dropped(Arc<AtomicBool>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// A call that asks its host for a name, then for a completion, and gives both answers
    /// (or the errors); `dropped` is set when it stops.
    fn asking_twice(dropped: &Arc<AtomicBool>) -> impl Future<Output = Value> + Send + 'static {
        let guard = Dropped(Arc::clone(dropped));
        async move {
            let _guard = guard;
            let host = relay::current().expect("the call runs under a host");
            assert!(host.declares("elicitation") && host.declares("sampling") && !host.declares("roots"));
            let name = host
                .request("elicitation/create", json!({ "message": "Your name?" }))
                .await;
            let completion = host
                .request("sampling/createMessage", json!({ "messages": [], "maxTokens": 5 }))
                .await;
            let answer = |answer: Result<Value, RelayError>| answer.unwrap_or_else(|e| json!({ "refused": e.message }));
            json!([answer(name), answer(completion)])
        }
    }

    /// `future` run under the stateless host, as the MCP server runs a request.
    async fn hosted<F: Future>(future: F) -> F::Output {
        relay::HOST.scope(Arc::new(Stateless), future).await
    }

    fn waiting(limits: InputWait) -> Arc<Waiting<Value>> {
        Arc::new(Waiting::new(limits))
    }

    /// The `input_required` result of `round`.
    fn asked(round: Result<Round<Value>, RpcError>) -> Value {
        match round {
            Ok(Round::InputRequired(result)) => result,
            Ok(Round::Ended(value)) => panic!("ended with {value}"),
            Err(e) => panic!("refused: {e:?}"),
        }
    }

    fn state(result: &Value) -> &str {
        result["requestState"].as_str().expect("a request state")
    }

    fn refused<T>(resumed: Result<T, RpcError>) -> String {
        match resumed {
            Ok(_) => panic!("the retry was taken"),
            Err(e) => {
                assert_eq!(e.code, -32602, "{e:?}");
                e.message
            }
        }
    }

    /// Calls waiting under `limits`, and a call of `greet` ([`asking_twice`]) run until it
    /// asks: the keys, the calls, the flag set when the call stops, its first round's result.
    async fn first_round(limits: InputWait) -> (SessionKeys, Arc<Waiting<Value>>, Arc<AtomicBool>, Value) {
        let (keys, waiting) = (SessionKeys::random(), waiting(limits));
        let dropped = Arc::default();
        let running = hosted(async { Running::start("greet".to_owned(), asking_twice(&dropped)) }).await;
        let first = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
        (keys, waiting, dropped, first)
    }

    #[tokio::test]
    async fn a_call_asks_its_host_round_by_round_and_ends_with_the_answers() {
        let (keys, waiting, _, first) = first_round(InputWait::default()).await;
        assert_eq!(first["resultType"], "input_required");
        assert_eq!(
            first["inputRequests"],
            json!({ "elicitation-1": { "method": "elicitation/create", "params": { "message": "Your name?" } } })
        );
        assert!(state(&first).starts_with("cr1."), "{first}");

        let answer = json!({ "elicitation-1": { "action": "accept", "content": { "name": "Ada" } } });
        let running = waiting.resume(&keys, state(&first), "greet", Some(&answer)).unwrap();
        let second = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
        assert_eq!(
            second["inputRequests"]["sampling-2"]["method"],
            "sampling/createMessage"
        );
        assert_ne!(state(&first), state(&second), "each round has a state of its own");

        let answer = json!({ "sampling-2": { "role": "assistant", "content": { "type": "text", "text": "hi" } } });
        let running = waiting.resume(&keys, state(&second), "greet", Some(&answer)).unwrap();
        let Ok(Round::Ended(ended)) = hosted(waiting.round(&keys, running, std::future::pending())).await else {
            panic!("the call did not end");
        };
        assert_eq!(ended[0]["content"]["name"], "Ada");
        assert_eq!(ended[1]["content"]["text"], "hi");
        assert!(waiting.calls().is_empty(), "nothing waits once the call ended");
    }

    #[tokio::test]
    async fn retries_that_cannot_be_taken_are_refused_and_the_call_still_waits() {
        let (keys, waiting, dropped, first) = first_round(InputWait::default()).await;
        let state = state(&first);
        let answer = json!({ "elicitation-1": { "action": "accept", "content": { "name": "Ada" } } });

        let tampered = format!("{state}-TAMPERED");
        assert!(refused(waiting.resume(&keys, &tampered, "greet", Some(&answer))).contains("not one this server gave"));
        let other_key = SessionKeys::random();
        assert!(refused(waiting.resume(&other_key, state, "greet", Some(&answer))).contains("another key"));
        assert!(
            refused(waiting.resume(&keys, "cs1.x.y.z", "greet", Some(&answer))).contains("not one this server gave")
        );
        assert!(
            refused(waiting.resume(&keys, state, "farewell", Some(&answer)))
                .contains("a call of `greet`, not `farewell`")
        );
        assert!(refused(waiting.resume(&keys, state, "greet", Some(&json!([1])))).contains("must be an object"));
        let wrong = json!({ "elicitation-1": 12345 });
        assert!(
            refused(waiting.resume(&keys, state, "greet", Some(&wrong))).contains("`inputResponses.elicitation-1`")
        );
        let elsewhere = Waiting::<Value>::new(InputWait::default());
        assert!(refused(elsewhere.resume(&keys, state, "greet", Some(&answer))).contains("another process"));

        // Without the answer (another one instead): asked again, under a new state.
        let unrelated = json!({ "user_name": { "action": "accept" } });
        let running = waiting.resume(&keys, state, "greet", Some(&unrelated)).unwrap();
        let again = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
        assert_eq!(again["inputRequests"], first["inputRequests"]);
        assert!(refused(waiting.resume(&keys, state, "greet", Some(&answer))).contains("no call waits"));

        let running = waiting
            .resume(&keys, super::tests::state(&again), "greet", Some(&answer))
            .unwrap();
        let next = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
        assert!(next["inputRequests"].get("sampling-2").is_some(), "{next}");
        assert!(!dropped.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn beyond_its_limit_a_request_is_refused_and_the_call_goes_on() {
        let (keys, waiting) = (SessionKeys::random(), waiting(InputWait::default().with_max_calls(0)));
        let dropped = Arc::default();
        let running = hosted(async { Running::start("greet".to_owned(), asking_twice(&dropped)) }).await;
        let Ok(Round::Ended(ended)) = hosted(waiting.round(&keys, running, std::future::pending())).await else {
            panic!("the call waited beyond the limit");
        };
        let refusal = ended[0]["refused"].as_str().unwrap();
        assert!(refusal.contains("0 calls waiting"), "{refusal}");
        assert!(ended[1]["refused"].is_string());
    }

    #[tokio::test]
    async fn a_call_cancelled_or_given_up_is_stopped() {
        let keys = SessionKeys::random();
        let waiting = waiting(InputWait::default());
        let dropped = Arc::new(AtomicBool::new(false));
        let running = hosted(async { Running::start("greet".to_owned(), asking_twice(&dropped)) }).await;
        let cancelled = hosted(waiting.round(&keys, running, std::future::ready(()))).await;
        assert!(matches!(cancelled, Err(e) if e.message.contains("cancelled")));
        until(&dropped).await;

        let (keys, waiting, dropped, first) =
            first_round(InputWait::default().with_wait(Duration::from_millis(50))).await;
        until(&dropped).await;
        assert!(refused(waiting.resume(&keys, state(&first), "greet", None)).contains("given up after"));
    }

    /// Waits (5 s at most) until `flag` is set.
    async fn until(flag: &AtomicBool) {
        for _ in 0..500 {
            if flag.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the call was not stopped");
    }
}
