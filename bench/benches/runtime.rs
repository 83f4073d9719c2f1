//! The runtime's per-turn path across catalog sizes, and the memory a session holds.
//!
//! Run with `cargo bench -p carnet-bench`. Times are medians of many runs of each step,
//! measured in one process; compare figures of one run only (the machine is shared).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use carnet_bench::catalog;
use carnet_runtime::{Carnet, Session};

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

fn loaded_session(carnet: &Carnet, skills: usize) -> Session {
    let mut session = carnet.session("agent").unwrap();
    for i in 1..=skills {
        session.load_skill(&format!("skill-{i:05}")).unwrap();
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
