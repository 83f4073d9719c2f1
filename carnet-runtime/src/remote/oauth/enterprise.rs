//! Enterprise-managed authorization (SEP-990, "cross-app access"): a program that holds an
//! ID token from the enterprise's identity provider signs in to an MCP server without a
//! browser. The ID token is exchanged at the identity provider for an identity assertion JWT
//! authorization grant (an ID-JAG: RFC 8693 token exchange), which the MCP server's
//! authorization server takes for an access token (the JWT bearer grant, RFC 7523).
//!
//! Both exchanges are rmcp's (`rmcp::transport::auth::enterprise`): it checks the ID-JAG's
//! type, issuer, audience, client, resource and scopes before presenting it, bounds each
//! answer (1 MiB, 30 s) and keeps no response body in its errors. carnet adds the discovery
//! (the server's protected-resource metadata, then its authorization server's), the client
//! authentication the authorization server advertises, messages that say which side refused
//! what, and the token stored where the server's other tokens are.
//!
//! Workload identity federation (SEP-1933, [`Workload`]) is the same JWT bearer grant with no
//! identity provider in between: a workload presents the JWT its platform issued it.

use std::fmt;
use std::io::Read as _;
use std::path::PathBuf;

use oauth2::ClientSecret;
use rmcp::transport::auth::enterprise::{
    EmaAccessToken, EmaAuthorizationServer, EmaClientAuthentication, EmaError, EmaExchangeRequest, EmaExchangeStage,
};
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadataSource, CredentialStore as _, StoredCredentials,
    default_oauth_http_client,
};

use super::jwt;
use super::options::{Client, OAuth};
use super::store::Entry;

/// The grant type of RFC 7523's JWT bearer grant.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The longest a workload's token request may take.
const GRANT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
/// The longest answer read from a token endpoint.
const MAX_ANSWER_BYTES: usize = 1 << 20;
/// The longest token read from a file or the environment.
const MAX_TOKEN_BYTES: usize = 64 << 10;

/// Where a token the program holds comes from (an identity provider's ID token for
/// [`Enterprise`], a workload's JWT for [`Workload`]); read again at each sign-in, so a token
/// file kept fresh by someone else (a mounted secret, a sidecar's output) is picked up as it
/// changes. `Debug` names the source, never the token.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenSource(Source);

#[derive(Clone, PartialEq, Eq)]
enum Source {
    Value(String),
    Env(String),
    File(PathBuf),
}

impl TokenSource {
    /// The token itself.
    pub fn new(token: impl Into<String>) -> Self {
        TokenSource(Source::Value(token.into()))
    }

    /// The token in environment variable `var`.
    pub fn from_env(var: impl Into<String>) -> Self {
        TokenSource(Source::Env(var.into()))
    }

    /// The token in the file at `path` (surrounding whitespace ignored; at most 64 KiB).
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        TokenSource(Source::File(path.into()))
    }

    /// The token, trimmed.
    ///
    /// # Errors
    ///
    /// The variable is not set, the file cannot be read or is over 64 KiB, or the token is
    /// empty.
    fn read(&self) -> Result<String, String> {
        let (token, from) = match &self.0 {
            Source::Value(token) => (token.clone(), "the token given".to_owned()),
            Source::Env(var) => (
                std::env::var(var).map_err(|e| format!("the token's variable `{var}`: {e}"))?,
                format!("the token in `{var}`"),
            ),
            Source::File(path) => {
                let shown = path.display();
                let file = std::fs::File::open(path).map_err(|e| format!("the token's file `{shown}`: {e}"))?;
                let mut text = String::new();
                file.take(MAX_TOKEN_BYTES as u64 + 1)
                    .read_to_string(&mut text)
                    .map_err(|e| format!("the token's file `{shown}`: {e}"))?;
                if text.len() > MAX_TOKEN_BYTES {
                    return Err(format!("the token's file `{shown}` is over {MAX_TOKEN_BYTES} bytes"));
                }
                (text, format!("the token in `{shown}`"))
            }
        };
        let token = token.trim();
        if token.is_empty() {
            return Err(format!("{from} is empty"));
        }
        if token.len() > MAX_TOKEN_BYTES {
            return Err(format!("{from} is over {MAX_TOKEN_BYTES} bytes"));
        }
        Ok(token.to_owned())
    }
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::Value(_) => f.write_str("TokenSource(<redacted>)"),
            Source::Env(var) => write!(f, "TokenSource(env {var})"),
            Source::File(path) => write!(f, "TokenSource(file {})", path.display()),
        }
    }
}

