//! Provider-side tool search declared in a rendered body ([`ProviderSearch`]): Anthropic's
//! server-side search tool and `OpenAI`'s hosted `tool_search`, over the deferred tools; and
//! `OpenAI`'s client-executed `tool_search`, which carnet's own search answers.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::common::{Aliases, ProviderError};
use super::conversation::OpenAiOptions;
use super::conversation::namespaces::searched_namespaces;
use crate::Carnet;
use crate::chat::ChatRequest;
use crate::engine::ProviderSearch;
use crate::index::ToolIx;
use crate::tool::ToolKind;

/// Declares Anthropic's server-side tool search over the deferred tools of a Messages
/// body ([`ProviderSearch::Bm25`]: `{"type": "tool_search_tool_bm25_20251119", "name":
/// "tool_search_tool_bm25"}`, [`ProviderSearch::Regex`]: the `regex` pair), after the
/// other tools. Returns whether the body declares one: not with [`ProviderSearch::Off`],
/// nor when no tool has `defer_loading` (only [`ExposureMode::Deferred`](crate::engine::ExposureMode::Deferred) defers), which
/// leaves the body as it was. Declaring it twice changes nothing.
///
/// The search runs on Anthropic's side and only shows the model the definitions of the
/// tools it finds (`tool_reference` blocks in a `tool_search_tool_result`); a call of one
/// still goes through the session, which refuses it until a load exposes it.
///
/// # Errors
///
/// When a tool of the body already has the search tool's name.
pub fn anthropic_tool_search(body: &mut Value, search: ProviderSearch) -> Result<bool, ProviderError> {
    let (kind, name) = match search {
        ProviderSearch::Off => return Ok(false),
        ProviderSearch::Bm25 => ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
        ProviderSearch::Regex => ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
    };
    let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) else {
        return Ok(false);
    };
    if !tools.iter().any(|t| t.get("defer_loading") == Some(&Value::Bool(true))) {
        return Ok(false);
    }
    for tool in tools.iter() {
        if tool.get("type").and_then(Value::as_str) == Some(kind) {
            return Ok(true);
        }
        if let Some(taken) = tool.get("name").and_then(Value::as_str).filter(|n| *n == name) {
            return Err(ProviderError::AliasCollision {
                first: taken.to_owned(),
                second: format!("Anthropic's `{kind}`"),
                alias: name.to_owned(),
            });
        }
    }
    tools.push(json!({"type": kind, "name": name}));
    Ok(true)
}

/// Declares `OpenAI`'s hosted tool search (`{"type": "tool_search"}`) over the namespaces
/// of deferred functions of a Responses body, after the other tools. Returns whether the
/// body declares it: not with [`ProviderSearch::Off`], nor when no function has
/// `defer_loading` (only [`ExposureMode::Deferred`](crate::engine::ExposureMode::Deferred) defers; a Chat Completions body never
/// does), which leaves the body as it was. Both [`ProviderSearch::Bm25`] and
/// [`ProviderSearch::Regex`] declare the same tool: `OpenAI` has one kind of search. Only
/// `gpt-5.4` and later models take it.
///
/// As with Anthropic's, the search shows the model definitions (a `tool_search_output`
/// item); the session still refuses a call of a tool no load exposed.
pub fn openai_tool_search(body: &mut Value, search: ProviderSearch) -> bool {
    if search == ProviderSearch::Off {
        return false;
    }
    let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) else {
        return false;
    };
    let deferred = |tool: &Value| tool.get("defer_loading") == Some(&Value::Bool(true));
    let defers = tools.iter().any(|tool| {
        deferred(tool)
            || tool
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(|inner| inner.iter().any(deferred))
    });
    if !defers {
        return false;
    }
    if !tools
        .iter()
        .any(|t| t.get("type").and_then(Value::as_str) == Some("tool_search"))
    {
        tools.push(json!({"type": "tool_search"}));
    }
    true
}

/// What the model reads of the client-executed tool search: the tool's description and its
/// parameters, as `searchTools` describes its own.
const CLIENT_SEARCH_DESCRIPTION: &str = "Search the deferred tools by what they do, in a few words; \
the definitions of the best matches are loaded for you to call. A tool whose skill is not \
loaded yet still needs its skill loaded first.";

