//! Validation: one function per rule, each reporting every violation it finds.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use carnet_runtime::names;

use crate::diagnostic::{Builder, Code, Diagnostics, did_you_mean};
use crate::model::Spanned;
use crate::project::{Project, ResolvedFile, Skill};
use crate::source::Span;

/// Files larger than this get a warning: they are embedded in the binary and the manifest.
pub(crate) const LARGE_FILE: usize = 4 * 1024 * 1024;
/// Agent Skills: the longest description.
const MAX_DESCRIPTION: usize = 1024;
/// Agent Skills: the longest name.
const MAX_SKILL_NAME: usize = 64;

/// Runs every rule.
pub(crate) fn validate(project: &mut Project, diags: &mut Diagnostics) {
    check_duplicate_names(project, diags);
    check_agent_skills(project, diags);
    check_global_skills(project, diags);
    check_skill_toolsets(project, diags);
    check_duplicate_tools(project, diags);
    check_tool_names(project, diags);
    check_reachable_tools(project, diags);
    resolve_skill_files(project, diags);
    check_unreachable_skills(project, diags);
    check_unused_toolsets(project, diags);
    check_agent_skills_style(project, diags);
    check_ident_collisions(project, diags);
}

fn suggest(name: &str, candidates: impl IntoIterator<Item = impl AsRef<str>>) -> Option<String> {
    let candidates: Vec<String> = candidates.into_iter().map(|c| c.as_ref().to_owned()).collect();
    did_you_mean(name, candidates.iter().map(String::as_str)).map(|s| format!("did you mean `{s}`?"))
}

fn check_duplicate_names(project: &Project, diags: &mut Diagnostics) {
    let mut check = |kind: &str, names: Vec<&Spanned<String>>| {
        let mut first: BTreeMap<&str, Span> = BTreeMap::new();
        for name in names {
            if let Some(span) = first.get(name.as_str()) {
                diags.push(
                    Builder::new(Code::DuplicateName, format!("{kind} `{}` is defined twice", name.value))
                        .at(name.span)
                        .label("defined again here")
                        .related(*span, "first defined here")
                        .note(format!("{kind} names must be unique; rename one of them")),
                );
            } else {
                first.insert(name.as_str(), name.span);
            }
        }
    };
    check("agent", project.agents.iter().map(|a| &a.name).collect());
    check("skill", project.skills.iter().map(|s| &s.def.name).collect());
    check("toolset", project.toolsets.iter().map(|t| &t.name).collect());
}

fn skill_names(project: &Project) -> BTreeSet<&str> {
    project.skills.iter().map(|s| s.def.name.as_str()).collect()
}

fn check_agent_skills(project: &Project, diags: &mut Diagnostics) {
    let skills = skill_names(project);
    for agent in &project.agents {
        let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
        for (list, field) in [(&agent.initial_skills, "initialSkills"), (&agent.skills, "skills")] {
            for skill in list {
                if !skills.contains(skill.as_str()) {
                    diags.push(
                        Builder::new(
                            Code::UnknownSkill,
                            format!(
                                "agent `{}` references unknown skill `{}`",
                                agent.name.value, skill.value
                            ),
                        )
                        .at(skill.span)
                        .label(format!("no skill named `{}`", skill.value))
                        .help_opt(suggest(&skill.value, &skills))
                        .note(format!("in `{field}`")),
                    );
                }
                if let Some(first) = seen.get(skill.as_str()) {
                    diags.push(
                        Builder::new(
                            Code::DuplicateReference,
                            format!("agent `{}` lists skill `{}` twice", agent.name.value, skill.value),
                        )
                        .at(skill.span)
                        .label("listed again here")
                        .related(*first, "first listed here")
                        .help("an initial skill needs no entry in `skills`"),
                    );
                } else {
                    seen.insert(skill.as_str(), skill.span);
                }
            }
        }
    }
}

fn check_global_skills(project: &Project, diags: &mut Diagnostics) {
    let skills = skill_names(project);
    let settings = &project.settings;
    for (list, key) in [
        (&settings.global_initial_skills, "globalInitialSkills"),
        (&settings.global_skills, "globalSkills"),
    ] {
        for skill in list {
            if !skills.contains(skill.as_str()) {
                diags.push(
                    Builder::new(
                        Code::UnknownGlobalSkill,
                        format!("`app.{key}` references unknown skill `{}`", skill.value),
                    )
                    .at(skill.span)
                    .label(format!("no skill named `{}`", skill.value))
                    .help_opt(suggest(&skill.value, &skills)),
                );
            }
        }
    }
}

