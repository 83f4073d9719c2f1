//! What the compiled search index saves (issue 26, item 2): at 10,000 tools, the index built
//! when an engine is built from a manifest read at run time, against the index `build.rs`
//! embeds (read in place from its bytes); and a query's time on it, with copying the index's
//! bytes beside it as the floor of touching it at all.
//!
//! Reads the catalog `search-quality` writes (`target/search-quality/full.manifest.json`, the
//! real MCP servers' tools and noise up to 10,000) and its labelled requests
//! (`bench/search/queries.json`); run `search-quality` first.
//!
//! Usage: `search-index [manifest.json]`.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use carnet_runtime::Manifest;
use carnet_runtime::search::SearchIndex;
use serde_json::Value;

/// Runs of each measure; the median is reported.
const RUNS: usize = 21;
/// Rounds of all the queries.
const ROUNDS: usize = 20;
/// Hits asked of a query, as `searchTools` asks by default.
const LIMIT: usize = 8;

fn main() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest_path = std::env::args().nth(1).map_or_else(
        || carnet_bench::target_dir().join("search-quality/full.manifest.json"),
        PathBuf::from,
    );
    let text = fs::read_to_string(&manifest_path).unwrap_or_else(|e| {
        panic!(
            "read {}: {e} (run `cargo run --release -p carnet-bench --bin search-quality` first)",
            manifest_path.display()
        )
    });
    let manifest = Manifest::from_json(&text).expect("a valid manifest");
    let queries: Vec<String> =
        serde_json::from_str::<Value>(&fs::read_to_string(bench.join("search/queries.json")).expect("queries.json"))
            .expect("queries.json is JSON")
            .as_array()
            .expect("an array")
            .iter()
            .map(|q| q["query"].as_str().expect("a query").to_owned())
            .collect();
    let tools: usize = manifest.toolsets.iter().map(|t| t.tools.len()).sum();

    let built = median(|| {
        black_box(SearchIndex::build(black_box(&manifest)));
    });
    let index = SearchIndex::build(&manifest);
    let bytes: &'static [u8] = Box::leak(index.as_bytes().to_vec().into_boxed_slice());
    let read = median(|| {
        black_box(SearchIndex::from_bytes(black_box(bytes).into()).expect("an index"));
    });
    let copied = median(|| {
        black_box(black_box(bytes).to_vec());
    });
    let compiled = SearchIndex::from_bytes(bytes.into()).expect("an index");

    let mut times = Vec::with_capacity(queries.len() * ROUNDS);
    let mut hits = 0;
    for _ in 0..ROUNDS {
        for query in &queries {
            let start = Instant::now();
            let found = compiled.search(black_box(query), LIMIT, |_| true);
            times.push(start.elapsed());
            hits += found.len();
        }
    }
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    // The same answers from both indexes.
    for query in &queries {
        assert_eq!(
            compiled.search(query, LIMIT, |_| true),
            index.search(query, LIMIT, |_| true),
            "{query}"
        );
    }

    println!(
        "## The compiled index at {tools} tools\n\n\
         | measure | value |\n|---|--:|\n\
         | index size | {:.2} MB |\n\
         | built from the manifest (a manifest read at run time), median of {RUNS} | {:.1} ms |\n\
         | read from its embedded bytes (a compiled manifest), median of {RUNS} | {:.3} µs |\n\
         | floor: copying the index's bytes once, median of {RUNS} | {:.0} µs |\n\
         | query, median ({} queries × {ROUNDS}, {LIMIT} hits) | {:.1} µs |\n\
         | query, p99 | {:.1} µs |\n\
         | query, slowest | {:.1} µs |\n\n\
         Both indexes answered every query alike ({hits} hits in all).",
        bytes.len() as f64 / 1e6,
        millis(built),
        micros(read),
        micros(copied),
        queries.len(),
        micros(at(0.5)),
        micros(at(0.99)),
        micros(at(1.0)),
    );
}

fn median(mut f: impl FnMut()) -> Duration {
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    runs.sort_unstable();
    runs[RUNS / 2]
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
