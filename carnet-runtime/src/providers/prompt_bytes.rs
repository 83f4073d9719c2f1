//! System prompts written from the escaped text of the prompts before them.
//!
//! A prompt is most of a request body, and a session's prompts share their start: the
//! stable sections (agent prompt, initial skills, catalog) come first, and a load changes only
//! what follows. So the escaped JSON text of a prompt is kept with checkpoints (the escaped
//! length every [`BLOCK`] bytes of text), and a later prompt whose first blocks are the same
//! bytes copies their escaped text and escapes only the rest. Blocks are compared with
//! `memcmp`, never trusted by address, so any text is written right. A prompt is kept when
//! no kept one shares most of it (a new agent, new options), not on every state, so the
//! table stays small: a few entries per agent.

use std::io::{self, Write};
use std::sync::{PoisonError, RwLock};

use super::json_text::write_inner;

/// Bytes of text between checkpoints.
const BLOCK: usize = 2048;
/// Prompts kept; the oldest goes first.
const KEPT: usize = 32;

struct Escaped {
    text: Box<[u8]>,
    json: Box<[u8]>,
    /// The escaped length of `text[..BLOCK * (n + 1)]`, for each whole block `n`.
    checkpoints: Box<[usize]>,
}

impl Escaped {
    fn new(text: &[u8]) -> io::Result<Self> {
        let mut escaped = Vec::with_capacity(text.len() + text.len() / 16);
        let mut checkpoints = Vec::with_capacity(text.len() / BLOCK);
        for block in text.chunks(BLOCK) {
            write_inner(&mut escaped, block)?;
            if block.len() == BLOCK {
                checkpoints.push(escaped.len());
            }
        }
        Ok(Escaped {
            text: text.into(),
            json: escaped.into(),
            checkpoints: checkpoints.into(),
        })
    }

    /// Whole blocks at the start of `text` equal to this prompt's.
    fn shared_blocks(&self, text: &[u8]) -> usize {
        self.text
            .chunks_exact(BLOCK)
            .zip(text.chunks_exact(BLOCK))
            .take_while(|(a, b)| a == b)
            .count()
    }
}

static KEPT_PROMPTS: RwLock<Vec<Escaped>> = RwLock::new(Vec::new());

/// Writes `text` as a JSON string, quotes included, as [`super::json_text::write_str`] does.
pub(crate) fn write_prompt<W: Write + ?Sized>(out: &mut W, text: &str) -> io::Result<()> {
    let text = text.as_bytes();
    out.write_all(b"\"")?;
    if text.len() >= 2 * BLOCK {
        let kept = KEPT_PROMPTS.read().unwrap_or_else(PoisonError::into_inner);
        let best = kept
            .iter()
            .map(|e| (e, e.shared_blocks(text)))
            .max_by_key(|&(_, blocks)| blocks);
        match best {
            // Most of it is kept: copy that, escape the rest.
            Some((escaped, blocks)) if blocks * BLOCK * 2 >= text.len() => {
                out.write_all(&escaped.json[..escaped.checkpoints[blocks - 1]])?;
                drop(kept);
                write_inner(out, &text[blocks * BLOCK..])?;
            }
            // Mostly new: keep it for the prompts after it.
            _ => {
                drop(kept);
                let escaped = Escaped::new(text)?;
                out.write_all(&escaped.json)?;
                let mut kept = KEPT_PROMPTS.write().unwrap_or_else(PoisonError::into_inner);
                if kept.len() >= KEPT {
                    kept.remove(0);
                }
                kept.push(escaped);
            }
        }
    } else {
        write_inner(out, text)?;
    }
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> String {
        let mut out = Vec::new();
        write_prompt(&mut out, text).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn prompts_sharing_their_start_are_written_as_serde_json_writes_them() {
        let mut catalog = String::new();
        for n in 0..400 {
            catalog.push_str(&format!("- **skill-{n}**: does \"{n}\" things\twell — é🦀\n"));
        }
        let base = format!("You are helpful.\n\n{catalog}");
        for text in [
            base.clone(),
            format!("{base}\n\n## Loaded\n- skill-1\n"),
            format!("{base}\n\n## Loaded\n- skill-2\n\u{1}"),
            // One byte changed in the middle (blocks end inside multi-byte characters).
            format!("{}X{}", &base[..base.len() / 2], &base[base.len() / 2 + 1..]),
            base[..=BLOCK * 3].to_owned(),
            base.replace("skill-399", "changed"),
            "short".to_owned(),
        ] {
            assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
            assert_eq!(
                written(&text),
                serde_json::to_string(&text).unwrap(),
                "again, from what was kept"
            );
        }
    }
}
