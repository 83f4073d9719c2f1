//! Texts of the frontmatter diagnostics: YAML that does not parse, a frontmatter that is
//! missing, unopened, unclosed or not YAML, and fields that are missing, empty or of the
//! wrong type (with the words for what a value is or should be).

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

// E0028 unsupported-frontmatter.

/// The frontmatter names a language other than YAML.
pub(crate) fn unsupported_frontmatter(language: &str) -> String {
    format!("frontmatter in `{language}` is not supported")
}

/// Label on the language.
pub(crate) const ONLY_YAML: &str = "only YAML frontmatter is supported";
/// Help for a non-YAML frontmatter.
pub(crate) const WRITE_YAML: &str = "remove the language after `---` and write the frontmatter in YAML";

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

// W0007 unclosed-frontmatter.

/// The frontmatter has no closing `---`.
pub(crate) const UNCLOSED_FRONTMATTER: &str = "frontmatter is never closed";
/// Label on the opening `---`.
pub(crate) const OPENED_HERE: &str = "opened here";
/// Help for an unclosed frontmatter.
pub(crate) const CLOSE_FRONTMATTER: &str =
    "add a `---` line after the frontmatter; the whole file is read as frontmatter and the body is empty";
