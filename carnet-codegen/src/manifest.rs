//! Lowering: the validated project as a runtime [`Manifest`].

use carnet_manifest::order;
use std::borrow::Cow;

use carnet_manifest::manifest::{DEFAULT_ENV_PREFIXES, MANIFEST_VERSION};
use carnet_manifest::{Agent, App, Manifest, Skill, SkillFile, Text, Tool, Toolset, media_type};

use crate::model::Spanned;
use crate::project::Project;

fn text(s: &str) -> Text {
    Cow::Owned(s.to_owned())
}

fn names(list: &[Spanned<String>]) -> Cow<'static, [Text]> {
    Cow::Owned(list.iter().map(|s| text(&s.value)).collect())
}

fn json(map: &serde_json::Map<String, serde_json::Value>) -> Text {
    Cow::Owned(serde_json::Value::Object(map.clone()).to_string())
}

/// Builds the manifest of a project that validated without errors. Entities are sorted by
/// name; the fingerprint is computed last.
pub(crate) fn lower(project: &Project, extra_variables: &[(String, String)]) -> Manifest {
    let mut agents: Vec<Agent> = project
        .agents
        .iter()
        .map(|a| {
            Agent::__from_parts(
                text(&a.name.value),
                text(&a.description),
                names(&a.initial_skills),
                names(&a.skills),
                text(&a.prompt),
                json(&a.extra),
            )
        })
        .collect();
    order::sort_by(&mut agents, |a, b| a.name.cmp(&b.name));

    let mut skills: Vec<Skill> = project
        .skills
        .iter()
        .map(|s| {
            let files = s.files.iter().map(|f| {
                SkillFile::__from_parts(
                    text(&f.path),
                    f.description.as_deref().map(text),
                    Cow::Borrowed(media_type::from_path(&f.path)),
                    f.is_text,
                    Cow::Owned(f.data.clone()),
                    Some(Cow::Owned(sha256(&f.data))),
                )
            });
            let mut skill = Skill::__from_parts(
                text(&s.def.name.value),
                text(&s.def.description.value),
                names(&s.def.toolsets),
                files.collect(),
                text(&s.def.content),
                s.def.license.as_deref().map(text),
                s.def.compatibility.as_ref().map(|c| text(&c.value)),
                s.def.allowed_tools.iter().map(|t| text(t)).collect(),
                json(&s.def.metadata),
                json(&s.def.extra),
            );
            skill.remote = s.def.remote.as_deref().map(text);
            skill
        })
        .collect();
    order::sort_by(&mut skills, |a, b| a.name.cmp(&b.name));

    let mut toolsets: Vec<Toolset> = project
        .toolsets
        .iter()
        .map(|t| {
            let tools = t.tools.iter().map(|d| {
                let mut tool = Tool::__from_parts(
                    text(&d.name.value),
                    text(d.description.as_deref().unwrap_or_default()),
                    text(&d.content),
                );
                tool.remote = d.remote.as_deref().map(text);
                tool.title = d.title.as_deref().map(text);
                tool.annotations = d.annotations;
                tool
            });
            let mut toolset = Toolset::__from_parts(
                text(&t.name.value),
                text(&t.description),
                tools.collect(),
                text(&t.content),
            );
            toolset.mcp = t.mcp.as_ref().map(|m| Cow::Owned(m.to_json()));
            toolset
        })
        .collect();
    order::sort_by(&mut toolsets, |a, b| a.name.cmp(&b.name));

    let settings = &project.settings;
    let mut variables = settings.variables.clone();
    variables.extend(extra_variables.iter().cloned());
    let env_prefixes = match &settings.env_prefix {
        Some(prefixes) => prefixes.iter().map(|p| text(p)).collect(),
        None => DEFAULT_ENV_PREFIXES.iter().map(|p| Cow::Borrowed(*p)).collect(),
    };

    let mut manifest = Manifest::__from_parts(
        MANIFEST_VERSION,
        App::__from_parts(names(&settings.global_initial_skills), names(&settings.global_skills)),
        Cow::Owned(agents),
        Cow::Owned(skills),
        Cow::Owned(toolsets),
        variables
            .into_iter()
            .map(|(k, v)| (Cow::Owned(k), Cow::Owned(v)))
            .collect(),
        Cow::Owned(env_prefixes),
        0,
    );
    manifest.fingerprint = manifest.compute_fingerprint();
    manifest
}

pub(crate) use carnet_manifest::digest::sha256_digest as sha256;
