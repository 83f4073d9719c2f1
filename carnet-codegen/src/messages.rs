//! Every text of the content diagnostics (messages, labels, notes and helps), kept together
//! so their wording stays consistent: rustc style (lowercase, no final period, names in
//! backticks). Grouped by the code that uses them; a text shared by several codes sits with
//! the first. Fixed texts are constants, texts with names in them are functions.

use std::fmt::Display;
use std::path::Path;

// Shared by several codes.

/// Help suggesting the closest existing name.
pub(crate) fn did_you_mean(name: &str) -> String {
    format!("did you mean `{name}`?")
}

/// A field path into a list item: `files[0]`.
pub(crate) fn item(key: &str, index: usize) -> String {
    format!("{key}[{index}]")
}

/// A field path into a field of a list item: `files[0].path`.
pub(crate) fn item_field(key: &str, index: usize, field: &str) -> String {
    format!("{key}[{index}].{field}")
}

/// Help for a collision between two names.
pub(crate) const RENAME_ONE_OF_THEM: &str = "rename one of them";

// E0001 yaml-syntax.

/// The frontmatter does not parse as YAML.
pub(crate) fn invalid_yaml(message: &str) -> String {
    format!("invalid YAML: {message}")
}

/// A mapping has the same key twice.
pub(crate) fn duplicated_mapping_key(key: &str) -> String {
    format!("duplicated mapping key `{key}`")
}

/// A `[` or `{` that nothing closes.
pub(crate) fn unclosed_flow(bracket: char) -> String {
    format!("invalid YAML: `{bracket}` is never closed")
}

/// Label on an unclosed `[` or `{`.
pub(crate) fn never_closed(bracket: char) -> String {
    format!("this `{bracket}` has no `{}`", closing(bracket))
}

/// Help for an unclosed `[` or `{`.
pub(crate) fn close_flow(bracket: char) -> String {
    if bracket == '[' {
        "end the list with `]`, or write it as one `- item` line per entry".to_owned()
    } else {
        "end the mapping with `}`".to_owned()
    }
}

fn closing(bracket: char) -> char {
    if bracket == '[' { ']' } else { '}' }
}

/// Secondary label where the YAML parser gave up, with its words.
pub(crate) fn parser_stopped_here(message: &str) -> String {
    format!("the YAML parser stopped here: {message}")
}

/// A plain value holding `: `.
pub(crate) fn colon_in_value(key: &str) -> String {
    format!("invalid YAML: unquoted `: ` in the value of `{key}`")
}

/// Label on the `: ` inside a value.
pub(crate) const COLON_STARTS_A_KEY: &str = "YAML reads `: ` as the start of another key";

/// Help quoting a value: the whole line, quoted.
pub(crate) fn quote_the_value(line: &str) -> String {
    format!("quote the value: `{line}`")
}

/// Points at the first of two definitions (also E0005).
pub(crate) const FIRST_DEFINED_HERE: &str = "first defined here";

// E0002 missing-field.

/// An entity's file lacks a required key.
pub(crate) fn missing_field(kind: &str, key: &str) -> String {
    format!("{kind} has no `{key}`")
}

/// A list item lacks a required key.
pub(crate) fn missing_item_field(item: &str, key: &str) -> String {
    format!("`{item}` has no `{key}`")
}

/// Label on a mapping that lacks a required key.
pub(crate) fn field_is_required(key: &str) -> String {
    format!("`{key}` is required")
}

/// A file without frontmatter (one error for all its required keys).
pub(crate) fn no_frontmatter(kind: &str) -> String {
    format!("{kind} has no frontmatter")
}

/// Help for a file without frontmatter.
pub(crate) const START_WITH_FRONTMATTER: &str =
    "start the file with a YAML frontmatter: `---`, `name: ...`, `description: ...`, `---`";

/// Help for a skill file entry without a description.
pub(crate) const FILE_DESCRIPTION_PURPOSE: &str = "the description tells the model when to load the file";

// E0003 empty-field.

/// A field (or list item) is empty.
pub(crate) fn empty_field(key: &str) -> String {
    format!("`{key}` is empty")
}

