//! A conversation saved as JSON after a few steps resumes on a fresh engine, and the next
//! request it sends is byte-identical, for every API and exposure mode, to the one the
//! uninterrupted conversation sent.

use carnet::chat::{self, ChatModel, ChatRequest, ChatResponse, Message, ModelError, Transcript};
use carnet::engine::ExposureMode;
use carnet::providers::{anthropic, openai};
use carnet::tools::{BoxFuture, block_on};
use carnet::{Carnet, Session};
use research_agent::manifest::{MANIFEST, agents};
use research_agent::policy::{ScriptedResearcher, question};
use research_agent::tools;
use serde_json::Value;

fn bodies(request: &ChatRequest<'_>) -> Vec<String> {
    let openai = openai::RequestOptions {
        model: "gpt-test".into(),
        ..openai::RequestOptions::default()
    };
    let anthropic = anthropic::RequestOptions {
        model: "claude-test".into(),
        max_tokens: 512,
    };
    [
        anthropic::request(request, &anthropic).unwrap(),
        openai::chat_request(request, &openai).unwrap(),
        openai::responses_request(request, &openai).unwrap(),
    ]
    .iter()
    .map(Value::to_string)
    .collect()
}

struct Recorder(ScriptedResearcher, Vec<Vec<String>>);

impl ChatModel for Recorder {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.1.push(bodies(&request));
        self.0.complete(request)
    }
}

fn engine(mode: ExposureMode) -> Carnet {
    Carnet::new(&MANIFEST, tools::toolsets()).mode(mode).build().unwrap()
}

/// The next request a session would send with these messages, as `chat::run` builds it.
fn next_bodies(session: &Session, messages: &[Message]) -> Vec<String> {
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    bodies(&ChatRequest {
        system: session.system_prompt(),
        messages,
        tools: session.tools(),
        mode: session.carnet().mode(),
        callable: &callable,
    })
}

#[test]
fn a_saved_transcript_resumes_and_sends_the_same_next_request() {
    let chart = std::env::temp_dir().join(format!("carnet-transcript-{}.svg", std::process::id()));
    for mode in ExposureMode::ALL {
        // The uninterrupted conversation, every request recorded.
        let carnet = engine(mode);
        let mut session = carnet.session(agents::RESEARCHER);
        let mut full = Recorder(ScriptedResearcher::new(chart.to_string_lossy()), Vec::new());
        let mut messages = vec![question()];
        block_on(chat::run(&mut session, &mut full, &mut messages, 12, |_| {})).unwrap();
        let steps = full.1.len();
        assert!(steps >= 4, "{mode:?}");

        for stop in 1..steps {
            // The same conversation stopped after `stop` model calls, saved as JSON ...
            let carnet = engine(mode);
            let mut session = carnet.session(agents::RESEARCHER);
            let mut model = ScriptedResearcher::new(chart.to_string_lossy());
            let mut messages = vec![question()];
            let outcome = block_on(chat::run(&mut session, &mut model, &mut messages, stop, |_| {})).unwrap();
            assert_eq!(outcome.answer, None);
            let saved = serde_json::to_string(&Transcript::new(&session, messages)).unwrap();
            drop((session, carnet));

            // ... resumed on a fresh engine: the next request is byte for byte the one the
            // uninterrupted conversation sent.
            let fresh = engine(mode);
            let transcript: Transcript = serde_json::from_str(&saved).unwrap();
            let (resumed, messages) = transcript.resume(&fresh).unwrap();
            assert_eq!(
                next_bodies(&resumed, &messages),
                full.1[stop],
                "{mode:?}, stopped after {stop}"
            );
        }
    }
    let _ = std::fs::remove_file(chart);
}

#[test]
fn messages_serialise_with_roles() {
    let message = Message::Assistant {
        text: None,
        tool_calls: vec![chat::call(
            1,
            "loadSkill",
            serde_json::json!({"skillName": "dataAnalysis"}),
        )],
    };
    let json = serde_json::to_value(&message).unwrap();
    assert_eq!(json["role"], "assistant");
    assert_eq!(json["content"]["toolCalls"][0]["name"], "loadSkill");
    assert_eq!(
        serde_json::to_value(Message::User("hi".into())).unwrap(),
        serde_json::json!({"role": "user", "content": "hi"})
    );
    let back: Message = serde_json::from_value(json).unwrap();
    assert_eq!(back, message);
}
