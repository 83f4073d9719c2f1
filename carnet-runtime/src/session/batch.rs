//! An answer's tool calls run as a model expects: loads in order, the domain calls between
//! them side by side, results in the order of the calls.

use serde_json::Value;

use super::base::Session;
use crate::dispatch::{BoxFuture, ToolOutput};
use crate::telemetry;
use crate::tool::ToolCall;

impl Session {
    /// Runs the tool calls of one model answer: each meta-tool call (a load) alone and in
    /// order, after the calls before it and before the ones after it; the domain calls
    /// between them side by side ([`Session::call_detached`]), which is what a model asking
    /// for parallel calls expects. The outputs are in the order of `calls`.
    ///
    /// A call whose arguments are a JSON string rather than an object (a client keeps
    /// arguments it could not parse as their text) is not run: its output is an error the
    /// model can read (`invalid_arguments`). This is how [`crate::chat::run`] and
    /// [`crate::providers::openai::ChatTurn`] run an answer; a loop of your own can call it directly.
    pub async fn run_calls(&mut self, calls: &[ToolCall]) -> Vec<ToolOutput> {
        self.run_calls_boxed(calls).await
    }

    /// [`Session::run_calls`] behind a box, compiled once here (see `call_boxed`).
    fn run_calls_boxed<'a>(&'a mut self, calls: &'a [ToolCall]) -> BoxFuture<'a, Vec<ToolOutput>> {
        Box::pin(async move {
            let mut outputs = Vec::with_capacity(calls.len());
            let mut batch = Vec::new();
            for call in calls {
                if let Some(output) = invalid_arguments(call) {
                    outputs.extend(JoinAll::new(std::mem::take(&mut batch)).await);
                    telemetry::refused_call(call, &output);
                    outputs.push(output);
                    continue;
                }
                let id = call.id.as_deref();
                if let Some(future) = self.call_detached_with_id(&call.name, &call.arguments, id) {
                    batch.push(future);
                    continue;
                }
                outputs.extend(JoinAll::new(std::mem::take(&mut batch)).await);
                outputs.push(self.call_with_id(&call.name, call.arguments.clone(), id).await);
            }
            outputs.extend(JoinAll::new(batch).await);
            outputs
        })
    }
}

/// The result of a call whose arguments are not JSON (see [`Session::run_calls`]).
fn invalid_arguments(call: &ToolCall) -> Option<ToolOutput> {
    let Value::String(raw) = &call.arguments else {
        return None;
    };
    let reason = serde_json::from_str::<Value>(raw).err().map_or_else(
        || "the arguments must be a JSON object".to_owned(),
        |e| format!("the arguments are not valid JSON: {e}"),
    );
    Some(ToolOutput::error(
        format!("{reason}; call `{}` again with a JSON object of arguments", call.name),
        serde_json::json!({"code": "invalid_arguments", "tool": call.name}),
    ))
}

/// Polls every future until all are done; their outputs in order. (The runtime depends on
/// no executor, so this is written here.)
struct JoinAll {
    futures: Vec<Option<BoxFuture<'static, ToolOutput>>>,
    outputs: Vec<Option<ToolOutput>>,
}

impl JoinAll {
    fn new(futures: Vec<BoxFuture<'static, ToolOutput>>) -> JoinAll {
        JoinAll {
            outputs: futures.iter().map(|_| None).collect(),
            futures: futures.into_iter().map(Some).collect(),
        }
    }
}

impl Future for JoinAll {
    type Output = Vec<ToolOutput>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let this = &mut *self;
        for (slot, output) in this.futures.iter_mut().zip(&mut this.outputs) {
            if let Some(future) = slot
                && let std::task::Poll::Ready(done) = future.as_mut().poll(cx)
            {
                *output = Some(done);
                *slot = None;
            }
        }
        if this.futures.iter().all(Option::is_none) {
            std::task::Poll::Ready(
                this.outputs
                    .iter_mut()
                    .map(|o| o.take().expect("every call finished"))
                    .collect(),
            )
        } else {
            std::task::Poll::Pending
        }
    }
}
