//! A typed handle to a remote toolset's MCP connection, for code outside the model's turn: a
//! tool, a hook, start-up code ([`Carnet::remote`](crate::Carnet::remote)).
//!
//! A [`Remote`] is the connection the engine already keeps for the toolset: started lazily on
//! its first request (as the model's first call would start it), bounded by the same
//! [`RemoteOptions`](crate::RemoteOptions) (connect and call timeouts, restart backoff), held
//! to the same pin ([`DriftPolicy`](crate::DriftPolicy)), and shared by every session of the
//! engine. It carries no session state: what one session's code reads through it is never
//! another session's.
//!
//! What it sends: `tools/call` of the toolset's own tools only, those its `TOOLSET.md` takes
//! from the pin (what was reviewed, and what the drift check watches:
//! [`RemoteError::UnknownTool`] for the others), the server's resources, resource
//! templates and prompts, and any other MCP request through [`Remote::request`] (a completion,
//! a ping). A2A toolsets (feature `remote-a2a`) have no MCP connection: their handle refuses
//! every request with [`RemoteError::Unsupported`].
//!
//! Each request is a span (target `carnet::remote`, name `remote_request`, otel name
//! `{method} {toolset}`, kind client) with `mcp.method.name`, `carnet.toolset.name`,
//! `carnet.mcp.server`, `gen_ai.tool.name` for a call, and `error.type` (the error's
//! [`code`](RemoteError::code)) when it fails.

mod error;
pub(crate) mod serve;
mod types;

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tracing::Instrument as _;

pub use error::RemoteError;
pub use types::{
    GetPrompt, Prompt, PromptArgument, PromptMessage, Resource, ResourceBody, ResourceContents, ResourceTemplate,
};

use crate::dispatch::{Context, ToolOutput};
use crate::engine::carnet::{Carnet, RemoteServer};
use crate::index::ToolsetIx;
use crate::manifest::ToolsetId;

/// The most pages a list follows (`nextCursor`) before it gives up: a server that pages
/// forever does not hold the caller forever.
const MAX_PAGES: usize = 100;
/// The most items a list gathers over its pages: each page is bounded by
/// [`RemoteOptions::max_message_bytes`](crate::RemoteOptions), the whole list by this.
const MAX_ITEMS: usize = 10_000;

/// A handle to the MCP connection of a remote toolset of an engine: see the
/// [module's docs](self). Cheap to clone (two `Arc`s); from
/// [`Carnet::remote`](crate::Carnet::remote).
#[derive(Clone)]
pub struct Remote {
    carnet: Carnet,
    toolset: ToolsetIx,
    server: Arc<dyn RemoteServer>,
    /// The toolset is an A2A agent's, which has no MCP connection.
    a2a: bool,
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remote")
            .field("toolset", &self.toolset())
            .field("started", &self.started())
            .finish_non_exhaustive()
    }
}

