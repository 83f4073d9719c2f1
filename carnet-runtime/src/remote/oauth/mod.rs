//! OAuth 2.1 for remote toolsets over streamable HTTP (feature `remote-oauth`), as the MCP
//! authorization specification has it, on rmcp's `auth` (the `oauth2` crate).
//!
//! A server that answers `401` is signed in to: its protected-resource metadata is found
//! (the `WWW-Authenticate` challenge's `resource_metadata`, then both well-known forms),
//! then its authorization server's (OAuth, then `OpenID` Connect, then the 2025-03-26
//! endpoints under the server's own origin); scopes come from the challenge, else from
//! `scopes_supported`; the client is pre-registered ([`OAuth::preregistered`]), named by a
//! client ID metadata document ([`OAuth::client_metadata_url`], when the server supports
//! them), or registered dynamically; the code is exchanged with PKCE and the resource
//! indicator. A `403` with `insufficient_scope` asks for the union of the scopes, at most
//! [`OAuth::max_step_ups`] times (twice by default). Expired access tokens are refreshed with the refresh token.
//!
//! Who approves: a person through an [`Authorizer`] ([`Loopback`]: `carnet mcp login`), or
//! nobody, for unattended agents: client credentials, with a secret
//! ([`OAuth::client_credentials`]) or a private key that signs a JWT
//! ([`OAuth::client_credentials_jwt`], RFC 7523, ES256 or RS256, signed with ring).
//! Without either, a server with no stored token is refused with a message that says how
//! to sign in. A program holding an ID token from the enterprise's identity provider signs
//! in with [`Enterprise::sign_in`] (SEP-990: the ID token exchanged for an ID-JAG, then the
//! JWT bearer grant); a workload holding its platform's JWT, with [`Workload::sign_in`]
//! (SEP-1933).
//!
//! Tokens live in a [`TokenStore`] keyed by the server's URL: by default a [`FileStore`]
//! (`tokens.json`, mode 0600, in `$CARNET_OAUTH_DIR`, else `~/.config/carnet/oauth`), or the
//! OS keyring ([`KeyringStore`]) when `CARNET_TOKEN_STORE=keyring` ([`StoreKind`]).
//! No token is ever written into a pin, a manifest, a log line, a span or an error.

mod authorizer;
pub(super) mod client;
mod enterprise;
mod jwt;
mod key;
mod keyring;
pub(crate) mod options;
mod session;
mod store;

pub use self::keyring::{KEYRING_SERVICE, KeyringStore};
pub use authorizer::{Authorizer, BoxFuture, Loopback, Redirects};
pub use enterprise::{Enterprise, IdentityProvider, TokenSource, Workload};
pub use key::{Algorithm, PrivateKey};
pub use options::{Client, OAuth, StoreKind};
pub use session::ServerSession;
pub use store::{FileStore, MemoryStore, TOKEN_FILE, TokenStore};
