//! Validation: one function per rule, each reporting every violation it finds.
//! Validation does no I/O: `project::load` read every file, and a rule judges what it found.

use carnet_manifest::names;

use crate::by_name::ByName;
use crate::diagnostic::{Builder, Code, Diagnostics, did_you_mean};
use crate::messages;
use crate::model::Spanned;
use crate::project::{Broken, Project, Skill};
use crate::source::Span;
use crate::typed_id;

mod files;

use files::resolve_skill_files;

/// Files larger than this get a warning: they are embedded in the binary and the manifest.
pub(crate) const LARGE_FILE: usize = 4 * 1024 * 1024;
/// Agent Skills: the longest description.
const MAX_DESCRIPTION: usize = 1024;
/// Agent Skills' limit on `compatibility`, in characters.
const MAX_COMPATIBILITY: usize = 500;
/// Agent Skills: the longest name.
const MAX_SKILL_NAME: usize = 64;

/// Runs every rule.
pub(crate) fn validate(project: &mut Project, diags: &mut Diagnostics) {
    check_control_characters(project, diags);
    check_duplicate_names(project, diags);
    check_agent_skills(project, diags);
    check_global_skills(project, diags);
    check_skill_toolsets(project, diags);
    check_duplicate_tools(project, diags);
    check_tool_names(project, diags);
    check_reachable_tools(project, diags);
    resolve_skill_files(project, diags);
    crate::uris::check_resource_uris(project, diags);
    check_unreachable_skills(project, diags);
    check_unused_toolsets(project, diags);
    check_agent_skills_style(project, diags);
    check_ident_collisions(project, diags);
}

fn suggest(name: &str, candidates: impl IntoIterator<Item = impl AsRef<str>>) -> Option<String> {
    let candidates: Vec<String> = candidates.into_iter().map(|c| c.as_ref().to_owned()).collect();
    did_you_mean(name, candidates.iter().map(String::as_str)).map(messages::did_you_mean)
}

/// Names with control characters are errors (a terminal would act on them, a model would
/// see them); descriptions with any but tab and line breaks are warnings. Either is printed
/// escaped.
fn check_control_characters(project: &Project, diags: &mut Diagnostics) {
    let names = project
        .agents
        .iter()
        .map(|a| ("agent", &a.name))
        .chain(project.skills.iter().map(|s| ("skill", &s.def.name)))
        .chain(project.toolsets.iter().map(|t| ("toolset", &t.name)))
        .chain(
            project
                .toolsets
                .iter()
                .flat_map(|t| t.tools.iter().map(|d| ("tool", &d.name))),
        );
    for (kind, name) in names {
        if name.value.chars().any(messages::is_control) {
            diags.push(
                Builder::new(
                    Code::ControlCharacter,
                    messages::control_character_in_name(kind, &name.value),
                )
                .at(name.span)
                .label(messages::NAMES_ARE_PRINTABLE),
            );
        }
    }
    let in_text = |text: &str| {
        // Printable ASCII and line breaks (the usual case) byte by byte, else every char;
        // an indexed loop, as build scripts run this at opt-level 0.
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && matches!(bytes[i], 0x20..=0x7e | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i < bytes.len()
            && text
                .chars()
                .any(|c| messages::is_control(c) && !matches!(c, '\t' | '\n' | '\r'))
    };
    let descriptions = project
        .agents
        .iter()
        .map(|a| ("agent", &a.name, a.description.as_str()))
        .chain(
            project
                .skills
                .iter()
                .map(|s| ("skill", &s.def.name, s.def.description.value.as_str())),
        )
        .chain(
            project
                .toolsets
                .iter()
                .map(|t| ("toolset", &t.name, t.description.as_str())),
        )
        .chain(project.toolsets.iter().flat_map(|t| {
            t.tools
                .iter()
                .map(|d| ("tool", &d.name, d.description.as_deref().unwrap_or_default()))
        }));
    for (kind, name, description) in descriptions {
        if in_text(description) {
            diags.push(
                Builder::new(
                    Code::ControlCharacterInText,
                    messages::control_character_in_text(kind, &name.value),
                )
                .at(name.span)
                .label(messages::TERMINALS_INTERPRET),
            );
        }
    }
}

fn check_duplicate_names(project: &Project, diags: &mut Diagnostics) {
    let mut check = |kind: &str, names: Vec<&Spanned<String>>| {
        let mut first: ByName<'_, Span> = ByName::new();
        for name in names {
            if let Some(span) = first.get(name.as_str()) {
                diags.push(
                    Builder::new(Code::DuplicateName, messages::duplicate_name(kind, &name.value))
                        .at(name.span)
                        .label(messages::DEFINED_AGAIN_HERE)
                        .related(*span, messages::FIRST_DEFINED_HERE)
                        .note(messages::names_must_be_unique(kind)),
                );
            } else {
                first.insert_first(name.as_str(), name.span);
            }
        }
    };
    check("agent", project.agents.iter().map(|a| &a.name).collect());
    check("skill", project.skills.iter().map(|s| &s.def.name).collect());
    check("toolset", project.toolsets.iter().map(|t| &t.name).collect());
}

fn skill_names(project: &Project) -> ByName<'_> {
    project.skills.iter().map(|s| s.def.name.as_str()).collect()
}

