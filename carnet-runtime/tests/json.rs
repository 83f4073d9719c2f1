//! Loading manifests written by TS Carnet (both forms) and by carnet, and the errors.

use carnet_runtime::{Manifest, ManifestError};

/// The manifest of TS Carnet's fixtures at its repository head: tools inline as
/// `{name, description}`, no top-level `tools`, file `content` optional.
const TS_HEAD: &str = r##"{ "version": 1,
  "app": { "globalInitialSkills": [], "globalSkills": [] },
  "agents": { "test-agent": { "name": "test-agent", "description": "A test agent",
      "initialSkills": ["foo"], "skills": ["search-web"],
      "prompt": "\nYou are a test agent.\n\nThis is a test agent with {{ TEST_VAR }}." } },
  "skills": {
    "nested-test-skill": { "name": "nested-test-skill", "description": "A nested skill",
      "toolsets": [], "files": [ { "path": "examples/example1.md", "description": "First example",
      "content": "# Example 1\n" }, { "path": "examples/example2.md", "description": "No content" } ],
      "content": "\n# Nested Test Skill\n" },
    "foo": { "name": "foo", "description": "test skill", "toolsets": ["foo"], "files": [], "content": "\n# Foo Skill" },
    "search-web": { "name": "search-web", "description": "test skill", "toolsets": ["search"], "content": "\n# Bar Skill" } },
  "toolsets": {
    "foo": { "name": "foo", "description": "test toolset", "tools": [ { "name": "toolFoo", "description": "desc" } ], "content": "\n# Foo Toolset" },
    "search": { "name": "search", "description": "Search the web.", "tools": [], "content": "\n# Search Toolset" } } }"##;

/// The form `@upstart.gg/carnet@0.3.0` writes: tool names, a top-level `tools` map.
const TS_030: &str = r##"{ "version": 1,
  "app": { "globalInitialSkills": [], "globalSkills": ["notes"] },
  "agents": { "helper": { "name": "helper", "description": "Helps", "initialSkills": ["notes"], "skills": [], "prompt": "Hi" } },
  "skills": { "notes": { "name": "notes", "description": "Notes", "toolsets": ["note-tools"],
      "files": [ { "path": "guide.md", "description": "Guide", "content": "# Guide\n" } ], "content": "# Notes" } },
  "toolsets": { "note-tools": { "name": "note-tools", "description": "Note storage", "tools": ["addNote", "listNotes"], "content": "" } },
  "tools": { "addNote": { "name": "addNote", "description": "Save a note", "content": "Saves it." },
             "listNotes": { "name": "listNotes", "description": "List notes", "content": "" } } }"##;

fn invalid_at(json: &str) -> (String, String) {
    match Manifest::from_json(json) {
        Err(ManifestError::Invalid { path, message }) => (path, message),
        other => panic!("expected an invalid-manifest error, got {other:?}"),
    }
}

#[test]
fn loads_ts_head_manifest() {
    let m = Manifest::from_json(TS_HEAD).unwrap();
    let names: Vec<&str> = m.skills.iter().map(|s| &*s.name).collect();
    assert_eq!(names, ["foo", "nested-test-skill", "search-web"], "sorted by name");
    let agent = m.agent("test-agent").unwrap();
    assert_eq!(&*agent.initial_skills, ["foo"]);
    assert!(agent.prompt.starts_with("\nYou are a test agent."));
    let tool = m.toolset("foo").unwrap().tool("toolFoo").unwrap();
    assert_eq!(tool.description, "desc");
    let nested = m.skill("nested-test-skill").unwrap();
    assert_eq!(
        nested.file("examples/example1.md").unwrap().text(),
        Some("# Example 1\n")
    );
    assert_eq!(nested.file("examples/example2.md").unwrap().data.len(), 0);
    assert_eq!(m.env_prefixes.as_ref(), ["CARNET_", "PUBLIC_"]);
}

#[test]
fn loads_ts_030_manifest_with_tool_names() {
    let m = Manifest::from_json(TS_030).unwrap();
    let tools = &m.toolset("note-tools").unwrap().tools;
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0].name, "addNote");
    assert_eq!(tools[0].description, "Save a note");
    assert_eq!(tools[0].content, "Saves it.");
    assert_eq!(&*m.app.global_skills, ["notes"]);
    let (toolset, tool) = m.tools_named("listNotes").next().unwrap();
    assert_eq!((&*toolset.name, &*tool.description), ("note-tools", "List notes"));
}

