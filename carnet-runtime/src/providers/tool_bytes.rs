//! Each tool's JSON in each provider format, serialized once and kept: a tool list written
//! into a request body is then a run of copies.
//!
//! A tool's bytes are made the first time a list holding it is written, by the same
//! renderer that builds the tool's `Value` (`openai::chat_tools` and the others, on a list
//! of that one tool), so they are the bytes `serde_json` writes for that `Value`. They
//! are kept in one table for the process, under the tool's name, with the spec they were made
//! from: a later list uses them only when its spec is the same (name, description, schemas by
//! pointer or else by value, title, annotations). An engine's sessions share their specs'
//! schemas (`Arc`s), so a hit costs a lookup and a few comparisons, not a walk of the schema.
//! The table holds a few versions of a name (two engines in one process may differ) and
//! starts over past a bound, like the engine's state cache.
//!
//! Why not in the engine or the specs: [`ToolSpec`] and
//! [`ChatRequest`](crate::chat::ChatRequest) are public structs built by callers, which a new
//! field would break, and a list may hold specs of no engine at all.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

use serde_json::Value;

use super::anthropic::tools::tools as anthropic_tools;
use super::common::ProviderError;
use super::openai::tools::{Options, chat_tools, responses_tools};
use crate::tool::ToolSpec;

/// A provider format of one tool: a name for the table, and the renderer that makes the
/// tool's `Value` (the format's list renderer on that one tool).
#[derive(Clone, Copy)]
pub(crate) struct ToolFormat {
    pub(crate) name: &'static str,
    pub(crate) render: fn(&ToolSpec) -> Result<Value, ProviderError>,
}

impl std::fmt::Debug for ToolFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The one item of a list rendered for one tool.
pub(crate) fn only(list: Value) -> Value {
    match list {
        Value::Array(mut items) if items.len() == 1 => items.swap_remove(0),
        other => other,
    }
}

/// The tool formats whose bytes the writer keeps: each renderer on one tool.
pub(crate) const CHAT: ToolFormat = ToolFormat {
    name: "chat",
    render: |spec| {
        Ok(only(chat_tools(
            std::slice::from_ref(spec),
            &Options { strict: false },
        )?))
    },
};
pub(crate) const CHAT_STRICT: ToolFormat = ToolFormat {
    name: "chat-strict",
    render: |spec| Ok(only(chat_tools(std::slice::from_ref(spec), &Options { strict: true })?)),
};
pub(crate) const RESPONSES: ToolFormat = ToolFormat {
    name: "responses",
    render: |spec| {
        Ok(only(responses_tools(
            std::slice::from_ref(spec),
            &Options { strict: false },
        )?))
    },
};
pub(crate) const RESPONSES_STRICT: ToolFormat = ToolFormat {
    name: "responses-strict",
    render: |spec| {
        Ok(only(responses_tools(
            std::slice::from_ref(spec),
            &Options { strict: true },
        )?))
    },
};
pub(crate) const ANTHROPIC: ToolFormat = ToolFormat {
    name: "anthropic",
    render: |spec| Ok(only(anthropic_tools(std::slice::from_ref(spec))?)),
};

struct Entry {
    format: &'static str,
    spec: ToolSpec,
    bytes: Arc<[u8]>,
}

/// Versions kept of one name, and entries in all.
const VERSIONS: usize = 8;
const LIMIT: usize = 1 << 16;

/// Versions by name, and how many in all.
#[derive(Default)]
struct Table {
    names: HashMap<String, Vec<Entry>>,
    entries: usize,
}

static TABLE: LazyLock<RwLock<Table>> = LazyLock::new(RwLock::default);

fn same_schema(a: &Arc<Value>, b: &Arc<Value>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

/// Whether bytes made from `made` serve `spec`.
fn same(made: &ToolSpec, spec: &ToolSpec) -> bool {
    made.name == spec.name
        && made.description == spec.description
        && same_schema(&made.input_schema, &spec.input_schema)
        && match (&made.output_schema, &spec.output_schema) {
            (Some(a), Some(b)) => same_schema(a, b),
            (None, None) => true,
            _ => false,
        }
        && made.kind == spec.kind
        && made.toolset == spec.toolset
        && made.title == spec.title
        && made.annotations == spec.annotations
}

/// The kept bytes of `spec` in `format`, and whether to point them at `spec`'s schemas:
/// they were made from other `Arc`s (equal by value) that nothing but the table holds any
/// more (their engine is gone: one built again). Two live engines never take turns.
fn lookup(table: &Table, format: ToolFormat, spec: &ToolSpec) -> Option<(Arc<[u8]>, bool)> {
    table
        .names
        .get(spec.name.as_str())?
        .iter()
        .find(|e| e.format == format.name && same(&e.spec, spec))
        .map(|e| (Arc::clone(&e.bytes), !same_arcs(&e.spec, spec) && orphaned(&e.spec)))
}

/// Whether both specs hold the same schema `Arc`s (the comparison a hit costs then).
fn same_arcs(made: &ToolSpec, spec: &ToolSpec) -> bool {
    Arc::ptr_eq(&made.input_schema, &spec.input_schema)
        && match (&made.output_schema, &spec.output_schema) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => true,
        }
}

/// Whether the table holds the only reference to `made`'s input schema.
fn orphaned(made: &ToolSpec) -> bool {
    Arc::strong_count(&made.input_schema) == 1
}

