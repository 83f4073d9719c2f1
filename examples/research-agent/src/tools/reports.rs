//! Writing reports: citations of search results (APA or MLA), extractive summaries by word
//! frequency, and the `writing-tools` toolset built on them.

use std::collections::BTreeMap;

use super::{Hit, words};

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
