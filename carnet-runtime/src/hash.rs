//! The one hash of the runtime: stable across platforms and releases (unlike `std`'s
//! `DefaultHasher`), usable in `const` contexts. It fingerprints manifests (saved session
//! states carry the fingerprint, so its output for given bytes must never change; the tests
//! of `json` pin it).

/// A 64-bit hash taking its input 8 bytes at a time (little-endian words, so the same on
/// every platform).
#[derive(Debug, Clone, Copy)]
pub(crate) struct StableHasher {
    hash: u64,
    pending: [u8; 8],
    filled: usize,
    length: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StableHasher {
    pub(crate) const fn new() -> Self {
        StableHasher {
            hash: 0xcbf2_9ce4_8422_2325,
            pending: [0; 8],
            filled: 0,
            length: 0,
        }
    }

    const fn word(&mut self, word: u64) {
        self.hash = (self.hash ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }

    /// Adds bytes; the hash depends on their sequence, not on how it is split into calls.
    pub(crate) const fn bytes(&mut self, bytes: &[u8]) {
        self.length += bytes.len() as u64;
        let mut i = 0;
        while i < bytes.len() {
            self.pending[self.filled] = bytes[i];
            self.filled += 1;
            i += 1;
            if self.filled == 8 {
                self.word(u64::from_le_bytes(self.pending));
                self.filled = 0;
            }
        }
    }

    pub(crate) const fn finish(mut self) -> u64 {
        let mut tail = [0u8; 8];
        let mut i = 0;
        while i < self.filled {
            tail[i] = self.pending[i];
            i += 1;
        }
        self.word(u64::from_le_bytes(tail));
        self.word(self.length);
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

/// The hash of `bytes`.
#[cfg(test)]
pub(crate) const fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = StableHasher::new();
    hasher.bytes(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_the_input_does_not_change_the_hash() {
        const AT_COMPILE_TIME: u64 = hash(b"search-tools");
        let data: Vec<u8> = (0..=255).collect();
        for split in [0, 1, 7, 8, 9, 100, 256] {
            let mut h = StableHasher::new();
            h.bytes(&data[..split]);
            h.bytes(&data[split..]);
            assert_eq!(h.finish(), hash(&data), "split at {split}");
        }
        assert_ne!(hash(b"search-tools"), hash(b"filter-tools"));
        assert_eq!(AT_COMPILE_TIME, hash(b"search-tools"));
    }
}
