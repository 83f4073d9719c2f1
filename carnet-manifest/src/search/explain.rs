//! Why a tool ranks where it does: the terms of a query it holds and what each adds, the
//! same arithmetic as [`SearchIndex::search`] term by term (an author reading why a tool is
//! not found for a request, `carnet search --explain`).

use super::format::View;
use super::terms::{cut, normalised_name};
use super::{EXACT_NAME, LONGER, MAX_QUERY_BYTES, SYNONYM, SearchIndex, bm25, idf};

/// Where a term of a query comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// A word of the query (stemmed).
    Query,
    /// A word that asks for the same as the query's word `of` (the thesaurus), at half weight.
    Synonym {
        /// The query's own term it stands for.
        of: String,
    },
    /// A longer indexed word that the query's word `by` begins, at a lower weight still.
    Begun {
        /// The query's own term that begins it.
        by: String,
    },
}

/// Where a term of a query comes from, as the scorer reads it (the query's word is the
/// term's `word`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Query,
    Synonym,
    Begun,
}

impl Kind {
    /// What a term of this kind weighs against the query's own words.
    pub(super) fn factor(self) -> f32 {
        match self {
            Kind::Query => 1.0,
            Kind::Synonym => SYNONYM,
            Kind::Begun => LONGER,
        }
    }
}

/// A term of a query: the term, where it comes from, and the index of the query's own term
/// it stands for (itself, for the query's own).
pub(super) struct QueryTerm {
    pub(super) term: String,
    pub(super) kind: Kind,
    pub(super) word: usize,
}

/// A term of the query found in the tool, and what it adds to the tool's score.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Matched {
    /// The term as the index holds it (lowercased, stemmed: `directori`).
    pub term: String,
    /// Where it comes from in the query.
    pub origin: Origin,
    /// How often the tool says it, in words weighed by field (a word of the name counts
    /// three, of a parameter 0.6).
    pub weight: f32,
    /// How many tools hold the term (the fewer, the more it counts).
    pub tools: usize,
    /// What it adds to the score.
    pub score: f32,
}

/// Why a tool scores what it does for a query ([`SearchIndex::explain`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Explanation {
    /// The query's terms the tool holds, in the query's order (its own words, then
    /// synonyms, then begun words).
    pub terms: Vec<Matched>,
    /// Whether the query is the tool's name (which adds 100).
    pub exact_name: bool,
    /// The tool's score: what the terms add, and the exact name's 100; what
    /// [`SearchIndex::search`] gives it.
    pub score: f32,
}

impl SearchIndex {
    /// Why tool `tool` scores what it does for `query` in [`SearchIndex::search`]: each term
    /// of the query it holds and what that adds, and whether the query is its name. A tool
    /// out of range, or a query it holds nothing of, has an empty explanation (score 0).
    ///
    /// # Examples
    ///
    /// ```
    /// use carnet_manifest::Manifest;
    /// use carnet_manifest::search::{Origin, SearchIndex};
    ///
    /// let manifest = Manifest::from_json(r#"{"agents": {}, "skills": {}, "toolsets": {
    ///     "files": {"name": "files", "description": "Files", "tools": [
    ///         {"name": "listDirectory", "description": "List the entries of a directory"}
    ///     ]}}}"#)?;
    /// let index = SearchIndex::build(&manifest);
    /// let why = index.explain("list my folder", 0);
    /// assert_eq!(why.score, index.search("list my folder", 1, |_| true)[0].score);
    /// let folder = why.terms.iter().find(|t| t.term == "directori").unwrap();
    /// assert_eq!(folder.origin, Origin::Synonym { of: "folder".into() });
    /// # Ok::<(), carnet_manifest::ManifestError>(())
    /// ```
    #[must_use]
    pub fn explain(&self, query: &str, tool: u32) -> Explanation {
        let Some(view) = View::new(&self.bytes) else {
            return Explanation::default();
        };
        let norms = self.norms.get_or_init(|| self.norms(&view));
        let Some(&norm) = norms.get(tool as usize) else {
            return Explanation::default();
        };
        let query = cut(query, MAX_QUERY_BYTES);
        let mut explanation = Explanation::default();
        let terms = self.query_terms(&view, query);
        let mut merged = Vec::new();
        for term in &terms {
            let mut postings = self.postings(&view, &term.term, &mut merged);
            let tools = postings.len();
            if let Some((_, weight)) = postings.find(|&(t, _)| t == tool) {
                let score = bm25(term.kind.factor() * idf(self.tools, tools), weight, norm);
                // Summed in the order `search` sums them: the same `f32`.
                explanation.score += score;
                let word = || terms[term.word].term.clone();
                #[allow(clippy::cast_precision_loss)] // weights are far below 2^24
                explanation.terms.push(Matched {
                    term: term.term.clone(),
                    origin: match term.kind {
                        Kind::Query => Origin::Query,
                        Kind::Synonym => Origin::Synonym { of: word() },
                        Kind::Begun => Origin::Begun { by: word() },
                    },
                    weight: weight as f32 / 10.0,
                    tools,
                    score,
                });
            }
        }
        let exact = normalised_name(query);
        explanation.exact_name = !exact.is_empty() && view.named(&exact).contains(&tool);
        if explanation.exact_name {
            explanation.score += EXACT_NAME;
        }
        explanation
    }
}
