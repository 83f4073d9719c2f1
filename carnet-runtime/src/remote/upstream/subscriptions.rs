//! The host sessions a server's notifications that answer no call go to: the resources each
//! subscribed to, and the sessions that asked the server something (through the MCP gateway)
//! and so are told when its resource and prompt lists change.
//!
//! One connection to the server serves every session of the engine, so the server sees one
//! subscriber: carnet subscribes to a URI on the first session's `resources/subscribe`,
//! routes `notifications/resources/updated` for it to the sessions that subscribed and to no
//! other, and unsubscribes when the last of them unsubscribes or ends. A session is held
//! weakly and forgotten when it ends ([`Listener::ended`]); whether a toolset is still in reach
//! of a session is the session's to say when it is notified ([`Listener::notify`]).
//!
//! After the server restarted (a crash), the next `resources/subscribe` of a URI subscribes to
//! it again on the new connection; the sessions subscribed before receive its updates again
//! from then on.

// `resources/subscribe` is of the revisions with sessions, the ones carnet passes through.
#![expect(deprecated, reason = "resources/subscribe of the 2025 revisions")]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use std::time::Duration;

use rmcp::Peer;
use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::RoleClient;
use serde_json::{Value, json};

use crate::relay::{INTERNAL_ERROR, INVALID_PARAMS, Listener};

/// The most resources one host session may subscribe to on one server.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// How long an unsubscribe sent for a session that ended waits for the server's answer.
const UNSUBSCRIBE_LIMIT: Duration = Duration::from_secs(10);

/// One host session that asked the server something.
struct Watcher {
    listener: Weak<dyn Listener>,
    /// The remote toolset the server is the server of (what the session is told it is from).
    toolset: String,
    /// The URIs it subscribed to.
    uris: HashSet<String>,
}

#[derive(Default)]
struct State {
    watchers: HashMap<u64, Watcher>,
    /// The URIs the server was asked to watch, each with the connection it was asked on.
    subscribed: HashMap<String, Peer<RoleClient>>,
}

#[derive(Default)]
struct Inner {
    state: std::sync::Mutex<State>,
    /// One subscription round trip with the server at a time, so that a subscribe and an
    /// unsubscribe of one URI by two sessions reach it in the order they were decided.
    turn: tokio::sync::Mutex<()>,
}

/// The host sessions of one server (see the module docs). Cheap to clone.
#[derive(Default, Clone)]
pub(crate) struct Watchers {
    inner: Arc<Inner>,
}

/// The empty result of `resources/subscribe` and `resources/unsubscribe`.
fn done() -> Value {
    json!({})
}

