//! A scripted model: a deterministic policy that reads the conversation (the tools it sees,
//! the results and errors it got) and decides the next step, the way a real model would.
//! It stands in for a provider client behind [`ChatModel`]; swap in a real one and nothing
//! else changes.

use carnet::ToolOutput;
use carnet::chat::{self, ChatModel, ChatRequest, ChatResponse, Message, ModelError};
use carnet::tools::{BoxFuture, ToolCall};
use serde_json::{Value, json};

/// Researches battery storage news and the bundled 2024 sales, then writes a brief.
#[derive(Debug)]
pub struct ScriptedResearcher {
    chart_path: String,
    next_call: usize,
}

impl ScriptedResearcher {
    /// A researcher writing its revenue chart to `chart_path`.
    #[must_use]
    pub fn new(chart_path: impl Into<String>) -> Self {
        ScriptedResearcher {
            chart_path: chart_path.into(),
            next_call: 1,
        }
    }

    fn call(&mut self, name: &str, arguments: Value) -> ToolCall {
        let call = chat::call(self.next_call, name, arguments);
        self.next_call += 1;
        call
    }

    fn decide(&mut self, request: &ChatRequest<'_>) -> ChatResponse {
        let results: Vec<(&ToolCall, &ToolOutput)> = chat::tool_results(request.messages).collect();
        let last = |name: &str| results.iter().find(|(c, _)| c.name == name).map(|(_, o)| *o);
        // What the model may call now: in the modes that send every tool, a tool listed is
        // not necessarily callable yet.
        let visible = |name: &str| request.callable.iter().any(|t| t == name);

        let Some(search) = last("basicSearch") else {
            return self.calls(
                None,
                &[("basicSearch", json!({"query": "battery storage costs", "limit": 3}))],
            );
        };
        match last("analyzeStatistics") {
            // A first, naive attempt: the tool is not offered yet.
            None => {
                return self.calls(
                    None,
                    &[(
                        "analyzeStatistics",
                        json!({"dataset": "monthly_sales", "column": "units"}),
                    )],
                );
            }
            Some(refused) if refused.is_error => {
                // The error says which skill brings the tool: load it, then retry with the chart.
                if !visible("analyzeStatistics") {
                    let skill = refused.value["skills"][0].as_str().unwrap_or("dataAnalysis").to_owned();
                    return self.calls(
                        Some("I need the data analysis skill first."),
                        &[("loadSkill", json!({"skillName": skill}))],
                    );
                }
                return self.calls(
                    None,
                    &[
                        ("analyzeStatistics", json!({"dataset": "monthly_sales", "column": "units"})),
                        ("visualizeData", json!({"dataset": "monthly_sales", "column": "revenue", "kind": "line", "path": self.chart_path})),
                    ],
                );
            }
            Some(_) => {}
        }
        if !visible("formatCitation") {
            return self.calls(None, &[("loadSkill", json!({"skillName": "reportWriting"}))]);
        }
        let Some(citation) = last("formatCitation") else {
            let top = search.value[0].clone();
            return self.calls(None, &[("formatCitation", json!({"hit": top, "style": "apa"}))]);
        };
        ChatResponse::answer(brief(
            search,
            last("analyzeStatistics").unwrap_or(citation),
            last("visualizeData"),
            citation,
        ))
    }

    fn calls(&mut self, text: Option<&str>, calls: &[(&str, Value)]) -> ChatResponse {
        let calls = calls.iter().map(|(name, args)| self.call(name, args.clone())).collect();
        ChatResponse::tool_calls(text.map(str::to_owned), calls)
    }
}

/// The final answer, written from the tool results.
fn brief(search: &ToolOutput, stats: &ToolOutput, chart: Option<&ToolOutput>, citation: &ToolOutput) -> String {
    let top = &search.value[0];
    let s = &stats.value;
    let growth = match (s["min"].as_f64(), s["max"].as_f64()) {
        (Some(min), Some(max)) if min > 0.0 => format!("{:.0}%", (max / min - 1.0) * 100.0),
        _ => "n/a".to_owned(),
    };
    let chart = chart
        .and_then(|c| c.value["written_to"].as_str())
        .map(|p| format!("\n- Revenue chart: {p}"))
        .unwrap_or_default();
    format!(
        "Brief\n\n\
         - Battery storage: \"{}\" ({}, {}) reports that {}\n\
         - 2024 sales: {} months, {:.2} units a month on average (median {:.2}, standard deviation {:.2}), \
         from {} to {} units: {} from the lowest to the highest month.{}\n\n\
         Source: {}",
        top["title"].as_str().unwrap_or_default(),
        top["domain"].as_str().unwrap_or_default(),
        top["date"].as_str().unwrap_or_default(),
        first_sentence(top["snippet"].as_str().unwrap_or_default()).to_lowercase(),
        s["count"],
        s["mean"].as_f64().unwrap_or_default(),
        s["median"].as_f64().unwrap_or_default(),
        s["std_dev"].as_f64().unwrap_or_default(),
        s["min"],
        s["max"],
        growth,
        chart,
        citation.value.as_str().unwrap_or_default(),
    )
}

fn first_sentence(text: &str) -> &str {
    text.split_inclusive(". ").next().unwrap_or(text).trim()
}

impl ChatModel for ScriptedResearcher {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = self.decide(&request);
        let reason = if response.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        let response = response.with_finish_reason(reason);
        Box::pin(async move { Ok(response) })
    }

    // What traces name the model (`chat scripted-researcher`).
    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn model(&self) -> &'static str {
        "scripted-researcher"
    }
}

/// The question the example asks.
#[must_use]
pub fn question() -> Message {
    Message::User(
        "Prepare a short brief: what does recent news say about battery storage costs, and how did our monthly \
         sales (units) evolve in 2024? Chart the revenue."
            .to_owned(),
    )
}
