//! Reading a host's MCP configuration: `mcpServers` (Claude Desktop, Cursor) or `servers`
//! (VS Code), in JSON with comments and trailing commas allowed, each server checked and named.

use std::collections::HashSet;
use std::io::Read as _;
use std::path::Path;

use serde_json::{Map, Value};

/// The largest configuration file read (4 MiB).
pub(super) const MAX_CONFIG_BYTES: u64 = 4 << 20;
/// The longest toolset and skill name (Agent Skills' limit).
pub(super) const MAX_NAME: usize = 64;
/// The longest `env` or `headers` name (YAML reads keys of at most 1024 characters).
pub(super) const MAX_KEY: usize = 256;
/// Why an SSE server is refused.
pub(super) const SSE: &str = "it uses the SSE transport, which carnet does not speak: carnet speaks streamable HTTP; if the \
                   server serves it too (often at `/mcp` rather than `/sse`), set `\"type\": \"http\"` and that `url`";

/// One server of the configuration, ready to write.
#[derive(Debug)]
pub(super) struct Entry {
    /// Its key in the file.
    pub(super) key: String,
    /// The toolset's and the skill's name.
    pub(super) name: String,
    /// The `mcp:` block as JSON: `{"command", "args"?, "env"?}` or `{"url", "headers"?}`.
    pub(super) server: Value,
    /// What was not carried over.
    pub(super) warnings: Vec<String>,
}

/// The configuration's text, at most [`MAX_CONFIG_BYTES`].
pub(super) fn read(file: &Path) -> Result<String, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("error: cannot read `{}`: {e}", file.display()))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!(
            "error: `{}` is larger than 4 MiB: not an MCP configuration",
            file.display()
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("error: `{}` is not UTF-8 text", file.display()))
}

/// Reads a configuration: the servers of `mcpServers` (Claude Desktop, Cursor, ...) and of
/// `servers` (VS Code), in JSON that may have comments and trailing commas (JSONC). `Err`
/// says why it is not one; the second list says why a server cannot be imported.
pub(super) fn parse(text: &str) -> Result<(Vec<Entry>, Vec<String>), String> {
    let root: Value = serde_json::from_str(&strip_jsonc(text.trim_start_matches('\u{feff}')))
        .map_err(|e| format!("it is not JSON ({e})"))?;
    if root.get("mcpServers").is_none() && root.get("servers").is_none() {
        return Err("expected an object with `mcpServers` (Claude Desktop, Cursor) or `servers` (VS Code)".into());
    }
    let (mut entries, mut refused, mut taken) = (Vec::new(), Vec::new(), HashSet::new());
    for key in ["mcpServers", "servers"] {
        let servers = match root.get(key) {
            None => continue,
            Some(Value::Object(servers)) => servers,
            Some(_) => return Err(format!("`{key}` is not an object")),
        };
        for (key, value) in servers {
            match server(value) {
                Ok((server, warnings)) => entries.push(Entry {
                    key: key.clone(),
                    name: unique(&sanitize(key), &mut taken),
                    server,
                    warnings: warnings
                        .iter()
                        .map(|w| format!("warning: server `{key}`: {w}"))
                        .collect(),
                }),
                Err(why) => refused.push(format!("error: server `{key}` cannot be imported: {why}")),
            }
        }
    }
    Ok((entries, refused))
}

