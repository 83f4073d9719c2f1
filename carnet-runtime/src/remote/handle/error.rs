//! Why a [`Remote`](super::Remote) request failed: [`RemoteError`].

use std::fmt;

use serde_json::json;

use crate::dispatch::ToolError;

/// Why a request through a [`Remote`](super::Remote) handle failed. Every variant names the
/// toolset; [`RemoteError::code`] is the `code` the model would read for the same failure of
/// one of the toolset's tools (`upstream_timeout`, ...), and `?` in a tool turns it into that
/// [`ToolError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoteError {
    /// The engine has no remote toolset of this name (no such toolset, or one implemented in
    /// Rust).
    NotRemote {
        /// The name asked for.
        toolset: String,
    },
    /// The toolset is an A2A agent's (feature `remote-a2a`): it has no MCP connection to
    /// hand out. Its tools are called through a [`Session`](crate::Session).
    Unsupported {
        /// The toolset.
        toolset: String,
        /// Why, as a sentence.
        reason: String,
    },
    /// The tool is not one of the toolset's: only the tools its `TOOLSET.md` takes from the
    /// pin are called (what was reviewed, and what the drift check watches).
    UnknownTool {
        /// The toolset.
        toolset: String,
        /// The tool asked for.
        tool: String,
    },
    /// The request is not one the handle sends: carnet cannot send it (parameters that are
    /// not an object), carnet sends it itself (`initialize`), it needs notifications
    /// (`resources/subscribe`), or another method holds the pin (`tools/call`: use
    /// [`Remote::call_tool`](super::Remote::call_tool)).
    InvalidRequest {
        /// The toolset.
        toolset: String,
        /// What is wrong with it.
        message: String,
    },
    /// The server could not be started or reached, or is waiting out its restart backoff
    /// ([`RemoteOptions`](crate::RemoteOptions)).
    Unavailable {
        /// The toolset.
        toolset: String,
        /// What happened, naming the server as written (never resolved `${VAR}` values).
        message: String,
    },
    /// The server stopped during the request; it is started again on the next one.
    Crashed {
        /// The toolset.
        toolset: String,
        /// What happened.
        message: String,
    },
    /// The server did not answer within [`RemoteOptions::call_timeout`](crate::RemoteOptions).
    Timeout {
        /// The toolset.
        toolset: String,
        /// What happened.
        message: String,
    },
    /// The tool's live schema no longer matches its pin, and
    /// [`DriftPolicy::Refuse`](crate::DriftPolicy) (the default) refuses it.
    Drift {
        /// The toolset.
        toolset: String,
        /// What changed, and how to accept it.
        message: String,
    },
    /// The server answered with a JSON-RPC error (a resource it does not have: `-32002`; a
    /// method it does not serve: `-32601`; a tool it no longer has).
    Upstream {
        /// The toolset.
        toolset: String,
        /// The server's JSON-RPC error code; `None` for a refused `tools/call`, whose code the
        /// connection does not keep.
        code: Option<i32>,
        /// The server's message.
        message: String,
    },
    /// The server's answer does not have the shape MCP gives it.
    InvalidResponse {
        /// The toolset.
        toolset: String,
        /// What is wrong with it.
        message: String,
    },
}

impl RemoteError {
    /// The toolset the request was for.
    #[must_use]
    pub fn toolset(&self) -> &str {
        match self {
            RemoteError::NotRemote { toolset }
            | RemoteError::Unsupported { toolset, .. }
            | RemoteError::UnknownTool { toolset, .. }
            | RemoteError::InvalidRequest { toolset, .. }
            | RemoteError::Unavailable { toolset, .. }
            | RemoteError::Crashed { toolset, .. }
            | RemoteError::Timeout { toolset, .. }
            | RemoteError::Drift { toolset, .. }
            | RemoteError::Upstream { toolset, .. }
            | RemoteError::InvalidResponse { toolset, .. } => toolset,
        }
    }

    /// The failure's code, as a tool result's `code` says it: `not_remote`, `unsupported`,
    /// `unknown_tool`, `invalid_request`, `upstream_unavailable`, `upstream_crashed`,
    /// `upstream_timeout`, `upstream_drift`, `upstream_error` (also for an answer that does
    /// not parse).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            RemoteError::NotRemote { .. } => "not_remote",
            RemoteError::Unsupported { .. } => "unsupported",
            RemoteError::UnknownTool { .. } => "unknown_tool",
            RemoteError::InvalidRequest { .. } => "invalid_request",
            RemoteError::Unavailable { .. } => "upstream_unavailable",
            RemoteError::Crashed { .. } => "upstream_crashed",
            RemoteError::Timeout { .. } => "upstream_timeout",
            RemoteError::Drift { .. } => "upstream_drift",
            RemoteError::Upstream { .. } | RemoteError::InvalidResponse { .. } => "upstream_error",
        }
    }

    /// The error of code `code` (a failure [`serve`](super::serve) reported) for `toolset`.
    pub(super) fn from_code(toolset: &str, code: &str, message: String, rpc: Option<i32>) -> Self {
        let toolset = toolset.to_owned();
        match code {
            "upstream_unavailable" => RemoteError::Unavailable { toolset, message },
            "upstream_crashed" => RemoteError::Crashed { toolset, message },
            "upstream_timeout" => RemoteError::Timeout { toolset, message },
            "upstream_drift" => RemoteError::Drift { toolset, message },
            "invalid_request" => RemoteError::InvalidRequest { toolset, message },
            "upstream_error" => RemoteError::Upstream {
                toolset,
                code: rpc,
                message,
            },
            _ => RemoteError::InvalidResponse { toolset, message },
        }
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoteError::NotRemote { toolset } => {
                write!(f, "`{toolset}` is not a remote toolset of this engine")
            }
            RemoteError::Unsupported { toolset, reason } => write!(f, "toolset `{toolset}`: {reason}"),
            RemoteError::UnknownTool { toolset, tool } => write!(
                f,
                "tool `{tool}` is not a tool of toolset `{toolset}`: only those its TOOLSET.md takes from the pin are called (list it in `tools:`, or run `carnet mcp pin {toolset}` for a tool new on the server, and rebuild)"
            ),
            RemoteError::Upstream {
                toolset,
                code: Some(code),
                message,
            } => write!(
                f,
                "the MCP server of toolset `{toolset}` answered with error {code}: {message}"
            ),
            RemoteError::InvalidRequest { toolset, message } => {
                write!(
                    f,
                    "a request to the MCP server of toolset `{toolset}` is invalid: {message}"
                )
            }
            RemoteError::Upstream {
                code: None, message, ..
            }
            | RemoteError::Unavailable { message, .. }
            | RemoteError::Crashed { message, .. }
            | RemoteError::Timeout { message, .. }
            | RemoteError::Drift { message, .. }
            | RemoteError::InvalidResponse { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for RemoteError {}

/// A tool that fails with a `RemoteError` gives the model what one of the toolset's own tools
/// would: the message, its [`code`](RemoteError::code) and the toolset.
impl From<RemoteError> for ToolError {
    fn from(error: RemoteError) -> Self {
        let mut data = json!({"toolset": error.toolset()});
        if let RemoteError::Upstream { code: Some(code), .. } = &error {
            data["rpcCode"] = json!(code);
        }
        ToolError::new(error.to_string())
            .with_code(error.code())
            .with_data(data)
    }
}
