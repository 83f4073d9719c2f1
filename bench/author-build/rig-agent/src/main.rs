//! The `rig` peer's program (`../rig/src/main.rs`) again, line for line, with a rig agent on
//! rig's OpenAI provider besides: what a rig program is before it adopts carnet. The copy is the
//! point of the benchmark: `run.sh` builds each peer alone from its `main.rs` (copied into a
//! fresh directory) and measures an edit of the tool in that file, so a peer cannot share its
//! tools with another through a crate or an `include!` without changing what is measured.

use std::sync::Mutex;

use rig::tool::{PortableTool, ToolExecutionError};
use rig_core as rig;
use rig_core::rig_tool;

/// Notes kept in memory: title, body, tags (rig's tools are free functions).
static NOTES: Mutex<Vec<(String, String, Vec<String>)>> = Mutex::new(Vec::new());

/// Save a note with a title, a body and optional tags
#[rig_tool]
fn add_note(title: String, body: String, tags: Option<Vec<String>>) -> Result<String, ToolExecutionError> {
    let mut notes = NOTES.lock().unwrap();
    notes.push((title.clone(), body, tags.unwrap_or_default()));
    Ok(format!("saved note {}: {title}", notes.len()))
}

/// List the most recent notes
#[rig_tool]
fn list_notes() -> Result<Vec<String>, ToolExecutionError> {
    let notes = NOTES.lock().unwrap();
    Ok(notes.iter().rev().take(20).map(|(title, _, _)| title.clone()).collect())
}

/// Find notes whose title, body or tags contain every given keyword
#[rig_tool]
fn search_notes(keywords: Vec<String>) -> Result<Vec<String>, ToolExecutionError> {
    let notes = NOTES.lock().unwrap();
    Ok(notes
        .iter()
        .rev()
        .filter(|(title, body, tags)| {
            let text = format!("{title} {body} {}", tags.join(" ")).to_lowercase();
            keywords.iter().all(|k| text.contains(&k.to_lowercase()))
        })
        .map(|(title, _, _)| title.clone())
        .collect())
}

const PREAMBLE: &str = "You are a helpful assistant. Keep notes with add_note, list_notes and search_notes.";

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--live") {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        runtime.block_on(async {
            let model = rig::providers::openai::OpenAIConfig::from_env()
                .expect("OPENAI_API_KEY is set")
                .client()
                .chat("gpt-4o-mini");
            let agent = rig_agent::AgentBuilder::new(model)
                .preamble(PREAMBLE)
                .tool(AddNote)
                .tool(ListNotes)
                .tool(SearchNotes)
                .build();
            let answer = agent.prompt("Remember to buy milk").await;
            println!("{:?}", answer.map(|response| response.output().to_owned()));
        });
        return;
    }
    futures_lite_block_on(async {
        print_definition(&ADD_NOTE);
        print_definition(&LIST_NOTES);
        print_definition(&SEARCH_NOTES);
        let added = ADD_NOTE.call(serde_json::from_str(r#"{"title": "Groceries", "body": "eggs, milk"}"#).unwrap()).await;
        println!("{added:?}");
        let found = SEARCH_NOTES.call(serde_json::from_str(r#"{"keywords": ["milk"]}"#).unwrap()).await;
        println!("{found:?}");
    });
}

fn print_definition<T: PortableTool>(tool: &T) {
    println!("{}: {} {}", T::NAME, tool.description(), tool.parameters());
}

/// A minimal executor for the tools' futures (they never wait on I/O).
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}
