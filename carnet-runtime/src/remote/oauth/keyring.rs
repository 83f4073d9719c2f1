//! Tokens in the operating system's keyring: [`KeyringStore`], one keyring entry per server
//! (service `carnet-oauth`, user the server's URL), its text the entry [`FileStore`] would
//! keep for that server.
//!
//! The backends are the `keyring` crate's native ones, chosen by the target: the kernel's
//! key retention service on Linux (keyutils: no D-Bus, no daemon; keys live in the session
//! keyring, linked to the user's persistent keyring, and are gone after a reboot), the
//! Keychain on macOS, the Credential Manager on Windows. Elsewhere there is no keyring
//! and [`KeyringStore::new`] says so.
//!
//! [`FileStore`]: super::FileStore

use std::sync::atomic::AtomicBool;

use super::store::{TokenStore, unusable_as_none};

/// The keyring service carnet's entries are filed under by default.
pub const KEYRING_SERVICE: &str = "carnet-oauth";

/// The largest entry kept or read: a Linux `user` key holds at most 32767 bytes. (The Windows
/// Credential Manager holds 2560: a bigger entry is refused there by the keyring itself.)
const MAX_ENTRY_BYTES: usize = 32_767;

/// Tokens in the OS keyring, one entry per server URL: the Linux kernel's keyring
/// (keyutils), the macOS Keychain or the Windows Credential Manager.
///
/// A keyring that cannot be reached, or an entry that cannot be read, holds no token for
/// [`load`](TokenStore::load) (servers that need none still work); [`save`](TokenStore::save)
/// reports it. Errors name the service and the server, never an entry's text.
#[derive(Debug)]
pub struct KeyringStore {
    service: String,
    /// Whether an unusable keyring was warned about.
    warned: AtomicBool,
}

impl KeyringStore {
    /// A store whose entries are filed under `service` (carnet's own: [`KEYRING_SERVICE`]).
    ///
    /// # Errors
    ///
    /// The target has no keyring carnet can reach (not Linux, macOS or Windows), or
    /// `service` is empty.
    pub fn new(service: impl Into<String>) -> Result<Self, String> {
        let service = service.into();
        if service.is_empty() {
            return Err("a keyring service name cannot be empty".to_owned());
        }
        #[cfg(target_os = "linux")]
        join_a_session_keyring();
        if cfg!(any(target_os = "linux", target_os = "macos", target_os = "windows")) {
            Ok(KeyringStore {
                service,
                warned: AtomicBool::new(false),
            })
        } else {
            Err("this system has no OS keyring carnet can use: keep tokens in a file (`file`)".to_owned())
        }
    }

    /// The service the entries are filed under.
    #[must_use]
    pub fn service(&self) -> &str {
        &self.service
    }

    /// Says what went wrong with the entry of `server`, never its text.
    fn error(&self, server: &str, doing: &str, error: &dyn std::fmt::Display) -> String {
        format!(
            "cannot {doing} the OS keyring's entry `{}` for `{server}`: {error}",
            self.service
        )
    }
}

