//! The resources and prompts of remote toolsets' servers, passed through to the host: those of
//! the toolsets in reach of the conversation (brought by a loaded skill, or loaded), once in
//! reach, beside carnet's own.
//!
//! Names: an upstream's resources keep their URIs and its prompts their names (hosts and the
//! prompts' own texts refer to them), except where they would collide with carnet's own: a
//! `skill://` resource (carnet's skill files, and the skills a server serves through the Skills
//! extension, which carnet pins and serves as skills) and a prompt named like the agent are not
//! passed through. Where two servers list the same URI or name, the first toolset's (manifest
//! order) is listed, and reads go to the toolsets in that order: the first that serves it.
//!
//! Requests of a session with a [`Listener`] are passed through inside it ([`relay::LISTENER`]):
//! the server then knows the session, and sends it its list changes and the updates of the
//! resources it subscribes to (`resources/subscribe`, [`subscription`]).

use std::sync::Arc;

use serde_json::{Value, json};

use super::resources::SKILL_URI_SCHEME;
use super::rpc::RpcError;
use super::shared::Shared;
use crate::SessionState;
use crate::engine::carnet::RemoteServer;
use crate::relay::{self, Listener};

/// The host session a request is passed through for, if it has one (not at the stateless
/// revision).
pub(super) type HostSession<'a> = Option<&'a Arc<dyn Listener>>;

/// Sends `method` with `params` to `server`, for `session`.
async fn ask(
    server: Arc<dyn RemoteServer>,
    session: HostSession<'_>,
    method: &'static str,
    params: Value,
) -> Result<Value, (i32, String)> {
    let asked = server.forward(method, params);
    match session {
        Some(listener) => relay::LISTENER.scope(Arc::clone(listener), asked).await,
        None => asked.await,
    }
}

/// The servers of the remote toolsets in reach of `state`, in the order they came in reach.
fn in_reach(shared: &Shared, state: &SessionState) -> Vec<Arc<dyn RemoteServer>> {
    state
        .loaded_toolsets
        .iter()
        .filter_map(|toolset| shared.carnet.remote_server(&toolset.name))
        .collect()
}

/// Whether an upstream's `item` of list `key` may be passed through (see the module docs).
fn passes(shared: &Shared, key: &str, item: &Value) -> bool {
    match key {
        "resources" => item["uri"]
            .as_str()
            .is_some_and(|uri| !uri.starts_with(&format!("{SKILL_URI_SCHEME}://"))),
        "resourceTemplates" => item["uriTemplate"]
            .as_str()
            .is_some_and(|uri| !uri.starts_with(&format!("{SKILL_URI_SCHEME}://"))),
        "prompts" => item["name"].as_str().is_some_and(|name| name != shared.agent),
        _ => false,
    }
}

/// The identity of an item of list `key`, for dropping the second of two servers' items.
fn identity<'a>(key: &str, item: &'a Value) -> Option<&'a str> {
    match key {
        "resources" => item["uri"].as_str(),
        "resourceTemplates" => item["uriTemplate"].as_str(),
        _ => item["name"].as_str(),
    }
}

/// Appends to `items` (list `key` of carnet's own `method` result) those of the servers in
/// reach of `state`. A server that does not serve the list (no such capability, unreachable)
/// adds nothing: the host's list never fails for an upstream's sake.
async fn extend(
    shared: &Shared,
    state: &SessionState,
    session: HostSession<'_>,
    method: &'static str,
    key: &str,
    result: &mut Value,
) {
    let servers = in_reach(shared, state);
    if servers.is_empty() {
        return;
    }
    let mut seen: Vec<String> = result[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| identity(key, item).map(str::to_owned))
        .collect();
    let mut added = Vec::new();
    for server in servers {
        let Ok(listed) = ask(server, session, method, json!({})).await else {
            continue;
        };
        for item in listed[key].as_array().into_iter().flatten() {
            let Some(id) = identity(key, item) else { continue };
            if passes(shared, key, item) && !seen.iter().any(|s| s == id) {
                seen.push(id.to_owned());
                added.push(item.clone());
            }
        }
    }
    if let Some(items) = result[key].as_array_mut() {
        items.extend(added);
    }
}