/// The enterprise's identity provider: its issuer, its token endpoint, and the client the
/// program is registered as there (a secret is sent with HTTP Basic; none: a public client).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentityProvider {
    issuer: String,
    token_endpoint: String,
    client: Client,
}

impl IdentityProvider {
    /// The identity provider `issuer` (as its metadata and ID tokens name it), whose token
    /// endpoint is `token_endpoint`, where the program is `client`.
    pub fn new(issuer: impl Into<String>, token_endpoint: impl Into<String>, client: Client) -> Self {
        IdentityProvider {
            issuer: issuer.into(),
            token_endpoint: token_endpoint.into(),
            client,
        }
    }
}

/// Enterprise-managed sign-in to one MCP server: the identity provider, the ID token, and the
/// client the program is registered as at the MCP server's authorization server.
///
/// The token obtained goes to [`OAuth`]'s store, keyed by the server's URL, where the engine
/// and [`ServerSession`](super::ServerSession) find it. It comes with no refresh token (the
/// grant is the ID-JAG, used once): when it expires, sign in again with a fresh ID token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enterprise {
    idp: IdentityProvider,
    id_token: TokenSource,
    client: Client,
}

/// The MCP server's authorization server, as discovered.
struct ResourceServer {
    issuer: String,
    token_endpoint: String,
    /// `token_endpoint_auth_methods_supported`, if the metadata names them.
    auth_methods: Option<Vec<String>>,
}

impl Enterprise {
    /// Signs in through `idp` with `id_token`, as `client` at the MCP server's authorization
    /// server (a secret is sent with HTTP Basic, or in the form when that is all the server
    /// advertises; none: a public client).
    #[must_use]
    pub fn new(idp: IdentityProvider, id_token: TokenSource, client: Client) -> Self {
        Enterprise { idp, id_token, client }
    }

    /// Signs in to the MCP server at `server` and stores the token in `oauth`'s store; the
    /// scopes granted. The scopes asked for are [`OAuth::scopes`], else the server's
    /// `scopes_supported` (none: the identity provider decides).
    ///
    /// # Errors
    ///
    /// The server's authorization server cannot be discovered, the ID token cannot be read,
    /// the identity provider or the authorization server refuses or answers with something
    /// that is not a valid grant or token (the message says which, and why), or the store
    /// cannot be written.
    pub async fn sign_in(&self, oauth: &OAuth, server: &str) -> Result<Vec<String>, String> {
        let (resource, scopes) = discover(oauth, server).await?;
        let token = self.exchange(&resource, server, &scopes).await?;
        let mut granted: Vec<String> = token.scopes.into_iter().collect();
        granted.sort();
        let mut response = serde_json::json!({
            "access_token": token.access_token.secret(),
            "token_type": "bearer",
        });
        if let Some(lifetime) = token.expires_in {
            response["expires_in"] = lifetime.as_secs().into();
        }
        store(oauth, server, &self.client.id, response, granted, resource.issuer).await
    }

