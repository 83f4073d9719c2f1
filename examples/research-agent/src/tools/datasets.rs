//! The bundled CSV datasets (`data/monthly_sales.csv`) and the two stateful toolsets over
//! them: `statistical-analysis` (an `impl` block on [`Datasets`]) and `visualization` (an
//! `impl` block on [`Charts`], which shares the datasets), with the statistics and the SVG
//! charts they compute.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

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
        let sales = Table::from_csv(include_str!("../../data/monthly_sales.csv")).expect("the bundled CSV is valid");
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
