//! The calls in flight on one server with the host connection each came from, and the
//! [`Handler`] that relays to those hosts what the server sends for them ([`crate::relay`]).
//!
//! Attribution: progress names its call (by the progress token rmcp gives the request), so it
//! always reaches the right host; log messages, sampling and elicitation requests name no call
//! (stdio has no way to), so they are relayed only while exactly one call is in flight on the
//! connection, and dropped (logs) or refused (requests) otherwise: never sent to a host that
//! did not make the call. A log message while no call is in flight is dropped too: the
//! connection is every session's, and what the server logs then (for a subscription, a timer,
//! another session's earlier request) belongs to no session carnet can name.
//!
//! Resource updates and list changes answer no call: they go to the host sessions of
//! [`Watchers`] (the ones subscribed to the resource; every one the server serves).
//!
//! rmcp runs each notification handler on a task of its own, which may run after the call's
//! response arrived: a relayed call waits, before it returns, until the notifications already
//! received for it went out (at most [`DRAIN_LIMIT`]), so a host reads a call's progress
//! before its result.

// MCP 2026-07-28 deprecates logging and sampling (SEP-2577); the 2025 revisions, which
// carnet relays, still have them.
#![expect(deprecated, reason = "logging and sampling of the 2025 revisions")]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorCode, Implementation, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ResourceUpdatedNotificationParam, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, Peer};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::subscriptions::Watchers;
use crate::relay::{self, Host};

/// The longest a relayed call's result waits for its notifications to go out.
const DRAIN_LIMIT: Duration = Duration::from_millis(200);

/// One call in flight and its host.
struct Call {
    host: Arc<dyn Host>,
    /// The progress token rmcp gave the request (as JSON), once it was sent.
    token: std::sync::OnceLock<String>,
    /// Notifications being relayed for it.
    relaying: AtomicUsize,
    idle: Notify,
}

/// A notification being relayed: counted while it is.
struct Relaying(Arc<Call>);

impl Relaying {
    fn new(call: Arc<Call>) -> Relaying {
        call.relaying.fetch_add(1, Ordering::AcqRel);
        Relaying(call)
    }
}

