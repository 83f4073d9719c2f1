//! What each request body needs beside the conversation: the model and the provider's own
//! switches.

use std::collections::BTreeMap;

/// What an Anthropic Messages request needs beside the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnthropicOptions {
    /// The model (`claude-…`).
    pub model: String,
    /// `max_tokens` (required by the API).
    pub max_tokens: u32,
}

/// What an `OpenAI` request needs beside the conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenAiOptions {
    /// The model.
    pub model: String,
    /// Strict function schemas (see [`openai::Options::strict`](crate::providers::openai::Options::strict)).
    pub strict: bool,
    /// Descriptions of the Responses namespaces in [`ExposureMode::Deferred`](crate::ExposureMode::Deferred), by toolset
    /// name (a toolset missing here is described by its name).
    pub namespaces: BTreeMap<String, String>,
}

/// What a Gemini `generateContent` request needs beside the conversation. The model is not
/// part of the body but of the URL (`models/{model}:generateContent`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeminiOptions {
    /// Send each tool's input schema unchanged as `parametersJsonSchema` (see
    /// [`gemini::tools_json_schema`](crate::providers::gemini::tools_json_schema)) rather than converted
    /// to `parameters` ([`gemini::tools`](crate::providers::gemini::tools), the default, which every
    /// model accepts).
    pub json_schema: bool,
}
