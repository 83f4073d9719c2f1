//! Sealed session handles: a conversation's [`SessionState`] carried by the client between
//! stateless (`2026-07-28`) requests, authenticated so that it cannot be forged or moved to
//! another agent or manifest.
//!
//! # Format
//!
//! ```text
//! cs1.<key id>.<payload>.<tag>
//! ```
//!
//! - `cs1`: the format's version;
//! - `<key id>`: 8 lowercase hex digits, the start of `SHA-256("carnet-session-key-id" ‖ key)`,
//!   naming the key that sealed it (the current one or the previous one, during a rotation);
//! - `<payload>`: base64url (no padding) of the JSON object `{"exp": UNIX_SECONDS, "state":
//!   SessionState}`; the state names the agent, the loaded skills, toolsets and tools, and
//!   the manifest's fingerprint;
//! - `<tag>`: base64url (no padding) of HMAC-SHA-256 over `cs1.<key id>.<payload>` with that key,
//!   compared in constant time.
//!
//! The handle is authenticated, not encrypted: it holds names of skills the client may read
//! anyway (`listAvailableSkills`), never secrets.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use carnet_manifest::digest::sha256;
use serde::{Deserialize, Serialize};

use crate::SessionState;

/// The environment variable holding the key that seals session handles.
pub const SESSION_KEY_ENV: &str = "CARNET_SESSION_KEY";
/// The environment variable holding the previous key, still accepted while a rotation runs.
pub const PREVIOUS_SESSION_KEY_ENV: &str = "CARNET_SESSION_KEY_PREVIOUS";
/// Keys shorter than this many bytes are refused.
pub const MIN_KEY_BYTES: usize = 32;
/// How long a handle stays valid by default: 24 hours after the call that sealed it.
pub const DEFAULT_HANDLE_TTL: Duration = Duration::from_hours(24);
/// Handles longer than this are refused before anything is decoded.
const MAX_HANDLE_BYTES: usize = 16 * 1024;
const VERSION: &str = "cs1";

/// A key that is too short to seal handles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    len: usize,
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self { len } = self;
        write!(
            f,
            "a session key needs at least {MIN_KEY_BYTES} bytes, this one has {len} (e.g. `openssl rand -base64 32`)"
        )
    }
}

impl std::error::Error for KeyError {}

struct Key {
    id: String,
    secret: Vec<u8>,
}

impl Key {
    fn new(secret: &[u8]) -> Result<Key, KeyError> {
        if secret.len() < MIN_KEY_BYTES {
            return Err(KeyError { len: secret.len() });
        }
        let digest = sha256(&[b"carnet-session-key-id".as_slice(), secret].concat());
        let id = digest[..4].iter().fold(String::new(), |mut id, b| {
            let _ = write!(id, "{b:02x}");
            id
        });
        Ok(Key {
            id,
            secret: secret.to_vec(),
        })
    }

    fn mac(&self, message: &[u8]) -> [u8; 32] {
        hmac_sha256(&self.secret, message)
    }
}

/// HMAC-SHA-256 (RFC 2104) over carnet's SHA-256, whose rounds have no branch and no table
/// lookup that depends on the data (as the `sha2` crate's portable code): a key's bytes do not
/// show in the time it takes. Checked against RFC 4231's vectors.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut padded = [0u8; BLOCK];
    if key.len() > BLOCK {
        padded[..32].copy_from_slice(&sha256(key));
    } else {
        padded[..key.len()].copy_from_slice(key);
    }
    let mut inner = Vec::with_capacity(BLOCK + message.len());
    inner.extend(padded.iter().map(|b| b ^ 0x36));
    inner.extend_from_slice(message);
    let mut outer = [0u8; BLOCK + 32];
    for (out, b) in outer.iter_mut().zip(padded) {
        *out = b ^ 0x5c;
    }
    outer[BLOCK..].copy_from_slice(&sha256(&inner));
    sha256(&outer)
}