/// `text` without JSONC's comments and trailing commas; strings and line breaks are kept, so
/// error positions stay right.
pub(super) fn strip_jsonc(text: &str) -> String {
    let (bytes, mut out, mut i) = (text.as_bytes(), Vec::with_capacity(text.len()), 0);
    while i < bytes.len() {
        let end = match (bytes[i], bytes.get(i + 1)) {
            (b'"', _) => {
                let mut end = i + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                (end + 1).min(bytes.len())
            }
            (b'/', Some(b'/')) => text[i..].find('\n').map_or(bytes.len(), |e| i + e),
            (b'/', Some(b'*')) => text[i + 2..].find("*/").map_or(bytes.len(), |e| i + e + 4),
            (b'}' | b']', _) => {
                if let Some(last) = out.iter().rposition(|b: &u8| !b.is_ascii_whitespace())
                    && out[last] == b','
                {
                    out[last] = b' ';
                }
                i + 1
            }
            _ => i + 1,
        };
        if bytes[i] == b'/' && end > i + 1 {
            out.extend(bytes[i..end].iter().filter(|&&b| b == b'\n'));
        } else {
            out.extend_from_slice(&bytes[i..end]);
        }
        i = end;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The `mcp:` block (as JSON) of one server of the configuration, and warnings about what it
/// does not carry over; `Err` says why the server cannot be imported.
pub(super) fn server(value: &Value) -> Result<(Value, Vec<String>), String> {
    const HTTP: [&str; 3] = ["http", "streamable-http", "streamableHttp"];
    let object = value.as_object().ok_or("it is not a JSON object")?;
    let text = |key: &str| match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(vars(s))),
        Some(_) => Err(format!("`{key}` is not a non-empty string")),
    };
    let kind = match object.get("type") {
        None | Some(Value::Null) => "",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err("`type` is not a string".into()),
    };
    let mut server = Map::new();
    let stdio = match (kind, text("command")?, text("url")?) {
        ("sse", ..) => return Err(SSE.into()),
        (_, Some(_), Some(_)) => return Err("it has both a `command` and a `url`".into()),
        (_, None, None) => return Err("it has neither a `command` (stdio) nor a `url` (streamable HTTP)".into()),
        ("" | "stdio", Some(command), None) => {
            server.insert("command".into(), Value::String(command));
            true
        }
        (kind, None, Some(url)) if kind.is_empty() || HTTP.contains(&kind) => {
            let lower = url.to_ascii_lowercase();
            // As the build checks it: `${VAR}` may stand for the whole URL.
            if !(lower.starts_with("http://") || lower.starts_with("https://") || url.starts_with("${")) {
                return Err(format!("its `url` `{url}` is not an `http://` or `https://` URL"));
            }
            server.insert("url".into(), Value::String(url));
            false
        }
        ("stdio", ..) => return Err("its `type` is `stdio` but it has a `url`, not a `command`".into()),
        (kind, ..) if HTTP.contains(&kind) => return Err(format!("its `type` is `{kind}` but it has no `url`")),
        (other, ..) => {
            return Err(format!(
                "its `type` `{other}` is not one carnet knows (`stdio`, `http`)"
            ));
        }
    };
    if stdio {
        match object.get("args") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                let args: Vec<Value> = items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| Value::String(vars(s)))
                    .collect();
                if !args.is_empty() {
                    server.insert("args".into(), Value::Array(args));
                }
            }
            Some(_) => return Err("`args` is not a list of strings".into()),
        }
    }
    let what = if stdio { "env" } else { "headers" };
    let mut values = Map::new();
    match object.get(what) {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (key, value) in map {
                let value = match value {
                    Value::String(s) => vars(s),
                    Value::Number(_) | Value::Bool(_) => value.to_string(),
                    _ => return Err(format!("`{what}.{key}` is not a string")),
                };
                if key.is_empty() || key.len() > MAX_KEY {
                    return Err(format!("`{what}` has a name that is empty or over {MAX_KEY} bytes"));
                }
                values.insert(key.clone(), Value::String(value));
            }
        }
        Some(_) => return Err(format!("`{what}` is not an object")),
    }
    if !values.is_empty() {
        server.insert(what.into(), Value::Object(values));
    }
    let carried: &[&str] = if stdio {
        &["type", "command", "args", "env"]
    } else {
        &["type", "url", "headers"]
    };
    let dropped: Vec<String> = object
        .keys()
        .filter(|k| !carried.contains(&k.as_str()))
        .map(|k| format!("`{k}`"))
        .collect();
    let mut warnings = Vec::new();
    if !dropped.is_empty() {
        let dropped = dropped.join(", ");
        warnings.push(format!(
            "not carried over: {dropped} (`mcp:` takes `command`, `args`, `env`, or `url`, `headers`)"
        ));
    }
    let server = Value::Object(server);
    if server.to_string().contains("${input:") {
        warnings.push("VS Code's `${input:...}` is written as is and carnet does not resolve it: use `${VAR}`".into());
    }
    Ok((server, warnings))
}

/// `text` with VS Code's and Cursor's `${env:NAME}` written as carnet's `${NAME}`.
pub(super) fn vars(text: &str) -> String {
    text.replace("${env:", "${")
}

/// `key` as a toolset and skill name: lowercase `[a-z0-9-]`, other characters turned into
/// `-`, no leading, trailing or double `-`, at most 64 characters (`server` if none is left).
pub(super) fn sanitize(key: &str) -> String {
    let mut name = String::with_capacity(key.len());
    for c in key.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    match fit(&name, MAX_NAME) {
        "" => "server".to_owned(),
        name => name.to_owned(),
    }
}

/// `name` (ASCII) cut to `max` bytes, without a trailing `-`.
pub(super) fn fit(name: &str, max: usize) -> &str {
    name[..name.len().min(max)].trim_end_matches('-')
}

/// `base`, else `base-2`, `base-3`, ...: the first not in `taken` (which then holds it).
pub(super) fn unique(base: &str, taken: &mut HashSet<String>) -> String {
    let (mut name, mut n) = (base.to_owned(), 2);
    while taken.contains(&name) {
        let suffix = format!("-{n}");
        name = format!("{}{suffix}", fit(base, MAX_NAME - suffix.len()));
        n += 1;
    }
    taken.insert(name.clone());
    name
}
