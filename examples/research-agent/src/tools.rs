//! The research agent's tools, bound to the toolsets its `carnet/` declares. They work on
//! data bundled with the example: a document collection (`data/documents.json`) searched
//! with a TF-IDF ranking, and a CSV dataset (`data/monthly_sales.csv`).
//!
//! One file per job, under `tools/`: `retrieval.rs` holds the collection, its ranking and the
//! `search-tools` toolset; `filtering.rs`, the `filter-tools` toolset; `datasets.rs`, the CSV
//! datasets with the `statistical-analysis` and `visualization` toolsets; `conversion.rs`, the
//! `units` toolset; `reports.rs`, the `writing-tools` toolset. Their items are re-exported
//! here, so every path stays `tools::…`; this file keeps the tokenizer they share and
//! [`toolsets`], which binds them all.

use std::sync::Arc;

mod conversion;
mod datasets;
mod filtering;
mod reports;
mod retrieval;

pub use conversion::{Conversion, convert, units};
pub use datasets::{Chart, Charts, Datasets, Stats, Table, statistics, svg_chart};
pub use filtering::filters;
pub use reports::{citation, summary, writing};
pub use retrieval::{Hit, search};

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
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
