//! The research agent's tools, bound to the toolsets its `carnet/` declares. They work on
//! data bundled with the example: a document collection (`data/documents.json`) searched
//! with a TF-IDF ranking, and a CSV dataset (`data/monthly_sales.csv`).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    /// The document's title.
    pub title: String,
    /// Where it was published (`www.` removed).
    pub domain: String,
    /// Publication date, ISO 8601.
    pub date: String,
    /// The start of the document.
    pub snippet: String,
    /// Relevance (higher is better).
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

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn collection() -> &'static Collection {
    static COLLECTION: OnceLock<Collection> = OnceLock::new();
    COLLECTION.get_or_init(|| {
        let documents: Vec<Document> =
            serde_json::from_str(include_str!("../data/documents.json")).expect("the bundled documents are valid JSON");
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
                snippet: d.text.chars().take(120).collect(),
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
    pub fn basic_search(query: String, limit: Option<u32>) -> Vec<Hit> {
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

    /// The input of `advancedSearch`.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
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
    pub fn filter_results(hits: Vec<Hit>, term: String) -> Vec<Hit> {
        let term = term.to_lowercase();
        hits.into_iter()
            .filter(|h| h.title.to_lowercase().contains(&term) || h.snippet.to_lowercase().contains(&term))
            .collect()
    }
}

/// Narrowing results by date and domain.
#[carnet::toolset("filter-tools")]
pub mod filters {
    use super::Hit;

    fn date(text: &str) -> Result<(u32, u32, u32), String> {
        let parts: Vec<&str> = text.split('-').collect();
        let number = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| format!("`{text}` is not a date (expected YYYY-MM-DD)"))
        };
        match parts.as_slice() {
            [y, m, d] => Ok((number(y)?, number(m)?, number(d)?)),
            [y, m] => Ok((number(y)?, number(m)?, 1)),
            [y] => Ok((number(y)?, 1, 1)),
            _ => Err(format!("`{text}` is not a date (expected YYYY-MM-DD)")),
        }
    }

    /// Keeps the results published between `from` and `to` (inclusive, either may be omitted).
    #[carnet::tool]
    pub fn filter_by_date(hits: Vec<Hit>, from: Option<String>, to: Option<String>) -> Result<Vec<Hit>, String> {
        let from = from.as_deref().map(date).transpose()?;
        let to = to.as_deref().map(date).transpose()?;
        let mut kept = Vec::new();
        for hit in hits {
            let published = date(&hit.date)?;
            if from.is_none_or(|f| published >= f) && to.is_none_or(|t| published <= t) {
                kept.push(hit);
            }
        }
        Ok(kept)
    }

    /// Keeps the results from the given domains (`www.` is ignored).
    #[carnet::tool]
    pub fn filter_by_domain(hits: Vec<Hit>, domains: Vec<String>) -> Vec<Hit> {
        let domains: Vec<String> = domains
            .iter()
            .map(|d| d.trim_start_matches("www.").to_lowercase())
            .collect();
        hits.into_iter()
            .filter(|h| domains.contains(&h.domain.to_lowercase()))
            .collect()
    }
}

/// A table of numeric columns.
#[derive(Debug, Clone)]
pub struct Table {
    columns: Vec<String>,
    labels: Vec<String>,
    values: Vec<Vec<f64>>,
}

impl Table {
    /// Parses a CSV whose first column holds labels and the others numbers.
    ///
    /// # Errors
    ///
    /// When a cell is not a number.
    pub fn from_csv(text: &str) -> Result<Table, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<String> = lines
            .next()
            .ok_or("empty CSV")?
            .split(',')
            .map(|s| s.trim().to_owned())
            .collect();
        let mut labels = Vec::new();
        let mut values = vec![Vec::new(); header.len().saturating_sub(1)];
        for (row, line) in lines.enumerate() {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            labels.push(cells.first().copied().unwrap_or_default().to_owned());
            for (i, column) in values.iter_mut().enumerate() {
                let cell = cells.get(i + 1).copied().unwrap_or_default();
                column.push(
                    cell.parse()
                        .map_err(|_| format!("row {}: `{cell}` is not a number", row + 2))?,
                );
            }
        }
        Ok(Table {
            columns: header.into_iter().skip(1).collect(),
            labels,
            values,
        })
    }

    fn column(&self, name: &str) -> Result<&[f64], String> {
        self.columns
            .iter()
            .position(|c| c == name)
            .map(|i| self.values[i].as_slice())
            .ok_or_else(|| format!("no column `{name}`; the columns are: {}", self.columns.join(", ")))
    }
}

/// The bundled datasets, by name.
#[derive(Debug, Clone)]
pub struct Datasets {
    tables: BTreeMap<String, Table>,
}

