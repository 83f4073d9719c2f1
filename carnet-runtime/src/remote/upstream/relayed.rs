//! The calls in flight on one server with the host connection each came from, and the
//! [`Handler`] that relays to those hosts what the server sends for them ([`crate::relay`]).
//!
//! Attribution: progress names its call (by the progress token rmcp gives the request), so it
//! always reaches the right host; log messages, sampling and elicitation requests name no call
//! (stdio has no way to), so they are relayed only while exactly one call is in flight on the
//! connection, and dropped (logs) or refused (requests) otherwise: never sent to a host that
//! did not make the call.
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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorCode, Implementation, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, Peer};
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::relay::{self, Host};

/// The longest a relayed call's result waits for its notifications to go out.
const DRAIN_LIMIT: Duration = Duration::from_millis(200);

/// One call in flight and its host.
struct Call {
    host: Arc<dyn Host>,
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

/// The calls in flight on one server, by the progress token rmcp gave each request (as JSON).
#[derive(Default)]
pub(crate) struct Calls {
    calls: std::sync::Mutex<HashMap<String, Arc<Call>>>,
}

impl Calls {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Call>>> {
        self.calls.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a call made by `host` under its `token` upstream: a guard that forgets it.
    fn enter(self: &Arc<Self>, token: &ProgressToken, host: Arc<dyn Host>) -> (Arc<Call>, CallGuard) {
        let token = serde_json::to_string(token).unwrap_or_default();
        let call = Arc::new(Call {
            host,
            relaying: AtomicUsize::new(0),
            idle: Notify::new(),
        });
        self.calls().insert(token.clone(), Arc::clone(&call));
        (
            call,
            CallGuard {
                calls: Arc::clone(self),
                token,
            },
        )
    }

    /// The call holding `token`.
    fn call_of(&self, token: &Value) -> Option<Arc<Call>> {
        self.calls().get(&token.to_string()).cloned()
    }

    /// The one call in flight, if exactly one is (else how many are).
    fn only_call(&self) -> Result<Arc<Call>, usize> {
        let calls = self.calls();
        match (calls.len(), calls.values().next()) {
            (1, Some(call)) => Ok(Arc::clone(call)),
            (n, _) => Err(n),
        }
    }
}

/// Forgets its call when dropped (the call ended, or was abandoned).
struct CallGuard {
    calls: Arc<Calls>,
    token: String,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.calls.calls().remove(&self.token);
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
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    // rmcp gives the request its progress token: the call is known by it.
    let (call, _guard) = calls.enter(&handle.progress_token, host);
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

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let Ok(mut params) = serde_json::to_value(params) else {
            return;
        };
        let Some(call) = self.calls.call_of(&params["progressToken"]) else {
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
        let (_, a) = calls.enter(&token(1), Arc::new(Named("a")));
        let only = calls.only_call().ok().map(|c| c.host.progress_token());
        assert_eq!(only, Some(Some(json!("a"))));
        let (_, b) = calls.enter(&token(2), Arc::new(Named("b")));
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
        let (call, _guard) = calls.enter(&token(7), Arc::new(Named("a")));
        let first = Relaying::new(Arc::clone(&call));
        let second = Relaying::new(Arc::clone(&call));
        assert_eq!(call.relaying.load(Ordering::Acquire), 2);
        drop(first);
        drop(second);
        assert_eq!(call.relaying.load(Ordering::Acquire), 0);
    }
}
