//! A rig agent with carnet, judged by what rig's own OpenAI provider puts on the wire: a
//! loopback server answers as Chat Completions would (a scripted model) and keeps every
//! request body. The agent is the research example's, with its real tools.

use std::sync::{Arc, Mutex};

use carnet::Carnet;
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;
use rig_agent::AgentBuilder;
use rig_core::message::{ToolChoice, ToolName};
use rig_core::providers::openai::{OpenAIConfig, wire};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A Chat Completions server on loopback that answers with `replies` in order and records
/// each request body.
struct Recorder {
    base_url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
}

impl Recorder {
    async fn start(replies: Vec<Value>) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        let recorded = Arc::clone(&bodies);
        tokio::spawn(async move {
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                let (recorded, replies) = (Arc::clone(&recorded), Arc::clone(&replies));
                tokio::spawn(async move {
                    while let Some(body) = read_request(&mut socket).await {
                        recorded.lock().unwrap().push(body);
                        let reply = replies.lock().unwrap().next();
                        let (status, reply) = match reply {
                            Some(reply) => ("200 OK", reply),
                            None => (
                                "500 Internal Server Error",
                                json!({"error": {"message": "script ended"}}),
                            ),
                        };
                        let text = reply.to_string();
                        let head = format!(
                            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                            text.len()
                        );
                        if socket.write_all(head.as_bytes()).await.is_err()
                            || socket.write_all(text.as_bytes()).await.is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        Recorder { base_url, bodies }
    }

    fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

/// One HTTP/1.1 request's JSON body, or `None` when the client closed the connection.
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Value> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse().unwrap());
    while buffer.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    Some(serde_json::from_slice(&buffer[head_end..head_end + length]).unwrap())
}

fn tool_call(id: &str, name: &str, arguments: &Value) -> Value {
    json!({
        "id": format!("chatcmpl-{id}"), "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    })
}

fn answer(text: &str) -> Value {
    json!({
        "id": "chatcmpl-answer", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    })
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn system(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            parts => parts
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["text"].as_str().unwrap_or_default())
                .collect(),
        })
        .collect()
}

/// The messages of role `tool`, by call id.
fn tool_result(body: &Value, id: &str) -> String {
    let message = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .unwrap_or_else(|| panic!("no result for `{id}` in {body:#}"));
    match &message["content"] {
        Value::String(text) => text.clone(),
        parts => parts
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["text"].as_str().unwrap_or_default())
            .collect(),
    }
}

fn carnet() -> Carnet {
    Carnet::new(&MANIFEST, tools::toolsets())
        .build()
        .expect("every toolset is bound")
}

/// A rig agent on rig's OpenAI provider (Chat Completions) at `server`, adopting `chat` as a
/// rig user does: its registry and its hook.
fn rig_agent_for(server: &Recorder, chat: &carnet_rig::Conversation, max_turns: usize) -> rig_agent::Agent {
    let model = OpenAIConfig::new("test-key")
        .with_base_url(&server.base_url)
        .client()
        .chat("scripted");
    AgentBuilder::new(model)
        .tool_server_handle(chat.tool_server())
        .add_hook(chat.hook())
        .default_max_turns(max_turns)
        .build()
}

#[tokio::test]
async fn a_skills_tools_reach_the_wire_only_after_its_load() {
    let server = Recorder::start(vec![
        tool_call(
            "call_1",
            "analyzeStatistics",
            &json!({"dataset": "monthly_sales", "column": "units"}),
        ),
        tool_call("call_2", "loadSkill", &json!({"skillName": "dataAnalysis"})),
        tool_call(
            "call_3",
            "analyzeStatistics",
            &json!({"dataset": "monthly_sales", "column": "units"}),
        ),
        answer("Units average 1,225 a month."),
    ])
    .await;
    let carnet = carnet();
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).unwrap();
    let agent = rig_agent_for(&server, &chat, 8);

    let response = agent.prompt("How many units a month?").await.unwrap();
    assert_eq!(response.output(), "Units average 1,225 a month.");

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4, "four model calls: {bodies:#?}");
    let session = chat.session().await;
    // The preamble is carnet's system prompt as of each request: the agent's body, then
    // the catalog; after the load, the loaded skill besides.
    let fresh = carnet.session(agents::RESEARCHER);
    for body in &bodies[..2] {
        assert_eq!(system(body), fresh.system_prompt());
    }
    for body in &bodies[2..] {
        assert_eq!(system(body), session.system_prompt());
    }
    assert_ne!(fresh.system_prompt(), session.system_prompt());
    let first = system(&bodies[0]);
    assert!(first.contains("You are a careful research assistant"), "{first}");
    for skill in ["dataAnalysis", "unitConversion", "reportWriting"] {
        assert!(first.contains(skill), "the catalog names `{skill}`: {first}");
    }

