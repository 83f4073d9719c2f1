//! The example conversation in every exposure mode, rendered as each provider's request body
//! at every step. In `Deferred` and `AllowedTools` the system prompt and the tools array are
//! the same bytes on every turn (the cacheable prefix only grows); unexposed tools are
//! refused whatever the model sends; loads answer in the provider's own reference form.
//!
//! With `CARNET_REQUESTS_DIR` set, every body is written there (`<api>-<mode>-<step>.json`),
//! with the clients' streamed (`<api>-stream-…`), strict (`<api>-strict-…`; Gemini's
//! `parametersJsonSchema`, `gemini-json-schema-…`) and tool-choice (`<api>-choice-…`; a
//! model that refuses a forced one, `anthropic-choice-fable-…`) variants, for `tests/providers/validate.py` to check against the official SDKs' request
//! types.

use std::collections::BTreeMap;

use carnet::chat::{self, ChatModel, ChatRequest, ChatResponse, ModelError};
use carnet::engine::ExposureMode;
use carnet::models::{Anthropic, Gemini, OpenAi, OpenAiApi, ToolChoice};
use carnet::providers::{anthropic, gemini, openai};
use carnet::tools::{BoxFuture, block_on};
use carnet::{Carnet, Session};
use research_agent::manifest::{MANIFEST, agents};
use research_agent::policy::{ScriptedResearcher, question};
use research_agent::tools;
use serde_json::{Value, json};

/// The APIs a request is rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Anthropic,
    Chat,
    Responses,
    Gemini,
}

impl Api {
    const ALL: [Api; 4] = [Api::Anthropic, Api::Chat, Api::Responses, Api::Gemini];

    fn name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::Chat => "openai-chat",
            Api::Responses => "openai-responses",
            Api::Gemini => "gemini",
        }
    }

    /// The file name prefix of the strict variant (Gemini's: `parametersJsonSchema`).
    fn strict_name(self) -> String {
        match self {
            Api::Gemini => "gemini-json-schema".to_owned(),
            _ => format!("{}-strict", self.name()),
        }
    }

    /// The body the API's client sends for `request`, streamed or not, strict or not.
    fn body(self, request: &ChatRequest<'_>, stream: bool, strict: bool) -> Value {
        self.body_with(request, stream, strict, &ToolChoice::Auto)
    }

    /// [`Api::body`] with a tool choice.
    fn body_with(self, request: &ChatRequest<'_>, stream: bool, strict: bool, choice: &ToolChoice) -> Value {
        let namespaces: BTreeMap<String, String> = MANIFEST
            .toolsets
            .iter()
            .map(|t| (t.name.to_string(), t.description.to_string()))
            .collect();
        let openai = |api| {
            let mut client = OpenAi::new(None, "http://127.0.0.1:9/v1", "gpt-test")
                .unwrap()
                .api(api)
                .strict(strict)
                .namespaces(namespaces);
            client.set_tool_choice(choice.clone());
            client
        };
        match self {
            Api::Anthropic => {
                let mut client = Anthropic::new(None, "http://127.0.0.1:9", "claude-test")
                    .unwrap()
                    .max_tokens(1024);
                client.set_tool_choice(choice.clone());
                client.request_body(request, stream)
            }
            Api::Chat => openai(OpenAiApi::ChatCompletions).request_body(request, stream),
            Api::Responses => openai(OpenAiApi::Responses).request_body(request, stream),
            Api::Gemini => {
                let mut client = Gemini::new(None, "http://127.0.0.1:9", "gemini-test")
                    .unwrap()
                    .json_schema(strict);
                client.set_tool_choice(choice.clone());
                client.request_body(request, stream)
            }
        }
        .expect("the example's tools render")
    }

    /// The body as [`carnet::providers`] renders it (the client's, unstreamed, not strict).
    fn render(self, request: &ChatRequest<'_>) -> Value {
        let body = self.body(request, false, false);
        let namespaces: BTreeMap<String, String> = MANIFEST
            .toolsets
            .iter()
            .map(|t| (t.name.to_string(), t.description.to_string()))
            .collect();
        let openai = openai::RequestOptions {
            model: "gpt-test".into(),
            strict: false,
            namespaces,
        };
        let rendered = match self {
            Api::Anthropic => anthropic::request(
                request,
                &anthropic::RequestOptions {
                    model: "claude-test".into(),
                    max_tokens: 1024,
                },
            ),
            Api::Chat => openai::chat_request(request, &openai),
            Api::Responses => openai::responses_request(request, &openai),
            Api::Gemini => gemini::request(request, &gemini::RequestOptions::default()),
        }
        .expect("the example's tools render");
        assert_eq!(body, rendered, "the client sends what the renderer renders");
        body
    }

    /// The part of a request a provider caches as a prefix: system prompt and tools.
    fn prefix(self, body: &Value) -> String {
        match self {
            Api::Anthropic => format!("{}{}", body["system"], body["tools"]),
            Api::Chat => format!("{}{}", body["messages"][0], body["tools"]),
            Api::Responses => format!("{}{}", body["instructions"], body["tools"]),
            Api::Gemini => format!("{}{}", body["systemInstruction"], body["tools"]),
        }
    }
}

