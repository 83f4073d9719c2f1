//! Texts of the diagnostics on names and references between agents, skills and toolsets:
//! duplicate names, references to what does not exist, references given twice, and skills or
//! toolsets nothing references.

// E0005 duplicate-name.

/// Two entities of one kind share a name.
pub(crate) fn duplicate_name(kind: &str, name: &str) -> String {
    format!("{kind} `{name}` is defined twice")
}

/// Label on the second definition.
pub(crate) const DEFINED_AGAIN_HERE: &str = "defined again here";

/// Note on a duplicate name.
pub(crate) fn names_must_be_unique(kind: &str) -> String {
    format!("{kind} names must be unique; rename one of them")
}

// E0006 unknown-skill.

/// An agent references a skill that does not exist.
pub(crate) fn unknown_skill(agent: &str, skill: &str) -> String {
    format!("agent `{agent}` references unknown skill `{skill}`")
}

/// Label on a reference to a missing skill (also E0008).
pub(crate) fn no_skill_named(skill: &str) -> String {
    format!("no skill named `{skill}`")
}

/// Secondary label on a skill whose folder has the name a reference used.
pub(crate) fn folder_holds_skill(folder: &str, skill: &str) -> String {
    format!("folder `{folder}` holds skill `{skill}`")
}

/// Help for a reference by folder name to a skill named otherwise.
pub(crate) fn rename_skill_or_reference(folder: &str, skill: &str) -> String {
    format!(
        "rename the skill to `{folder}` (Agent Skills names a skill after its folder), or reference it as `{skill}`"
    )
}

/// Note on the error of a file that could not be read, naming what references its entity
/// by its folder's name (an agent, a skill, a key of `carnet.config.json`).
pub(crate) fn referenced_as(referrer: &str, kind: &str, name: &str) -> String {
    format!("{referrer} references this {kind} as `{name}`")
}

/// An agent, as the referrer of [`referenced_as`].
pub(crate) fn agent(name: &str) -> String {
    format!("agent `{name}`")
}

/// A skill, as the referrer of [`referenced_as`].
pub(crate) fn skill(name: &str) -> String {
    format!("skill `{name}`")
}

/// A key of `carnet.config.json`, as the referrer of [`referenced_as`].
pub(crate) fn config_key(key: &str) -> String {
    format!("`app.{key}`")
}

/// Note naming the agent's list the reference is in.
pub(crate) fn in_field(field: &str) -> String {
    format!("in `{field}`")
}

// E0007 unknown-toolset.

/// A skill references a toolset that does not exist.
pub(crate) fn unknown_toolset(skill: &str, toolset: &str) -> String {
    format!("skill `{skill}` references unknown toolset `{toolset}`")
}

/// Label on a reference to a missing toolset.
pub(crate) fn no_toolset_named(toolset: &str) -> String {
    format!("no toolset named `{toolset}`")
}

// E0008 unknown-global-skill.

/// `app.globalSkills` or `app.globalInitialSkills` names a skill that does not exist.
pub(crate) fn unknown_global_skill(key: &str, skill: &str) -> String {
    format!("`app.{key}` references unknown skill `{skill}`")
}

// W0001 unreachable-skill.

/// No agent reaches a skill.
pub(crate) fn unreachable_skill(skill: &str) -> String {
    format!("no agent can load skill `{skill}`")
}

/// Help for an unreachable skill.
pub(crate) const LIST_THE_SKILL: &str = "list it in an agent's `skills` or `initialSkills`, or in `app.globalSkills`";

// W0002 unused-toolset.

/// No skill uses a toolset.
pub(crate) fn unused_toolset(toolset: &str) -> String {
    format!("no skill uses toolset `{toolset}`")
}

/// Help for an unused toolset.
pub(crate) const LIST_THE_TOOLSET: &str = "list it in a skill's `toolsets`";

// W0008 duplicate-reference.

/// An agent lists a skill twice.
pub(crate) fn duplicate_reference(agent: &str, skill: &str) -> String {
    format!("agent `{agent}` lists skill `{skill}` twice")
}

/// Help for a skill listed twice.
pub(crate) const INITIAL_SKILL_NOT_IN_SKILLS: &str = "an initial skill needs no entry in `skills`";
