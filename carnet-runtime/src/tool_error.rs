//! [`ToolError`]: why a tool failed, as the model reads it, or an internal error the model
//! reads only as an incident id.

use std::fmt;

use serde_json::{Value, json};

use crate::dispatch::ToolOutput;

/// Why a tool failed, as the model will read it: a message, and optionally a stable code
/// and JSON data a program (or a model) can act on. They reach the tool result as
/// `{"success": false, "error": message, "code": code, "data": data, "tool": name}` and MCP's
/// `structuredContent` with `isError: true`.
///
/// An error the model should not read (a path, a query, a token formatted into a
/// message) is made with [`ToolError::internal`]: the model reads a generic message with an
/// incident id, and the error with its chain goes to the `execute_tool` span and the log.
/// A tool function's `Err` of a type that does not convert into `ToolError` is internal;
/// `ToolError`, `String` and `&str` (a message written for the model), and any type with a
/// `From` impl into `ToolError` (where its author chooses what the model reads) are shown.
///
/// # Examples
///
/// ```
/// use carnet_runtime::ToolError;
/// use serde_json::json;
///
/// let error = ToolError::new("rate limited, retry in 30 s")
///     .with_code("rate_limited")
///     .with_data(json!({"retryAfter": 30}));
/// assert_eq!(error.to_string(), "rate limited, retry in 30 s");
/// assert_eq!(error.code.as_deref(), Some("rate_limited"));
///
/// let io = std::io::Error::other("cannot open /srv/secrets/db.key");
/// let internal = ToolError::internal(&io);
/// assert!(internal.is_internal());
/// assert!(!internal.message.contains("secrets"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// The message the model reads.
    pub message: String,
    /// A stable, machine-readable code (`not_found`, `rate_limited`, ...).
    pub code: Option<String>,
    /// Structured details.
    pub data: Option<Value>,
    /// For an internal error: the error and its chain, for the operator only.
    internal: Option<Box<str>>,
}

/// The message the model reads for an internal error (the session adds the incident id).
const INTERNAL_MESSAGE: &str = "the tool failed with an internal error";

impl ToolError {
    /// A tool error with this message.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            code: None,
            data: None,
            internal: None,
        }
    }

    /// An error the model must not read: it gets a generic message and an incident id
    /// (code `internal_error`); the error, with its chain of sources, goes to the
    /// `execute_tool` span and an error event in the log, under the same id.
    #[must_use]
    pub fn internal<E: std::error::Error + ?Sized>(error: &E) -> Self {
        let mut detail = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            detail.push_str(": ");
            detail.push_str(&cause.to_string());
            source = cause.source();
        }
        Self::from_detail(detail)
    }

    /// [`ToolError::internal`] for a type that is only `Display` (`anyhow::Error` is one:
    /// its alternate form, used here, prints the chain).
    #[must_use]
    pub fn internal_display<E: fmt::Display + ?Sized>(error: &E) -> Self {
        Self::from_detail(format!("{error:#}"))
    }

    fn from_detail(detail: String) -> Self {
        ToolError {
            message: INTERNAL_MESSAGE.to_owned(),
            code: Some("internal_error".to_owned()),
            data: None,
            internal: Some(detail.into_boxed_str()),
        }
    }

    /// Whether this is an internal error ([`ToolError::internal`]).
    #[must_use]
    pub fn is_internal(&self) -> bool {
        self.internal.is_some()
    }

    /// The full error of an internal error, for the operator (never sent to the model).
    #[must_use]
    pub fn internal_detail(&self) -> Option<&str> {
        self.internal.as_deref()
    }

    /// Sets the code.
    #[must_use]
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Sets the data.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The error as the result the model reads for a call of `tool` (an internal error's
    /// detail stays out: the session records it and gives an incident id first).
    pub(crate) fn into_output(self, tool: &str) -> ToolOutput {
        let mut output = ToolOutput::error(self.message, json!({"tool": tool}));
        if let Some(code) = self.code {
            output.value["code"] = Value::String(code);
        }
        if let Some(data) = self.data {
            output.value["data"] = data;
        }
        output
    }
}

impl From<String> for ToolError {
    /// A message written for the model.
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    /// A message written for the model.
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}