/// Points the entries of `specs` (equal by value) at their schema `Arc`s, so that the
/// next lists of the same engine compare pointers, not schemas, and the old `Arc`s go.
fn adopt(format: ToolFormat, specs: &[&ToolSpec]) {
    let mut table = TABLE.write().unwrap_or_else(PoisonError::into_inner);
    for spec in specs {
        let entry = table.names.get_mut(spec.name.as_str()).and_then(|versions| {
            versions
                .iter_mut()
                .find(|e| e.format == format.name && same(&e.spec, spec))
        });
        if let Some(entry) = entry {
            entry.spec.input_schema = Arc::clone(&spec.input_schema);
            entry.spec.output_schema.clone_from(&spec.output_schema);
        }
    }
}

/// The bytes of `spec` in `format`, made now if no list written before held it.
fn bytes(format: ToolFormat, spec: &ToolSpec) -> Result<Arc<[u8]>, ProviderError> {
    if let Some((bytes, _)) = lookup(&TABLE.read().unwrap_or_else(PoisonError::into_inner), format, spec) {
        return Ok(bytes);
    }
    let value = (format.render)(spec)?;
    let bytes: Arc<[u8]> = serde_json::to_vec(&value).map_err(io::Error::from)?.into();
    let mut guard = TABLE.write().unwrap_or_else(PoisonError::into_inner);
    let table = &mut *guard;
    if let Some((bytes, _)) = lookup(table, format, spec) {
        return Ok(bytes);
    }
    if table.entries >= LIMIT {
        *table = Table::default();
    }
    let versions = table.names.entry(spec.name.clone()).or_default();
    if versions.len() >= VERSIONS {
        versions.remove(0);
    } else {
        table.entries += 1;
    }
    versions.push(Entry {
        format: format.name,
        spec: spec.clone(),
        bytes: Arc::clone(&bytes),
    });
    Ok(bytes)
}

/// Writes `[tool, tool, ...]`, each tool's kept bytes; the same bytes as `serde_json` gives
/// for the format's renderer on the whole list. The caller checks the aliases first (a list
/// whose aliases collide is an error, not a body).
pub(crate) fn write_list<W: Write + ?Sized>(
    out: &mut W,
    format: ToolFormat,
    specs: &[ToolSpec],
) -> Result<(), ProviderError> {
    // The kept bytes of the whole list under one read lock (not one per tool), written
    // after it is released (`out` may be slow); a tool never written before is made then.
    let kept: Vec<Option<(Arc<[u8]>, bool)>> = {
        let table = TABLE.read().unwrap_or_else(PoisonError::into_inner);
        specs.iter().map(|spec| lookup(&table, format, spec)).collect()
    };
    let others: Vec<&ToolSpec> = specs
        .iter()
        .zip(&kept)
        .filter(|(_, kept)| kept.as_ref().is_some_and(|&(_, other)| other))
        .map(|(spec, _)| spec)
        .collect();
    if !others.is_empty() {
        adopt(format, &others);
    }
    out.write_all(b"[")?;
    for (n, (spec, kept)) in specs.iter().zip(kept).enumerate() {
        if n > 0 {
            out.write_all(b",")?;
        }
        match kept {
            Some((bytes, _)) => out.write_all(&bytes)?,
            None => out.write_all(&bytes(format, spec)?)?,
        }
    }
    out.write_all(b"]")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Annotations;
    use crate::tool::ToolKind;
    use serde_json::json;

    fn spec(schema: &Arc<Value>) -> ToolSpec {
        ToolSpec {
            name: "tool_bytes.adopt.test".into(),
            description: "Kept once, adopted by a rebuilt engine.".into(),
            input_schema: Arc::clone(schema),
            kind: ToolKind::Domain,
            toolset: Some("t".into()),
            output_schema: None,
            title: None,
            annotations: Annotations::NONE,
        }
    }

    fn kept_schema() -> Arc<Value> {
        let table = TABLE.read().unwrap();
        Arc::clone(&table.names["tool_bytes.adopt.test"][0].spec.input_schema)
    }

    fn written(specs: &[ToolSpec]) -> Vec<u8> {
        let mut out = Vec::new();
        write_list(&mut out, ANTHROPIC, specs).unwrap();
        out
    }

    #[test]
    fn a_rebuilt_engines_schemas_are_adopted_once_the_old_ones_are_gone() {
        let schema = || Arc::new(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        let first = schema();
        let bytes = written(&[spec(&first)]);
        assert!(Arc::ptr_eq(&kept_schema(), &first));
        // Another live engine with equal schemas: same bytes, the first keeps its entry.
        let second = schema();
        assert_eq!(written(&[spec(&second)]), bytes);
        assert!(Arc::ptr_eq(&kept_schema(), &first), "no turns between live engines");
        // The first engine gone: the next list adopts the second's Arcs.
        drop(first);
        assert_eq!(written(&[spec(&second)]), bytes);
        assert!(Arc::ptr_eq(&kept_schema(), &second));
        // A different schema under the name is another version, with its own bytes.
        let other = Arc::new(json!({"type": "object", "properties": {"b": {"type": "integer"}}}));
        assert_ne!(written(&[spec(&other)]), bytes);
        assert_eq!(written(&[spec(&second)]), bytes);
    }
}