    /// The two exchanges: the ID token for an ID-JAG at the identity provider, the ID-JAG
    /// for an access token to `server` at `resource`.
    async fn exchange(
        &self,
        resource: &ResourceServer,
        server: &str,
        scopes: &[String],
    ) -> Result<EmaAccessToken, String> {
        let id_token = self.id_token.read()?;
        let idp = EmaAuthorizationServer::new(&self.idp.issuer, &self.idp.token_endpoint, &self.idp.client.id)
            .with_client_authentication(authentication(&self.idp.client, None));
        let resource_as = EmaAuthorizationServer::new(&resource.issuer, &resource.token_endpoint, &self.client.id)
            .with_client_authentication(authentication(&self.client, resource.auth_methods.as_deref()));
        // rmcp's client (see `tls::default_provider_if_none`).
        #[cfg(feature = "remote-tls")]
        crate::remote::tls::default_provider_if_none();
        let http = default_oauth_http_client().map_err(|e| format!("no HTTP client: {e}"))?;
        EmaExchangeRequest::new_with_id_token(idp, resource_as, server, &id_token)
            .with_scopes(scopes.iter().cloned())
            .exchange(&http, &http)
            .await
            .map_err(|e| self.explain(&e, &resource.issuer, server))
    }

    /// What went wrong, and where.
    fn explain(&self, error: &EmaError, resource_issuer: &str, server: &str) -> String {
        let who = |stage: &EmaExchangeStage| match stage {
            EmaExchangeStage::IdentityProvider => format!("the identity provider `{}`", self.idp.issuer),
            _ => format!("the authorization server `{resource_issuer}`"),
        };
        let why = match error {
            EmaError::InvalidRequest(why) => format!("the sign-in cannot be made: {why}"),
            EmaError::InvalidResponse { stage, message } => {
                format!("{} answered with no valid grant: {message}", who(stage))
            }
            EmaError::RequestFailed(stage) => format!(
                "the request to {} failed: not reachable, no answer within 30 s, or an answer over 1 MiB",
                who(stage)
            ),
            EmaError::InvalidGrant(EmaExchangeStage::IdentityProvider) => format!(
                "{} refused the ID token (invalid_grant): it may have expired; sign in again with a fresh one",
                who(&EmaExchangeStage::IdentityProvider)
            ),
            EmaError::InvalidGrant(stage) => format!("{} refused the ID-JAG (invalid_grant)", who(stage)),
            EmaError::InsufficientUserAuthentication(stage) => format!(
                "{} wants the user to sign in again at the identity provider (insufficient_user_authentication)",
                who(stage)
            ),
            EmaError::OAuthRejected { stage, status, code } => format!("{} refused ({status}): {code}", who(stage)),
            other => other.to_string(),
        };
        format!("enterprise-managed sign-in to `{server}`: {why}")
    }
}

/// Workload identity federation (SEP-1933): a workload (a CI job, a pod, a cloud function)
/// signs in to an MCP server with the JWT its platform issues it, presented as the grant
/// itself (RFC 7523's JWT bearer grant) at the server's authorization server, which trusts the
/// platform's issuer. No secret and no person; one request, never retried: a refusal is
/// final, and its message names the authorization server's error.
///
/// Like [`Enterprise`], the token obtained goes to [`OAuth`]'s store, with no refresh token:
/// when it expires, sign in again with a fresh workload token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    client_id: String,
    token: TokenSource,
}

impl Workload {
    /// Signs in as the client `client_id` (a public client: the JWT is the credential) with
    /// the workload's JWT from `token`.
    #[must_use]
    pub fn new(client_id: impl Into<String>, token: TokenSource) -> Self {
        Workload {
            client_id: client_id.into(),
            token,
        }
    }

    /// Signs in to the MCP server at `server` and stores the token in `oauth`'s store; the
    /// scopes granted (those asked for when the answer names none). The scopes asked for are
    /// [`OAuth::scopes`], else the server's `scopes_supported`.
    ///
    /// # Errors
    ///
    /// The server's authorization server cannot be discovered or its token endpoint is plain
    /// HTTP off loopback, the workload's token cannot be read, the authorization server
    /// refuses (`invalid_grant`: an expired token or one for another audience), cannot be
    /// reached within 30 s, or answers with no bearer token (or over 1 MiB), or the store
    /// cannot be written.
    pub async fn sign_in(&self, oauth: &OAuth, server: &str) -> Result<Vec<String>, String> {
        let (resource, scopes) = discover(oauth, server).await?;
        let response = self
            .grant(&resource, server, &scopes)
            .await
            .map_err(|why| format!("workload sign-in to `{server}`: {why}"))?;
        let granted = match response.get("scope").and_then(serde_json::Value::as_str) {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => scopes,
        };
        store(oauth, server, &self.client_id, response, granted, resource.issuer).await
    }