fn check_skill_toolsets(project: &Project, diags: &mut Diagnostics) {
    let toolsets: BTreeSet<&str> = project.toolsets.iter().map(|t| t.name.as_str()).collect();
    for skill in &project.skills {
        for toolset in &skill.def.toolsets {
            if !toolsets.contains(toolset.as_str()) {
                diags.push(
                    Builder::new(
                        Code::UnknownToolset,
                        format!(
                            "skill `{}` references unknown toolset `{}`",
                            skill.def.name.value, toolset.value
                        ),
                    )
                    .at(toolset.span)
                    .label(format!("no toolset named `{}`", toolset.value))
                    .help_opt(suggest(&toolset.value, &toolsets)),
                );
            }
        }
    }
}

fn check_duplicate_tools(project: &Project, diags: &mut Diagnostics) {
    for toolset in &project.toolsets {
        let mut first: BTreeMap<&str, Span> = BTreeMap::new();
        for decl in &toolset.tools {
            if let Some(span) = first.get(decl.name.as_str()) {
                diags.push(
                    Builder::new(
                        Code::DuplicateTool,
                        format!(
                            "toolset `{}` declares tool `{}` twice",
                            toolset.name.value, decl.name.value
                        ),
                    )
                    .at(decl.name.span)
                    .label("declared again here")
                    .related(*span, "first declared here"),
                );
            } else {
                first.insert(decl.name.as_str(), decl.name.span);
            }
        }
    }
}

fn check_tool_names(project: &Project, diags: &mut Diagnostics) {
    for toolset in &project.toolsets {
        for decl in &toolset.tools {
            let name = decl.name.as_str();
            if names::is_meta_tool(name) {
                diags.push(
                    Builder::new(
                        Code::ReservedToolName,
                        format!("tool `{name}` has the name of a carnet meta-tool"),
                    )
                    .at(decl.name.span)
                    .label("reserved for progressive loading")
                    .help("rename the tool"),
                );
            }
            if let Err(e) = names::alias(name) {
                diags.push(
                    Builder::new(Code::InvalidToolName, format!("no LLM provider accepts the tool name `{name}`"))
                        .at(decl.name.span)
                        .label(e.to_string())
                        .note("provider tool names match `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`; carnet aliases other ASCII characters to `_`"),
                );
            }
        }
    }
}

/// The skills an agent can reach: its own lists and the global ones.
fn reachable_skills<'a>(project: &'a Project, agent: &'a crate::model::AgentDef) -> BTreeSet<&'a str> {
    let settings = &project.settings;
    agent
        .initial_skills
        .iter()
        .chain(&agent.skills)
        .chain(&settings.global_initial_skills)
        .chain(&settings.global_skills)
        .map(Spanned::as_str)
        .collect()
}

fn check_reachable_tools(project: &Project, diags: &mut Diagnostics) {
    let mut reported_names = BTreeSet::new();
    let mut reported_aliases = BTreeSet::new();
    for agent in &project.agents {
        let skills = reachable_skills(project, agent);
        let toolsets: BTreeSet<&str> = project
            .skills
            .iter()
            .filter(|s| skills.contains(s.def.name.as_str()))
            .flat_map(|s| s.def.toolsets.iter().map(Spanned::as_str))
            .collect();
        // First occurrence of each tool name and alias among the agent's toolsets.
        let mut by_name: BTreeMap<&str, (&str, Span)> = BTreeMap::new();
        let mut by_alias: BTreeMap<String, (&str, &str, Span)> = BTreeMap::new();
        for toolset in project.toolsets.iter().filter(|t| toolsets.contains(t.name.as_str())) {
            for decl in &toolset.tools {
                let name = decl.name.as_str();
                match by_name.get(name) {
                    Some((other, span)) if *other != toolset.name.as_str() => {
                        if reported_names.insert((name.to_owned(), (*other).to_owned(), toolset.name.value.clone())) {
                            diags.push(
                                Builder::new(
                                    Code::ToolCollision,
                                    format!(
                                        "agent `{}` reaches tool `{name}` through toolsets `{other}` and `{}`",
                                        agent.name.value, toolset.name.value
                                    ),
                                )
                                .at(decl.name.span)
                                .label(format!("declared by `{}`", toolset.name.value))
                                .related(*span, format!("also declared by `{other}`"))
                                .related(agent.name.span, "the agent")
                                .note("the model would see two tools of the same name; rename one of them"),
                            );
                        }
                        continue;
                    }
                    Some(_) => continue,
                    None => {
                        by_name.insert(name, (toolset.name.as_str(), decl.name.span));
                    }
                }
                let Ok(alias) = names::alias(name) else { continue };
                let alias = alias.into_owned();
                if names::is_meta_tool(&alias) && !names::is_meta_tool(name) {
                    diags.push(
                        Builder::new(
                            Code::AliasCollision,
                            format!("tool `{name}` becomes `{alias}` for providers, a meta-tool's name"),
                        )
                        .at(decl.name.span)
                        .label(format!("aliased to `{alias}`")),
                    );
                }
                match by_alias.get(&alias) {
                    Some((other, other_set, span)) if *other != name => {
                        if reported_aliases.insert((alias.clone(), (*other).to_owned(), name.to_owned())) {
                            diags.push(
                                Builder::new(
                                    Code::AliasCollision,
                                    format!("tools `{other}` and `{name}` both become `{alias}` for providers"),
                                )
                                .at(decl.name.span)
                                .label(format!("aliased to `{alias}`"))
                                .related(
                                    *span,
                                    format!("`{other}` (toolset `{other_set}`) is aliased to `{alias}` too"),
                                )
                                .related(agent.name.span, "both are reachable from this agent")
                                .help("rename one of them"),
                            );
                        }
                    }
                    Some(_) => {}
                    None => {
                        by_alias.insert(alias, (name, toolset.name.as_str(), decl.name.span));
                    }
                }
            }
        }
    }
}

