//! What every provider format shares: provider-safe tool names and their way back
//! ([`Aliases`]), [`ProviderError`], and reading the fields of a provider's tool call.

use serde_json::{Map, Value};

use crate::names::{self, AliasError};
use crate::tool::ToolSpec;

/// Why tools could not be rendered for a provider, or a provider's tool calls not read.
///
/// Errors about a call name it by its id when it has one, else by its place in the
/// response (`tool_calls[1]`), so the caller can answer that call with an error result.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProviderError {
    /// A tool name has no provider-safe alias.
    NoAlias {
        /// The canonical name.
        name: String,
        /// Why it has no alias.
        source: AliasError,
    },
    /// Two tools have the same alias, so a call could not be mapped back.
    AliasCollision {
        /// The tool listed first.
        first: String,
        /// The tool listed second.
        second: String,
        /// The alias they share.
        alias: String,
    },
    /// The same tool name is listed twice.
    DuplicateTool {
        /// The canonical name.
        name: String,
    },
    /// A tool's input schema cannot be expressed in a provider's schema dialect.
    Schema {
        /// The canonical tool name.
        tool: String,
        /// The provider (`Gemini`).
        provider: &'static str,
        /// Where in the schema, as a JSON pointer fragment (`#/properties/tree`).
        path: String,
        /// What cannot be expressed.
        reason: String,
    },
    /// A field the provider always sends is missing (or `null`).
    MissingField {
        /// The call or message, as it appears in the response (`tool_calls[0]`).
        location: String,
        /// The field, as the provider names it (`function.name`).
        field: &'static str,
    },
    /// A field has the wrong JSON type.
    InvalidField {
        /// The call or message, as it appears in the response.
        location: String,
        /// The field, as the provider names it.
        field: &'static str,
        /// What it should be (`a string`).
        expected: &'static str,
    },
    /// A call's arguments, sent as a JSON string, are not valid JSON.
    MalformedArguments {
        /// The provider's call id.
        id: Option<String>,
        /// The canonical tool name.
        name: String,
        /// What the JSON parser reported.
        source: serde_json::Error,
    },
    /// A response (or one of its streamed events) is not what the API documents, or the
    /// stream ended before the response was complete.
    Response {
        /// What is wrong, and where.
        message: String,
    },
    /// A request body could not be written to its destination (an [`std::io::Write`]).
    Write(std::io::Error),
    /// A call's arguments are valid JSON but not an object (every tool takes an object).
    ArgumentsNotObject {
        /// The provider's call id.
        id: Option<String>,
        /// The canonical tool name.
        name: String,
    },
    /// The provider refused to answer the prompt (Gemini's `promptFeedback.blockReason`): a
    /// well-formed response with no answer in it.
    Blocked {
        /// The provider's reason (`SAFETY`, `PROHIBITED_CONTENT`, ...).
        reason: String,
        /// The provider's explanation, when it gives one.
        message: Option<String>,
    },
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoAlias { name, source } => write!(f, "tool `{name}` has no provider-safe alias: {source}"),
            Self::AliasCollision { first, second, alias } => write!(
                f,
                "tools `{first}` and `{second}` both have the provider alias `{alias}`"
            ),
            Self::DuplicateTool { name } => write!(f, "tool `{name}` is listed twice"),
            Self::Schema {
                tool,
                provider,
                path,
                reason,
            } => write!(
                f,
                "the input schema of tool `{tool}` cannot be sent to {provider}: at `{path}`, {reason}"
            ),
            Self::MissingField { location, field } => write!(f, "{location} has no `{field}`"),
            Self::InvalidField {
                location,
                field,
                expected,
            } => write!(f, "`{field}` of {location} is not {expected}"),
            Self::MalformedArguments { id, name, source } => write!(
                f,
                "the arguments of {} are not valid JSON: {source}",
                describe_call(id.as_deref(), name)
            ),
            Self::Response { message } => write!(f, "{message}"),
            Self::Write(inner) => write!(f, "the body could not be written: {inner}"),
            Self::ArgumentsNotObject { id, name } => write!(
                f,
                "the arguments of {} are not a JSON object",
                describe_call(id.as_deref(), name)
            ),
            Self::Blocked { reason, message } => {
                write!(f, "the prompt was blocked (`{reason}`)")?;
                match message {
                    Some(message) => write!(f, ": {message}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for ProviderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::NoAlias { source, .. } => Some(source),
            Self::MalformedArguments { source, .. } => Some(source),
            Self::Write(inner) => Some(inner),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ProviderError {
    fn from(inner: std::io::Error) -> Self {
        Self::Write(inner)
    }
}

pub(super) fn describe_call(id: Option<&str>, name: &str) -> String {
    match id {
        Some(id) => format!("call `{id}` to `{name}`"),
        None => format!("the call to `{name}`"),
    }
}

/// The provider-safe alias of every tool of a list, and the way back.
///
/// Built from the same specs a renderer was given, it maps the names in the provider's
/// calls back to canonical names. Iteration follows the order of the specs.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use carnet_runtime::{ToolKind, ToolSpec};
/// use carnet_runtime::providers::Aliases;
/// # let spec = |name: &str| ToolSpec { name: name.into(), description: String::new(),
/// #     input_schema: Arc::new(serde_json::json!({"type": "object"})), kind: ToolKind::Domain, toolset: None, output_schema: None,
///     title: None, annotations: Default::default() };
///
/// let aliases = Aliases::new(&[spec("file.read"), spec("loadSkill")])?;
/// assert_eq!(aliases.alias("file.read"), Some("file_read"));
/// assert_eq!(aliases.canonical("file_read"), "file.read");
/// assert_eq!(aliases.canonical("loadSkill"), "loadSkill");
/// assert_eq!(aliases.canonical("unknownTool"), "unknownTool");
///
/// assert!(Aliases::new(&[spec("file.read"), spec("file_read")]).is_err());
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases {
    /// Each entry's canonical name, then its alias, one after the other: one allocation for
    /// the list, not four per tool (a list is aliased for every request body).
    text: String,
    /// Where each entry's name starts, its alias starts and its alias ends in `text`, in the
    /// order of the specs.
    entries: Vec<[usize; 3]>,
    /// Each entry's alias hashed, with the entry's index: sorted, so that an alias given
    /// twice is found among neighbours, and an alias by a binary search over numbers.
    by_alias: Vec<(u64, usize)>,
    /// The same for canonical names.
    by_name: Vec<(u64, usize)>,
}

/// FNV-1a: names are short, and the table is rebuilt per request body.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The entry whose key (`key_of` an index) is `key`, in `sorted` (by hash, then key, then
/// index: a binary search, so that names crafted to collide cost a logarithm, not a scan).
fn find<'a>(sorted: &[(u64, usize)], key: &str, key_of: impl Fn(usize) -> &'a str) -> Option<usize> {
    let h = hash(key);
    let at = sorted.partition_point(|&(x, i)| (x, key_of(i)) < (h, key));
    sorted
        .get(at)
        .filter(|&&(x, i)| x == h && key_of(i) == key)
        .map(|&(_, i)| i)
}

/// Sorts `(hash, index)` entries by hash, then by their text (`text_of` an index; read only
/// where two hashes are equal), then by index: the order [`find`] searches. `text_of` is a
/// `dyn` so both orders share one copy of the sort (it is called on equal hashes only).
fn sort_entries<'a>(entries: &mut [(u64, usize)], text_of: &dyn Fn(usize) -> &'a str) {
    entries.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| text_of(a.1).cmp(text_of(b.1)))
            .then(a.1.cmp(&b.1))
    });
}

