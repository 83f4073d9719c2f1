//! The manifest the build script wrote, read once per crate compilation.
//!
//! Read as JSON, not through `Manifest::from_json`: the macros need the toolsets' names,
//! their tools' names and which are remote, and the manifest's whole reader (serde's code for
//! every wire type) would otherwise be compiled for the host in every author's build, also
//! by `cargo check` (issue 31).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use proc_macro2::Span;
use serde_json::Value;

use super::messages;

/// The manifest the build script wrote, and where each toolset is declared.
pub(super) struct Loaded {
    pub(super) toolsets: Vec<Toolset>,
    pub(super) sources: Value,
    pub(super) path: PathBuf,
}

/// A toolset of the manifest, as the macros see it.
pub(super) struct Toolset {
    pub(super) name: String,
    /// An MCP server or an A2A agent implements it (`mcp` is set).
    pub(super) remote: bool,
    /// The remote is an A2A agent (`mcp.protocol` is `a2a`).
    pub(super) a2a: bool,
    pub(super) tools: Vec<Tool>,
}

/// A tool of a toolset.
pub(super) struct Tool {
    pub(super) name: String,
    /// Its declaration gives a description: the tool's own in a whole manifest, or the
    /// toolset's `described` list in `sources` (the build script's file leaves descriptions
    /// out).
    pub(super) described: bool,
}

impl Loaded {
    pub(super) fn toolset(&self, name: &str) -> Option<&Toolset> {
        self.toolsets.iter().find(|t| t.name == name)
    }
}

