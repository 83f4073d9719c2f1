//! Ranked search over tools: a tokenizer that splits names as people read them, and a BM25F
//! index (several weighted fields per tool) built once per engine.
//!
//! A tool's text comes in fields of different weight: its name (split at camelCase,
//! `snake_case`, dots and digits) counts most, then its description, its parameters' names
//! and descriptions, and what brings it (its toolset's and skills' names and descriptions).
//! Words are lowercased, English stop words dropped, and a light suffix stripping folds
//! plurals and common verb forms (`files`/`file`, `listing`/`list`), applied the same way to
//! queries and tools. A query naming a tool exactly ranks that tool first.
//!
//! The index is built when the engine is (it needs the tools' input schemas, which for
//! `#[carnet::tool]` functions come from the Rust signatures, known only to the program);
//! `bench/` measures what that costs at 10,000 tools, and a query's time.

use std::collections::HashMap;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// The score added to a tool whose name is the query (after normalisation): above any
/// BM25 score a few words can reach.
const EXACT_NAME: f32 = 100.0;
/// The most distinct query terms scored: a longer query is cut (a model's query is a few
/// words; a megabyte of text must not cost a scan per word).
pub(crate) const MAX_QUERY_TERMS: usize = 32;
/// The longest query read, in bytes (a longer one is cut at a character boundary).
pub(crate) const MAX_QUERY_BYTES: usize = 1024;
/// The longest word indexed, in bytes (longer ones are noise: hashes, base64).
const MAX_WORD: usize = 40;

/// Words that carry no meaning for tool search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get",
    "give", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "please", "show", "so", "some", "that", "the", "their", "them", "then", "there", "these", "this", "to", "tool",
    "use", "using", "want", "was", "we", "what", "when", "which", "who", "will", "with", "would", "you", "your",
];

/// A tool's text, by field.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields<'a> {
    /// The tool's name.
    pub(crate) name: &'a str,
    /// Its description.
    pub(crate) description: &'a str,
    /// Its parameters' names and descriptions, and its title.
    pub(crate) parameters: Vec<&'a str>,
    /// Its toolset's and skills' names and descriptions.
    pub(crate) context: Vec<&'a str>,
}

/// Field weights: a word in the name is worth three in the description.
const NAME_WEIGHT: f32 = 3.0;
const DESCRIPTION_WEIGHT: f32 = 1.0;
const PARAMETER_WEIGHT: f32 = 0.6;
const CONTEXT_WEIGHT: f32 = 0.4;

/// The inverted index of a set of tools (numbered from 0 in the order given).
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    /// Term → (tool, weighted frequency), tools ascending.
    postings: HashMap<Box<str>, Vec<(u32, f32)>>,
    /// Each tool's weighted length.
    lengths: Vec<f32>,
    average: f32,
    /// Each tool's name, normalised (lowercase, separators removed), for exact matches.
    names: Vec<Box<str>>,
}

/// A tool found, by its number in the index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub(crate) tool: u32,
    pub(crate) score: f32,
}