    /// The JWT bearer grant at `resource`'s token endpoint: its answer, without refresh token.
    async fn grant(
        &self,
        resource: &ResourceServer,
        server: &str,
        scopes: &[String],
    ) -> Result<serde_json::Value, String> {
        let assertion = self.token.read()?;
        let at = format!("the authorization server `{}`", resource.issuer);
        let endpoint = url::Url::parse(&resource.token_endpoint)
            .map_err(|e| format!("{at} names a token endpoint that is not a URL: {e}"))?;
        let loopback = match endpoint.host() {
            Some(url::Host::Domain(host)) => host.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        if endpoint.scheme() != "https" && !(endpoint.scheme() == "http" && loopback) {
            return Err(format!(
                "{at} has a token endpoint that is not HTTPS (`{endpoint}`); the workload's token is \
                 sent in clear only to loopback"
            ));
        }
        let form = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", JWT_BEARER)
                .append_pair("assertion", &assertion)
                .append_pair("client_id", &self.client_id)
                .append_pair("resource", server);
            if !scopes.is_empty() {
                form.append_pair("scope", &scopes.join(" "));
            }
            form.finish()
        };
        let client = crate::remote::tls::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(GRANT_TIMEOUT)
            .build()
            .map_err(|e| format!("no HTTP client: {e}"))?;
        let mut answer = client
            .post(endpoint)
            .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(http::header::ACCEPT, "application/json")
            .body(form)
            .send()
            .await
            .map_err(|e| format!("{at} could not be reached: {}", e.without_url()))?;
        let status = answer.status();
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|e| format!("{at}'s answer was cut: {}", e.without_url()))?
        {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(format!("{at} answered with over {MAX_ANSWER_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        let json = serde_json::from_slice::<serde_json::Value>(&body).ok();
        let text = |name: &str| json.as_ref().and_then(|j| j.get(name)?.as_str());
        if !status.is_success() {
            let error = text("error").unwrap_or("no OAuth error");
            // The server's own words, shortened and on one line.
            let description: String = text("error_description")
                .unwrap_or_default()
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect();
            return Err(
                format!("{at} refused the workload's token ({status}): {error} {description}")
                    .trim_end()
                    .to_owned(),
            );
        }
        let bearer = text("token_type").is_some_and(|t| t.eq_ignore_ascii_case("bearer"));
        let token = text("access_token").is_some_and(|t| !t.trim().is_empty());
        let (Some(mut json), true, true) = (json, bearer, token) else {
            return Err(format!("{at} answered with no bearer token"));
        };
        if let Some(fields) = json.as_object_mut() {
            fields.remove("refresh_token");
        }
        Ok(json)
    }
}

/// A sign-in with a token the program holds, set for a toolset ([`OAuth::enterprise`],
/// [`OAuth::workload`]): made when the server answers `401`, so again whenever the token it
/// gave has expired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Federated {
    Enterprise(Enterprise),
    Workload(Workload),
}

impl Federated {
    /// The client the token is issued to.
    pub(crate) fn client_id(&self) -> &str {
        match self {
            Federated::Enterprise(enterprise) => &enterprise.client.id,
            Federated::Workload(workload) => &workload.client_id,
        }
    }

    /// Signs in to `server`, the token stored in `oauth`'s store.
    pub(crate) async fn sign_in(&self, oauth: &OAuth, server: &str) -> Result<Vec<String>, String> {
        match self {
            Federated::Enterprise(enterprise) => enterprise.sign_in(oauth, server).await,
            Federated::Workload(workload) => workload.sign_in(oauth, server).await,
        }
    }
}

impl OAuth {
    /// Signs in to the server of `toolset` with `enterprise` (SEP-990) whenever it answers
    /// `401`: at the first request, and again when the token has expired (the ID token is read
    /// again each time). Takes the place of the toolset's other sign-ins.
    #[must_use]
    pub fn enterprise(mut self, toolset: impl Into<String>, enterprise: Enterprise) -> Self {
        self.federated.insert(toolset.into(), Federated::Enterprise(enterprise));
        self
    }

