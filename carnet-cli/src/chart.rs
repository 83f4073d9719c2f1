//! `carnet stats AGENT --svg FILE`: the tokens each model call of the conversation sends, one
//! series per exposure mode and one for everything up front, above the share of each call
//! that is the previous call's request unchanged (the cache-stable prefix). Drawn with
//! plotters' SVG backend; sized to read at 800 px wide.

// Token counts stay far below 2^52; the axes start at 0, and a negative call index is
// checked before its cast.
#![allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]

use std::path::Path;

use carnet_runtime::{Carnet, ExposureMode, Manifest, tokens};
use plotters::prelude::*;

use crate::Failure;
use crate::stats::Turn;

/// One line of the chart: a label and, per model call, the tokens sent and the
/// cache-stable part of them.
pub(crate) struct Series {
    pub(crate) label: String,
    pub(crate) sent: Vec<usize>,
    pub(crate) stable: Vec<usize>,
}

impl Series {
    /// The series of a mode's conversation.
    pub(crate) fn of_mode(mode: ExposureMode, turns: &[Turn]) -> Series {
        Series {
            label: format!("progressive, {}", mode.name()),
            sent: turns.iter().map(Turn::total).collect(),
            stable: turns.iter().map(|t| t.stable).collect(),
        }
    }

    /// Everything up front: the same context every call, all of it cacheable after the first.
    pub(crate) fn up_front(tokens: usize, calls: usize) -> Series {
        Series {
            label: "everything up front".to_owned(),
            sent: vec![tokens; calls],
            stable: (0..calls).map(|i| if i == 0 { 0 } else { tokens }).collect(),
        }
    }
}

const WIDTH: u32 = 800;
const HEIGHT: u32 = 960;
/// The legend's strip under the title, above both panels: outside the plots, so it covers
/// no series.
const LEGEND_HEIGHT: u32 = 64;

/// Colour-blind-safe (Okabe–Ito) colours, then a marker shape per series, so coinciding
/// lines stay apart.
const COLOURS: [RGBColor; 6] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
];

/// Draws `series` over the calls labelled `calls` into the SVG file `path`.
pub(crate) fn write(path: &Path, title: &str, calls: &[String], series: &[Series]) -> Result<(), Failure> {
    let mut svg = String::new();
    draw(&mut svg, title, calls, series).map_err(|e| Failure::content(format!("error: cannot draw the chart: {e}")))?;
    std::fs::write(path, svg).map_err(|e| Failure::usage(format!("error: cannot write `{}`: {e}", path.display())))
}

fn draw(svg: &mut String, title: &str, calls: &[String], series: &[Series]) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (legend_area, root) = root.split_vertically(LEGEND_HEIGHT);
    legend(&legend_area, series)?;
    let (top, bottom) = root.split_vertically(470);
    panel(
        &top,
        "Tokens sent per model call (prompt + tools + history)",
        calls,
        series,
        |s| &s.sent,
    )?;
    panel(
        &bottom,
        "Of which cache-stable: the previous request's unchanged prefix",
        calls,
        series,
        |s| &s.stable,
    )?;
    root.present()?;
    Ok(())
}

/// Each series' line, marker and label, three to a row.
fn legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    series: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    const PER_ROW: usize = 3;
    const COLUMN: i32 = 250;
    const ROW: i32 = 26;
    for (i, s) in series.iter().enumerate() {
        let (column, row) = (i32::try_from(i % PER_ROW)?, i32::try_from(i / PER_ROW)?);
        let (x, y) = (40 + column * COLUMN, 14 + row * ROW);
        let colour = COLOURS[i % COLOURS.len()];
        let style = line_style(i, colour);
        area.draw(&PathElement::new(vec![(x, y), (x + 30, y)], style))?;
        let at = (x + 15, y);
        match i % 3 {
            0 => area.draw(&Circle::new(at, 5, style.filled()))?,
            1 => area.draw(&TriangleMarker::new(at, 7, style.filled()))?,
            _ => area.draw(&Cross::new(at, 6, style))?,
        }
        area.draw(&Text::new(s.label.clone(), (x + 40, y - 8), ("sans-serif", 15)))?;
    }
    Ok(())
}