/// The most tools one client-executed search loads, as `searchTools` answers by default.
const CLIENT_SEARCH_HITS: usize = 8;

/// The longest query searched, as `searchTools` takes it; a longer one is cut there.
const CLIENT_SEARCH_QUERY_CHARS: usize = 1024;

/// Declares `OpenAI`'s client-executed tool search (`{"type": "tool_search", "execution":
/// "client", "description", "parameters": {query}}`) over the namespaces of deferred
/// functions of a Responses body, after the other tools: the model asks with a
/// `tool_search_call` item, and the client answers with a `tool_search_output` item holding
/// the definitions it found ([`openai_tool_search_output`]: carnet's own search). Returns
/// whether the body declares it, on the same terms as [`openai_tool_search`] (only when a
/// function is deferred; once). `gpt-5.4` and later.
pub fn openai_client_tool_search(body: &mut Value) -> bool {
    if !openai_tool_search(body, ProviderSearch::Bm25) {
        return false;
    }
    let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) else {
        return false;
    };
    if let Some(search) = tools
        .iter_mut()
        .find(|t| t.get("type").and_then(Value::as_str) == Some("tool_search"))
        && search.get("execution").is_none()
    {
        *search = json!({
            "description": CLIENT_SEARCH_DESCRIPTION,
            "execution": "client",
            "parameters": {
                "additionalProperties": false,
                "properties": {"query": {
                    "description": "What the tool should do, in a few words",
                    "type": "string",
                }},
                "required": ["query"],
                "type": "object",
            },
            "type": "tool_search",
        });
    }
    true
}

/// Whether `item` is a client-executed `tool_search_call` of a Responses response, which the
/// client answers.
pub fn openai_client_search_call(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some("tool_search_call")
        && item.get("execution").and_then(Value::as_str) == Some("client")
}

/// Answers a client-executed `tool_search_call` item with carnet's own search: the
/// `searchTools` ranking of `carnet`'s index ([`Carnet::search_index`]) for the call's
/// `query`, over the domain tools `request` lists (the agent's, all of them in
/// [`ExposureMode::Deferred`](crate::ExposureMode::Deferred)), at most eight. The answer is
/// the next request's `tool_search_output` item: `{"type": "tool_search_output", "call_id",
/// "execution": "client", "status": "completed", "tools"}`, the tools found in one
/// namespace per toolset, as the hosted search answers. `None` when `item` is not a
/// client-executed search call (see [`openai_client_search_call`]).
///
/// Finding a tool does not expose it: the session still refuses a call of a tool no load
/// exposed, with the error naming the skill to load.
///
/// # Errors
///
/// When the tools' aliases collide or a name has none (see [`Aliases::new`]).
pub fn openai_tool_search_output(
    carnet: &Carnet,
    item: &Value,
    request: &ChatRequest<'_>,
    options: &OpenAiOptions,
) -> Result<Option<Value>, ProviderError> {
    if !openai_client_search_call(item) {
        return Ok(None);
    }
    let aliases = Aliases::new(request.tools)?;
    let query: String = item
        .pointer("/arguments/query")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .chars()
        .take(CLIENT_SEARCH_QUERY_CHARS)
        .collect();
    let listed: HashSet<&str> = request
        .tools
        .iter()
        .filter(|t| t.kind == ToolKind::Domain)
        .map(|t| t.name.as_str())
        .collect();
    let inner = &carnet.inner;
    let name = |tool: u32| inner.tool(ToolIx::new(tool as usize)).spec.name.as_str();
    let found: Vec<String> = if query.trim().is_empty() {
        Vec::new()
    } else {
        inner
            .search
            .search(&query, CLIENT_SEARCH_HITS, |tool| listed.contains(name(tool)))
            .iter()
            .map(|hit| name(hit.tool).to_owned())
            .collect()
    };
    let mut output = serde_json::Map::new();
    if let Some(call_id) = item.get("call_id").filter(|id| id.is_string()) {
        output.insert("call_id".to_owned(), call_id.clone());
    }
    output.insert("execution".to_owned(), json!("client"));
    output.insert("status".to_owned(), json!("completed"));
    let tools = searched_namespaces(request.tools, &found, &aliases, options);
    output.insert("tools".to_owned(), Value::Array(tools));
    output.insert("type".to_owned(), json!("tool_search_output"));
    Ok(Some(Value::Object(output)))
}