impl Carnet {
    /// The handle to the MCP connection of remote toolset `toolset` (a typed id,
    /// `manifest::toolsets::FILES`, or a name: [`RemoteToolset`]): see [`Remote`]. Nothing starts until its
    /// first request.
    ///
    /// # Errors
    ///
    /// [`RemoteError::NotRemote`] when the engine has no remote toolset of that name.
    ///
    /// # Examples
    ///
    /// A server that cannot start: the handle is there at once, its first request says why.
    ///
    /// ```
    /// use carnet_runtime::remote::RemoteError;
    /// use carnet_runtime::{Carnet, Manifest};
    ///
    /// let manifest = Manifest::from_json(r#"{"agents": {}, "skills": {}, "toolsets": {
    ///     "files": {"name": "files", "description": "Files", "content": "", "tools": [],
    ///               "mcp": {"server": {"command": "/nonexistent/mcp-server"}}},
    ///     "notes": {"name": "notes", "description": "Notes", "content": "", "tools": []}}}"#)?;
    /// let carnet = Carnet::builder(&manifest).allow_unimplemented().build()?;
    /// let files = carnet.remote("files")?;
    /// assert!(!files.started());
    /// # tokio::runtime::Runtime::new()?.block_on(async {
    /// let error = files.list_resources().await.unwrap_err();
    /// assert!(matches!(error, RemoteError::Unavailable { .. }), "{error}");
    /// assert_eq!((error.toolset(), error.code()), ("files", "upstream_unavailable"));
    /// # });
    /// assert!(matches!(carnet.remote("notes"), Err(RemoteError::NotRemote { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(
        clippy::needless_pass_by_value,
        reason = "a typed id is `Copy` and a name a `&str`: both read as `carnet.remote(x)`"
    )]
    pub fn remote(&self, toolset: impl RemoteToolset) -> Result<Remote, RemoteError> {
        let name = toolset.remote_toolset_name();
        let not_remote = || RemoteError::NotRemote {
            toolset: name.to_owned(),
        };
        let ix = self.inner.toolset_index(name).ok_or_else(not_remote)?;
        let server = self
            .inner
            .remote
            .get(ix.get())
            .and_then(Option::clone)
            .ok_or_else(not_remote)?;
        let a2a = self
            .inner
            .toolset(ix)
            .mcp
            .as_deref()
            .and_then(|m| serde_json::from_str::<Value>(m).ok())
            .is_some_and(|m| m["protocol"] == "a2a");
        Ok(Remote {
            carnet: self.clone(),
            toolset: ix,
            server,
            a2a,
        })
    }
}

impl Context<'_> {
    /// The handle to the MCP connection of remote toolset `toolset`, as
    /// [`Carnet::remote`] gives it: for a tool that reads its server's resources or calls its
    /// tools itself.
    ///
    /// # Errors
    ///
    /// [`RemoteError::NotRemote`] when the engine has no remote toolset of that name.
    pub fn remote(&self, toolset: impl RemoteToolset) -> Result<Remote, RemoteError> {
        match self.engine.downcast_ref::<Carnet>() {
            Some(carnet) => carnet.remote(toolset),
            None => Err(RemoteError::NotRemote {
                toolset: toolset.remote_toolset_name().to_owned(),
            }),
        }
    }
}

/// A toolset, in [`Carnet::remote`]: a typed id of the generated manifest
/// (`manifest::toolsets::FILES`) or a name. A skill's or an agent's id is a compile error.
pub trait RemoteToolset: sealed::Sealed {
    #[doc(hidden)]
    fn remote_toolset_name(&self) -> &str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::manifest::ToolsetId {}
    impl Sealed for &str {}
    impl Sealed for &String {}
    impl Sealed for String {}
}

impl RemoteToolset for ToolsetId {
    fn remote_toolset_name(&self) -> &str {
        self.name()
    }
}

impl RemoteToolset for &str {
    fn remote_toolset_name(&self) -> &str {
        self
    }
}

impl RemoteToolset for &String {
    fn remote_toolset_name(&self) -> &str {
        self
    }
}

impl RemoteToolset for String {
    fn remote_toolset_name(&self) -> &str {
        self
    }
}

impl Remote {
    /// The toolset's name.
    #[must_use]
    pub fn toolset(&self) -> &str {
        &self.carnet.inner.toolset(self.toolset).name
    }

    /// Whether the server was started (or a start attempted), by this handle, a load or a call.
    #[must_use]
    pub fn started(&self) -> bool {
        self.server.started()
    }