/// The scripted model, recording each request as every API's body.
struct Recorder {
    model: ScriptedResearcher,
    bodies: Vec<Vec<Value>>,
    /// The clients' other bodies: `(file name prefix, body)` per step.
    variants: Vec<Vec<(String, Value)>>,
    gemini: Vec<Option<Value>>,
}

impl ChatModel for Recorder {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.bodies
            .push(Api::ALL.iter().map(|api| api.render(&request)).collect());
        let mut variants = Vec::new();
        for api in Api::ALL {
            variants.push((format!("{}-stream", api.name()), api.body(&request, true, false)));
            if api != Api::Anthropic {
                variants.push((api.strict_name(), api.body(&request, false, true)));
            }
            // A forced tool on even steps, any tool on odd ones.
            let choice = if self.variants.len().is_multiple_of(2) {
                ToolChoice::Tool("loadSkill".into())
            } else {
                ToolChoice::Required
            };
            variants.push((
                format!("{}-choice", api.name()),
                api.body_with(&request, false, false, &choice),
            ));
        }
        // A model that refuses a forced choice (Claude Fable 5.1) is sent `auto`.
        let mut fable = Anthropic::new(None, "http://127.0.0.1:9", "claude-fable-5-1")
            .unwrap()
            .max_tokens(1024);
        fable.set_tool_choice(ToolChoice::Required);
        let body = fable.request_body(&request, false).unwrap();
        assert_eq!(body.get("tool_choice"), None, "Fable 5.1 refuses `any`");
        variants.push(("anthropic-choice-fable".to_owned(), body));
        self.variants.push(variants);
        self.gemini.push(gemini::tool_config(&request).unwrap());
        self.model.complete(request)
    }
}

struct Run {
    session: Session,
    outcome: chat::Outcome,
    bodies: Vec<Vec<Value>>,
    gemini: Vec<Option<Value>>,
}

fn run(mode: ExposureMode) -> Run {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).mode(mode).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    let chart = std::env::temp_dir().join(format!("carnet-disclosure-{}-{}.svg", mode.name(), std::process::id()));
    let mut recorder = Recorder {
        model: ScriptedResearcher::new(chart.to_string_lossy()),
        bodies: Vec::new(),
        gemini: Vec::new(),
        variants: Vec::new(),
    };
    let mut messages = vec![question()];
    let outcome = block_on(chat::run(&mut session, &mut recorder, &mut messages, 12, |_| {})).unwrap();
    let _ = std::fs::remove_file(&chart);
    if let Some(dir) = std::env::var_os("CARNET_REQUESTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        for (step, bodies) in recorder.bodies.iter().enumerate() {
            for (api, body) in Api::ALL.iter().zip(bodies) {
                let path = std::path::Path::new(&dir).join(format!("{}-{}-{step}.json", api.name(), mode.name()));
                std::fs::write(path, serde_json::to_string_pretty(body).unwrap()).unwrap();
            }
        }
        for (step, variants) in recorder.variants.iter().enumerate() {
            for (prefix, body) in variants {
                let path = std::path::Path::new(&dir).join(format!("{prefix}-{}-{step}.json", mode.name()));
                std::fs::write(path, serde_json::to_string_pretty(body).unwrap()).unwrap();
            }
        }
    }
    Run {
        session,
        outcome,
        bodies: recorder.bodies,
        gemini: recorder.gemini,
    }
}

#[test]
fn every_mode_reaches_the_same_answer_and_refuses_unloaded_tools() {
    let dynamic = run(ExposureMode::Dynamic);
    // The answer names the chart's path, which names the mode.
    let answer = |run: &Run, mode: ExposureMode| {
        let answer = run.outcome.answer.clone().expect("an answer");
        answer.replace(&format!("-{}-", mode.name()), "-MODE-")
    };
    let expected = answer(&dynamic, ExposureMode::Dynamic);
    for mode in ExposureMode::ALL {
        let run = run(mode);
        assert_eq!(answer(&run, mode), expected, "{mode:?}");
        // The first analysis call comes before `dataAnalysis` is loaded: refused in every
        // mode, even where the tool is listed.
        let (call, refused) = run
            .outcome
            .steps
            .iter()
            .flat_map(|s| &s.calls)
            .find(|(c, _)| c.name == "analyzeStatistics")
            .unwrap();
        assert!(refused.is_error, "{mode:?}: {call:?}");
        assert_eq!(refused.value["skills"], json!(["dataAnalysis"]), "{mode:?}");
        assert!(run.session.is_loaded("dataAnalysis"), "{mode:?}");
    }
}

