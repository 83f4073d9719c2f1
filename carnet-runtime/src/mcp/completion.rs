//! `completion/complete` (the `completions` capability): values for the arguments of the one
//! prompt this server has, the agent's system prompt, whose arguments are the manifest's
//! variables.
//!
//! A variable's candidates are the value the engine gives it (the builder's, or an allowed
//! environment variable's) and its default in the manifest, those starting with what the
//! client typed. Skill resources are plain URIs, not templates: a `ref/resource` is answered
//! with no values.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::messages;
use super::rpc::RpcError;
use super::shared::Shared;

/// The most values one answer holds (MCP's limit).
const MAX_VALUES: usize = 100;

/// `completion/complete`'s params.
#[derive(Debug, Deserialize)]
pub(super) struct CompleteParams {
    #[serde(rename = "ref")]
    reference: Reference,
    argument: Argument,
    #[serde(default, rename = "context")]
    _context: Option<Map<String, Value>>,
}

/// What is completed.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum Reference {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource {
        #[serde(rename = "uri")]
        _uri: String,
    },
}

#[derive(Debug, Deserialize)]
struct Argument {
    name: String,
    value: String,
}

impl CompleteParams {
    /// Whether it completes an argument of `agent`'s prompt (rather than another server's
    /// prompt or resource template).
    pub(super) fn is_for(&self, agent: &str) -> bool {
        matches!(&self.reference, Reference::Prompt { name } if name == agent)
    }
}

/// `completion/complete`'s result.
pub(super) fn complete(shared: &Shared, request: &CompleteParams) -> Result<Value, RpcError> {
    let name = match &request.reference {
        Reference::Resource { .. } => return Ok(values(Vec::new())),
        Reference::Prompt { name } => name,
    };
    if *name != shared.agent {
        return Err(messages::unknown_prompt(name, &shared.agent));
    }
    let manifest = shared.carnet.manifest();
    let argument = &request.argument.name;
    let Some((_, default)) = manifest.variables.iter().find(|(variable, _)| variable == argument) else {
        let known: Vec<&str> = manifest.variables.iter().map(|(variable, _)| &**variable).collect();
        return Err(messages::unknown_prompt_argument(name, argument, &known));
    };
    let mut candidates: Vec<&str> = Vec::with_capacity(2);
    if let Some(value) = shared.carnet.variables().get(argument) {
        candidates.push(value);
    }
    candidates.push(default);
    let mut found: Vec<String> = Vec::new();
    for candidate in candidates {
        if candidate.starts_with(request.argument.value.as_str()) && !found.iter().any(|f| f == candidate) {
            found.push(candidate.to_owned());
        }
    }
    Ok(values(found))
}

fn values(mut values: Vec<String>) -> Value {
    let total = values.len();
    values.truncate(MAX_VALUES);
    json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_VALUES } })
}
