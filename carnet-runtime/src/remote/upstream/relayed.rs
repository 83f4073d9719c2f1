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
//! Sampling and elicitation requests the host of the call does not take (it declared no such
//! capability, or no host made the call: a program's own loop) go to the program's handler
//! ([`RemoteOptions::on_elicitation`](crate::RemoteOptions::on_elicitation)), if it gave one,
//! and are refused otherwise. What the client declares follows ([`Answers`]): a capability
//! only when something can answer it.
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
    ProgressNotificationParam, ProgressToken, RequestId, ResourceUpdatedNotificationParam, ServerResult,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, Peer};
use serde_json::Value;
use tokio::sync::Notify;

use super::answers::Answers;
use super::subscriptions::Watchers;
use crate::relay::{self, Host};

/// The longest a relayed call's result waits for its notifications to go out.
const DRAIN_LIMIT: Duration = Duration::from_millis(200);

/// One call in flight and its host.
struct Call {
    host: Arc<dyn Host>,
    /// The progress token rmcp gave the request (as JSON), once it was sent.
    token: std::sync::OnceLock<String>,
    /// The request's JSON-RPC id, once it was sent: a server over streamable HTTP sends its
    /// requests for the call on the call's own response stream, which rmcp names by it.
    request: std::sync::OnceLock<RequestId>,
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
            request: std::sync::OnceLock::new(),
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

    /// Gives `call` the progress token and the id rmcp gave its request.
    fn name(&self, call: &Call, token: &ProgressToken, request: &RequestId) {
        let _ = call.token.set(serde_json::to_string(token).unwrap_or_default());
        let _ = call.request.set(request.clone());
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
        self.call_learnt(|calls| calls.call_of(token)).await
    }

    /// The call whose request has the JSON-RPC id `request`, waiting as [`Calls::call_named`].
    async fn call_sent_as(&self, request: &RequestId) -> Option<Arc<Call>> {
        self.call_learnt(|calls| {
            calls
                .in_flight()
                .values()
                .find(|call| call.request.get() == Some(request))
                .cloned()
        })
        .await
    }

    /// The call `find` finds, waiting (at most [`NAMING_LIMIT`]) while calls being sent have
    /// not learnt their progress token and id yet.
    async fn call_learnt(&self, find: impl Fn(&Self) -> Option<Arc<Call>>) -> Option<Arc<Call>> {
        let waited = async {
            loop {
                let named = self.named.notified();
                if let Some(call) = find(self) {
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
    match send(calls, peer, request, host).await? {
        ServerResult::CallToolResult(result) => Ok(result),
        _ => Err(rmcp::ServiceError::UnexpectedResponse),
    }
}

/// Sends `request` to `peer` for `host` as a call in flight, relaying to `host` what the server
/// sends for it: the server's answer, once the notifications received for it went out.
pub(super) async fn send(
    calls: &Arc<Calls>,
    peer: &Peer<RoleClient>,
    request: ClientRequest,
    host: Arc<dyn Host>,
) -> Result<ServerResult, rmcp::ServiceError> {
    let (call, _guard) = calls.enter(host);
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    // rmcp gave the request its progress token: the call's progress is known by it.
    calls.name(&call, &handle.progress_token, &handle.id);
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
    response
}

/// Tells the connection its tool list changed upstream, relays to the hosts of the calls in
/// flight what the server sends them, and answers the rest as [`Answers`] says.
#[derive(Clone)]
pub(crate) struct Handler {
    pub(super) stale: Arc<AtomicBool>,
    pub(super) calls: Arc<Calls>,
    pub(super) answers: Answers,
}

impl Handler {
    /// A handler of a connection with no call of its own (a pin's), declaring what `answers`
    /// can answer.
    pub(crate) fn new(stale: Arc<AtomicBool>, answers: Answers) -> Self {
        Handler {
            stale,
            calls: Arc::default(),
            answers,
        }
    }

    /// Answers request `method` of the server, which came on the stream `origin` names (over
    /// streamable HTTP): relayed to the host of its call (the call whose response stream
    /// carried it, else the one call in flight) when it declared `capability`, else the
    /// program's handler's answer, else refused.
    async fn answer(
        &self,
        method: &'static str,
        capability: &str,
        params: Value,
        origin: Option<&InboundStreamOrigin>,
    ) -> Result<Value, ErrorData> {
        let call = match origin {
            Some(InboundStreamOrigin::OutboundRequest(request)) => match self.calls.call_sent_as(request).await {
                Some(call) => Ok(call),
                None => self.calls.only_call(),
            },
            _ => self.calls.only_call(),
        };
        if let Ok(call) = &call
            && call.host.declares(capability)
        {
            return call
                .host
                .request(method, params)
                .await
                .map_err(|e| ErrorData::new(ErrorCode(e.code), e.message, None));
        }
        if let Some(handler) = self.answers.handler(capability) {
            return handler
                .answer(params)
                .await
                .map_err(|message| ErrorData::new(ErrorCode::INTERNAL_ERROR, message, None));
        }
        match call {
            Err(calls) if calls > 1 && self.answers.hosts => Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("carnet cannot tell which of its {calls} calls in flight this `{method}` belongs to"),
                None,
            )),
            _ => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("the client did not declare the `{capability}` capability"),
                None,
            )),
        }
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
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(params).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let result = self
            .answer("sampling/createMessage", "sampling", params, origin)
            .await?;
        parsed(result, "sampling result")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(request).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let result = self.answer("elicitation/create", "elicitation", params, origin).await?;
        parsed(result, "elicitation result")
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(self.answers.capabilities()).unwrap_or_default();
        ClientConfig::new(capabilities, Implementation::new("carnet", env!("CARGO_PKG_VERSION")))
    }
}

#[cfg(test)]
mod tests;