    /// Calls tool `tool` of the toolset (one its `TOOLSET.md` takes from the pin) with
    /// `arguments`, outside any model turn: its
    /// output as a session's call would give it (the server's content blocks kept, its
    /// structured content or single text as the value). A tool's own failure (`isError`) is an
    /// error output, not an `Err`, as MCP has it. The call is not checked against the pinned
    /// input schema (the server checks its arguments) and runs no hooks: hooks wrap the model's
    /// calls.
    ///
    /// # Errors
    ///
    /// [`RemoteError::UnknownTool`] for a tool the toolset does not have; the server's failures
    /// ([`Unavailable`](RemoteError::Unavailable), [`Crashed`](RemoteError::Crashed),
    /// [`Timeout`](RemoteError::Timeout), [`Upstream`](RemoteError::Upstream)); and
    /// [`Drift`](RemoteError::Drift) for a tool that drifted from its pin under
    /// [`DriftPolicy::Refuse`](crate::DriftPolicy).
    pub async fn call_tool(&self, tool: &str, arguments: Value) -> Result<ToolOutput, RemoteError> {
        let pinned = self
            .carnet
            .inner
            .toolset(self.toolset)
            .tools
            .iter()
            .any(|t| t.name == tool);
        if !pinned && !self.a2a {
            return Err(RemoteError::UnknownTool {
                toolset: self.toolset().to_owned(),
                tool: tool.to_owned(),
            });
        }
        let span = self.span("tools/call", Some(tool));
        let result = self
            .send(serve::CALL, json!({"name": tool, "arguments": arguments}))
            .instrument(span.clone())
            .await;
        let result = recorded(&span, result)?;
        Ok(super::output(self.toolset(), tool, &result))
    }

