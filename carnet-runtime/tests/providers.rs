//! Provider formats: tool lists compared with snapshots (`tests/snapshots/providers/`,
//! re-blessed with `CARNET_BLESS=1`), schema rewrites, and tool calls parsed back.

use std::path::PathBuf;
use std::sync::Arc;

use carnet_runtime::names::AliasError;
use carnet_runtime::providers::{Aliases, ProviderError, anthropic, gemini, mcp, openai};
use carnet_runtime::{ToolCall, ToolKind, ToolSpec};
use serde_json::{Value, json};

fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: Arc::new(schema),
        kind: if name == "loadSkill" {
            ToolKind::Meta
        } else {
            ToolKind::Domain
        },
        toolset: (name != "loadSkill").then(|| "fixtures".to_owned()),
        output_schema: None,
        title: None,
        annotations: carnet_runtime::manifest::Annotations::NONE,
    }
}

/// The fixed tool list every format is snapshotted with: a dotted name with optional,
/// enum and formatted parameters; a nested object and an array of objects; a
/// schemars-style schema with `$schema`, `title`, `$defs` and `$ref`s; a meta-tool; a tool
/// without parameters; and a free-form map, which strict mode cannot express.
fn specs() -> Vec<ToolSpec> {
    vec![
        spec(
            "file.read",
            "Read a file of the workspace.",
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "Path relative to the workspace" },
                    "offset": { "type": "integer", "format": "uint64", "minimum": 0, "description": "First byte to read" },
                    "encoding": {
                        "type": "string",
                        "enum": ["utf-8", "base64"],
                        "default": "utf-8",
                        "description": "How to return the bytes"
                    }
                },
                "required": ["path"]
            }),
        ),
        spec(
            "searchRecords",
            "Search records.",
            json!({
                "type": "object",
                "properties": {
                    "query": { "type": "string" },
                    "filter": {
                        "type": "object",
                        "description": "Restrict the results",
                        "properties": {
                            "after": { "type": ["string", "null"], "format": "date-time" },
                            "tags": { "type": "array", "items": { "type": "string" } }
                        },
                        "required": ["tags"]
                    },
                    "sort": {
                        "type": "array",
                        "description": "Sort keys, most significant first",
                        "items": {
                            "type": "object",
                            "properties": {
                                "field": { "type": "string" },
                                "descending": { "type": "boolean" }
                            },
                            "required": ["field"]
                        }
                    },
                    "priority": { "type": "integer", "enum": [1, 2, 3] }
                },
                "required": ["query", "sort"]
            }),
        ),
        spec(
            "db.upsert",
            "Insert or update a record.",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "UpsertArgs",
                "type": "object",
                "properties": {
                    "record": { "$ref": "#/$defs/Record", "description": "The record to write" },
                    "parent": {
                        "anyOf": [{ "$ref": "#/$defs/Record" }, { "type": "null" }],
                        "description": "Parent record, if any"
                    },
                    "mode": { "$ref": "#/$defs/Mode" }
                },
                "required": ["record"],
                "$defs": {
                    "Record": {
                        "type": "object",
                        "properties": {
                            "id": { "type": "integer", "format": "int64" },
                            "name": { "type": "string" }
                        },
                        "required": ["id", "name"],
                        "additionalProperties": false
                    },
                    "Mode": {
                        "oneOf": [
                            { "type": "string", "const": "insert", "description": "Fail if it exists" },
                            { "type": "string", "const": "upsert", "description": "Replace if it exists" }
                        ]
                    }
                }
            }),
        ),
        spec(
            "loadSkill",
            "Load a skill's instructions and tools.",
            json!({
                "type": "object",
                "properties": { "skillName": { "type": "string", "description": "Name of the skill to load" } },
                "required": ["skillName"],
                "additionalProperties": false
            }),
        ),
        spec(
            "notes.list",
            "List the notes.",
            json!({ "type": "object", "properties": {} }),
        ),
        spec(
            "config.set",
            "Change settings.",
            json!({
                "type": "object",
                "properties": {
                    "values": {
                        "type": "object",
                        "additionalProperties": { "type": "string" },
                        "description": "Settings to change"
                    }
                },
                "required": ["values"]
            }),
        ),
    ]
}

fn assert_snapshot(name: &str, value: &Value) {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "snapshots",
        "providers",
        &format!("{name}.json"),
    ]
    .iter()
    .collect();
    let actual = serde_json::to_string_pretty(value).unwrap() + "\n";
    if std::env::var_os("CARNET_BLESS").is_some_and(|bless| bless == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error} (CARNET_BLESS=1 writes it)", path.display()));
    assert!(
        actual == expected,
        "{} differs from the output (CARNET_BLESS=1 rewrites it)\n--- expected\n{expected}--- actual\n{actual}",
        path.display()
    );
}

