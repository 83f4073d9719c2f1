//! Runtime v2's call contract: hooks run after name resolution, exposure and argument checks
//! and may rewrite the arguments; hooks per tool and per toolset; per-conversation values
//! read typed by tools and hooks; typed tool errors; `unload_toolset`.

use std::sync::{Arc, Mutex};

use carnet_runtime::extensions::Extensions;
use carnet_runtime::{
    Before, BoxFuture, BuildError, CallInfo, Carnet, Context, Hook, Manifest, Session, ToolError, ToolHandler,
    ToolImpl, ToolOutput, ToolsetImpl, block_on,
};
use serde_json::{Value, json};

const MANIFEST: &str = r#"{
  "agents": {
    "assistant": { "name": "assistant", "description": "Helps", "initialSkills": ["notes"],
      "skills": ["files"], "prompt": "You help." }
  },
  "skills": {
    "notes": { "name": "notes", "description": "Notes", "toolsets": ["notes"], "content": "Take notes." },
    "files": { "name": "files", "description": "Files", "toolsets": ["files"], "content": "Manage files." }
  },
  "toolsets": {
    "notes": { "name": "notes", "description": "Notes", "content": "", "tools": [
      { "name": "whoami", "description": "The user" },
      { "name": "note.add", "description": "Adds a note" } ] },
    "files": { "name": "files", "description": "Files", "content": "Use with care.", "tools": [
      { "name": "deleteFile", "description": "Deletes a file" },
      { "name": "readFile", "description": "Reads a file" } ] }
  }
}"#;

/// The application's per-conversation data.
#[derive(Debug, Clone, PartialEq)]
struct User {
    name: String,
    admin: bool,
}

struct WhoAmI;

impl ToolHandler for WhoAmI {
    fn call<'a>(&'a self, context: &'a Context<'a>, _: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        let user = context.extension::<User>().cloned();
        Box::pin(async move {
            match user {
                Some(user) => Ok(json!({"user": user.name})),
                None => Err(ToolError::new("nobody is signed in").with_code("unauthenticated")),
            }
        })
    }
}

fn path_schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false})
}

fn toolsets() -> Vec<ToolsetImpl> {
    vec![
        ToolsetImpl::new(
            "notes",
            [
                ToolImpl::new("whoami", json!({"type": "object"}), WhoAmI),
                ToolImpl::from_fn(
                    "note.add",
                    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
                    |args| async move { Ok(json!({"added": args["text"]})) },
                ),
            ],
        ),
        ToolsetImpl::new(
            "files",
            [
                ToolImpl::from_fn("deleteFile", path_schema(), |args| async move {
                    Ok(json!({"deleted": args["path"]}))
                }),
                ToolImpl::from_fn("readFile", path_schema(), |args| async move {
                    Err(
                        ToolError::new(format!("no such file: {}", args["path"].as_str().unwrap_or_default()))
                            .with_code("not_found")
                            .with_data(json!({"path": args["path"], "candidates": ["a.txt"]})),
                    )
                }),
            ],
        ),
    ]
}

/// Records every call its hooks see, before and after.
#[derive(Default, Clone)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