/// Whether `a` and `b` are equal, in a time that depends on their lengths only.
fn equal_in_constant_time(a: &[u8], b: &[u8]) -> bool {
    let differences = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    a.len() == b.len() && std::hint::black_box(differences) == 0
}

/// The keys that seal and open session handles: the current one, an optional previous one
/// (still accepted, never used to seal: rotate by moving the current key to
/// [`PREVIOUS_SESSION_KEY_ENV`] and setting a new one), and how long a handle stays valid.
///
/// Replicas that share the keys serve each other's conversations.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use carnet_runtime::mcp::SessionKeys;
///
/// let keys = SessionKeys::new("a shared secret of at least 32 bytes!")?
///     .with_previous("the key used before the last rotation")?
///     .with_ttl(Duration::from_secs(3600));
/// assert!(SessionKeys::new("too short").is_err());
/// # Ok::<(), carnet_runtime::mcp::KeyError>(())
/// ```
pub struct SessionKeys {
    current: Key,
    previous: Option<Key>,
    ttl: Duration,
}

impl std::fmt::Debug for SessionKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Key ids only: the secrets never reach a log.
        f.debug_struct("SessionKeys")
            .field("current", &self.current.id)
            .field("previous", &self.previous.as_ref().map(|k| &k.id))
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl SessionKeys {
    /// Keys sealing with `secret` (its bytes, at least [`MIN_KEY_BYTES`]).
    ///
    /// # Errors
    ///
    /// When `secret` is too short.
    pub fn new(secret: impl AsRef<[u8]>) -> Result<SessionKeys, KeyError> {
        Ok(SessionKeys {
            current: Key::new(secret.as_ref())?,
            previous: None,
            ttl: DEFAULT_HANDLE_TTL,
        })
    }

    /// Also accepts handles sealed with `secret`.
    ///
    /// # Errors
    ///
    /// When `secret` is too short.
    pub fn with_previous(mut self, secret: impl AsRef<[u8]>) -> Result<SessionKeys, KeyError> {
        self.previous = Some(Key::new(secret.as_ref())?);
        Ok(self)
    }

    /// Sets how long a handle stays valid after the call that sealed it (default
    /// [`DEFAULT_HANDLE_TTL`]).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> SessionKeys {
        self.ttl = ttl;
        self
    }

    /// The keys in [`SESSION_KEY_ENV`] and [`PREVIOUS_SESSION_KEY_ENV`]; `None` when the
    /// first is unset or empty.
    ///
    /// # Errors
    ///
    /// When a key set is too short.
    pub fn from_env() -> Result<Option<SessionKeys>, KeyError> {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        let Some(current) = var(SESSION_KEY_ENV) else {
            return Ok(None);
        };
        let mut keys = SessionKeys::new(current.as_encoded_bytes())?;
        if let Some(previous) = var(PREVIOUS_SESSION_KEY_ENV) {
            keys = keys.with_previous(previous.as_encoded_bytes())?;
        }
        Ok(Some(keys))
    }

    /// A random key of this process: its handles open only here, and only until it exits.
    ///
    /// # Panics
    ///
    /// When the operating system has no random numbers to give.
    #[must_use]
    pub fn random() -> SessionKeys {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).expect("the operating system gives random bytes");
        SessionKeys::new(secret).expect("32 bytes are enough")
    }

    /// The id of the key that seals (8 hex digits).
    #[must_use]
    pub fn key_id(&self) -> &str {
        &self.current.id
    }

    /// How long a handle stays valid.
    #[must_use]
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// `state` sealed with the current key, valid until `now + ttl`.
    pub(crate) fn seal(&self, state: &SessionState, now: SystemTime) -> String {
        let exp = unix(now).saturating_add(self.ttl.as_secs());
        let payload = serde_json::to_vec(&Sealed {
            exp,
            state: state.clone(),
        })
        .expect("a session state serialises");
        self.seal_bytes(VERSION, &payload)
    }

    /// The state `handle` holds, once its tag, expiry, agent and manifest are checked.
    pub(crate) fn open(
        &self,
        handle: &str,
        agent: &str,
        fingerprint: &str,
        now: SystemTime,
    ) -> Result<SessionState, HandleError> {
        let payload = self.open_bytes(VERSION, handle)?;
        let sealed: Sealed = serde_json::from_slice(&payload).map_err(|_| HandleError::Malformed)?;
        if unix(now) >= sealed.exp {
            return Err(HandleError::Expired);
        }
        if sealed.state.agent != agent {
            return Err(HandleError::OtherAgent);
        }
        if sealed.state.fingerprint != fingerprint {
            return Err(HandleError::OtherManifest);
        }
        Ok(sealed.state)
    }

    /// `payload` sealed with the current key as `<version>.<key id>.<payload>.<tag>` (the
    /// format of the module's documentation; `version` tells what it seals).
    pub(crate) fn seal_bytes(&self, version: &str, payload: &[u8]) -> String {
        let signed = format!("{version}.{}.{}", self.current.id, URL_SAFE_NO_PAD.encode(payload));
        let tag = URL_SAFE_NO_PAD.encode(self.current.mac(signed.as_bytes()));
        format!("{signed}.{tag}")
    }

    /// The payload [`SessionKeys::seal_bytes`] sealed as `version`, once its tag is checked
    /// against the current or the previous key. Anything longer than 16 KiB is refused before
    /// it is decoded.
    pub(crate) fn open_bytes(&self, version: &str, sealed: &str) -> Result<Vec<u8>, HandleError> {
        if sealed.len() > MAX_HANDLE_BYTES {
            return Err(HandleError::Malformed);
        }
        let (signed, tag) = sealed.rsplit_once('.').ok_or(HandleError::Malformed)?;
        let mut parts = signed.split('.');
        let (Some(found), Some(id), Some(payload), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(HandleError::Malformed);
        };
        if found != version {
            return Err(HandleError::Malformed);
        }
        let key = [Some(&self.current), self.previous.as_ref()]
            .into_iter()
            .flatten()
            .find(|k| k.id == id)
            .ok_or(HandleError::UnknownKey)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| HandleError::Malformed)?;
        if !equal_in_constant_time(&key.mac(signed.as_bytes()), &tag) {
            return Err(HandleError::Forged);
        }
        // Authentic from here on: what follows was written by a holder of the key.
        URL_SAFE_NO_PAD.decode(payload).map_err(|_| HandleError::Malformed)
    }
}

