//! What the build script writes for the binding macros: the toolsets and where they are
//! declared.

use carnet_manifest::order;
use std::path::Path;

use carnet_manifest::Manifest;

use crate::generate;
use crate::project::Project;

/// What the binding macros read (`CARNET_MANIFEST`): a manifest JSON of the toolsets
/// alone and their tools' names (no descriptions, agents, skills or documentation), plus
/// `sources`: where each toolset and tool is declared, so the macros can point at
/// `TOOLSET.md:line`, and which tools have a description (`described`; the others take
/// their function's doc comment). The whole manifest is `MANIFEST` in the generated module, and
/// `carnet build` writes it as JSON; writing it here too cost the build script a second at
/// a thousand skills (opt-level 0).
pub(crate) fn bindings_json(manifest: &Manifest, project: &Project, crate_dir: &Path) -> String {
    use carnet_manifest::{App, Tool, Toolset};
    use std::borrow::Cow;

    let crate_dir = std::path::absolute(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf());
    let location = |span| {
        let l = project.sources.location(span);
        let path = std::path::absolute(&l.path).unwrap_or_else(|_| l.path.clone());
        let file =
            generate::relative_path(&crate_dir, &path).unwrap_or_else(|| l.path.to_string_lossy().replace('\\', "/"));
        serde_json::json!({"file": file, "line": l.line})
    };
    let toolsets = order::object(project.toolsets.iter().map(|t| {
        let mut entry = location(t.name.span);
        // Tool descriptions are left out: the macros only ask whether there is one.
        let described: Vec<&str> = manifest
            .toolset(&t.name.value)
            .map(|m| {
                m.tools
                    .iter()
                    .filter(|d| !d.description.is_empty())
                    .map(|d| &*d.name)
                    .collect()
            })
            .unwrap_or_default();
        entry["described"] = described.into();
        // Each tool's `parameters:` block, with the line of each name.
        let parameters = order::object(t.tools.iter().filter(|d| !d.parameters.is_empty()).map(|d| {
            let block = order::object(d.parameters.iter().map(|(name, description)| {
                let line = project.sources.location(name.span).line;
                (
                    name.value.clone(),
                    serde_json::json!({"description": description, "line": line}),
                )
            }));
            (d.name.value.clone(), block.into())
        }));
        if !parameters.is_empty() {
            entry["parameters"] = parameters.into();
        }
        entry["tools"] = order::object(t.tools.iter().map(|d| {
            (
                d.name.value.clone(),
                serde_json::json!(project.sources.location(d.name.span).line),
            )
        }))
        .into();
        (t.name.value.clone(), entry)
    }));
    let toolsets_only = Manifest::__from_parts(
        manifest.version,
        App::__from_parts(Cow::Borrowed(&[]), Cow::Borrowed(&[])),
        Cow::Borrowed(&[]),
        Cow::Borrowed(&[]),
        manifest
            .toolsets
            .iter()
            .map(|t| {
                let tools = t
                    .tools
                    .iter()
                    .map(|tool| Tool::__from_parts(tool.name.clone(), Cow::Borrowed(""), Cow::Borrowed("")))
                    .collect();
                let mut toolset =
                    Toolset::__from_parts(t.name.clone(), t.description.clone(), tools, Cow::Borrowed(""));
                // The macros refuse to bind a remote toolset (its server or agent implements
                // it), and say which kind it is.
                toolset.mcp = t.mcp.as_ref().map(|mcp| {
                    let a2a = serde_json::from_str::<serde_json::Value>(mcp).is_ok_and(|mcp| mcp["protocol"] == "a2a");
                    Cow::Borrowed(if a2a { r#"{"protocol":"a2a"}"# } else { "{}" })
                });
                toolset
            })
            .collect(),
        Cow::Borrowed(&[]),
        Cow::Borrowed(&[]),
        manifest.fingerprint,
    );
    let mut json = toolsets_only.to_json();
    debug_assert!(json.ends_with('}'));
    json.pop();
    json.push_str(",\"sources\":");
    json.push_str(&serde_json::json!({"toolsets": toolsets}).to_string());
    json.push('}');
    json
}
