//! The per-turn path on a manifest JSON, timed in one process: create a session, build the
//! system prompt and the tool list, load one skill, build both again. Prints the median
//! nanoseconds per turn over many rounds (the counterpart of `bench/ts/per-turn.mjs`).
//!
//! Usage: `per-turn <manifest.json> [turns]`

use std::hint::black_box;
use std::time::Instant;

use carnet_runtime::{Carnet, Manifest};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: per-turn <manifest.json> [turns]");
    let turns: usize = args.next().map_or(2000, |t| t.parse().expect("a number of turns"));
    let json = std::fs::read_to_string(&path).expect("read the manifest");
    let manifest = Manifest::from_json(&json).expect("a valid manifest");
    let carnet = Carnet::builder(&manifest)
        .allow_unimplemented()
        .build()
        .expect("the engine builds");
    let skill = manifest
        .agent("agent")
        .expect("the agent")
        .skills
        .get(1)
        .expect("a second skill")
        .to_string();
    let mut samples = Vec::with_capacity(turns);
    for _ in 0..turns {
        let start = Instant::now();
        let mut session = carnet.session("agent").expect("the agent");
        black_box(session.system_prompt().len());
        black_box(session.tools().len());
        session.load_skill(&skill).expect("the skill loads");
        black_box(session.system_prompt().len());
        black_box(session.tools().len());
        samples.push(start.elapsed().as_nanos());
    }
    samples.sort_unstable();
    println!("{}", samples[samples.len() / 2]);
}