/// Normalises a relative path by components; `None` when it climbs above its start.
fn normalise(path: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = Vec::new();
    for component in Path::new(&path.replace('\\', "/")).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts)
}

fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || Path::new(path).is_absolute()
        || (bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic())
}

fn read_file(path: &Path, relative: String, description: Option<String>) -> std::io::Result<ResolvedFile> {
    let data = fs::read(path)?;
    let is_text = !data.contains(&0) && std::str::from_utf8(&data).is_ok();
    Ok(ResolvedFile {
        path: relative,
        source: path.to_path_buf(),
        description,
        data,
        is_text,
    })
}

/// Whether `path` (after following every link) stays inside `folder`. A link whose target
/// does not exist is judged by its target's path, so a dangling link inside the folder is
/// an unreadable file, not an escape.
fn stays_inside(path: &Path, folder: &Path) -> bool {
    let Ok(folder) = fs::canonicalize(folder) else {
        return false;
    };
    if let Ok(path) = fs::canonicalize(path) {
        return path.starts_with(&folder);
    }
    let Ok(target) = fs::read_link(path) else { return false };
    let base = path.parent().and_then(|p| fs::canonicalize(p).ok()).unwrap_or_default();
    let mut resolved = PathBuf::new();
    for component in base.join(target).components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(&folder)
}

