//! Search over the bundled document collection (`data/documents.json`): the [`Hit`] a search
//! returns, the collection indexed once, query parsing (`"phrases"`, `-excluded`,
//! `site:domain`), the TF-IDF ranking, and the `search-tools` toolset built on them.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::words;

/// The most characters of a document a hit quotes.
const SNIPPET_CHARS: usize = 120;

/// The start of `text`, at most `max` characters and an ellipsis: cut after the last
/// sentence that fits when one does, else at the last space; a text that fits stays whole.
pub(crate) fn snippet(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    if let Some(i) = head.rfind(". ") {
        return format!("{} …", &head[..=i]);
    }
    let cut = head.rfind(char::is_whitespace).map_or(head, |i| &head[..i]);
    format!("{}…", cut.trim_end_matches([',', ';', ':']))
}

/// A search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    /// Title.
    pub title: String,
    /// Publisher's domain.
    pub domain: String,
    /// Date, YYYY-MM-DD.
    pub date: String,
    /// Start of the text.
    pub snippet: String,
    /// Relevance.
    pub score: f64,
}

#[derive(Debug, Deserialize)]
struct Document {
    title: String,
    domain: String,
    date: String,
    text: String,
}

/// The bundled document collection, indexed once.
struct Collection {
    documents: Vec<Document>,
    /// Per document: term → count.
    terms: Vec<BTreeMap<String, usize>>,
    /// Term → number of documents containing it.
    document_frequency: BTreeMap<String, usize>,
}

fn collection() -> &'static Collection {
    static COLLECTION: OnceLock<Collection> = OnceLock::new();
    COLLECTION.get_or_init(|| {
        let documents: Vec<Document> = serde_json::from_str(include_str!("../../data/documents.json"))
            .expect("the bundled documents are valid JSON");
        let terms: Vec<BTreeMap<String, usize>> = documents
            .iter()
            .map(|d| {
                let mut counts = BTreeMap::new();
                for w in words(&d.title).chain(words(&d.text)) {
                    *counts.entry(w).or_insert(0) += 1;
                }
                counts
            })
            .collect();
        let mut document_frequency = BTreeMap::new();
        for counts in &terms {
            for term in counts.keys() {
                *document_frequency.entry(term.clone()).or_insert(0) += 1;
            }
        }
        Collection {
            documents,
            terms,
            document_frequency,
        }
    })
}

/// A parsed query: words to rank by, phrases that must appear, words that must not, a site.
#[derive(Debug, Default)]
struct Query {
    words: Vec<String>,
    phrases: Vec<String>,
    excluded: Vec<String>,
    site: Option<String>,
}

fn parse_query(text: &str) -> Query {
    let mut query = Query::default();
    let mut rest = String::new();
    for (i, part) in text.split('"').enumerate() {
        if i % 2 == 1 {
            query.phrases.push(part.to_lowercase());
            query.words.extend(words(part));
        } else {
            rest.push_str(part);
            rest.push(' ');
        }
    }
    for token in rest.split_whitespace() {
        if let Some(site) = token.strip_prefix("site:") {
            query.site = Some(site.trim_start_matches("www.").to_lowercase());
        } else if let Some(excluded) = token.strip_prefix('-') {
            query.excluded.extend(words(excluded));
        } else {
            query.words.extend(words(token));
        }
    }
    query
}

fn domain(d: &Document) -> String {
    d.domain.trim_start_matches("www.").to_owned()
}

fn search(query: &Query, limit: usize) -> Vec<Hit> {
    let c = collection();
    let n = c.documents.len() as f64;
    let mut hits: Vec<Hit> = c
        .documents
        .iter()
        .zip(&c.terms)
        .filter(|(d, counts)| {
            let text = format!("{} {}", d.title, d.text).to_lowercase();
            query.phrases.iter().all(|p| text.contains(p.as_str()))
                && !query.excluded.iter().any(|w| counts.contains_key(w))
                && query.site.as_ref().is_none_or(|s| domain(d) == *s)
        })
        .filter_map(|(d, counts)| {
            let total: usize = counts.values().sum();
            let score: f64 = query
                .words
                .iter()
                .filter_map(|w| {
                    let tf = *counts.get(w)? as f64 / total as f64;
                    let idf = (n / c.document_frequency[w] as f64).ln() + 1.0;
                    Some(tf * idf)
                })
                .sum();
            (score > 0.0 || (query.words.is_empty() && !query.phrases.is_empty())).then(|| Hit {
                title: d.title.clone(),
                domain: domain(d),
                date: d.date.clone(),
                snippet: snippet(&d.text, SNIPPET_CHARS),
                score: (score * 1000.0).round() / 1000.0,
            })
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.title.cmp(&b.title)));
    hits.truncate(limit);
    hits
}

/// Search over the bundled document collection.
#[carnet::toolset("search-tools")]
pub mod search {
    use super::{Hit, parse_query, search};
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// Finds documents matching the query words.
    #[carnet::tool]
    pub fn basic_search(
        /// Words to search for; operators are not interpreted.
        query: String,
        /// At most this many results (default 10).
        limit: Option<u32>,
    ) -> Vec<Hit> {
        let mut parsed = parse_query(&query);
        // Operators are for advancedSearch: here every token is a plain word.
        parsed.words.extend(
            parsed
                .phrases
                .drain(..)
                .flat_map(|p| super::words(&p).collect::<Vec<_>>()),
        );
        parsed.excluded.clear();
        parsed.site = None;
        search(&parsed, limit.unwrap_or(10) as usize)
    }

    // No `deny_unknown_fields` needed: the top level of every tool's input refuses unknown
    // fields, a struct's as named parameters'.
    /// The input of `advancedSearch`.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct AdvancedQuery {
        /// Words, `"exact phrases"`, `-excluded` words and `site:domain`.
        pub query: String,
        /// At most this many results (default 10).
        pub limit: Option<u32>,
    }

    /// Searches with operators.
    #[carnet::tool(name = "advancedSearch")]
    pub fn advanced(input: AdvancedQuery) -> Result<Vec<Hit>, String> {
        let parsed = parse_query(&input.query);
        if parsed.words.is_empty() && parsed.phrases.is_empty() {
            return Err(format!("the query `{}` has no words to search for", input.query));
        }
        Ok(search(&parsed, input.limit.unwrap_or(10) as usize))
    }

    /// Keeps the results mentioning `term` in their title or snippet.
    #[carnet::tool]
    pub fn filter_results(
        /// The hits, exactly as a search returned them.
        hits: Vec<Hit>,
        /// Kept: the hits whose title or snippet contains it (case-insensitive).
        term: String,
    ) -> Vec<Hit> {
        let term = term.to_lowercase();
        hits.into_iter()
            .filter(|h| h.title.to_lowercase().contains(&term) || h.snippet.to_lowercase().contains(&term))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn snippets_end_on_a_word_or_a_sentence() {
        let text = "Lithium iron phosphate battery storage costs fell below 100 dollars per kilowatt hour, \
                    making solar plus storage competitive with gas peakers.";
        assert_eq!(
            snippet(text, 120),
            "Lithium iron phosphate battery storage costs fell below 100 dollars per kilowatt hour, \
             making solar plus storage…"
        );
        assert_eq!(snippet("Short. Second sentence here.", 20), "Short. …");
        assert_eq!(snippet("Fits whole.", 20), "Fits whole.");
        assert_eq!(snippet("Unbroken-word-longer-than-the-limit", 10), "Unbroken-w…");
        assert_eq!(snippet("é ü ö ä ß", 3), "é…");
    }
}