fn check_agent_skills(project: &Project, diags: &mut Diagnostics) {
    let skills = skill_names(project);
    let remote: ByName<'_> = project
        .skills
        .iter()
        .filter(|s| s.def.remote.is_some())
        .map(|s| s.def.name.as_str())
        .collect();
    let initial = project
        .agents
        .iter()
        .flat_map(|a| &a.initial_skills)
        .chain(&project.settings.global_initial_skills);
    for skill in initial.filter(|s| remote.contains(s.as_str())) {
        diags.push(
            Builder::new(Code::RemoteInitialSkill, messages::remote_initial_skill(&skill.value))
                .at(skill.span)
                .note(messages::REMOTE_SKILL_READ_ON_LOAD),
        );
    }
    for agent in &project.agents {
        let mut seen: ByName<'_, Span> = ByName::new();
        for (list, field) in [(&agent.initial_skills, "initialSkills"), (&agent.skills, "skills")] {
            for skill in list {
                if !skills.contains(skill.as_str())
                    && !fold_into_broken(
                        &project.broken_skills,
                        "skill",
                        &skill.value,
                        &messages::agent(&agent.name.value),
                        diags,
                    )
                {
                    let b = Builder::new(
                        Code::UnknownSkill,
                        messages::unknown_skill(&agent.name.value, &skill.value),
                    )
                    .at(skill.span)
                    .label(messages::no_skill_named(&skill.value));
                    diags.push(unknown_skill_help(project, b, &skill.value, &skills).note(messages::in_field(field)));
                }
                if let Some(first) = seen.get(skill.as_str()) {
                    diags.push(
                        Builder::new(
                            Code::DuplicateReference,
                            messages::duplicate_reference(&agent.name.value, &skill.value),
                        )
                        .at(skill.span)
                        .label(messages::LISTED_AGAIN_HERE)
                        .related(*first, messages::FIRST_LISTED_HERE)
                        .help(messages::INITIAL_SKILL_NOT_IN_SKILLS),
                    );
                } else {
                    seen.insert_first(skill.as_str(), skill.span);
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
            if !skills.contains(skill.as_str())
                && !fold_into_broken(
                    &project.broken_skills,
                    "skill",
                    &skill.value,
                    &messages::config_key(key),
                    diags,
                )
            {
                let b = Builder::new(
                    Code::UnknownGlobalSkill,
                    messages::unknown_global_skill(key, &skill.value),
                )
                .at(skill.span)
                .label(messages::no_skill_named(&skill.value));
                diags.push(unknown_skill_help(project, b, &skill.value, &skills));
            }
        }
    }
}

/// A reference to a name no entity has, where a file in a folder of that name gave no entity
/// (its frontmatter or `name` could not be read): the reference becomes a note on that
/// file's error, the cause, instead of an error of its own printed before it. Returns
/// whether it did.
fn fold_into_broken(broken: &[Broken], kind: &str, name: &str, referrer: &str, diags: &mut Diagnostics) -> bool {
    broken
        .iter()
        .filter(|b| b.is_called(name))
        .any(|b| diags.note_on_error_in(b.file, messages::referenced_as(referrer, kind, name)))
}

/// The skill names that agents and `carnet.config.json` reference and no skill has.
fn unknown_skill_references(project: &Project) -> impl Iterator<Item = &str> {
    let names = skill_names(project);
    let settings = &project.settings;
    project
        .agents
        .iter()
        .flat_map(|a| a.initial_skills.iter().chain(&a.skills))
        .chain(&settings.global_initial_skills)
        .chain(&settings.global_skills)
        .map(Spanned::as_str)
        .filter(move |s| !names.contains(s))
}

/// The skill in a folder named `folder` whose `name` says otherwise.
fn skill_in_folder<'a>(project: &'a Project, folder: &str) -> Option<&'a Skill> {
    project
        .skills
        .iter()
        .find(|s| s.def.name.value != folder && s.def.dir.rsplit('/').next() == Some(folder) && s.def.dir != "skills")
}

