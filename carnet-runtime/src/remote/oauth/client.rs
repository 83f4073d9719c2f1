//! The HTTP client of a remote toolset behind OAuth: rmcp's [`AuthClient`] (the bearer
//! token on each request, refreshed when it expires or is rejected), wrapped so that a
//! `401` signs in and a `403 insufficient_scope` asks for more scopes, then the request is
//! sent again, at any point of the session.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use futures_core::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, ClientCredentialsConfig, CredentialStore as _,
    OAuthClientConfig, ScopeUpgradeConfig, StoredCredentials,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::jwt;
use super::options::OAuth;
use super::store::Entry;

type Error = StreamableHttpError<reqwest::Error>;

/// How one server is signed in to.
struct Flow {
    oauth: OAuth,
    /// The toolset (for its pre-registered client or client credentials, and messages).
    toolset: String,
    /// The server's URL (the store's key).
    server: String,
    /// Counts sign-ins: a request that failed before the last one is only sent again.
    signed_in: AtomicU64,
    /// Step-ups since a request last succeeded (rmcp's own count restarts with each token).
    step_ups: AtomicU32,
    /// Why the last sign-in failed (rmcp's errors around it name types, not what went wrong).
    failure: std::sync::Mutex<Option<String>>,
}

/// rmcp's streamable HTTP client with OAuth for one server.
#[derive(Clone)]
pub(crate) struct OAuthClient {
    inner: AuthClient<reqwest::Client>,
    flow: Arc<Flow>,
}

/// The HTTP client for `server` (the toolset `toolset`), with the token `oauth` stored for
/// it, if any.
///
/// # Errors
///
/// The URL is not valid, or the stored token's authorization server cannot be found.
pub(crate) async fn http_client(server: &str, oauth: &OAuth, toolset: &str) -> Result<OAuthClient, String> {
    // rmcp's manager builds HTTP clients of its own (see `tls::default_provider_if_none`).
    #[cfg(feature = "remote-tls")]
    crate::remote::tls::default_provider_if_none();
    let mut manager = AuthorizationManager::new(server)
        .await
        .map_err(|e| format!("`{server}` is not a URL OAuth can use: {e}"))?;
    manager.set_credential_store(Entry {
        store: Arc::clone(&oauth.store),
        server: server.to_owned(),
    });
    let mut upgrades = ScopeUpgradeConfig::default();
    upgrades.max_upgrade_attempts = oauth.max_step_ups;
    manager.set_scope_upgrade_config(upgrades);
    let stored = oauth.store.load(server)?.is_some();
    if stored && let Err(e) = manager.initialize_from_store().await {
        return Err(format!("the stored authorization for `{server}` cannot be used: {e}"));
    }
    let http = crate::remote::tls::builder()
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| format!("no HTTP client: {e}"))?;
    Ok(OAuthClient {
        inner: AuthClient::new(http, manager),
        flow: Arc::new(Flow {
            oauth: oauth.clone(),
            toolset: toolset.to_owned(),
            server: server.to_owned(),
            signed_in: AtomicU64::new(0),
            step_ups: AtomicU32::new(0),
            failure: std::sync::Mutex::new(None),
        }),
    })
}

impl OAuthClient {
    /// Why the last sign-in failed, if one did.
    pub(crate) fn failure(&self) -> Option<String> {
        self.flow
            .failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Sends with `send` until it is answered other than `401` (once signed in) or `403
    /// insufficient_scope` (once the step-ups are spent).
    async fn send<T, F, Fut>(&self, send: F) -> Result<T, Error>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let mut signed_in_once = false;
        loop {
            let before = self.flow.signed_in.load(Ordering::Acquire);
            let error = match send().await {
                Err(error @ (StreamableHttpError::AuthRequired(_) | StreamableHttpError::InsufficientScope(_))) => {
                    error
                }
                Ok(answer) => {
                    self.flow.step_ups.store(0, Ordering::Release);
                    return Ok(answer);
                }
                Err(error) => return Err(error),
            };
            let mut manager = self.inner.auth_manager.lock().await;
            if self.flow.signed_in.load(Ordering::Acquire) != before {
                // Another request signed in meanwhile: its token is tried first.
                continue;
            }
            match &error {
                StreamableHttpError::AuthRequired(challenge) if !signed_in_once => {
                    signed_in_once = true;
                    self.flow
                        .sign_in(&mut manager, &challenge.www_authenticate_header)
                        .await
                }
                StreamableHttpError::InsufficientScope(challenge) => {
                    let scope = challenge.required_scope.clone().unwrap_or_default();
                    self.flow.step_up(&manager, &scope).await
                }
                _ => return Err(error),
            }
            .map_err(|e| {
                *self
                    .flow
                    .failure
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e.to_string());
                StreamableHttpError::Auth(e)
            })?;
            self.flow.signed_in.fetch_add(1, Ordering::AcqRel);
        }
    }
}

impl Flow {
    fn refused(&self, why: impl std::fmt::Display) -> AuthError {
        AuthError::AuthorizationFailed(format!("`{}` requires OAuth authorization: {why}", self.server))
    }

    /// How to sign in to this toolset's server.
    fn login_hint(&self) -> String {
        if self.toolset.is_empty() {
            "`carnet mcp login` and the toolset's name".to_owned()
        } else {
            format!("`carnet mcp login {}`", self.toolset)
        }
    }

