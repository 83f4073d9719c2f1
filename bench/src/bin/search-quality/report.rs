//! The markdown tables `search-quality` prints: the catalogs, recall per method and per
//! skill, the requests missed, and the times.

use std::fmt::Write as _;
use std::time::Duration;

use super::{BUILDS, Catalog, LIMIT, Query, ROUNDS, Ranks, Searched};

pub(super) fn report_catalog(out: &mut String, real: &Catalog, full: &Catalog, queries: &[Query]) {
    let _ = writeln!(
        out,
        "## The catalog\n\n| skill | tools | labelled queries |\n|---|--:|--:|"
    );
    let mut per_skill: Vec<(&str, usize, usize)> = real
        .skills
        .iter()
        .map(|(skill, _)| {
            let tools = real.skill_of.values().filter(|s| *s == skill).count();
            let labelled = queries.iter().filter(|q| real.skill_of[&q.tool] == *skill).count();
            (skill.as_str(), tools, labelled)
        })
        .collect();
    per_skill.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (skill, tools, labelled) in per_skill {
        let _ = writeln!(out, "| {skill} | {tools} | {labelled} |");
    }
    let noise_skills = full.skills.len() - real.skills.len();
    let noise_tools = full.tools.len() - real.tools.len();
    let _ = writeln!(
        out,
        "| **real catalog** ({} skills) | **{}** | **{}** |\n| synthetic noise ({} skills) | {} | 0 |\n| **with noise** ({} skills) | **{}** | |\n",
        real.skills.len(),
        real.tools.len(),
        queries.len(),
        thousands(noise_skills),
        thousands(noise_tools),
        thousands(full.skills.len()),
        thousands(full.tools.len())
    );
}

pub(super) fn report_recall(out: &mut String, rows: &[(&str, &Catalog, Ranks)], queries: usize) {
    let _ = writeln!(
        out,
        "## Recall ({queries} labelled queries)\n\n| method | catalog | recall@1 | recall@5 | MRR@10 |\n|---|---|--:|--:|--:|"
    );
    for (method, catalog, ranks) in rows {
        let _ = writeln!(
            out,
            "| {method} | {} ({} tools) | {:.3} | {:.3} | {:.3} |",
            catalog.label,
            thousands(catalog.tools.len()),
            ranks.recall(1),
            ranks.recall(5),
            ranks.mrr()
        );
    }
    let _ = writeln!(out);
}

/// Recall@5 per skill of the labelled tools, one column per method and catalog.
pub(super) fn report_by_skill(out: &mut String, real: &Catalog, rows: &[(&str, &Catalog, Ranks)], queries: &[Query]) {
    let _ = write!(out, "## Recall@5 by skill\n\n| skill | queries |");
    for (method, catalog, _) in rows {
        let _ = write!(out, " {method}, {} |", catalog.label);
    }
    let _ = writeln!(out, "\n|---|--:|{}", "--:|".repeat(rows.len()));
    let mut skills: Vec<&str> = queries.iter().map(|q| real.skill_of[&q.tool].as_str()).collect();
    skills.sort_unstable();
    skills.dedup();
    for skill in skills {
        let of: Vec<usize> = (0..queries.len())
            .filter(|&i| real.skill_of[&queries[i].tool] == skill)
            .collect();
        let _ = write!(out, "| {skill} | {} |", of.len());
        for (_, _, ranks) in rows {
            let hits = of.iter().filter(|&&i| ranks.0[i].is_some_and(|r| r <= 5)).count();
            let _ = write!(out, " {hits} |");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out);
}

pub(super) fn report_misses(out: &mut String, real: &Catalog, searched: &[Searched], queries: &[Query]) {
    // Requests whose first five hits, with noise, hold a synthetic tool.
    let noisy: Vec<usize> = (0..queries.len())
        .filter(|&i| {
            searched[1].top[i]
                .iter()
                .take(5)
                .any(|h| !real.skill_of.contains_key(h))
        })
        .collect();
    let with_digits = noisy
        .iter()
        .filter(|&&i| queries[i].query.chars().any(|c| c.is_ascii_digit()))
        .count();
    let _ = writeln!(
        out,
        "## Queries searchTools misses at 5\n\n\
         With noise, a synthetic tool is among the first 5 hits of {} requests, {with_digits} of \
         them with a number in the request.\n\n| query | labelled | rank, real | rank, with noise | first hits, with noise |\n|---|---|--:|--:|---|",
        noisy.len()
    );
    let rank = |r: Option<usize>| r.map_or_else(|| format!(">{LIMIT}"), |r| r.to_string());
    for (i, q) in queries.iter().enumerate() {
        let (in_real, in_full) = (searched[0].ranks.0[i], searched[1].ranks.0[i]);
        if in_real.is_some_and(|r| r <= 5) && in_full.is_some_and(|r| r <= 5) {
            continue;
        }
        let mut labelled = format!("`{}`", q.tool);
        for also in &q.also {
            let _ = write!(labelled, " / `{also}`");
        }
        let first: Vec<String> = searched[1].top[i].iter().take(3).map(|h| format!("`{h}`")).collect();
        let _ = writeln!(
            out,
            "| {} | {labelled} | {} | {} | {} |",
            q.query.replace('|', "\\|"),
            rank(in_real),
            rank(in_full),
            first.join(", ")
        );
    }
    let _ = writeln!(out);
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub(super) fn report_time(out: &mut String, real: &Catalog, full: &Catalog, searched: &Searched, queries: &[Query]) {
    let mut times = searched.times.clone();
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    // The slowest query, by its median over the rounds (times are round-major).
    let slowest = (0..queries.len())
        .map(|i| {
            let mut own: Vec<Duration> = searched.times.iter().skip(i).step_by(queries.len()).copied().collect();
            own.sort_unstable();
            (own[own.len() / 2], i)
        })
        .max()
        .expect("queries");
    let tools = thousands(full.tools.len());
    let _ = writeln!(
        out,
        "## Time\n\n| measure | value |\n|---|--:|\n\
         | engine build, real catalog ({} tools), median of {BUILDS} | {:.1} ms |\n\
         | engine build, with noise ({tools} tools), median of {BUILDS} | {:.1} ms |\n\
         | searchTools at {tools} tools, median ({} calls: {} queries × {ROUNDS}) | {:.0} µs |\n\
         | searchTools at {tools} tools, p99 | {:.0} µs |\n\
         | searchTools at {tools} tools, the session's first call | {:.0} µs |\n\
         | slowest query at {tools} tools (its median): \"{}\" | {:.0} µs |\n\n\
         The engines offer `searchTools` (`Preset::Discovery`), so each build includes the\n\
         index over a manifest read at run time (`search-index` times it alone, against the\n\
         compiled index); a call is timed through `Session::call` (argument check, span, ten\n\
         hits as JSON), as a model's call runs.",
        real.tools.len(),
        real.build.as_secs_f64() * 1e3,
        full.build.as_secs_f64() * 1e3,
        thousands(times.len()),
        queries.len(),
        micros(at(0.5)),
        micros(at(0.99)),
        micros(searched.first),
        queries[slowest.1].query,
        micros(slowest.0),
    );
}

/// `10000` as `10,000`.
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