/// The help of an unknown skill reference: when a skill's folder has the referenced name
/// (W0005's case), the error points at that skill's `name` and is the one diagnostic for
/// both; else a did-you-mean.
fn unknown_skill_help(project: &Project, b: Builder, name: &str, skills: &ByName<'_>) -> Builder {
    match skill_in_folder(project, name) {
        Some(held) => b
            .related(
                held.def.name.span,
                messages::folder_holds_skill(name, &held.def.name.value),
            )
            .help(messages::rename_skill_or_reference(name, &held.def.name.value)),
        None => b.help_opt(suggest(name, skills.names())),
    }
}

fn check_skill_toolsets(project: &Project, diags: &mut Diagnostics) {
    let toolsets: ByName<'_> = project.toolsets.iter().map(|t| t.name.as_str()).collect();
    for skill in &project.skills {
        for toolset in &skill.def.toolsets {
            if !toolsets.contains(toolset.as_str())
                && !fold_into_broken(
                    &project.broken_toolsets,
                    "toolset",
                    &toolset.value,
                    &messages::skill(&skill.def.name.value),
                    diags,
                )
            {
                diags.push(
                    Builder::new(
                        Code::UnknownToolset,
                        messages::unknown_toolset(&skill.def.name.value, &toolset.value),
                    )
                    .at(toolset.span)
                    .label(messages::no_toolset_named(&toolset.value))
                    .help_opt(suggest(&toolset.value, toolsets.names())),
                );
            }
        }
    }
}

fn check_duplicate_tools(project: &Project, diags: &mut Diagnostics) {
    for toolset in &project.toolsets {
        let mut first: ByName<'_, Span> = ByName::new();
        for decl in &toolset.tools {
            if let Some(span) = first.get(decl.name.as_str()) {
                diags.push(
                    Builder::new(
                        Code::DuplicateTool,
                        messages::duplicate_tool(&toolset.name.value, &decl.name.value),
                    )
                    .at(decl.name.span)
                    .label(messages::DECLARED_AGAIN_HERE)
                    .related(*span, messages::FIRST_DECLARED_HERE),
                );
            } else {
                first.insert_first(decl.name.as_str(), decl.name.span);
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
                    Builder::new(Code::ReservedToolName, messages::reserved_tool_name(name))
                        .at(decl.name.span)
                        .label(messages::RESERVED_FOR_LOADING)
                        .help(messages::RENAME_THE_TOOL),
                );
            }
            if let Err(e) = names::alias(name) {
                diags.push(
                    Builder::new(Code::InvalidToolName, messages::invalid_tool_name(name))
                        .at(decl.name.span)
                        .label(e.to_string())
                        .note(messages::PROVIDER_TOOL_NAMES),
                );
            }
        }
    }
}

