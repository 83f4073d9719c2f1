//! Remote toolsets (feature `remote`): toolsets whose tools an MCP server serves.
//!
//! A `TOOLSET.md` with an `mcp:` block names a server: a command started as a child process
//! speaking MCP over stdio, or a streamable HTTP URL. `carnet mcp pin` records the server's
//! tool list in `mcp.lock.json` ([`Pin`]); the build checks the content against the pin and
//! never opens a connection. Such toolsets need no Rust: [`crate::CarnetBuilder::build`]
//! binds them to their server itself.
//!
//! # Lifecycle
//!
//! configured → pinned (known at build) → started → invoked. One connection per engine,
//! shared by every session. A server starts on the first load of a skill that brings its
//! toolset (in the background, when a tokio runtime is running) or on the first call of one
//! of its tools; a server no loaded skill needs is never started. `${VAR}` references are
//! read from the environment when it starts ([`Server::resolve`]), never stored.
//!
//! Every call is bounded by [`RemoteOptions::call_timeout`](crate::RemoteOptions). A server
//! that crashes, hangs or cannot be started gives the model an error result naming the
//! toolset (`code`: `upstream_unavailable`, `upstream_crashed`, `upstream_timeout`,
//! `upstream_error`, `upstream_drift`), never takes the session or the process down, and is
//! started again on a later call, after a backoff that doubles up to
//! [`RemoteOptions::max_restart_backoff`](crate::RemoteOptions).
//!
//! # Drift
//!
//! On connect, and after `notifications/tools/list_changed`, the live tool list is compared
//! with the pin. A pinned tool that vanished or whose input or output schema changed is
//! refused (`upstream_drift`) under [`DriftPolicy::Refuse`](crate::DriftPolicy), the
//! default, and called anyway under [`DriftPolicy::Accept`](crate::DriftPolicy); either
//! way the drift is logged (`carnet::remote` target, a warning). Tools the server added are
//! not offered until they are pinned.
//!
//! # Results
//!
//! A call's [`ToolOutput`] carries the server's content blocks as they came
//! ([`ToolOutput::content`]), which `carnet::mcp` passes through unchanged; its `value` is
//! the structured content when the server gave one, else the text of a single text block,
//! else the blocks. An error result (`isError`) is an error output whose message is the
//! server's text.
//!
//! # From Rust
//!
//! [`Carnet::remote`](crate::Carnet::remote) hands the engine's connection to code outside
//! the model's turn: a [`Remote`] calls the pinned tools, reads the resources and prompts,
//! started, bounded and held to the pin as the model's calls are (see [`handle`]).

#[cfg(feature = "remote-a2a")]
pub mod a2a;
pub mod handle;
#[cfg(feature = "remote-oauth")]
pub mod oauth;
mod pin;
mod server;
pub(crate) mod tls;
mod upstream;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

pub use handle::{Remote, RemoteError, RemoteToolset};
pub use pin::{PIN_FILE, PIN_VERSION, Pin, PinError};
pub use server::{Server, ServerError};

use crate::dispatch::{BoxFuture, Context, ToolError, ToolHandler, ToolImpl, ToolOutput, ToolsetImpl};
use crate::engine::carnet::RemoteServer;
use crate::engine::options::{BuildError, RemoteOptions};
use crate::manifest::Toolset;
use upstream::{PinnedTool, Unavailable, Upstream};

/// An MCP toolset's server as the engine sees it: its connection, and the call timeout that
/// bounds the requests of its [`Remote`] handles.
struct McpServer {
    upstream: Arc<Upstream>,
    call_timeout: std::time::Duration,
}

impl RemoteServer for McpServer {
    fn warm(self: Arc<Self>) {
        Upstream::warm(&self.upstream);
    }

    fn started(&self) -> bool {
        self.upstream.started()
    }

    fn serve_hosts(&self) {
        self.upstream.serve_hosts();
    }