fn resolve_skill_files(project: &mut Project, diags: &mut Diagnostics) {
    let root = project.root.clone();
    let mut read_files = Vec::new();
    for skill in &mut project.skills {
        let folder = root.join(&skill.def.dir);
        let name = skill.def.name.value.clone();
        let mut files: BTreeMap<String, ResolvedFile> = BTreeMap::new();
        let listed_paths: BTreeSet<String> = skill
            .def
            .files
            .iter()
            .filter_map(|f| normalise(f.path.as_str()))
            .map(|p| p.join("/"))
            .collect();
        // Every file of the folder.
        for (relative, entry) in &skill.folder.files {
            read_files.push(entry.path.clone());
            if entry.symlink && !stays_inside(&entry.path, &folder) {
                if listed_paths.contains(relative) {
                    continue; // reported below, at the `files` entry
                }
                diags.push(
                    Builder::new(
                        Code::SymlinkEscape,
                        format!("`{relative}` in skill `{name}` links outside the skill's folder"),
                    )
                    .at(skill.def.name.span)
                    .label("in this skill")
                    .note(format!("`{}` is a symbolic link", entry.path.display()))
                    .help("copy the file into the skill's folder instead of linking to it"),
                );
                continue;
            }
            if entry.dir_link {
                continue;
            }
            match read_file(&entry.path, relative.clone(), None) {
                Ok(file) => {
                    files.insert(relative.clone(), file);
                }
                Err(e) => diags.push(
                    Builder::new(
                        Code::FileUnreadable,
                        format!("cannot read `{relative}` of skill `{name}`: {e}"),
                    )
                    .at(skill.def.name.span),
                ),
            }
        }
        // The files the frontmatter lists.
        let mut listed: BTreeMap<String, Span> = BTreeMap::new();
        for file_ref in &skill.def.files {
            let path = file_ref.path.as_str();
            let span = file_ref.path.span;
            let error = |code, message: String| Builder::new(code, message).at(span);
            if let Some(rest) = path.strip_prefix("./").or_else(|| path.strip_prefix(".\\")) {
                diags.push(
                    error(Code::FileDotSlash, format!("file path `{path}` starts with `./`"))
                        .label("paths are relative to the skill's folder")
                        .help(format!("write `{rest}`")),
                );
                continue;
            }
            if is_absolute(path) {
                diags.push(
                    error(Code::FileAbsolute, format!("file path `{path}` is absolute"))
                        .label("must be relative to the skill's folder"),
                );
                continue;
            }
            let Some(parts) = normalise(path) else {
                diags.push(
                    error(
                        Code::FileOutsideSkill,
                        format!("file path `{path}` resolves outside skill `{name}`'s folder"),
                    )
                    .label("leaves the skill's folder")
                    .note(format!("the skill's folder is `{}`", folder.display())),
                );
                continue;
            };
            if parts.is_empty() {
                diags.push(
                    error(
                        Code::FileIsDirectory,
                        format!("file path `{path}` is the skill's folder itself"),
                    )
                    .label("list the files inside it instead"),
                );
                continue;
            }
            let key = parts.join("/");
            if let Some(first) = listed.get(&key) {
                diags.push(
                    error(Code::DuplicateFile, format!("skill `{name}` lists file `{key}` twice"))
                        .label("listed again here")
                        .related(*first, "first listed here"),
                );
                continue;
            }
            listed.insert(key.clone(), span);
            let full: PathBuf = parts.iter().fold(folder.clone(), |p, part| p.join(part));
            read_files.push(full.clone());
            let Ok(meta) = fs::symlink_metadata(&full) else {
                let available: Vec<&String> = skill.folder.files.iter().map(|(p, _)| p).collect();
                diags.push(
                    error(
                        Code::FileNotFound,
                        format!("skill `{name}` lists missing file `{path}`"),
                    )
                    .label("no such file")
                    .note(format!("expected at `{}`", full.display()))
                    .help_opt(suggest(path, available)),
                );
                continue;
            };
            if (meta.file_type().is_symlink() || full.exists()) && !stays_inside(&full, &folder) {
                diags.push(
                    error(
                        Code::SymlinkEscape,
                        format!("file `{path}` of skill `{name}` links outside the skill's folder"),
                    )
                    .label("a symbolic link leaves the folder"),
                );
                continue;
            }
            if full.is_dir() {
                diags.push(
                    error(Code::FileIsDirectory, format!("file path `{path}` is a directory"))
                        .label("list the files inside it instead"),
                );
                continue;
            }
            if let Some(file) = files.get_mut(&key) {
                file.description = Some(file_ref.description.clone());
                continue;
            }
            match read_file(&full, key.clone(), Some(file_ref.description.clone())) {
                Ok(file) => {
                    files.insert(key, file);
                }
                Err(e) => diags.push(
                    error(
                        Code::FileUnreadable,
                        format!("cannot read file `{path}` of skill `{name}`: {e}"),
                    )
                    .label("unreadable"),
                ),
            }
        }
        for file in files.values() {
            if file.data.len() > LARGE_FILE {
                diags.push(
                    Builder::new(
                        Code::LargeFile,
                        format!(
                            "file `{}` of skill `{name}` is {} MiB",
                            file.path,
                            file.data.len() / (1024 * 1024)
                        ),
                    )
                    .at(listed.get(&file.path).copied().unwrap_or(skill.def.name.span))
                    .note("skill files are embedded in the binary and the manifest"),
                );
            }
        }
        skill.files = files.into_values().collect();
    }
    project.read_files.extend(read_files);
    for skill in &project.skills {
        let text = &project.sources.get(skill.def.file).text;
        if text.len() > LARGE_FILE {
            diags.push(
                Builder::new(
                    Code::LargeFile,
                    format!(
                        "SKILL.md of skill `{}` is {} MiB",
                        skill.def.name.value,
                        text.len() / (1024 * 1024)
                    ),
                )
                .at(skill.def.name.span)
                .note("the whole body is sent to the model when the skill loads"),
            );
        }
    }
}