impl Watchers {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers `listener` (a session the server of `toolset` now serves), once; it is
    /// forgotten, and its subscriptions dropped, when it ends.
    pub(crate) fn watch(&self, listener: &Arc<dyn Listener>, toolset: &str) {
        let id = listener.id();
        {
            let mut state = self.state();
            if state.watchers.contains_key(&id) {
                return;
            }
            state.watchers.insert(
                id,
                Watcher {
                    listener: Arc::downgrade(listener),
                    toolset: toolset.to_owned(),
                    uris: HashSet::new(),
                },
            );
        }
        let ended = listener.ended();
        let this = self.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    ended.await;
                    this.forget(id).await;
                });
            }
            // No runtime to wait on: nothing is held for it.
            Err(_) => {
                self.state().watchers.remove(&id);
            }
        }
    }

    /// `resources/subscribe` of `params` by `listener` (watched already), on `peer`.
    pub(crate) async fn subscribe(
        &self,
        listener: &Arc<dyn Listener>,
        peer: &Peer<RoleClient>,
        params: &Value,
        timeout: Duration,
    ) -> Result<Value, (i32, String)> {
        let uri = uri_of(params)?;
        let id = listener.id();
        let _turn = self.inner.turn.lock().await;
        let needed = {
            let state = self.state();
            let Some(watcher) = state.watchers.get(&id) else {
                return Err((INTERNAL_ERROR, "the session is not known to this server".to_owned()));
            };
            // Not asked yet, or asked on a connection that has since closed (a restart).
            let needed = state.subscribed.get(uri).is_none_or(Peer::is_transport_closed);
            let held = watcher.uris.contains(uri);
            if held && !needed {
                return Ok(done());
            }
            if !held && watcher.uris.len() >= MAX_SUBSCRIPTIONS {
                return Err((
                    INVALID_PARAMS,
                    format!(
                        "this session already holds {MAX_SUBSCRIPTIONS} subscriptions on this server, the most it may"
                    ),
                ));
            }
            needed
        };
        if needed {
            request(peer, true, uri, timeout).await?;
            self.state().subscribed.insert(uri.to_owned(), peer.clone());
        }
        if let Some(watcher) = self.state().watchers.get_mut(&id) {
            watcher.uris.insert(uri.to_owned());
        }
        Ok(done())
    }

    /// `resources/unsubscribe` of `params` by the session `id`: the server is asked to stop
    /// when no other session holds the URI. A URI the session did not subscribe to is not
    /// the server's business: answered at once.
    pub(crate) async fn unsubscribe(&self, id: u64, params: &Value) -> Result<Value, (i32, String)> {
        let uri = uri_of(params)?;
        let _turn = self.inner.turn.lock().await;
        let peer = {
            let mut state = self.state();
            let held = state.watchers.get_mut(&id).is_some_and(|w| w.uris.remove(uri));
            if !held {
                return Ok(done());
            }
            release(&mut state, uri)
        };
        if let Some(peer) = peer
            && let Err((_, why)) = request(&peer, false, uri, UNSUBSCRIBE_LIMIT).await
        {
            // The session no longer receives its updates either way.
            tracing::debug!(target: "carnet::remote", %uri, error = %why, "unsubscribe failed");
        }
        Ok(done())
    }

    /// Forgets session `id`, which ended, and unsubscribes from the URIs no other session
    /// holds.
    async fn forget(&self, id: u64) {
        let _turn = self.inner.turn.lock().await;
        let released: Vec<(String, Peer<RoleClient>)> = {
            let mut state = self.state();
            let Some(watcher) = state.watchers.remove(&id) else {
                return;
            };
            watcher
                .uris
                .into_iter()
                .filter_map(|uri| release(&mut state, &uri).map(|peer| (uri, peer)))
                .collect()
        };
        for (uri, peer) in released {
            if let Err((_, why)) = request(&peer, false, &uri, UNSUBSCRIBE_LIMIT).await {
                tracing::debug!(target: "carnet::remote", %uri, error = %why, "unsubscribe failed");
            }
        }
    }

    /// The sessions to tell (live ones), each with its toolset; `uri`: only those subscribed
    /// to it.
    fn audience(&self, uri: Option<&str>) -> Vec<(Arc<dyn Listener>, String)> {
        self.state()
            .watchers
            .values()
            .filter(|w| uri.is_none_or(|uri| w.uris.contains(uri)))
            .filter_map(|w| Some((w.listener.upgrade()?, w.toolset.clone())))
            .collect()
    }

    /// `notifications/resources/updated` with `params`, to the sessions that subscribed to
    /// its URI.
    pub(crate) async fn updated(&self, params: Value) {
        let Some(uri) = params["uri"].as_str() else {
            return;
        };
        for (listener, toolset) in self.audience(Some(uri)) {
            listener
                .notify(&toolset, "notifications/resources/updated", params.clone())
                .await;
        }
    }

    /// List change `method` (`notifications/resources/list_changed`,
    /// `notifications/prompts/list_changed`), to every session.
    pub(crate) async fn list_changed(&self, method: &'static str) {
        for (listener, toolset) in self.audience(None) {
            listener.notify(&toolset, method, json!({})).await;
        }
    }

    /// How many URIs the server was asked to watch, and how many sessions are known.
    #[cfg(all(test, feature = "mcp-http"))]
    fn counts(&self) -> (usize, usize) {
        let state = self.state();
        (state.subscribed.len(), state.watchers.len())
    }
}

/// Forgets that the server watches `uri` if no session holds it any more: the connection to
/// unsubscribe on.
fn release(state: &mut State, uri: &str) -> Option<Peer<RoleClient>> {
    if state.watchers.values().any(|w| w.uris.contains(uri)) {
        return None;
    }
    state.subscribed.remove(uri)
}

/// The `uri` of `resources/subscribe`'s or `resources/unsubscribe`'s params.
fn uri_of(params: &Value) -> Result<&str, (i32, String)> {
    params["uri"]
        .as_str()
        .ok_or_else(|| (INVALID_PARAMS, "`uri` is missing or not a string".to_owned()))
}

/// Asks the server on `peer` to watch `uri` (`subscribe`) or to stop.
async fn request(peer: &Peer<RoleClient>, subscribe: bool, uri: &str, timeout: Duration) -> Result<(), (i32, String)> {
    let sent = async {
        if subscribe {
            peer.subscribe(SubscribeRequestParams::new(uri)).await
        } else {
            peer.unsubscribe(UnsubscribeRequestParams::new(uri)).await
        }
    };
    match tokio::time::timeout(timeout, sent).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(rmcp::ServiceError::McpError(error))) => Err((error.code.0, error.message.into_owned())),
        Ok(Err(error)) => Err((INTERNAL_ERROR, format!("the server failed: {error}"))),
        Err(_) => Err((
            INTERNAL_ERROR,
            format!("the server did not answer within {} ms", timeout.as_millis()),
        )),
    }
}

