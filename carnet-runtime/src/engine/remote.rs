//! Remote toolsets and skills in the engine's tables: each bound to its server (feature
//! `remote`), and the pinned schemas shown when no server can be called.

use std::sync::Arc;

use serde_json::Value;

use super::carnet::{RemoteServer, RemoteSkill, toolset_ix};
use super::options::{BuildError, RemoteOptions};
use crate::dispatch::ToolsetImpl;
use crate::manifest::Manifest;

/// Where each skill an MCP server serves is read from (`Skill::remote`), by skill.
pub(super) fn remote_skills(manifest: &Manifest) -> Result<Vec<Option<RemoteSkill>>, BuildError> {
    manifest
        .skills
        .iter()
        .map(|skill| {
            let Some(remote) = skill.remote.as_deref() else {
                return Ok(None);
            };
            let remote: Value = serde_json::from_str(remote).unwrap_or(Value::Null);
            let field = |key: &str| remote[key].as_str().map(str::to_owned);
            let toolset = field("toolset").unwrap_or_default();
            let invalid = |reason: &str| BuildError::RemoteToolset {
                toolset: toolset.clone(),
                reason: format!("skill `{}` {reason}", skill.name),
            };
            let ix = toolset_ix(manifest, &toolset)
                .filter(|&t| manifest.toolsets[t.get()].mcp.is_some())
                .ok_or_else(|| invalid("names no remote toolset"))?;
            Ok(Some(RemoteSkill {
                toolset: ix,
                uri: field("uri").ok_or_else(|| invalid("has no `uri`"))?,
                digest: field("digest").ok_or_else(|| invalid("has no `digest`"))?,
            }))
        })
        .collect()
}

/// The servers of remote toolsets, by toolset.
pub(super) type RemoteServers = Vec<Option<Arc<dyn RemoteServer>>>;

/// Binds every remote toolset to its server (feature `remote`): the servers by toolset, and
/// the implementations that call them. Implementations given for a remote toolset (in
/// `toolsets`) are refused: its server implements it.
pub(super) fn bind_remote(
    manifest: &Manifest,
    toolsets: &[ToolsetImpl],
    options: &RemoteOptions,
    allow_unimplemented: bool,
) -> Result<(RemoteServers, Vec<ToolsetImpl>), BuildError> {
    let mut servers: RemoteServers = Vec::with_capacity(manifest.toolsets.len());
    #[cfg_attr(not(feature = "remote"), allow(unused_mut))]
    let mut implementations = Vec::new();
    for toolset in manifest.toolsets.iter() {
        if toolset.mcp.is_none() {
            servers.push(None);
            continue;
        }
        // An A2A agent's toolset (`"protocol": "a2a"`, feature `remote-a2a`) or an MCP server's.
        let a2a = toolset
            .mcp
            .as_deref()
            .and_then(|m| serde_json::from_str::<Value>(m).ok())
            .is_some_and(|m| m["protocol"] == "a2a");
        let remote = if a2a { "A2A agent" } else { "MCP server" };
        if toolsets.iter().any(|t| t.toolset == toolset.name) {
            return Err(BuildError::RemoteToolset {
                toolset: toolset.name.to_string(),
                reason: format!("its {remote} implements it: give no Rust implementation"),
            });
        }
        #[cfg(feature = "remote")]
        {
            let _ = (allow_unimplemented, a2a);
            let (implementation, server) = crate::remote::toolset_impl(toolset, options)?;
            implementations.push(implementation);
            servers.push(Some(server));
        }
        #[cfg(not(feature = "remote"))]
        {
            let _ = options;
            if !allow_unimplemented {
                let feature = if a2a { "remote-a2a" } else { "remote" };
                return Err(BuildError::RemoteToolset {
                    toolset: toolset.name.to_string(),
                    reason: format!("calling its {remote} needs carnet's feature `{feature}`"),
                });
            }
            servers.push(None);
        }
    }
    Ok((servers, implementations))
}

/// A remote tool's pinned input schema (without the feature `remote`, for inspection).
pub(super) fn pinned_schema(remote: Option<&str>) -> Option<Value> {
    let mut remote: Value = serde_json::from_str(remote?).ok()?;
    Some(remote.get_mut("inputSchema")?.take()).filter(Value::is_object)
}
