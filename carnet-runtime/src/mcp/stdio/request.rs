//! What one request answers, on its own task: each method served over the byte stream, the
//! ordered ones taking the session in their [`Turn`].

use serde_json::{Map, Value};
use tokio::io::AsyncWrite;

use super::connection::{Connection, Turn};
use crate::mcp::completion::{self, CompleteParams};
use crate::mcp::messages;
use crate::mcp::methods::{self, CallParams, PromptParams, UriParams};
use crate::mcp::passthrough;
use crate::mcp::rpc::{self, RpcError};

/// What a request answers.
pub(super) enum Reply {
    /// A result, shaped for the revision when it is sent ([`methods::finish`]).
    Value(Value),
    /// The whole response line, written in the revision's shape.
    Line(Vec<u8>),
}

/// One request, on its own task.
pub(super) struct Request<'a> {
    pub(super) id: &'a Value,
    pub(super) method: &'a str,
    /// Whether it runs at the stateless revision.
    pub(super) stateless: bool,
}

impl Request<'_> {
    pub(super) async fn answer<W: AsyncWrite + Unpin>(
        &self,
        connection: &Connection<W>,
        params: Option<Value>,
        mut turn: Turn,
    ) -> Result<Reply, RpcError> {
        let shared = &*connection.shared;
        let method = self.method;
        let host = connection.host_session(self.stateless);
        let host = host.as_ref();
        let value = match method {
            "ping" => Ok(Value::Object(Map::new())),
            "tools/list" => {
                no_params(method, params.as_ref())?;
                turn.wait().await;
                let session = connection.session.lock().await;
                turn.pass();
                let mut line = rpc::result_start(self.id);
                if self.stateless {
                    let list = shared.stateless_list.get_or_init(|| {
                        let tools = methods::stateless_tools(shared, &session)?;
                        let result = methods::finish(method, serde_json::json!({ "tools": tools }), true);
                        serde_json::to_vec(&result).map_err(|e| messages::unencodable("the tool list", e))
                    });
                    line.extend_from_slice(list.as_ref().map_err(Clone::clone)?);
                } else {
                    let tools = methods::list_tools(shared, &session)?;
                    serde_json::to_writer(&mut line, &serde_json::json!({ "tools": tools }))
                        .map_err(|e| messages::unencodable("the tool list", e))?;
                }
                rpc::result_end(&mut line);
                return Ok(Reply::Line(line));
            }
            "tools/call" => {
                let request: CallParams = methods::params(method, params)?;
                let call_id = self.id.to_string();
                // Never cancelled from here: the task running this future is dropped instead.
                let cancelled = std::future::pending();
                turn.wait().await;
                let output = if self.stateless {
                    let held = Some(&connection.session);
                    let answer = if let Some(state) = &request.request_state {
                        turn.pass();
                        let responses = request.input_responses.as_ref();
                        methods::call_resumed(shared, held, &request.name, state, responses, cancelled).await?
                    } else {
                        let mut arguments = request.arguments.unwrap_or_default();
                        let opened = methods::session_of(shared, held, &mut arguments).await;
                        turn.pass();
                        methods::call_opened(shared, held, opened, &request.name, arguments, &call_id, cancelled)
                            .await?
                    };
                    match answer {
                        methods::Answer::Complete(output) => output,
                        methods::Answer::InputRequired(result) => {
                            return Ok(Reply::Line(rpc::result_line(self.id, &result)));
                        }
                    }
                } else {
                    let session = connection.session.lock().await;
                    turn.pass();
                    let listener = connection.listener.as_ref();
                    let (output, changed) =
                        methods::call_in_session(shared, session, request, &call_id, cancelled, listener).await?;
                    // Sent before the result, so a client has them when the call returns.
                    if changed.tools {
                        let line = rpc::notification_line("notifications/tools/list_changed");
                        connection.out.send(&line).await;
                    }
                    if let Some(listener) = listener.filter(|_| changed.lists) {
                        listener.lists_changed().await;
                    }
                    output
                };
                let mut line = rpc::result_start(self.id);
                methods::write_tool_result(&mut line, &output, self.stateless)?;
                rpc::result_end(&mut line);
                return Ok(Reply::Line(line));
            }
            "prompts/get" => {
                let request: PromptParams = methods::params(method, params.clone())?;
                let theirs = request.name != shared.agent;
                turn.wait().await;
                let session = connection.session.lock().await;
                turn.pass();
                let (own, state) = (methods::get_prompt(shared, &session, request), session.state());
                drop(session);
                passthrough::or_forward(shared, &state, host, "prompts/get", params.as_ref(), theirs, own).await
            }
            "prompts/list" | "resources/list" | "resources/templates/list" => {
                no_params(method, params.as_ref())?;
                let own = match method {
                    "prompts/list" => methods::list_prompts(shared),
                    "resources/list" => methods::list_resources(shared),
                    _ => serde_json::json!({ "resourceTemplates": [] }),
                };
                let state = connection.session.lock().await.state();
                Ok(passthrough::list(shared, &state, host, method, own).await)
            }
            "resources/read" => {
                let own = methods::read_resource(shared, &methods::params::<UriParams>(method, params.clone())?);
                let state = connection.session.lock().await.state();
                passthrough::or_forward(shared, &state, host, "resources/read", params.as_ref(), true, own).await
            }
            "skills/list" => no_params(method, params.as_ref()).map(|()| methods::list_skills(shared)),
            "skills/get" => methods::get_skill(shared, &methods::params::<UriParams>(method, params)?),
            "completion/complete" => {
                let request = methods::params::<CompleteParams>(method, params.clone())?;
                let theirs = !request.is_for(&shared.agent);
                let own = completion::complete(shared, &request);
                let state = connection.session.lock().await.state();
                let method = "completion/complete";
                passthrough::or_forward(shared, &state, host, method, params.as_ref(), theirs, own).await
            }
            "logging/setLevel" if shared.info.capabilities.get("logging").is_some() => {
                let level = params.as_ref().and_then(|p| p.get("level")).and_then(Value::as_str);
                match level {
                    Some(level) if connection.log_level.set(level) => Ok(Value::Object(Map::new())),
                    _ => Err(messages::invalid_params(method, "`level` is not a log level")),
                }
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let subscribe = method == "resources/subscribe";
                let request = params.unwrap_or(Value::Null);
                let state = connection.session.lock().await.state();
                passthrough::subscription(shared, &state, host, subscribe, &request).await
            }
            // Known to MCP, not offered here (tasks, directories; logging where there is
            // nothing to relay).
            "logging/setLevel"
            | "subscriptions/listen"
            | "tasks/get"
            | "tasks/update"
            | "tasks/cancel"
            | "resources/directory/read" => Err(RpcError::not_served(method)),
            _ => Err(messages::unknown_method(method)),
        };
        value.map(Reply::Value)
    }
}

/// The params of a method that takes none but `_meta` and a page cursor: an object or nothing,
/// with no cursor (this server never gives one).
fn no_params(method: &str, params: Option<&Value>) -> Result<(), RpcError> {
    match params {
        None => Ok(()),
        Some(Value::Object(fields)) => match fields.get("cursor") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(cursor)) => methods::check_cursor(method, Some(cursor)),
            Some(_) => Err(messages::invalid_params(method, "`cursor` is not a string")),
        },
        Some(_) => Err(messages::invalid_params(method, "expected an object or nothing")),
    }
}
