//! What a [`Remote`](super::Remote) handle reads: a server's resources and prompts, in the
//! shape MCP gives them (camelCase on the wire), with their bytes decoded.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A resource a server lists (`resources/list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// Where to read it ([`Remote::read_resource`](super::Remote::read_resource)).
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for people, when the server gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, when the server knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A family of resources a server lists (`resources/templates/list`): an RFC 6570 URI
/// template to fill in and read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template (`demo://resource/dynamic/text/{resourceId}`).
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A title for people, when the server gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The media type of its resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// One part of a resource read (`resources/read`): most resources are one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceContents {
    /// The part's URI (the one read, or one under it).
    pub uri: String,
    /// Its media type, when the server gives one.
    pub mime_type: Option<String>,
    /// Its text, or its bytes decoded from base64.
    pub body: ResourceBody,
}

/// A resource part's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text (`text`).
    Text(String),
    /// Bytes (`blob`, decoded from base64).
    Blob(Vec<u8>),
}

impl ResourceContents {
    /// Its text, when the server sent text.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(text) => Some(text),
            ResourceBody::Blob(_) => None,
        }
    }

    /// Its bytes: a text's UTF-8, or a blob's decoded bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        match &self.body {
            ResourceBody::Text(text) => text.as_bytes(),
            ResourceBody::Blob(bytes) => bytes,
        }
    }
}

/// A prompt a server lists (`prompts/list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    /// Its name ([`Remote::get_prompt`](super::Remote::get_prompt)).
    pub name: String,
    /// A title for people, when the server gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// An argument of a [`Prompt`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the prompt needs it.
    #[serde(default)]
    pub required: bool,
}

/// A prompt filled in (`prompts/get`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPrompt {
    /// What the prompt is for, when the server says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its messages.
    pub messages: Vec<PromptMessage>,
}

/// A message of a filled-in prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// One MCP content block (`{"type": "text", "text": ...}`, an image, a resource...), as
    /// the server sent it.
    pub content: Value,
}

impl PromptMessage {
    /// The message's text, when its content is a text block.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        (self.content["type"] == "text")
            .then(|| self.content["text"].as_str())
            .flatten()
    }
}
