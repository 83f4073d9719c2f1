//! Reading files of untrusted content: regular files only (a FIFO would block the build
//! forever, `/dev/zero` would never end), and never more than a limit.

use std::fmt;
use std::fs;
use std::io::{self, Read as _};
use std::path::Path;

use crate::messages;

/// Why a file was not read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Not a regular file: what it is instead (`a FIFO`, `a character device`, ...).
    NotAFile(&'static str),
    /// Larger than the limit, in bytes.
    TooLarge {
        limit: u64,
    },
    /// Reading it went over the limit on bytes read in all.
    OverTotal {
        limit: u64,
    },
    Io(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotAFile(kind) => f.write_str(&messages::not_a_regular_file(kind)),
            ReadError::TooLarge { limit } => f.write_str(&messages::larger_than(*limit)),
            ReadError::OverTotal { limit } => f.write_str(&messages::over_total(*limit)),
            ReadError::Io(e) => e.fmt(f),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// What a file type is, for "is not a regular file" messages.
pub(crate) fn kind(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return messages::A_FIFO;
        }
        if file_type.is_socket() {
            return messages::A_SOCKET;
        }
        if file_type.is_char_device() {
            return messages::A_CHARACTER_DEVICE;
        }
        if file_type.is_block_device() {
            return messages::A_BLOCK_DEVICE;
        }
    }
    if file_type.is_dir() {
        messages::A_DIRECTORY
    } else {
        messages::A_SPECIAL_FILE
    }
}

/// Reads files within the limits on one file's size and on the bytes read in all. Shared by
/// the threads that read ahead, hence the atomic.
#[derive(Debug)]
pub(crate) struct Budget {
    max_file: u64,
    max_total: u64,
    read: std::sync::atomic::AtomicU64,
}

impl Budget {
    pub(crate) fn new(limits: &crate::Limits) -> Self {
        Budget {
            max_file: limits.max_file_size,
            max_total: limits.max_total_size,
            read: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Reads `path` with [`bounded`] and counts its bytes. Memory stays under the total
    /// limit plus one file per thread.
    pub(crate) fn read(&self, path: &Path) -> Result<Vec<u8>, ReadError> {
        self.read_listed(path, false)
    }

    /// [`Budget::read`] of a file the folder listing said is regular (`regular`).
    pub(crate) fn read_listed(&self, path: &Path, regular: bool) -> Result<Vec<u8>, ReadError> {
        use std::sync::atomic::Ordering;
        let over = ReadError::OverTotal { limit: self.max_total };
        if self.read.load(Ordering::Relaxed) > self.max_total {
            return Err(over);
        }
        let data = read_bounded(path, self.max_file, regular)?;
        let before = self.read.fetch_add(data.len() as u64, Ordering::Relaxed);
        if before + data.len() as u64 > self.max_total {
            return Err(over);
        }
        Ok(data)
    }
}

/// Reads the regular file at `path` (links followed), at most `limit` bytes.
///
/// The type is checked before opening, and the file is opened non-blocking, so a FIFO
/// swapped in between cannot block either; the type is checked again on the open handle.
pub(crate) fn bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_bounded(path, limit, false)
}

/// `open(2)`'s `O_NONBLOCK` (the values the `libc` crate gives, without compiling it into
/// every build script for one constant): Linux and Android (but MIPS and SPARC), the BSDs
/// and Apple's systems, Solaris and illumos. Elsewhere files open without it; their type is
/// still checked before and after opening.
#[cfg(unix)]
const O_NONBLOCK: i32 = if cfg!(any(target_os = "linux", target_os = "android")) {
    if cfg!(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "mips32r6",
        target_arch = "mips64r6"
    )) {
        0o200
    } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
        0x4000
    } else {
        0o4000
    }
} else if cfg!(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
)) {
    0x4
} else if cfg!(any(target_os = "solaris", target_os = "illumos")) {
    0x80
} else {
    0
};

/// [`bounded`]; `regular` when a folder listing just said the path is a regular file, which
/// spares the check before opening (a thousand skills are some ten thousand files: each
/// system call counts).
fn read_bounded(path: &Path, limit: u64, regular: bool) -> Result<Vec<u8>, ReadError> {
    if !regular {
        let meta = fs::metadata(path)?;
        if !meta.is_file() {
            return Err(ReadError::NotAFile(kind(meta.file_type())));
        }
        if meta.len() > limit {
            return Err(ReadError::TooLarge { limit });
        }
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind(meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    // The length read from the handle is the bound; a file that says it is empty may still
    // hold text (as in /proc), so that one is read to its end, up to the limit.
    let len = meta.len();
    let mut data = Vec::new();
    if len > 0 {
        // One read when the length holds: `take` stops there without asking again.
        data.reserve_exact(usize::try_from(len).unwrap_or(0));
        file.take(len).read_to_end(&mut data)?;
        return Ok(data);
    }
    file.take(limit.saturating_add(1)).read_to_end(&mut data)?;
    if data.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_only_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.md");
        fs::write(&file, "12345").unwrap();
        assert_eq!(bounded(&file, 5).unwrap(), b"12345");
        assert!(matches!(bounded(&file, 4), Err(ReadError::TooLarge { limit: 4 })));
        assert!(matches!(bounded(dir.path(), 10), Err(ReadError::NotAFile(_))));
        #[cfg(unix)]
        {
            let err = bounded(Path::new("/dev/zero"), 10).unwrap_err();
            assert_eq!(err.to_string(), "it is a character device, not a regular file");
        }
    }

    /// A FIFO swapped in after the listing said "a regular file": opening it must not wait for
    /// a writer (that is what `O_NONBLOCK` is for; a wrong value would hang here).
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn a_fifo_opens_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("SKILL.md");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || send.send(read_bounded(&fifo, 10, true).map_err(|e| e.to_string())));
        let read = receive
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("opening a FIFO does not block");
        assert_eq!(read.unwrap_err(), "it is a FIFO, not a regular file");
    }
}