fn aliases() -> Aliases {
    Aliases::new(&specs()).unwrap()
}

fn call(id: Option<&str>, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.map(str::to_owned),
        name: name.to_owned(),
        arguments,
    }
}

// ---------------------------------------------------------------- snapshots

#[test]
fn openai_chat_snapshot() {
    assert_snapshot(
        "openai_chat",
        &openai::chat_tools(&specs(), &openai::Options::default()).unwrap(),
    );
}

#[test]
fn openai_chat_strict_snapshot() {
    assert_snapshot(
        "openai_chat_strict",
        &openai::chat_tools(&specs(), &openai::Options { strict: true }).unwrap(),
    );
}

#[test]
fn openai_responses_snapshot() {
    assert_snapshot(
        "openai_responses",
        &openai::responses_tools(&specs(), &openai::Options::default()).unwrap(),
    );
}

#[test]
fn openai_responses_strict_snapshot() {
    let tools = openai::responses_tools(&specs(), &openai::Options { strict: true }).unwrap();
    assert_snapshot("openai_responses_strict", &tools);
}

#[test]
fn anthropic_snapshot() {
    assert_snapshot("anthropic", &anthropic::tools(&specs()).unwrap());
}

#[test]
fn gemini_snapshot() {
    assert_snapshot("gemini", &gemini::tools(&specs()).unwrap());
}

#[test]
fn gemini_json_schema_snapshot() {
    assert_snapshot("gemini_json_schema", &gemini::tools_json_schema(&specs()).unwrap());
}

/// The writers give the snapshotted lists' bytes: `serde_json` on the `Value`, twice (the
/// second time from each tool's kept bytes).
#[test]
fn gemini_writers_write_the_snapshotted_lists() {
    for _ in 0..2 {
        let mut out = Vec::new();
        gemini::write_tools(&specs(), &mut out).unwrap();
        assert_eq!(out, serde_json::to_vec(&gemini::tools(&specs()).unwrap()).unwrap());
        let mut out = Vec::new();
        gemini::write_tools_json_schema(&specs(), &mut out).unwrap();
        assert_eq!(
            out,
            serde_json::to_vec(&gemini::tools_json_schema(&specs()).unwrap()).unwrap()
        );
    }
}

#[test]
fn mcp_snapshot() {
    assert_snapshot("mcp", &mcp::tools(&specs()).unwrap());
}

#[test]
fn every_format_uses_aliases_in_spec_order() {
    let expected = [
        "file_read",
        "searchRecords",
        "db_upsert",
        "loadSkill",
        "notes_list",
        "config_set",
    ];
    let names = |tools: &Value, pointer: &str| -> Vec<String> {
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool.pointer(pointer).unwrap().as_str().unwrap().to_owned())
            .collect()
    };
    let specs = specs();
    assert_eq!(
        names(
            &openai::chat_tools(&specs, &openai::Options::default()).unwrap(),
            "/function/name"
        ),
        expected
    );
    assert_eq!(
        names(
            &openai::responses_tools(&specs, &openai::Options::default()).unwrap(),
            "/name"
        ),
        expected
    );
    assert_eq!(names(&anthropic::tools(&specs).unwrap(), "/name"), expected);
    assert_eq!(
        names(&gemini::tools(&specs).unwrap()[0]["functionDeclarations"], "/name"),
        expected
    );
    assert_eq!(names(&mcp::tools(&specs).unwrap()["tools"], "/name"), expected);
    assert_eq!(aliases().iter().map(|(_, alias)| alias).collect::<Vec<_>>(), expected);
}

#[test]
fn empty_lists() {
    let options = openai::Options::default();
    assert_eq!(openai::chat_tools(&[], &options).unwrap(), json!([]));
    assert_eq!(openai::responses_tools(&[], &options).unwrap(), json!([]));
    assert_eq!(anthropic::tools(&[]).unwrap(), json!([]));
    assert_eq!(gemini::tools(&[]).unwrap(), json!([]));
    assert_eq!(gemini::tools_json_schema(&[]).unwrap(), json!([]));
    assert_eq!(mcp::tools(&[]).unwrap(), json!({ "tools": [] }));
}

// ---------------------------------------------------------------- aliases