/// Label on an empty string.
pub(crate) const MUST_NOT_BE_EMPTY: &str = "must not be empty";
/// Label on a key without a value.
pub(crate) const KEY_HAS_NO_VALUE: &str = "this key has no value";
/// Label on an empty item of a list of names.
pub(crate) const MUST_BE_A_NAME: &str = "must be a name";
/// Label on an empty skill file description.
pub(crate) const TELL_WHEN_TO_LOAD: &str = "tell the model when to load this file";
/// Label on an empty item of `tools`.
pub(crate) const MUST_BE_A_TOOL_NAME: &str = "must be a tool name";

// E0004 wrong-type.

/// A field has the wrong type.
pub(crate) fn wrong_type(key: &str, expected: &str, found: &str) -> String {
    format!("`{key}` must be {expected}, found {found}")
}

/// Label on a value of the wrong type.
pub(crate) fn expected(expected: &str) -> String {
    format!("expected {expected}")
}

/// Help for a single name where a list is expected.
pub(crate) fn write_a_list(key: &str) -> String {
    format!("write a list: `{key}: [name]`")
}

/// Help for a `files` item that is not a mapping.
pub(crate) const FILE_ENTRY_FORM: &str = "write `- path: relative/file.md` and `description: ...`";

/// The frontmatter is not a mapping.
pub(crate) fn frontmatter_not_a_mapping(found: &str) -> String {
    format!("frontmatter must be a mapping, found {found}")
}

/// Label on frontmatter that is not a mapping.
pub(crate) const EXPECTED_KEY_VALUE_LINES: &str = "expected `key: value` lines";

// E0004: what a value is (`found ...`) or should be (`must be ...`).

/// A YAML null.
pub(crate) const NULL: &str = "null";
/// A YAML boolean.
pub(crate) const A_BOOLEAN: &str = "a boolean";
/// A YAML integer.
pub(crate) const AN_INTEGER: &str = "an integer";
/// A YAML float.
pub(crate) const A_NUMBER: &str = "a number";
/// A YAML string.
pub(crate) const A_STRING: &str = "a string";
/// A YAML sequence.
pub(crate) const A_LIST: &str = "a list";
/// A YAML mapping.
pub(crate) const A_MAPPING: &str = "a mapping";
/// What a skill file's `path` must be.
pub(crate) const A_NON_EMPTY_STRING: &str = "a non-empty string";
/// What an item of `tools` must be.
pub(crate) const A_TOOL_NAME_OR_MAPPING: &str = "a tool name or a `{name, description}` mapping";

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

// E0014 file-not-found.

/// A skill lists a file that does not exist.
pub(crate) fn file_not_found(skill: &str, path: &str) -> String {
    format!("skill `{skill}` lists missing file `{path}`")
}

/// Label on a missing file.
pub(crate) const NO_SUCH_FILE: &str = "no such file";

/// Note on where the missing file was looked for.
pub(crate) fn expected_at(path: &Path) -> String {
    format!("expected at `{}`", path.display())
}

// E0015 file-unreadable.

/// A file of a skill's folder cannot be read.
pub(crate) fn unreadable_skill_file(relative: &str, skill: &str, error: &impl Display) -> String {
    format!("cannot read `{relative}` of skill `{skill}`: {error}")
}

/// A file a skill lists cannot be read.
pub(crate) fn unreadable_listed_file(path: &str, skill: &str, error: &impl Display) -> String {
    format!("cannot read file `{path}` of skill `{skill}`: {error}")
}

/// Label on an unreadable listed file.
pub(crate) const UNREADABLE: &str = "unreadable";

// E0016 file-is-directory.

/// A skill file path is the skill's folder.
pub(crate) fn path_is_skill_folder(path: &str) -> String {
    format!("file path `{path}` is the skill's folder itself")
}

/// A skill file path names a directory.
pub(crate) fn path_is_directory(path: &str) -> String {
    format!("file path `{path}` is a directory")
}

/// Label on a path naming a directory.
pub(crate) const LIST_FILES_INSIDE: &str = "list the files inside it instead";

// E0017 file-dot-slash.

/// A skill file path starts with `./`.
pub(crate) fn path_starts_with_dot_slash(path: &str) -> String {
    format!("file path `{path}` starts with `./`")
}

/// Label on a path starting with `./`.
pub(crate) const RELATIVE_TO_SKILL_FOLDER: &str = "paths are relative to the skill's folder";

/// Help with the path without its `./`.
pub(crate) fn write_path(path: &str) -> String {
    format!("write `{path}`")
}

// E0018 file-absolute.

