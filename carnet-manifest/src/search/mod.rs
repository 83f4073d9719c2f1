//! Ranked search over a manifest's tools: a tokenizer that splits names as people read them,
//! and a BM25F index (several weighted fields per tool) that is plain bytes.
//!
//! A tool's text comes in fields of different weight ([`Field`]): its name (split at
//! camelCase, `snake_case`, dots and digits) counts most, then its description, its title and
//! its parameters' names and descriptions, and what brings it (its toolset's and skills'
//! names and descriptions). Words are lowercased, English stop words dropped, and a light
//! suffix stripping folds plurals and common verb forms (`files`/`file`, `listing`/`list`),
//! applied the same way to queries and tools. A query naming a tool exactly ranks that tool
//! first.
//!
//! The index is built from what the manifest says ([`SearchIndex::build`]): `carnet_codegen`
//! builds it in `build.rs` and embeds its bytes beside the generated manifest, so a compiled
//! agent starts with its index ready ([`SearchIndex::from_bytes`], nothing parsed or
//! allocated); a manifest read at run time builds the same bytes when its engine is built.
//! What only the program knows (the parameters of tools written in Rust, read from their
//! signatures) is added on top ([`SearchIndex::add`]), the same way on both paths, so both
//! rank alike.
//!
//! Tools are numbered as the manifest lists them: toolsets in order, each one's tools in
//! declaration order.

use std::collections::{BTreeMap, HashMap};

use crate::manifest::{Bytes, Manifest};

mod format;
mod terms;

use format::View;
use terms::{cut, for_each_term, normalised_name};

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// The score added to a tool whose name is the query (after normalisation): above any
/// BM25 score a few words can reach.
const EXACT_NAME: f32 = 100.0;
/// The most distinct query terms scored: a longer query is cut (a model's query is a few
/// words; a megabyte of text must not cost a lookup per word).
pub const MAX_QUERY_TERMS: usize = 32;
/// The longest query read, in bytes (a longer one is cut at a character boundary).
pub const MAX_QUERY_BYTES: usize = 1024;

/// Where a tool's words come from, and so what they weigh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Field {
    /// The tool's name: a word in it weighs three in the description.
    Name,
    /// What the tool does.
    Description,
    /// Its title, its parameters' names and descriptions.
    Parameter,
    /// Its toolset's and skills' names and descriptions.
    Context,
}

impl Field {
    /// The weight of one word, in tenths (integers, so the index's bytes do not depend on
    /// the order words are added in).
    const fn weight(self) -> u32 {
        match self {
            Field::Name => 30,
            Field::Description => 10,
            Field::Parameter => 6,
            Field::Context => 4,
        }
    }
}

/// A tool found: its number (see the [module](self)) and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Scored {
    /// The tool's number.
    pub tool: u32,
    /// How well it matches (higher is better; an exact name adds 100).
    pub score: f32,
}

/// The search index over a manifest's tools: the bytes built from the manifest (borrowed from
/// the binary for a compiled manifest), and what the program added.
///
/// # Examples
///
/// ```
/// use carnet_manifest::Manifest;
/// use carnet_manifest::search::SearchIndex;
///
/// let manifest = Manifest::from_json(r#"{
///     "agents": {},
///     "skills": {},
///     "toolsets": { "clock": { "name": "clock", "description": "Time", "tools": [
///         { "name": "getCurrentTime", "description": "The current time in a time zone" },
///         { "name": "readFile", "description": "Read a file from disk" }
///     ] } }
/// }"#)?;
/// let index = SearchIndex::build(&manifest);
/// let hits = index.search("what time is it", 5, |_| true);
/// assert_eq!(hits[0].tool, 0);
/// // The same index, from its bytes (what the build step embeds).
/// let again = SearchIndex::from_bytes(index.as_bytes().to_vec().into()).unwrap();
/// assert_eq!(again.search("what time is it", 5, |_| true), hits);
/// # Ok::<(), carnet_manifest::ManifestError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SearchIndex {
    bytes: Bytes,
    tools: u32,
    fingerprint: u64,
    total_length: u64,
    added: Added,
}

/// What [`SearchIndex::add`] added: postings and lengths on top of the bytes.
#[derive(Debug, Clone, Default)]
struct Added {
    /// Term → (tool, weight), tools ascending.
    postings: HashMap<Box<str>, Vec<(u32, u32)>>,
    lengths: HashMap<u32, u32>,
}

