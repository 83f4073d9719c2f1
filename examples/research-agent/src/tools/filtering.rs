//! The `filter-tools` toolset: narrowing search results by publication date and domain.

use super::Hit;

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
