//! How carnet signs in ([`OAuth`], part of [`RemoteOptions`](crate::RemoteOptions)), the
//! clients registered beforehand ([`Client`]) and where tokens are kept ([`StoreKind`]).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::authorizer::Authorizer;
use super::enterprise::Federated;
use super::key::PrivateKey;
use super::keyring::{KEYRING_SERVICE, KeyringStore};
use super::store::{FileStore, MemoryStore, TokenStore, Unavailable};

/// Where the operator keeps tokens: `CARNET_TOKEN_STORE`, or `carnet mcp login --store`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// `file`: [`FileStore`] in [`FileStore::default_dir`] (the default).
    File,
    /// `keyring`: [`KeyringStore`], the OS keyring, service [`KEYRING_SERVICE`].
    Keyring,
}

impl StoreKind {
    /// The environment variable that chooses the store: `file` or `keyring`.
    pub const ENV: &'static str = "CARNET_TOKEN_STORE";

    /// The kind `$CARNET_TOKEN_STORE` names; [`StoreKind::File`] when it is unset or empty.
    ///
    /// # Errors
    ///
    /// It names neither `file` nor `keyring`.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(Self::ENV) {
            Ok(value) if !value.is_empty() => value.parse().map_err(|e| format!("{}: {e}", Self::ENV)),
            _ => Ok(StoreKind::File),
        }
    }

    /// The store of this kind.
    ///
    /// # Errors
    ///
    /// A file store has no directory (none of `CARNET_OAUTH_DIR`, `XDG_CONFIG_HOME`, `HOME`
    /// is set), or this system has no keyring carnet can use.
    pub fn open(self) -> Result<Arc<dyn TokenStore>, String> {
        match self {
            StoreKind::File => FileStore::default_dir()
                .map(|dir| Arc::new(FileStore::new(dir)) as Arc<dyn TokenStore>)
                .ok_or_else(|| "no place for the token file: set CARNET_OAUTH_DIR (or HOME)".to_owned()),
            StoreKind::Keyring => Ok(Arc::new(KeyringStore::new(KEYRING_SERVICE)?)),
        }
    }
}

impl std::str::FromStr for StoreKind {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "file" => Ok(StoreKind::File),
            "keyring" => Ok(StoreKind::Keyring),
            other => Err(format!("`{other}` is not a token store: `file` or `keyring`")),
        }
    }
}

/// A client registered with an authorization server beforehand: its ID and, for a
/// confidential client, its secret (never shown by `Debug`).
#[derive(Clone, PartialEq, Eq)]
pub struct Client {
    /// The client ID.
    pub id: String,
    /// The client secret, if the client has one.
    pub secret: Option<String>,
}

impl Client {
    /// A client with ID `id` and secret `secret` (`None`: a public client).
    pub fn new(id: impl Into<String>, secret: Option<String>) -> Self {
        Client { id: id.into(), secret }
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// How carnet signs in to the remote toolsets that require OAuth (part of
/// [`RemoteOptions`](crate::RemoteOptions)).
///
/// The default reads tokens from the store `CARNET_TOKEN_STORE` names ([`StoreKind`]:
/// [`FileStore::default_dir`] unless it says `keyring`) and signs in to nothing by itself: a server with no valid token is refused until someone runs
/// `carnet mcp login TOOLSET` (or the program sets an [`Authorizer`] or client
/// credentials).
#[derive(Clone)]
pub struct OAuth {
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) authorizer: Option<Arc<dyn Authorizer>>,
    pub(crate) client_name: String,
    pub(crate) metadata_url: Option<String>,
    pub(crate) preregistered: BTreeMap<String, Client>,
    pub(crate) credentials: BTreeMap<String, Client>,
    /// Client credentials with a private-key JWT: the client ID and its key, per toolset.
    pub(crate) jwt_credentials: BTreeMap<String, (String, PrivateKey)>,
    /// Sign-ins with a token the program holds (enterprise-managed, workload), per toolset.
    pub(crate) federated: BTreeMap<String, Federated>,
    pub(crate) scopes: Vec<String>,
    pub(crate) max_step_ups: u32,
}

/// The default store, one per process (read from the environment on first use): the file
/// store when it has a directory, else memory; a store that cannot be had (an unknown
/// `CARNET_TOKEN_STORE`, no keyring) holds no token and refuses to keep one, saying why.
static DEFAULT_STORE: std::sync::LazyLock<Arc<dyn TokenStore>> =
    std::sync::LazyLock::new(|| match StoreKind::from_env() {
        Ok(StoreKind::File) => match FileStore::default_dir() {
            Some(dir) => Arc::new(FileStore::new(dir)),
            None => Arc::new(MemoryStore::default()),
        },
        Ok(kind) => kind.open().unwrap_or_else(|e| Arc::new(Unavailable::new(e))),
        Err(e) => Arc::new(Unavailable::new(e)),
    });

impl Default for OAuth {
    /// The default store ([`StoreKind::from_env`]; a file store without a directory: memory),
    /// no sign-in of its own.
    fn default() -> Self {
        OAuth::new(Arc::clone(&DEFAULT_STORE))
    }
}

impl OAuth {
    /// Signs in with tokens kept in `store`.
    pub fn new(store: Arc<dyn TokenStore>) -> Self {
        OAuth {
            store,
            authorizer: None,
            client_name: "carnet".to_owned(),
            metadata_url: None,
            preregistered: BTreeMap::new(),
            credentials: BTreeMap::new(),
            jwt_credentials: BTreeMap::new(),
            federated: BTreeMap::new(),
            scopes: Vec::new(),
            max_step_ups: 2,
        }
    }