    // Before the load: the meta-tools and webSearch's tools (an initial skill), none of
    // dataAnalysis's.
    let before = tool_names(&bodies[0]);
    assert!(before.contains(&"loadSkill".to_owned()), "{before:?}");
    assert!(before.contains(&"basicSearch".to_owned()), "{before:?}");
    assert!(!before.contains(&"analyzeStatistics".to_owned()), "{before:?}");
    assert!(!before.contains(&"createChart".to_owned()), "{before:?}");
    assert_eq!(tool_names(&bodies[1]), before, "a refused call changes nothing");
    // The call made before the load is refused, and the model reads why.
    let refused = tool_result(&bodies[1], "call_1");
    assert!(
        refused.contains("analyzeStatistics") && refused.contains("dataAnalysis"),
        "{refused}"
    );

    // After the load: the same list, then dataAnalysis's tools appended (the prefix a
    // provider caches is unchanged).
    let after = tool_names(&bodies[2]);
    assert_eq!(after[..before.len()], before[..], "{after:?}");
    assert!(
        after[before.len()..].contains(&"analyzeStatistics".to_owned()),
        "{after:?}"
    );
    let loaded = tool_result(&bodies[2], "call_2");
    assert!(
        loaded.contains("Descriptive statistics"),
        "the skill's instructions: {loaded}"
    );

    // The tool ran, through carnet's binding, on the example's real dataset.
    let stats = tool_result(&bodies[3], "call_3");
    let stats: Value = serde_json::from_str(&stats).unwrap_or_else(|e| panic!("{e}: {stats}"));
    assert_eq!(stats["count"], 12, "{stats}");
    assert_eq!(tool_names(&bodies[3]), after);

    assert!(session.is_loaded("dataAnalysis"));
    assert_eq!(chat.offered(), after);
}

#[tokio::test]
async fn a_conversation_keeps_its_loads_across_messages_and_another_starts_fresh() {
    let server = Recorder::start(vec![
        tool_call("call_1", "loadSkill", &json!({"skillName": "unitConversion"})),
        answer("Loaded."),
        tool_call("call_2", "convertUnits", &json!({"value": 10, "from": "km", "to": "m"})),
        answer("10 km is 10,000 m."),
        answer("Hello."),
    ])
    .await;
    let carnet = carnet();
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).unwrap();
    let agent = rig_agent_for(&server, &chat, 4);
    agent.prompt("Get ready to convert units.").await.unwrap();
    let second = agent.prompt("10 km in m?").await.unwrap();
    assert_eq!(second.output(), "10 km is 10,000 m.");

    let other = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).unwrap();
    let fresh = rig_agent_for(&server, &other, 1);
    fresh.prompt("Hi").await.unwrap();

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 5);
    assert!(!tool_names(&bodies[0]).contains(&"convertUnits".to_owned()));
    // The second message starts with the skill its conversation loaded.
    assert!(tool_names(&bodies[2]).contains(&"convertUnits".to_owned()));
    let converted = tool_result(&bodies[3], "call_2");
    assert!(converted.contains("10000"), "{converted}");
    // Another conversation has its own session.
    assert!(!tool_names(&bodies[4]).contains(&"convertUnits".to_owned()));
    assert!(!other.session().await.is_loaded("unitConversion"));
}

#[tokio::test]
async fn the_program_can_load_a_skill_between_messages() {
    let server = Recorder::start(vec![answer("Ready.")]).await;
    let carnet = carnet();
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).unwrap();
    chat.session().await.load_skill("reportWriting").unwrap();
    let agent = rig_agent_for(&server, &chat, 1);
    agent.prompt("Write it up.").await.unwrap();
    let offered = tool_names(&server.bodies()[0]);
    let writing = carnet
        .session(agents::RESEARCHER)
        .carnet()
        .everything_up_front(agents::RESEARCHER)
        .tools;
    assert!(
        writing
            .iter()
            .filter(|t| t.toolset.as_deref() == Some("writing-tools"))
            .all(|t| offered.contains(&t.name)),
        "{offered:?}"
    );
}