impl Toolset {
    pub(super) fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// The toolsets of a manifest's JSON: ours (tools as `{name, description}`) or TS Carnet
/// 0.3.0's (tools as names, described in a top-level `tools` map); `sources` as the build
/// script writes it.
fn toolsets(manifest: &Value, sources: &Value) -> Result<Vec<Toolset>, String> {
    let Some(map) = manifest.get("toolsets").and_then(Value::as_object) else {
        return Err("`toolsets` is not an object".to_owned());
    };
    map.iter()
        .map(|(key, toolset)| {
            let name = match toolset.get("name") {
                None => key.clone(),
                Some(Value::String(name)) => name.clone(),
                Some(_) => return Err(format!("/toolsets/{key}/name is not a string")),
            };
            let listed = sources["toolsets"][&name]["described"]
                .as_array()
                .map_or(&[][..], Vec::as_slice);
            let described = |name: &str, text: Option<&Value>| {
                text.and_then(Value::as_str).is_some_and(|d| !d.is_empty())
                    || listed.iter().any(|d| d.as_str() == Some(name))
            };
            let tools = match toolset.get("tools") {
                None => Vec::new(),
                Some(Value::Array(tools)) => tools
                    .iter()
                    .enumerate()
                    .map(|(n, tool)| match tool {
                        Value::String(name) => Ok(Tool {
                            name: name.clone(),
                            described: described(
                                name,
                                manifest.pointer(&format!("/tools/{}/description", pointer(name))),
                            ),
                        }),
                        _ => match tool.get("name") {
                            Some(Value::String(name)) => Ok(Tool {
                                name: name.clone(),
                                described: described(name, tool.get("description")),
                            }),
                            _ => Err(format!("/toolsets/{key}/tools/{n} has no name")),
                        },
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(format!("/toolsets/{key}/tools is not an array")),
            };
            Ok(Toolset {
                name,
                remote: toolset.get("mcp").is_some_and(|m| !m.is_null()),
                a2a: toolset.pointer("/mcp/protocol").and_then(Value::as_str) == Some("a2a"),
                tools,
            })
        })
        .collect()
}

/// A JSON pointer's escaping of one key.
fn pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Parsed manifests by path and modification time: one parse per crate compilation, not
/// one per toolset.
static CACHE: Mutex<Vec<(PathBuf, std::time::SystemTime, Arc<Loaded>)>> = Mutex::new(Vec::new());

pub(super) fn manifest_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CARNET_MANIFEST") {
        return Some(PathBuf::from(path));
    }
    let out_dir = std::env::var_os("OUT_DIR")?;
    let path = Path::new(&out_dir).join("carnet/bindings.json");
    path.is_file().then_some(path)
}

pub(super) fn load(span: Span, path: Option<&Path>) -> syn::Result<Arc<Loaded>> {
    let path = path
        .map(Path::to_path_buf)
        .ok_or_else(|| syn::Error::new(span, messages::NO_MANIFEST))?;
    let modified = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .map_err(|e| syn::Error::new(span, messages::unreadable_manifest(&path, &e)))?;
    let mut cache = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, _, loaded)) = cache.iter().find(|(p, m, _)| *p == path && *m == modified) {
        return Ok(Arc::clone(loaded));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| syn::Error::new(span, messages::unreadable_manifest(&path, &e)))?;
    let invalid = |e: &dyn std::fmt::Display| syn::Error::new(span, messages::invalid_manifest(&path, &e));
    let mut value: Value = serde_json::from_str(&text).map_err(|e| invalid(&e))?;
    let sources = value.get_mut("sources").map(Value::take).unwrap_or_default();
    let toolsets = toolsets(&value, &sources).map_err(|e| invalid(&e))?;
    let loaded = Arc::new(Loaded {
        toolsets,
        sources,
        path: path.clone(),
    });
    cache.retain(|(p, _, _)| *p != path);
    cache.push((path, modified, Arc::clone(&loaded)));
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A toolset's name, whether it is remote, and its tools with whether each is described.
    type Read = (String, bool, Vec<(String, bool)>);

    fn names(toolsets: &[Toolset]) -> Vec<Read> {
        toolsets
            .iter()
            .map(|t| {
                let tools = t.tools.iter().map(|d| (d.name.clone(), d.described)).collect();
                (t.name.clone(), t.remote, tools)
            })
            .collect()
    }

    #[test]
    fn toolsets_are_read_from_ours_and_from_ts_carnets_form() {
        let ours = json!({"version": 1, "toolsets": {
            "notes": {"name": "notes", "description": "", "tools": [
                {"name": "save", "description": "Saves."}, {"name": "list", "description": ""}]},
            "remote": {"name": "remote", "description": "", "tools": [{"name": "x"}], "mcp": {}},
            "local": {"name": "local", "description": "", "tools": [], "mcp": null}}});
        assert_eq!(
            names(&toolsets(&ours, &Value::Null).unwrap()),
            [
                ("local".into(), false, vec![]),
                (
                    "notes".into(),
                    false,
                    vec![("save".into(), true), ("list".into(), false)]
                ),
                ("remote".into(), true, vec![("x".into(), false)]),
            ]
        );
        let ts = json!({"toolsets": {"t": {"tools": ["a/b", "c"]}},
            "tools": {"a/b": {"description": "Described."}, "c": {"description": ""}}});
        assert_eq!(
            names(&toolsets(&ts, &Value::Null).unwrap()),
            [("t".into(), false, vec![("a/b".into(), true), ("c".into(), false)])]
        );
    }

    #[test]
    fn an_a2a_toolset_is_told_from_an_mcp_one() {
        let manifest = json!({"version": 1, "toolsets": {
            "agent": {"name": "agent", "description": "", "tools": [], "mcp": {"protocol": "a2a"}},
            "server": {"name": "server", "description": "", "tools": [], "mcp": {}}}});
        let read = toolsets(&manifest, &Value::Null).unwrap();
        let kinds: Vec<_> = read.iter().map(|t| (&*t.name, t.remote, t.a2a)).collect();
        assert_eq!(kinds, [("agent", true, true), ("server", true, false)]);
        assert!(messages::remote_toolset("agent", true).contains("an A2A agent (`a2a:` in its TOOLSET.md)"));
        assert!(messages::remote_toolset("server", false).contains("an MCP server (`mcp:` in its TOOLSET.md)"));
    }

    #[test]
    fn the_build_scripts_file_says_which_tools_are_described_in_sources() {
        let bindings = json!({"toolsets": {"notes": {"name": "notes", "description": "", "tools": [
            {"name": "save", "description": ""}, {"name": "list", "description": ""}]}}});
        let sources = json!({"toolsets": {"notes": {"described": ["list"]}}});
        assert_eq!(
            names(&toolsets(&bindings, &sources).unwrap()),
            [(
                "notes".into(),
                false,
                vec![("save".into(), false), ("list".into(), true)]
            )]
        );
    }

    #[test]
    fn a_malformed_manifest_is_refused_with_where() {
        for (manifest, error) in [
            (json!([]), "`toolsets` is not an object"),
            (
                json!({"toolsets": {"t": {"name": 1}}}),
                "/toolsets/t/name is not a string",
            ),
            (
                json!({"toolsets": {"t": {"tools": {}}}}),
                "/toolsets/t/tools is not an array",
            ),
            (
                json!({"toolsets": {"t": {"tools": [{"name": "a"}, 3]}}}),
                "/toolsets/t/tools/1 has no name",
            ),
        ] {
            assert_eq!(toolsets(&manifest, &Value::Null).err().as_deref(), Some(error));
        }
    }
}
