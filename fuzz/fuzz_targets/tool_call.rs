//! Tool calls from a model: every provider's parser, then the argument check against a
//! schema. The input is JSON: either a provider response, or `[arguments, schema]`.
#![no_main]

use std::sync::Arc;

use carnet_runtime::providers::{Aliases, anthropic, gemini, mcp, openai};
use carnet_runtime::{ToolKind, ToolSpec, schema};
use serde_json::{Value, json};

fn specs() -> Vec<ToolSpec> {
    ["file.read", "basicSearch", "loadSkill"]
        .into_iter()
        .map(|name| ToolSpec {
            name: name.to_owned(),
            description: String::new(),
            input_schema: Arc::new(json!({"type": "object", "properties": {"q": {"type": "string"}}})),
            kind: ToolKind::Domain,
            toolset: None,
            output_schema: None,
        })
        .collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let aliases = Aliases::new(&specs()).expect("the specs have aliases");
    let _ = openai::parse_chat_tool_calls(&value, &aliases);
    let _ = openai::parse_responses_tool_calls(&value, &aliases);
    let _ = anthropic::parse_tool_calls(&value, &aliases);
    let _ = gemini::parse_tool_calls(&value, &aliases);
    let _ = mcp::parse_call(&value, &aliases);
    if let Value::Array(pair) = &value
        && let [arguments, schema_value] = pair.as_slice()
    {
        let _ = schema::validate(arguments, schema_value);
        if let Ok(strict) = openai::strict_schema(schema_value) {
            let mut arguments = arguments.clone();
            openai::drop_strict_nulls(&strict, &mut arguments);
        }
    }
});