fn line_style(i: usize, colour: RGBColor) -> ShapeStyle {
    ShapeStyle::from(&colour).stroke_width(if i == 0 { 3 } else { 2 })
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    calls: &[String],
    series: &[Series],
    values: impl Fn(&Series) -> &Vec<usize>,
) -> Result<(), Box<dyn std::error::Error>> {
    let max = series
        .iter()
        .flat_map(|s| values(s).iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let last = calls.len().saturating_sub(1).max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 19))
        .margin(14)
        // The last call's label is centred on the last point: room for half of it.
        .margin_right(80)
        .x_label_area_size(56)
        .y_label_area_size(78)
        .build_cartesian_2d(-0.15..last + 0.15, 0.0..max * 1.12)?;
    chart
        .configure_mesh()
        .x_desc("model call (the loads before it)")
        .y_desc("tokens (o200k_base)")
        .x_labels(calls.len())
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() > 0.01 || i < 0.0 {
                return String::new();
            }
            calls.get(i as usize).cloned().unwrap_or_default()
        })
        // Token counts are integers: a label between two is left out (a small chart's axis
        // would read `0, 0, 0, 1`).
        .y_label_formatter(&|y| {
            if (y - y.round()).abs() > 1e-9 {
                String::new()
            } else {
                thousands(y.round() as usize)
            }
        })
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    for (i, s) in series.iter().enumerate() {
        let style = line_style(i, COLOURS[i % COLOURS.len()]);
        let points: Vec<(f64, f64)> = values(s)
            .iter()
            .enumerate()
            .map(|(x, &y)| (x as f64, y as f64))
            .collect();
        chart.draw_series(LineSeries::new(points.iter().copied(), style))?;
        // A marker per series (circle, triangle, cross), so coinciding lines stay apart.
        chart.draw_series(
            points
                .iter()
                .map(|&p| -> DynElement<'static, SVGBackend<'_>, (f64, f64)> {
                    match i % 3 {
                        0 => Circle::new(p, 5, style.filled()).into_dyn(),
                        1 => TriangleMarker::new(p, 7, style.filled()).into_dyn(),
                        _ => Cross::new(p, 6, style).into_dyn(),
                    }
                }),
        )?;
    }
    Ok(())
}

/// `12345` → `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The most skills a chart drawn without `--load` loads, one per call.
const MAX_LOADS: usize = 8;

/// `--svg FILE`: the conversation of `agent` that loads `load`, in every exposure mode and
/// with everything up front, drawn into `path`.
pub(crate) fn svg(
    manifest: &Manifest,
    agent: Option<&str>,
    load: &[String],
    path: &std::path::Path,
) -> Result<(), Failure> {
    let agents = crate::select_agents(manifest, agent)?;
    let [agent] = agents.as_slice() else {
        return Err(Failure::usage(
            "error: `--svg` draws one agent: name it (`carnet stats AGENT --svg FILE`)",
        ));
    };
    let name = &*agent.name;
    // Without `--load`, a conversation that loads each skill the agent can reach in turn (at
    // most `MAX_LOADS`): one point would draw no line.
    let reachable: Vec<String>;
    let (load, all_skills) = if load.is_empty() {
        let initial: Vec<&str> = agent
            .initial_skills
            .iter()
            .chain(manifest.app.global_initial_skills.iter())
            .map(|s| &**s)
            .collect();
        let mut seen = std::collections::HashSet::new();
        reachable = agent
            .skills
            .iter()
            .chain(manifest.app.global_skills.iter())
            .map(ToString::to_string)
            .filter(|s| !initial.contains(&s.as_str()) && seen.insert(s.clone()))
            .take(MAX_LOADS)
            .collect();
        (reachable.as_slice(), true)
    } else {
        (load, false)
    };
    let mut series = Vec::new();
    let mut calls = Vec::new();
    for mode in ExposureMode::ALL {
        let carnet = Carnet::builder(manifest)
            .allow_unimplemented()
            .mode(mode)
            .build()
            .map_err(|e| Failure::content(format!("error: {e}")))?;
        let turns = crate::stats::conversation(&carnet, name, load)?;
        if calls.is_empty() {
            calls = turns
                .iter()
                .enumerate()
                .map(|(i, t)| match t.label.strip_prefix("+ ") {
                    Some(skill) => format!("{i}: +{skill}"),
                    None => format!("{i}: start"),
                })
                .collect();
        }
        series.push(Series::of_mode(mode, &turns));
    }
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    let baseline = carnet
        .everything_up_front(name)
        .map_err(|e| Failure::usage(format!("error: {e}")))?;
    let up_front = tokens::context(&baseline.system_prompt, &baseline.tools).total();
    series.insert(0, Series::up_front(up_front, calls.len()));
    let title = if all_skills {
        format!("Agent `{name}`: tokens per model call, loading each skill in turn")
    } else {
        format!("Agent `{name}`: tokens per model call")
    };
    write(path, &title, &calls, &series)
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