#[derive(Serialize, Deserialize)]
struct Sealed {
    exp: u64,
    state: SessionState,
}

fn unix(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Why a session handle was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HandleError {
    Malformed,
    UnknownKey,
    Forged,
    Expired,
    OtherAgent,
    OtherManifest,
}

impl std::fmt::Display for HandleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed => f.write_str("the session handle is malformed: pass the `session` string of the last result as it was"),
            Self::UnknownKey => f.write_str("the session handle was sealed with a key this server does not have (forged, or from before a key rotation)"),
            Self::Forged => f.write_str("the session handle is forged: its seal does not match"),
            Self::Expired => f.write_str("the session handle has expired: start a new conversation without `session`"),
            Self::OtherAgent => f.write_str("the session handle belongs to another agent"),
            Self::OtherManifest => f.write_str("the session handle was made for other content (another manifest): start a new conversation without `session`"),
        }
    }
}

impl std::error::Error for HandleError {}

impl HandleError {
    /// A stable code for the result's `code` field.
    pub(crate) fn code(self) -> &'static str {
        match self {
            HandleError::Malformed => "session_malformed",
            HandleError::UnknownKey => "session_unknown_key",
            HandleError::Forged => "session_forged",
            HandleError::Expired => "session_expired",
            HandleError::OtherAgent => "session_other_agent",
            HandleError::OtherManifest => "session_other_manifest",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
    }

