//! Tool lists in each provider's wire format, and tool calls parsed back.
//!
//! | API | tools | calls |
//! | --- | --- | --- |
//! | `OpenAI` Chat Completions | [`openai::chat_tools`] | [`openai::parse_chat_tool_calls`] |
//! | `OpenAI` Responses | [`openai::responses_tools`] | [`openai::parse_responses_tool_calls`] |
//! | Anthropic Messages | [`anthropic::tools`] | [`anthropic::parse_tool_calls`] |
//! | Gemini (`generateContent`) | [`gemini::tools`], [`gemini::tools_json_schema`] | [`gemini::parse_tool_calls`] |
//! | MCP (`tools/list`, `tools/call`) | [`mcp::tools`] | [`mcp::parse_call`] |
//!
//! Whole request bodies from a [`ChatRequest`](crate::chat::ChatRequest), in every exposure
//! mode: [`anthropic::request`], [`openai::chat_request`], [`openai::responses_request`],
//! [`gemini::request`] (its allow-list alone: [`gemini::tool_config`]). Whole responses
//! read back as a [`ChatResponse`](crate::chat::ChatResponse) (text, calls, usage, stop
//! reason): [`anthropic::parse_response`], [`openai::parse_chat_response`],
//! [`openai::parse_responses_response`], [`gemini::parse_response`]; streamed ones
//! (server-sent events) by [`ResponseStream`].
//!
//! # Exposure modes, per API
//!
//! | mode | Anthropic Messages | `OpenAI` Responses | `OpenAI` Chat Completions | Gemini |
//! | --- | --- | --- | --- | --- |
//! | `Dynamic`, `Dispatcher` | the session's tools | the session's tools | the session's tools | the session's tools |
//! | `Deferred` | every tool; domain tools `defer_loading: true`; a load's result carries `tool_reference` blocks | meta-tools as functions, one `namespace` of deferred functions per toolset; a load's output is followed by an `additional_tools` item | no deferral: every tool, as `AllowedTools` without the switch | no deferral: every tool, as `AllowedTools` without the switch |
//! | `AllowedTools` | no allow-list switch: every tool (the session refuses unexposed ones) | every tool, `tool_choice: {type: allowed_tools}` | every tool, `tool_choice: {type: allowed_tools}` | every tool, `toolConfig.functionCallingConfig: {mode: VALIDATED, allowedFunctionNames}` ([`gemini::tool_config`]) |
//! | `Deferred` + [`ProviderSearch`] (opt-in) | as `Deferred`, plus the server-side tool search tool (`tool_search_tool_bm25_20251119` or `tool_search_tool_regex_20251119`) over the deferred tools: [`anthropic::declare_tool_search`] | as `Deferred`, plus the hosted `{"type": "tool_search"}` over the deferred namespaces (`gpt-5.4` and later): [`openai::declare_tool_search`]; or the client-executed one, answered by carnet's search: [`openai::declare_client_tool_search`] | no equivalent: nothing is declared | no equivalent: nothing is declared |
//!
//! `OpenAI` Responses answers a load with an `additional_tools` input item rather than the
//! client-executed `tool_search` flow: `loadSkill` stays an ordinary function whose output
//! carries the skill's instructions (a `tool_search_output` can carry tool definitions only),
//! and the same meta-tool works with every provider.
//!
//! In the modes that keep the prefix, the system prompt and the tools array are the same
//! bytes on every turn, so the provider's prompt cache covers them and grows with the
//! conversation.
//!
//! # Provider-side tool search
//!
//! With a [`ProviderSearch`] other than `Off` (set on `models::Anthropic::tool_search` and
//! `models::OpenAi::tool_search`, or applied to a body with `declare_tool_search`), the
//! provider searches the deferred tools itself and shows the model the definitions it finds
//! (Anthropic `tool_reference` blocks in a `tool_search_tool_result`, an `OpenAI`
//! `tool_search_output`). The response parsers keep those blocks and items in
//! [`ChatResponse::hosted`](crate::chat::ChatResponse::hosted); the chat loop stores them as a
//! [`Message::Hosted`](crate::chat::Message::Hosted) and each renderer sends back the ones
//! of its own API as they came, in the model's turn, never as calls. A tool the provider's
//! search found is **not** exposed by it: the session's rules do not change, and a call of
//! a tool no load exposed is refused with the usual error result naming the skill to load.
//! The declared tool is appended after the others and never changes, so the cached prefix
//! stays the same all conversation long.
//!
//! `OpenAI`'s search can also be executed by the client ([`openai::declare_client_tool_search`]:
//! `{"type": "tool_search", "execution": "client"}`): the model's `tool_search_call` is
//! answered with carnet's own search (`searchTools`' ranking over the engine's index) as a
//! `tool_search_output` of the tools found, [`openai::tool_search_output`];
//! `models::OpenAi::carnet_tool_search` does it within one model call, and both items are
//! kept and sent back as the hosted search's are. `loadSkill` still answers loads.
//!
//! # Names
//!
//! Canonical tool names may contain `.` (`file.read`), which `OpenAI` and Anthropic reject.
//! Every renderer, MCP included, sends a tool under its alias ([`names::alias`](crate::names::alias):
//! `file.read` → `file_read`), and every parser maps the name it reads back through
//! [`Aliases`]. MCP allows `.`, but MCP clients commonly pass server tool names straight on
//! to `OpenAI` or Anthropic, so the alias is the one name that works behind every client; and
//! one wire name per tool keeps logs and transcripts alike across providers. A name that is
//! not an alias is kept as it is (the session then reports an unknown tool with the name the
//! model wrote); that includes a canonical name, so an MCP client calling `file.read` works
//! too.
//!
//! Renderers check the aliases ([`Aliases::new`]) and fail on a collision (`file.read` and
//! `file_read` in one list), so every renderer returns a `Result`.
//!
//! # Order
//!
//! Tools come out in the order of the specs. Object keys are in `serde_json`'s order (sorted
//! by key), so the same specs always render to the same bytes, which keeps providers' prompt
//! caches warm.
//!
//! # Schemas
//!
//! A [`ToolSpec`](crate::ToolSpec) carries a JSON Schema (draft 2020-12). `OpenAI` (non-strict), Anthropic and
//! MCP receive it unchanged. `OpenAI`'s strict mode needs a rewrite ([`openai::strict_schema`]),
//! and Gemini's `parameters` take an `OpenAPI` 3.0 subset ([`gemini::parameters`]).
//!
//! # Bytes
//!
//! Besides the `Value` renderers, each body has a writer that appends its bytes to an
//! [`std::io::Write`] ([`openai::write_chat_request`], [`openai::write_responses_request`],
//! [`anthropic::write_request`], [`gemini::write_request`], [`mcp::write_tools`]; for a
//! Gemini body of your own, [`gemini::write_tools`], [`gemini::write_tools_json_schema`] and
//! [`gemini::write_system_instruction`]): the same bytes as the `Value` serialized by
//! `serde_json`, written without building it. The system prompt is escaped
//! eight bytes at a time; each tool's JSON is serialized the first time a list holds it and
//! kept for the process under its name with the spec it came from, so a later list of the
//! same specs (an engine's sessions share them) is a run of copies. The conversation's
//! messages are written item by item, a tool result's text escaped once as its value is
//! serialized. The model clients send what the writers write.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//!
//! use carnet_runtime::providers::{Aliases, openai};
//! use carnet_runtime::{ToolKind, ToolSpec};
//! use serde_json::json;
//!
//! let specs = [ToolSpec {
//!     name: "file.read".into(),
//!     description: "Read a file".into(),
//!     input_schema: Arc::new(json!({
//!         "type": "object",
//!         "properties": { "path": { "type": "string" } },
//!         "required": ["path"],
//!     })),
//!     kind: ToolKind::Domain,
//!     toolset: Some("files".into()),
//!     output_schema: None,
//!     title: None,
//!     annotations: Default::default(),
//! }];
//! let tools = openai::chat_tools(&specs, &openai::Options::default())?;
//! assert_eq!(tools[0]["function"]["name"], "file_read");
//!
//! let aliases = Aliases::new(&specs)?;
//! let message = json!({ "role": "assistant", "tool_calls": [{
//!     "id": "call_1", "type": "function",
//!     "function": { "name": "file_read", "arguments": "{\"path\":\"notes.md\"}" },
//! }]});
//! let calls = openai::parse_chat_tool_calls(&message, &aliases)?;
//! assert_eq!(calls[0].name, "file.read");
//! assert_eq!(calls[0].arguments, json!({ "path": "notes.md" }));
//! # Ok::<(), carnet_runtime::providers::ProviderError>(())
//! ```

pub mod anthropic;
mod bodies;
mod common;
pub(crate) mod conversation;
mod response;
mod sse;
mod stream;

pub use crate::engine::ProviderSearch;
pub use common::{Aliases, ProviderError};
pub use stream::{MAX_EVENT_BYTES, ResponseStream, StreamFormat};
pub mod gemini;
pub mod mcp;
pub mod openai;

pub(crate) mod history;
pub(crate) mod json_text;
mod prompt_bytes;
mod schema;
mod strict;
mod tool_bytes;
mod tool_search;
pub(crate) mod writer;
