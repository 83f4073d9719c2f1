//! `ChatTurn::new` (a loop of one's own, one turn's request) across catalog sizes, beside
//! what it did on every turn before the agent's reachable tools were kept once per agent:
//! every reachable tool's spec cloned, its names deduplicated, its aliases built.
//!
//! Run with `cargo bench -p carnet-bench --bench chat_turn`. Times are medians of many runs
//! of each step, measured in one process; compare figures of one run only (the machine is
//! shared).

use std::collections::HashSet;
use std::hint::black_box;
use std::time::Instant;

use carnet_bench::catalog;
use carnet_runtime::providers::Aliases;
use carnet_runtime::providers::openai::ChatTurn;
use carnet_runtime::{Carnet, ExposureMode, ToolSpec};

/// Median nanoseconds per iteration of `f`, over `rounds` rounds of `iterations` calls.
fn median_ns(rounds: usize, iterations: usize, mut f: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                f();
            }
            start.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[rounds / 2]
}

/// What `ChatTurn::new` did on every turn besides its request, up to 2026-11-29: the
/// reachable tools cloned (`Session::reachable_specs`), deduplicated by name, aliased.
fn rebuilt_per_turn(reachable: &[ToolSpec]) -> Aliases {
    let mut specs = reachable.to_vec();
    let mut seen = HashSet::new();
    specs.retain(|spec| seen.insert(spec.name.clone()));
    Aliases::new(&specs).expect("the catalog's names have aliases")
}

fn main() {
    println!(
        "{:>7} {:>13} {:>10} {:>16} {:>22} {:>7}",
        "skills", "mode", "reachable", "ChatTurn::new", "+ rebuilt per turn", "ratio"
    );
    for size in [10, 100, 1_000] {
        let manifest = catalog(size);
        // Every tool the agent can reach, as the `AllowedTools` mode offers them all: the set
        // `ChatTurn::new` read calls back over.
        let reachable: Vec<ToolSpec> = Carnet::builder(&manifest)
            .mode(ExposureMode::AllowedTools)
            .allow_unimplemented()
            .build()
            .unwrap()
            .session("agent")
            .unwrap()
            .tools()
            .to_vec();
        let iterations = (20_000 / size).max(5);
        for mode in [ExposureMode::Dynamic, ExposureMode::AllowedTools] {
            let carnet = Carnet::builder(&manifest)
                .mode(mode)
                .allow_unimplemented()
                .build()
                .unwrap();
            let mut session = carnet.session("agent").unwrap();
            session.load_skill("skill-00001").unwrap();
            let _ = ChatTurn::new(&session).unwrap(); // the agent's tables, built once
            let now = median_ns(11, iterations, || {
                black_box(ChatTurn::new(&session).unwrap());
            });
            let before = median_ns(11, iterations, || {
                black_box(ChatTurn::new(&session).unwrap());
                black_box(rebuilt_per_turn(&reachable));
            });
            println!(
                "{size:>7} {:>13} {:>10} {:>13.1} µs {:>19.1} µs {:>6.1}x",
                format!("{mode:?}"),
                reachable.len(),
                now / 1e3,
                before / 1e3,
                before / now
            );
        }
    }
}
