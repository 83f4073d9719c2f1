//! `carnet show`: one agent, skill, toolset or tool.

use carnet_runtime::Manifest;
use clap::ValueEnum;
use serde_json::{Value, json};

use crate::{Failure, unknown};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Kind {
    Agent,
    Skill,
    Toolset,
    Tool,
}

pub(crate) fn run(manifest: &Manifest, kind: Kind, name: &str, as_json: bool) -> Result<(), Failure> {
    let all: Value = serde_json::from_str(&manifest.to_json()).expect("the manifest's JSON parses");
    let (value, text) = match kind {
        Kind::Agent => {
            let a = manifest
                .agent(name)
                .ok_or_else(|| unknown("agent", name, manifest.agents.iter().map(|a| &a.name)))?;
            let text = format!(
                "agent `{}`\n  description: {}\n  initial skills: {}\n  skills: {}\n\n{}\n",
                a.name,
                a.description,
                list(&a.initial_skills),
                list(&a.skills),
                a.prompt.trim_end()
            );
            (all["agents"][name].clone(), text)
        }
        Kind::Skill => {
            let s = manifest
                .skill(name)
                .ok_or_else(|| unknown("skill", name, manifest.skills.iter().map(|s| &s.name)))?;
            let mut text = format!(
                "skill `{}`\n  description: {}\n  toolsets: {}\n",
                s.name,
                s.description,
                list(&s.toolsets)
            );
            if let Some(license) = &s.license {
                text.push_str(&format!("  license: {license}\n"));
            }
            if let Some(compatibility) = &s.compatibility {
                text.push_str(&format!("  compatibility: {compatibility}\n"));
            }
            text.push_str(&format!("  files ({}):\n", s.files.len()));
            for f in &*s.files {
                text.push_str(&format!(
                    "    {}  [{}, {} bytes]{}\n",
                    f.path,
                    f.media_type,
                    f.data.len(),
                    f.description.as_ref().map(|d| format!(": {d}")).unwrap_or_default()
                ));
            }
            text.push_str(&format!("\n{}\n", s.content.trim_end()));
            // The JSON form embeds file contents; `show` lists them without it.
            let mut value = all["skills"][name].clone();
            if let Some(files) = value["files"].as_array_mut() {
                for file in files {
                    if let Some(obj) = file.as_object_mut() {
                        let bytes = manifest
                            .skill(name)
                            .and_then(|s| s.file(obj["path"].as_str().unwrap_or_default()))
                            .map_or(0, |f| f.data.len());
                        obj.remove("content");
                        obj.insert("bytes".into(), bytes.into());
                    }
                }
            }
            (value, text)
        }
        Kind::Toolset => {
            let t = manifest
                .toolset(name)
                .ok_or_else(|| unknown("toolset", name, manifest.toolsets.iter().map(|t| &t.name)))?;
            let mut text = format!(
                "toolset `{}`\n  description: {}\n  tools ({}):\n",
                t.name,
                t.description,
                t.tools.len()
            );
            for tool in &*t.tools {
                text.push_str(&format!("    {}: {}\n", tool.name, tool.description));
            }
            text.push_str(&format!("\n{}\n", t.content.trim_end()));
            (all["toolsets"][name].clone(), text)
        }
        Kind::Tool => {
            let found: Vec<_> = manifest.tools_named(name).collect();
            if found.is_empty() {
                let names = manifest
                    .toolsets
                    .iter()
                    .flat_map(|t| t.tools.iter().map(|tool| tool.name.clone()));
                return Err(unknown("tool", name, names));
            }
            let mut text = String::new();
            let mut values = Vec::new();
            for (toolset, tool) in found {
                text.push_str(&format!(
                    "tool `{}` (toolset `{}`)\n  description: {}\n",
                    tool.name, toolset.name, tool.description
                ));
                if !tool.content.trim().is_empty() {
                    text.push_str(&format!("\n{}\n", tool.content.trim_end()));
                }
                values.push(json!({"name": tool.name, "toolset": toolset.name, "description": tool.description, "content": tool.content}));
            }
            let value = if values.len() == 1 {
                values.remove(0)
            } else {
                Value::Array(values)
            };
            (value, text)
        }
    };
    if as_json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&value).expect("JSON values serialise")
        );
    } else {
        out!("{}", crate::printable(&text));
    }
    Ok(())
}

fn list(items: &[carnet_runtime::Text]) -> String {
    if items.is_empty() {
        "(none)".to_owned()
    } else {
        items.join(", ")
    }
}