    fn forward(
        self: Arc<Self>,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, (i32, String)>> {
        if handle::serve::is_handle_method(method) {
            return Box::pin(async move {
                Ok(handle::serve::answer(&self.upstream, self.call_timeout, method, params).await)
            });
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Box::pin(std::future::ready(Err((-32603, "outside a tokio runtime".to_owned()))));
        }
        Box::pin(async move { Upstream::forward(&self.upstream, method, params).await })
    }

    fn read_skill(
        self: Arc<Self>,
        skill: String,
        uri: String,
        digest: String,
    ) -> BoxFuture<'static, Result<String, ToolOutput>> {
        let upstream = Arc::clone(&self.upstream);
        if tokio::runtime::Handle::try_current().is_err() {
            return Box::pin(std::future::ready(Err(skill_error(
                &upstream,
                &skill,
                "upstream_unavailable",
                "it can only be read inside a tokio runtime",
            ))));
        }
        Box::pin(async move {
            let bytes = upstream
                .read_resource(&uri)
                .await
                .map_err(|e| skill_error(&upstream, &skill, e.code, &e.message))?;
            let found = pin::sha256(&bytes);
            if found != digest {
                tracing::warn!(target: "carnet::remote", toolset = %upstream.toolset, skill = %skill, %found, pinned = %digest, "remote skill does not match its pin");
                return Err(skill_error(
                    &upstream,
                    &skill,
                    "upstream_drift",
                    &format!(
                        "its `SKILL.md` ({uri}) does not match its pin: refused (run `carnet mcp pin {}` and rebuild to accept the server's new version)",
                        upstream.toolset
                    ),
                ));
            }
            let text = String::from_utf8(bytes).map_err(|_| {
                skill_error(
                    &upstream,
                    &skill,
                    "upstream_error",
                    &format!("its `SKILL.md` ({uri}) is not UTF-8"),
                )
            })?;
            Ok(body(&text).to_owned())
        })
    }
}

/// A remote skill that could not be read, as the result the model reads.
fn skill_error(upstream: &Upstream, skill: &str, code: &str, why: &str) -> ToolOutput {
    ToolOutput::error(
        format!(
            "skill `{skill}` of the MCP server of toolset `{}` cannot be loaded: {why}",
            upstream.toolset
        ),
        json!({"skill": skill, "code": code, "data": {"toolset": upstream.toolset, "server": upstream.server_name}}),
    )
}

/// A `SKILL.md`'s body: what follows its frontmatter (the closing `---` line and one line
/// break), or all of it when it has none.
fn body(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return text;
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return &rest[offset..];
        }
    }
    text
}

/// A remote toolset's server description (`server`) and pinned server name, from
/// [`Toolset::mcp`].
fn describe(toolset: &Toolset) -> Result<(Server, String), BuildError> {
    let invalid = |reason: String| BuildError::RemoteToolset {
        toolset: toolset.name.to_string(),
        reason,
    };
    let mcp: Value = toolset
        .mcp
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| invalid(format!("its `mcp` JSON does not parse: {e}")))?
        .unwrap_or(Value::Null);
    let server = Server::from_json(&mcp["server"]).map_err(|e| invalid(e.to_string()))?;
    let name = mcp["pin"]["serverInfo"]["name"]
        .as_str()
        .unwrap_or(&toolset.name)
        .to_owned();
    Ok((server, name))
}

/// The implementations of a remote toolset: one handler per pinned tool, all calling one
/// [`Upstream`] (returned too, for the engine to start on load); an A2A agent's (`"protocol":
/// "a2a"`) call the agent.
pub(crate) fn toolset_impl(
    toolset: &Toolset,
    options: &RemoteOptions,
) -> Result<(ToolsetImpl, Arc<dyn RemoteServer>), BuildError> {
    let remote: Value = toolset
        .mcp
        .as_deref()
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or_default();
    if remote["protocol"] == "a2a" {
        #[cfg(feature = "remote-a2a")]
        return a2a::toolset_impl(toolset, &remote, options);
        #[cfg(not(feature = "remote-a2a"))]
        return Err(BuildError::RemoteToolset {
            toolset: toolset.name.to_string(),
            reason: "calling its A2A agent needs carnet's feature `remote-a2a`".into(),
        });
    }
    let (server, server_name) = describe(toolset)?;
    let mut pinned = HashMap::new();
    let mut tools = Vec::with_capacity(toolset.tools.len());
    let mut specs = Vec::with_capacity(toolset.tools.len());
    for tool in toolset.tools.iter() {
        let remote: Value = tool
            .remote
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok())
            .unwrap_or(Value::Null);
        let input = remote["inputSchema"].clone();
        if !input.is_object() {
            return Err(BuildError::RemoteToolset {
                toolset: toolset.name.to_string(),
                reason: format!("tool `{}` has no pinned input schema", tool.name),
            });
        }
        let output = remote.get("outputSchema").filter(|s| s.is_object()).cloned();
        pinned.insert(
            tool.name.to_string(),
            PinnedTool {
                input_schema: input.clone(),
                output_schema: output.clone(),
            },
        );
        specs.push((tool.name.to_string(), input, output));
    }
    let upstream = Arc::new(Upstream::new(
        toolset.name.to_string(),
        server_name,
        server,
        pinned,
        options.clone(),
    ));
    for (name, input, output) in specs {
        let handler = RemoteTool {
            upstream: Arc::clone(&upstream),
            name: name.clone(),
        };
        let mut tool = ToolImpl::new(name, input, handler);
        if let Some(output) = output {
            tool = tool.with_output_schema(output);
        }
        tools.push(tool);
    }
    let server: Arc<dyn RemoteServer> = Arc::new(McpServer {
        upstream,
        call_timeout: options.call_timeout,
    });
    Ok((ToolsetImpl::new(toolset.name.to_string(), tools), server))
}