impl Datasets {
    /// The datasets shipped with the example (`monthly_sales`).
    ///
    /// # Panics
    ///
    /// Never: the bundled CSV is valid.
    #[must_use]
    pub fn bundled() -> Self {
        let sales = Table::from_csv(include_str!("../data/monthly_sales.csv")).expect("the bundled CSV is valid");
        Datasets {
            tables: BTreeMap::from([("monthly_sales".to_owned(), sales)]),
        }
    }

    fn table(&self, name: &str) -> Result<&Table, String> {
        self.tables.get(name).ok_or_else(|| {
            format!(
                "no dataset `{name}`; the datasets are: {}",
                self.tables.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

/// Descriptive statistics of a column.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Stats {
    /// Number of values.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Population standard deviation.
    pub std_dev: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Computes the statistics of `values`.
///
/// # Errors
///
/// When there are no values.
pub fn statistics(values: &[f64]) -> Result<Stats, String> {
    if values.is_empty() {
        return Err("no values to analyse".to_owned());
    }
    let count = values.len();
    let mean = values.iter().sum::<f64>() / count as f64;
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = if count.is_multiple_of(2) {
        f64::midpoint(sorted[count / 2 - 1], sorted[count / 2])
    } else {
        sorted[count / 2]
    };
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / count as f64;
    Ok(Stats {
        count,
        mean: round2(mean),
        median: round2(median),
        std_dev: round2(variance.sqrt()),
        min: sorted[0],
        max: sorted[count - 1],
    })
}

/// Statistics over the bundled datasets (stateful: an `impl` block).
#[carnet::toolset("statistical-analysis")]
impl Datasets {
    /// Count, mean, median, standard deviation, minimum and maximum of a column.
    #[carnet::tool]
    pub fn analyze_statistics(&self, dataset: String, column: String) -> Result<Stats, String> {
        statistics(self.table(&dataset)?.column(&column)?)
    }
}

/// Charts of the bundled datasets, sharing the datasets with the statistics.
#[derive(Debug, Clone)]
pub struct Charts(pub Arc<Datasets>);

/// A chart drawn as SVG.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Chart {
    /// The SVG document.
    pub svg: String,
    /// Where it was written, when a path was given.
    pub written_to: Option<String>,
}

/// Draws `values` as an SVG bar or line chart, 640×360.
#[must_use]
pub fn svg_chart(title: &str, labels: &[String], values: &[f64], line: bool) -> String {
    let (width, height, margin) = (640.0_f64, 360.0_f64, 40.0_f64);
    let max = values.iter().copied().fold(0.0_f64, f64::max).max(1.0);
    let step = (width - 2.0 * margin) / values.len().max(1) as f64;
    let y = |v: f64| height - margin - v / max * (height - 2.0 * margin);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n<title>{}</title>\n<text x=\"{margin}\" y=\"24\" font-family=\"sans-serif\" font-size=\"16\">{}</text>\n",
        escape(title),
        escape(title)
    );
    if line {
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", margin + step * (i as f64 + 0.5), y(*v)))
            .collect();
        svg.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"#3366cc\" stroke-width=\"2\" points=\"{}\"/>\n",
            points.join(" ")
        ));
    } else {
        for (i, v) in values.iter().enumerate() {
            svg.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#3366cc\"/>\n",
                margin + step * i as f64 + step * 0.1,
                y(*v),
                step * 0.8,
                height - margin - y(*v)
            ));
        }
    }
    for (i, label) in labels.iter().enumerate() {
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-family=\"sans-serif\" font-size=\"9\" text-anchor=\"middle\">{}</text>\n",
            margin + step * (i as f64 + 0.5),
            height - margin + 14.0,
            escape(label)
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[carnet::toolset("visualization")]
impl Charts {
    /// Draws a column of a dataset as a bar or line chart.
    #[carnet::tool]
    pub fn visualize_data(
        &self,
        dataset: String,
        column: String,
        kind: Option<String>,
        path: Option<String>,
    ) -> Result<Chart, String> {
        let table = self.0.table(&dataset)?;
        let values = table.column(&column)?;
        let line = match kind.as_deref() {
            None | Some("bar") => false,
            Some("line") => true,
            Some(other) => return Err(format!("unknown chart kind `{other}`: use `bar` or `line`")),
        };
        let svg = svg_chart(&format!("{dataset}: {column}"), &table.labels, values, line);
        let written_to = match path {
            Some(path) => {
                std::fs::write(&path, &svg).map_err(|e| format!("cannot write `{path}`: {e}"))?;
                Some(path)
            }
            None => None,
        };
        Ok(Chart { svg, written_to })
    }
}

/// Every toolset of the research agent, bound.
#[must_use]
pub fn toolsets() -> crate::manifest::Toolsets {
    let datasets = Datasets::bundled();
    let charts = Charts(Arc::new(datasets.clone()));
    crate::manifest::Toolsets {
        search_tools: search::toolset(),
        filter_tools: filters::toolset(),
        statistical_analysis: datasets.toolset(),
        visualization: charts.toolset(),
    }
}