/// A skill file path is absolute.
pub(crate) fn path_is_absolute(path: &str) -> String {
    format!("file path `{path}` is absolute")
}

/// Label on an absolute path.
pub(crate) const MUST_BE_RELATIVE: &str = "must be relative to the skill's folder";

// E0019 file-outside-skill.

/// A skill file path climbs out of the skill's folder.
pub(crate) fn path_outside_skill(path: &str, skill: &str) -> String {
    format!("file path `{path}` resolves outside skill `{skill}`'s folder")
}

/// Label on a path leaving the skill's folder.
pub(crate) const LEAVES_SKILL_FOLDER: &str = "leaves the skill's folder";

/// Note naming the skill's folder.
pub(crate) fn skill_folder_is(folder: &Path) -> String {
    format!("the skill's folder is `{}`", folder.display())
}

// E0020 symlink-escape.

/// A link in a skill's folder leads outside it.
pub(crate) fn symlink_escape(relative: &str, skill: &str) -> String {
    format!("`{relative}` in skill `{skill}` links outside the skill's folder")
}

/// Label on the skill holding the link.
pub(crate) const IN_THIS_SKILL: &str = "in this skill";

/// Note naming the link.
pub(crate) fn is_a_symbolic_link(path: &Path) -> String {
    format!("`{}` is a symbolic link", path.display())
}

/// Help for a link leaving the skill's folder.
pub(crate) const COPY_INSTEAD_OF_LINKING: &str = "copy the file into the skill's folder instead of linking to it";

/// A file a skill lists is a link leading outside the skill's folder.
pub(crate) fn listed_file_symlink_escape(path: &str, skill: &str) -> String {
    format!("file `{path}` of skill `{skill}` links outside the skill's folder")
}

/// Label on a listed link leaving the skill's folder.
pub(crate) const LINK_LEAVES_FOLDER: &str = "a symbolic link leaves the folder";

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

// E0023 invalid-config.

/// `carnet.config.json` does not parse.
pub(crate) fn invalid_config(error: &str) -> String {
    format!("invalid `carnet.config.json`: {error}")
}

/// Note on an unparsable `carnet.config.json`.
pub(crate) const DEFAULTS_USED: &str = "the defaults are used for every setting";

/// `allow` names an error.
pub(crate) fn error_cannot_be_allowed(code: &str) -> String {
    format!("error `{code}` cannot be allowed")
}

/// Label on an allowed error.
pub(crate) const ONLY_WARNINGS_SILENCED: &str = "only warnings can be silenced";

/// `allow` names no warning.
pub(crate) fn unknown_warning(code: &str) -> String {
    format!("unknown warning `{code}`")
}

// E0024 unreadable-source.

/// A content file is not UTF-8.
pub(crate) fn not_utf8(relative: &str) -> String {
    format!("`{relative}` is not UTF-8 text")
}

/// Note on the first invalid byte.
pub(crate) fn invalid_byte_at(offset: usize) -> String {
    format!("invalid byte at offset {offset}")
}

/// A content file cannot be read.
pub(crate) fn unreadable_source(relative: &str, error: &impl Display) -> String {
    format!("cannot read `{relative}`: {error}")
}

// E0025 duplicate-file.

/// A skill lists a file twice.
pub(crate) fn duplicate_file(skill: &str, path: &str) -> String {
    format!("skill `{skill}` lists file `{path}` twice")
}

/// Label on the second listing (also W0008).
pub(crate) const LISTED_AGAIN_HERE: &str = "listed again here";
/// Points at the first listing (also W0008).
pub(crate) const FIRST_LISTED_HERE: &str = "first listed here";

// E0026 missing-directory.

/// The carnet directory does not exist.
pub(crate) fn missing_directory(root: &Path) -> String {
    format!("carnet directory `{}` does not exist", root.display())
}

/// Help for a missing carnet directory.
pub(crate) const CREATE_DIRECTORY: &str =
    "create it with `carnet init`, or point `--dir` (or `Config::dir`) at your content";

// E0027 invalid-glob.

/// An `include` or `exclude` pattern is invalid.
pub(crate) fn invalid_pattern(pattern: &str) -> String {
    format!("invalid pattern `{pattern}`")
}

