//! Texts of the diagnostics on the tools a toolset declares: duplicates, collisions between
//! toolsets and aliases, reserved or invalid names, tool files and descriptions, annotations
//! and the keys of a tool entry.

// E0009 duplicate-tool.

/// A toolset declares a tool twice.
pub(crate) fn duplicate_tool(toolset: &str, tool: &str) -> String {
    format!("toolset `{toolset}` declares tool `{tool}` twice")
}

/// Label on the second declaration.
pub(crate) const DECLARED_AGAIN_HERE: &str = "declared again here";
/// Points at the first declaration.
pub(crate) const FIRST_DECLARED_HERE: &str = "first declared here";

// E0010 tool-collision.

/// An agent reaches one tool name through two toolsets.
pub(crate) fn tool_collision(agent: &str, tool: &str, first_toolset: &str, second_toolset: &str) -> String {
    format!("agent `{agent}` reaches tool `{tool}` through toolsets `{first_toolset}` and `{second_toolset}`")
}

/// Label on the tool of the second toolset.
pub(crate) fn declared_by(toolset: &str) -> String {
    format!("declared by `{toolset}`")
}

/// Points at the tool of the first toolset.
pub(crate) fn also_declared_by(toolset: &str) -> String {
    format!("also declared by `{toolset}`")
}

/// Points at the agent reaching both tools.
pub(crate) const THE_AGENT: &str = "the agent";
/// Note on a tool collision.
pub(crate) const SAME_NAME_TWICE: &str = "the model would see two tools of the same name; rename one of them";

// E0011 reserved-tool-name.

/// A tool has a meta-tool's name.
pub(crate) fn reserved_tool_name(tool: &str) -> String {
    format!("tool `{tool}` has the name of a carnet meta-tool")
}

/// Label on a meta-tool's name.
pub(crate) const RESERVED_FOR_LOADING: &str = "reserved for progressive loading";
/// Help for a reserved tool name.
pub(crate) const RENAME_THE_TOOL: &str = "rename the tool";

// E0012 invalid-tool-name.

/// No provider accepts the tool's name.
pub(crate) fn invalid_tool_name(tool: &str) -> String {
    format!("no LLM provider accepts the tool name `{tool}`")
}

/// Note on the tool names providers accept.
pub(crate) const PROVIDER_TOOL_NAMES: &str =
    "provider tool names match `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`; carnet aliases `.` to `_` and nothing else";

// E0013 alias-collision.

/// A tool's provider alias is a meta-tool's name.
pub(crate) fn alias_is_meta_tool(tool: &str, alias: &str) -> String {
    format!("tool `{tool}` becomes `{alias}` for providers, a meta-tool's name")
}

/// Label on an aliased tool.
pub(crate) fn aliased_to(alias: &str) -> String {
    format!("aliased to `{alias}`")
}

/// Two tools get the same provider alias.
pub(crate) fn alias_collision(first: &str, second: &str, alias: &str) -> String {
    format!("tools `{first}` and `{second}` both become `{alias}` for providers")
}

/// Points at the other tool with the same alias.
pub(crate) fn also_aliased_to(tool: &str, toolset: &str, alias: &str) -> String {
    format!("`{tool}` (toolset `{toolset}`) is aliased to `{alias}` too")
}

/// Points at the agent reaching both tools.
pub(crate) const BOTH_REACHABLE: &str = "both are reachable from this agent";

// E0021 orphan-tool-file.

/// A tool file describes a tool its toolset does not declare.
pub(crate) fn orphan_tool_file(tool: &str, toolset: &str) -> String {
    format!("tool file describes `{tool}`, which toolset `{toolset}` does not declare")
}

/// Label on the orphan tool's name.
pub(crate) const NOT_IN_TOOLS: &str = "not in the toolset's `tools`";
/// Points at the toolset.
pub(crate) const TOOLSET_DECLARED_HERE: &str = "the toolset is declared here";

/// Help for an orphan tool file.
pub(crate) fn add_tool_or_delete_file(tool: &str) -> String {
    format!("add `{tool}` to the toolset's `tools`, or delete the file")
}

// E0022 tool-without-description.

/// A tool declared by name has no tool file.
pub(crate) fn tool_without_description(tool: &str) -> String {
    format!("tool `{tool}` has no description")
}

/// Label on a tool declared by name.
pub(crate) const DECLARED_BY_NAME_ONLY: &str = "declared by name only";

/// Help naming the tool file to add (in the toolset's folder `folder`).
pub(crate) fn add_tool_file(folder: &str, tool: &str) -> String {
    format!("add `{folder}/{tool}.md` with `name` and `description`, or write `- {{name: {tool}, description: ...}}`")
}

// E0043 contradictory-annotations.

/// A tool both read-only and destructive.
pub(crate) fn contradictory_annotations(tool: &str) -> String {
    format!("tool `{tool}` is declared read-only and destructive")
}

/// What a tool entry's `parameters:` must be.
pub(crate) const A_PARAMETER_MAPPING: &str = "a mapping of parameter names to descriptions";

/// Label on `destructive: true` beside `readOnly: true`.
pub(crate) const READ_ONLY_CANNOT_DESTROY: &str = "a read-only tool changes nothing, so it cannot destroy anything";

/// Secondary label on `readOnly: true`.
pub(crate) const READ_ONLY_HERE: &str = "declared read-only here";

/// Help for contradictory annotations.
pub(crate) const DROP_ONE_HINT: &str = "keep `readOnly: true` or `destructive: true`, not both";

// W0016 unknown-tool-key.

/// A key of a tool entry carnet does not read.
pub(crate) fn unknown_tool_key(key: &str, tool: &str) -> String {
    format!("unknown key `{key}` in the entry of tool `{tool}`")
}

/// Note listing the keys a tool entry takes.
pub(crate) const TOOL_KEYS: &str = "a tool entry takes `name`, `description`, `parameters`, `title`, `readOnly`, `destructive`, `idempotent` and `openWorld`";
