//! What the remote toolset tests share: the stand-in MCP server `tests/remote/standin.py`
//! (one that misbehaves on purpose, in the mode it is started with) and the tool definitions
//! a manifest gives a remote toolset, made from a pin.

use std::path::PathBuf;

use carnet_runtime::remote::Pin;
use serde_json::{Value, json};

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
