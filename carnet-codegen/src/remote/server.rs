//! The `mcp:` block of a `TOOLSET.md`: how to reach the server, checked.

use serde_json::{Map, Value};

use super::McpDef;
use crate::diagnostic::{Builder, Code, Diagnostics, did_you_mean};
use crate::frontmatter::{Node, Value as Yaml};
use crate::messages;
use crate::source::{FileId, Span};

const STDIO_KEYS: [&str; 3] = ["command", "args", "env"];
const HTTP_KEYS: [&str; 2] = ["url", "headers"];

/// Checks an `mcp:` block: a mapping with `command` (and `args`, `env`) or `url` (and
/// `headers`), strings everywhere. Every problem is reported; `None` when there was one.
pub(crate) fn parse_server(key: &Node, value: &Node, file: FileId, diags: &mut Diagnostics) -> Option<McpDef> {
    let span = |node: &Node| Span::new(file, node.start, node.end);
    let key_span = span(key);
    let Yaml::Map(entries) = &value.value else {
        diags.push(
            Builder::new(
                Code::InvalidMcpServer,
                messages::wrong_type("mcp", messages::A_MAPPING, value.value.kind()),
            )
            .at(span(value))
            .help(messages::MCP_BLOCK_FORM),
        );
        return None;
    };
    let errors = diags.error_count();
    let mut server = Map::new();
    for (k, v) in entries {
        let name = match &k.value {
            Yaml::String(s) => s.as_str(),
            _ => "",
        };
        match name {
            "command" | "url" => match &v.value {
                Yaml::String(s) if !s.trim().is_empty() => {
                    if name == "url" && !is_http_url(s) {
                        diags.push(
                            Builder::new(Code::InvalidMcpServer, messages::mcp_url_scheme(s))
                                .at(span(v))
                                .label(messages::MCP_URL_LABEL),
                        );
                    }
                    server.insert(name.into(), Value::String(s.clone()));
                }
                other => {
                    diags.push(
                        Builder::new(
                            Code::InvalidMcpServer,
                            messages::wrong_type(&format!("mcp.{name}"), "a non-empty string", other.kind()),
                        )
                        .at(span(v).max_with(span(k))),
                    );
                }
            },
            "args" => match &v.value {
                Yaml::List(items) => {
                    let mut args = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        match &item.value {
                            Yaml::String(s) => args.push(Value::String(s.clone())),
                            other => diags.push(
                                Builder::new(
                                    Code::InvalidMcpServer,
                                    messages::wrong_type(
                                        &messages::item("mcp.args", i),
                                        messages::A_STRING,
                                        other.kind(),
                                    ),
                                )
                                .at(span(item))
                                .help(messages::QUOTE_MCP_VALUE),
                            ),
                        }
                    }
                    server.insert("args".into(), Value::Array(args));
                }
                Yaml::Null => {}
                other => diags.push(
                    Builder::new(
                        Code::InvalidMcpServer,
                        messages::wrong_type("mcp.args", messages::A_LIST, other.kind()),
                    )
                    .at(span(v)),
                ),
            },
            "env" | "headers" => match &v.value {
                Yaml::Map(pairs) => {
                    let mut map = Map::new();
                    for (pk, pv) in pairs {
                        let pname = match &pk.value {
                            Yaml::String(s) if !s.is_empty() => s.clone(),
                            _ => {
                                diags.push(
                                    Builder::new(
                                        Code::InvalidMcpServer,
                                        messages::wrong_type(
                                            &format!("a key of mcp.{name}"),
                                            messages::A_STRING,
                                            pk.value.kind(),
                                        ),
                                    )
                                    .at(span(pk)),
                                );
                                continue;
                            }
                        };
                        match &pv.value {
                            Yaml::String(s) => {
                                map.insert(pname, Value::String(s.clone()));
                            }
                            other => diags.push(
                                Builder::new(
                                    Code::InvalidMcpServer,
                                    messages::wrong_type(
                                        &format!("mcp.{name}.{pname}"),
                                        messages::A_STRING,
                                        other.kind(),
                                    ),
                                )
                                .at(span(pv))
                                .help(messages::QUOTE_MCP_VALUE),
                            ),
                        }
                    }
                    server.insert(name.into(), Value::Object(map));
                }
                Yaml::Null => {}
                other => diags.push(
                    Builder::new(
                        Code::InvalidMcpServer,
                        messages::wrong_type(&format!("mcp.{name}"), messages::A_MAPPING, other.kind()),
                    )
                    .at(span(v)),
                ),
            },
            _ => {
                let known = STDIO_KEYS.iter().chain(&HTTP_KEYS).copied();
                diags.push(
                    Builder::new(Code::InvalidMcpServer, messages::unknown_mcp_key(name))
                        .at(span(k))
                        .help_opt(did_you_mean(name, known).map(messages::did_you_mean))
                        .note(messages::MCP_KEYS),
                );
            }
        }
    }
    let stdio = STDIO_KEYS.iter().any(|k| server.contains_key(*k));
    let http = HTTP_KEYS.iter().any(|k| server.contains_key(*k));
    if stdio && http {
        diags.push(
            Builder::new(Code::InvalidMcpServer, messages::MCP_BOTH_TRANSPORTS)
                .at(key_span)
                .help(messages::MCP_BLOCK_FORM),
        );
    } else if !server.contains_key("command") && !server.contains_key("url") {
        diags.push(
            Builder::new(Code::InvalidMcpServer, messages::MCP_NO_TRANSPORT)
                .at(key_span)
                .help(messages::MCP_BLOCK_FORM),
        );
    }
    if diags.error_count() > errors {
        return None;
    }
    Some(McpDef {
        server: Value::Object(server),
        span: key_span,
        pin: None,
        skills: Vec::new(),
        tools_listed: false,
    })
}

fn is_http_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    // `${VAR}` may stand for the whole URL; it is checked when the server starts.
    lower.starts_with("http://") || lower.starts_with("https://") || s.starts_with("${")
}