#[tokio::test]
async fn a_skills_tool_called_beside_its_load_is_refused_with_the_reason() {
    let both = json!({
        "id": "chatcmpl-both", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "loadSkill",
                    "arguments": json!({"skillName": "unitConversion"}).to_string()}},
                {"id": "call_2", "type": "function", "function": {"name": "convertUnits",
                    "arguments": json!({"value": 1, "from": "kg", "to": "g"}).to_string()}}]}}]
    });
    let server = Recorder::start(vec![
        both,
        tool_call("call_3", "loadSkill", &json!({"skillName": "unitConversion"})),
        tool_call("call_4", "convertUnits", &json!({"value": 1, "from": "kg", "to": "g"})),
        answer("1 kg is 1000 g."),
    ])
    .await;
    let carnet = carnet();
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).unwrap();
    let agent = rig_agent_for(&server, &chat, 6);
    agent.prompt("1 kg in g?").await.unwrap();
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4);
    // The tool not offered yet is answered by carnet (what to load); rig runs no other
    // call of that answer, so the load waits for the model's next turn.
    let refused = tool_result(&bodies[1], "call_2");
    assert!(refused.contains("load skill `unitConversion` first"), "{refused}");
    assert!(tool_result(&bodies[1], "call_1").contains("not executed"));
    assert!(!tool_names(&bodies[1]).contains(&"convertUnits".to_owned()));
    assert!(tool_names(&bodies[2]).contains(&"convertUnits".to_owned()));
    let converted = tool_result(&bodies[3], "call_4");
    assert!(converted.contains("1000"), "{converted}");
}

#[tokio::test]
async fn on_llama_cpp_python_the_round_after_a_call_is_sent_as_its_template_renders_it() {
    let server = Recorder::start(vec![
        tool_call("call_1", "loadSkill", &json!({"skillName": "dataAnalysis"})),
        answer("Loaded."),
    ])
    .await;
    let carnet = carnet();
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).unwrap();
    // As rig-research-agent's `--model llamacpp:NAME` sets it up.
    let mut dialect = wire::LLAMACPP;
    dialect.quirks.rewrite = wire::BodyRewrite::None;
    let model = OpenAIConfig::with_key(&dialect, "")
        .with_base_url(&server.base_url)
        .connect(rig_reqwest::shared().with_middleware(carnet_rig::LlamaCppPython))
        .chat("smollm2");
    let agent = AgentBuilder::new(model)
        .tool_server_handle(chat.tool_server())
        .add_hook(chat.hook())
        .tool_choice(ToolChoice::Specific {
            function_names: vec![ToolName::new("loadSkill").unwrap()],
        })
        .default_max_turns(3)
        .build();
    agent.prompt("Load dataAnalysis.").await.unwrap();

    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    // The named tool choice goes out (rig's llama.cpp dialect would refuse it).
    assert_eq!(bodies[0]["tool_choice"]["function"]["name"], "loadSkill");
    // Every content a string: the system prompt and the user's text as one string each,
    // the assistant's call with an empty one beside its `tool_calls`.
    for body in &bodies {
        for message in body["messages"].as_array().unwrap() {
            assert!(message["content"].is_string(), "{message}");
        }
    }
    let fresh = carnet.session(agents::RESEARCHER);
    assert_eq!(bodies[0]["messages"][0]["content"], fresh.system_prompt());
    let call = &bodies[1]["messages"][2];
    assert_eq!(call["role"], "assistant");
    assert_eq!(call["content"], "");
    assert_eq!(call["tool_calls"][0]["function"]["name"], "loadSkill");
    assert!(tool_result(&bodies[1], "call_1").contains("Descriptive statistics"));
    assert!(!tool_names(&bodies[0]).contains(&"analyzeStatistics".to_owned()));
    assert!(tool_names(&bodies[1]).contains(&"analyzeStatistics".to_owned()));
}
