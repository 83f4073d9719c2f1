//! Where `carnet_codegen::compile` spends its time on a catalog: checking (discover, parse,
//! validate, lower) against generating the Rust module.
//!
//! Usage: `codegen-time <dir>`

use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: codegen-time <dir>");
    let mut config = carnet_codegen::Config::new();
    config.dir(&dir).crate_dir(&dir);
    let start = Instant::now();
    let report = config.check();
    let checked = start.elapsed();
    assert!(!report.has_errors(), "{}", report.render(false));
    let start = Instant::now();
    let code = config.generate().expect("the catalog compiles");
    let generated = start.elapsed();
    println!(
        "check {:.0} ms, check + generate {:.0} ms ({} bytes of Rust)",
        checked.as_secs_f64() * 1e3,
        generated.as_secs_f64() * 1e3,
        code.len()
    );
}
