//! A loop of your own: what one request needs from the session, in OpenAI Chat Completions'
//! JSON, and the answer's tool calls run and rendered back. For a program that already has
//! a client (async-openai, its own HTTP) and a conversation of JSON messages.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

use serde_json::{Value, json};

use super::super::{Aliases, ProviderError, conversation};
use crate::providers::openai;
use crate::session::Session;
use crate::tool::{ToolCall, ToolSpec};

/// One turn of a loop of your own, in OpenAI Chat Completions' JSON: the request body as of
/// the session now ([`ChatTurn::request`]: the system prompt, the tools under their
/// provider-safe aliases, the allow-list in
/// [`ExposureMode::AllowedTools`](crate::ExposureMode::AllowedTools)), and the answer's tool calls parsed, run through the
/// session and rendered as `tool` messages ([`ChatTurn::answer`]).
///
/// A turn is made anew for each request: a load changes the prompt and the tools, and the
/// next turn offers them. The calls of an answer run as [`crate::chat::run`] runs them ([`Session::run_calls`]): each
/// meta-tool call (a load) alone and in order, the domain calls between them side by side,
/// results in the order of the calls. A call whose arguments are not a JSON object gets an
/// error result the model can read; every call gets its `tool` message, as the API
/// requires.
///
/// # Examples
///
/// With async-openai (`create_byot`, bring-your-own-types) or any client that sends a JSON
/// body and returns the JSON completion:
///
/// ```no_run
/// # async fn send(body: serde_json::Value) -> serde_json::Value { body }
/// # async fn demo(carnet: carnet_runtime::Carnet) -> Result<(), Box<dyn std::error::Error>> {
/// use carnet_runtime::providers::openai::ChatTurn;
/// use serde_json::json;
///
/// let mut session = carnet.session("researcher")?;
/// let mut history = vec![json!({"role": "user", "content": "How did sales evolve?"})];
/// loop {
///     let turn = ChatTurn::new(&session)?;
///     let completion = send(turn.request("gpt-4.1-mini", &history)).await;
///     if turn.answer(&mut session, &completion, &mut history).await?.is_empty() {
///         break; // the last message of `history` is the model's answer
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ChatTurn {
    system: String,
    tools: Value,
    tool_choice: Option<Value>,
    /// The aliases of every tool the agent can reach, shared by its turns.
    aliases: Arc<Aliases>,
}

impl ChatTurn {
    /// The turn for `session` as it is now.
    ///
    /// # Errors
    ///
    /// When a tool has no provider-safe alias, or two share one (see [`Aliases::new`]).
    pub fn new(session: &Session) -> Result<Self, ProviderError> {
        let system = session.system_prompt().to_owned();
        let tools = session.tools();
        let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
        let request = crate::chat::ChatRequest {
            system: &system,
            messages: &[],
            tools,
            mode: session.carnet().mode(),
            callable: &callable,
        };
        // The body carnet's own client would send, without a conversation: its tools and
        // tool choice are what this turn offers.
        let mut body = conversation::openai_chat_request(&request, &openai::RequestOptions::default())?;
        let tools = body
            .get_mut("tools")
            .map_or_else(|| Value::Array(Vec::new()), Value::take);
        let tool_choice = body.get_mut("tool_choice").map(Value::take);
        // Names are read back over every tool the agent can reach: a call to one not
        // offered yet, under its alias, reaches the session as itself and is refused there
        // with the skill to load.
        Ok(ChatTurn {
            aliases: reachable_aliases(&session.reachable_specs())?,
            system,
            tools,
            tool_choice,
        })
    }

    /// The system prompt.
    #[must_use]
    pub fn system(&self) -> &str {
        &self.system
    }

    /// The `tools` of the request: `[{"type": "function", "function": {...}}]`, names
    /// under their aliases.
    #[must_use]
    pub fn tools(&self) -> &Value {
        &self.tools
    }

    /// The request body: `model`, `messages` (the system prompt, then `history`), and
    /// `tools` and `tool_choice` when there are any. Add your own parameters to it
    /// (`temperature`, `max_tokens`, `stream_options`, ...).
    #[must_use]
    pub fn request(&self, model: &str, history: &[Value]) -> Value {
        let mut messages = Vec::with_capacity(history.len() + 1);
        if !self.system.is_empty() {
            messages.push(json!({"role": "system", "content": self.system}));
        }
        messages.extend_from_slice(history);
        let mut body = json!({"model": model, "messages": messages});
        if self.tools.as_array().is_some_and(|tools| !tools.is_empty()) {
            body["tools"] = self.tools.clone();
            if let Some(choice) = &self.tool_choice {
                body["tool_choice"] = choice.clone();
            }
        }
        body
    }