#[cfg(test)]
mod tests {
    /// The server side of these tests is rmcp's, which `mcp-http` brings.
    #[cfg(feature = "mcp-http")]
    mod with_a_server {
        use super::super::*;
        use crate::dispatch::BoxFuture;
        use rmcp::model::{ServerCapabilities, ServerInfo};
        use rmcp::service::RequestContext;
        use rmcp::{ErrorData, RoleServer, ServerHandler};

        /// A server that records what it was asked to watch: (subscribe, uri).
        #[derive(Clone, Default)]
        struct Recording(Arc<std::sync::Mutex<Vec<(bool, String)>>>);

        impl Recording {
            fn asked(&self) -> Vec<(bool, String)> {
                self.0.lock().unwrap().clone()
            }
        }

        impl ServerHandler for Recording {
            fn get_info(&self) -> ServerInfo {
                ServerInfo::new(
                    ServerCapabilities::builder()
                        .enable_resources()
                        .enable_resources_subscribe()
                        .build(),
                )
            }

            async fn subscribe(
                &self,
                request: SubscribeRequestParams,
                _context: RequestContext<RoleServer>,
            ) -> Result<(), ErrorData> {
                if request.uri == "refused://" {
                    return Err(ErrorData::invalid_params("no such resource", None));
                }
                self.0.lock().unwrap().push((true, request.uri));
                Ok(())
            }

            async fn unsubscribe(
                &self,
                request: UnsubscribeRequestParams,
                _context: RequestContext<RoleServer>,
            ) -> Result<(), ErrorData> {
                self.0.lock().unwrap().push((false, request.uri));
                Ok(())
            }
        }

        /// A host session that records what it is sent: (method, uri).
        struct Session {
            id: u64,
            alive: tokio::sync::watch::Sender<()>,
            got: std::sync::Mutex<Vec<(String, String)>>,
        }

        impl Session {
            fn new(id: u64) -> Arc<Session> {
                Arc::new(Session {
                    id,
                    alive: tokio::sync::watch::Sender::new(()),
                    got: std::sync::Mutex::default(),
                })
            }

            fn got(&self) -> Vec<(String, String)> {
                self.got.lock().unwrap().clone()
            }
        }

        impl Listener for Session {
            fn id(&self) -> u64 {
                self.id
            }

            fn notify(&self, toolset: &str, method: &'static str, params: Value) -> BoxFuture<'static, ()> {
                assert_eq!(toolset, "docs");
                let uri = params["uri"].as_str().unwrap_or_default().to_owned();
                self.got.lock().unwrap().push((method.to_owned(), uri));
                Box::pin(std::future::ready(()))
            }

            fn ended(&self) -> BoxFuture<'static, ()> {
                let mut alive = self.alive.subscribe();
                Box::pin(async move { while alive.changed().await.is_ok() {} })
            }
        }

        const LIMIT: Duration = Duration::from_secs(5);

        fn subscribe(uri: &str) -> Value {
            json!({ "uri": uri })
        }