#[test]
fn deferred_and_allowed_tools_keep_the_prefix_byte_identical() {
    for mode in [ExposureMode::Deferred, ExposureMode::AllowedTools] {
        let run = run(mode);
        assert!(run.bodies.len() >= 4, "{mode:?}: a multi-step conversation");
        for (i, api) in Api::ALL.iter().enumerate() {
            let first = api.prefix(&run.bodies[0][i]);
            for (step, bodies) in run.bodies.iter().enumerate() {
                assert_eq!(
                    api.prefix(&bodies[i]),
                    first,
                    "{mode:?} {api:?}: step {step} changed the prefix"
                );
            }
        }
    }
    // Dynamic mode does change it: the check above can fail.
    let dynamic = run(ExposureMode::Dynamic);
    let prefixes: Vec<String> = dynamic.bodies.iter().map(|b| Api::Anthropic.prefix(&b[0])).collect();
    assert!(prefixes.windows(2).any(|w| w[0] != w[1]));
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn deferred_mode_marks_domain_tools_and_answers_loads_with_references() {
    let run = run(ExposureMode::Deferred);
    let last = run.bodies.last().unwrap();

    // Anthropic: meta-tools eager (a request whose tools are all deferred is refused),
    // domain tools deferred; the load's result carries `tool_reference` blocks.
    let tools = &last[0]["tools"];
    assert_eq!(tool(tools, "loadSkill").get("defer_loading"), None);
    assert_eq!(tool(tools, "analyzeStatistics")["defer_loading"], true);
    let results: Vec<&Value> = last[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    let references: Vec<&str> = results
        .iter()
        .filter_map(|r| r["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_reference")
        .map(|b| b["tool_name"].as_str().unwrap())
        .collect();
    assert!(
        references.contains(&"analyzeStatistics") && references.contains(&"visualizeData"),
        "{references:?}"
    );
    assert!(references.contains(&"formatCitation"), "{references:?}");

    // OpenAI Responses: meta-tools as functions, one namespace of deferred functions per
    // toolset; each load's output followed by an `additional_tools` item.
    let tools = last[2]["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .any(|t| t["type"] == "function" && t["name"] == "loadSkill")
    );
    let statistics = tools
        .iter()
        .find(|t| t["type"] == "namespace" && t["name"] == "statistical-analysis")
        .expect("a namespace per toolset");
    assert!(
        statistics["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["defer_loading"] == true)
    );
    let additional: Vec<&Value> = last[2]["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "additional_tools")
        .collect();
    assert_eq!(additional.len(), 2, "one per skill loaded");
    assert_eq!(additional[0]["role"], "developer");

    // Chat Completions has no deferral: every tool, no switch.
    assert_eq!(last[1].get("tool_choice"), None);
    assert_eq!(
        last[1]["tools"].as_array().unwrap().len(),
        last[0]["tools"].as_array().unwrap().len()
    );
}

#[test]
fn allowed_tools_mode_restricts_with_the_providers_switch() {
    let run = run(ExposureMode::AllowedTools);
    let allowed = |body: &Value, path: &[&str]| -> Vec<String> {
        let mut list = body;
        for key in path {
            list = &list[*key];
        }
        list.as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["name"]
                    .as_str()
                    .or(t["function"]["name"].as_str())
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let first = &run.bodies[0];
    let last = run.bodies.last().unwrap();
    let chat_first = allowed(&first[1], &["tool_choice", "allowed_tools", "tools"]);
    let chat_last = allowed(&last[1], &["tool_choice", "allowed_tools", "tools"]);
    assert!(chat_first.contains(&"basicSearch".to_owned()));
    assert!(!chat_first.contains(&"analyzeStatistics".to_owned()));
    assert!(chat_last.contains(&"analyzeStatistics".to_owned()));
    assert_eq!(last[1]["tool_choice"]["allowed_tools"]["mode"], "auto");
    let responses_last = allowed(&last[2], &["tool_choice", "tools"]);
    assert_eq!(responses_last, chat_last);
    let gemini = run.gemini.last().unwrap().as_ref().unwrap();
    assert_eq!(&last[3]["toolConfig"], gemini, "the client sends the allow-list");
    assert_eq!(gemini["functionCallingConfig"]["mode"], "VALIDATED");
    assert_eq!(
        gemini["functionCallingConfig"]["allowedFunctionNames"],
        json!(chat_last)
    );
    assert!(run.gemini.iter().all(Option::is_some));
    assert!(self::run(ExposureMode::Deferred).gemini.iter().all(Option::is_none));
}