    /// Reads the model's answer (the whole completion, or its `choices[0].message`),
    /// appends the assistant message to `history` (a `null` content as `""`), runs its tool calls through `session`
    /// and appends one `tool` message per call, in order. Returns the calls with their
    /// results: none means the answer is final (its text is the last message of
    /// `history`).
    ///
    /// # Errors
    ///
    /// When the answer has no assistant message, or a tool call has no `id` or no name:
    /// nothing is appended then.
    pub async fn answer(
        &self,
        session: &mut Session,
        completion: &Value,
        history: &mut Vec<Value>,
    ) -> Result<Vec<(ToolCall, crate::ToolOutput)>, ProviderError> {
        let message = completion.pointer("/choices/0/message").unwrap_or(completion);
        if message.get("role").and_then(Value::as_str) != Some("assistant") {
            return Err(ProviderError::Response {
                message: "the answer has no assistant message (`choices[0].message`)".to_owned(),
            });
        }
        let calls = self.calls(message)?;
        // Kept as the model wrote it, but for a `null` or missing `content` (a message of
        // calls only), which goes back as `""`: `OpenAI` takes either, and compatible servers
        // (llama.cpp's) refuse their own `null` when it is sent back.
        let mut kept = message.clone();
        if kept.get("content").is_none_or(Value::is_null) {
            kept["content"] = Value::String(String::new());
        }
        history.push(kept);
        let outputs = session.run_calls(&calls).await;
        for (call, output) in calls.iter().zip(&outputs) {
            history.push(json!({
                "role": "tool",
                "tool_call_id": call.id.as_deref().unwrap_or_default(),
                "content": output.to_text(),
            }));
        }
        Ok(calls.into_iter().zip(outputs).collect())
    }

    /// The message's calls, names mapped back; a call whose arguments cannot be read keeps
    /// them as text, which [`Session::run_calls`] answers with an error the model can read.
    fn calls(&self, message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        let Some(raw) = message.get("tool_calls").and_then(Value::as_array) else {
            return Ok(Vec::new());
        };
        let mut calls = Vec::with_capacity(raw.len());
        for call in raw {
            let one = json!({"role": "assistant", "tool_calls": [call]});
            match openai::parse_chat_tool_calls(&one, &self.aliases) {
                Ok(parsed) => calls.extend(parsed),
                Err(error) => {
                    let id = call.get("id").and_then(Value::as_str);
                    let name = call.pointer("/function/name").and_then(Value::as_str);
                    let (Some(id), Some(name)) = (id, name) else {
                        return Err(error);
                    };
                    let text = call
                        .pointer("/function/arguments")
                        .map_or_else(String::new, |a| match a {
                            Value::String(text) => text.clone(),
                            other => other.to_string(),
                        });
                    calls.push(ToolCall {
                        id: Some(id.to_owned()),
                        name: self.aliases.canonical(name).to_owned(),
                        arguments: Value::String(text),
                    });
                }
            }
        }
        Ok(calls)
    }
}

/// The aliases of an agent's reachable tools (a set the engine builds once per agent, which
/// its sessions share), made once per set and kept for the process. An entry is found by
/// the set's address and holds a `Weak` to it, which keeps the address from being reused
/// while the entry exists; the entries of sets dropped with their engine go when a new set
/// is added.
fn reachable_aliases(reachable: &Arc<[ToolSpec]>) -> Result<Arc<Aliases>, ProviderError> {
    type Kept = HashMap<usize, (Weak<[ToolSpec]>, Arc<Aliases>)>;
    static KEPT: LazyLock<Mutex<Kept>> = LazyLock::new(Mutex::default);
    let key = Arc::as_ptr(reachable).cast::<()>() as usize;
    if let Some((_, aliases)) = KEPT.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return Ok(Arc::clone(aliases));
    }
    let aliases = Arc::new(Aliases::new(reachable)?);
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    kept.retain(|_, (set, _)| set.strong_count() > 0);
    kept.insert(key, (Arc::downgrade(reachable), Arc::clone(&aliases)));
    Ok(aliases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolKind;

    fn set(names: &[&str]) -> Arc<[ToolSpec]> {
        names
            .iter()
            .map(|name| ToolSpec {
                name: (*name).to_owned(),
                description: String::new(),
                input_schema: Arc::new(json!({"type": "object"})),
                kind: ToolKind::Domain,
                toolset: None,
                output_schema: None,
                title: None,
                annotations: crate::manifest::Annotations::NONE,
            })
            .collect()
    }

    #[test]
    fn a_sets_aliases_are_made_once_and_let_go_with_it() {
        let reachable = set(&["file.read", "loadSkill"]);
        let first = reachable_aliases(&reachable).unwrap();
        assert!(Arc::ptr_eq(&first, &reachable_aliases(&reachable).unwrap()));
        assert_eq!(first.canonical("file_read"), "file.read");

        let other = set(&["file.read", "loadSkill"]);
        assert!(
            !Arc::ptr_eq(&first, &reachable_aliases(&other).unwrap()),
            "another set, its own"
        );
        assert!(matches!(
            reachable_aliases(&set(&["file.read", "file_read"])),
            Err(ProviderError::AliasCollision { .. })
        ));

        drop(reachable);
        let _ = reachable_aliases(&set(&["x.y"])).unwrap();
        assert_eq!(Arc::strong_count(&first), 1, "let go once its set is gone");
    }
}