#[test]
fn our_json_round_trips_and_keeps_ts_keys() {
    let m = Manifest::from_json(TS_030).unwrap();
    let json = m.to_json_pretty();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    // What TS Carnet 0.3.0 needs: tools as names and the top-level map.
    assert_eq!(
        value["toolsets"]["note-tools"]["tools"],
        serde_json::json!(["addNote", "listNotes"])
    );
    assert_eq!(value["tools"]["addNote"]["description"], "Save a note");
    assert_eq!(value["skills"]["notes"]["files"][0]["content"], "# Guide\n");
    let again = Manifest::from_json(&json).unwrap();
    assert_eq!(again, m);
    assert_eq!(again.fingerprint, m.fingerprint);
}

#[test]
fn binary_files_round_trip_as_base64() {
    let mut m = Manifest::from_json(TS_030).unwrap();
    let mut skills = m.skills.into_owned();
    let mut files = skills[0].files.clone().into_owned();
    files.push(carnet_runtime::SkillFile::__from_parts(
        "font.ttf".into(),
        None,
        "font/ttf".into(),
        false,
        (0..=255u8).collect::<Vec<u8>>().into(),
        Some("sha256:40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880".into()),
    ));
    skills[0].files = files.into();
    m.skills = skills.into();
    let json = m.to_json();
    assert!(json.contains(r#""encoding":"base64""#));
    let again = Manifest::from_json(&json).unwrap();
    let font = again.skill("notes").unwrap().file("font.ttf").unwrap();
    assert_eq!(&*font.data, (0..=255u8).collect::<Vec<u8>>().as_slice());
    assert!(!font.is_listed() && font.text().is_none());
}

#[test]
fn fingerprint_tells_manifests_apart() {
    let a = Manifest::from_json(TS_030).unwrap();
    let b = Manifest::from_json(&TS_030.replace("Save a note", "Save one note")).unwrap();
    assert_ne!(a.fingerprint, b.fingerprint);
    assert_eq!(a.fingerprint, Manifest::from_json(TS_030).unwrap().fingerprint);
}

#[test]
fn errors_point_at_the_culprit() {
    assert!(matches!(Manifest::from_json("{"), Err(ManifestError::Syntax(_))));
    assert_eq!(invalid_at("{}"), ("/agents".into(), "missing required field".into()));
    assert_eq!(invalid_at("[]").0, "/");
    let (path, message) = invalid_at(&TS_HEAD.replace(
        r#""name": "foo", "description": "test skill""#,
        r#""name": "bar", "description": "test skill""#,
    ));
    assert_eq!(path, "/skills/foo/name");
    assert!(message.contains("differs from its key"), "{message}");
    let (path, message) = invalid_at(&TS_HEAD.replace(r#""skills": ["search-web"]"#, r#""skills": ["search-wbe"]"#));
    assert_eq!(path, "/agents/test-agent/skills/0");
    assert!(message.contains("unknown skill `search-wbe`"));
    let (path, _) = invalid_at(&TS_HEAD.replace(r#""toolsets": ["search"]"#, r#""toolsets": ["nope"]"#));
    assert_eq!(path, "/skills/search-web/toolsets/0");
    let (path, message) = invalid_at(&TS_030.replace(r#""listNotes": { "name""#, r#""other": { "name""#));
    assert_eq!(path, "/toolsets/note-tools/tools/1");
    assert!(message.contains("`listNotes` is not in the top-level `tools` map"));
    let (path, _) = invalid_at(&TS_HEAD.replace(r#""description": "A test agent""#, r#""description": """#));
    assert_eq!(path, "/agents/test-agent/description");
    let (path, message) = invalid_at(&TS_HEAD.replace(r#""version": 1"#, r#""version": "1""#));
    assert_eq!(path, "/version");
    assert!(message.contains("version number"));
    let (path, _) = invalid_at(&TS_030.replace(r#""globalSkills": ["notes"]"#, r#""globalSkills": ["ghost"]"#));
    assert_eq!(path, "/app/globalSkills/0");
    let (path, message) = invalid_at(&TS_030.replace(
        r##""content": "# Guide\n""##,
        r#""content": "@@", "encoding": "base64""#,
    ));
    assert_eq!(path, "/skills/notes/files/0/content");
    assert!(message.contains("base64"));
}

#[test]
fn digests_must_be_sha256_in_lowercase_hex() {
    let json = r#"{"agents": {}, "toolsets": {}, "skills": {"notes": {"name": "notes", "description": "Take notes",
        "content": "", "files": [{"path": "a.md", "description": "A", "content": "", "digest": "md5:abc"}]}}}"#;
    let error = Manifest::from_json(json).unwrap_err().to_string();
    assert!(error.contains("/skills/notes/files/0/digest"), "{error}");
    assert!(error.contains("64 lowercase hex digits"), "{error}");
}
