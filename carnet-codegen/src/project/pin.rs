//! A remote toolset's pin read, its tools made the toolset's declared tools.

use std::fs;
use std::path::PathBuf;

use super::{Project, Skill, parent_folder, read_source};
use crate::diagnostic::Diagnostics;
use crate::discover::{self, SkillDir};
use crate::model::{self, SkillDef, ToolsetDef};
use crate::read::Budget;
use crate::remote;

/// Reads a remote toolset's pin (`mcp.lock.json` or `a2a.lock.json` beside its `TOOLSET.md`) and makes the
/// pinned tools its declared tools, before its tool files are attached to them.
pub(super) fn read_pin(
    project: &mut Project,
    budget: &Budget,
    toolset: &mut ToolsetDef,
    dir: &discover::ToolsetDir,
    diags: &mut Diagnostics,
) {
    let folder = parent_folder(&dir.manifest.relative);
    let file = toolset.mcp.as_ref().map_or("mcp.lock.json", |m| m.protocol.pin_file());
    let path = dir
        .manifest
        .path
        .parent()
        .map_or_else(|| PathBuf::from(file), |p| p.join(file));
    let relative = format!("{folder}/{file}");
    let pin = if fs::symlink_metadata(&path).is_ok() {
        // Unreadable: reported by `read_source`, and the toolset has no tools.
        match read_source(project, budget, &path, &relative, diags) {
            Some(id) => Some(id),
            None => {
                toolset.tools.clear();
                return;
            }
        }
    } else {
        // Cargo reruns the build script when the pin appears.
        project.read_files.push(path);
        None
    };
    let skills = remote::apply_pin(toolset, folder, pin, &project.sources, diags);
    // The server's skills join the directory's, so every check on skills applies to them:
    // names, references, collisions, reachable tools. Their instructions stay on the server.
    for skill in skills {
        let toolset_name = model::Spanned {
            value: toolset.name.value.clone(),
            span: skill.span,
        };
        project.skills.push(Skill {
            def: SkillDef {
                file: toolset.name.span.file,
                dir: format!("skills/{}", skill.name),
                name: model::Spanned {
                    value: skill.name.clone(),
                    span: skill.span,
                },
                description: model::Spanned {
                    value: skill.description.clone(),
                    span: skill.span,
                },
                toolsets: vec![toolset_name],
                files: Vec::new(),
                content: String::new(),
                license: None,
                compatibility: None,
                allowed_tools: Vec::new(),
                metadata: skill.metadata.clone(),
                extra: serde_json::Map::new(),
                remote: Some(skill.remote_json(&toolset.name.value)),
            },
            folder: SkillDir {
                manifest: dir.manifest.clone(),
                dir: format!("skills/{}", skill.name),
                files: Vec::new(),
            },
            folder_files: Vec::new(),
            listed_files: Vec::new(),
            files: Vec::new(),
        });
    }
}