/// Label on an empty pattern.
pub(crate) const EMPTY_PATTERN: &str = "the pattern is empty";
/// Label on an absolute, backslashed or climbing pattern.
pub(crate) const PATTERN_FORM: &str = "patterns are `/`-separated and relative to the carnet directory";

// E0028 unsupported-frontmatter.

/// The frontmatter names a language other than YAML.
pub(crate) fn unsupported_frontmatter(language: &str) -> String {
    format!("frontmatter in `{language}` is not supported")
}

/// Label on the language.
pub(crate) const ONLY_YAML: &str = "only YAML frontmatter is supported";
/// Help for a non-YAML frontmatter.
pub(crate) const WRITE_YAML: &str = "remove the language after `---` and write the frontmatter in YAML";

// E0029 limit-exceeded.

/// A file is larger than `limits.maxFileSize`.
pub(crate) fn file_too_large(relative: &str, limit: u64) -> String {
    format!("`{relative}` is larger than {}, the most carnet reads", bytes(limit))
}

/// Help naming the setting that raises a limit.
pub(crate) fn raise_limit(key: &str) -> String {
    format!("raise `limits.{key}` in `carnet.config.json` if the content is trusted")
}

/// The bytes read in all exceed `limits.maxTotalSize`.
pub(crate) fn total_too_large(relative: &str, limit: u64) -> String {
    format!(
        "reading `{relative}` goes over {} read in all, the most carnet reads",
        bytes(limit)
    )
}

/// The directory holds more files than `limits.maxFiles`.
pub(crate) fn too_many_files(root: &Path, limit: usize) -> String {
    format!(
        "`{}` holds more than {limit} files; the rest are not read",
        root.display()
    )
}

/// The frontmatter nests deeper than `limits.maxYamlDepth`.
pub(crate) fn yaml_too_deep(limit: usize) -> String {
    format!("YAML nests deeper than {limit} levels")
}

/// YAML aliases copy more than `limits.maxYamlAliasExpansion`.
pub(crate) fn yaml_alias_expansion(limit: usize) -> String {
    format!("YAML aliases expand to more than {limit} values")
}

/// Label on the alias that went over the budget.
pub(crate) const THIS_ALIAS: &str = "this alias goes over the limit";
/// Label on the collection that went too deep.
pub(crate) const TOO_DEEP: &str = "too deep";

/// "16 MiB", "1000 bytes".
pub(crate) fn bytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MiB", n / (1024 * 1024))
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// Why a read stopped: the file is larger than the limit.
pub(crate) fn larger_than(limit: u64) -> String {
    format!("it is larger than {}", bytes(limit))
}

/// Why a read stopped: the bytes read in all went over the limit.
pub(crate) fn over_total(limit: u64) -> String {
    format!("more than {} read in all", bytes(limit))
}

// E0030 special-file.

/// A file is not a regular file.
pub(crate) fn not_a_regular_file(kind: &str) -> String {
    format!("it is {kind}, not a regular file")
}

/// A content or skill file is not a regular file.
pub(crate) fn special_file(relative: &str, kind: &str) -> String {
    format!("`{relative}` is {kind}, not a regular file")
}

/// Note on a special file.
pub(crate) const SPECIAL_FILES_NOT_READ: &str =
    "carnet reads regular files only: a FIFO would block the build, a device would never end";

/// File kinds.
pub(crate) const A_FIFO: &str = "a FIFO";
/// File kinds.
pub(crate) const A_SOCKET: &str = "a socket";
/// File kinds.
pub(crate) const A_CHARACTER_DEVICE: &str = "a character device";
/// File kinds.
pub(crate) const A_BLOCK_DEVICE: &str = "a block device";
/// File kinds.
pub(crate) const A_DIRECTORY: &str = "a directory";
/// File kinds.
pub(crate) const A_SPECIAL_FILE: &str = "a special file";

// E0031 unreadable-directory.

/// A folder cannot be listed.
pub(crate) fn unreadable_directory(relative: &str, error: &impl Display) -> String {
    format!("cannot read directory `{relative}`: {error}")
}

/// A content folder is not a directory.
pub(crate) fn not_a_directory(relative: &str) -> String {
    format!("`{relative}` is not a directory")
}

/// Note on an unreadable folder.
pub(crate) const CONTENT_MAY_BE_MISSING: &str = "its agents, skills or toolsets are missing from the check";

// E0032 control-character.

