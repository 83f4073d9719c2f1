//! Texts of the diagnostics on what names and texts hold: control characters (and how
//! messages escape them), the Agent Skills naming style, description lengths, names that do
//! not match their folder, collide as identifiers or are not safe in a URI.

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

// W0009 ident-collision.

/// Two names map to one Rust identifier.
pub(crate) fn ident_collision(kind: &str, first: &str, second: &str, ident: &str) -> String {
    format!("{kind}s `{first}` and `{second}` both become `{ident}` in the generated code")
}

/// Points at the other name.
pub(crate) const THE_OTHER_ONE: &str = "the other one";
/// Note on an identifier collision.
pub(crate) const NO_TYPED_ID: &str = "neither gets a typed id; use the names as strings, or rename one";

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