impl Aliases {
    /// The aliases of `specs`' names.
    ///
    /// # Errors
    ///
    /// [`ProviderError::NoAlias`] when a name has no alias (empty, not ASCII, too long),
    /// [`ProviderError::DuplicateTool`] when a name is listed twice and
    /// [`ProviderError::AliasCollision`] when two names have the same alias; the first of
    /// these in the order of the specs.
    pub fn new(specs: &[ToolSpec]) -> Result<Self, ProviderError> {
        let mut aliases = Aliases {
            text: String::with_capacity(specs.iter().map(|s| 2 * s.name.len()).sum()),
            entries: Vec::with_capacity(specs.len()),
            by_alias: Vec::with_capacity(specs.len()),
            by_name: Vec::with_capacity(specs.len()),
        };
        let mut no_alias = None;
        // Whether every name is its own alias (most lists): then one sort serves both tables.
        let mut all_same = true;
        for spec in specs {
            match names::alias(&spec.name) {
                Ok(alias) => {
                    let start = aliases.text.len();
                    aliases.text.push_str(&spec.name);
                    aliases.text.push_str(&alias);
                    let index = aliases.entries.len();
                    aliases
                        .entries
                        .push([start, start + spec.name.len(), aliases.text.len()]);
                    let name_hash = hash(&spec.name);
                    let same = *alias == *spec.name;
                    all_same &= same;
                    aliases
                        .by_alias
                        .push((if same { name_hash } else { hash(&alias) }, index));
                    aliases.by_name.push((name_hash, index));
                }
                Err(source) => {
                    no_alias = Some(ProviderError::NoAlias {
                        name: spec.name.clone(),
                        source,
                    });
                    break;
                }
            }
        }
        // By hash, then by the text itself (names that hash alike are rare, and a list
        // crafted so costs a sort, not a product), then by index; the texts are read only
        // where the hashes are equal. When every name is its own alias, both orders are one.
        let texts = (aliases.text.as_str(), aliases.entries.as_slice());
        let alias_of = |i: usize| &texts.0[texts.1[i][1]..texts.1[i][2]];
        let name_of = |i: usize| &texts.0[texts.1[i][0]..texts.1[i][1]];
        sort_entries(&mut aliases.by_alias, &alias_of);
        if all_same {
            aliases.by_name.clone_from(&aliases.by_alias);
        } else {
            sort_entries(&mut aliases.by_name, &name_of);
        }
        // An alias given twice is two neighbours, the first of the two its earliest tool: the
        // error is the one a walk in the specs' order meets first (the earliest second).
        let collision = aliases
            .by_alias
            .windows(2)
            .filter(|pair| pair[0].0 == pair[1].0 && alias_of(pair[0].1) == alias_of(pair[1].1))
            .map(|pair| (pair[0].1, pair[1].1))
            .min_by_key(|&(_, second)| second);
        if let Some((first, second)) = collision {
            let alias = aliases.alias_at(second).to_owned();
            let (first, second) = (aliases.name_at(first), aliases.name_at(second));
            return Err(if first == second {
                ProviderError::DuplicateTool {
                    name: second.to_owned(),
                }
            } else {
                ProviderError::AliasCollision {
                    first: first.to_owned(),
                    second: second.to_owned(),
                    alias,
                }
            });
        }
        if let Some(error) = no_alias {
            return Err(error);
        }
        Ok(aliases)
    }

