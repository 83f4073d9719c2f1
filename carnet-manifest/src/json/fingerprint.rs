//! The manifest's fingerprint: identifies the content a session state was produced against.
//!
//! Saved session states carry it, so its value for a given manifest must never change: the
//! fields are hashed in a fixed order, each length-prefixed, with a hash written out here
//! rather than `std`'s (whose output may change between releases). `tests/json.rs` pins it.

use crate::hash::StableHasher as FingerprintHasher;
use crate::manifest::{Manifest, Text};

impl Manifest {
    /// Computes the fingerprint of the manifest's content (ignores the `fingerprint` field):
    /// a 64-bit hash of every field, each length-prefixed, in a fixed order. Stable across
    /// platforms and releases as long as the manifest's fields do not change.
    #[must_use]
    pub fn compute_fingerprint(&self) -> u64 {
        let mut h = FingerprintHasher::default();
        let text = |h: &mut FingerprintHasher, s: &str| {
            h.bytes(&(s.len() as u64).to_le_bytes());
            h.bytes(s.as_bytes());
        };
        let texts = |h: &mut FingerprintHasher, list: &[Text]| {
            h.bytes(&(list.len() as u64).to_le_bytes());
            for s in list {
                text(h, s);
            }
        };
        let option = |h: &mut FingerprintHasher, s: Option<&Text>| match s {
            Some(s) => {
                h.bytes(&[1]);
                text(h, s);
            }
            None => h.bytes(&[0]),
        };
        h.bytes(&self.version.to_le_bytes());
        texts(&mut h, &self.app.global_initial_skills);
        texts(&mut h, &self.app.global_skills);
        h.bytes(&(self.agents.len() as u64).to_le_bytes());
        for a in &*self.agents {
            for s in [&a.name, &a.description, &a.prompt, &a.extra] {
                text(&mut h, s);
            }
            texts(&mut h, &a.initial_skills);
            texts(&mut h, &a.skills);
        }
        h.bytes(&(self.skills.len() as u64).to_le_bytes());
        for s in &*self.skills {
            for t in [&s.name, &s.description, &s.content, &s.metadata, &s.extra] {
                text(&mut h, t);
            }
            texts(&mut h, &s.toolsets);
            texts(&mut h, &s.allowed_tools);
            if let Some(remote) = &s.remote {
                h.bytes(b"remote");
                text(&mut h, remote);
            }
            option(&mut h, s.license.as_ref());
            option(&mut h, s.compatibility.as_ref());
            h.bytes(&(s.files.len() as u64).to_le_bytes());
            for f in &*s.files {
                text(&mut h, &f.path);
                option(&mut h, f.description.as_ref());
                text(&mut h, &f.media_type);
                h.bytes(&[u8::from(f.is_text)]);
                h.bytes(&(f.data.len() as u64).to_le_bytes());
                h.bytes(&f.data);
            }
        }
        h.bytes(&(self.toolsets.len() as u64).to_le_bytes());
        for t in &*self.toolsets {
            for s in [&t.name, &t.description, &t.content] {
                text(&mut h, s);
            }
            // Hashed only when present, so the fingerprints of manifests without remote
            // toolsets stay what they were before remote toolsets existed.
            if let Some(mcp) = &t.mcp {
                h.bytes(b"mcp");
                text(&mut h, mcp);
            }
            h.bytes(&(t.tools.len() as u64).to_le_bytes());
            for tool in &*t.tools {
                for s in [&tool.name, &tool.description, &tool.content] {
                    text(&mut h, s);
                }
                if let Some(remote) = &tool.remote {
                    h.bytes(b"remote");
                    text(&mut h, remote);
                }
                // Hashed only when present, as `remote`: fingerprints of manifests without
                // them are unchanged.
                if let Some(title) = &tool.title {
                    h.bytes(b"title");
                    text(&mut h, title);
                }
                if !tool.annotations.is_empty() {
                    h.bytes(b"annotations");
                    for (key, value) in tool.annotations.hints() {
                        h.bytes(key.as_bytes());
                        h.bytes(&[u8::from(value)]);
                    }
                }
            }
        }
        h.bytes(&(self.variables.len() as u64).to_le_bytes());
        for (k, v) in &*self.variables {
            text(&mut h, k);
            text(&mut h, v);
        }
        texts(&mut h, &self.env_prefixes);
        h.finish()
    }
}
