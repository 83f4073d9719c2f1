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
    pub fn filter_by_date(
        /// The hits, exactly as a search returned them.
        hits: Vec<Hit>,
        /// Earliest date kept, YYYY-MM-DD (or YYYY-MM, YYYY).
        from: Option<String>,
        /// Latest date kept, YYYY-MM-DD (or YYYY-MM, YYYY).
        to: Option<String>,
    ) -> Result<Vec<Hit>, String> {
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
    pub fn filter_by_domain(
        /// The hits, exactly as a search returned them.
        hits: Vec<Hit>,
        /// Domains to keep, such as `gridnews.net`.
        domains: Vec<String>,
    ) -> Vec<Hit> {
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
    pub fn analyze_statistics(
        &self,
        /// The dataset's name, such as `monthly_sales`.
        dataset: String,
        /// A numeric column of the dataset.
        column: String,
    ) -> Result<Stats, String> {
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
        /// The dataset's name, such as `monthly_sales`.
        dataset: String,
        /// A numeric column of the dataset.
        column: String,
        /// `bar` (default) or `line`.
        kind: Option<String>,
        /// A file to write the SVG to, besides returning it.
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

/// A unit of measure: `value_in_base = value * factor + offset`.
struct Unit {
    symbol: &'static str,
    dimension: &'static str,
    factor: f64,
    offset: f64,
}

const fn unit(symbol: &'static str, dimension: &'static str, factor: f64) -> Unit {
    Unit {
        symbol,
        dimension,
        factor,
        offset: 0.0,
    }
}

/// Supported units; factors are exact definitions where one exists.
const UNITS: &[Unit] = &[
    unit("m", "length", 1.0),
    unit("km", "length", 1000.0),
    unit("cm", "length", 0.01),
    unit("mm", "length", 0.001),
    unit("mi", "length", 1609.344),
    unit("yd", "length", 0.9144),
    unit("ft", "length", 0.3048),
    unit("in", "length", 0.0254),
    unit("kg", "mass", 1.0),
    unit("g", "mass", 0.001),
    unit("mg", "mass", 0.000_001),
    unit("lb", "mass", 0.453_592_37),
    unit("oz", "mass", 0.028_349_523_125),
    unit("t", "mass", 1000.0),
    unit("K", "temperature", 1.0),
    Unit {
        symbol: "C",
        dimension: "temperature",
        factor: 1.0,
        offset: 273.15,
    },
    Unit {
        symbol: "F",
        dimension: "temperature",
        factor: 5.0 / 9.0,
        offset: 273.15 - 32.0 * 5.0 / 9.0,
    },
    unit("J", "energy", 1.0),
    unit("kJ", "energy", 1000.0),
    unit("kWh", "energy", 3_600_000.0),
    unit("cal", "energy", 4.184),
    unit("kcal", "energy", 4184.0),
    unit("BTU", "energy", 1_055.055_852_62),
    unit("L", "volume", 1.0),
    unit("mL", "volume", 0.001),
    unit("m3", "volume", 1000.0),
    unit("gal", "volume", 3.785_411_784),
    unit("qt", "volume", 0.946_352_946),
    unit("cup", "volume", 0.236_588_236_5),
    unit("m/s", "speed", 1.0),
    unit("km/h", "speed", 1.0 / 3.6),
    unit("mph", "speed", 0.447_04),
    unit("kn", "speed", 1852.0 / 3600.0),
];

fn find_unit(symbol: &str) -> Result<&'static Unit, String> {
    UNITS.iter().find(|u| u.symbol == symbol).ok_or_else(|| {
        let close: Vec<&str> = UNITS
            .iter()
            .map(|u| u.symbol)
            .filter(|u| u.eq_ignore_ascii_case(symbol))
            .collect();
        match close.as_slice() {
            [one] => format!("unknown unit `{symbol}`; did you mean `{one}`?"),
            _ => format!("unknown unit `{symbol}`; call listUnits to see the supported units"),
        }
    })
}

/// A conversion's result.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Conversion {
    /// The value converted.
    pub value: f64,
    /// Its unit.
    pub from: String,
    /// The result, rounded to 6 significant digits.
    pub result: f64,
    /// The result's unit.
    pub to: String,
    /// What is measured.
    pub dimension: String,
}

fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Converts `value` from one unit to another of the same dimension.
///
/// # Errors
///
/// Unknown units, or units of different dimensions.
pub fn convert(value: f64, from: &str, to: &str) -> Result<Conversion, String> {
    let (a, b) = (find_unit(from)?, find_unit(to)?);
    if a.dimension != b.dimension {
        return Err(format!(
            "cannot convert {} (`{from}`) to {} (`{to}`)",
            a.dimension, b.dimension
        ));
    }
    let base = value * a.factor + a.offset;
    let result = (base - b.offset) / b.factor;
    Ok(Conversion {
        value,
        from: from.to_owned(),
        result: round_significant(result, 6),
        to: to.to_owned(),
        dimension: a.dimension.to_owned(),
    })
}

/// Unit conversions.
#[carnet::toolset("units")]
pub mod units {
    use std::collections::BTreeMap;

    use super::{Conversion, UNITS, convert};

    /// Converts a value between units of one dimension.
    #[carnet::tool]
    pub fn convert_units(
        /// The value to convert.
        value: f64,
        /// Its unit's symbol, such as `km` or `F`.
        from: String,
        /// The target unit's symbol, of the same dimension.
        to: String,
    ) -> Result<Conversion, String> {
        convert(value, &from, &to)
    }

    /// Lists the supported units, by dimension.
    #[carnet::tool]
    pub fn list_units(
        /// Only this dimension's units, such as `length` (default: every dimension).
        dimension: Option<String>,
    ) -> Result<BTreeMap<String, Vec<String>>, String> {
        let mut all: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for unit in UNITS {
            all.entry(unit.dimension.to_owned())
                .or_default()
                .push(unit.symbol.to_owned());
        }
        match dimension {
            None => Ok(all),
            Some(d) => all
                .remove_entry(&d)
                .map(|(k, v)| BTreeMap::from([(k, v)]))
                .ok_or_else(|| {
                    format!(
                        "unknown dimension `{d}`; the dimensions are: {}",
                        all.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                }),
        }
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// MLA's month abbreviations (May, June and July are written in full).
fn mla_month(month: &str) -> &'static str {
    match month {
        "January" => "Jan.",
        "February" => "Feb.",
        "March" => "Mar.",
        "April" => "Apr.",
        "May" => "May",
        "June" => "June",
        "July" => "July",
        "August" => "Aug.",
        "September" => "Sept.",
        "October" => "Oct.",
        "November" => "Nov.",
        _ => "Dec.",
    }
}

/// Formats a citation of a search result in APA (default) or MLA style.
///
/// # Errors
///
/// An unknown style or a date that is not `YYYY-MM-DD`.
pub fn citation(hit: &Hit, style: &str) -> Result<String, String> {
    let parts: Vec<&str> = hit.date.split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return Err(format!("`{}` is not a date (expected YYYY-MM-DD)", hit.date));
    };
    let month_name = month
        .parse::<usize>()
        .ok()
        .and_then(|m| MONTHS.get(m.wrapping_sub(1)))
        .ok_or_else(|| format!("`{}` has no valid month", hit.date))?;
    let day = day.trim_start_matches('0');
    match style {
        "apa" => Ok(format!("{}. ({year}, {month_name} {day}). {}.", hit.title, hit.domain)),
        "mla" => Ok(format!(
            "\"{}.\" {}, {day} {} {year}.",
            hit.title,
            hit.domain,
            mla_month(month_name)
        )),
        other => Err(format!("unknown citation style `{other}`: use `apa` or `mla`")),
    }
}

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "in", "is", "it", "its", "of", "on", "or",
    "that", "the", "to", "was", "were", "with", "this", "than", "by",
];

/// The `count` sentences of `text` scoring highest by word frequency, in their original order.
#[must_use]
pub fn summary(text: &str, count: usize) -> Vec<String> {
    let sentences: Vec<&str> = text
        .split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut frequency: BTreeMap<String, usize> = BTreeMap::new();
    for w in words(text).filter(|w| !STOPWORDS.contains(&w.as_str())) {
        *frequency.entry(w).or_default() += 1;
    }
    let mut scored: Vec<(usize, f64)> = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ws: Vec<String> = words(s).filter(|w| !STOPWORDS.contains(&w.as_str())).collect();
            let score = ws.iter().map(|w| frequency[w] as f64).sum::<f64>() / ws.len().max(1) as f64;
            (i, score)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut keep: Vec<usize> = scored.into_iter().take(count).map(|(i, _)| i).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| sentences[i].to_owned()).collect()
}

/// Citations and summaries for reports.
#[carnet::toolset("writing-tools")]
pub mod writing {
    use super::{Hit, citation, summary};

    /// Formats a citation of a search result.
    #[carnet::tool]
    pub fn format_citation(
        /// A hit, exactly as a search returned it.
        hit: Hit,
        /// `apa` (default) or `mla`.
        style: Option<String>,
    ) -> Result<String, String> {
        citation(&hit, style.as_deref().unwrap_or("apa"))
    }

    /// Summarises a text in its most representative sentences.
    #[carnet::tool]
    pub fn summarize_text(
        /// The text to summarise.
        text: String,
        /// How many sentences to keep (default 3).
        sentences: Option<u32>,
    ) -> Vec<String> {
        summary(&text, sentences.unwrap_or(3) as usize)
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
        units: units::toolset(),
        writing_tools: writing::toolset(),
    }
}
