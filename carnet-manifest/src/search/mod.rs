//! Ranked search over a manifest's tools: a tokenizer that splits names as people read them,
//! and a BM25F index (several weighted fields per tool) that is plain bytes.
//!
//! A tool's text comes in fields of different weight ([`Field`]): its name (split at
//! camelCase, `snake_case` and dots) counts most, then its description and what brings it (its
//! toolset's and skills' names and descriptions), then its title and its parameters' names,
//! descriptions and `enum` values, nested ones included. Words are lowercased, English stop
//! words and numbers dropped, and stemmed (Porter: `files`/`file`, `listing`/`list`,
//! `connection`/`connected`), the same way for queries and tools. A query's words are widened with a small
//! thesaurus of tool vocabulary (folder and directory, remember and memory), at half weight.
//! A query naming a tool exactly ranks that tool first.
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

use crate::order;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::manifest::{Bytes, Manifest};

mod explain;
mod format;
mod parameters;
mod porter;
mod probe;
mod synonyms;
mod terms;

pub use explain::{Explanation, Matched, Origin};
use explain::{Kind, QueryTerm};
use format::{TermPostings, View};
#[cfg(test)]
use parameters::PARAMETER_DEPTH;
pub use parameters::for_each_parameter;
use parameters::input_schema;
use probe::inputs;
#[cfg(test)]
use probe::probe;
use terms::{Term, cut, for_each_term, for_each_word, normalised_name};

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// The score added to a tool whose name is the query (after normalisation): above any
/// BM25 score a few words can reach.
const EXACT_NAME: f32 = 100.0;
/// What a word of a query's synonyms weighs against the query's own words.
const SYNONYM: f32 = 0.5;
/// What an indexed term that a query's own term begins weighs (`bench/search/`: 0.2 to 0.5
/// found as much; 0.3 ranked best).
const LONGER: f32 = 0.3;
/// The shortest query term that also finds the longer terms it begins (in bytes: shorter
/// ones begin too many words).
const LONGER_FROM: usize = 4;
/// The most longer terms one query term finds (the first in byte order).
const LONGER_TERMS: usize = 8;
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
    /// Its title, its parameters' names, descriptions and `enum` values (nested ones too).
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
            // What brings a tool weighs as much as its own description: a request often names
            // the service ("in the browser", "on GitHub") but not the tool's words (measured
            // in `bench/search/`: 0.4 and 2 found less).
            Field::Description | Field::Context => 10,
            Field::Parameter => 6,
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
    /// Each tool's BM25 length normalisation, computed at the first query (and again after
    /// [`SearchIndex::add`]): a few microseconds at 10,000 tools, paid once, not at start.
    norms: OnceLock<Vec<f32>>,
}

