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
        let mut rest = bytes;
        // Complete a word begun by an earlier call, then take whole words from the input
        // (the build script hashes every text of the manifest, at opt-level 0 by default).
        while self.filled != 0 {
            let [first, tail @ ..] = rest else {
                return;
            };
            self.pending[self.filled] = *first;
            self.filled += 1;
            rest = tail;
            if self.filled == 8 {
                self.word(u64::from_le_bytes(self.pending));
                self.filled = 0;
            }
        }
        while let Some((word, tail)) = rest.split_first_chunk::<8>() {
            self.word(u64::from_le_bytes(*word));
            rest = tail;
        }
        let mut i = 0;
        while i < rest.len() {
            self.pending[i] = rest[i];
            i += 1;
        }
        self.filled = rest.len();
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
        // Three pieces of every length, against the definition: whole words, a zero-padded
        // tail, then the length.
        let reference = |bytes: &[u8]| {
            let mut h = StableHasher::new();
            let mut chunks = bytes.chunks(8);
            for chunk in chunks.by_ref() {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                if chunk.len() == 8 {
                    h.word(u64::from_le_bytes(word));
                } else {
                    h.filled = chunk.len();
                    h.pending = word;
                }
            }
            h.length = bytes.len() as u64;
            h.finish()
        };
        for a in 0..20 {
            for b in a..40 {
                let mut h = StableHasher::new();
                h.bytes(&data[..a]);
                h.bytes(&data[a..b]);
                h.bytes(&data[b..40]);
                assert_eq!(h.finish(), reference(&data[..40]), "pieces {a}, {b}");
            }
        }
        assert_ne!(hash(b"search-tools"), hash(b"filter-tools"));
        assert_eq!(AT_COMPILE_TIME, hash(b"search-tools"));
    }
}