    /// Signs in after a `401` with `challenge` (its `WWW-Authenticate` header).
    async fn sign_in(&self, manager: &mut AuthorizationManager, challenge: &str) -> Result<(), AuthError> {
        let resolution = manager.resolve_metadata_from_challenge(Some(challenge)).await?;
        // Client ID metadata documents are used only where the server says it takes them.
        let metadata_documents = resolution
            .metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        let token_endpoint = resolution.metadata.token_endpoint.clone();
        let issuer = resolution.metadata.issuer.clone();
        manager.set_metadata(resolution.metadata);
        let explicit: Vec<&str> = self.oauth.scopes.iter().map(String::as_str).collect();
        if let Some(federated) = self.oauth.federated.get(&self.toolset) {
            // rmcp's client, with no secret, only for its expiry check: the token comes with
            // no refresh token, so an expired token leads back here, to a new sign-in.
            manager.configure_client_credentials(&ClientCredentialsConfig::ClientSecret {
                client_id: federated.client_id().to_owned(),
                client_secret: String::new(),
                scopes: Vec::new(),
                resource: Some(self.server.clone()),
            })?;
            federated
                .sign_in(&self.oauth, &self.server)
                .await
                .map_err(|e| self.refused(e))?;
            return Ok(());
        }
        if let Some((client_id, key)) = self.oauth.jwt_credentials.get(&self.toolset) {
            let scopes = manager.select_initial_scopes(&explicit).await;
            // rmcp's client, with no secret, only for its expiry check: the token response
            // carries no refresh token, so an expired token leads back here.
            manager.configure_client_credentials(&ClientCredentialsConfig::ClientSecret {
                client_id: client_id.clone(),
                client_secret: String::new(),
                scopes: scopes.clone(),
                resource: Some(self.server.clone()),
            })?;
            let request = jwt::Request {
                server: &self.server,
                client_id,
                key,
                token_endpoint: &token_endpoint,
                audience: issuer.as_deref().unwrap_or(&token_endpoint),
                scopes: &scopes,
            };
            let jwt::Token { token, granted } = jwt::exchange(&request).await.map_err(|e| self.refused(e))?;
            let granted = granted.unwrap_or(scopes);
            let entry = Entry {
                store: Arc::clone(&self.oauth.store),
                server: self.server.clone(),
            };
            let stored =
                StoredCredentials::new(client_id.clone(), Some(token), granted, Some(jwt::now())).with_issuer(issuer);
            return entry.save(stored).await;
        }
        if let Some(client) = self.oauth.credentials.get(&self.toolset) {
            let scopes = manager.select_initial_scopes(&explicit).await;
            let config = ClientCredentialsConfig::ClientSecret {
                client_id: client.id.clone(),
                client_secret: client.secret.clone().unwrap_or_default(),
                scopes,
                // The resource indicator (RFC 8707): the server's own URL, which discovery
                // checked against its protected-resource metadata.
                resource: Some(self.server.clone()),
            };
            manager.configure_client_credentials(&config)?;
            manager.exchange_client_credentials(&config).await?;
            return Ok(());
        }
        let Some(authorizer) = &self.oauth.authorizer else {
            let store = self
                .oauth
                .store
                .unusable(&self.server)
                .map(|why| format!(" (the token store cannot be used: {why})"))
                .unwrap_or_default();
            return Err(self.refused(format!(
                "carnet holds no valid token for it{store}; sign in with {} (or give `RemoteOptions` an \
                 authorizer or client credentials, or a token it holds: `OAuth::enterprise`, \
                 `OAuth::workload`)",
                self.login_hint()
            )));
        };
        let scopes = if explicit.is_empty() {
            manager.select_initial_scopes(&[]).await
        } else {
            explicit.iter().map(|s| (*s).to_owned()).collect()
        };
        let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let redirect_uri = authorizer.redirect_uri();
        let config = if let Some(client) = self.oauth.preregistered.get(&self.toolset) {
            let config = OAuthClientConfig::new(&client.id, &redirect_uri).with_scopes(scopes.clone());
            match &client.secret {
                Some(secret) => config.with_client_secret(secret),
                None => config,
            }
        } else if let Some(url) = self.oauth.metadata_url.as_deref().filter(|_| metadata_documents) {
            OAuthClientConfig::new(url, &redirect_uri).with_scopes(scopes.clone())
        } else {
            manager
                .register_client(&self.oauth.client_name, &redirect_uri, &scope_refs)
                .await?
        };
        manager.configure_client(config)?;
        let url = manager.get_authorization_url(&scope_refs).await?;
        self.approve(manager, &url).await
    }

    /// Asks for `scope` besides the scopes held, after a `403 insufficient_scope`.
    async fn step_up(&self, manager: &AuthorizationManager, scope: &str) -> Result<(), AuthError> {
        if self.oauth.authorizer.is_none() {
            return Err(self.refused(format!(
                "its server asks for scope `{scope}` beyond the token's, and there is nobody to approve it"
            )));
        }
        let max = self.oauth.max_step_ups;
        if self.step_ups.fetch_add(1, Ordering::AcqRel) >= max {
            return Err(self.refused(format!(
                "its server still asks for more scope (`{scope}`) after {max} step-ups; giving up"
            )));
        }
        let url = manager.request_scope_upgrade(scope).await?;
        self.approve(manager, &url).await
    }

    /// Has `url` approved by the authorizer and exchanges the code for tokens (stored).
    async fn approve(&self, manager: &AuthorizationManager, url: &str) -> Result<(), AuthError> {
        let authorizer = self.oauth.authorizer.as_ref().ok_or(AuthError::AuthorizationRequired)?;
        let redirect = authorizer.authorize(url).await.map_err(|e| self.refused(e))?;
        let callback = AuthorizationCallback::from_redirect_url(&redirect)?;
        manager
            .exchange_code_for_token_with_issuer(&callback.code, &callback.csrf_token, callback.issuer.as_deref())
            .await?;
        Ok(())
    }
}

impl StreamableHttpClient for OAuthClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.send(|| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.send(|| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        // Ending a session never signs in.
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, Error> {
        self.send(|| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, Error> {
        self.send(|| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
