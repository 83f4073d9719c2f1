//! Provider-side tool search declared in a rendered body ([`ProviderSearch`]): Anthropic's
//! server-side search tool and `OpenAI`'s hosted `tool_search`, over the deferred tools.

use serde_json::{Value, json};

use super::common::ProviderError;
use crate::engine::ProviderSearch;

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
