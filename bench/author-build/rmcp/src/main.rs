use std::sync::{Arc, Mutex};

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ServiceExt, schemars, tool, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddNote {
    title: String,
    body: String,
    tags: Option<Vec<String>>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SearchNotes {
    keywords: Vec<String>,
}

/// Notes kept in memory: title, body, tags.
#[derive(Debug, Clone, Default)]
struct Notes {
    notes: Arc<Mutex<Vec<(String, String, Vec<String>)>>>,
}

#[tool_router(server_handler)]
impl Notes {
    /// Save a note with a title, a body and optional tags
    #[tool]
    fn add_note(&self, Parameters(AddNote { title, body, tags }): Parameters<AddNote>) -> String {
        let mut notes = self.notes.lock().unwrap();
        notes.push((title.clone(), body, tags.unwrap_or_default()));
        format!("saved note {}: {title}", notes.len())
    }

    /// List the most recent notes
    #[tool]
    fn list_notes(&self) -> Json<Vec<String>> {
        let notes = self.notes.lock().unwrap();
        Json(notes.iter().rev().take(20).map(|(title, _, _)| title.clone()).collect())
    }

    /// Find notes whose title, body or tags contain every given keyword
    #[tool]
    fn search_notes(&self, Parameters(SearchNotes { keywords }): Parameters<SearchNotes>) -> Json<Vec<String>> {
        let notes = self.notes.lock().unwrap();
        Json(
            notes
                .iter()
                .rev()
                .filter(|(title, body, tags)| {
                    let text = format!("{title} {body} {}", tags.join(" ")).to_lowercase();
                    keywords.iter().all(|k| text.contains(&k.to_lowercase()))
                })
                .map(|(title, _, _)| title.clone())
                .collect(),
        )
    }
}

fn main() {
    let notes = Notes::default();
    for tool in Notes::tool_router().list_all() {
        println!("{}: {}", tool.name, serde_json::to_string(&tool.input_schema).unwrap_or_default());
    }
    println!("{}", notes.add_note(Parameters(AddNote { title: "Groceries".into(), body: "eggs, milk".into(), tags: None })));
    println!("{:?}", notes.search_notes(Parameters(SearchNotes { keywords: vec!["milk".into()] })).0);
    if std::env::args().nth(1).as_deref() == Some("--serve") {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let running = notes.serve(rmcp::transport::stdio()).await.unwrap();
            running.waiting().await.unwrap();
        });
    }
}
