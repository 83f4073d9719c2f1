//! Memory of holding N concurrent conversations: N sessions on one engine, each with one
//! skill loaded. Prints the resident-set growth and the bytes allocated, as JSON.
//!
//! Usage: `sessions <manifest.json> <n>`

use carnet_runtime::{Carnet, Manifest};

fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<usize>().ok()))
        .map_or(0, |pages| pages * 4096)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: sessions <manifest.json> <n>");
    let n: usize = args.next().expect("a number of sessions").parse().expect("a number");
    let manifest = Manifest::from_json(&std::fs::read_to_string(&path).expect("read")).expect("valid");
    let carnet = Carnet::builder(&manifest)
        .allow_unimplemented()
        .build()
        .expect("builds");
    let skill = manifest.agent("agent").expect("agent").skills[1].to_string();
    let before = rss_bytes();
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        let mut session = carnet.session("agent").expect("agent");
        session.load_skill(&skill).expect("loads");
        held.push(session);
    }
    let after = rss_bytes();
    println!(
        "{{\"sessions\": {}, \"rssBytes\": {}}}",
        held.len(),
        after.saturating_sub(before)
    );
}
