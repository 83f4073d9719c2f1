//! The desk agent without its servers: remote tools come from the pins (no server starts to
//! list them), the Rust toolset runs, and a server that cannot start is an error result the
//! conversation survives. `tests/remote/run.sh` runs the whole conversation against the real
//! servers.

use carnet::Carnet;
use carnet::remote::RemoteError;
use carnet::tools::block_on;
use desk_agent::Notes;
use desk_agent::manifest::{MANIFEST, Toolsets, agents, tools, toolsets};
use serde_json::json;

fn carnet() -> Carnet {
    // `Toolsets` has a field for `notes` only: the remote toolsets need no Rust.
    Carnet::new(
        &MANIFEST,
        Toolsets {
            notes: Notes::default().toolset(),
        },
    )
    .build()
    .unwrap()
}

#[test]
fn remote_tools_come_from_the_pins_and_appear_on_load() {
    let carnet = carnet();
    let mut session = carnet.session(agents::DESK);
    assert!(!session.tools().iter().any(|t| t.name == "read_text_file"));
    block_on(session.call("loadSkill", json!({"skillName": "files"})));
    let read = session
        .tools()
        .iter()
        .find(|t| t.name == "read_text_file")
        .cloned()
        .unwrap();
    assert_eq!(
        read.input_schema["required"],
        json!(["path"]),
        "the server's schema, from the pin"
    );
    assert_eq!(
        tools::READ_TEXT_FILE.name(),
        "read_text_file",
        "typed ids for remote tools"
    );
    assert_eq!(carnet.remote_started("filesystem"), Some(false), "nothing called yet");
    assert_eq!(carnet.remote_started("time"), Some(false));
}

#[test]
fn the_rust_toolset_runs_and_a_server_that_cannot_start_is_an_error_result() {
    assert!(
        std::env::var_os("DESK_DIR").is_none(),
        "this test needs DESK_DIR unset (the filesystem server's argument)"
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let carnet = carnet();
    let mut session = carnet.session(agents::DESK);
    runtime.block_on(async {
        session.call("loadSkill", json!({"skillName": "notes"})).await;
        let added = session.call("addNote", json!({"text": "first"})).await;
        assert_eq!(added.value, json!(1));
        session.call("loadSkill", json!({"skillName": "files"})).await;
        let out = session.call("list_allowed_directories", json!({})).await;
        assert!(out.is_error);
        assert_eq!(out.value["code"], "upstream_unavailable", "{out:?}");
        let message = out.error_message().unwrap();
        assert!(
            message.contains("toolset `filesystem`") && message.contains("DESK_DIR"),
            "{message}"
        );
        let listed = session.call("listNotes", json!({})).await;
        assert_eq!(listed.value, json!(["first"]), "the session goes on");
    });
}

#[test]
fn a_rust_tool_reading_through_a_server_that_cannot_start_gets_its_error() {
    assert!(
        std::env::var_os("DESK_EVERYTHING_SERVER").is_none(),
        "this test needs DESK_EVERYTHING_SERVER unset (and no `mcp-server-everything` on the PATH)"
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let carnet = carnet();
    let library = carnet.remote(toolsets::LIBRARY).unwrap();
    assert!(
        matches!(carnet.remote(toolsets::NOTES), Err(RemoteError::NotRemote { .. })),
        "a toolset of Rust tools has no connection"
    );
    runtime.block_on(async {
        // The server has `echo`, but `library` takes none of its tools from the pin.
        let echo = library.call_tool("echo", json!({"message": "hi"})).await.unwrap_err();
        assert!(matches!(echo, RemoteError::UnknownTool { .. }), "{echo:?}");
        assert!(!library.started(), "refused before anything starts");
        let mut session = carnet.session(agents::DESK);
        session.call("loadSkill", json!({"skillName": "notes"})).await;
        let out = session.call("readReference", json!({"name": "features.md"})).await;
        // `Context::remote` reaches the engine's connection (the one `library` is: its start
        // shows on the handle); `?` on the handle's error is what a tool of the toolset itself
        // would give the model.
        assert_eq!(out.value["code"], "upstream_unavailable", "{out:?}");
        assert_eq!(out.value["data"]["toolset"], "library", "{out:?}");
        assert!(library.started(), "the session's load or the read started it");
    });
}
