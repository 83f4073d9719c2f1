//! The desk agent: MCP servers behind skills (the official filesystem, time and everything
//! servers, pinned in `carnet/toolsets/*/mcp.lock.json`) beside a toolset written in Rust
//! (`notes`), and a scripted model that uses them (no network, no API key).
//!
//! The remote toolsets need no Rust: `manifest::Toolsets` has a field for `notes` only, and
//! the engine starts each server on the first load of a skill that needs it. The `library`
//! toolset offers none of its server's tools: `notes`' `readReference` reads the server's
//! resources itself, through the engine's connection (`Context::remote`).

// Example code: results are returned, not accidentally dropped.
#![allow(clippy::must_use_candidate)]

use std::sync::Mutex;

use carnet::chat::{self, ChatModel, ChatRequest, ChatResponse, Message, ModelError};
use carnet::tools::{BoxFuture, ToolCall};
use carnet::{Context, ToolError, ToolOutput};
use serde_json::{Value, json};

carnet::include_manifest!(pub mod manifest);

/// The notes the agent keeps, in the program's memory.
#[derive(Debug, Default)]
pub struct Notes {
    items: Mutex<Vec<String>>,
}

#[carnet::toolset("notes")]
impl Notes {
    /// Adds a note; returns how many there are.
    #[carnet::tool]
    pub fn add_note(&self, text: String) -> usize {
        let mut items = self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        items.push(text);
        items.len()
    }

    /// The notes, oldest first.
    #[carnet::tool]
    pub fn list_notes(&self) -> Vec<String> {
        self.items
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Reads a reference document of the desk: resource
    /// `demo://resource/static/document/{name}` of the `library` toolset's server, through
    /// the engine's connection to it (started on first use). A server that cannot answer is
    /// the error the model would read for one of its own tools (`upstream_unavailable`,
    /// `upstream_timeout`, ...).
    #[carnet::tool]
    pub async fn read_reference(&self, context: &Context<'_>, name: String) -> Result<String, ToolError> {
        let library = context.remote(manifest::toolsets::LIBRARY)?;
        let uri = format!("demo://resource/static/document/{name}");
        let contents = library.read_resource(&uri).await?;
        contents
            .iter()
            .find_map(|part| part.text())
            .map(str::to_owned)
            .ok_or_else(|| ToolError::new(format!("`{name}` has no text")))
    }
}

/// The user's question.
pub fn question(file: &str) -> Message {
    Message::User(format!(
        "What does `{file}` on my desk say? Keep a note of it, and tell me the time in Paris."
    ))
}

/// Reads a file of the desk, notes what it says and tells the time: loading each skill only
/// when it needs one of its tools, as a model following the catalog would.
#[derive(Debug)]
pub struct ScriptedDesk {
    file: String,
    next_call: usize,
}

impl ScriptedDesk {
    /// A model that will read `file` (a name inside the desk).
    pub fn new(file: impl Into<String>) -> Self {
        ScriptedDesk {
            file: file.into(),
            next_call: 1,
        }
    }

    fn decide(&mut self, request: &ChatRequest<'_>) -> ChatResponse {
        let results: Vec<(&ToolCall, &ToolOutput)> = chat::tool_results(request.messages).collect();
        let last = |name: &str| results.iter().rev().find(|(c, _)| c.name == name).map(|(_, o)| *o);
        let callable = |name: &str| request.callable.iter().any(|t| t == name);
        if !callable("read_text_file") {
            return self.call("loadSkill", json!({"skillName": "files"}));
        }
        let Some(desk) = last("list_allowed_directories") else {
            return self.call("list_allowed_directories", json!({}));
        };
        let Some(read) = last("read_text_file") else {
            // The server answers `Allowed directories:\n/path`: the desk is the last line.
            let dir = text(desk).lines().last().unwrap_or_default().trim();
            return self.call("read_text_file", json!({"path": format!("{dir}/{}", self.file)}));
        };
        let content = text(read);
        if !callable("addNote") {
            return self.call("loadSkill", json!({"skillName": "notes"}));
        }
        let Some(noted) = last("addNote") else {
            return self.call("addNote", json!({"text": format!("{}: {}", self.file, content.trim())}));
        };
        let Some(reference) = last("readReference") else {
            return self.call("readReference", json!({"name": "features.md"}));
        };
        // The document's title: its first line, without the heading's `#`.
        let title = reference.to_text();
        let title = title
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches('#')
            .trim()
            .to_owned();
        if !callable("get_current_time") {
            return self.call("loadSkill", json!({"skillName": "clock"}));
        }
        let Some(time) = last("get_current_time") else {
            return self.call("get_current_time", json!({"timezone": "Europe/Paris"}));
        };
        let paris = time.value.get("datetime").and_then(Value::as_str).unwrap_or("unknown");
        ChatResponse::answer(format!(
            "`{}` says: \"{}\". Noted (you have {} note(s)). The reference `features.md` is titled \"{title}\". In Paris it is {paris}.",
            self.file,
            content.trim(),
            noted.value
        ))
    }

    fn call(&mut self, name: &str, arguments: Value) -> ChatResponse {
        let call = chat::call(self.next_call, name, arguments);
        self.next_call += 1;
        ChatResponse::tool_calls(None, vec![call])
    }
}

/// A filesystem tool's text: its structured `content` (the official server sends both), else
/// its text block.
fn text(output: &ToolOutput) -> &str {
    output
        .value
        .get("content")
        .and_then(Value::as_str)
        .or_else(|| output.value.as_str())
        .unwrap_or_default()
}

impl ChatModel for ScriptedDesk {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = self.decide(&request);
        Box::pin(async move { Ok(response) })
    }
}
