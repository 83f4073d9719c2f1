//! The `mcp:` block of a `TOOLSET.md`: how to reach the server, checked.

use serde_json::{Map, Value};

use super::{McpDef, RemoteProtocol};
use crate::diagnostic::{Builder, Code, Diagnostics, did_you_mean};
use crate::frontmatter::{Node, Value as Yaml};
use crate::messages;
use crate::source::{FileId, Span};

const STDIO_KEYS: [&str; 3] = ["command", "args", "env"];
const HTTP_KEYS: [&str; 2] = ["url", "headers"];

/// The keys a block of `protocol` takes: `mcp:` either transport's, `a2a:` HTTP's. The
/// reference's tables (`fields::MCP_SERVER`, `fields::A2A_SERVER`) are checked against it.
pub(crate) fn block_keys(protocol: RemoteProtocol) -> Vec<&'static str> {
    match protocol {
        RemoteProtocol::Mcp => STDIO_KEYS.iter().chain(&HTTP_KEYS).copied().collect(),
        RemoteProtocol::A2a => HTTP_KEYS.to_vec(),
    }
}

/// Checks an `mcp:` block: a mapping with `command` (and `args`, `env`) or `url` (and
/// `headers`), strings everywhere; or an `a2a:` block (`protocol`): `url` and `headers`.
/// Every problem is reported; `None` when there was one.
pub(crate) fn parse_server(
    key: &Node,
    value: &Node,
    file: FileId,
    protocol: RemoteProtocol,
    diags: &mut Diagnostics,
) -> Option<McpDef> {
    let span = |node: &Node| Span::new(file, node.start, node.end);
    let block = protocol.block();
    let form = match protocol {
        RemoteProtocol::Mcp => messages::MCP_BLOCK_FORM,
        RemoteProtocol::A2a => messages::A2A_BLOCK_FORM,
    };
    let key_span = span(key);
    let Yaml::Map(entries) = &value.value else {
        diags.push(
            Builder::new(
                Code::InvalidMcpServer,
                messages::wrong_type(block, messages::A_MAPPING, value.value.kind()),
            )
            .at(span(value))
            .help(form),
        );
        return None;
    };
    let errors = diags.error_count();
    let mut server = Map::new();
    let unknown_key = |name: &str, k: &Node| {
        let keys = match protocol {
            RemoteProtocol::Mcp => messages::MCP_KEYS,
            RemoteProtocol::A2a => messages::A2A_KEYS,
        };
        Builder::new(Code::InvalidMcpServer, messages::unknown_block_key(block, name))
            .at(span(k))
            .help_opt(did_you_mean(name, block_keys(protocol)).map(messages::did_you_mean))
            .note(keys)
    };
    for (k, v) in entries {
        let name = match &k.value {
            Yaml::String(s) => s.as_str(),
            _ => "",
        };
        let stdio_key = STDIO_KEYS.contains(&name);
        match name {
            _ if stdio_key && protocol == RemoteProtocol::A2a => diags.push(unknown_key(name, k)),
            "command" | "url" => match &v.value {
                Yaml::String(s) if !s.trim().is_empty() => {
                    if name == "url" && !is_http_url(s) {
                        diags.push(
                            Builder::new(Code::InvalidMcpServer, messages::url_scheme(block, s))
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
                            messages::wrong_type(&format!("{block}.{name}"), "a non-empty string", other.kind()),
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
                                            &format!("a key of {block}.{name}"),
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
                                        &format!("{block}.{name}.{pname}"),
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
                        messages::wrong_type(&format!("{block}.{name}"), messages::A_MAPPING, other.kind()),
                    )
                    .at(span(v)),
                ),
            },
            _ => diags.push(unknown_key(name, k)),
        }
    }
    let stdio = STDIO_KEYS.iter().any(|k| server.contains_key(*k));
    let http = HTTP_KEYS.iter().any(|k| server.contains_key(*k));
    if protocol == RemoteProtocol::A2a {
        if !server.contains_key("url") {
            diags.push(
                Builder::new(Code::InvalidMcpServer, messages::A2A_NO_URL)
                    .at(key_span)
                    .help(form),
            );
        }
    } else if stdio && http {
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
        protocol,
    })
}

fn is_http_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    // `${VAR}` may stand for the whole URL; it is checked when the server starts.
    lower.starts_with("http://") || lower.starts_with("https://") || s.starts_with("${")
}