    /// The store tokens are kept in.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn TokenStore> {
        &self.store
    }

    /// Who approves an authorization when a server needs one and no token is stored.
    #[must_use]
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// The name carnet registers under with dynamic client registration (default `carnet`).
    #[must_use]
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The HTTPS URL of carnet's client ID metadata document, used as the client ID by
    /// authorization servers that support them (`client_id_metadata_document_supported`).
    #[must_use]
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// The client registered beforehand with the authorization server of `toolset`
    /// (no dynamic registration for it).
    #[must_use]
    pub fn preregistered(mut self, toolset: impl Into<String>, client: Client) -> Self {
        self.preregistered.insert(toolset.into(), client);
        self
    }

    /// Signs in to the server of `toolset` with the client credentials grant (an
    /// unattended agent: no person, no browser). `client.secret` is sent with HTTP Basic
    /// or in the form, as the authorization server advertises.
    #[must_use]
    pub fn client_credentials(mut self, toolset: impl Into<String>, client: Client) -> Self {
        let toolset = toolset.into();
        self.jwt_credentials.remove(&toolset);
        self.credentials.insert(toolset, client);
        self
    }

    /// Signs in to the server of `toolset` with the client credentials grant, the client
    /// `client_id` authenticated by a JWT signed with `key` (RFC 7523 `private_key_jwt`):
    /// no secret is sent. Each sign-in signs a fresh assertion (`iss` and `sub` the client
    /// ID, `aud` the authorization server's issuer, valid for 60 s); a token that expires
    /// is replaced by signing in again. Takes the place of [`OAuth::client_credentials`]
    /// for the same toolset.
    #[must_use]
    pub fn client_credentials_jwt(
        mut self,
        toolset: impl Into<String>,
        client_id: impl Into<String>,
        key: PrivateKey,
    ) -> Self {
        let toolset = toolset.into();
        self.credentials.remove(&toolset);
        self.jwt_credentials.insert(toolset, (client_id.into(), key));
        self
    }

    /// The scopes asked for (default: those the server's challenge or metadata name).
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How many times a `403 insufficient_scope` is answered by asking for more scopes
    /// before the request fails (default 2: with the first sign-in, at most three
    /// authorizations for one server).
    #[must_use]
    pub fn max_step_ups(mut self, times: u32) -> Self {
        self.max_step_ups = times;
        self
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("store", &self.store)
            .field("authorizer", &self.authorizer)
            .field("client_name", &self.client_name)
            .field("metadata_url", &self.metadata_url)
            .field("preregistered", &self.preregistered)
            .field("credentials", &self.credentials)
            .field("jwt_credentials", &self.jwt_credentials)
            .field("federated", &self.federated)
            .field("scopes", &self.scopes)
            .field("max_step_ups", &self.max_step_ups)
            .finish()
    }
}

impl PartialEq for OAuth {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.store, &other.store)
            && match (&self.authorizer, &other.authorizer) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
            && self.client_name == other.client_name
            && self.metadata_url == other.metadata_url
            && self.preregistered == other.preregistered
            && self.credentials == other.credentials
            && self.jwt_credentials == other.jwt_credentials
            && self.federated == other.federated
            && self.scopes == other.scopes
            && self.max_step_ups == other.max_step_ups
    }
}

impl Eq for OAuth {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_kinds_are_named_file_or_keyring() {
        assert_eq!("file".parse(), Ok(StoreKind::File));
        assert_eq!("keyring".parse(), Ok(StoreKind::Keyring));
        let error = "vault".parse::<StoreKind>().unwrap_err();
        assert!(error.contains("`vault`") && error.contains("`keyring`"), "{error}");
    }

    #[test]
    fn defaults_are_equal_and_debug_shows_no_secret() {
        assert_eq!(OAuth::default(), OAuth::default());
        assert_eq!(crate::RemoteOptions::default(), crate::RemoteOptions::default());
        let oauth = OAuth::default()
            .client_credentials("crm", Client::new("agent", Some("s3cret-value".into())))
            .preregistered("docs", Client::new("person", Some("other-s3cret".into())));
        assert_ne!(oauth, OAuth::default());
        let shown = format!("{oauth:?}");
        assert!(shown.contains("agent") && shown.contains("<redacted>"), "{shown}");
        assert!(!shown.contains("s3cret"), "{shown}");
        // A key replaces the secret for its toolset, and shows its algorithm only.
        let key = PrivateKey::from_pem(include_str!("testdata/rsa-pkcs8.pem")).unwrap();
        let oauth = oauth.client_credentials_jwt("crm", "agent", key);
        assert!(!oauth.credentials.contains_key("crm") && oauth.jwt_credentials.contains_key("crm"));
        let shown = format!("{oauth:?}");
        assert!(shown.contains("Rs256") && !shown.contains("MII"), "{shown}");
    }
}