impl SearchIndex {
    /// Indexes `tools` (each tool's number is its position).
    pub(crate) fn build<'a>(tools: impl IntoIterator<Item = Fields<'a>>) -> Self {
        let mut index = SearchIndex::default();
        let mut frequencies: HashMap<String, f32> = HashMap::new();
        for (number, tool) in tools.into_iter().enumerate() {
            frequencies.clear();
            let mut length = 0.0;
            let mut add = |text: &str, weight: f32| {
                for_each_term(text, |term| {
                    *frequencies.entry(term.to_owned()).or_default() += weight;
                    length += weight;
                });
            };
            add(tool.name, NAME_WEIGHT);
            add(tool.description, DESCRIPTION_WEIGHT);
            for text in &tool.parameters {
                add(text, PARAMETER_WEIGHT);
            }
            for text in &tool.context {
                add(text, CONTEXT_WEIGHT);
            }
            let number = u32::try_from(number).unwrap_or(u32::MAX);
            for (term, frequency) in frequencies.drain() {
                index.postings.entry(term.into()).or_default().push((number, frequency));
            }
            index.lengths.push(length);
            index.names.push(normalised_name(tool.name).into());
        }
        let count = index.lengths.len().max(1);
        #[allow(clippy::cast_precision_loss)] // tool counts are far below 2^24
        {
            index.average = index.lengths.iter().sum::<f32>() / count as f32;
        }
        index
    }

    /// The tools matching `query` for which `allowed` holds, best first, at most `limit`;
    /// ties by tool number. No terms (empty, only stop words) give no hits.
    pub(crate) fn search(&self, query: &str, limit: usize, allowed: impl Fn(u32) -> bool) -> Vec<Scored> {
        let query = cut(query, MAX_QUERY_BYTES);
        let mut terms: Vec<String> = Vec::new();
        for_each_term(query, |term| {
            if terms.len() < MAX_QUERY_TERMS && !terms.iter().any(|t| t == term) {
                terms.push(term.to_owned());
            }
        });
        let mut scores: HashMap<u32, f32> = HashMap::new();
        #[allow(clippy::cast_precision_loss)] // tool counts are far below 2^24
        let total = self.lengths.len() as f32;
        for term in &terms {
            let Some(postings) = self.postings.get(term.as_str()) else {
                continue;
            };
            #[allow(clippy::cast_precision_loss)]
            let found = postings.len() as f32;
            let idf = (1.0 + (total - found + 0.5) / (found + 0.5)).ln();
            for &(tool, frequency) in postings {
                if !allowed(tool) {
                    continue;
                }
                let length = self.lengths[tool as usize];
                let norm = K1 * (1.0 - B + B * length / self.average.max(f32::EPSILON));
                *scores.entry(tool).or_default() += idf * frequency * (K1 + 1.0) / (frequency + norm);
            }
        }
        let exact = normalised_name(query);
        if !exact.is_empty() {
            for (tool, name) in self.names.iter().enumerate() {
                let tool = u32::try_from(tool).unwrap_or(u32::MAX);
                if **name == *exact && allowed(tool) {
                    *scores.entry(tool).or_default() += EXACT_NAME;
                }
            }
        }
        let mut ranked: Vec<Scored> = scores.into_iter().map(|(tool, score)| Scored { tool, score }).collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.tool.cmp(&b.tool)));
        ranked.truncate(limit);
        ranked
    }
}

/// `text` cut to at most `max` bytes at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A tool name as a query would write it whole: lowercase, letters and digits only
/// (`file.read`, `file_read`, `fileRead` and `FileRead` are all `fileread`).
fn normalised_name(name: &str) -> String {
    name.trim()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Calls `f` with each search term of `text`: words split at non-alphanumerics, camelCase
/// humps and letter/digit boundaries, lowercased, stop words dropped, suffixes stripped.
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut previous: Option<char> = None;
    let flush = |word: &mut String, f: &mut dyn FnMut(&str)| {
        if !word.is_empty() {
            let lower = word.to_lowercase();
            if lower.len() <= MAX_WORD && !STOP_WORDS.contains(&lower.as_str()) {
                f(stem(&lower));
            }
            word.clear();
        }
    };
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut f);
            previous = None;
            continue;
        }
        if let Some(p) = previous {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let hump = (p.is_lowercase() && c.is_uppercase())
                // `HTTPServer`: the last capital of a run starts the next word.
                || (p.is_uppercase() && c.is_uppercase() && next_lower)
                || (p.is_alphabetic() && c.is_numeric())
                || (p.is_numeric() && c.is_alphabetic());
            if hump {
                flush(&mut word, &mut f);
            }
        }
        word.push(c);
        previous = Some(c);
    }
    flush(&mut word, &mut f);
}