#[test]
fn aliases_map_both_ways() {
    let aliases = aliases();
    assert_eq!(aliases.len(), 6);
    assert_eq!(aliases.alias("file.read"), Some("file_read"));
    assert_eq!(aliases.alias("loadSkill"), Some("loadSkill"));
    assert_eq!(aliases.alias("file_read"), None);
    assert_eq!(aliases.resolve("file_read"), Some("file.read"));
    assert_eq!(aliases.resolve("file.read"), None);
    assert_eq!(aliases.canonical("db_upsert"), "db.upsert");
    assert_eq!(aliases.canonical("file.read"), "file.read", "a canonical name is kept");
    assert_eq!(aliases.canonical("nope"), "nope", "an unknown name is kept");
}

#[test]
fn the_first_bad_name_in_the_list_is_the_error() {
    let schema = json!({ "type": "object", "properties": {} });
    let list = |names: &[&str]| -> Vec<ToolSpec> { names.iter().map(|n| spec(n, "", schema.clone())).collect() };
    let error = |names: &[&str]| Aliases::new(&list(names)).unwrap_err().to_string();
    // Met walking the list: `x` twice (index 4) after `a.b` / `a_b` (index 3).
    assert_eq!(
        error(&["x", "a.b", "y", "a_b", "x", "y"]),
        "tools `a.b` and `a_b` both have the provider alias `a_b`"
    );
    assert_eq!(error(&["m", "x", "z", "x", "a.b", "a_b"]), "tool `x` is listed twice");
    // The third of a name is not what is reported: its second is.
    assert_eq!(
        error(&["q.r", "q_r", "q-r", "q_r"]),
        "tools `q.r` and `q_r` both have the provider alias `q_r`"
    );
    // A name with no alias stops the walk: what comes before it is checked, not after.
    assert!(error(&["x", "é", "x"]).contains("`é`"), "{}", error(&["x", "é", "x"]));
    assert_eq!(error(&["x", "x", "é"]), "tool `x` is listed twice");
    let aliases = Aliases::new(&list(&["b.c", "a", "c", "b_d"])).unwrap();
    assert_eq!(
        aliases.iter().collect::<Vec<_>>(),
        [("b.c", "b_c"), ("a", "a"), ("c", "c"), ("b_d", "b_d")]
    );
    assert_eq!(aliases.resolve("b_c"), Some("b.c"));
    assert_eq!(aliases.alias("b_d"), Some("b_d"));
    assert_eq!(aliases.alias("zz"), None);
}

#[test]
fn alias_collision_is_an_error() {
    let schema = json!({ "type": "object", "properties": {} });
    let colliding = [
        spec("file.read", "", schema.clone()),
        spec("file_read", "", schema.clone()),
    ];
    let error = Aliases::new(&colliding).unwrap_err();
    assert!(
        matches!(&error, ProviderError::AliasCollision { first, second, alias }
            if first == "file.read" && second == "file_read" && alias == "file_read"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "tools `file.read` and `file_read` both have the provider alias `file_read`"
    );
    // Every renderer checks it.
    assert!(openai::chat_tools(&colliding, &openai::Options::default()).is_err());
    assert!(openai::responses_tools(&colliding, &openai::Options::default()).is_err());
    assert!(anthropic::tools(&colliding).is_err());
    assert!(gemini::tools(&colliding).is_err());
    assert!(gemini::tools_json_schema(&colliding).is_err());
    assert!(mcp::tools(&colliding).is_err());

    let twice = [spec("a.b", "", schema.clone()), spec("a.b", "", schema.clone())];
    assert_eq!(
        Aliases::new(&twice).unwrap_err().to_string(),
        "tool `a.b` is listed twice"
    );

    let error = Aliases::new(&[spec("lire-générale", "", schema)]).unwrap_err();
    assert!(
        matches!(
            error,
            ProviderError::NoAlias {
                source: AliasError::NotAscii('é'),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "tool `lire-générale` has no provider-safe alias: `é` is not an ASCII character"
    );
}

// ---------------------------------------------------------------- OpenAI strict

#[test]
fn strict_nullability() {
    let schema = json!({
        "type": "object",
        "properties": {
            "kind": { "type": "string", "enum": ["a", "b"] },
            "bare_enum": { "enum": ["x", "y"] },
            "exact": { "const": "only", "description": "Must be `only`" },
            "either": { "anyOf": [{ "type": "string" }, { "type": "integer" }] },
            "multi": { "type": ["string", "integer"] },
            "already": { "type": ["string", "null"] },
            "required_one": { "type": "string" }
        },
        "required": ["required_one"]
    });
    assert_eq!(
        openai::strict_schema(&schema).unwrap(),
        json!({
            "type": "object",
            "properties": {
                "kind": { "type": ["string", "null"], "enum": ["a", "b", null] },
                "bare_enum": { "enum": ["x", "y", null] },
                "exact": { "description": "Must be `only`", "anyOf": [{ "const": "only" }, { "type": "null" }] },
                "either": { "anyOf": [{ "type": "string" }, { "type": "integer" }, { "type": "null" }] },
                "multi": { "type": ["string", "integer", "null"] },
                "already": { "type": ["string", "null"] },
                "required_one": { "type": "string" }
            },
            "required": ["already", "bare_enum", "either", "exact", "kind", "multi", "required_one"],
            "additionalProperties": false
        })
    );
}

#[test]
fn strict_rewrites_nested_schemas() {
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": { "allOf": [{ "$ref": "#/definitions/Item" }] }
            },
            "choice": { "oneOf": [{ "type": "object", "properties": { "a": { "type": "string" } } }, { "type": "null" }] }
        },
        "required": ["items", "choice"],
        "definitions": {
            "Item": { "type": "object", "properties": { "n": { "type": "number", "format": "double", "examples": [1.5] } } }
        }
    });
    assert_eq!(
        openai::strict_schema(&schema).unwrap(),
        json!({
            "type": "object",
            "properties": {
                "items": { "type": "array", "items": { "$ref": "#/definitions/Item" } },
                "choice": { "anyOf": [
                    { "type": "object", "properties": { "a": { "type": ["string", "null"] } }, "required": ["a"], "additionalProperties": false },
                    { "type": "null" }
                ] }
            },
            "required": ["choice", "items"],
            "additionalProperties": false,
            "definitions": {
                "Item": { "type": "object", "properties": { "n": { "type": ["number", "null"] } }, "required": ["n"], "additionalProperties": false }
            }
        })
    );
}

