//! `carnet mcp pin`: starts each remote toolset's server, lists its tools and writes (or, with
//! `--check`, compares) its pin, `mcp.lock.json` beside the toolset's `TOOLSET.md`; and
//! `carnet a2a pin`, the same for A2A agents: reads each agent's card into `a2a.lock.json`.

use std::time::Duration;

use carnet_codegen::{Code, RemoteProtocol, RemoteToolset, Report};
use carnet_runtime::remote::{Pin, Server};

use crate::{Failure, printable};

/// The largest message read from a server while pinning (a tool list of 50 MB is refused).
const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// `carnet mcp pin` (`carnet a2a pin` for `protocol` A2A): the content's errors other than
/// stale or missing pins are shown first (an `mcp:` or `a2a:` block with an error makes no
/// remote toolset), then the toolsets are pinned.
pub(crate) fn run(
    report: &Report,
    color: bool,
    only: &[String],
    check: bool,
    timeout: Duration,
    protocol: RemoteProtocol,
) -> Result<(), Failure> {
    let remote: Vec<RemoteToolset> = report
        .remote_toolsets()
        .into_iter()
        .filter(|t| t.protocol == protocol)
        .collect();
    let blocking = report.errors().any(|d| {
        !matches!(
            d.code,
            Code::MissingPin | Code::InvalidPin | Code::UnknownRemoteTool | Code::UnknownRemoteSkill
        )
    });
    if blocking {
        eprint!("{}", report.render(color));
        if remote.is_empty() {
            return Err(Failure::content(""));
        }
    }
    pin(&remote, only, check, timeout, protocol)
}

/// Pins the remote toolsets named in `only` (all of them when it is empty).
fn pin(
    remote: &[RemoteToolset],
    only: &[String],
    check: bool,
    timeout: Duration,
    protocol: RemoteProtocol,
) -> Result<(), Failure> {
    for name in only {
        if !remote.iter().any(|t| &t.name == name) {
            return Err(crate::unknown("remote toolset", name, remote.iter().map(|t| &t.name)));
        }
    }
    let chosen: Vec<&RemoteToolset> = remote
        .iter()
        .filter(|t| only.is_empty() || only.contains(&t.name))
        .collect();
    if chosen.is_empty() {
        match protocol {
            RemoteProtocol::A2a => outln!("no remote agents (a TOOLSET.md with an `a2a:` block) to pin"),
            _ => outln!("no remote toolsets (a TOOLSET.md with an `mcp:` block) to pin"),
        }
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let mut failed = 0;
    for toolset in chosen {
        let outcome = runtime.block_on(pin_one(toolset, check, timeout));
        match outcome {
            Ok(line) => outln!("{}", printable(&line)),
            Err(message) => {
                failed += 1;
                eprintln!("{}", printable(message.trim_end()));
            }
        }
    }
    if failed > 0 {
        return Err(Failure::content(if check {
            format!("error: {failed} remote toolset(s) no longer match their pin")
        } else {
            format!("error: {failed} remote toolset(s) could not be pinned")
        }));
    }
    Ok(())
}

async fn pin_one(toolset: &RemoteToolset, check: bool, timeout: Duration) -> Result<String, String> {
    let name = &toolset.name;
    let path = &toolset.pin_path;
    let command = toolset.protocol.pin_command();
    let server = Server::from_json(&toolset.server).map_err(|e| format!("error: toolset `{name}`: {e}"))?;
    let live = match toolset.protocol {
        RemoteProtocol::A2a => carnet_runtime::remote::a2a::fetch(&server, timeout, MAX_MESSAGE_BYTES)
            .await
            .map_err(|e| format!("error: toolset `{name}`: the agent `{server}` could not be pinned: {e}"))?,
        _ => Pin::fetch(&server, timeout, MAX_MESSAGE_BYTES)
            .await
            .map_err(|e| format!("error: toolset `{name}`: the server `{server}` could not be pinned: {e}"))?,
    };
    let old = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("error: cannot read `{}`: {e}", path.display())),
    };
    let tools = live.tool_names().len();
    let bytes = live.to_file();
    if check {
        let Some(old) = old else {
            return Err(format!(
                "error: toolset `{name}` has no pin at `{}`: run `{command} {name}`",
                path.display()
            ));
        };
        // A checkout with CRLF line breaks holds the same pin.
        if old.replace("\r\n", "\n") == bytes {
            return Ok(format!("ok: `{name}` matches its pin ({tools} tools)"));
        }
        let diff = match Pin::parse(&old) {
            Ok(pinned) => pinned.diff(&live),
            Err(e) => format!("  the pin does not parse: {e}\n"),
        };
        let diff = if diff.is_empty() {
            format!("  the pin's bytes differ from what `{command}` writes (edited by hand?)\n")
        } else {
            diff
        };
        return Err(format!(
            "error: toolset `{name}`: the server no longer matches `{}`:\n{diff}help: run `{command} {name}` to accept the server as it is now, then review and commit the pin",
            path.display()
        ));
    }
    if old.as_deref() == Some(bytes.as_str()) {
        return Ok(format!("unchanged: `{name}` ({tools} tools) in `{}`", path.display()));
    }
    let diff = old
        .as_deref()
        .and_then(|text| Pin::parse(text).ok())
        .map(|pinned| pinned.diff(&live))
        .unwrap_or_default();
    std::fs::write(path, &bytes).map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
    let server_info = &live.json()["serverInfo"];
    let mut summary = format!(
        "pinned: `{name}`: {tools} tools of {} {} in `{}`",
        server_info["name"].as_str().unwrap_or("the server"),
        server_info["version"].as_str().unwrap_or(""),
        path.display()
    );
    if !diff.is_empty() {
        summary.push('\n');
        summary.push_str(diff.trim_end());
    }
    Ok(summary)
}