    #[test]
    fn hmac_sha256_gives_rfc_4231s_tags() {
        let cases: [(&[u8], &[u8], &str); 4] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            // A key longer than a block is hashed first.
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            // A key of exactly a block, a message of several (Python's `hmac`).
            (
                &[b'k'; 64],
                &[b'x'; 200],
                "3c469482eb841790ea999241b8c6238f7a2df12b5bf79eb6d7ab592729ed9954",
            ),
        ];
        for (key, message, tag) in cases {
            assert_eq!(hex(&hmac_sha256(key, message)), tag);
        }
        assert!(equal_in_constant_time(b"same", b"same"));
        assert!(!equal_in_constant_time(b"same", b"sane"));
        assert!(!equal_in_constant_time(b"same", b"same!"));
        assert!(!equal_in_constant_time(b"", b"x"));
    }

    fn state(agent: &str) -> SessionState {
        SessionState {
            agent: agent.to_owned(),
            skills: vec!["webSearch".to_owned(), "dataAnalysis".to_owned()],
            toolsets: vec![],
            tools: vec![],
            loaded_toolsets: vec![],
            history: vec![],
            history_dropped: 0,
            fingerprint: "00112233aabbccdd".to_owned(),
        }
    }

    const KEY: &str = "0123456789abcdef0123456789abcdef";
    const OTHER: &str = "fedcba9876543210fedcba9876543210";

    #[test]
    fn a_sealed_state_opens_with_the_same_key_and_its_previous_successor() {
        let now = SystemTime::now();
        let keys = SessionKeys::new(KEY).unwrap();
        let handle = keys.seal(&state("a"), now);
        assert!(handle.starts_with(&format!("cs1.{}.", keys.key_id())));
        assert!(handle.len() < 400, "{}", handle.len());
        assert_eq!(keys.open(&handle, "a", "00112233aabbccdd", now), Ok(state("a")));
        let rotated = SessionKeys::new(OTHER).unwrap().with_previous(KEY).unwrap();
        assert_eq!(rotated.open(&handle, "a", "00112233aabbccdd", now), Ok(state("a")));
        let other = SessionKeys::new(OTHER).unwrap();
        assert_eq!(
            other.open(&handle, "a", "00112233aabbccdd", now),
            Err(HandleError::UnknownKey)
        );
    }

    #[test]
    fn forged_expired_and_misdirected_handles_are_refused() {
        let now = SystemTime::now();
        let keys = SessionKeys::new(KEY).unwrap().with_ttl(Duration::from_mins(1));
        let handle = keys.seal(&state("a"), now);
        let fp = "00112233aabbccdd";
        // A payload changed by the client (one more skill) keeps the old tag.
        let (signed, tag) = handle.rsplit_once('.').unwrap();
        let (head, _) = signed.rsplit_once('.').unwrap();
        let mut forged_state = state("a");
        forged_state.skills.push("secret".to_owned());
        let body = URL_SAFE_NO_PAD.encode(
            serde_json::to_vec(&Sealed {
                exp: u64::MAX,
                state: forged_state,
            })
            .unwrap(),
        );
        let forged = format!("{head}.{body}.{tag}");
        assert_eq!(keys.open(&forged, "a", fp, now), Err(HandleError::Forged));
        assert_eq!(
            keys.open(&format!("{signed}.AAAA"), "a", fp, now),
            Err(HandleError::Forged)
        );
        assert_eq!(keys.open("nonsense", "a", fp, now), Err(HandleError::Malformed));
        assert_eq!(keys.open("", "a", fp, now), Err(HandleError::Malformed));
        let later = now + Duration::from_secs(61);
        assert_eq!(keys.open(&handle, "a", fp, later), Err(HandleError::Expired));
        assert_eq!(keys.open(&handle, "b", fp, now), Err(HandleError::OtherAgent));
        assert_eq!(
            keys.open(&handle, "a", "ffffffffffffffff", now),
            Err(HandleError::OtherManifest)
        );
        assert!(SessionKeys::new("short").is_err());
        assert!(!format!("{keys:?}").contains(KEY));
    }
}