#[test]
fn strict_refuses_what_it_cannot_express() {
    let cases = [
        (
            json!({ "type": "object", "properties": { "m": { "type": "object" } } }),
            "#/properties/m",
            "an object without `properties`",
        ),
        (
            json!({ "type": "object", "properties": { "m": { "type": "object", "additionalProperties": true, "properties": {} } } }),
            "#/properties/m",
            "`additionalProperties` other than `false`",
        ),
        (
            json!({ "type": "object", "properties": { "t": { "type": "array", "items": { "type": "string" }, "uniqueItems": true } } }),
            "#/properties/t",
            "`uniqueItems` is not supported",
        ),
        (
            json!({ "type": "object", "properties": { "s": { "type": "string", "maxLength": 3 } } }),
            "#/properties/s",
            "`maxLength` is not supported",
        ),
        (
            json!({ "type": "object", "properties": { "x": { "description": "anything" } } }),
            "#/properties/x",
            "a schema without a type",
        ),
        (
            json!({ "type": "object", "properties": { "x": { "allOf": [{ "type": "string" }, { "type": "string" }] } } }),
            "#/properties/x",
            "`allOf` of several schemas",
        ),
        (
            json!({ "type": "object", "properties": { "x": { "$ref": "#/$defs/X", "type": "string" } }, "$defs": { "X": { "type": "string" } } }),
            "#/properties/x",
            "`$ref` next to `type`",
        ),
        (
            json!({ "type": "object", "properties": { "x": { "$ref": "#/$defs/Missing" } } }),
            "#/properties/x",
            "does not resolve",
        ),
        (
            json!({ "type": "object", "properties": { "p": { "type": "array", "items": [{ "type": "string" }] } } }),
            "#/properties/p",
            "tuple `items`",
        ),
        (
            json!({ "type": "object", "properties": {}, "required": ["ghost"] }),
            "#",
            "`required` lists `ghost`",
        ),
        (json!({ "type": "string" }), "#", "the root is not an object schema"),
        (
            json!({ "type": "object", "properties": { "tree": { "$ref": "#/$defs/Node", "description": "The root" } },
                    "$defs": { "Node": { "type": "object", "properties": { "kids": { "type": "array", "items": { "$ref": "#/$defs/Node", "description": "A kid" } } } } } }),
            "#/$defs/Node/properties/kids/items",
            "is recursive",
        ),
    ];
    for (schema, path, reason) in cases {
        let error = openai::strict_schema(&schema).unwrap_err();
        assert_eq!(error.path, path, "{schema}");
        assert!(error.reason.contains(reason), "{schema}: {error}");
    }
}