/// Gives the process a session keyring of its own, once, before any entry is used.
///
/// `keyring`'s keyutils backend takes the session keyring, then asks for the user's
/// persistent keyring to be linked into it. In a process that has no session keyring (a
/// service, CI, a container: it falls back to the user-session keyring) that request creates
/// one, so the first entry would hold the fallback, through which the persistent keyring
/// cannot be linked (`EACCES`, which `keyring` reports as "no matching entry") and other
/// processes would not find the key. An entry made and dropped first (it creates no key)
/// settles which keyring every later entry uses.
#[cfg(target_os = "linux")]
fn join_a_session_keyring() {
    static JOINED: std::sync::Once = std::sync::Once::new();
    JOINED.call_once(|| drop(keyring::Entry::new(KEYRING_SERVICE, "session")));
}

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
impl KeyringStore {
    /// The entry of `server`, if any; an error when the keyring or the entry cannot be read.
    fn read(&self, server: &str) -> Result<Option<String>, String> {
        let entry = keyring::Entry::new(&self.service, server).map_err(|e| self.error(server, "read", &e))?;
        match entry.get_secret() {
            Ok(bytes) if bytes.len() > MAX_ENTRY_BYTES => Err(self.error(
                server,
                "read",
                &format!(
                    "it holds {} bytes, over the {MAX_ENTRY_BYTES} a token entry may",
                    bytes.len()
                ),
            )),
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| self.error(server, "read", &"it is not UTF-8 text")),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(self.error(server, "read", &e)),
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
impl TokenStore for KeyringStore {
    fn load(&self, server: &str) -> Result<Option<String>, String> {
        Ok(unusable_as_none(self.read(server), &self.warned))
    }

    fn save(&self, server: &str, text: Option<&str>) -> Result<(), String> {
        let entry = keyring::Entry::new(&self.service, server).map_err(|e| self.error(server, "write", &e))?;
        match text {
            Some(text) if text.len() > MAX_ENTRY_BYTES => Err(self.error(
                server,
                "write",
                &format!(
                    "the entry is {} bytes, over the {MAX_ENTRY_BYTES} a keyring entry may hold",
                    text.len()
                ),
            )),
            Some(text) => entry.set_password(text).map_err(|e| self.error(server, "write", &e)),
            None => match entry.delete_credential() {
                Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
                Err(e) => Err(self.error(server, "remove", &e)),
            },
        }
    }

    fn location(&self) -> String {
        format!("the OS keyring (service `{}`)", self.service)
    }

    fn unusable(&self, server: &str) -> Option<String> {
        self.read(server).err()
    }
}

/// No keyring on this target: [`KeyringStore::new`] refuses, so no store exists to call.
#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
impl TokenStore for KeyringStore {
    fn load(&self, _: &str) -> Result<Option<String>, String> {
        Err("this system has no OS keyring".to_owned())
    }

    fn save(&self, _: &str, _: Option<&str>) -> Result<(), String> {
        Err("this system has no OS keyring".to_owned())
    }
}

#[cfg(target_os = "linux")]
#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    /// The kernel refuses keyctl in some sandboxes (a container's seccomp profile): then the
    /// round trip cannot run, and says so.
    fn store() -> Option<KeyringStore> {
        let store = KeyringStore::new(format!("carnet-oauth-test-{}", std::process::id())).unwrap();
        match store.read("http://probe/mcp") {
            Ok(_) => Some(store),
            Err(e) => {
                // Past libtest's capture, so that a CI log shows the skip.
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED keyring round trip: the kernel keyring cannot be used here: {e}"
                );
                None
            }
        }
    }

    #[test]
    fn entries_round_trip_through_the_kernel_keyring() {
        let Some(store) = store() else { return };
        let (a, b) = ("http://127.0.0.1:1/mcp", "https://example.test/mcp?x=1");
        assert_eq!(store.load(a).unwrap(), None);
        store.save(a, Some("{\"access\":\"one\"}")).unwrap();
        store.save(b, Some("{\"access\":\"two\"}")).unwrap();
        assert_eq!(store.load(a).unwrap().as_deref(), Some("{\"access\":\"one\"}"));
        // A second store on the same service sees the same entries (another process would).
        let again = KeyringStore::new(store.service()).unwrap();
        assert_eq!(again.load(b).unwrap().as_deref(), Some("{\"access\":\"two\"}"));
        store.save(a, Some("{\"access\":\"replaced\"}")).unwrap();
        assert_eq!(again.load(a).unwrap().as_deref(), Some("{\"access\":\"replaced\"}"));
        store.save(a, None).unwrap();
        // The kernel drops an invalidated key from searches shortly after, not at once.
        let gone = (0..50).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            store.load(a).unwrap().is_none()
        });
        assert!(gone, "the entry was removed");
        store.save(a, None).unwrap();
        assert!(store.load(b).unwrap().is_some());
        let huge = "x".repeat(MAX_ENTRY_BYTES + 1);
        let error = store.save(b, Some(&huge)).unwrap_err();
        assert!(error.contains("over the") && !error.contains("xxxx"), "{error}");
        // An entry that is not text (written by something else) is an error when read
        // strictly, and no token for `load`.
        keyring::Entry::new(store.service(), b)
            .unwrap()
            .set_secret(&[0xff, 0xfe])
            .unwrap();
        let error = store.read(b).unwrap_err();
        assert!(error.contains("not UTF-8") && error.contains(b), "{error}");
        assert_eq!(store.load(b).unwrap(), None);
        assert!(store.unusable(b).is_some_and(|why| why.contains("not UTF-8")));
        assert_eq!(store.unusable(a), None);
        store.save(b, None).unwrap();
        assert!(store.location().contains(store.service()));
        assert!(KeyringStore::new("").is_err());
    }
}
