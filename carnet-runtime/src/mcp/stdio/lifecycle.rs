//! The protocol's lifecycle on one connection: which revision a request runs at, opening the
//! lifecycle with `initialize` (a revision with sessions) or with the first request of the
//! stateless revision, and the requests answered before anything runs.

use serde_json::Value;

use crate::mcp::messages;
use crate::mcp::methods::{self, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::mcp::rpc::RpcError;
use crate::mcp::shared::Shared;

/// The lifecycle the connection opened.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Lifecycle {
    /// Nothing yet: `ping`, `initialize` and stateless requests only.
    None,
    /// `initialize` agreed to this revision.
    Sessions(&'static str),
    /// The stateless revision: every request carries its `_meta`.
    Stateless,
}

/// What a request of the stateless revision says of itself in `_meta`.
struct Meta {
    /// `io.modelcontextprotocol/protocolVersion`, when it is a string.
    version: Option<String>,
    /// The required keys that are missing or malformed.
    missing: Vec<&'static str>,
}

fn meta(params: Option<&Value>) -> Meta {
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let version = meta
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut missing = Vec::new();
    if version.is_none() {
        missing.push(META_PROTOCOL_VERSION);
    }
    if !meta
        .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
        .is_some_and(Value::is_object)
    {
        missing.push(META_CLIENT_CAPABILITIES);
    }
    Meta { version, missing }
}

/// What the lifecycle makes of a request before it runs.
pub(super) enum Answer {
    /// Run it, at the stateless revision or not.
    Run { stateless: bool },
    /// Answered already: `initialize` and `server/discover`.
    Now(Value),
}

/// The revision `method` runs at, opening the lifecycle if it does; or the answer it gets
/// without running.
pub(super) fn negotiate(
    shared: &Shared,
    lifecycle: &mut Lifecycle,
    method: &str,
    params: Option<&Value>,
) -> Result<Answer, RpcError> {
    let mode = shared.carnet.mode();
    let supported = methods::supported_versions(mode);
    if method == "initialize" {
        // A request carrying the stateless revision's `_meta` is of that revision, which has
        // no `initialize` (a dual-era server serves such requests statelessly).
        if meta(params).version.as_deref().is_some_and(methods::is_stateless) {
            return Err(messages::initialize_removed(supported, methods::session_versions(mode)));
        }
        let request: methods::InitializeParams = methods::params(method, params.cloned())?;
        let version = methods::negotiate(&request.protocol_version, mode);
        if *lifecycle == Lifecycle::None {
            *lifecycle = Lifecycle::Sessions(version);
        }
        return Ok(Answer::Now(shared.info.initialize_result(version)));
    }
    if *lifecycle == Lifecycle::None && method == "ping" {
        // MCP allows a ping before the lifecycle starts.
        return Ok(Answer::Run { stateless: false });
    }
    let meta = meta(params);
    let inline = method == "server/discover"
        || !matches!(lifecycle, Lifecycle::Sessions(_))
        || meta.version.as_deref().is_some_and(methods::is_stateless);
    // Before the lifecycle starts, a request must carry the whole `_meta` before its revision
    // is looked at; after, an unsupported revision is the first thing said.
    if *lifecycle == Lifecycle::None && !meta.missing.is_empty() {
        return Err(messages::missing_metadata(&meta.missing));
    }
    if let Some(version) = &meta.version
        && !supported.contains(&version.as_str())
    {
        return Err(messages::unsupported_version(version, supported));
    }
    if inline && !meta.missing.is_empty() {
        return Err(messages::missing_metadata(&meta.missing));
    }
    if method == "server/discover" {
        return Ok(Answer::Now(shared.info.discover_result(supported)));
    }
    if *lifecycle == Lifecycle::None && inline {
        *lifecycle = Lifecycle::Stateless;
    }
    let version = meta.version.or_else(|| match lifecycle {
        Lifecycle::Sessions(version) => Some((*version).to_owned()),
        _ => None,
    });
    let stateless = version.as_deref().is_some_and(methods::is_stateless);
    // A request on a stateless lifecycle is one, whatever revision its `_meta` names.
    let legacy = !inline && !stateless;
    if method == "ping" && !legacy {
        return Err(RpcError::not_served(method));
    }
    Ok(Answer::Run { stateless })
}