/// A name holds a control character.
pub(crate) fn control_character_in_name(kind: &str, name: &str) -> String {
    format!("{kind} name `{}` holds a control character", escape(name))
}

/// Label on a name with a control character.
pub(crate) const NAMES_ARE_PRINTABLE: &str = "names are printed to terminals and sent to models";

/// `s` with control characters escaped (`\u{1b}`), for messages.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_control(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// C0 and C1 control characters and DEL, plus the bidirectional overrides and isolates
/// that reorder what a terminal shows (Trojan Source).
pub(crate) fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

// E0033 single-file-skill.

/// `skills/foo.md` with a skill frontmatter.
pub(crate) fn single_file_skill(relative: &str) -> String {
    format!("skill `{relative}` is a single file")
}

/// Label on a single-file skill.
pub(crate) const SKILLS_ARE_FOLDERS: &str = "Agent Skills are folders holding a `SKILL.md`";

/// Help converting a single-file skill.
pub(crate) fn move_to_folder(from: &str, to: &str) -> String {
    format!(
        "move it: `mkdir -p {} && git mv {from} {to}`",
        to.trim_end_matches("/SKILL.md")
    )
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

// E0042 unopened-frontmatter.

/// `key: value` lines closed by `---` but never opened.
pub(crate) const UNOPENED_FRONTMATTER: &str = "frontmatter has no opening `---`";
/// Label on the frontmatter's first line.
pub(crate) const FRONTMATTER_STARTS_HERE: &str = "the frontmatter starts here";

/// Help for an unopened frontmatter: `first_line` is the frontmatter's first line.
pub(crate) fn add_opening_line(first_line: &str) -> String {
    let key = first_line.split(':').next().unwrap_or(first_line);
    format!("add a line `---` above `{key}: ...`")
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

// W0003 skill-name-style.

/// A skill name breaks the Agent Skills rules.
pub(crate) fn skill_name_style(skill: &str) -> String {
    format!("skill name `{skill}` does not follow the Agent Skills rules")
}

/// Label on a skill name that is too long.
pub(crate) const NAME_TOO_LONG: &str = "longer than 64 characters";
/// Label on a skill name with other characters.
pub(crate) const NAME_CHARACTERS: &str = "use lowercase letters, digits and single hyphens";
/// Note on a skill name breaking the Agent Skills rules.
pub(crate) const OTHER_TOOLS_MAY_REFUSE: &str = "other Agent Skills tools may refuse this skill; carnet accepts it";

// W0004 long-description.

/// A skill's description is too long.
pub(crate) fn long_description(skill: &str, chars: usize) -> String {
    format!("description of skill `{skill}` is {chars} characters long")
}

/// W0015 long-compatibility.
pub(crate) fn long_compatibility(skill: &str, chars: usize) -> String {
    format!("`compatibility` of skill `{skill}` is {chars} characters long")
}

/// Label on a long `compatibility`.
pub(crate) const AT_MOST_500: &str = "Agent Skills allows at most 500";
/// Note on a long `compatibility`.
pub(crate) const COMPATIBILITY_IS_SHORT: &str =
    "it names what the skill needs (a product, system packages, network access) in a sentence or two";

/// Label on a long description.
pub(crate) const AT_MOST_1024: &str = "Agent Skills allows at most 1024";
/// Note on a long description.
pub(crate) const KEEP_DESCRIPTION_SHORT: &str = "the description is in every prompt's catalog: keep it short";

// W0005 name-folder-mismatch.

/// A skill's name differs from its folder's.
pub(crate) fn name_folder_mismatch(skill: &str, folder: &str) -> String {
    format!("skill `{skill}` lives in folder `{folder}`")
}

/// Label naming the folder Agent Skills expects.
pub(crate) fn folder_should_be_named(skill: &str) -> String {
    format!("Agent Skills expects the folder to be named `{skill}`")
}

// W0006 large-file.

/// A skill file is very large.
pub(crate) fn large_file(path: &str, skill: &str, mebibytes: usize) -> String {
    format!("file `{path}` of skill `{skill}` is {mebibytes} MiB")
}

/// Note on a large skill file.
pub(crate) const FILES_ARE_EMBEDDED: &str = "skill files are embedded in the binary and the manifest";

/// A SKILL.md is very large.
pub(crate) fn large_skill_md(skill: &str, mebibytes: usize) -> String {
    format!("SKILL.md of skill `{skill}` is {mebibytes} MiB")
}

/// Note on a large SKILL.md.
pub(crate) const BODY_IS_SENT: &str = "the whole body is sent to the model when the skill loads";

// W0007 unclosed-frontmatter.

/// The frontmatter has no closing `---`.
pub(crate) const UNCLOSED_FRONTMATTER: &str = "frontmatter is never closed";
/// Label on the opening `---`.
pub(crate) const OPENED_HERE: &str = "opened here";
/// Help for an unclosed frontmatter.
pub(crate) const CLOSE_FRONTMATTER: &str =
    "add a `---` line after the frontmatter; the whole file is read as frontmatter and the body is empty";

// W0008 duplicate-reference.

/// An agent lists a skill twice.
pub(crate) fn duplicate_reference(agent: &str, skill: &str) -> String {
    format!("agent `{agent}` lists skill `{skill}` twice")
}

/// Help for a skill listed twice.
pub(crate) const INITIAL_SKILL_NOT_IN_SKILLS: &str = "an initial skill needs no entry in `skills`";

// W0009 ident-collision.

/// Two names map to one Rust identifier.
pub(crate) fn ident_collision(kind: &str, first: &str, second: &str, ident: &str) -> String {
    format!("{kind}s `{first}` and `{second}` both become `{ident}` in the generated code")
}

/// Points at the other name.
pub(crate) const THE_OTHER_ONE: &str = "the other one";
/// Note on an identifier collision.
pub(crate) const NO_TYPED_ID: &str = "neither gets a typed id; use the names as strings, or rename one";

// W0010 no-agents.

/// The directory holds no agent.
pub(crate) fn no_agents(root: &Path) -> String {
    format!("no agent in `{}`", root.display())
}

/// Help for a directory without agents.
pub(crate) const ADD_AN_AGENT: &str =
    "add `agents/<name>/AGENT.md` with `name`, `description` and the skills it may load";

// W0011 unknown-config-key.

/// `carnet.config.json` has an unknown key.
pub(crate) fn unknown_config_key(key: &str) -> String {
    format!("unknown key `{key}` in `carnet.config.json`")
}

/// Label on an unknown configuration key.
pub(crate) const IGNORED: &str = "ignored";

/// Note listing the known keys.
pub(crate) fn known_keys(keys: &[&str]) -> String {
    format!(
        "known keys: {}",
        keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
    )
}

// W0012 unmatched-pattern.

/// An `include` or `exclude` pattern matches no file.
pub(crate) fn unmatched_pattern(key: &str, pattern: &str) -> String {
    format!("`{key}` pattern `{pattern}` matches no file")
}

/// Note on patterns.
pub(crate) const PATTERNS_ARE_RELATIVE: &str =
    "patterns are relative to the carnet directory: `agents/**`, `skills/pdf`, `toolsets/*/TOOLSET.md`";

// W0013 whole-environment.

/// `envPrefix` holds `""`.
pub(crate) const EMPTY_ENV_PREFIX: &str =
    "`envPrefix` holds the empty prefix: every environment variable can reach the prompts";

/// Label on the empty prefix.
pub(crate) const MATCHES_EVERY_VARIABLE: &str = "matches every variable, secrets included";

/// Help for the empty prefix.
pub(crate) const NAME_A_PREFIX: &str = "name a prefix, such as `CARNET_` or `PUBLIC_`";

// W0014 control-character-in-text.

/// A description holds a control character.
pub(crate) fn control_character_in_text(kind: &str, name: &str) -> String {
    format!("description of {kind} `{}` holds a control character", escape(name))
}

/// Label on the description.
pub(crate) const TERMINALS_INTERPRET: &str = "terminals interpret control characters; carnet prints them escaped";

// E0034 skill-name-not-uri-safe.

/// A skill name that a `skill://` URI would have to percent-encode.
pub(crate) fn skill_name_not_uri_safe(name: &str) -> String {
    format!("skill name `{name}` cannot be a resource URI segment as written")
}

/// Label on such a name.
pub(crate) const URI_SAFE_CHARACTERS: &str =
    "only `A-Z`, `a-z`, `0-9`, `-`, `.`, `_` and `~` are allowed, and not `.` or `..` alone";

/// Why the name matters.
pub(crate) const SERVED_AS_SKILL_URI: &str =
    "the MCP server serves the skill at `skill://<name>/SKILL.md`, and clients compare the name with that segment";

// E0035 resource-uri-collision.

/// Two resources with one URI.
pub(crate) fn resource_uri_collision(uri: &str) -> String {
    format!("two resources of the MCP server would both be `{uri}`")
}

/// Label on the file that collides with its skill's instructions.
pub(crate) const COLLIDES_WITH_SKILL_MD: &str = "this file has the URI of the skill's own instructions";

/// Label on the second of two colliding resources.
pub(crate) const SAME_URI_HERE: &str = "this resource has the same URI";

/// Help for a file listed as `SKILL.md`.
pub(crate) const SKILL_MD_IS_SERVED: &str = "the skill's `SKILL.md` is always served: remove it from `files`";

// Remote toolsets (`mcp:` in TOOLSET.md) and their pins.

pub(crate) const MCP_BLOCK_FORM: &str =
    "write `mcp: {command: node, args: [server.js]}` (stdio) or `mcp: {url: https://host/mcp}` (streamable HTTP)";

pub(crate) const MCP_KEYS: &str = "`mcp` takes `command`, `args` and `env` (stdio), or `url` and `headers` (HTTP)";

pub(crate) const QUOTE_MCP_VALUE: &str = "quote it: the server receives text";

pub(crate) const MCP_BOTH_TRANSPORTS: &str = "`mcp` names both a `command` and a `url`";

pub(crate) const MCP_NO_TRANSPORT: &str = "`mcp` names neither a `command` nor a `url`";

pub(crate) const MCP_URL_LABEL: &str = "expected an `http://` or `https://` URL";

pub(crate) const MCP_SERVER_HERE: &str = "its server is declared here";

pub(crate) const NOT_IN_THE_PIN: &str = "not a tool of the pinned server";

pub(crate) fn mcp_url_scheme(url: &str) -> String {
    format!("`mcp.url` `{url}` is not an HTTP URL")
}

pub(crate) fn unknown_mcp_key(key: &str) -> String {
    format!("unknown key `{key}` in `mcp`")
}

pub(crate) fn missing_pin(toolset: &str) -> String {
    format!("remote toolset `{toolset}` has no pin")
}

pub(crate) fn run_mcp_pin(toolset: &str, folder: &str) -> String {
    format!(
        "run `carnet mcp pin {toolset}`: it starts the server, lists its tools and writes `{folder}/mcp.lock.json` (commit it)"
    )
}

pub(crate) fn pin_not_json(error: &str) -> String {
    format!("the pin is not valid JSON: {error}")
}

pub(crate) fn pin_shape(problem: &str) -> String {
    format!("the pin is not one `carnet mcp pin` writes: {problem}")
}

pub(crate) fn pin_digest_mismatch(toolset: &str) -> String {
    format!("the pin of `{toolset}` does not match its digest (edited by hand?)")
}

pub(crate) fn unknown_remote_tool(tool: &str, toolset: &str) -> String {
    format!("toolset `{toolset}` offers `{tool}`, which its server does not have")
}

pub(crate) fn pinned_tools(names: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut list: Vec<String> = names.iter().take(SHOWN).map(|n| format!("`{n}`")).collect();
    if names.len() > SHOWN {
        list.push(format!("and {} more", names.len() - SHOWN));
    }
    format!("the pinned server has {}", list.join(", "))
}

pub(crate) const NOT_A_PINNED_SKILL: &str = "not a skill of the pinned server";

pub(crate) fn unknown_remote_skill(skill: &str, toolset: &str) -> String {
    format!("toolset `{toolset}` offers skill `{skill}`, which its server does not have")
}

pub(crate) fn unusable_remote_skill(skill: &str, why: &str) -> String {
    format!("remote skill `{skill}` cannot be offered: {why}")
}

pub(crate) fn remote_initial_skill(skill: &str) -> String {
    format!("remote skill `{skill}` cannot be an initial skill")
}

pub(crate) const REMOTE_SKILL_READ_ON_LOAD: &str =
    "its instructions are read from its server when it is loaded; list it in `skills` instead";

pub(crate) const NOT_OFFERABLE: &str = "the server lists it, but no model could call it";

pub(crate) fn unusable_remote_tool(tool: &str, why: &str) -> String {
    format!("remote tool `{tool}` cannot be offered: {why}")
}
