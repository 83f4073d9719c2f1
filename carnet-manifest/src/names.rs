//! Tool names: meta-tool names and the provider-safe aliases of canonical names.
//!
//! Canonical tool names come from the content and may contain `.` (`file.read`). Every
//! provider accepts names matching `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (`OpenAI` allows a leading
//! digit, Gemini does not), so each name gets an alias in that set and calls map back.

/// Names of carnet's meta-tools, camelCase (the default naming), in the order of the runtime's `MetaTool::ALL`.
pub const META_TOOLS: [&str; 10] = [
    "listAvailableSkills",
    "loadSkill",
    "listSkillToolsets",
    "loadToolset",
    "loadTool",
    "loadSkillFile",
    "listTools",
    "describeTool",
    "searchTools",
    "callTool",
];

/// Names of carnet's meta-tools, `snake_case` (the snake naming option).
pub const META_TOOLS_SNAKE: [&str; 10] = [
    "list_available_skills",
    "load_skill",
    "list_skill_toolsets",
    "load_toolset",
    "load_tool",
    "load_skill_file",
    "list_tools",
    "describe_tool",
    "search_tools",
    "call_tool",
];

/// The longest alias providers accept.
pub const MAX_ALIAS_LEN: usize = 64;

/// Whether `name` is one of the meta-tools' names, in either naming.
#[must_use]
pub fn is_meta_tool(name: &str) -> bool {
    META_TOOLS.contains(&name) || META_TOOLS_SNAKE.contains(&name)
}

/// Why a canonical name has no provider-safe alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AliasError {
    /// The name is empty.
    Empty,
    /// The name holds a character that is not ASCII.
    NotAscii(char),
    /// The name holds an ASCII character that no provider accepts and that carnet does not
    /// alias (everything but letters, digits, `_`, `-` and `.`).
    InvalidCharacter(char),
    /// The alias would be longer than [`MAX_ALIAS_LEN`].
    TooLong(usize),
}

impl std::fmt::Display for AliasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("the name is empty"),
            Self::NotAscii(inner) => write!(f, "`{inner}` is not an ASCII character"),
            Self::InvalidCharacter(inner) => write!(
                f,
                "`{}` is not allowed in tool names: use letters, digits, `_`, `-` and `.`",
                inner.escape_default()
            ),
            Self::TooLong(inner) => write!(
                f,
                "the name is {inner} characters long after aliasing, more than the 64 providers accept"
            ),
        }
    }
}

impl std::error::Error for AliasError {}

/// The provider-safe alias of a canonical tool name: `.` becomes `_`, and a name that does
/// not start with a letter or `_` gets a leading `_`. Names that are already safe are their
/// own alias. No other character is aliased: `basic search!` would silently become
/// `basic_search_`, a name nobody wrote, so it is an error.
///
/// # Errors
///
/// When the name is empty, holds a non-ASCII character or an ASCII character other than
/// letters, digits, `_`, `-` and `.`, or is longer than 64 characters after aliasing.
///
/// # Examples
///
/// ```
/// use carnet_manifest::names::alias;
///
/// assert_eq!(alias("basicSearch").unwrap(), "basicSearch");
/// assert_eq!(alias("file.read").unwrap(), "file_read");
/// assert_eq!(alias("3d-render").unwrap(), "_3d-render");
/// assert!(alias("recherche-générale").is_err());
/// assert!(alias("basic search!").is_err());
/// ```
pub fn alias(name: &str) -> Result<std::borrow::Cow<'_, str>, AliasError> {
    // Most names are their own alias: one pass over their bytes (a request body aliases
    // every tool it lists).
    let safe_byte = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-';
    if let [first, ..] = name.as_bytes()
        && (first.is_ascii_alphabetic() || *first == b'_')
        && name.len() <= MAX_ALIAS_LEN
        && name.as_bytes().iter().all(safe_byte)
    {
        return Ok(std::borrow::Cow::Borrowed(name));
    }
    let first = name.chars().next().ok_or(AliasError::Empty)?;
    if let Some(c) = name.chars().find(|c| !c.is_ascii()) {
        return Err(AliasError::NotAscii(c));
    }
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if let Some(c) = name.chars().find(|&c| !safe(c) && c != '.') {
        return Err(AliasError::InvalidCharacter(c));
    }
    let needs_prefix = !(first.is_ascii_alphabetic() || first == '_');
    let len = name.len() + usize::from(needs_prefix);
    if len > MAX_ALIAS_LEN {
        return Err(AliasError::TooLong(len));
    }
    if !needs_prefix && name.chars().all(safe) {
        return Ok(std::borrow::Cow::Borrowed(name));
    }
    let mut out = String::with_capacity(len);
    if needs_prefix {
        out.push('_');
    }
    out.extend(name.chars().map(|c| if safe(c) { c } else { '_' }));
    Ok(std::borrow::Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases() {
        assert_eq!(alias("a.b.c").unwrap(), "a_b_c");
        assert_eq!(alias("with space"), Err(AliasError::InvalidCharacter(' ')));
        assert_eq!(alias("basic search!"), Err(AliasError::InvalidCharacter(' ')));
        assert_eq!(alias("a/b"), Err(AliasError::InvalidCharacter('/')));
        assert_eq!(alias("a\u{1b}[31m"), Err(AliasError::InvalidCharacter('\u{1b}')));
        assert_eq!(alias("-x").unwrap(), "_-x");
        assert_eq!(alias(""), Err(AliasError::Empty));
        assert_eq!(alias(&"a".repeat(64)).unwrap().len(), 64);
        assert_eq!(alias(&"a".repeat(65)), Err(AliasError::TooLong(65)));
        assert_eq!(alias(&format!("1{}", "a".repeat(63))), Err(AliasError::TooLong(65)));
        assert_eq!(alias("é"), Err(AliasError::NotAscii('é')));
    }

    #[test]
    fn meta_tools() {
        assert!(is_meta_tool("loadSkill"));
        assert!(is_meta_tool("load_skill_file"));
        assert!(!is_meta_tool("basicSearch"));
    }
}
