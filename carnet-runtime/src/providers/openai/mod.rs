//! `OpenAI`: function tools for Chat Completions and for the Responses API, strict mode,
//! and the calls of both APIs.
//!
//! # Strict mode
//!
//! With [`Options::strict`], each tool's schema is rewritten by [`strict_schema`] and sent
//! with `strict: true`, so the model's arguments always match it. A tool whose schema strict
//! mode cannot express exactly (a free-form map, `uniqueItems`, ...) is sent as it is with
//! `strict: false`, one tool at a time, which is what the Responses API does itself when it
//! cannot normalize a schema; call [`strict_schema`] on a tool's schema to learn why (a
//! `carnet check`-style test can assert that every tool is strict). Strict mode makes the
//! model send `null` for optional properties: [`drop_strict_nulls`] makes them absent again
//! before the call reaches the tool.

pub(super) mod tools;
mod turn;

pub use super::bodies::{
    write_openai_chat_request as write_chat_request, write_openai_responses_request as write_responses_request,
};
pub use super::conversation::{
    OpenAiOptions as RequestOptions, openai_chat_request as chat_request, openai_responses_request as responses_request,
};
pub use super::response::{
    openai_chat_response as parse_chat_response, openai_responses_response as parse_responses_response,
};
pub use super::strict::{StrictError, drop_strict_nulls, strict_schema};
pub use super::tool_search::{
    openai_client_search_call as is_client_search_call, openai_client_tool_search as declare_client_tool_search,
    openai_tool_search as declare_tool_search, openai_tool_search_output as tool_search_output,
};
pub use tools::{Options, chat_tools, parse_chat_tool_calls, parse_responses_tool_calls, responses_tools};
pub use turn::ChatTurn;