/// A light English suffix stripping, the same for queries and tools, so the forms of a word
/// meet: `files` and `file` → `fil`, `directories` and `directory` → `director`, `listing`
/// and `listed` → `list`, `created`, `creating` and `create` → `creat`, `boxes` → `box`.
/// Short and non-ASCII words are kept whole.
fn stem(word: &str) -> &str {
    if word.len() <= 3 || !word.is_ascii() {
        return word;
    }
    let long = |s: &str| s.len() >= 3;
    let stripped = if let Some(s) = word.strip_suffix("ies").filter(|s| long(s)) {
        s
    } else if let Some(s) = word.strip_suffix("ing").filter(|s| long(s)) {
        s
    } else if let Some(s) = word.strip_suffix("ed").filter(|s| long(s)) {
        s
    } else if let Some(s) = word
        .strip_suffix("es")
        .filter(|s| s.ends_with(['s', 'x', 'z']) || s.ends_with("ch") || s.ends_with("sh"))
    {
        s
    } else if let Some(s) = word.strip_suffix('s').filter(|s| long(s) && !s.ends_with('s')) {
        s
    } else if let Some(s) = word.strip_suffix('y').filter(|s| long(s)) {
        s
    } else {
        word
    };
    match stripped.strip_suffix('e') {
        Some(s) if long(s) => s,
        _ => stripped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_term(text, |t| out.push(t.to_owned()));
        out
    }

    #[test]
    fn names_split_as_people_read_them() {
        assert_eq!(terms("readTextFile"), ["read", "text", "fil"]);
        assert_eq!(terms("read_text_file"), ["read", "text", "fil"]);
        assert_eq!(terms("file.read"), ["fil", "read"]);
        assert_eq!(terms("HTTPServer v2"), ["http", "server", "v", "2"]);
        assert_eq!(terms("list the directories"), ["list", "director"]);
        assert_eq!(terms("directory"), ["director"]);
        assert_eq!(terms("Listing files"), ["list", "fil"]);
        assert_eq!(terms("created creating create"), ["creat", "creat", "creat"]);
        assert_eq!(terms("boxes matches class"), ["box", "match", "class"]);
        assert_eq!(terms("über Straße"), ["über", "straße"]);
        assert!(terms("the of and to").is_empty());
        assert!(terms("").is_empty());
    }

    fn index() -> SearchIndex {
        SearchIndex::build([
            Fields {
                name: "readTextFile",
                description: "Read a file's contents as text",
                parameters: vec!["path", "The file to read"],
                context: vec!["filesystem", "Files on disk"],
            },
            Fields {
                name: "listDirectory",
                description: "List the entries of a directory",
                parameters: vec!["path"],
                context: vec!["filesystem", "Files on disk"],
            },
            Fields {
                name: "get_current_time",
                description: "Get the current time in a time zone",
                parameters: vec!["timezone", "IANA time zone name"],
                context: vec!["time"],
            },
        ])
    }

    #[test]
    fn ranks_by_meaning_and_exact_names_win() {
        let index = index();
        let top = |q: &str| index.search(q, 3, |_| true).first().map(|s| s.tool);
        assert_eq!(top("what time is it in Tokyo"), Some(2));
        assert_eq!(top("show the folder listing of a directory"), Some(1));
        assert_eq!(top("read a text file"), Some(0));
        assert_eq!(top("get_current_time"), Some(2));
        assert_eq!(top("list_directory"), Some(1), "snake_case query, camelCase name");
        assert_eq!(top("the of and"), None, "stop words only");
        assert_eq!(top(""), None);
        // Filtered tools are never returned.
        assert!(index.search("file", 3, |t| t != 0).iter().all(|s| s.tool != 0));
    }

    #[test]
    fn hostile_queries_are_bounded() {
        let index = index();
        let huge = "file ".repeat(200_000);
        let hits = index.search(&huge, 3, |_| true);
        assert_eq!(hits.first().map(|s| s.tool), Some(0));
        let unicode = "文件 📁 \u{202e}read\u{0}";
        let _ = index.search(unicode, 3, |_| true);
        let long_word = "x".repeat(100_000);
        assert!(index.search(&long_word, 3, |_| true).is_empty());
        assert_eq!(cut("ééé", 3), "é");
    }
}