#[test]
fn strict_keeps_recursive_refs_without_siblings() {
    let schema = json!({
        "type": "object",
        "properties": { "tree": { "$ref": "#/$defs/Node" } },
        "required": ["tree"],
        "$defs": { "Node": { "type": "object", "properties": {
            "label": { "type": "string" },
            "kids": { "type": "array", "items": { "$ref": "#/$defs/Node" } }
        }, "required": ["label", "kids"] } }
    });
    let strict = openai::strict_schema(&schema).unwrap();
    assert_eq!(strict["properties"]["tree"], json!({ "$ref": "#/$defs/Node" }));
    assert_eq!(
        strict["$defs"]["Node"]["properties"]["kids"]["items"],
        json!({ "$ref": "#/$defs/Node" })
    );
    assert_eq!(strict["$defs"]["Node"]["additionalProperties"], json!(false));
}

#[test]
fn strict_falls_back_per_tool() {
    let tools = openai::chat_tools(&specs(), &openai::Options { strict: true }).unwrap();
    let strict: Vec<bool> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["strict"] == true)
        .collect();
    assert_eq!(
        strict,
        [true, true, true, true, true, false],
        "only `config.set` (a free-form map) is not strict"
    );
    assert_eq!(
        tools[5]["function"]["parameters"],
        *specs()[5].input_schema,
        "sent unchanged"
    );
}

#[test]
fn drop_strict_nulls_undoes_the_added_nulls() {
    let specs = specs();
    let schema = &specs[2].input_schema;
    let mut arguments = json!({
        "record": { "id": 1, "name": "a" },
        "parent": null,
        "mode": null
    });
    openai::drop_strict_nulls(schema, &mut arguments);
    // `parent` accepted `null` already; `mode` did not.
    assert_eq!(arguments, json!({ "record": { "id": 1, "name": "a" }, "parent": null }));

    let schema = &specs[1].input_schema;
    let mut arguments = json!({
        "query": "q",
        "filter": { "after": null, "tags": [] },
        "sort": [{ "field": "date", "descending": null }, { "field": "name", "descending": true }],
        "priority": null
    });
    openai::drop_strict_nulls(schema, &mut arguments);
    assert_eq!(
        arguments,
        json!({
            "query": "q",
            "filter": { "after": null, "tags": [] },
            "sort": [{ "field": "date" }, { "field": "name", "descending": true }]
        })
    );

    // Through a `$ref` and the one branch of a union that fits the value.
    let schema = json!({
        "type": "object",
        "properties": { "node": { "anyOf": [{ "$ref": "#/$defs/N" }, { "type": "null" }] } },
        "$defs": { "N": { "type": "object", "properties": { "x": { "type": "integer" } } } }
    });
    let mut arguments = json!({ "node": { "x": null } });
    openai::drop_strict_nulls(&schema, &mut arguments);
    assert_eq!(arguments, json!({ "node": {} }));
}

// ---------------------------------------------------------------- Gemini conversion

fn gemini_parameters(schema: Value) -> Result<Option<Value>, ProviderError> {
    gemini::parameters(&spec("t.x", "", schema))
}

#[test]
fn gemini_conversion_details() {
    let schema = json!({
        "type": "object",
        "properties": {
            "level": { "type": "integer", "enum": [1, 2, null], "description": "Verbosity" },
            "fixed": { "const": 3 },
            "tag": { "const": "v1" },
            "either": { "type": ["string", "integer"] },
            "maybe": { "oneOf": [{ "type": "string" }, { "type": "integer" }, { "type": "null" }] },
            "when": { "type": "string", "format": "date-time", "examples": ["2026-01-01T00:00:00Z"] },
            "url": { "type": "string", "format": "uri", "exclusiveMinimum": 0 },
            "pair": { "type": "array", "items": [{ "type": "string" }], "uniqueItems": true },
            "wrong": { "type": "string", "properties": { "a": { "type": "string" } }, "required": ["a"] }
        },
        "required": ["level", "ghost"]
    });
    assert_eq!(
        gemini_parameters(schema).unwrap().unwrap(),
        json!({
            "type": "object",
            "properties": {
                "level": { "type": "integer", "nullable": true, "description": "Verbosity\nAllowed values: 1, 2." },
                "fixed": { "description": "Allowed values: 3." },
                "tag": { "type": "string", "enum": ["v1"] },
                "either": { "anyOf": [{ "type": "string" }, { "type": "integer" }] },
                "maybe": { "anyOf": [{ "type": "string" }, { "type": "integer" }], "nullable": true },
                "when": { "type": "string", "format": "date-time", "example": "2026-01-01T00:00:00Z" },
                "url": { "type": "string" },
                "pair": { "type": "array" },
                "wrong": { "type": "string" }
            },
            "required": ["level"]
        })
    );
}

