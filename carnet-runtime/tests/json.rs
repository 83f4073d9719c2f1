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

/// A small manifest touching every field the fingerprint covers.
const EVERY_FIELD: &str = r##"{ "version": 1,
  "app": { "globalInitialSkills": ["notes"], "globalSkills": ["notes"] },
  "agents": { "helper": { "name": "helper", "description": "Helps", "initialSkills": ["notes"], "skills": ["notes"],
      "prompt": "Hi {{ USER }}", "extra": { "model": "small", "tags": ["a", "b"] } } },
  "skills": { "notes": { "name": "notes", "description": "Notes", "toolsets": ["note-tools"],
      "files": [ { "path": "guide.md", "description": "Guide", "content": "# Guide\n",
                   "digest": "sha256:40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880" },
                 { "path": "font.ttf", "description": "unlisted", "listed": false, "content": "AAEC/w==",
                   "encoding": "base64", "mediaType": "font/ttf" } ],
      "content": "# Notes", "license": "MIT", "compatibility": "any", "allowedTools": ["Bash(git:*)"],
      "metadata": { "author": "me" }, "extra": { "x": 1 } } },
  "toolsets": { "note-tools": { "name": "note-tools", "description": "Note storage", "tools": ["addNote", { "name": "listNotes", "description": "List" }], "content": "Use them." } },
  "tools": { "addNote": { "name": "addNote", "description": "Save a note", "content": "Saves it." } },
  "variables": { "USER": "Alice", "CARNET_MODE": "test" },
  "envPrefix": ["APP_"] }"##;

/// Session states store the fingerprint: its value must never change for the same content.
/// The numbers were computed by the implementation before the serde rewrite of `json.rs`.
#[test]
fn fingerprint_is_pinned() {
    assert_eq!(Manifest::from_json(TS_030).unwrap().fingerprint, 0x2a32_ce9a_fa11_40fc);
    assert_eq!(Manifest::from_json(TS_HEAD).unwrap().fingerprint, 0x0b39_f257_4896_b5ed);
    let m = Manifest::from_json(EVERY_FIELD).unwrap();
    assert_eq!(m.fingerprint, 0xa153_a0a4_98a0_65d7);
    assert_eq!(m.compute_fingerprint(), m.fingerprint);
}

fn error_text(json: &str) -> String {
    Manifest::from_json(json).unwrap_err().to_string()
}

