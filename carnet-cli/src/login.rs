//! `carnet mcp login TOOLSET`: signs a person in to the server of a remote toolset that
//! requires OAuth (the browser flow, a loopback redirect), and `carnet mcp logout TOOLSET`.
//! The tokens go to the token store `--store` or `CARNET_TOKEN_STORE` names: the file
//! (`$CARNET_OAUTH_DIR/tokens.json`, else `~/.config/carnet/oauth/tokens.json`, the default)
//! or the OS keyring, where `carnet mcp pin`, `carnet serve-mcp` and programs built with
//! `remote-oauth` find them (given the same `CARNET_TOKEN_STORE`).

use std::sync::Arc;
use std::time::Duration;

use carnet_codegen::{RemoteProtocol, RemoteToolset, Report};
use carnet_runtime::RemoteOptions;
use carnet_runtime::remote::Server;
use carnet_runtime::remote::oauth::{Client, Loopback, OAuth, ServerSession, StoreKind, TokenStore};

use crate::{Failure, printable};

/// What `carnet mcp login` was asked.
pub(crate) struct Login<'a> {
    pub(crate) toolset: &'a str,
    pub(crate) timeout: Duration,
    pub(crate) port: u16,
    pub(crate) client_id: Option<&'a str>,
    pub(crate) scopes: &'a [String],
    /// `--store`: `file` or `keyring` (default: `CARNET_TOKEN_STORE`, else `file`).
    pub(crate) store: Option<&'a str>,
}

/// The remote toolset `name` over HTTP, its server description and its URL (`${VAR}`s
/// resolved: the token store's key).
fn http_toolset(report: &Report, name: &str) -> Result<(Server, String), Failure> {
    let remote: Vec<RemoteToolset> = report
        .remote_toolsets()
        .into_iter()
        .filter(|t| t.protocol == RemoteProtocol::Mcp)
        .collect();
    let toolset = remote
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| crate::unknown("remote toolset", name, remote.iter().map(|t| &t.name)))?;
    let server =
        Server::from_json(&toolset.server).map_err(|e| Failure::content(format!("error: toolset `{name}`: {e}")))?;
    match server.resolve() {
        Ok(Server::Http { url, .. }) => Ok((server, url)),
        Ok(Server::Stdio { .. }) => Err(Failure::content(format!(
            "error: toolset `{name}` starts its server as a child process (stdio): there is nothing to sign in to"
        ))),
        Err(e) => Err(Failure::content(format!("error: toolset `{name}`: {e}"))),
    }
}

/// The store `--store` names, else `CARNET_TOKEN_STORE`; and a note when the two differ
/// (the other commands read only the variable).
fn store(flag: Option<&str>) -> Result<(Arc<dyn TokenStore>, Option<String>), Failure> {
    let error = |e: String| Failure::content(format!("error: {e}"));
    let configured = StoreKind::from_env();
    let kind = match flag {
        Some(name) => name.parse::<StoreKind>().map_err(|e| error(format!("--store: {e}")))?,
        None => configured.clone().map_err(error)?,
    };
    let note = (configured != Ok(kind)).then(|| {
        let name = if kind == StoreKind::Keyring { "keyring" } else { "file" };
        format!(
            "note: the other carnet commands and programs look for it there with {}={name}",
            StoreKind::ENV
        )
    });
    Ok((kind.open().map_err(error)?, note))
}

/// `carnet mcp login`: signs in (again) and lists the server's tools with the new token.
pub(crate) fn login(report: &Report, request: &Login<'_>) -> Result<(), Failure> {
    let (server, url) = http_toolset(report, request.toolset)?;
    let (store, note) = store(request.store)?;
    // A new sign-in replaces what was stored.
    store
        .save(&url, None)
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    let authorizer = Loopback::bind(request.port, request.timeout, |url| {
        eprintln!("Open this URL in a browser to sign in (carnet waits for the redirect):\n\n  {url}\n");
    })
    .map_err(|e| Failure::content(format!("error: cannot listen on 127.0.0.1:{}: {e}", request.port)))?;
    let mut oauth = OAuth::new(Arc::clone(&store))
        .authorizer(Arc::new(authorizer))
        .scopes(request.scopes.iter().cloned());
    if let Some(id) = request.client_id {
        let secret = std::env::var("CARNET_OAUTH_CLIENT_SECRET")
            .ok()
            .filter(|s| !s.is_empty());
        oauth = oauth.preregistered(request.toolset, Client::new(id, secret));
    }
    let options = RemoteOptions::default()
        .connect_timeout(request.timeout + Duration::from_secs(30))
        .oauth(oauth);
    let session = ServerSession::new(request.toolset, server, options);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let tools = runtime.block_on(session.tools()).map_err(|e| {
        Failure::content(format!(
            "error: signing in to `{}` failed: {}",
            request.toolset,
            printable(&e)
        ))
    })?;
    outln!(
        "signed in: `{}` ({url}): {} tools; the token is in {}",
        request.toolset,
        tools.len(),
        store.location()
    );
    if let Some(note) = note {
        outln!("{note}");
    }
    Ok(())
}

/// `carnet mcp logout`: forgets the tokens of the toolset's server.
pub(crate) fn logout(report: &Report, toolset: &str, flag: Option<&str>) -> Result<(), Failure> {
    let (_, url) = http_toolset(report, toolset)?;
    let (store, _) = store(flag)?;
    let had = store
        .load(&url)
        .map_err(|e| Failure::content(format!("error: {e}")))?
        .is_some();
    store
        .save(&url, None)
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    if had {
        outln!(
            "signed out: `{toolset}` ({url}): its tokens were removed from {}",
            store.location()
        );
    } else {
        outln!("`{toolset}` ({url}) had no stored tokens in {}", store.location());
    }
    Ok(())
}