/// A remote call's value, from its whole output: an error output is the [`ToolError`] its
/// message says (`failed` when it has none). What `ToolHandler::call` gives for the tools of
/// remote toolsets, MCP and A2A alike.
fn value_of<'a>(
    output: BoxFuture<'a, Result<ToolOutput, ToolError>>,
    failed: &'static str,
) -> BoxFuture<'a, Result<Value, ToolError>> {
    Box::pin(async move {
        let output = output.await?;
        if output.is_error {
            Err(ToolError::new(output.error_message().unwrap_or(failed)))
        } else {
            Ok(output.value)
        }
    })
}

/// One remote tool: a call is a `tools/call` on its toolset's server.
struct RemoteTool {
    upstream: Arc<Upstream>,
    name: String,
}

impl ToolHandler for RemoteTool {
    fn call<'a>(&'a self, context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        value_of(self.call_output(context, arguments), "the tool failed")
    }

    fn call_output<'a>(
        &'a self,
        _context: &'a Context<'a>,
        arguments: Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        tracing::Span::current().record("carnet.mcp.server", self.upstream.server_name.as_str());
        if tokio::runtime::Handle::try_current().is_err() {
            // Starting a process and its I/O need tokio's reactor: say so rather than panic.
            let error = ToolError::new(format!(
                "the MCP server of toolset `{}` can only be called inside a tokio runtime",
                self.upstream.toolset
            ))
            .with_code("upstream_unavailable");
            return Box::pin(std::future::ready(Err(error)));
        }
        Box::pin(async move {
            match self.upstream.call(&self.name, arguments).await {
                Ok(result) => Ok(output(
                    &self.upstream.toolset,
                    &self.name,
                    &upstream::result_json(&result),
                )),
                Err(Unavailable { message, code }) => Err(ToolError::new(message)
                    .with_code(code)
                    .with_data(json!({"toolset": self.upstream.toolset, "server": self.upstream.server_name}))),
            }
        })
    }
}

/// A `tools/call` result as carnet's output (see the module's docs).
fn output(toolset: &str, tool: &str, result: &Value) -> ToolOutput {
    let content: Vec<Value> = result["content"].as_array().cloned().unwrap_or_default();
    let texts: Vec<&str> = content
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    if result["isError"] == true {
        let message = if texts.is_empty() {
            "the tool failed".to_owned()
        } else {
            texts.join("\n")
        };
        return ToolOutput::error(message, json!({"tool": tool, "toolset": toolset})).with_content(content);
    }
    let value = match result.get("structuredContent") {
        Some(structured) if !structured.is_null() => structured.clone(),
        _ if content.len() == 1 && texts.len() == 1 => Value::String(texts[0].to_owned()),
        _ => Value::Array(content.clone()),
    };
    ToolOutput::ok(value).with_content(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_server_content() {
        let text = output("fs", "read", &json!({"content": [{"type": "text", "text": "hello"}]}));
        assert_eq!(text.value, json!("hello"));
        assert_eq!(
            text.content.as_deref(),
            Some(&[json!({"type": "text", "text": "hello"})][..])
        );
        let structured = output(
            "fs",
            "stat",
            &json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"size": 3}}),
        );
        assert_eq!(structured.value, json!({"size": 3}));
        let failed = output(
            "fs",
            "read",
            &json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}),
        );
        assert!(failed.is_error);
        assert_eq!(failed.error_message(), Some("no such file"));
        assert_eq!(failed.value["toolset"], "fs");
    }
}