        #[tokio::test]
        async fn one_subscription_upstream_per_uri_routed_to_its_sessions_and_dropped_with_them() {
            let server = Recording::default();
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            let serving = server.clone();
            tokio::spawn(async move { rmcp::serve_server(serving, theirs).await.unwrap().waiting().await });
            let client = rmcp::serve_client((), ours).await.unwrap();
            let peer = client.peer().clone();

            let watchers = Watchers::default();
            let (a, b) = (Session::new(1), Session::new(2));
            let (a_dyn, b_dyn): (Arc<dyn Listener>, Arc<dyn Listener>) = (a.clone(), b.clone());
            watchers.watch(&a_dyn, "docs");
            watchers.watch(&b_dyn, "docs");

            // The server is asked once, however many sessions subscribe, however often.
            for session in [&a_dyn, &b_dyn, &a_dyn] {
                assert_eq!(
                    watchers.subscribe(session, &peer, &subscribe("x://1"), LIMIT).await,
                    Ok(json!({}))
                );
            }
            assert_eq!(server.asked(), [(true, "x://1".to_owned())]);
            // The server's refusal is the session's answer, and nothing is held.
            let refused = watchers.subscribe(&a_dyn, &peer, &subscribe("refused://"), LIMIT).await;
            assert!(matches!(refused, Err((-32602, _))), "{refused:?}");
            assert_eq!(watchers.counts(), (1, 2));

            // Updates reach the sessions subscribed to their URI, and only those.
            watchers.updated(json!({ "uri": "x://1" })).await;
            watchers.updated(json!({ "uri": "x://2" })).await;
            let updated = ("notifications/resources/updated".to_owned(), "x://1".to_owned());
            assert_eq!((a.got(), b.got()), (vec![updated.clone()], vec![updated.clone()]));

            // The server is told to stop only when the last session unsubscribes.
            assert_eq!(watchers.unsubscribe(1, &subscribe("x://1")).await, Ok(json!({})));
            assert_eq!(server.asked().len(), 1, "b still holds x://1");
            watchers.updated(json!({ "uri": "x://1" })).await;
            assert_eq!(a.got().len(), 1, "a unsubscribed");
            assert_eq!(watchers.unsubscribe(1, &subscribe("x://1")).await, Ok(json!({})));
            assert_eq!(watchers.unsubscribe(2, &subscribe("x://1")).await, Ok(json!({})));
            assert_eq!(server.asked()[1], (false, "x://1".to_owned()));

            // A session that ends is forgotten, and the URIs only it held are unsubscribed.
            watchers
                .subscribe(&a_dyn, &peer, &subscribe("x://3"), LIMIT)
                .await
                .unwrap();
            drop(a_dyn);
            drop(a);
            let mut waited = 0;
            while watchers.counts() != (0, 1) && waited < 100 {
                tokio::time::sleep(Duration::from_millis(10)).await;
                waited += 1;
            }
            assert_eq!(watchers.counts(), (0, 1));
            assert_eq!(server.asked().last(), Some(&(false, "x://3".to_owned())));

            // List changes go to every session still there.
            watchers.list_changed("notifications/resources/list_changed").await;
            assert_eq!(
                b.got().last(),
                Some(&("notifications/resources/list_changed".to_owned(), String::new()))
            );
        }

        /// A server recording what it is asked, and a client connected to it.
        async fn connected() -> (Recording, rmcp::service::RunningService<RoleClient, ()>) {
            let server = Recording::default();
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            let serving = server.clone();
            tokio::spawn(async move { rmcp::serve_server(serving, theirs).await.unwrap().waiting().await });
            (server, rmcp::serve_client((), ours).await.unwrap())
        }

        #[tokio::test]
        async fn a_subscription_is_renewed_on_the_connection_that_replaced_a_closed_one() {
            let (first, client) = connected().await;
            let watchers = Watchers::default();
            let session: Arc<dyn Listener> = Session::new(3);
            watchers.watch(&session, "docs");
            let old = client.peer().clone();
            watchers
                .subscribe(&session, &old, &subscribe("x://1"), LIMIT)
                .await
                .unwrap();
            assert_eq!(first.asked(), [(true, "x://1".to_owned())]);
            // The server restarts: the old connection is gone, a new one serves.
            client.cancel().await.unwrap();
            assert!(old.is_transport_closed());
            let (second, client) = connected().await;
            let peer = client.peer().clone();
            watchers
                .subscribe(&session, &peer, &subscribe("x://1"), LIMIT)
                .await
                .unwrap();
            assert_eq!(second.asked(), [(true, "x://1".to_owned())], "subscribed again");
            watchers
                .subscribe(&session, &peer, &subscribe("x://1"), LIMIT)
                .await
                .unwrap();
            assert_eq!(second.asked().len(), 1, "once");
            watchers.unsubscribe(3, &subscribe("x://1")).await.unwrap();
            assert_eq!(second.asked()[1], (false, "x://1".to_owned()), "on the new connection");
        }

        #[tokio::test]
        async fn a_session_holds_a_bounded_number_of_subscriptions() {
            let server = Recording::default();
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            let serving = server.clone();
            tokio::spawn(async move { rmcp::serve_server(serving, theirs).await.unwrap().waiting().await });
            let client = rmcp::serve_client((), ours).await.unwrap();
            let peer = client.peer().clone();
            let watchers = Watchers::default();
            let session: Arc<dyn Listener> = Session::new(7);
            watchers.watch(&session, "docs");
            for n in 0..MAX_SUBSCRIPTIONS {
                let uri = format!("x://{n}");
                watchers
                    .subscribe(&session, &peer, &subscribe(&uri), LIMIT)
                    .await
                    .unwrap();
            }
            let refused = watchers.subscribe(&session, &peer, &subscribe("x://more"), LIMIT).await;
            assert!(matches!(refused, Err((-32602, _))), "{refused:?}");
            assert_eq!(server.asked().len(), MAX_SUBSCRIPTIONS);
        }
    }
}