    /// The server's resources (`resources/list`, every page: at most 100 pages and 10,000
    /// resources, else [`RemoteError::InvalidResponse`]).
    ///
    /// # Errors
    ///
    /// The server's failures; [`RemoteError::Upstream`] with `-32601` when it serves no
    /// resources.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, RemoteError> {
        self.list("resources/list", "resources").await
    }

    /// The server's resource templates (`resources/templates/list`, every page).
    ///
    /// # Errors
    ///
    /// As [`Remote::list_resources`].
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, RemoteError> {
        self.list("resources/templates/list", "resourceTemplates").await
    }

    /// Reads resource `uri` (`resources/read`): its parts, text or bytes.
    ///
    /// # Errors
    ///
    /// The server's failures ([`RemoteError::Upstream`] for a resource it does not have),
    /// and [`RemoteError::InvalidResponse`] for a blob that is not base64.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, RemoteError> {
        let result = self.request("resources/read", json!({ "uri": uri })).await?;
        let invalid = |message: String| RemoteError::InvalidResponse {
            toolset: self.toolset().to_owned(),
            message: format!(
                "the MCP server of toolset `{}` answered `resources/read` of `{uri}` with {message}",
                self.toolset()
            ),
        };
        let Some(contents) = result["contents"].as_array() else {
            return Err(invalid("no `contents`".into()));
        };
        contents
            .iter()
            .map(|part| {
                let body = if let Some(text) = part["text"].as_str() {
                    ResourceBody::Text(text.to_owned())
                } else if let Some(blob) = part["blob"].as_str() {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .map_err(|e| invalid(format!("a blob that is not base64 ({e})")))?;
                    ResourceBody::Blob(bytes)
                } else {
                    return Err(invalid("a part with neither `text` nor `blob`".into()));
                };
                Ok(ResourceContents {
                    uri: part["uri"].as_str().unwrap_or(uri).to_owned(),
                    mime_type: part["mimeType"].as_str().map(str::to_owned),
                    body,
                })
            })
            .collect()
    }

    /// The server's prompts (`prompts/list`, every page).
    ///
    /// # Errors
    ///
    /// As [`Remote::list_resources`].
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, RemoteError> {
        self.list("prompts/list", "prompts").await
    }

    /// Prompt `name` filled in with `arguments` (`prompts/get`; a JSON object of strings, or
    /// `Value::Null` for none).
    ///
    /// # Errors
    ///
    /// The server's failures ([`RemoteError::Upstream`] for a prompt it does not have, or
    /// missing arguments).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPrompt, RemoteError> {
        let mut params = json!({ "name": name });
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        let result = self.request("prompts/get", params).await?;
        self.parse("prompts/get", result)
    }

    /// Sends request `method` with `params` and returns the server's result as JSON: for the
    /// requests the methods above do not cover (`completion/complete`, `ping`,
    /// `logging/setLevel`, an extension's own methods such as `skills/list`). Bounded by the
    /// call timeout like every request.
    ///
    /// # Errors
    ///
    /// [`RemoteError::InvalidRequest`] for a request carnet cannot send (parameters that are
    /// not an object), `initialize`, `resources/subscribe` and `resources/unsubscribe` (a handle receives no
    /// notifications), and `tools/call` (use [`Remote::call_tool`], which holds the pin); the
    /// server's failures ([`RemoteError::Upstream`] with `-32601` for a method it does not
    /// serve).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RemoteError> {
        let span = self.span(method, None);
        let result = self
            .send(serve::REQUEST, json!({"method": method, "params": params}))
            .instrument(span.clone())
            .await;
        recorded(&span, result)
    }

    /// Every page of list `method`'s items under `key`.
    async fn list<T: DeserializeOwned>(&self, method: &str, key: &str) -> Result<Vec<T>, RemoteError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.map_or_else(|| json!({}), |c| json!({ "cursor": c }));
            let mut page = self.request(method, params).await?;
            let found: Vec<T> = self.parse(method, page[key].take())?;
            items.extend(found);
            if items.len() > MAX_ITEMS {
                return Err(RemoteError::InvalidResponse {
                    toolset: self.toolset().to_owned(),
                    message: format!(
                        "the MCP server of toolset `{}` listed more than {MAX_ITEMS} items for `{method}`",
                        self.toolset()
                    ),
                });
            }
            match page["nextCursor"].as_str() {
                Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
                _ => return Ok(items),
            }
        }
        Err(RemoteError::InvalidResponse {
            toolset: self.toolset().to_owned(),
            message: format!(
                "the MCP server of toolset `{}` paged `{method}` past {MAX_PAGES} pages",
                self.toolset()
            ),
        })
    }

    fn parse<T: DeserializeOwned>(&self, method: &str, value: Value) -> Result<T, RemoteError> {
        serde_json::from_value(value).map_err(|e| RemoteError::InvalidResponse {
            toolset: self.toolset().to_owned(),
            message: format!(
                "the MCP server of toolset `{}` answered `{method}` with an unexpected shape: {e}",
                self.toolset()
            ),
        })
    }

    /// Sends one of the handle's own requests ([`serve`]) and opens its envelope.
    async fn send(&self, method: &'static str, params: Value) -> Result<Value, RemoteError> {
        if self.a2a {
            return Err(RemoteError::Unsupported {
                toolset: self.toolset().to_owned(),
                reason: "it is an A2A agent's, which has no MCP connection: call its tools through a session".into(),
            });
        }
        let mut envelope = match Arc::clone(&self.server).forward(method, params).await {
            Ok(envelope) => envelope,
            Err((code, message)) => {
                return Err(RemoteError::Unsupported {
                    toolset: self.toolset().to_owned(),
                    reason: format!("its server takes no requests from a handle ({code}: {message})"),
                });
            }
        };
        if let Some(result) = envelope.get_mut("result") {
            return Ok(result.take());
        }
        let failed = &envelope["failed"];
        let message = failed["message"].as_str().unwrap_or("the request failed").to_owned();
        let rpc = failed["rpc"].as_i64().and_then(|c| i32::try_from(c).ok());
        Err(RemoteError::from_code(
            self.toolset(),
            failed["code"].as_str().unwrap_or_default(),
            message,
            rpc,
        ))
    }

    /// The span of one request.
    fn span(&self, method: &str, tool: Option<&str>) -> tracing::Span {
        let toolset = self.toolset();
        tracing::info_span!(
            target: "carnet::remote",
            "remote_request",
            otel.name = format_args!("{method} {toolset}"),
            otel.kind = "client",
            otel.status_code = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
            mcp.method.name = method,
            carnet.toolset.name = toolset,
            carnet.mcp.server = tracing::field::Empty,
            gen_ai.tool.name = tool,
            error.type = tracing::field::Empty,
        )
    }
}

/// Records a failed request on its span.
fn recorded<T>(span: &tracing::Span, result: Result<T, RemoteError>) -> Result<T, RemoteError> {
    if let Err(error) = &result {
        span.record("otel.status_code", "error");
        span.record("otel.status_description", error.to_string().as_str());
        span.record("error.type", error.code());
    }
    result
}
