//! The index as bytes: what `carnet_codegen` writes beside the generated manifest
//! (`search.bin`, embedded with `include_bytes!`) and what a manifest read at run time builds
//! in memory; the scorer reads it in place, without parsing it into structures.
//!
//! Little-endian `u32`s after a fixed header, then two blobs of text:
//!
//! ```text
//! header  magic "CSX1", tools, terms, fingerprint (u64), postings, term bytes, name bytes,
//!         total length (u64), inputs (u64: the hash of what the index was built from)
//! lengths        tools × u32         each tool's weighted length
//! term ends      terms × u32         end of each term in the term bytes (sorted terms)
//! posting ends   terms × u32         end of each term's postings
//! postings       postings × 2 u32    (tool, weighted frequency), tools ascending per term
//! name order     tools × u32         tools by normalised name (ties by number)
//! name ends      tools × u32         end of each name (in that order) in the name bytes
//! term bytes, name bytes
//! ```
//!
//! Weights are integers (tenths of a word), so the index built at build time and the one
//! built at run time are the same bytes, whatever the order of additions. Every read is
//! checked: a damaged index finds less, it never panics.

const MAGIC: &[u8; 4] = b"CSX1";
const HEADER: usize = 48;

/// What [`write`] takes: the index's parts, terms sorted.
pub(super) struct Parts<'a> {
    pub(super) fingerprint: u64,
    pub(super) inputs: u64,
    pub(super) lengths: &'a [u32],
    /// Sorted terms, each with its postings (tools ascending).
    pub(super) terms: &'a [(&'a str, &'a [(u32, u32)])],
    /// Each tool's normalised name (by tool number).
    pub(super) names: &'a [String],
}

/// The bytes of an index.
pub(super) fn write(parts: &Parts<'_>) -> Vec<u8> {
    let tools = parts.lengths.len();
    let postings: usize = parts.terms.iter().map(|(_, p)| p.len()).sum();
    let term_bytes: usize = parts.terms.iter().map(|(t, _)| t.len()).sum();
    // Stable: tools of equal names in tool order.
    let by_name: Vec<u32> = crate::order::positions(tools, &mut |a, b| parts.names[a].cmp(&parts.names[b]))
        .into_iter()
        .map(count)
        .collect();
    let name_bytes: usize = parts.names.iter().map(String::len).sum();
    let total: u64 = parts.lengths.iter().map(|&l| u64::from(l)).sum();

    let mut out =
        Vec::with_capacity(HEADER + 4 * (4 * tools + 2 * parts.terms.len() + 2 * postings) + term_bytes + name_bytes);
    out.extend_from_slice(MAGIC);
    for n in [tools, parts.terms.len()] {
        out.extend_from_slice(&count(n).to_le_bytes());
    }
    out.extend_from_slice(&parts.fingerprint.to_le_bytes());
    for n in [postings, term_bytes, name_bytes] {
        out.extend_from_slice(&count(n).to_le_bytes());
    }
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(&parts.inputs.to_le_bytes());
    debug_assert_eq!(out.len(), HEADER);
    let mut put = |n: u32| out.extend_from_slice(&n.to_le_bytes());
    for &length in parts.lengths {
        put(length);
    }
    let mut end = 0;
    for (term, _) in parts.terms {
        end += term.len();
        put(count(end));
    }
    let mut end = 0;
    for (_, postings) in parts.terms {
        end += postings.len();
        put(count(end));
    }
    for (_, postings) in parts.terms {
        for &(tool, weight) in *postings {
            put(tool);
            put(weight);
        }
    }
    for &tool in &by_name {
        put(tool);
    }
    let mut end = 0;
    for &tool in &by_name {
        end += parts.names[tool as usize].len();
        put(count(end));
    }
    for (term, _) in parts.terms {
        out.extend_from_slice(term.as_bytes());
    }
    for &tool in &by_name {
        out.extend_from_slice(parts.names[tool as usize].as_bytes());
    }
    out
}

/// `n` as a `u32` (indexes are far below 2^32 entries; saturates rather than wraps).
pub(super) fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A term's postings, read from the bytes.
pub(super) struct Postings<'a>(std::slice::ChunksExact<'a, u8>);

impl Iterator for Postings<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        let posting = self.0.next()?;
        Some((u32_at(posting, 0)?, u32_at(posting, 4)?))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for Postings<'_> {}

/// A term's postings as the scorer reads them: the bytes' in place, or a list merged with
/// what the program added.
pub(super) enum TermPostings<'v, 'm> {
    Bytes(Postings<'v>),
    Merged(std::slice::Iter<'m, (u32, u32)>),
}

impl Iterator for TermPostings<'_, '_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        match self {
            TermPostings::Bytes(postings) => postings.next(),
            TermPostings::Merged(postings) => postings.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            TermPostings::Bytes(postings) => postings.size_hint(),
            TermPostings::Merged(postings) => postings.size_hint(),
        }
    }
}

impl ExactSizeIterator for TermPostings<'_, '_> {}

/// `bytes` (an index) with the manifest fingerprint `fingerprint` in its header.
pub(super) fn set_fingerprint(bytes: &mut [u8], fingerprint: u64) {
    if let Some(field) = bytes.get_mut(12..20) {
        field.copy_from_slice(&fingerprint.to_le_bytes());
    }
}

