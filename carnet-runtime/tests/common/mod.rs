//! What the remote toolset tests share: the stand-in MCP server `tests/remote/standin.py`
//! (one that misbehaves on purpose, in the mode it is started with), the tool definitions a
//! manifest gives a remote toolset, made from a pin, a layer that keeps what spans say, and
//! where the official everything server is.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use carnet_runtime::remote::Pin;
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer};

/// The stand-in's script, as an absolute path.
pub(crate) fn script() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/remote/standin.py");
    root.canonicalize()
        .expect("tests/remote/standin.py")
        .display()
        .to_string()
}

/// The Python that runs it: `$PYTHON` (the venv of `tests/remote/setup.sh`), else `python3`.
pub(crate) fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// The server description (a toolset's `mcp.server`) of the stand-in in `mode`.
pub(crate) fn standin(mode: &str) -> Value {
    json!({"command": python(), "args": [script(), "--mode", mode]})
}

/// The official `everything` server (`@modelcontextprotocol/server-everything`):
/// `CARNET_TEST_EVERYTHING_SERVER` (which must exist), else the wrapper `tests/remote/setup.sh`
/// installs; `None` (the test skips, saying why) when it is not installed.
pub(crate) fn everything() -> Option<Value> {
    let set = std::env::var("CARNET_TEST_EVERYTHING_SERVER").ok();
    let path = set.as_ref().map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/remote/bin/everything-server"),
        PathBuf::from,
    );
    if path.is_file() {
        return Some(json!({"command": path.display().to_string()}));
    }
    assert!(
        set.is_none(),
        "CARNET_TEST_EVERYTHING_SERVER names no file: {}",
        path.display()
    );
    eprintln!(
        "SKIP: no everything server at {} (run tests/remote/setup.sh, or set CARNET_TEST_EVERYTHING_SERVER)",
        path.display()
    );
    None
}

/// The `toolDefinitions` of a remote toolset whose server listed the tools `pin` recorded.
pub(crate) fn remote_tools(pin: &Pin) -> Vec<Value> {
    pin.json()["tools"]
        .as_array()
        .expect("a pin lists its tools")
        .iter()
        .map(|t| {
            let mut remote = json!({"inputSchema": t["inputSchema"]});
            if let Some(output) = t.get("outputSchema") {
                remote["outputSchema"] = output.clone();
            }
            json!({"name": t["name"], "description": t["description"], "remote": remote})
        })
        .collect()
}

/// A tracing layer that keeps what every span says: `span=NAME` when it opens, then
/// `FIELD=VALUE` for each field recorded, at its opening or later.
#[derive(Clone, Default)]
pub(crate) struct Spans(Arc<Mutex<Vec<String>>>);

impl Spans {
    /// What the spans said so far, in order.
    pub(crate) fn said(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Writes each field as `name=value` (strings unquoted).
struct Push<'a>(&'a mut Vec<String>);

impl Visit for Push<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push(format!("{}={value:?}", field.name()));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push(format!("{}={value}", field.name()));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Spans {
    fn on_new_span(&self, attributes: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
        let mut said = self.0.lock().unwrap();
        said.push(format!("span={}", attributes.metadata().name()));
        attributes.record(&mut Push(&mut said));
    }

    fn on_record(&self, _: &Id, values: &Record<'_>, _: Context<'_, S>) {
        values.record(&mut Push(&mut self.0.lock().unwrap()));
    }
}