    fn name_at(&self, index: usize) -> &str {
        let [start, end, _] = self.entries[index];
        &self.text[start..end]
    }

    fn alias_at(&self, index: usize) -> &str {
        let [_, start, end] = self.entries[index];
        &self.text[start..end]
    }

    /// The alias of a canonical name of the list.
    #[must_use]
    pub fn alias(&self, canonical: &str) -> Option<&str> {
        let index = find(&self.by_name, canonical, |i| self.name_at(i))?;
        Some(self.alias_at(index))
    }

    /// The canonical name of a name read from a provider: the tool whose alias it is, or
    /// the name itself when it is no alias of the list (a canonical name, or an unknown
    /// tool the session will report).
    #[must_use]
    pub fn canonical<'a>(&'a self, wire_name: &'a str) -> &'a str {
        self.resolve(wire_name).unwrap_or(wire_name)
    }

    /// The canonical name of the tool whose alias is `wire_name`, if any.
    #[must_use]
    pub fn resolve(&self, wire_name: &str) -> Option<&str> {
        let index = find(&self.by_alias, wire_name, |i| self.alias_at(i))?;
        Some(self.name_at(index))
    }

    /// `(canonical, alias)` pairs in the order of the specs.
    #[must_use]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> {
        (0..self.entries.len()).map(|i| (self.name_at(i), self.alias_at(i)))
    }

    /// How many tools the list has.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Each spec with its alias, after checking the aliases of the whole list.