/// An index's bytes, read in place: the sections' positions, checked once against the length.
#[derive(Debug, Clone, Copy)]
pub(super) struct View<'a> {
    bytes: &'a [u8],
    pub(super) tools: u32,
    pub(super) fingerprint: u64,
    pub(super) total_length: u64,
    pub(super) inputs: u64,
    terms: u32,
    lengths: usize,
    term_ends: usize,
    posting_ends: usize,
    postings: usize,
    name_order: usize,
    name_ends: usize,
    term_bytes: usize,
    name_bytes: usize,
}

/// The first of `count` sorted entries (`entry(i)`) not less than `key`; `None` when an entry
/// cannot be read (damaged bytes).
fn lower_bound<'a>(count: u32, key: &[u8], entry: impl Fn(u32) -> Option<&'a [u8]>) -> Option<u32> {
    let (mut low, mut high) = (0, count);
    while low < high {
        let mid = low + (high - low) / 2;
        if entry(mid)? < key {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    Some(low)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(word.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}

impl<'a> View<'a> {
    /// The view of `bytes`, `None` unless the header is ours and the sections fill the bytes
    /// exactly.
    pub(super) fn new(bytes: &'a [u8]) -> Option<Self> {
        if bytes.get(..4)? != MAGIC {
            return None;
        }
        let tools = u32_at(bytes, 4)?;
        let terms = u32_at(bytes, 8)?;
        let fingerprint = u64_at(bytes, 12)?;
        let postings = u32_at(bytes, 20)? as usize;
        let term_bytes_len = u32_at(bytes, 24)? as usize;
        let name_bytes_len = u32_at(bytes, 28)? as usize;
        let total_length = u64_at(bytes, 32)?;
        let inputs = u64_at(bytes, 40)?;
        let (t, n) = (tools as usize, terms as usize);
        let lengths = HEADER;
        let term_ends = lengths.checked_add(t.checked_mul(4)?)?;
        let posting_ends = term_ends.checked_add(n.checked_mul(4)?)?;
        let postings_at = posting_ends.checked_add(n.checked_mul(4)?)?;
        let name_order = postings_at.checked_add(postings.checked_mul(8)?)?;
        let name_ends = name_order.checked_add(t.checked_mul(4)?)?;
        let term_bytes = name_ends.checked_add(t.checked_mul(4)?)?;
        let name_bytes = term_bytes.checked_add(term_bytes_len)?;
        if name_bytes.checked_add(name_bytes_len)? != bytes.len() {
            return None;
        }
        Some(View {
            bytes,
            tools,
            fingerprint,
            total_length,
            inputs,
            terms,
            lengths,
            term_ends,
            posting_ends,
            postings: postings_at,
            name_order,
            name_ends,
            term_bytes,
            name_bytes,
        })
    }

    /// Tool `tool`'s weighted length (0 for a tool out of range).
    pub(super) fn length(&self, tool: u32) -> u32 {
        if tool >= self.tools {
            return 0;
        }
        u32_at(self.bytes, self.lengths + 4 * tool as usize).unwrap_or(0)
    }

    /// The `i`th of `count` ranges whose ends are listed at `ends`.
    fn range(&self, ends: usize, i: u32) -> Option<(usize, usize)> {
        let end = u32_at(self.bytes, ends + 4 * i as usize)? as usize;
        let start = if i == 0 {
            0
        } else {
            u32_at(self.bytes, ends + 4 * (i as usize - 1))? as usize
        };
        (start <= end).then_some((start, end))
    }

    fn term(&self, i: u32) -> Option<&'a [u8]> {
        let (start, end) = self.range(self.term_ends, i)?;
        self.bytes.get(self.term_bytes + start..self.term_bytes + end)
    }

    /// The postings of `term`: (tool, weighted frequency), tools ascending.
    pub(super) fn postings(&self, term: &str) -> Postings<'a> {
        let bytes = self
            .find_term(term.as_bytes())
            .and_then(|i| self.range(self.posting_ends, i))
            .and_then(|(start, end)| self.bytes.get(self.postings + 8 * start..self.postings + 8 * end))
            .unwrap_or_default();
        Postings(bytes.chunks_exact(8))
    }

    /// The terms starting with `prefix`, at most `max`.
    pub(super) fn with_prefix(&self, prefix: &[u8], max: usize) -> Vec<&'a str> {
        let Some(low) = lower_bound(self.terms, prefix, |i| self.term(i)) else {
            return Vec::new();
        };
        (low..self.terms)
            .map_while(|i| self.term(i).filter(|t| t.starts_with(prefix)))
            .take(max)
            .filter_map(|t| std::str::from_utf8(t).ok())
            .collect()
    }

    fn find_term(&self, term: &[u8]) -> Option<u32> {
        let i = lower_bound(self.terms, term, |i| self.term(i))?;
        (i < self.terms && self.term(i)? == term).then_some(i)
    }

    fn name(&self, i: u32) -> Option<&'a [u8]> {
        let (start, end) = self.range(self.name_ends, i)?;
        self.bytes.get(self.name_bytes + start..self.name_bytes + end)
    }

    /// The tools whose normalised name is `name`.
    pub(super) fn named(&self, name: &str) -> Vec<u32> {
        let name = name.as_bytes();
        let Some(low) = lower_bound(self.tools, name, |i| self.name(i)) else {
            return Vec::new();
        };
        (low..self.tools)
            .take_while(|&i| self.name(i) == Some(name))
            .filter_map(|i| u32_at(self.bytes, self.name_order + 4 * i as usize))
            .collect()
    }
}
