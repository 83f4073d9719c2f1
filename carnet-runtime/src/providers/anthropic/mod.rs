//! Anthropic Messages API: client tools and `tool_use` blocks.
//!
//! Input schemas are sent as they are: the Messages API takes JSON Schema, `$ref`/`$defs`
//! included. To cache the tool list with prompt caching, put
//! `"cache_control": {"type": "ephemeral"}` on the last tool of the returned array: tools
//! come first in Anthropic's cache prefix, and their order here never changes.

pub(super) mod tools;

pub use super::bodies::write_anthropic_request as write_request;
pub use super::conversation::{AnthropicOptions as RequestOptions, anthropic_request as request};
pub use super::response::anthropic_response as parse_response;
pub use super::tool_search::anthropic_tool_search as declare_tool_search;
pub use tools::{parse_tool_calls, tools};
