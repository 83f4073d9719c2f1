//! The keys of a remote toolset's `mcp:` and `a2a:` blocks in `TOOLSET.md`, which
//! `remote::server` reads (its key lists are compared with these tables in `tests.rs`).

use super::{REQUIRED, Table, Type, field};

/// `mcp:` in `TOOLSET.md`.
pub static MCP_SERVER: Table = Table {
    title: "mcp block",
    anchor: "mcp-block",
    place: "`mcp:` in `TOOLSET.md`",
    intro: "How to reach the toolset's MCP server: `command` (with `args`, `env`) for a \
            server started over stdio, or `url` (with `headers`) for one reached over \
            Streamable HTTP; one of the two, not both (`E0036`). `${VAR}` and \
            `${VAR:-default}` in `command`, `args`, `url` and the values of `env` and \
            `headers` are read from the environment when the server starts. See \
            [Remote toolsets](../remote-toolsets.md).",
    fields: &[
        field(
            "command",
            Type::String,
            false,
            "none (then `url`)",
            "The program that serves MCP over stdio, started by the runtime (and by \
             `carnet mcp pin`).",
            "command: uvx",
        ),
        field(
            "args",
            Type::Strings,
            false,
            "`[]`",
            "The program's arguments, each a string (quote numbers).",
            "args: [mcp-server-time, --local-timezone, Europe/Paris]",
        ),
        field(
            "env",
            Type::StringMap,
            false,
            "`{}`",
            "Variables set for the program, beside the inherited environment.",
            "env: {API_TOKEN: \"${DESK_TOKEN}\"}",
        ),
        field(
            "url",
            Type::String,
            false,
            "none (then `command`)",
            "The server's Streamable HTTP endpoint: `http://` or `https://`, or a value \
             starting with `${`.",
            "url: https://mcp.example.com/mcp",
        ),
        field(
            "headers",
            Type::StringMap,
            false,
            "`{}`",
            "Headers sent with every request to `url`.",
            "headers: {Authorization: \"Bearer ${MCP_TOKEN}\"}",
        ),
    ],
};

/// `a2a:` in `TOOLSET.md`.
pub static A2A_SERVER: Table = Table {
    title: "a2a block",
    anchor: "a2a-block",
    place: "`a2a:` in `TOOLSET.md`",
    intro: "How to reach the A2A agent the toolset delegates to; another key is an error \
            with a did-you-mean (`E0036`). `${VAR}` is expanded as in the `mcp:` block. See \
            [A2A](../a2a.md).",
    fields: &[
        field(
            "url",
            Type::String,
            true,
            REQUIRED,
            "Where the agent card is served: the card is read from \
             `URL/.well-known/agent-card.json` (or `URL` itself when it ends in `.json`), and \
             calls go to its JSON-RPC interface. `http://` or `https://`, or a value starting \
             with `${`.",
            "url: ${FORECASTER_URL:-http://127.0.0.1:8001}",
        ),
        field(
            "headers",
            Type::StringMap,
            false,
            "`{}`",
            "Headers sent with every request, the card's included.",
            "headers: {Authorization: \"Bearer ${FORECASTER_TOKEN}\"}",
        ),
    ],
};