#[test]
fn gemini_refuses_recursive_refs() {
    let schema = json!({
        "type": "object",
        "properties": { "tree": { "$ref": "#/$defs/Node" } },
        "$defs": { "Node": { "type": "object", "properties": {
            "kids": { "type": "array", "items": { "$ref": "#/$defs/Node" } }
        } } }
    });
    let error = gemini_parameters(schema.clone()).unwrap_err();
    assert!(
        matches!(&error, ProviderError::Schema { tool, path, .. }
            if tool == "t.x" && path == "#/$defs/Node/properties/kids/items"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the input schema of tool `t.x` cannot be sent to Gemini: at `#/$defs/Node/properties/kids/items`, \
         `$ref` `#/$defs/Node` is recursive, which `parameters` cannot express \
         (`gemini::tools_json_schema` sends the schema as `parametersJsonSchema`)"
    );
    // `tools` fails as a whole; the JSON Schema form takes it.
    let specs = [spec("t.x", "", schema)];
    assert!(gemini::tools(&specs).is_err());
    assert!(gemini::tools_json_schema(&specs).is_ok());
}

#[test]
fn gemini_other_errors_and_no_parameters() {
    let error = gemini_parameters(json!({ "type": "object", "properties": { "x": { "$ref": "#/$defs/Nope" } } }));
    assert!(
        error
            .unwrap_err()
            .to_string()
            .contains("`$ref` `#/$defs/Nope` does not resolve")
    );
    let error = gemini_parameters(json!({ "type": "object", "properties": { "x": { "allOf": [{}, {}] } } }));
    assert!(error.unwrap_err().to_string().contains("`allOf` of several schemas"));
    let error = gemini_parameters(json!({ "type": "array" })).unwrap_err();
    assert!(
        error.to_string().ends_with("at `#`, the root is not an object schema"),
        "{error}"
    );
    assert_eq!(gemini_parameters(json!({ "type": "object" })).unwrap(), None);
    assert_eq!(
        gemini_parameters(json!({ "type": "object", "additionalProperties": false })).unwrap(),
        None
    );
}

// ---------------------------------------------------------------- parsing: OpenAI

#[test]
fn openai_chat_calls() {
    let message = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            { "id": "call_1", "type": "function", "function": { "name": "file_read", "arguments": "{\"path\":\"a.md\"}" } },
            { "id": "call_2", "type": "function", "function": { "name": "loadSkill", "arguments": "{\"skillName\":\"notes\"}" } },
            { "id": "call_3", "type": "custom", "custom": { "name": "grammar", "input": "x" } },
            { "id": "call_4", "type": "function", "function": { "name": "notes_list", "arguments": "" } },
            { "id": "call_5", "type": "function", "function": { "name": "mystery", "arguments": "{}" } }
        ]
    });
    assert_eq!(
        openai::parse_chat_tool_calls(&message, &aliases()).unwrap(),
        [
            call(Some("call_1"), "file.read", json!({ "path": "a.md" })),
            call(Some("call_2"), "loadSkill", json!({ "skillName": "notes" })),
            call(Some("call_4"), "notes.list", json!({})),
            call(Some("call_5"), "mystery", json!({})),
        ]
    );
    // The whole completion works too; no `tool_calls` means no calls.
    let completion = json!({ "choices": [{ "index": 0, "message": message }] });
    assert_eq!(openai::parse_chat_tool_calls(&completion, &aliases()).unwrap().len(), 4);
    let text = json!({ "role": "assistant", "content": "Hello" });
    assert_eq!(openai::parse_chat_tool_calls(&text, &aliases()).unwrap(), []);
}

