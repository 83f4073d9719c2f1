//! Texts of the diagnostics on remote toolsets (`mcp:` in TOOLSET.md) and their pins: the
//! `mcp` block's form, missing or stale pins, and tools or skills the pinned server does not
//! offer or no model could use.

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

pub(crate) const A2A_BLOCK_FORM: &str =
    "write `a2a: {url: https://host/agent}` (where its agent card is served, under `/.well-known/agent-card.json`)";

pub(crate) const A2A_KEYS: &str = "`a2a` takes `url` and `headers`";

pub(crate) const A2A_NO_URL: &str = "`a2a` names no `url`";

pub(crate) const A2A_AGENT_HERE: &str = "its agent is declared here";

pub(crate) const MCP_AND_A2A: &str = "a toolset has an `mcp` server or an `a2a` agent, not both";

pub(crate) fn url_scheme(block: &str, url: &str) -> String {
    format!("`{block}.url` `{url}` is not an HTTP URL")
}

pub(crate) fn unknown_block_key(block: &str, key: &str) -> String {
    format!("unknown key `{key}` in `{block}`")
}

pub(crate) fn missing_pin(toolset: &str) -> String {
    format!("remote toolset `{toolset}` has no pin")
}

/// The help naming the command that writes the pin (`carnet mcp pin`, `carnet a2a pin`).
pub(crate) fn run_pin(protocol: crate::remote::RemoteProtocol, toolset: &str, folder: &str) -> String {
    let what = match protocol {
        crate::remote::RemoteProtocol::Mcp => "it starts the server, lists its tools",
        crate::remote::RemoteProtocol::A2a => "it reads the agent's card",
    };
    format!(
        "run `{} {toolset}`: {what} and writes `{folder}/{}` (commit it)",
        protocol.pin_command(),
        protocol.pin_file()
    )
}

pub(crate) fn pin_not_json(error: &str) -> String {
    format!("the pin is not valid JSON: {error}")
}

pub(crate) fn pin_shape(protocol: crate::remote::RemoteProtocol, problem: &str) -> String {
    format!("the pin is not one `{}` writes: {problem}", protocol.pin_command())
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
