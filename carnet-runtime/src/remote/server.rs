//! How to reach a remote toolset's server: the `mcp:` block of its `TOOLSET.md`, with
//! `${VAR}` references read from the environment only when the server starts.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// How to reach an MCP server: a command to start (stdio) or a URL (streamable HTTP).
///
/// Values keep their `${VAR}` references as written (`${VAR:-default}` gives a default);
/// [`Server::resolve`] reads them from the environment, which happens only when the server
/// starts. Neither `Debug` nor any error shows a resolved value.
#[derive(Clone, PartialEq, Eq)]
pub enum Server {
    /// A child process speaking MCP over its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the environment it inherits.
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request (`Authorization`, ...).
        headers: BTreeMap<String, String>,
    },
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As written: `${VAR}` references, never their values. Header and env values may be
        // literal secrets, so only their names are shown.
        match self {
            Server::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .finish(),
            Server::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Server::Stdio { command, args, .. } => {
                f.write_str(command)?;
                for arg in args {
                    write!(f, " {arg}")?;
                }
                Ok(())
            }
            Server::Http { url, .. } => f.write_str(url),
        }
    }
}

/// Why a server could not be started or reached.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerError {
    /// The `mcp` JSON is not a server description.
    Invalid(String),
    /// A `${VAR}` the description uses is not set.
    MissingVariable(String),
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Invalid(inner) => write!(f, "invalid MCP server description: {inner}"),
            Self::MissingVariable(inner) => write!(
                f,
                "environment variable `{inner}` is not set (the server's description uses `${{{inner}}}`)"
            ),
        }
    }
}

impl std::error::Error for ServerError {}

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, ServerError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| ServerError::Invalid(format!("`{what}` holds a non-string")))
            })
            .collect(),
        Some(_) => Err(ServerError::Invalid(format!("`{what}` is not a list"))),
    }
}

fn string_map(value: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, ServerError> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|v| (k.clone(), v.to_owned()))
                    .ok_or_else(|| ServerError::Invalid(format!("`{what}.{k}` is not a string")))
            })
            .collect(),
        Some(_) => Err(ServerError::Invalid(format!("`{what}` is not an object"))),
    }
}

impl Server {
    /// Reads a server description: `{"command", "args"?, "env"?}` or `{"url", "headers"?}`
    /// (the `server` of [`crate::Toolset::mcp`]).
    ///
    /// # Errors
    ///
    /// [`ServerError::Invalid`] for anything else.
    pub fn from_json(value: &Value) -> Result<Server, ServerError> {
        let object = value
            .as_object()
            .ok_or_else(|| ServerError::Invalid("not an object".into()))?;
        match (object.get("command"), object.get("url")) {
            (Some(Value::String(command)), None) => Ok(Server::Stdio {
                command: command.clone(),
                args: strings(object.get("args"), "args")?,
                env: string_map(object.get("env"), "env")?,
            }),
            (None, Some(Value::String(url))) => Ok(Server::Http {
                url: url.clone(),
                headers: string_map(object.get("headers"), "headers")?,
            }),
            (Some(_), Some(_)) => Err(ServerError::Invalid("both `command` and `url`".into())),
            _ => Err(ServerError::Invalid("neither a `command` nor a `url` string".into())),
        }
    }

    /// The description with every `${VAR}` replaced by the environment's value.
    ///
    /// # Errors
    ///
    /// [`ServerError::MissingVariable`] for a variable that is not set and has no default.
    pub fn resolve(&self) -> Result<Server, ServerError> {
        self.resolve_with(&|name| std::env::var(name).ok())
    }

    /// [`Server::resolve`] with variables from `lookup`.
    ///
    /// # Errors
    ///
    /// [`ServerError::MissingVariable`] for a variable `lookup` does not know and that has no
    /// default.
    pub fn resolve_with(&self, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Server, ServerError> {
        let one = |s: &String| expand(s, lookup);
        let map = |m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, ServerError> {
            m.iter().map(|(k, v)| Ok((k.clone(), one(v)?))).collect()
        };
        Ok(match self {
            Server::Stdio { command, args, env } => Server::Stdio {
                command: one(command)?,
                args: args.iter().map(one).collect::<Result<_, _>>()?,
                env: map(env)?,
            },
            Server::Http { url, headers } => Server::Http {
                url: one(url)?,
                headers: map(headers)?,
            },
        })
    }
}

/// Replaces `${NAME}` and `${NAME:-default}` in `text`. Anything else (`$NAME`, an unclosed
/// `${`, a name that is not `[A-Za-z_][A-Za-z0-9_]*`) is left as written, and values are
/// not expanded again.
pub(crate) fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ServerError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if valid {
            match (lookup(name), default) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(ServerError::MissingVariable(name.to_owned())),
            }
        } else {
            out.push_str(&rest[start..=start + 2 + end]);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<String> {
        match name {
            "HOME_DIR" => Some("/home/ada".into()),
            "TOKEN" => Some("s3cret ${HOME_DIR}".into()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_once_with_defaults() {
        assert_eq!(expand("${HOME_DIR}/desk", &lookup).unwrap(), "/home/ada/desk");
        assert_eq!(expand("Bearer ${TOKEN}", &lookup).unwrap(), "Bearer s3cret ${HOME_DIR}");
        assert_eq!(expand("${NOPE:-fallback}", &lookup).unwrap(), "fallback");
        assert_eq!(
            expand("$HOME_DIR ${ } ${1X} ${open", &lookup).unwrap(),
            "$HOME_DIR ${ } ${1X} ${open"
        );
        assert_eq!(
            expand("${NOPE}", &lookup),
            Err(ServerError::MissingVariable("NOPE".into()))
        );
    }

    #[test]
    fn debug_never_shows_values() {
        let server = Server::from_json(&serde_json::json!({
            "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer literal-secret"}
        }))
        .unwrap();
        assert!(!format!("{server:?}").contains("literal-secret"));
        assert_eq!(server.to_string(), "https://example.com/mcp");
    }
}
