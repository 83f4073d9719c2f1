//! A loop of one's own with `chat::ChatTurn`: JSON in, JSON out, the session deciding what
//! runs. The completions are what a Chat Completions server answers; the history is what
//! the program would send next.

use carnet_runtime::block_on;
use carnet_runtime::providers::openai::ChatTurn;
use carnet_runtime::{Carnet, ExposureMode, Manifest, ToolImpl, ToolsetImpl};
use serde_json::{Value, json};

fn carnet(mode: ExposureMode) -> Carnet {
    let manifest = Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "d", "skills": ["math"], "prompt": "Compute."}},
        "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use math.add."}},
        "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "", "tools": [
            {"name": "math.add", "description": "Adds"}, {"name": "neg", "description": "Negates"}]}}
    }"#,
    )
    .unwrap();
    let add = ToolImpl::from_fn(
        "math.add",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        |args| async move { Ok(json!(args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap())) },
    );
    let neg = ToolImpl::from_fn(
        "neg",
        json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}),
        |args| async move { Ok(json!(-args["x"].as_f64().unwrap())) },
    );
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [add, neg]))
        .mode(mode)
        .build()
        .unwrap()
}

fn completion(message: &Value) -> Value {
    json!({"id": "c", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
}

fn calls(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            let arguments = match arguments {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    completion(&json!({"role": "assistant", "content": null, "tool_calls": calls}))
}

fn names(body: &Value) -> Vec<&str> {
    body["tools"]
        .as_array()
        .map(|t| t.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

#[test]
fn a_loop_of_ones_own_loads_a_skill_and_calls_its_tools() {
    let carnet = carnet(ExposureMode::Dynamic);
    let mut session = carnet.session("a").unwrap();
    let mut history = vec![json!({"role": "user", "content": "2 + 3, negated?"})];
    let answers = [
        calls(&[("c1", "math_add", json!({"a": 2, "b": 3}))]),
        calls(&[("c2", "loadSkill", json!({"skillName": "math"}))]),
        // Two domain calls of one answer, one with arguments that are not JSON.
        calls(&[
            ("c3", "math_add", json!({"a": 2, "b": 3})),
            ("c4", "neg", Value::String("{x: 5".into())),
            ("c5", "neg", json!({"x": 5})),
        ]),
        completion(&json!({"role": "assistant", "content": "-5"})),
    ];
    let mut bodies = Vec::new();
    let mut results = Vec::new();
    for answer in &answers {
        let turn = ChatTurn::new(&session).unwrap();
        bodies.push(turn.request("m", &history));
        results.push(block_on(turn.answer(&mut session, answer, &mut history)).unwrap());
    }

    // The system prompt first, then the program's history as it was.
    assert_eq!(
        bodies[0]["messages"][0],
        json!({"role": "system", "content": session.carnet().session("a").unwrap().system_prompt()})
    );
    assert_eq!(bodies[0]["messages"][1]["content"], "2 + 3, negated?");
    assert_eq!(bodies[0]["model"], "m");
    // Before the load, no domain tool; after it, both under their aliases.
    assert!(names(&bodies[0]).contains(&"loadSkill"));
    assert!(!names(&bodies[0]).contains(&"math_add"));
    assert!(names(&bodies[2]).contains(&"math_add") && names(&bodies[2]).contains(&"neg"));

    // The early call is refused with the reason, as a `tool` message for its id.
    assert_eq!(results[0].len(), 1);
    assert!(results[0][0].1.is_error);
    assert_eq!(results[0][0].0.name, "math.add", "the alias is mapped back");
    assert_eq!(
        history[1]["content"], "",
        "a message of calls only goes back with an empty text"
    );
    assert_eq!(
        history[1]["tool_calls"][0]["function"]["name"], "math_add",
        "as the model wrote it"
    );
    let refusal = &history[2];
    assert_eq!(refusal["role"], "tool");
    assert_eq!(refusal["tool_call_id"], "c1");
    assert!(
        refusal["content"].as_str().unwrap().contains("load skill `math` first"),
        "{refusal}"
    );

    // Three calls, three results in order: 5, an error naming the arguments, -5.
    let third: Vec<&Value> = history.iter().filter(|m| m["role"] == "tool").skip(2).collect();
    assert_eq!(third.len(), 3);
    assert_eq!(third[0]["tool_call_id"], "c3");
    assert_eq!(third[0]["content"], "5.0");
    assert_eq!(third[1]["tool_call_id"], "c4");
    assert!(
        third[1]["content"].as_str().unwrap().contains("not valid JSON"),
        "{}",
        third[1]
    );
    assert_eq!(third[2]["content"], "-5.0");

    // The final answer: no calls, the text last in the history.
    assert!(results[3].is_empty());
    assert_eq!(history.last().unwrap()["content"], "-5");
    assert!(session.is_loaded("math"));
    // user, then per turn the assistant message and its tool messages.
    assert_eq!(history.len(), 1 + 2 + 2 + 4 + 1);
}

#[test]
fn allowed_tools_mode_sends_every_tool_and_the_allow_list() {
    let carnet = carnet(ExposureMode::AllowedTools);
    let session = carnet.session("a").unwrap();
    let body = ChatTurn::new(&session).unwrap().request("m", &[]);
    assert!(names(&body).contains(&"math_add"), "every tool is sent");
    let allowed = &body["tool_choice"]["allowed_tools"]["tools"];
    assert!(
        !allowed.to_string().contains("math_add"),
        "but not yet allowed: {allowed}"
    );
    assert!(allowed.to_string().contains("loadSkill"), "{allowed}");
}

#[test]
fn an_answer_that_is_not_an_assistant_message_changes_nothing() {
    let carnet = carnet(ExposureMode::Dynamic);
    let mut session = carnet.session("a").unwrap();
    let mut history = vec![json!({"role": "user", "content": "hi"})];
    let turn = ChatTurn::new(&session).unwrap();
    for garbage in [
        json!({"error": {"message": "overloaded"}}),
        json!([]),
        json!({"choices": []}),
    ] {
        let error = block_on(turn.answer(&mut session, &garbage, &mut history)).unwrap_err();
        assert!(error.to_string().contains("assistant message"), "{error}");
    }
    let nameless = calls(&[("c1", "", json!({}))]);
    let mut broken = nameless.clone();
    broken["choices"][0]["message"]["tool_calls"][0]["function"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    assert!(block_on(turn.answer(&mut session, &broken, &mut history)).is_err());
    assert_eq!(history.len(), 1, "nothing appended");
}
