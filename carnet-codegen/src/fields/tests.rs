//! The tables against the parsers, both ways: every field's example parses without a
//! diagnostic and is read (not left over as an unknown key); every key a parser reads is in
//! its table (`Document::take` asserts it whenever a file is parsed, and the serde structs
//! of `carnet.config.json` are compared here).

use super::{A2A_SERVER, AGENT, CONFIG, CONFIG_APP, CONFIG_LIMITS, MCP_SERVER, SKILL, TOOL, TOOL_FILE, TOOLSET, Table};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::limits::YamlLimits;
use crate::remote::{RemoteProtocol, block_keys};
use crate::source::Sources;

/// A frontmatter holding the required fields of `table` and `extra` lines.
fn frontmatter(table: &Table, extra: &str) -> String {
    let mut text = String::from("---\n");
    for field in table.fields.iter().filter(|f| f.required) {
        text.push_str(field.example);
        text.push('\n');
    }
    text.push_str(extra);
    text.push_str("\n---\nThe body.\n");
    text
}

fn parse(table: &Table, text: &str) -> (Vec<Diagnostic>, Option<usize>) {
    let mut sources = Sources::default();
    let file = sources.add("x.md".into(), text.to_owned());
    let mut diags = Diagnostics::default();
    let yaml = YamlLimits::default();
    // How many keys the entity left over (agents and skills keep them as `extra`).
    let leftover = match table.title {
        "AGENT.md" => crate::model::parse_agent(file, &sources, &yaml, &mut diags).map(|a| a.extra.len()),
        "SKILL.md" => crate::model::parse_skill(file, "skills/x", &sources, &yaml, &mut diags).map(|s| s.extra.len()),
        "TOOLSET.md" => crate::model::parse_toolset(file, &sources, &yaml, &mut diags).map(|_| 0),
        "Tool files" => crate::model::parse_tool_file(file, &sources, &yaml, &mut diags).map(|_| 0),
        other => panic!("no parser for {other}"),
    };
    (diags.finish(&sources, &[]), leftover)
}

#[test]
fn every_frontmatter_field_example_parses_and_is_read() {
    for table in [&AGENT, &SKILL, &TOOLSET, &TOOL_FILE] {
        for field in table.fields {
            let extra = if field.required { "" } else { field.example };
            let text = frontmatter(table, extra);
            let (diagnostics, leftover) = parse(table, &text);
            assert!(
                diagnostics.is_empty(),
                "{}: `{}`: {diagnostics:?}\n{text}",
                table.title,
                field.key
            );
            assert_eq!(
                leftover,
                Some(0),
                "{}: `{}` was not read\n{text}",
                table.title,
                field.key
            );
        }
    }
}

#[test]
fn every_tool_entry_key_example_parses_and_is_read() {
    for field in TOOL.fields.iter().filter(|f| !f.required) {
        let indented = field.example.replace('\n', "\n    ");
        let text = frontmatter(&TOOLSET, &format!("tools:\n  - name: basicSearch\n    {indented}"));
        let (diagnostics, _) = parse(&TOOLSET, &text);
        // A key parse_tool_hints does not read is W0016 here (or a debug assertion).
        assert!(
            diagnostics.is_empty(),
            "tools entry `{}`: {diagnostics:?}\n{text}",
            field.key
        );
    }
}

#[test]
fn every_config_example_parses_without_a_diagnostic() {
    for table in [&CONFIG, &CONFIG_APP, &CONFIG_LIMITS] {
        for field in table.fields {
            let mut sources = Sources::default();
            let file = sources.add("carnet.config.json".into(), field.example.to_owned());
            let mut diags = Diagnostics::default();
            let _ = crate::settings::parse(file, &sources, &mut diags);
            let diagnostics = diags.finish(&sources, &[]);
            assert!(diagnostics.is_empty(), "`{}`: {diagnostics:?}", field.key);
            assert!(
                field.example.contains(&format!("\"{}\"", field.key)),
                "`{}`'s example names it",
                field.key
            );
        }
    }
}

/// The fields a serde struct deserialises, as its derive names them.
fn serde_fields<'de, T: serde::Deserialize<'de>>() -> Vec<&'static str> {
    match T::deserialize(FieldNames) {
        Err(FieldsFound(fields)) => fields.to_vec(),
        Ok(_) => panic!("not a struct"),
    }
}

#[derive(Debug)]
struct FieldsFound(&'static [&'static str]);

impl std::fmt::Display for FieldsFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for FieldsFound {}

impl serde::de::Error for FieldsFound {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        FieldsFound(&[])
    }
}

/// A deserializer that answers a struct's request with the names of its fields.
struct FieldNames;

impl<'de> serde::Deserializer<'de> for FieldNames {
    type Error = FieldsFound;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, FieldsFound> {
        Err(FieldsFound(&[]))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, FieldsFound> {
        Err(FieldsFound(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[test]
fn the_config_tables_list_exactly_the_keys_serde_reads() {
    let sorted = |mut keys: Vec<&'static str>| {
        keys.sort_unstable();
        keys
    };
    for (table, fields) in [
        (&CONFIG, serde_fields::<crate::settings::RawSettings>()),
        (&CONFIG_APP, serde_fields::<crate::settings::RawApp>()),
        (&CONFIG_LIMITS, serde_fields::<crate::limits::LimitsSet>()),
    ] {
        assert!(!fields.is_empty());
        assert_eq!(sorted(table.keys().collect()), sorted(fields), "{}", table.title);
    }
}

#[test]
fn the_remote_block_tables_list_exactly_the_keys_the_parser_reads() {
    for (table, protocol) in [(&MCP_SERVER, RemoteProtocol::Mcp), (&A2A_SERVER, RemoteProtocol::A2a)] {
        assert_eq!(
            table.keys().collect::<Vec<_>>(),
            block_keys(protocol),
            "{}",
            table.title
        );
    }
}

#[test]
fn every_remote_block_key_example_parses_without_a_diagnostic() {
    for (table, block) in [(&MCP_SERVER, "mcp"), (&A2A_SERVER, "a2a")] {
        for field in table.fields {
            // Each key beside the transport it belongs to (`args` with a `command`).
            let transport = match field.key {
                "command" | "url" => "",
                "args" | "env" => "command: uvx\n",
                _ => "url: https://agents.example.com\n",
            };
            let lines = format!("{transport}{}", field.example).replace('\n', "\n  ");
            let text = frontmatter(&TOOLSET, &format!("{block}:\n  {lines}"));
            let (diagnostics, leftover) = parse(&TOOLSET, &text);
            assert!(diagnostics.is_empty(), "{block}.{}: {diagnostics:?}\n{text}", field.key);
            assert_eq!(leftover, Some(0), "{block}.{}\n{text}", field.key);
        }
    }
}
