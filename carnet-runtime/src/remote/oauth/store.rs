//! Where tokens live: a [`TokenStore`] keyed by the server's URL. [`FileStore`], the
//! default, is one JSON file with owner-only permissions; a keyring or a secrets manager
//! plugs in through the trait.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

/// The name of the file [`FileStore`] keeps in its directory.
pub const TOKEN_FILE: &str = "tokens.json";

/// The largest token file read (a bigger one is refused, not loaded into memory).
const MAX_FILE_BYTES: u64 = 4 << 20;

/// Keeps what an authorization server granted for each MCP server: the client ID, the
/// access and refresh tokens, the scopes. Entries are opaque JSON text, keyed by the
/// server's URL.
///
/// Implement it to keep tokens in an OS keyring or a secrets manager; errors are
/// messages that must never include an entry's text.
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
}

/// Tokens in one JSON file, `tokens.json`, readable and writable by its owner only (mode
/// 0600, in a directory of mode 0700 on Unix), replaced atomically on each write.
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    /// Serializes this process's read-modify-write cycles.
    lock: std::sync::Mutex<()>,
}

impl FileStore {
    /// A store in directory `dir` (created, owner-only, on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileStore {
            dir: dir.into(),
            lock: std::sync::Mutex::new(()),
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

    fn read(&self) -> Result<BTreeMap<String, String>, String> {
        let path = self.path();
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
        };
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_FILE_BYTES + 1), &mut text)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(format!("`{}` is over {MAX_FILE_BYTES} bytes", path.display()));
        }
        // The parser's message may quote the text: it is not repeated.
        serde_json::from_str(&text).map_err(|_| format!("`{}` is not a carnet token file", path.display()))
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
        Ok(self.read()?.remove(server))
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
        std::fs::write(store.path(), "secret-token-not-json").unwrap();
        let error = store.load("http://b/mcp").unwrap_err();
        assert!(!error.contains("secret-token"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
