//! Tool calls from a model: every provider's parser (whole responses and streamed ones, the
//! bytes fed to each stream format in two chunks), then the argument check against a
//! schema. The input is JSON (a provider response, or `[arguments, schema]`) or a stream of
//! server-sent events.
#![no_main]

use std::sync::Arc;

use carnet_runtime::providers::{Aliases, ResponseStream, StreamFormat, anthropic, gemini, mcp, openai};
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
            title: None,
            annotations: carnet_runtime::manifest::Annotations::NONE,
        })
        .collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let aliases = Aliases::new(&specs()).expect("the specs have aliases");
    let split = data.first().map_or(0, |&b| usize::from(b) % (data.len() + 1));
    for format in [StreamFormat::OpenAiChat, StreamFormat::OpenAiResponses, StreamFormat::Anthropic] {
        let mut stream = ResponseStream::new(format, aliases.clone());
        if stream.feed(&data[..split], &mut |_| {}).is_ok() && stream.feed(&data[split..], &mut |_| {}).is_ok() {
            let _ = stream.finish();
        }
    }
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let _ = openai::parse_chat_response(&value, &aliases);
    let _ = openai::parse_responses_response(&value, &aliases);
    let _ = anthropic::parse_response(&value, &aliases);
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