struct Recorder(Log, &'static str);

impl Hook for Recorder {
    fn before(&self, call: &CallInfo<'_>) -> Before {
        self.0
            .0
            .lock()
            .unwrap()
            .push(format!("{} before {} {}", self.1, call.tool, call.arguments));
        Before::Continue
    }

    fn after(&self, call: &CallInfo<'_>, output: &mut ToolOutput) {
        let outcome = if output.is_error { "error" } else { "ok" };
        self.0
            .0
            .lock()
            .unwrap()
            .push(format!("{} after {} {outcome}", self.1, call.tool));
    }
}

struct Respond;

impl Hook for Respond {
    fn before(&self, _: &CallInfo<'_>) -> Before {
        Before::Respond(ToolOutput::ok(json!("from the hook")))
    }
}

/// Deletes only under `tmp/`: rewrites other paths there. Makes a mistake on `!` paths: a
/// field the schema does not have.
struct Sandbox;

impl Hook for Sandbox {
    fn before(&self, call: &CallInfo<'_>) -> Before {
        let path = call.arguments["path"].as_str().unwrap_or_default();
        if path.starts_with("tmp/") {
            Before::Continue
        } else if let Some(path) = path.strip_prefix('!') {
            Before::Rewrite(json!({"path": path, "force": true}))
        } else {
            Before::Rewrite(json!({"path": format!("tmp/{path}")}))
        }
    }
}

/// Only admins delete.
struct AdminsOnly;

impl Hook for AdminsOnly {
    fn before(&self, call: &CallInfo<'_>) -> Before {
        match call.extension::<User>() {
            Some(user) if user.admin => Before::Continue,
            Some(user) => Before::Deny(format!("{} may not delete files", user.name)),
            None => Before::Deny("sign in first".to_owned()),
        }
    }
}

fn manifest() -> Manifest {
    Manifest::from_json(MANIFEST).unwrap()
}

fn call(session: &mut Session, tool: &str, arguments: Value) -> ToolOutput {
    block_on(session.call(tool, arguments))
}

#[test]
fn a_respond_hook_never_answers_for_a_tool_the_session_has_not_loaded() {
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .tool_hook("readFile", Respond)
        .build()
        .unwrap();
    let mut session = carnet.session("assistant").unwrap();
    let refused = call(&mut session, "readFile", json!({"path": "a.txt"}));
    assert_eq!(
        refused.error_message(),
        Some("tool `readFile` is not available yet: load skill `files` first with `loadSkill`")
    );
    call(&mut session, "loadSkill", json!({"skillName": "files"}));
    let answered = call(&mut session, "readFile", json!({"path": "a.txt"}));
    assert_eq!(answered, ToolOutput::ok(json!("from the hook")));
}

#[test]
fn before_hooks_see_only_calls_the_session_accepts_after_hooks_see_every_call() {
    let log = Log::default();
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .hook(Recorder(log.clone(), "all"))
        .build()
        .unwrap();
    let mut session = carnet.session("assistant").unwrap();

    assert!(
        call(&mut session, "deleteFile", json!({"path": "a"})).is_error,
        "not loaded"
    );
    assert!(call(&mut session, "nosuchTool", json!({})).is_error, "unknown");
    assert!(
        call(&mut session, "note.add", json!({"text": 3})).is_error,
        "invalid arguments"
    );
    assert!(
        call(&mut session, "loadSkill", json!({})).is_error,
        "invalid meta arguments"
    );
    assert_eq!(
        log.take(),
        [
            "all after deleteFile error",
            "all after nosuchTool error",
            "all after note.add error",
            "all after loadSkill error",
        ]
    );

    // Aliases resolve first: hooks see the canonical name.
    assert!(!call(&mut session, "note_add", json!({"text": "hi"})).is_error);
    assert!(!call(&mut session, "loadSkill", json!({"skillName": "files"})).is_error);
    assert_eq!(
        log.take(),
        [
            r#"all before note.add {"text":"hi"}"#,
            "all after note.add ok",
            r#"all before loadSkill {"skillName":"files"}"#,
            "all after loadSkill ok",
        ]
    );
}

#[test]
fn a_before_hook_rewrites_the_arguments_and_the_rewrite_is_validated_again() {
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .tool_hook("deleteFile", Sandbox)
        .build()
        .unwrap();
    let mut session = carnet.session("assistant").unwrap();
    call(&mut session, "loadSkill", json!({"skillName": "files"}));
    assert_eq!(
        call(&mut session, "deleteFile", json!({"path": "notes.txt"})).value,
        json!({"deleted": "tmp/notes.txt"})
    );
    assert_eq!(
        call(&mut session, "deleteFile", json!({"path": "tmp/old"})).value,
        json!({"deleted": "tmp/old"})
    );
    let output = call(&mut session, "deleteFile", json!({"path": "!old"}));
    assert!(output.is_error);
    let message = output.error_message().unwrap();
    assert!(
        message.starts_with("invalid arguments for `deleteFile` after a hook rewrote them:"),
        "{message}"
    );
    assert_eq!(output.value["field"], "/force");
}

#[test]
fn hooks_registered_for_a_tool_or_a_toolset_wrap_only_those_calls() {
    let log = Log::default();
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .toolset_hook("files", Recorder(log.clone(), "files"))
        .tool_hook("note.add", Recorder(log.clone(), "note"))
        .tool_hook("loadSkill", Recorder(log.clone(), "load"))
        .build()
        .unwrap();
    let mut session = carnet.session("assistant").unwrap();
    call(&mut session, "whoami", json!({}));
    call(&mut session, "note.add", json!({"text": "x"}));
    call(&mut session, "loadSkill", json!({"skillName": "files"}));
    call(&mut session, "listAvailableSkills", json!({}));
    call(&mut session, "deleteFile", json!({"path": "a"}));
    assert_eq!(
        log.take(),
        [
            r#"note before note.add {"text":"x"}"#,
            "note after note.add ok",
            r#"load before loadSkill {"skillName":"files"}"#,
            "load after loadSkill ok",
            r#"files before deleteFile {"path":"a"}"#,
            "files after deleteFile ok",
        ]
    );

    let unknown_tool = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .tool_hook("deletFile", Respond)
        .build()
        .unwrap_err();
    assert_eq!(
        unknown_tool,
        BuildError::UnknownTool {
            tool: "deletFile".to_owned(),
            similar: Some("deleteFile".to_owned()),
        }
    );
    assert_eq!(
        unknown_tool.to_string(),
        "unknown tool `deletFile`: did you mean `deleteFile`?"
    );
    let unknown_toolset = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .toolset_hook("file", Respond)
        .build()
        .unwrap_err();
    assert!(matches!(unknown_toolset, BuildError::UnknownToolset { similar: Some(ref s), .. } if s == "files"));
}

#[test]
fn two_conversations_two_users_tools_and_hooks_read_their_own() {
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .toolset_hook("files", AdminsOnly)
        .build()
        .unwrap();
    let ada = User {
        name: "ada".to_owned(),
        admin: true,
    };
    let bob = User {
        name: "bob".to_owned(),
        admin: false,
    };
    let mut first = carnet.session("assistant").unwrap().with(ada.clone());
    let mut second = carnet.session("assistant").unwrap().with(bob);
    let mut anonymous = carnet.session("assistant").unwrap();

    assert_eq!(call(&mut first, "whoami", json!({})).value, json!({"user": "ada"}));
    assert_eq!(call(&mut second, "whoami", json!({})).value, json!({"user": "bob"}));
    let nobody = call(&mut anonymous, "whoami", json!({}));
    assert_eq!(nobody.error_message(), Some("nobody is signed in"));
    assert_eq!(nobody.value["code"], "unauthenticated");

    for session in [&mut first, &mut second, &mut anonymous] {
        call(session, "loadSkill", json!({"skillName": "files"}));
    }
    assert_eq!(
        call(&mut first, "deleteFile", json!({"path": "a"})).value,
        json!({"deleted": "a"})
    );
    let denied = call(&mut second, "deleteFile", json!({"path": "a"}));
    assert_eq!(denied.error_message(), Some("bob may not delete files"));
    assert_eq!(denied.value["denied"], true);
    assert_eq!(
        call(&mut anonymous, "deleteFile", json!({"path": "a"})).error_message(),
        Some("sign in first")
    );

    // Values survive loads and resets, not a resume (the application sets them again).
    assert_eq!(first.extensions().get::<User>(), Some(&ada));
    first.reset();
    assert_eq!(first.extensions().get::<User>(), Some(&ada));
    let resumed = carnet.resume(&first.state()).unwrap();
    assert!(resumed.extensions().is_empty());
    assert!(first.extensions_mut().remove::<User>());
    assert_eq!(format!("{:?}", Extensions::new()), "{}");
}

#[test]
fn a_detached_call_keeps_the_values_it_started_with() {
    let carnet = Carnet::builder(&manifest()).toolsets(toolsets()).build().unwrap();
    let mut session = carnet.session("assistant").unwrap().with(User {
        name: "ada".to_owned(),
        admin: false,
    });
    let pending = session.call_detached("whoami", &json!({})).unwrap();
    session.insert(User {
        name: "eve".to_owned(),
        admin: false,
    });
    assert_eq!(block_on(pending).value, json!({"user": "ada"}));
    assert_eq!(call(&mut session, "whoami", json!({})).value, json!({"user": "eve"}));
}

#[test]
fn a_typed_tool_error_reaches_the_result_with_its_code_and_data() {
    let carnet = Carnet::builder(&manifest()).toolsets(toolsets()).build().unwrap();
    let mut session = carnet.session("assistant").unwrap();
    call(&mut session, "loadSkill", json!({"skillName": "files"}));
    let output = call(&mut session, "readFile", json!({"path": "b.txt"}));
    assert_eq!(
        output,
        ToolOutput {
            value: json!({
                "success": false,
                "error": "no such file: b.txt",
                "tool": "readFile",
                "code": "not_found",
                "data": {"path": "b.txt", "candidates": ["a.txt"]},
            }),
            is_error: true,
            exposes: Vec::new(),
            content: None,
        }
    );
    let plain = ToolError::new("plain");
    assert_eq!((plain.code, plain.data), (None, None));
}

#[test]
fn unload_toolset_removes_what_load_toolset_and_load_tool_added() {
    let carnet = Carnet::builder(&manifest()).toolsets(toolsets()).build().unwrap();
    let mut session = carnet.session("assistant").unwrap();
    call(&mut session, "loadToolset", json!({"toolsetName": "files"}));
    assert!(session.is_exposed("deleteFile"));
    let prompt = session.system_prompt().to_owned();
    assert!(session.unload_toolset("files"));
    assert!(!session.is_exposed("deleteFile"));
    assert_ne!(session.system_prompt(), prompt, "the prompt follows the unload");
    assert!(!session.unload_toolset("files"), "nothing left to unload");

    call(&mut session, "loadTool", json!({"toolName": "readFile"}));
    assert_eq!(session.state().tools, ["readFile"]);
    assert!(session.unload_toolset("files"));
    assert!(session.state().tools.is_empty());

    // A toolset a loaded skill brings stays until the skill is unloaded.
    assert!(!session.unload_toolset("notes"));
    assert!(session.is_exposed("whoami"));
    assert!(!session.unload_toolset("nosuch"));
}

#[test]
fn a_typed_agent_id_opens_a_session_without_a_result_a_name_is_checked() {
    use carnet_runtime::{AgentId, SessionError};
    let carnet = Carnet::builder(&manifest()).toolsets(toolsets()).build().unwrap();
    let typed: Session = carnet.session(AgentId::__new("assistant"));
    assert_eq!(typed.agent(), "assistant");
    let named: Result<Session, SessionError> = carnet.session("assistant");
    assert_eq!(named.unwrap().state(), typed.state());
    let owned = String::from("asistant");
    assert_eq!(
        carnet.session(&owned).unwrap_err().to_string(),
        "unknown agent `asistant`: did you mean `assistant`?"
    );
    let baseline = carnet.everything_up_front(AgentId::__new("assistant"));
    assert_eq!(baseline.tools.len(), 4);
    let other_manifest = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        carnet.session(AgentId::__new("researcher"))
    }));
    let message = *other_manifest.unwrap_err().downcast::<String>().unwrap();
    assert_eq!(
        message,
        "unknown agent `researcher` (the typed id comes from another manifest than this engine's)"
    );
}