impl Drop for Relaying {
    fn drop(&mut self) {
        if self.0.relaying.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// The calls in flight on one server (each registered before its request is sent, and known
/// by the progress token rmcp gave the request once it was), and the host sessions its
/// notifications that answer no call go to.
#[derive(Default)]
pub(crate) struct Calls {
    in_flight: std::sync::Mutex<HashMap<u64, Arc<Call>>>,
    next: AtomicU64,
    /// Woken when a call learns its token.
    named: Notify,
    pub(super) watchers: Watchers,
}

/// How long a progress notification naming no known token waits for a call being sent to learn
/// its token (the server answered before the sender went on).
const NAMING_LIMIT: Duration = Duration::from_secs(1);

impl Calls {
    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Call>>> {
        self.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a call made by `host`, before its request is sent (what the server sends for
    /// it may arrive before the sender goes on): a guard that forgets it.
    fn enter(self: &Arc<Self>, host: Arc<dyn Host>) -> (Arc<Call>, CallGuard) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let call = Arc::new(Call {
            host,
            token: std::sync::OnceLock::new(),
            relaying: AtomicUsize::new(0),
            idle: Notify::new(),
        });
        self.in_flight().insert(id, Arc::clone(&call));
        (
            call,
            CallGuard {
                calls: Arc::clone(self),
                id,
            },
        )
    }

    /// Gives `call` the progress token rmcp gave its request.
    fn name(&self, call: &Call, token: &ProgressToken) {
        let _ = call.token.set(serde_json::to_string(token).unwrap_or_default());
        self.named.notify_waiters();
    }

    /// The call holding `token`.
    fn call_of(&self, token: &Value) -> Option<Arc<Call>> {
        let token = token.to_string();
        self.in_flight()
            .values()
            .find(|call| call.token.get() == Some(&token))
            .cloned()
    }

    /// The call holding `token`, waiting (at most [`NAMING_LIMIT`]) while calls being sent
    /// have not learnt theirs yet: a token no call holds is never guessed.
    async fn call_named(&self, token: &Value) -> Option<Arc<Call>> {
        let waited = async {
            loop {
                let named = self.named.notified();
                if let Some(call) = self.call_of(token) {
                    return Some(call);
                }
                if self.in_flight().values().all(|call| call.token.get().is_some()) {
                    return None;
                }
                named.await;
            }
        };
        tokio::time::timeout(NAMING_LIMIT, waited).await.ok().flatten()
    }

    /// The one call in flight, if exactly one is (else how many are).
    fn only_call(&self) -> Result<Arc<Call>, usize> {
        let calls = self.in_flight();
        match (calls.len(), calls.values().next()) {
            (1, Some(call)) => Ok(Arc::clone(call)),
            (n, _) => Err(n),
        }
    }
}

/// Forgets its call when dropped (the call ended, or was abandoned).
struct CallGuard {
    calls: Arc<Calls>,
    id: u64,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.calls.in_flight().remove(&self.id);
        // A progress notification waiting for this call's token waits no more.
        self.calls.named.notify_waiters();
    }
}

/// Calls `params` on `peer` for `host`, relaying to it what the server sends for the call.
pub(super) async fn call(
    calls: &Arc<Calls>,
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    host: Arc<dyn Host>,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let (call, _guard) = calls.enter(host);
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    // rmcp gave the request its progress token: the call's progress is known by it.
    calls.name(&call, &handle.progress_token);
    let response = handle.await_response().await;
    // Handlers of notifications received before the response may not have run yet.
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
    let drained = async {
        loop {
            let idle = call.idle.notified();
            if call.relaying.load(Ordering::Acquire) == 0 {
                break;
            }
            idle.await;
        }
    };
    let _ = tokio::time::timeout(DRAIN_LIMIT, drained).await;
    match response? {
        ServerResult::CallToolResult(result) => Ok(result),
        _ => Err(rmcp::ServiceError::UnexpectedResponse),
    }
}

/// Tells the connection its tool list changed upstream, and relays to the hosts of the calls
/// in flight what the server sends them.
#[derive(Clone)]
pub(crate) struct Handler {
    pub(super) stale: Arc<AtomicBool>,
    pub(super) calls: Arc<Calls>,
}

impl Handler {
    pub(crate) fn new(stale: Arc<AtomicBool>) -> Self {
        Handler {
            stale,
            calls: Arc::default(),
        }
    }

    /// Relays request `method` of the server to the host of the one call in flight, when it
    /// declared `capability`.
    async fn relay_request(&self, method: &'static str, capability: &str, params: Value) -> Result<Value, ErrorData> {
        let call = self.calls.only_call().map_err(|calls| {
            ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("carnet cannot tell which of its {calls} calls in flight this `{method}` belongs to"),
                None,
            )
        })?;
        if !call.host.declares(capability) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("the client did not declare the `{capability}` capability"),
                None,
            ));
        }
        call.host
            .request(method, params)
            .await
            .map_err(|e| ErrorData::new(ErrorCode(e.code), e.message, None))
    }
}