pub(super) fn aliased(specs: &[ToolSpec]) -> Result<impl Iterator<Item = (&ToolSpec, String)>, ProviderError> {
    let aliases = Aliases::new(specs)?;
    let aliases: Vec<String> = aliases.iter().map(|(_, alias)| alias.to_owned()).collect();
    Ok(specs.iter().zip(aliases))
}

/// Reads the string at `key`, called `field` in errors; `null` counts as missing.
pub(super) fn string_field<'a>(
    object: &'a Value,
    key: &str,
    field: &'static str,
    location: impl FnOnce() -> String,
) -> Result<&'a str, ProviderError> {
    match object.get(key) {
        None | Some(Value::Null) => Err(ProviderError::MissingField {
            location: location(),
            field,
        }),
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(ProviderError::InvalidField {
            location: location(),
            field,
            expected: "a string",
        }),
    }
}

/// Checks that decoded arguments are an object.
pub(super) fn object_arguments(arguments: Value, id: Option<&str>, name: &str) -> Result<Value, ProviderError> {
    if arguments.is_object() {
        Ok(arguments)
    } else {
        Err(ProviderError::ArgumentsNotObject {
            id: id.map(str::to_owned),
            name: name.to_owned(),
        })
    }
}

/// Decodes arguments sent as a JSON string (`OpenAI`). An empty string means no arguments
/// (some `OpenAI`-compatible servers send it for tools without parameters) and an object is
/// taken as it is (others send the object itself).
pub(super) fn string_arguments(
    raw: &Value,
    field: &'static str,
    id: Option<&str>,
    name: &str,
    location: impl Fn() -> String,
) -> Result<Value, ProviderError> {
    let arguments = match raw {
        Value::Null => {
            return Err(ProviderError::MissingField {
                location: location(),
                field,
            });
        }
        Value::String(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Value::String(text) => serde_json::from_str(text).map_err(|source| ProviderError::MalformedArguments {
            id: id.map(str::to_owned),
            name: name.to_owned(),
            source,
        })?,
        Value::Object(_) => raw.clone(),
        _ => {
            return Err(ProviderError::InvalidField {
                location: location(),
                field,
                expected: "a JSON string",
            });
        }
    };
    object_arguments(arguments, id, name)
}

/// How a parser treats arguments that are not a JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BadArguments {
    /// Fail the whole parse ([`ProviderError::MalformedArguments`],
    /// [`ProviderError::ArgumentsNotObject`]).
    Fail,
    /// Keep them as they came, as a JSON string, for the chat loop to answer with an error.
    Keep,
}

impl BadArguments {
    /// `parsed`, or with [`BadArguments::Keep`] the arguments as text when they are not an
    /// object.
    pub(super) fn apply(self, parsed: Result<Value, ProviderError>, raw: &Value) -> Result<Value, ProviderError> {
        match parsed {
            Err(ProviderError::MalformedArguments { .. } | ProviderError::ArgumentsNotObject { .. })
                if self == BadArguments::Keep =>
            {
                Ok(Value::String(match raw {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                }))
            }
            other => other,
        }
    }
}

/// The items of the array at `key`, called `field` in errors; a missing or `null` field is
/// an empty list.
pub(super) fn array_field<'a>(
    object: &'a Value,
    key: &str,
    field: &'static str,
    location: impl FnOnce() -> String,
) -> Result<&'a [Value], ProviderError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(ProviderError::InvalidField {
            location: location(),
            field,
            expected: "an array",
        }),
    }
}

/// How a call appears in errors: by id when it has one, else by its place.
pub(super) fn call_location(list: &str, index: usize, id: Option<&str>) -> String {
    match id {
        Some(id) => format!("tool call `{id}` (`{list}[{index}]`)"),
        None => format!("`{list}[{index}]`"),
    }
}

/// The name a provider knows a tool by: its alias among `aliases`, else its own alias (a
/// call in the history to a tool no longer listed), else the name as it is.
pub(super) fn wire_name(aliases: &Aliases, name: &str) -> String {
    if let Some(alias) = aliases.alias(name) {
        return alias.to_owned();
    }
    names::alias(name).map_or_else(|_| name.to_owned(), std::borrow::Cow::into_owned)
}
