//! The agent the model clients' tests run: `a`, whose skill `math` brings `math.add` (a real
//! implementation), and one model call with its first request.

use carnet_runtime::chat::{ChatModel, ChatRequest, ChatResponse, Message, ModelError};
use carnet_runtime::{Carnet, ExposureMode, Manifest, Preset, ToolImpl, ToolsetImpl};
use serde_json::json;

/// The engine of agent `a` in `mode`, with `preset`.
pub(crate) fn carnet_with(mode: ExposureMode, preset: Preset) -> Carnet {
    let manifest = Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "d", "skills": ["math"], "prompt": "Compute."}},
        "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use math.add."}},
        "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "", "tools": [{"name": "math.add", "description": "Adds"}]}}
    }"#,
    )
    .unwrap();
    let add = ToolImpl::from_fn(
        "math.add",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        |args| async move {
            Ok(json!(
                args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0)
            ))
        },
    );
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [add]))
        .mode(mode)
        .preset(preset)
        .build()
        .unwrap()
}

/// One model call with the agent's first request.
pub(crate) async fn complete(model: &mut dyn ChatModel) -> Result<ChatResponse, ModelError> {
    let carnet = carnet_with(ExposureMode::Dynamic, Preset::default());
    let session = carnet.session("a").unwrap();
    let messages = [Message::User("2 + 3?".into())];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    model
        .complete(ChatRequest {
            system: session.system_prompt(),
            messages: &messages,
            tools: session.tools(),
            mode: ExposureMode::Dynamic,
            callable: &callable,
        })
        .await
}