#[test]
fn wrong_types_name_the_path_and_both_kinds() {
    let cases = [
        (
            EVERY_FIELD.replace(r#""skills": ["notes"],"#, r#""skills": ["notes", 3],"#),
            "invalid manifest at `/agents/helper/skills/1`: expected a string, found a number",
        ),
        (
            EVERY_FIELD.replace(r#""listed": false"#, r#""listed": "no""#),
            "invalid manifest at `/skills/notes/files/1/listed`: expected a boolean, found a string",
        ),
        (
            EVERY_FIELD.replace(r#""metadata": { "author": "me" }"#, r#""metadata": ["me"]"#),
            "invalid manifest at `/skills/notes/metadata`: expected an object, found an array",
        ),
        (
            EVERY_FIELD.replace(r#""tools": ["addNote", "#, r#""tools": [null, "#),
            "invalid manifest at `/toolsets/note-tools/tools/0`: \
             expected a tool name or a `{name, description}` object, found null",
        ),
        (
            EVERY_FIELD.replace(r#""USER": "Alice""#, r#""USER": true"#),
            "invalid manifest at `/variables/USER`: expected a string, found a boolean",
        ),
        (
            EVERY_FIELD.replace(r#""helper": { "name""#, r#""a/b~c": 7, "helper": { "name""#),
            "invalid manifest at `/agents/a~1b~0c`: expected an object, found a number",
        ),
        (
            EVERY_FIELD.replace(r#""helper": { "name""#, r#""": {}, "helper": { "name""#),
            "invalid manifest at `/agents/`: names must not be empty",
        ),
        (
            EVERY_FIELD.replace(r#""envPrefix": ["APP_"]"#, r#""envPrefix": "APP_""#),
            "invalid manifest at `/envPrefix`: expected an array, found a string",
        ),
        (
            EVERY_FIELD.replace(r#""prompt": "Hi {{ USER }}", "#, ""),
            "invalid manifest at `/agents/helper/prompt`: missing required field",
        ),
        (
            "5".to_owned(),
            "invalid manifest at `/`: expected an object, found a number",
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(error_text(&json), expected);
    }
}

#[test]
fn null_fields_count_as_absent() {
    let json = EVERY_FIELD
        .replace(r#""license": "MIT""#, r#""license": null"#)
        .replace(r#""envPrefix": ["APP_"]"#, r#""envPrefix": null"#)
        .replace(r#""version": 1"#, r#""version": null"#);
    let m = Manifest::from_json(&json).unwrap();
    assert_eq!(m.skill("notes").unwrap().license, None);
    assert_eq!(m.env_prefixes.as_ref(), ["CARNET_", "PUBLIC_"]);
    assert_eq!(m.version, carnet_runtime::manifest::MANIFEST_VERSION);
}

#[test]
fn versions_newer_than_ours_are_refused() {
    let with_version = |v: &str| EVERY_FIELD.replace(r#""version": 1"#, &format!(r#""version": {v}"#));
    for older in ["0", "1"] {
        assert!(Manifest::from_json(&with_version(older)).is_ok(), "version {older}");
    }
    // TS Carnet's schema defaults `version`: a manifest without one is ours.
    assert!(Manifest::from_json(&EVERY_FIELD.replace(r#""version": 1,"#, "")).is_ok());
    let error = Manifest::from_json(&with_version("7")).unwrap_err();
    assert!(matches!(
        error,
        ManifestError::UnsupportedVersion { found: 7, supported: 1 }
    ));
    assert_eq!(
        error.to_string(),
        "manifest version 7 is newer than this carnet supports (1): upgrade carnet"
    );
    assert!(matches!(
        Manifest::from_json(&with_version("4294967296")),
        Err(ManifestError::UnsupportedVersion {
            found: 4_294_967_296,
            ..
        })
    ));
    // A newer format may have any shape: the version is what the user needs to hear about.
    let newer = r#"{"version": 2, "agents": [1, 2], "skills": "?"}"#;
    assert!(matches!(
        Manifest::from_json(newer),
        Err(ManifestError::UnsupportedVersion { found: 2, .. })
    ));
    for (not_a_version, shown) in [("-1", "-1"), ("1.5", "1.5"), (r#""1""#, r#""1""#), ("1e400", "")] {
        let json = with_version(not_a_version);
        match Manifest::from_json(&json) {
            Err(ManifestError::Invalid { path, message }) => {
                assert_eq!(path, "/version");
                assert_eq!(message, format!("expected a version number, found {shown}"));
            }
            // 1e400 is out of f64's range: serde_json refuses it while parsing.
            Err(ManifestError::Syntax(_)) if not_a_version == "1e400" => {}
            other => panic!("version {not_a_version}: {other:?}"),
        }
    }
}

#[test]
fn duplicates_are_refused_or_resolved_like_json_objects() {
    let error = error_text(&EVERY_FIELD.replace(
        r#"{ "name": "listNotes", "description": "List" }"#,
        r#"{ "name": "listNotes", "description": "List" }, "addNote""#,
    ));
    assert_eq!(
        error,
        "invalid manifest at `/toolsets/note-tools/tools`: tool `addNote` is declared twice"
    );
    let error = error_text(&EVERY_FIELD.replace(r#""path": "font.ttf""#, r#""path": "guide.md""#));
    assert_eq!(
        error,
        "invalid manifest at `/skills/notes/files`: file `guide.md` is listed twice"
    );
    // A key given twice in one object: the last wins, as for any JSON object.
    let json = EVERY_FIELD.replace(
        r#""variables": { "USER": "Alice","#,
        r#""variables": { "USER": "Bob", "USER": "Alice","#,
    );
    let m = Manifest::from_json(&json).unwrap();
    assert!(m.variables.iter().any(|(k, v)| k == "USER" && v == "Alice"));
    assert_eq!(m.fingerprint, Manifest::from_json(EVERY_FIELD).unwrap().fingerprint);
}

/// The top-level `tools` map and a toolset's `tools` names are type-checked even where
/// `toolDefinitions` makes them redundant: TS Carnet reads them.
#[test]
fn redundant_ts_keys_are_still_type_checked() {
    let ours = Manifest::from_json(EVERY_FIELD).unwrap().to_json();
    let error = error_text(&ours.replace(r#""tools":{"addNote":{"#, r#""tools":{"x":1,"addNote":{"#));
    assert_eq!(
        error,
        "invalid manifest at `/tools/x`: expected an object, found a number"
    );
    let error = error_text(&ours.replace(r#""tools":["addNote","listNotes"]"#, r#""tools":"addNote""#));
    assert_eq!(
        error,
        "invalid manifest at `/toolsets/note-tools/tools`: expected an array, found a string"
    );
}

/// Every value of a valid manifest replaced by values of every kind, and every key removed:
/// an error or a manifest, never a panic.
#[test]
fn never_panics_on_hostile_shapes() {
    use serde_json::{Value, json};
    fn visit(root: &Value, node: &Value, pointer: &str, count: &mut usize) {
        let shapes = [
            json!(null),
            json!(false),
            json!(0),
            json!(-1),
            json!(1.5),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(f64::MAX),
            json!(""),
            json!("base64"),
            json!([]),
            json!([null, [[]], {}]),
            json!({}),
            json!({"name": {"name": [1]}, "": ""}),
        ];
        for shape in shapes {
            let mut mutated = root.clone();
            *mutated.pointer_mut(pointer).unwrap() = shape;
            let _ = Manifest::from_value(&mutated);
            *count += 1;
        }
        if let Some((parent, key)) = pointer.rsplit_once('/') {
            let mut mutated = root.clone();
            match mutated.pointer_mut(parent) {
                Some(Value::Object(map)) => drop(map.remove(key)),
                Some(Value::Array(items)) => drop(items.remove(key.parse::<usize>().unwrap())),
                _ => {}
            }
            let _ = Manifest::from_value(&mutated);
        }
        match node {
            Value::Object(map) => {
                for (k, v) in map {
                    assert!(!k.contains(['/', '~']), "the walk does not escape keys");
                    visit(root, v, &format!("{pointer}/{k}"), count);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    visit(root, v, &format!("{pointer}/{i}"), count);
                }
            }
            _ => {}
        }
    }
    let mut count = 0;
    for json in [EVERY_FIELD, TS_030, TS_HEAD] {
        let root: Value = serde_json::from_str(json).unwrap();
        visit(&root, &root, "", &mut count);
    }
    assert!(count > 1000, "{count}");
    // Nesting deeper than serde_json's recursion limit is a syntax error, not a stack overflow.
    let deep = format!(
        r#"{{"agents": {{}}, "skills": {{}}, "toolsets": {{}}, "x": {}{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(matches!(Manifest::from_json(&deep), Err(ManifestError::Syntax(_))));
}

/// A tool's title and annotations (MCP's names) round-trip, count in the fingerprint, and a
/// hint that is not a boolean is refused where it is.
#[test]
fn tool_annotations_round_trip() {
    let annotated = TS_030.replace(
        r#""description": "List notes", "content": """#,
        r#""description": "List notes", "content": "", "title": "Notes list",
           "annotations": {"readOnlyHint": true, "openWorldHint": false}"#,
    );
    let m = Manifest::from_json(&annotated).unwrap();
    let tool = m.toolset("note-tools").unwrap().tool("listNotes").unwrap();
    assert_eq!(tool.title.as_deref(), Some("Notes list"));
    assert_eq!(tool.annotations.read_only, Some(true));
    assert_eq!(tool.annotations.open_world, Some(false));
    assert_eq!(tool.annotations.destructive, None);
    assert!(!tool.annotations.is_destructive());
    let plain = m.toolset("note-tools").unwrap().tool("addNote").unwrap();
    assert!(
        plain.annotations.is_empty() && plain.annotations.is_destructive(),
        "no hint: MCP's defaults"
    );

    let json = m.to_json_pretty();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["tools"]["listNotes"]["annotations"],
        serde_json::json!({"openWorldHint": false, "readOnlyHint": true})
    );
    assert!(
        value["tools"]["addNote"].get("annotations").is_none(),
        "absent when empty"
    );
    assert_eq!(Manifest::from_json(&json).unwrap(), m);
    assert_ne!(m.fingerprint, Manifest::from_json(TS_030).unwrap().fingerprint);

    let (path, message) = invalid_at(&annotated.replace(r#""readOnlyHint": true"#, r#""readOnlyHint": "yes""#));
    assert_eq!(path, "/tools/listNotes/annotations/readOnlyHint");
    assert!(message.contains("a boolean"), "{message}");
}
