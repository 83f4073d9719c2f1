//! Where tokens live: a [`TokenStore`] keyed by the server's URL. [`FileStore`], the
//! default, is one JSON file with owner-only permissions; [`KeyringStore`](super::KeyringStore)
//! keeps them in the OS keyring; a secrets manager plugs in through the trait.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

/// The name of the file [`FileStore`] keeps in its directory.
pub const TOKEN_FILE: &str = "tokens.json";

/// The largest token file read (a bigger one is refused, not loaded into memory).
const MAX_FILE_BYTES: u64 = 4 << 20;

/// How to recover from a token file carnet cannot use.
const FILE_FIX: &str = "delete it (the tokens in it are lost) and sign in again with `carnet mcp login TOOLSET`";

/// Keeps what an authorization server granted for each MCP server: the client ID, the
/// access and refresh tokens, the scopes. Entries are opaque JSON text, keyed by the
/// server's URL.
///
/// Implement it to keep tokens in a secrets manager; errors are messages that must never
/// include an entry's text.
///
/// carnet loads a server's entry when it connects, before it knows whether the server needs a
/// token at all, and an error from [`load`](TokenStore::load) fails that connection. A store
/// whose trouble is not the entry itself (an unreadable file, an unreachable keyring) should
/// answer `None` there and report the trouble from [`save`](TokenStore::save), where a token
/// is actually needed: the stores here do, so a corrupt store fails only the servers that
/// require OAuth.
pub trait TokenStore: Send + Sync + std::fmt::Debug {
    /// The entry of `server`, if any.
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    fn load(&self, server: &str) -> Result<Option<String>, String>;
    /// Replaces the entry of `server` (`None`: removes it).
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    fn save(&self, server: &str, entry: Option<&str>) -> Result<(), String>;
    /// Where the tokens are, for people: a path, a keyring's name.
    fn location(&self) -> String {
        format!("{self:?}")
    }
    /// Why the store, or the entry of `server`, cannot be used, if it cannot: what a refusal
    /// for want of a token adds, since [`load`](TokenStore::load) answered `None` for it.
    fn unusable(&self, server: &str) -> Option<String> {
        let _ = server;
        None
    }
}

/// Answers `None` for a store that cannot be read, with one warning (no entry's text in it)
/// the first time: see [`TokenStore`] on why `load` tolerates what `save` reports.
pub(super) fn unusable_as_none(loaded: Result<Option<String>, String>, warned: &AtomicBool) -> Option<String> {
    match loaded {
        Ok(entry) => entry,
        Err(message) => {
            if !warned.swap(true, Ordering::AcqRel) {
                tracing::warn!(target: "carnet::oauth", "the token store is not used: {message}");
            }
            None
        }
    }
}

/// Tokens in one JSON file, `tokens.json`, readable and writable by its owner only (mode
/// 0600, in a directory of mode 0700 on Unix), replaced atomically on each write.
///
/// A file carnet cannot use (not JSON, not an object of entries, over 4 MiB, unreadable)
/// holds no token for [`load`](TokenStore::load), so servers that need none still work;
/// [`save`](TokenStore::save) refuses to replace it, with its path, what is wrong and how
/// to recover.
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    /// Serializes this process's read-modify-write cycles.
    lock: std::sync::Mutex<()>,
    /// Whether an unusable file was warned about.
    warned: AtomicBool,
}