/// Sends `method` with `params` to the servers in reach of `state`, in order, until one
/// serves it: its result, or `None` when none does (the caller then answers as for an unknown
/// URI or name). A server's own error other than "not found" is the answer.
pub(super) async fn forward(
    shared: &Shared,
    state: &SessionState,
    session: HostSession<'_>,
    method: &'static str,
    params: &Value,
) -> Option<Result<Value, RpcError>> {
    let mut params = params.clone();
    if let Some(fields) = params.as_object_mut() {
        // The host's `_meta` (its revision's keys) is not the upstream connection's.
        fields.remove("_meta");
    }
    let mut last = None;
    for server in in_reach(shared, state) {
        match ask(server, session, method, params.clone()).await {
            Ok(mut result) => {
                if let Some(fields) = result.as_object_mut() {
                    // The server's revision's fields are its own: carnet shapes the result for
                    // the host's revision.
                    fields.remove("resultType");
                    fields.remove("ttlMs");
                    fields.remove("cacheScope");
                }
                return Some(Ok(result));
            }
            // Not this server's: try the next.
            Err((-32002 | -32602 | -32601, _)) => {}
            Err((code, message)) => last = Some(RpcError::new(code, message, None)),
        }
    }
    last.map(Err)
}

/// Carnet's own answer `own` to `method`, or, when it is an error and `theirs` says the request
/// may be another server's, the answer of the first server in reach that serves it.
pub(super) async fn or_forward(
    shared: &Shared,
    state: &SessionState,
    session: HostSession<'_>,
    method: &'static str,
    params: Option<&Value>,
    theirs: bool,
    own: Result<Value, RpcError>,
) -> Result<Value, RpcError> {
    match own {
        Err(error) if theirs => {
            let params = params.cloned().unwrap_or_else(|| json!({}));
            forward(shared, state, session, method, &params)
                .await
                .unwrap_or(Err(error))
        }
        own => own,
    }
}

/// Carnet's own result `own` of list request `method` with the servers' items appended.
pub(super) async fn list(
    shared: &Shared,
    state: &SessionState,
    session: HostSession<'_>,
    method: &str,
    mut own: Value,
) -> Value {
    let (method, key) = match method {
        "resources/list" => ("resources/list", "resources"),
        "resources/templates/list" => ("resources/templates/list", "resourceTemplates"),
        "prompts/list" => ("prompts/list", "prompts"),
        _ => return own,
    };
    extend(shared, state, session, method, key, &mut own).await;
    own
}

/// `resources/subscribe` (`subscribe`) or `resources/unsubscribe` of `params` by `session`;
/// not served without one (nothing is passed through, or the stateless revision: no session
/// to send updates to).
///
/// Carnet's own resources never change while it runs: subscribing to one succeeds and
/// nothing is ever sent for it. Any other URI is subscribed to at the first server in reach
/// that accepts it (as reads go), and unknown when none does; an unsubscribe goes to every
/// remote MCP server, in reach or no longer, and only those the session subscribed on hear
/// of it.
pub(super) async fn subscription(
    shared: &Shared,
    state: &SessionState,
    session: HostSession<'_>,
    subscribe: bool,
    params: &Value,
) -> Result<Value, RpcError> {
    let method = if subscribe {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    };
    let Some(session) = session else {
        return Err(RpcError::not_served(method));
    };
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(super::messages::invalid_params(
            method,
            "`uri` is missing or not a string",
        ));
    };
    if shared.resources.contains(uri) {
        return Ok(json!({}));
    }
    let params = json!({ "uri": uri });
    if subscribe {
        return forward(shared, state, Some(session), method, &params)
            .await
            .unwrap_or_else(|| {
                Err(RpcError::new(
                    super::rpc::code::RESOURCE_NOT_FOUND,
                    format!("no server in reach of this session lets it subscribe to `{uri}`"),
                    Some(json!({ "uri": uri })),
                ))
            });
    }
    let manifest = shared.carnet.manifest();
    let servers = manifest
        .toolsets
        .iter()
        .filter(|toolset| toolset.mcp.is_some())
        .filter_map(|toolset| shared.carnet.remote_server(&toolset.name));
    for server in servers {
        // Only the server holding the session's subscription answers other than `{}`.
        let _ = ask(server, Some(session), method, params.clone()).await;
    }
    Ok(json!({}))
}