/// The skills an agent can reach: its own lists and the global ones.
fn reachable_skills<'a>(project: &'a Project, agent: &'a crate::model::AgentDef) -> impl Iterator<Item = &'a str> {
    let settings = &project.settings;
    agent
        .initial_skills
        .iter()
        .chain(&agent.skills)
        .chain(&settings.global_initial_skills)
        .chain(&settings.global_skills)
        .map(Spanned::as_str)
}

/// One key for a diagnostic's names, so that it is reported once: each name after its length.
fn report_key(names: &[&str]) -> String {
    let mut key = String::new();
    for name in names {
        key.push_str(&name.len().to_string());
        key.push(':');
        key.push_str(name);
    }
    key
}

fn check_reachable_tools(project: &Project, diags: &mut Diagnostics) {
    let mut reported_names: ByName<'_> = ByName::new();
    let mut reported_aliases: ByName<'_> = ByName::new();
    for agent in &project.agents {
        let skills: ByName<'_> = reachable_skills(project, agent).collect();
        let toolsets: ByName<'_> = project
            .skills
            .iter()
            .filter(|s| skills.contains(s.def.name.as_str()))
            .flat_map(|s| s.def.toolsets.iter().map(Spanned::as_str))
            .collect();
        // First occurrence of each tool name and alias among the agent's toolsets.
        let mut by_name: ByName<'_, (&str, Span)> = ByName::new();
        let mut by_alias: ByName<'_, (&str, &str, Span)> = ByName::new();
        for toolset in project.toolsets.iter().filter(|t| toolsets.contains(t.name.as_str())) {
            for decl in &toolset.tools {
                let name = decl.name.as_str();
                match by_name.get(name) {
                    Some((other, span)) if *other != toolset.name.as_str() => {
                        if reported_names.add(report_key(&[name, other, toolset.name.as_str()])) {
                            diags.push(
                                Builder::new(
                                    Code::ToolCollision,
                                    messages::tool_collision(&agent.name.value, name, other, &toolset.name.value),
                                )
                                .at(decl.name.span)
                                .label(messages::declared_by(&toolset.name.value))
                                .related(*span, messages::also_declared_by(other))
                                .related(agent.name.span, messages::THE_AGENT)
                                .note(messages::SAME_NAME_TWICE),
                            );
                        }
                        continue;
                    }
                    Some(_) => continue,
                    None => {
                        by_name.insert_first(name, (toolset.name.as_str(), decl.name.span));
                    }
                }
                let Ok(alias) = names::alias(name) else { continue };
                let alias = alias.into_owned();
                if names::is_meta_tool(&alias) && !names::is_meta_tool(name) {
                    diags.push(
                        Builder::new(Code::AliasCollision, messages::alias_is_meta_tool(name, &alias))
                            .at(decl.name.span)
                            .label(messages::aliased_to(&alias)),
                    );
                }
                match by_alias.get(&alias) {
                    Some((other, other_set, span)) if *other != name => {
                        if reported_aliases.add(report_key(&[&alias, other, name])) {
                            diags.push(
                                Builder::new(Code::AliasCollision, messages::alias_collision(other, name, &alias))
                                    .at(decl.name.span)
                                    .label(messages::aliased_to(&alias))
                                    .related(*span, messages::also_aliased_to(other, other_set, &alias))
                                    .related(agent.name.span, messages::BOTH_REACHABLE)
                                    .help(messages::RENAME_ONE_OF_THEM),
                            );
                        }
                    }
                    Some(_) => {}
                    None => {
                        by_alias.insert_first(alias, (name, toolset.name.as_str(), decl.name.span));
                    }
                }
            }
        }
    }
}

