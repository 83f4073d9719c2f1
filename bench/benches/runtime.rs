//! The runtime's per-turn path across catalog sizes, and the memory a session holds.
//!
//! Run with `cargo bench -p carnet-bench`. Times are medians of many runs of each step,
//! measured in one process; compare figures of one run only (the machine is shared).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use carnet_bench::{catalog, catalog_json};
use carnet_runtime::{Carnet, Manifest, Session, ToolImpl, ToolsetImpl, block_on};
use serde_json::json;

/// The 100-skill catalog `build.rs` compiled: a generated `'static` manifest.
#[allow(missing_docs, unreachable_pub, dead_code, clippy::all, clippy::pedantic)]
mod generated {
    use carnet::__private as rt;
    include!(concat!(env!("OUT_DIR"), "/carnet/manifest.rs"));
}

/// Counts the bytes currently allocated, to measure what a session holds.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts sizes.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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

#[inline(never)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn loaded_session(carnet: &Carnet, skills: usize) -> Session {
    let mut session = carnet.session("agent").unwrap();
    for i in 1..=skills {
        session.load_skill(format!("skill-{i:05}")).unwrap();
    }
    session
}

fn main() {
    println!(
        "{:>7} {:>14} {:>14} {:>14} {:>14} {:>14}",
        "skills", "session (ns)", "prompt cold", "prompt warm", "tools warm", "loadSkill"
    );
    for size in [10, 100, 1_000] {
        let manifest = catalog(size);
        let carnet = Carnet::builder(&manifest).allow_unimplemented().build().unwrap();
        let _ = carnet.session("agent").unwrap().system_prompt().len(); // build the agent's prompt prefix once
        let create = median_ns(21, 200, || {
            black_box(carnet.session("agent").unwrap());
        });
        let cold = median_ns(11, 20, || {
            let mut s = carnet.session("agent").unwrap();
            s.load_skill("skill-00001").unwrap();
            black_box(s.system_prompt().len());
        });
        let warm_session = loaded_session(&carnet, 3);
        let _ = warm_session.system_prompt();
        let _ = warm_session.tools();
        let warm = median_ns(21, 10_000, || {
            black_box(warm_session.system_prompt().len());
        });
        let tools = median_ns(21, 10_000, || {
            black_box(warm_session.tools().len());
        });
        let load = median_ns(11, 100, || {
            let mut s = carnet.session("agent").unwrap();
            black_box(s.load_skill("skill-00002").unwrap());
        });
        println!("{size:>7} {create:>14.0} {cold:>14.0} {warm:>14.1} {tools:>14.1} {load:>14.0}");
    }

    // Loading a manifest: the generated static one against the same content from JSON.
    let json = generated::MANIFEST.to_json();
    let from_static = median_ns(21, 50, || {
        black_box(
            Carnet::builder(generated::MANIFEST.manifest())
                .allow_unimplemented()
                .build()
                .unwrap(),
        );
    });
    let from_json = median_ns(11, 5, || {
        let manifest = Manifest::from_json(&json).unwrap();
        black_box(Carnet::builder(&manifest).allow_unimplemented().build().unwrap());
    });
    println!(
        "\nmanifest load (100 skills): generated static {:.1} µs, from JSON {:.1} µs ({:.0}x)",
        from_static / 1e3,
        from_json / 1e3,
        from_json / from_static
    );

    // A domain tool through the session against the function itself; state() + resume.
    println!(
        "\n{:>7} {:>16} {:>14} {:>18}",
        "skills", "dispatch (ns)", "direct (ns)", "state+resume (ns)"
    );
    for size in [10, 100, 1_000] {
        let manifest = Manifest::from_value(&catalog_json(size)).unwrap();
        let add_tool = ToolImpl::from_fn(
            "tool0x0",
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
            |args| async move {
                Ok(json!(add(
                    args["a"].as_i64().unwrap_or(0),
                    args["b"].as_i64().unwrap_or(0)
                )))
            },
        );
        let carnet = Carnet::builder(&manifest)
            .toolset(ToolsetImpl::new("toolset-00000", [add_tool]))
            .allow_unimplemented()
            .build()
            .unwrap();
        let mut session = carnet.session("agent").unwrap();
        let arguments = json!({"a": 2, "b": 3});
        let dispatch = median_ns(21, 2_000, || {
            black_box(block_on(session.call("tool0x0", arguments.clone())));
        });
        let direct = median_ns(21, 100_000, || {
            black_box(add(black_box(2), black_box(3)));
        });
        let mut loaded = loaded_session(&carnet, 3);
        let _ = loaded.tools();
        let resume = median_ns(21, 500, || {
            let text = serde_json::to_string(&loaded.state()).unwrap();
            loaded = carnet.resume(&serde_json::from_str(&text).unwrap()).unwrap();
        });
        println!("{size:>7} {dispatch:>16.0} {direct:>14.1} {resume:>18.0}");
    }

    let manifest = catalog(100);
    let carnet = Carnet::builder(&manifest).allow_unimplemented().build().unwrap();
    let _ = carnet.session("agent").unwrap().system_prompt().len();
    let before = LIVE.load(Ordering::Relaxed);
    let session = loaded_session(&carnet, 10);
    let state = LIVE.load(Ordering::Relaxed) - before;
    let inline = std::mem::size_of::<Session>();
    let _ = session.system_prompt();
    let _ = session.tools();
    let cached = LIVE.load(Ordering::Relaxed) - before;
    println!(
        "\nsession with 10 skills loaded (100-skill catalog): {inline} bytes inline + {} bytes on the heap = {} bytes; \
         with its prompt and tool list cached: {} bytes",
        state,
        inline + state,
        inline + cached
    );
    black_box(session);
}