impl FileStore {
    /// A store in directory `dir` (created, owner-only, on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileStore {
            dir: dir.into(),
            lock: std::sync::Mutex::new(()),
            warned: AtomicBool::new(false),
        }
    }

    /// The default directory: `$CARNET_OAUTH_DIR`, else `$XDG_CONFIG_HOME/carnet/oauth`,
    /// else `$HOME/.config/carnet/oauth`; `None` when none of them is set.
    #[must_use]
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        var("CARNET_OAUTH_DIR")
            .or_else(|| var("XDG_CONFIG_HOME").map(|d| d.join("carnet").join("oauth")))
            .or_else(|| var("HOME").map(|d| d.join(".config").join("carnet").join("oauth")))
    }

    /// The file the tokens are in.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.dir.join(TOKEN_FILE)
    }

    /// Every entry of the file (none when there is no file).
    fn read(&self) -> Result<BTreeMap<String, String>, String> {
        let path = self.path();
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(format!("cannot read the token file `{}`: {e}", path.display())),
        };
        let too_big = |bytes: u64| {
            format!(
                "the token file `{}` is {bytes} bytes, over the {MAX_FILE_BYTES} carnet reads: {FILE_FIX}",
                path.display()
            )
        };
        if let Ok(metadata) = file.metadata()
            && metadata.len() > MAX_FILE_BYTES
        {
            return Err(too_big(metadata.len()));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_FILE_BYTES + 1), &mut bytes)
            .map_err(|e| format!("cannot read the token file `{}`: {e}", path.display()))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_big(bytes.len() as u64));
        }
        // What is wrong, by position: the parser's own message may quote the text.
        serde_json::from_slice(&bytes).map_err(|e| {
            let what = match e.classify() {
                serde_json::error::Category::Data => "not an object of text entries".to_owned(),
                serde_json::error::Category::Eof => "JSON that ends too soon".to_owned(),
                _ => format!("not JSON (line {}, column {})", e.line(), e.column()),
            };
            format!(
                "the token file `{}` is not a carnet token file ({what}): {FILE_FIX}",
                path.display()
            )
        })
    }

    fn write(&self, entries: &BTreeMap<String, String>) -> Result<(), String> {
        create_private_dir(&self.dir)?;
        let path = self.path();
        let temporary = self.dir.join(format!(".{TOKEN_FILE}.{}", std::process::id()));
        let text = serde_json::to_string_pretty(entries).map_err(|e| e.to_string())?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options
            .open(&temporary)
            .and_then(|mut file| file.write_all(text.as_bytes()).and_then(|()| file.sync_all()));
        if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, &path)) {
            let _ = std::fs::remove_file(&temporary);
            return Err(format!("cannot write `{}`: {e}", path.display()));
        }
        Ok(())
    }
}

/// Creates `dir` (and its parents) with mode 0700 on Unix; an existing one is left as is.
fn create_private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))
}

impl TokenStore for FileStore {
    fn load(&self, server: &str) -> Result<Option<String>, String> {
        let _guard = self.lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let read = self.read().map(|mut entries| entries.remove(server));
        Ok(unusable_as_none(read, &self.warned))
    }

    fn save(&self, server: &str, entry: Option<&str>) -> Result<(), String> {
        let _guard = self.lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut entries = self.read()?;
        let changed = match entry {
            Some(entry) => entries.insert(server.to_owned(), entry.to_owned()).as_deref() != Some(entry),
            None => entries.remove(server).is_some(),
        };
        if changed { self.write(&entries) } else { Ok(()) }
    }

    fn location(&self) -> String {
        format!("`{}`", self.path().display())
    }

    fn unusable(&self, _: &str) -> Option<String> {
        let _guard = self.lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.read().err()
    }
}

/// Tokens in memory only, lost when the process ends (a program that signs in with client
/// credentials each time it starts needs no file).
#[derive(Debug, Default)]
pub struct MemoryStore(std::sync::Mutex<BTreeMap<String, String>>);

impl TokenStore for MemoryStore {
    fn load(&self, server: &str) -> Result<Option<String>, String> {
        Ok(self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(server)
            .cloned())
    }

    fn save(&self, server: &str, entry: Option<&str>) -> Result<(), String> {
        let mut entries = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match entry {
            Some(entry) => entries.insert(server.to_owned(), entry.to_owned()),
            None => entries.remove(server),
        };
        Ok(())
    }
}

/// A store that could not be had (an unknown `CARNET_TOKEN_STORE`, no keyring on this
/// system): it holds no token, and keeping one fails with the reason.
#[derive(Debug)]
pub(super) struct Unavailable {
    why: String,
    warned: AtomicBool,
}

impl Unavailable {
    pub(super) fn new(why: String) -> Self {
        Unavailable {
            why,
            warned: AtomicBool::new(false),
        }
    }
}