impl SearchIndex {
    /// The index of `manifest`'s tools: their names, descriptions, titles, the parameters
    /// of remote tools (from their pinned input schemas), and their toolsets' and skills'
    /// names and descriptions.
    #[must_use]
    pub fn build(manifest: &Manifest) -> Self {
        // Toolset → the skills that bring it.
        let mut skills_of: Vec<Vec<usize>> = vec![Vec::new(); manifest.toolsets.len()];
        for (skill, s) in manifest.skills.iter().enumerate() {
            for name in s.toolsets.iter() {
                if let Ok(t) = manifest.toolsets.binary_search_by(|t| (*t.name).cmp(name)) {
                    skills_of[t].push(skill);
                }
            }
        }
        let mut postings: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        let mut lengths = Vec::new();
        let mut names = Vec::new();
        let mut frequencies: HashMap<String, u32> = HashMap::new();
        let tools = manifest
            .toolsets
            .iter()
            .enumerate()
            .flat_map(|(t, toolset)| toolset.tools.iter().map(move |tool| (t, toolset, tool)));
        for (number, (t, toolset, tool)) in tools.enumerate() {
            let mut length = 0;
            let mut add = |text: &str, field: Field| {
                for_each_term(text, |term| {
                    *frequencies.entry(term.to_owned()).or_default() += field.weight();
                    length += field.weight();
                });
            };
            add(&tool.name, Field::Name);
            add(&tool.description, Field::Description);
            if let Some(title) = &tool.title {
                add(title, Field::Parameter);
            }
            if let Some(schema) = tool.remote.as_deref().and_then(input_schema) {
                for_each_parameter(&schema, |text| add(text, Field::Parameter));
            }
            add(&toolset.name, Field::Context);
            add(&toolset.description, Field::Context);
            for &skill in &skills_of[t] {
                let skill = &manifest.skills[skill];
                add(&skill.name, Field::Context);
                add(&skill.description, Field::Context);
            }
            let number = u32::try_from(number).unwrap_or(u32::MAX);
            for (term, weight) in frequencies.drain() {
                postings.entry(term).or_default().push((number, weight));
            }
            lengths.push(length);
            names.push(normalised_name(&tool.name));
        }
        let terms: Vec<(&str, &[(u32, u32)])> = postings.iter().map(|(t, p)| (t.as_str(), p.as_slice())).collect();
        let bytes = format::write(&format::Parts {
            fingerprint: manifest.fingerprint,
            lengths: &lengths,
            terms: &terms,
            names: &names,
        });
        SearchIndex {
            bytes: bytes.into(),
            tools: format::count(lengths.len()),
            fingerprint: manifest.fingerprint,
            total_length: lengths.iter().map(|&l| u64::from(l)).sum(),
            added: Added::default(),
        }
    }

    /// The index whose bytes are `bytes` (what [`SearchIndex::as_bytes`] gave); `None` when
    /// they are not an index.
    #[must_use]
    pub fn from_bytes(bytes: Bytes) -> Option<Self> {
        let view = View::new(&bytes)?;
        let (tools, fingerprint, total_length) = (view.tools, view.fingerprint, view.total_length);
        Some(SearchIndex {
            bytes,
            tools,
            fingerprint,
            total_length,
            added: Added::default(),
        })
    }

    /// The index's bytes, without what [`SearchIndex::add`] added.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// How many tools the index numbers.
    #[must_use]
    pub fn tools(&self) -> u32 {
        self.tools
    }

    /// The [`Manifest::fingerprint`] of the manifest it was built from.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Adds `text` to tool `tool`'s `field` (a tool out of range is ignored): for what the
    /// manifest does not say, such as the parameters of a tool written in Rust.
    pub fn add(&mut self, tool: u32, field: Field, text: &str) {
        if tool >= self.tools {
            return;
        }
        let added = &mut self.added;
        for_each_term(text, |term| {
            let postings = added.postings.entry(term.into()).or_default();
            match postings.binary_search_by_key(&tool, |&(t, _)| t) {
                Ok(i) => postings[i].1 += field.weight(),
                Err(i) => postings.insert(i, (tool, field.weight())),
            }
            *added.lengths.entry(tool).or_default() += field.weight();
            self.total_length += u64::from(field.weight());
        });
    }

