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