/// `value` as the rmcp type `T`, or an internal error naming `what`.
fn parsed<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| {
        ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!("the client's {what} cannot be read: {e}"),
            None,
        )
    })
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.stale.store(true, Ordering::Release);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Ok(params) = serde_json::to_value(params) {
            self.calls.watchers.updated(params).await;
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let method = "notifications/resources/list_changed";
        self.calls.watchers.list_changed(method).await;
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let method = "notifications/prompts/list_changed";
        self.calls.watchers.list_changed(method).await;
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let Ok(mut params) = serde_json::to_value(params) else {
            return;
        };
        let Some(call) = self.calls.call_named(&params["progressToken"]).await else {
            return;
        };
        let relaying = Relaying::new(call);
        // Under the host's own token, or not at all (it asked for none).
        let Some(token) = relaying.0.host.progress_token() else {
            return;
        };
        params["progressToken"] = token;
        relaying.0.host.notify("notifications/progress", params).await;
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Ok(params) = serde_json::to_value(params) else {
            return;
        };
        let Ok(call) = self.calls.only_call() else {
            return;
        };
        let relaying = Relaying::new(call);
        let rank = params["level"].as_str().and_then(relay::log_rank);
        if let (Some(rank), Some(wanted)) = (rank, relaying.0.host.log_level())
            && rank >= wanted
        {
            relaying.0.host.notify("notifications/message", params).await;
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(params).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let result = self.relay_request("sampling/createMessage", "sampling", params).await?;
        parsed(result, "sampling result")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(request).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let result = self.relay_request("elicitation/create", "elicitation", params).await?;
        parsed(result, "elicitation result")
    }

    fn get_info(&self) -> ClientConfig {
        // Sampling and elicitation are relayed to the host of the call that needs them, and
        // refused when that host did not declare them.
        let capabilities = serde_json::from_value(json!({ "sampling": {}, "elicitation": { "form": {}, "url": {} } }))
            .unwrap_or_default();
        ClientConfig::new(capabilities, Implementation::new("carnet", env!("CARGO_PKG_VERSION")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::BoxFuture;
    use crate::relay::RelayError;
    use rmcp::model::NumberOrString;

    /// A host that says who it is.
    struct Named(&'static str);

    impl Host for Named {
        fn progress_token(&self) -> Option<Value> {
            Some(json!(self.0))
        }
        fn declares(&self, _name: &str) -> bool {
            true
        }
        fn log_level(&self) -> Option<usize> {
            Some(0)
        }
        fn notify(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, ()> {
            Box::pin(async {})
        }
        fn request(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
            Box::pin(async { Ok(Value::Null) })
        }
    }

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    #[test]
    fn what_names_no_call_is_attributed_only_while_one_call_is_in_flight() {
        let calls = Arc::new(Calls::default());
        assert!(matches!(calls.only_call(), Err(0)));
        // Known from before its request is sent: a request of the server's that arrives
        // before the sender learnt the token is still the call's.
        let (call_a, a) = calls.enter(Arc::new(Named("a")));
        let only = calls.only_call().ok().map(|c| c.host.progress_token());
        assert_eq!(only, Some(Some(json!("a"))));
        calls.name(&call_a, &token(1));
        let (call_b, b) = calls.enter(Arc::new(Named("b")));
        calls.name(&call_b, &token(2));
        assert!(
            matches!(calls.only_call(), Err(2)),
            "two calls: a log or a request is nobody's"
        );
        // Progress names its call, whatever else is in flight.
        let of = |n: i64| calls.call_of(&json!(n)).map(|c| c.host.progress_token());
        assert_eq!(
            (of(1), of(2), of(3)),
            (Some(Some(json!("a"))), Some(Some(json!("b"))), None)
        );
        drop(a);
        assert_eq!(of(1), None, "an ended call is forgotten");
        let only = calls.only_call().ok().map(|c| c.host.progress_token());
        assert_eq!(only, Some(Some(json!("b"))));
        drop(b);
        assert!(matches!(calls.only_call(), Err(0)));
    }

    #[test]
    fn a_call_counts_the_notifications_being_relayed_for_it() {
        let calls = Arc::new(Calls::default());
        let (call, _guard) = calls.enter(Arc::new(Named("a")));
        let first = Relaying::new(Arc::clone(&call));
        let second = Relaying::new(Arc::clone(&call));
        assert_eq!(call.relaying.load(Ordering::Acquire), 2);
        drop(first);
        drop(second);
        assert_eq!(call.relaying.load(Ordering::Acquire), 0);
    }

    #[tokio::test]
    async fn progress_arriving_before_its_call_learnt_its_token_waits_for_it() {
        let calls = Arc::new(Calls::default());
        let (other, _other) = calls.enter(Arc::new(Named("b")));
        calls.name(&other, &token(1));
        // A token no call holds, while none is being sent: nobody's, at once.
        assert!(calls.call_named(&json!(9)).await.is_none());
        let (call, _guard) = calls.enter(Arc::new(Named("a")));
        let waiting = {
            let calls = Arc::clone(&calls);
            tokio::spawn(async move { calls.call_named(&json!(2)).await.map(|c| c.host.progress_token()) })
        };
        tokio::task::yield_now().await;
        calls.name(&call, &token(2));
        assert_eq!(waiting.await.unwrap(), Some(Some(json!("a"))));
        // A call being sent does not make a stranger's token its own.
        let (_pending, _pending_guard) = calls.enter(Arc::new(Named("c")));
        let started = std::time::Instant::now();
        assert!(calls.call_named(&json!(9)).await.is_none());
        assert!(started.elapsed() >= NAMING_LIMIT);
    }
}
