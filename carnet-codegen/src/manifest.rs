//! Lowering: the validated project as a runtime [`Manifest`].

use std::borrow::Cow;

use carnet_runtime::manifest::{DEFAULT_ENV_PREFIXES, MANIFEST_VERSION};
use carnet_runtime::{Agent, App, Manifest, Skill, SkillFile, Text, Tool, Toolset, media_type};

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
        .map(|a| Agent {
            name: text(&a.name.value),
            description: text(&a.description),
            initial_skills: names(&a.initial_skills),
            skills: names(&a.skills),
            prompt: text(&a.prompt),
            extra: json(&a.extra),
        })
        .collect();
    agents.sort_by(|a, b| a.name.cmp(&b.name));

    let mut skills: Vec<Skill> = project
        .skills
        .iter()
        .map(|s| Skill {
            name: text(&s.def.name.value),
            description: text(&s.def.description.value),
            toolsets: names(&s.def.toolsets),
            files: Cow::Owned(
                s.files
                    .iter()
                    .map(|f| SkillFile {
                        path: text(&f.path),
                        description: f.description.as_deref().map(text),
                        media_type: Cow::Borrowed(media_type::from_path(&f.path)),
                        is_text: f.is_text,
                        data: Cow::Owned(f.data.clone()),
                        digest: Some(Cow::Owned(sha256(&f.data))),
                    })
                    .collect(),
            ),
            content: text(&s.def.content),
            license: s.def.license.as_deref().map(text),
            compatibility: s.def.compatibility.as_ref().map(|c| text(&c.value)),
            allowed_tools: Cow::Owned(s.def.allowed_tools.iter().map(|t| text(t)).collect()),
            metadata: json(&s.def.metadata),
            extra: json(&s.def.extra),
        })
        .collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name));

    let mut toolsets: Vec<Toolset> = project
        .toolsets
        .iter()
        .map(|t| Toolset {
            name: text(&t.name.value),
            description: text(&t.description),
            tools: Cow::Owned(
                t.tools
                    .iter()
                    .map(|d| Tool {
                        name: text(&d.name.value),
                        description: text(d.description.as_deref().unwrap_or_default()),
                        content: text(&d.content),
                    })
                    .collect(),
            ),
            content: text(&t.content),
        })
        .collect();
    toolsets.sort_by(|a, b| a.name.cmp(&b.name));

    let settings = &project.settings;
    let mut variables = settings.variables.clone();
    variables.extend(extra_variables.iter().cloned());
    let env_prefixes = match &settings.env_prefix {
        Some(prefixes) => prefixes.iter().map(|p| text(p)).collect(),
        None => DEFAULT_ENV_PREFIXES.iter().map(|p| Cow::Borrowed(*p)).collect(),
    };

    let mut manifest = Manifest {
        version: MANIFEST_VERSION,
        app: App {
            global_initial_skills: names(&settings.global_initial_skills),
            global_skills: names(&settings.global_skills),
        },
        agents: Cow::Owned(agents),
        skills: Cow::Owned(skills),
        toolsets: Cow::Owned(toolsets),
        variables: Cow::Owned(
            variables
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k), Cow::Owned(v)))
                .collect(),
        ),
        env_prefixes: Cow::Owned(env_prefixes),
        fingerprint: 0,
    };
    manifest.fingerprint = manifest.compute_fingerprint();
    manifest
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`, as MCP's Skills extension writes it.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::from("sha256:"), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}