impl Default for SearchIndex {
    /// The index of no tool.
    fn default() -> Self {
        let bytes = format::write(&format::Parts {
            fingerprint: 0,
            inputs: 0,
            lengths: &[],
            terms: &[],
            names: &[],
        });
        SearchIndex {
            bytes: bytes.into(),
            tools: 0,
            fingerprint: 0,
            total_length: 0,
            added: Added::default(),
            norms: OnceLock::new(),
        }
    }
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
        SearchIndex::build_with(manifest, inputs(manifest))
    }

    /// The index of `manifest`, `inputs` in its header.
    fn build_with(manifest: &Manifest, inputs: u64) -> Self {
        let mut terms = Terms::default();
        // Each toolset's context, its words counted once: its name and description, and the
        // names and descriptions of the skills that bring it.
        let mut context: Vec<Vec<(u32, u32)>> = manifest
            .toolsets
            .iter()
            .map(|toolset| {
                let mut words = Vec::new();
                terms.count(&mut words, &toolset.name, Field::Context);
                terms.count(&mut words, &toolset.description, Field::Context);
                words
            })
            .collect();
        for skill in manifest.skills.iter() {
            for name in skill.toolsets.iter() {
                if let Ok(t) = manifest.toolsets.binary_search_by(|t| (*t.name).cmp(name)) {
                    terms.count(&mut context[t], &skill.name, Field::Context);
                    terms.count(&mut context[t], &skill.description, Field::Context);
                }
            }
        }

        for words in &mut context {
            sum_by_term(words);
        }

        // Term id → its postings.
        let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut lengths = Vec::new();
        let mut names = Vec::new();
        let mut words: Vec<(u32, u32)> = Vec::new();
        let tools = manifest
            .toolsets
            .iter()
            .enumerate()
            .flat_map(|(t, toolset)| toolset.tools.iter().map(move |tool| (t, tool)));
        for (number, (t, tool)) in tools.enumerate() {
            words.clear();
            terms.count(&mut words, &tool.name, Field::Name);
            terms.count(&mut words, &tool.description, Field::Description);
            if let Some(title) = &tool.title {
                terms.count(&mut words, title, Field::Parameter);
            }
            if let Some(schema) = tool.remote.as_deref().and_then(input_schema) {
                for_each_parameter(&schema, |text| terms.count(&mut words, text, Field::Parameter));
            }
            words.extend_from_slice(&context[t]);
            sum_by_term(&mut words);
            let number = u32::try_from(number).unwrap_or(u32::MAX);
            postings.resize_with(terms.names.len(), Vec::new);
            for &(term, weight) in &words {
                postings[term as usize].push((number, weight));
            }
            lengths.push(words.iter().map(|&(_, weight)| weight).sum());
            names.push(normalised_name(&tool.name));
        }
        postings.resize_with(terms.names.len(), Vec::new);
        let mut by_term: Vec<(&str, &[(u32, u32)])> = terms
            .names
            .iter()
            .zip(&postings)
            .filter(|(_, postings)| !postings.is_empty())
            .map(|(term, postings)| (&**term, postings.as_slice()))
            .collect();
        order::sort_by_key(&mut by_term, |&(term, _)| term);
        let bytes = format::write(&format::Parts {
            fingerprint: manifest.fingerprint,
            inputs,
            lengths: &lengths,
            terms: &by_term,
            names: &names,
        });
        SearchIndex {
            bytes: bytes.into(),
            tools: format::count(lengths.len()),
            fingerprint: manifest.fingerprint,
            total_length: lengths.iter().map(|&l| u64::from(l)).sum(),
            added: Added::default(),
            norms: OnceLock::new(),
        }
    }

    /// The index of `manifest`, taken from `previous` (the bytes of an index built before)
    /// when it was built from the same text, else built: what a build script does, so that
    /// an edit that changes no tool's text (a skill's body, a file) does not build it again.
    /// Either way the bytes are those [`SearchIndex::build`] gives.
    #[must_use]
    pub fn build_reusing(manifest: &Manifest, previous: Option<&[u8]>) -> Self {
        let inputs = inputs(manifest);
        let unchanged = previous.filter(|bytes| View::new(bytes).is_some_and(|view| view.inputs == inputs));
        if let Some(previous) = unchanged {
            let mut bytes = previous.to_vec();
            format::set_fingerprint(&mut bytes, manifest.fingerprint);
            if let Some(index) = SearchIndex::from_bytes(bytes.into()) {
                return index;
            }
        }
        SearchIndex::build_with(manifest, inputs)
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
            norms: OnceLock::new(),
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
        self.norms = OnceLock::new();
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

    /// `K1 · (1 − B + B · length / average length)` of each tool, lengths in words.
    fn norms(&self, view: &View<'_>) -> Vec<f32> {
        #[allow(clippy::cast_precision_loss)] // lengths are far below 2^24 words
        let average = (self.total_length as f32 / 10.0 / self.tools.max(1) as f32).max(f32::EPSILON);
        (0..self.tools)
            .map(|tool| {
                let extra = self.added.lengths.get(&tool).copied().unwrap_or(0);
                #[allow(clippy::cast_precision_loss)]
                let length = view.length(tool).saturating_add(extra) as f32 / 10.0;
                K1 * (1.0 - B + B * length / average)
            })
            .collect()
    }

    /// The terms longer than `term` that begin with it, from the bytes and what the program
    /// added alike, the first [`LONGER_TERMS`] in byte order (so an index built with a text
    /// and one given it by [`SearchIndex::add`] find the same).
    fn longer_terms<'a>(&'a self, view: &View<'a>, term: &str, out: &mut Vec<&'a str>) {
        if term.len() < LONGER_FROM {
            return;
        }
        out.extend(view.with_prefix(term.as_bytes(), LONGER_TERMS + 1));
        out.extend(self.added.postings.keys().map(|t| &**t).filter(|t| t.starts_with(term)));
        out.sort_unstable();
        out.dedup();
        out.retain(|t| t.len() > term.len());
        out.truncate(LONGER_TERMS);
    }

    /// A query's terms (the query cut at [`MAX_QUERY_BYTES`]): its own (stop words out, up to
    /// [`MAX_QUERY_TERMS`]), their synonyms and the longer indexed words they begin, each
    /// once, with its weight and where it comes from.
    fn query_terms(&self, view: &View<'_>, query: &str) -> Vec<QueryTerm> {
        let mut terms: Vec<QueryTerm> = Vec::new();
        for_each_term(query, |term| {
            if terms.len() < MAX_QUERY_TERMS && !terms.iter().any(|t| t.term == term) {
                terms.push(QueryTerm {
                    term: term.to_owned(),
                    kind: Kind::Query,
                    word: terms.len(),
                });
            }
        });
        // The words that ask for the same, at a lower weight.
        let own = terms.len();
        for i in 0..own {
            for other in synonyms::of(&terms[i].term) {
                if terms.len() - own < synonyms::MAX_EXTRA_TERMS && !terms.iter().any(|t| t.term == *other) {
                    terms.push(QueryTerm {
                        term: other.clone(),
                        kind: Kind::Synonym,
                        word: i,
                    });
                }
            }
        }
        // The longer words a query's own word begins ("memorized" is `memor`, "memory"
        // `memori`), at a lower weight still.
        let mut longer: Vec<&str> = Vec::new();
        for i in 0..own {
            longer.clear();
            self.longer_terms(view, &terms[i].term, &mut longer);
            for other in &longer {
                if !terms.iter().any(|t| t.term == *other) {
                    terms.push(QueryTerm {
                        term: (*other).to_owned(),
                        kind: Kind::Begun,
                        word: i,
                    });
                }
            }
        }
        terms
    }

    /// `term`'s postings (tools ascending): the bytes' alone, read in place (most terms), or
    /// merged with what the program added, into `merged`.
    fn postings<'v, 'm>(&self, view: &View<'v>, term: &str, merged: &'m mut Vec<(u32, u32)>) -> TermPostings<'v, 'm> {
        let postings = view.postings(term);
        match self.added.postings.get(term) {
            None => TermPostings::Bytes(postings),
            Some(added) => {
                merged.clear();
                merge(postings, added, merged);
                let merged: &'m Vec<(u32, u32)> = merged;
                TermPostings::Merged(merged.iter())
            }
        }
    }

    /// The tools matching `query` for which `allowed` holds, best first, at most `limit`;
    /// ties by tool number. No terms (empty, only stop words) give no hits. The query is
    /// read up to [`MAX_QUERY_BYTES`] and [`MAX_QUERY_TERMS`] distinct terms.
    pub fn search(&self, query: &str, limit: usize, allowed: impl Fn(u32) -> bool) -> Vec<Scored> {
        let Some(view) = View::new(&self.bytes) else {
            return Vec::new();
        };
        let query = cut(query, MAX_QUERY_BYTES);
        let terms = self.query_terms(&view, query);
        let norms = self.norms.get_or_init(|| self.norms(&view));
        let total = self.tools;
        let mut scores = vec![0.0_f32; self.tools as usize];
        let mut touched: Vec<u32> = Vec::new();
        let mut merged: Vec<(u32, u32)> = Vec::new();
        let mut score = |tool: u32, weight: u32, idf: f32| {
            // `idf` carries the term's own weight (a synonym's is lower).
            let Some(&norm) = norms.get(tool as usize) else {
                return;
            };
            if !allowed(tool) {
                return;
            }
            let score = &mut scores[tool as usize];
            if *score == 0.0 {
                touched.push(tool);
            }
            *score += bm25(idf, weight, norm);
        };
        for QueryTerm { term, kind, .. } in &terms {
            let postings = self.postings(&view, term, &mut merged);
            let idf = kind.factor() * idf(total, postings.len());
            for (tool, weight) in postings {
                score(tool, weight, idf);
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
        let order = |a: &Scored, b: &Scored| b.score.total_cmp(&a.score).then(a.tool.cmp(&b.tool));
        // The best `limit` first, then only those sorted: a common word matches most tools.
        if limit == 0 {
            return Vec::new();
        }
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        ranked
    }
}

/// BM25's inverse document frequency of a term `found` in that many of `total` tools.
fn idf(total: u32, found: usize) -> f32 {
    #[allow(clippy::cast_precision_loss)] // tool counts are far below 2^24
    let (total, found) = (total as f32, found as f32);
    (1.0 + (total - found + 0.5) / (found + 0.5)).ln()
}

/// A term's score in a tool: its `idf` (weighed by where the term comes from), its weight
/// there (tenths of a word) saturated by BM25 against the tool's length `norm`.
fn bm25(idf: f32, weight: u32, norm: f32) -> f32 {
    #[allow(clippy::cast_precision_loss)] // weights are far below 2^24
    let frequency = weight as f32 / 10.0;
    idf * frequency * (K1 + 1.0) / (frequency + norm)
}

/// `words` sorted by term, each term once with its weights summed.
fn sum_by_term(words: &mut Vec<(u32, u32)>) {
    words.sort_unstable_by_key(|&(term, _)| term);
    words.dedup_by(|later, first| {
        let same = later.0 == first.0;
        if same {
            first.1 += later.1;
        }
        same
    });
}

/// The terms met while building, each numbered once.
#[derive(Default)]
struct Terms {
    ids: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// Each word as written → its term's id (`None`: a stop word), so a word met again is
    /// not lowercased and stemmed again.
    words: HashMap<Box<str>, Option<u32>>,
    term: Term,
}

impl Terms {
    /// Appends each term of `text` to `words`, by id, weighing `field`'s weight.
    fn count(&mut self, words: &mut Vec<(u32, u32)>, text: &str, field: Field) {
        for_each_word(text, |word| {
            let id = match self.words.get(word) {
                Some(&id) => id,
                None => {
                    let id = self.term.of(word).map(|term| match self.ids.get(term) {
                        Some(&id) => id,
                        None => {
                            let id = format::count(self.names.len());
                            self.ids.insert(term.into(), id);
                            self.names.push(term.into());
                            id
                        }
                    });
                    self.words.insert(word.into(), id);
                    id
                }
            };
            if let Some(id) = id {
                words.push((id, field.weight()));
            }
        });
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

#[cfg(test)]
mod tests;
