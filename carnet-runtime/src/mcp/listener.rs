//! A host session as [`crate::relay`] sees it outside calls: the [`Listener`] that remote
//! toolsets' servers send their resource updates and list changes to, through the gateway.
//!
//! A session at a revision with sessions has one, for as long as its connection lives (the
//! stateless revision has no session to send to: its requests are passed through without
//! one). It knows which remote MCP toolsets are in reach of the session, and lets through
//! only what comes from those: a notification of a toolset the session has not loaded (or
//! has unloaded) is dropped. When the toolsets in reach change, the session's own resource and
//! prompt lists change (they carry the upstreams' items): the connection then tells the host
//! (`notifications/resources/list_changed` and `notifications/prompts/list_changed`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};

use super::host::SendLine;
use super::shared::Shared;
use crate::SessionState;
use crate::dispatch::BoxFuture;
use crate::relay::{self, Listener};

/// The notifications a change of the toolsets in reach sends (the lists that carry the
/// upstreams' items).
pub(super) const REACH_CHANGED: [&str; 2] = [
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
];

/// The next session's number.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Where a session's notifications are written.
enum Out {
    /// A byte stream: one JSON-RPC line.
    Line(SendLine),
    /// An rmcp connection, once a request gave its peer.
    #[cfg(feature = "mcp-http")]
    Peer(std::sync::OnceLock<rmcp::Peer<rmcp::RoleServer>>),
}

/// One host session (see the module docs).
pub(super) struct SessionListener {
    id: u64,
    out: Out,
    /// The remote MCP toolsets in reach of the session, by name.
    reach: std::sync::Mutex<Vec<String>>,
    /// Dropped with the session: what [`Listener::ended`] waits for.
    alive: tokio::sync::watch::Sender<()>,
}

impl SessionListener {
    fn new(out: Out, shared: &Shared, state: &SessionState) -> Arc<SessionListener> {
        Arc::new(SessionListener {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            out,
            reach: std::sync::Mutex::new(reach(shared, state)),
            alive: tokio::sync::watch::Sender::new(()),
        })
    }

    /// A byte-stream session writing through `send`, starting from `state`.
    pub(super) fn lines(send: SendLine, shared: &Shared, state: &SessionState) -> Arc<SessionListener> {
        Self::new(Out::Line(send), shared, state)
    }

    /// An rmcp session starting from `state`; its peer comes with its first request
    /// ([`SessionListener::attach`]).
    #[cfg(feature = "mcp-http")]
    pub(super) fn rmcp(shared: &Shared, state: &SessionState) -> Arc<SessionListener> {
        Self::new(Out::Peer(std::sync::OnceLock::new()), shared, state)
    }

    /// Where an rmcp session's notifications go (the first peer given is kept): the session
    /// is then one to tell ([`SessionListener::watch_reach`]).
    #[cfg(feature = "mcp-http")]
    pub(super) fn attach(self: &Arc<Self>, peer: &rmcp::Peer<rmcp::RoleServer>, shared: &Shared) {
        if let Out::Peer(slot) = &self.out
            && slot.set(peer.clone()).is_ok()
        {
            self.watch_reach(shared);
        }
    }

    fn reach(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.reach.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes the toolsets in reach of `state`: whether they changed (and with them the
    /// session's resource and prompt lists). The servers of those now in reach learn of the
    /// session.
    pub(super) fn update(self: &Arc<Self>, shared: &Shared, state: &SessionState) -> bool {
        let now = reach(shared, state);
        let changed = {
            let mut reach = self.reach();
            let changed = *reach != now;
            *reach = now;
            changed
        };
        if changed {
            self.watch_reach(shared);
        }
        changed
    }

    /// Sends `method` with `params` to the host.
    fn send(&self, method: &'static str, params: Value) -> BoxFuture<'static, ()> {
        let mut message = Map::new();
        message.insert("method".to_owned(), Value::from(method));
        message.insert("params".to_owned(), params);
        match &self.out {
            Out::Line(send) => {
                message.insert("jsonrpc".to_owned(), Value::from("2.0"));
                let line = Value::Object(message).to_string() + "\n";
                send(line.into_bytes())
            }
            #[cfg(feature = "mcp-http")]
            Out::Peer(slot) => {
                let peer = slot.get().cloned();
                let message = Value::Object(message);
                Box::pin(async move {
                    let notification = serde_json::from_value::<rmcp::model::ServerNotification>(message);
                    if let (Some(peer), Ok(notification)) = (peer, notification) {
                        // A host gone away is nobody's failure.
                        let _ = peer.send_notification(notification).await;
                    }
                })
            }
        }
    }

    /// Makes the servers of the toolsets in reach know this session (they start if they have
    /// not), so that their list changes reach it whether or not it asked them anything yet.
    pub(super) fn watch_reach(self: &Arc<Self>, shared: &Shared) {
        let reach = self.reach().clone();
        let listener: Arc<dyn Listener> = Arc::clone(self) as Arc<dyn Listener>;
        for server in reach.iter().filter_map(|toolset| shared.carnet.remote_server(toolset)) {
            relay::LISTENER.sync_scope(Arc::clone(&listener), || server.warm());
        }
    }

    /// Tells the host its resource and prompt lists changed (the toolsets in reach did).
    pub(super) async fn lists_changed(&self) {
        for method in REACH_CHANGED {
            self.send(method, json!({})).await;
        }
    }
}

impl Listener for SessionListener {
    fn id(&self) -> u64 {
        self.id
    }

    fn notify(&self, toolset: &str, method: &'static str, params: Value) -> BoxFuture<'static, ()> {
        if !self.reach().iter().any(|t| t == toolset) {
            return Box::pin(std::future::ready(()));
        }
        self.send(method, params)
    }

    fn ended(&self) -> BoxFuture<'static, ()> {
        let mut alive = self.alive.subscribe();
        // Holds no reference to the session: completes once the session is dropped.
        Box::pin(async move { while alive.changed().await.is_ok() {} })
    }
}

/// The remote MCP toolsets in reach of `state`, in order.
pub(super) fn reach(shared: &Shared, state: &SessionState) -> Vec<String> {
    let manifest = shared.carnet.manifest();
    state
        .loaded_toolsets
        .iter()
        .filter(|t| manifest.toolsets.iter().any(|m| *m.name == *t.name && m.mcp.is_some()))
        .map(|t| t.name.clone())
        .collect()
}