    /// Signs in to the server of `toolset` with `workload`'s JWT (SEP-1933) whenever it
    /// answers `401`, as [`OAuth::enterprise`] does.
    #[must_use]
    pub fn workload(mut self, toolset: impl Into<String>, workload: Workload) -> Self {
        self.federated.insert(toolset.into(), Federated::Workload(workload));
        self
    }
}

/// The authorization server of the MCP server at `server`, and the scopes to ask for:
/// [`OAuth::scopes`], else the server's `scopes_supported`, without `offline_access` (these
/// grants bring no refresh token).
async fn discover(oauth: &OAuth, server: &str) -> Result<(ResourceServer, Vec<String>), String> {
    #[cfg(feature = "remote-tls")]
    crate::remote::tls::default_provider_if_none();
    let manager = AuthorizationManager::new(server)
        .await
        .map_err(|e| format!("`{server}` is not a URL OAuth can use: {e}"))?;
    let resolution = manager
        .resolve_metadata()
        .await
        .map_err(|e| format!("the authorization server of `{server}` cannot be discovered: {e}"))?;
    if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return Err(format!(
            "`{server}` publishes no authorization server metadata: a JWT bearer grant is \
             addressed to the authorization server's issuer"
        ));
    }
    let metadata = resolution.metadata;
    let issuer = metadata
        .issuer
        .clone()
        .ok_or_else(|| format!("the authorization server of `{server}` names no issuer in its metadata"))?;
    let auth_methods = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let scopes = if oauth.scopes.is_empty() {
        let mut scopes = manager.select_initial_scopes(&[]).await;
        scopes.retain(|s| s != "offline_access");
        scopes
    } else {
        oauth.scopes.clone()
    };
    let resource = ResourceServer {
        issuer,
        token_endpoint: metadata.token_endpoint,
        auth_methods,
    };
    Ok((resource, scopes))
}

/// Stores the token `response` (a token endpoint's JSON, without refresh token) for `server`
/// in `oauth`'s store, where the engine finds it; the scopes `granted`, returned.
async fn store(
    oauth: &OAuth,
    server: &str,
    client_id: &str,
    response: serde_json::Value,
    granted: Vec<String>,
    issuer: String,
) -> Result<Vec<String>, String> {
    let cannot = |e: &dyn fmt::Display| format!("the token for `{server}` cannot be stored: {e}");
    let response = serde_json::from_value(response).map_err(|e| cannot(&e))?;
    let stored = StoredCredentials::new(client_id.to_owned(), Some(response), granted.clone(), Some(jwt::now()))
        .with_issuer(Some(issuer));
    let entry = Entry {
        store: std::sync::Arc::clone(&oauth.store),
        server: server.to_owned(),
    };
    entry.save(stored).await.map_err(|e| cannot(&e))?;
    Ok(granted)
}

/// How `client` authenticates at a token endpoint that advertises `methods` (`None`: not
/// said, HTTP Basic, RFC 8414's default).
fn authentication(client: &Client, methods: Option<&[String]>) -> EmaClientAuthentication {
    let Some(secret) = &client.secret else {
        return EmaClientAuthentication::None;
    };
    let secret = ClientSecret::new(secret.clone());
    let offers = |method: &str| methods.is_some_and(|m| m.iter().any(|x| x == method));
    if offers("client_secret_post") && !offers("client_secret_basic") {
        EmaClientAuthentication::ClientSecretPost(secret)
    } else {
        EmaClientAuthentication::ClientSecretBasic(secret)
    }
}

#[cfg(test)]
#[path = "enterprise_tests.rs"]
mod tests;