fn check_unreachable_skills(project: &Project, diags: &mut Diagnostics) {
    // An agent file that gave no agent (its error is reported): whether the content has an
    // agent, and which skills it lists, are not known, and a warning would only be a
    // consequence of that error.
    if project.broken_agents > 0 {
        return;
    }
    if project.agents.is_empty() {
        diags.push(Builder::new(Code::NoAgents, messages::no_agents(&project.root)).help(messages::ADD_AN_AGENT));
        return;
    }
    let mut reachable: ByName<'_> = ByName::new();
    for agent in &project.agents {
        reachable.extend(reachable_skills(project, agent));
    }
    // A skill that an unknown reference was probably meant for (by its folder's name, or a
    // typo) is already reported there.
    let names = skill_names(project);
    for reference in unknown_skill_references(project) {
        if let Some(held) = skill_in_folder(project, reference) {
            reachable.add(held.def.name.as_str());
        } else if let Some(meant) = did_you_mean(reference, names.names()) {
            reachable.add(meant.to_owned());
        }
    }
    for skill in &project.skills {
        if !reachable.contains(skill.def.name.as_str()) {
            diags.push(
                Builder::new(
                    Code::UnreachableSkill,
                    messages::unreachable_skill(&skill.def.name.value),
                )
                .at(skill.def.name.span)
                .help(messages::LIST_THE_SKILL),
            );
        }
    }
}

fn check_unused_toolsets(project: &Project, diags: &mut Diagnostics) {
    // A skill file that gave no skill (its error is reported) may list any toolset.
    if !project.broken_skills.is_empty() {
        return;
    }
    let used: ByName<'_> = project
        .skills
        .iter()
        .flat_map(|s| s.def.toolsets.iter().map(Spanned::as_str))
        .collect();
    for toolset in &project.toolsets {
        if !used.contains(toolset.name.as_str()) {
            diags.push(
                Builder::new(Code::UnusedToolset, messages::unused_toolset(&toolset.name.value))
                    .at(toolset.name.span)
                    .help(messages::LIST_THE_TOOLSET),
            );
        }
    }
}

fn check_agent_skills_style(project: &Project, diags: &mut Diagnostics) {
    let referenced: ByName<'_> = unknown_skill_references(project).collect();
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
                messages::NAME_TOO_LONG
            } else {
                messages::NAME_CHARACTERS
            };
            diags.push(
                Builder::new(Code::SkillNameStyle, messages::skill_name_style(name))
                    .at(def.name.span)
                    .label(why)
                    .note(messages::OTHER_TOOLS_MAY_REFUSE),
            );
        }
        let folder = def.dir.rsplit('/').next().unwrap_or(&def.dir);
        // Referenced by its folder's name, the mismatch is already an error that points here.
        if folder != name && def.dir != "skills" && !referenced.contains(folder) {
            diags.push(
                Builder::new(Code::NameFolderMismatch, messages::name_folder_mismatch(name, folder))
                    .at(def.name.span)
                    .label(messages::folder_should_be_named(name)),
            );
        }
        let chars = def.description.value.chars().count();
        if chars > MAX_DESCRIPTION {
            diags.push(
                Builder::new(Code::LongDescription, messages::long_description(name, chars))
                    .at(def.description.span)
                    .label(messages::AT_MOST_1024)
                    .note(messages::KEEP_DESCRIPTION_SHORT),
            );
        }
        if let Some(compatibility) = &def.compatibility {
            let chars = compatibility.value.chars().count();
            if chars > MAX_COMPATIBILITY {
                diags.push(
                    Builder::new(Code::LongCompatibility, messages::long_compatibility(name, chars))
                        .at(compatibility.span)
                        .label(messages::AT_MOST_500)
                        .note(messages::COMPATIBILITY_IS_SHORT),
                );
            }
        }
    }
}

fn check_ident_collisions(project: &Project, diags: &mut Diagnostics) {
    let mut check = |kind: &str, names: Vec<&Spanned<String>>| {
        for (first, name, ident) in typed_id::const_collisions(names) {
            diags.push(
                Builder::new(
                    Code::IdentCollision,
                    messages::ident_collision(kind, &first.value, &name.value, &ident),
                )
                .at(name.span)
                .related(first.span, messages::THE_OTHER_ONE)
                .note(messages::NO_TYPED_ID),
            );
        }
    };
    check("agent", project.agents.iter().map(|a| &a.name).collect());
    check("skill", project.skills.iter().map(|s| &s.def.name).collect());
    check("toolset", project.toolsets.iter().map(|t| &t.name).collect());
}