impl TokenStore for Unavailable {
    fn load(&self, _: &str) -> Result<Option<String>, String> {
        Ok(unusable_as_none(Err(self.why.clone()), &self.warned))
    }

    fn save(&self, _: &str, _: Option<&str>) -> Result<(), String> {
        Err(format!("no token store: {}", self.why))
    }

    fn location(&self) -> String {
        format!("nowhere ({})", self.why)
    }

    fn unusable(&self, _: &str) -> Option<String> {
        Some(self.why.clone())
    }
}

/// rmcp's view of one server's entry in a [`TokenStore`].
pub(super) struct Entry {
    pub(super) store: Arc<dyn TokenStore>,
    pub(super) server: String,
}

fn store_error(message: String) -> AuthError {
    AuthError::CredentialStoreError(message)
}

#[async_trait::async_trait]
impl CredentialStore for Entry {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(text) = self.store.load(&self.server).map_err(store_error)? else {
            return Ok(None);
        };
        // An entry that no longer parses (another version wrote it) is as good as none:
        // the next authorization replaces it.
        Ok(serde_json::from_str(&text).ok())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials)
            .map_err(|_| store_error("the credentials cannot be serialized".into()))?;
        self.store.save(&self.server, Some(&text)).map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store.save(&self.server, None).map_err(store_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_store_keeps_entries_owner_only_and_removes_them() {
        let dir = std::env::temp_dir().join(format!("carnet-oauth-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = FileStore::new(dir.join("nested"));
        assert_eq!(store.load("http://a/mcp").unwrap(), None);
        assert_eq!(store.unusable("http://a/mcp"), None, "no file is an empty store");
        store.save("http://a/mcp", Some("{\"x\":1}")).unwrap();
        store.save("http://b/mcp", Some("{\"y\":2}")).unwrap();
        assert_eq!(store.load("http://a/mcp").unwrap().as_deref(), Some("{\"x\":1}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&store.path()), 0o600);
            assert_eq!(mode(&dir.join("nested")), 0o700);
        }
        store.save("http://a/mcp", None).unwrap();
        assert_eq!(store.load("http://a/mcp").unwrap(), None);
        assert!(store.load("http://b/mcp").unwrap().is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file carnet cannot use holds no token, and writing says where it is, what is wrong
    /// and how to recover, never what the file holds.
    #[test]
    fn an_unusable_file_holds_no_token_and_refuses_writes_with_its_path() {
        let dir = std::env::temp_dir().join(format!("carnet-oauth-corrupt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = FileStore::new(&dir);
        let path = store.path().display().to_string();
        for (text, what) in [
            ("secret-token-not-json", "not JSON (line 1, column 1)"),
            ("{\"http://a/mcp\": \"secret-token", "ends too soon"),
            ("[\"secret-token\"]", "not an object of text entries"),
            (
                "{\"http://a/mcp\": {\"secret-token\": 1}}",
                "not an object of text entries",
            ),
        ] {
            std::fs::write(store.path(), text).unwrap();
            assert_eq!(store.load("http://a/mcp").unwrap(), None, "{text}");
            let why = store.unusable("http://a/mcp").expect("unusable");
            assert!(why.contains(&path) && why.contains(what), "{why}");
            for error in [
                store.save("http://a/mcp", Some("{}")).unwrap_err(),
                store.save("http://a/mcp", None).unwrap_err(),
            ] {
                assert!(error.contains(&path) && error.contains(what), "{error}");
                assert!(
                    error.contains("delete it") && error.contains("carnet mcp login"),
                    "{error}"
                );
                assert!(!error.contains("secret-token"), "{error}");
            }
            assert_eq!(std::fs::read_to_string(store.path()).unwrap(), text, "left as it was");
        }
        // A huge file is refused by its size, not read.
        let file = std::fs::File::create(store.path()).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        assert_eq!(store.load("http://a/mcp").unwrap(), None);
        let error = store.save("http://a/mcp", None).unwrap_err();
        assert!(error.contains(&path) && error.contains("over the 4194304"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