/// `confirm_destructive`: a tool not said to be read-only or non-destructive runs only once
/// the conversation says the user confirmed; read-only tools and meta-tools never ask. The
/// annotations reach hooks, `tools/list`'s rendering and `describeTool`.
#[test]
fn destructive_tools_wait_for_confirmation() {
    struct Confirmed;
    let annotated = MANIFEST
        .replace(
            r#"{ "name": "deleteFile", "description": "Deletes a file" }"#,
            r#"{ "name": "deleteFile", "description": "Deletes a file", "title": "Delete a file",
                 "annotations": {"destructiveHint": true, "idempotentHint": true} }"#,
        )
        .replace(
            r#"{ "name": "readFile", "description": "Reads a file" }"#,
            r#"{ "name": "readFile", "description": "Reads a file", "annotations": {"readOnlyHint": true} }"#,
        );
    let manifest = Manifest::from_json(&annotated).unwrap();
    let seen = Log::default();
    let log = seen.clone();
    let carnet = Carnet::builder(&manifest)
        .toolsets(toolsets())
        .hook(carnet_runtime::hook::confirm_destructive(move |call| {
            log.0
                .lock()
                .unwrap()
                .push(format!("asked {} {:?}", call.tool, call.annotations.destructive));
            call.extension::<Confirmed>().is_some()
        }))
        .build()
        .unwrap();
    let mut session = carnet.session("assistant").unwrap();
    assert!(!call(&mut session, "loadSkill", json!({"skillName": "files"})).is_error);

    let refused = call(&mut session, "deleteFile", json!({"path": "a"}));
    assert!(refused.is_error);
    assert_eq!(refused.value["code"], "confirmation_required");
    // Read-only: runs (and fails on its own), never asks.
    assert_eq!(
        call(&mut session, "readFile", json!({"path": "a"})).value["code"],
        "not_found"
    );
    // No hints at all: MCP reads that as destructive.
    assert_eq!(
        call(&mut session, "note.add", json!({"text": "x"})).value["code"],
        "confirmation_required"
    );
    session.insert(Confirmed);
    assert_eq!(
        call(&mut session, "deleteFile", json!({"path": "a"})).value,
        json!({"deleted": "a"})
    );
    assert_eq!(
        seen.take(),
        [
            "asked deleteFile Some(true)",
            "asked note.add None",
            "asked deleteFile Some(true)"
        ]
    );

    // What hosts and the model see.
    let listed = carnet_runtime::providers::mcp::tools(session.tools()).unwrap();
    let delete = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "deleteFile")
        .unwrap();
    assert_eq!(delete["title"], "Delete a file");
    assert_eq!(
        delete["annotations"],
        json!({"destructiveHint": true, "idempotentHint": true, "title": "Delete a file"})
    );
    let load = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "loadSkill")
        .unwrap();
    assert_eq!(load["annotations"]["readOnlyHint"], true, "meta-tools only read");
    let plain = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "whoami")
        .unwrap();
    assert!(plain.get("annotations").is_none());
}