    /// The tools matching `query` for which `allowed` holds, best first, at most `limit`;
    /// ties by tool number. No terms (empty, only stop words) give no hits. The query is
    /// read up to [`MAX_QUERY_BYTES`] and [`MAX_QUERY_TERMS`] distinct terms.
    pub fn search(&self, query: &str, limit: usize, allowed: impl Fn(u32) -> bool) -> Vec<Scored> {
        let Some(view) = View::new(&self.bytes) else {
            return Vec::new();
        };
        let query = cut(query, MAX_QUERY_BYTES);
        let mut terms: Vec<String> = Vec::new();
        for_each_term(query, |term| {
            if terms.len() < MAX_QUERY_TERMS && !terms.iter().any(|t| t == term) {
                terms.push(term.to_owned());
            }
        });
        #[allow(clippy::cast_precision_loss)] // tool counts and lengths are far below 2^24
        let (total, average) = (
            self.tools as f32,
            self.total_length as f32 / 10.0 / self.tools.max(1) as f32,
        );
        let mut scores = vec![0.0_f32; self.tools as usize];
        let mut touched: Vec<u32> = Vec::new();
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for term in &terms {
            let added = self.added.postings.get(term.as_str()).map_or(&[][..], Vec::as_slice);
            merged.clear();
            merge(view.postings(term), added, &mut merged);
            if merged.is_empty() {
                continue;
            }
            #[allow(clippy::cast_precision_loss)]
            let found = merged.len() as f32;
            let idf = (1.0 + (total - found + 0.5) / (found + 0.5)).ln();
            for &(tool, weight) in &merged {
                if tool >= self.tools || !allowed(tool) {
                    continue;
                }
                let extra = self.added.lengths.get(&tool).copied().unwrap_or(0);
                #[allow(clippy::cast_precision_loss)]
                let (frequency, length) = (
                    weight as f32 / 10.0,
                    (view.length(tool).saturating_add(extra)) as f32 / 10.0,
                );
                let norm = K1 * (1.0 - B + B * length / average.max(f32::EPSILON));
                let score = &mut scores[tool as usize];
                if *score == 0.0 {
                    touched.push(tool);
                }
                *score += idf * frequency * (K1 + 1.0) / (frequency + norm);
            }
        }
        let exact = normalised_name(query);
        if !exact.is_empty() {
            for tool in view.named(&exact) {
                if tool < self.tools && allowed(tool) {
                    let score = &mut scores[tool as usize];
                    if *score == 0.0 {
                        touched.push(tool);
                    }
                    *score += EXACT_NAME;
                }
            }
        }
        let mut ranked: Vec<Scored> = touched
            .into_iter()
            .map(|tool| Scored {
                tool,
                score: scores[tool as usize],
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.tool.cmp(&b.tool)));
        ranked.truncate(limit);
        ranked
    }
}

/// Two posting lists (tools ascending) as one, the weights of a tool in both summed.
fn merge(base: impl Iterator<Item = (u32, u32)>, added: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let mut added = added.iter().copied().peekable();
    for (tool, weight) in base {
        while let Some(&(t, w)) = added.peek() {
            if t >= tool {
                break;
            }
            out.push((t, w));
            added.next();
        }
        match added.peek() {
            Some(&(t, w)) if t == tool => {
                out.push((tool, weight.saturating_add(w)));
                added.next();
            }
            _ => out.push((tool, weight)),
        }
    }
    out.extend(added);
}

/// The `inputSchema` of a remote tool's pin (`Tool::remote`).
fn input_schema(remote: &str) -> Option<serde_json::Value> {
    let mut remote: serde_json::Value = serde_json::from_str(remote).ok()?;
    Some(remote.get_mut("inputSchema")?.take())
}

/// Calls `f` with each top-level parameter's name and description of an input schema.
pub fn for_each_parameter(schema: &serde_json::Value, mut f: impl FnMut(&str)) {
    let Some(properties) = schema.get("properties").and_then(serde_json::Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        f(name);
        if let Some(description) = property.get("description").and_then(serde_json::Value::as_str) {
            f(description);
        }
    }
}

#[cfg(test)]
mod tests;