fn check_unreachable_skills(project: &Project, diags: &mut Diagnostics) {
    if project.agents.is_empty() {
        diags.push(
            Builder::new(Code::NoAgents, format!("no agent in `{}`", project.root.display()))
                .help("add `agents/<name>/AGENT.md` with `name`, `description` and the skills it may load"),
        );
        return;
    }
    let mut reachable = BTreeSet::new();
    for agent in &project.agents {
        reachable.extend(reachable_skills(project, agent));
    }
    // A skill that an unknown reference was probably meant for is already reported there.
    let names = skill_names(project);
    let settings = &project.settings;
    let references = project
        .agents
        .iter()
        .flat_map(|a| a.initial_skills.iter().chain(&a.skills))
        .chain(&settings.global_initial_skills)
        .chain(&settings.global_skills);
    for reference in references.filter(|r| !names.contains(r.as_str())) {
        if let Some(meant) = did_you_mean(&reference.value, names.iter().copied()) {
            reachable.insert(meant);
        }
    }
    for skill in &project.skills {
        if !reachable.contains(skill.def.name.as_str()) {
            diags.push(
                Builder::new(
                    Code::UnreachableSkill,
                    format!("no agent can load skill `{}`", skill.def.name.value),
                )
                .at(skill.def.name.span)
                .help("list it in an agent's `skills` or `initialSkills`, or in `app.globalSkills`"),
            );
        }
    }
}

fn check_unused_toolsets(project: &Project, diags: &mut Diagnostics) {
    let used: BTreeSet<&str> = project
        .skills
        .iter()
        .flat_map(|s| s.def.toolsets.iter().map(Spanned::as_str))
        .collect();
    for toolset in &project.toolsets {
        if !used.contains(toolset.name.as_str()) {
            diags.push(
                Builder::new(
                    Code::UnusedToolset,
                    format!("no skill uses toolset `{}`", toolset.name.value),
                )
                .at(toolset.name.span)
                .help("list it in a skill's `toolsets`"),
            );
        }
    }
}

fn check_agent_skills_style(project: &Project, diags: &mut Diagnostics) {
    for Skill { def, .. } in &project.skills {
        let name = def.name.as_str();
        let charset_ok = name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !name.starts_with('-')
            && !name.ends_with('-')
            && !name.contains("--");
        if !charset_ok || name.len() > MAX_SKILL_NAME {
            let why = if charset_ok {
                "longer than 64 characters"
            } else {
                "use lowercase letters, digits and single hyphens"
            };
            diags.push(
                Builder::new(
                    Code::SkillNameStyle,
                    format!("skill name `{name}` does not follow the Agent Skills rules"),
                )
                .at(def.name.span)
                .label(why)
                .note("other Agent Skills tools may refuse this skill; carnet accepts it"),
            );
        }
        let folder = def.dir.rsplit('/').next().unwrap_or(&def.dir);
        if folder != name && def.dir != "skills" {
            diags.push(
                Builder::new(
                    Code::NameFolderMismatch,
                    format!("skill `{name}` lives in folder `{folder}`"),
                )
                .at(def.name.span)
                .label(format!("Agent Skills expects the folder to be named `{name}`")),
            );
        }
        let chars = def.description.value.chars().count();
        if chars > MAX_DESCRIPTION {
            diags.push(
                Builder::new(
                    Code::LongDescription,
                    format!("description of skill `{name}` is {chars} characters long"),
                )
                .at(def.description.span)
                .label("Agent Skills allows at most 1024")
                .note("the description is in every prompt's catalog: keep it short"),
            );
        }
    }
}

fn check_ident_collisions(project: &Project, diags: &mut Diagnostics) {
    let mut check = |kind: &str, names: Vec<&Spanned<String>>| {
        let mut seen: BTreeMap<String, &Spanned<String>> = BTreeMap::new();
        for name in names {
            let ident = crate::generate::const_ident(name.as_str());
            match seen.get(&ident) {
                Some(first) if first.value != name.value => diags.push(
                    Builder::new(
                        Code::IdentCollision,
                        format!(
                            "{kind}s `{}` and `{}` both become `{ident}` in the generated code",
                            first.value, name.value
                        ),
                    )
                    .at(name.span)
                    .related(first.span, "the other one")
                    .note("neither gets a typed id; use the names as strings, or rename one".to_string()),
                ),
                Some(_) => {}
                None => {
                    seen.insert(ident, name);
                }
            }
        }
    };
    check("agent", project.agents.iter().map(|a| &a.name).collect());
    check("skill", project.skills.iter().map(|s| &s.def.name).collect());
    check("toolset", project.toolsets.iter().map(|t| &t.name).collect());
}
