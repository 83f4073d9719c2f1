//! The conversation as data: its messages, and a transcript that saves it with the
//! session's state.

use serde_json::Value;

use crate::dispatch::ToolOutput;
use crate::session::Session;
use crate::tool::ToolCall;

/// A message of the conversation. Serialises as `{"role": "user" | "assistant" | "tool" |
/// "hosted", "content": ...}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "role", content = "content", rename_all = "snake_case")]
pub enum Message {
    /// From the user.
    User(String),
    /// From the model: text, tool calls, or both.
    Assistant {
        /// What the model said.
        text: Option<String>,
        /// The tools it called.
        #[serde(rename = "toolCalls")]
        tool_calls: Vec<ToolCall>,
    },
    /// A tool's result.
    Tool {
        /// The call it answers.
        call: ToolCall,
        /// The result.
        output: ToolOutput,
    },
    /// What the provider ran itself during the model's turn, before the
    /// [`Message::Assistant`] that follows (its tool search, see
    /// [`ProviderSearch`](crate::providers::ProviderSearch)): Anthropic `server_tool_use` and
    /// `tool_search_tool_result` blocks, `OpenAI` Responses `tool_search_call` and
    /// `tool_search_output` items, as the provider wrote them; and Gemini's parts of a turn
    /// that carries thought signatures, which go back in place of that turn. Each renderer
    /// sends back the ones of its own API, in the model's turn, and leaves the others out;
    /// none of them is a call the session runs.
    Hosted(Vec<Value>),
}

/// A conversation saved as data: its messages and its session's state. Saved as JSON, it
/// resumes in another process ([`Transcript::resume`]) exactly where it stopped: the next
/// request is the one the uninterrupted conversation would have sent.
///
/// # Examples
///
/// ```
/// # use carnet_runtime::{Carnet, Manifest, block_on};
/// use carnet_runtime::chat::{Message, Transcript};
/// # let manifest = Manifest::from_json(r#"{"agents": {"a": {"name": "a", "description": "A",
/// #   "skills": ["s"], "prompt": ""}}, "skills": {"s": {"name": "s", "description": "S", "content": "Do S."}},
/// #   "toolsets": {}}"#)?;
/// # let carnet = Carnet::builder(&manifest).build()?;
/// let mut session = carnet.session("a")?;
/// block_on(session.call("loadSkill", serde_json::json!({"skillName": "s"})));
/// let saved = serde_json::to_string(&Transcript::new(&session, vec![Message::User("hi".into())]))?;
///
/// let (resumed, messages) = serde_json::from_str::<Transcript>(&saved)?.resume(&carnet)?;
/// assert!(resumed.is_loaded("s"));
/// assert_eq!(messages, [Message::User("hi".into())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transcript {
    /// The messages so far.
    pub messages: Vec<Message>,
    /// The session's loaded skills, toolsets and tools, by name.
    pub state: crate::session::SessionState,
}

impl Transcript {
    /// The conversation of `session` with `messages`.
    #[must_use]
    pub fn new(session: &Session, messages: Vec<Message>) -> Self {
        Transcript {
            messages,
            state: session.state(),
        }
    }

    /// The session, resumed on `carnet`, and the messages.
    ///
    /// # Errors
    ///
    /// As [`crate::Carnet::resume`]: a state saved against other content, or naming what the
    /// agent cannot load.
    pub fn resume(self, carnet: &crate::Carnet) -> Result<(Session, Vec<Message>), crate::SessionError> {
        Ok((carnet.resume(&self.state)?, self.messages))
    }
}

/// The tool results of a conversation, newest first, for models deciding what to do next.
pub fn tool_results(messages: &[Message]) -> impl Iterator<Item = (&ToolCall, &ToolOutput)> {
    messages.iter().rev().filter_map(|m| match m {
        Message::Tool { call, output } => Some((call, output)),
        _ => None,
    })
}

/// The last user message.
#[must_use]
pub fn last_user_message(messages: &[Message]) -> Option<&str> {
    messages.iter().rev().find_map(|m| match m {
        Message::User(text) => Some(text.as_str()),
        _ => None,
    })
}

/// A tool call with a generated id (`call_<n>`), for scripted models and tests.
#[must_use]
pub fn call(n: usize, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: Some(format!("call_{n}")),
        name: name.to_owned(),
        arguments,
    }
}
