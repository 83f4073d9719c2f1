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
//! Not passed through yet: subscriptions (`resources/subscribe`) and the servers'
//! `list_changed` notifications for resources and prompts.

use std::sync::Arc;

use serde_json::{Value, json};

use super::resources::SKILL_URI_SCHEME;
use super::rpc::RpcError;
use super::shared::Shared;
use crate::SessionState;
use crate::engine::carnet::RemoteServer;

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
async fn extend(shared: &Shared, state: &SessionState, method: &'static str, key: &str, result: &mut Value) {
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
        let Ok(listed) = server.forward(method, json!({})).await else {
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
        match server.forward(method, params.clone()).await {
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
    method: &'static str,
    params: Option<&Value>,
    theirs: bool,
    own: Result<Value, RpcError>,
) -> Result<Value, RpcError> {
    match own {
        Err(error) if theirs => {
            let params = params.cloned().unwrap_or_else(|| json!({}));
            forward(shared, state, method, &params).await.unwrap_or(Err(error))
        }
        own => own,
    }
}

/// Carnet's own result `own` of list request `method` with the servers' items appended.
pub(super) async fn list(shared: &Shared, state: &SessionState, method: &str, mut own: Value) -> Value {
    let (method, key) = match method {
        "resources/list" => ("resources/list", "resources"),
        "resources/templates/list" => ("resources/templates/list", "resourceTemplates"),
        "prompts/list" => ("prompts/list", "prompts"),
        _ => return own,
    };
    extend(shared, state, method, key, &mut own).await;
    own
}