#[test]
fn openai_chat_errors() {
    let parse = |call: Value| openai::parse_chat_tool_calls(&json!({ "tool_calls": [call] }), &aliases()).unwrap_err();

    let error = parse(
        json!({ "id": "call_9", "type": "function", "function": { "name": "file_read", "arguments": "{\"path\": " } }),
    );
    assert!(
        matches!(&error, ProviderError::MalformedArguments { id: Some(id), name, .. } if id == "call_9" && name == "file.read"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("the arguments of call `call_9` to `file.read` are not valid JSON: "),
        "{error}"
    );

    let error = parse(json!({ "type": "function", "function": { "name": "file_read", "arguments": "{}" } }));
    assert_eq!(error.to_string(), "`tool_calls[0]` has no `id`");
    let error = parse(json!({ "id": "call_9", "type": "function", "function": { "arguments": "{}" } }));
    assert_eq!(
        error.to_string(),
        "tool call `call_9` (`tool_calls[0]`) has no `function.name`"
    );
    let error = parse(json!({ "id": "call_9", "type": "function" }));
    assert_eq!(
        error.to_string(),
        "tool call `call_9` (`tool_calls[0]`) has no `function`"
    );
    let error = parse(json!({ "id": "call_9", "function": { "name": "file_read" } }));
    assert_eq!(
        error.to_string(),
        "tool call `call_9` (`tool_calls[0]`) has no `function.arguments`"
    );
    let error = parse(json!({ "id": 9, "function": { "name": "file_read", "arguments": "{}" } }));
    assert_eq!(error.to_string(), "`id` of `tool_calls[0]` is not a string");
    let error = parse(json!({ "id": "call_9", "function": { "name": "file_read", "arguments": "[1]" } }));
    assert_eq!(
        error.to_string(),
        "the arguments of call `call_9` to `file.read` are not a JSON object"
    );
}

#[test]
fn openai_responses_calls() {
    let response = json!({
        "id": "resp_1",
        "object": "response",
        "output": [
            { "type": "reasoning", "id": "rs_1", "summary": [] },
            { "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "db_upsert",
              "arguments": "{\"record\":{\"id\":1,\"name\":\"a\"}}", "status": "completed" },
            { "type": "message", "id": "msg_1", "role": "assistant", "content": [] },
            { "type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "searchRecords",
              "arguments": "{\"query\":\"x\",\"sort\":[]}", "status": "completed" }
        ]
    });
    let expected = [
        call(
            Some("call_1"),
            "db.upsert",
            json!({ "record": { "id": 1, "name": "a" } }),
        ),
        call(Some("call_2"), "searchRecords", json!({ "query": "x", "sort": [] })),
    ];
    assert_eq!(
        openai::parse_responses_tool_calls(&response, &aliases()).unwrap(),
        expected
    );
    assert_eq!(
        openai::parse_responses_tool_calls(&response["output"], &aliases()).unwrap(),
        expected
    );

    let output =
        json!([{ "type": "function_call", "call_id": "call_3", "name": "file_read", "arguments": "{'path': 1}" }]);
    let error = openai::parse_responses_tool_calls(&output, &aliases()).unwrap_err();
    assert!(
        matches!(&error, ProviderError::MalformedArguments { id: Some(id), .. } if id == "call_3"),
        "{error:?}"
    );
    let output = json!([{ "type": "function_call", "name": "file_read", "arguments": "{}" }]);
    let error = openai::parse_responses_tool_calls(&output, &aliases()).unwrap_err();
    assert_eq!(error.to_string(), "`output[0]` has no `call_id`");
    let output = json!([{ "type": "function_call", "call_id": "call_4", "arguments": "{}" }]);
    let error = openai::parse_responses_tool_calls(&output, &aliases()).unwrap_err();
    assert_eq!(error.to_string(), "tool call `call_4` (`output[0]`) has no `name`");
}

// ---------------------------------------------------------------- parsing: Anthropic

#[test]
fn anthropic_calls() {
    let message = json!({
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            { "type": "text", "text": "Reading it." },
            { "type": "tool_use", "id": "toolu_1", "name": "file_read", "input": { "path": "a.md" } },
            { "type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": { "query": "x" } },
            { "type": "tool_use", "id": "toolu_2", "name": "notes_list", "input": {} }
        ],
        "stop_reason": "tool_use"
    });
    let expected = [
        call(Some("toolu_1"), "file.read", json!({ "path": "a.md" })),
        call(Some("toolu_2"), "notes.list", json!({})),
    ];
    assert_eq!(anthropic::parse_tool_calls(&message, &aliases()).unwrap(), expected);
    assert_eq!(
        anthropic::parse_tool_calls(&message["content"], &aliases()).unwrap(),
        expected
    );
    let text = json!({ "role": "assistant", "content": "Hi" });
    assert_eq!(anthropic::parse_tool_calls(&text, &aliases()).unwrap(), []);
}

#[test]
fn anthropic_errors() {
    let parse = |block: Value| {
        anthropic::parse_tool_calls(&json!([block]), &aliases())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        parse(json!({ "type": "tool_use", "name": "file_read", "input": {} })),
        "`content[0]` has no `id`"
    );
    assert_eq!(
        parse(json!({ "type": "tool_use", "id": "toolu_1", "input": {} })),
        "tool call `toolu_1` (`content[0]`) has no `name`"
    );
    assert_eq!(
        parse(json!({ "type": "tool_use", "id": "toolu_1", "name": "file_read" })),
        "tool call `toolu_1` (`content[0]`) has no `input`"
    );
    assert_eq!(
        parse(json!({ "type": "tool_use", "id": "toolu_1", "name": "file_read", "input": "{}" })),
        "the arguments of call `toolu_1` to `file.read` are not a JSON object"
    );
    let error = anthropic::parse_tool_calls(&json!({ "content": 3 }), &aliases()).unwrap_err();
    assert_eq!(error.to_string(), "`content` of the message is not an array");
}

// ---------------------------------------------------------------- parsing: Gemini

#[test]
fn gemini_calls() {
    let response = json!({
        "candidates": [{
            "content": {
                "role": "model",
                "parts": [
                    { "text": "Let me look." },
                    { "functionCall": { "name": "file_read", "args": { "path": "a.md" } }, "thoughtSignature": "c2ln" },
                    { "functionCall": { "name": "notes_list" } },
                    { "functionCall": { "id": "fc-7", "name": "loadSkill", "args": { "skillName": "notes" } } }
                ]
            },
            "finishReason": "STOP"
        }]
    });
    let expected = [
        call(None, "file.read", json!({ "path": "a.md" })),
        call(None, "notes.list", json!({})),
        call(Some("fc-7"), "loadSkill", json!({ "skillName": "notes" })),
    ];
    assert_eq!(gemini::parse_tool_calls(&response, &aliases()).unwrap(), expected);
    let candidate = &response["candidates"][0];
    assert_eq!(gemini::parse_tool_calls(candidate, &aliases()).unwrap(), expected);
    assert_eq!(
        gemini::parse_tool_calls(&candidate["content"], &aliases()).unwrap(),
        expected
    );
    assert_eq!(
        gemini::parse_tool_calls(&candidate["content"]["parts"], &aliases()).unwrap(),
        expected
    );
    let blocked = json!({ "promptFeedback": { "blockReason": "SAFETY" } });
    assert_eq!(gemini::parse_tool_calls(&blocked, &aliases()).unwrap(), []);
}

#[test]
fn gemini_errors() {
    let parse = |part: Value| {
        gemini::parse_tool_calls(&json!([part]), &aliases())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        parse(json!({ "functionCall": { "args": {} } })),
        "`parts[0]` has no `functionCall.name`"
    );
    assert_eq!(
        parse(json!({ "functionCall": { "name": "file_read", "args": [1] } })),
        "the arguments of the call to `file.read` are not a JSON object"
    );
    assert_eq!(
        parse(json!({ "functionCall": "file_read" })),
        "`functionCall` of `parts[0]` is not an object"
    );
}

// ---------------------------------------------------------------- parsing: MCP

#[test]
fn mcp_calls() {
    let request = json!({
        "jsonrpc": "2.0",
        "id": 42,
        "method": "tools/call",
        "params": { "name": "file_read", "arguments": { "path": "a.md" }, "_meta": { "progressToken": 1 } }
    });
    assert_eq!(
        mcp::parse_call(&request, &aliases()).unwrap(),
        call(Some("42"), "file.read", json!({ "path": "a.md" }))
    );
    assert_eq!(
        mcp::parse_call(&request["params"], &aliases()).unwrap(),
        call(None, "file.read", json!({ "path": "a.md" }))
    );
    // The canonical name and a string id; no arguments.
    let request = json!({ "jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": { "name": "notes.list" } });
    assert_eq!(
        mcp::parse_call(&request, &aliases()).unwrap(),
        call(Some("r1"), "notes.list", json!({}))
    );
}

#[test]
fn mcp_errors() {
    let parse = |value: Value| mcp::parse_call(&value, &aliases()).unwrap_err().to_string();
    assert_eq!(
        parse(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" })),
        "`method` of the request is not `tools/call`"
    );
    assert_eq!(
        parse(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call" })),
        "the request has no `params`"
    );
    assert_eq!(
        parse(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "arguments": {} } })),
        "`tools/call` request `1` has no `name`"
    );
    assert_eq!(
        parse(json!({ "arguments": {} })),
        "the `params` of `tools/call` has no `name`"
    );
    assert_eq!(
        parse(json!({ "name": "file_read", "arguments": "{\"path\":\"a\"}" })),
        "the arguments of the call to `file.read` are not a JSON object"
    );
}
