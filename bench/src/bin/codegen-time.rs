//! Where `carnet_codegen::compile` spends its time on a catalog: checking (discover, parse,
//! validate, lower) against generating the Rust module and the search index.
//!
//! Usage: `codegen-time <dir> [out.rs]` (the generated module is written to `out.rs`, and
//! its texts to `text/*.txt` beside it, when given)

use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: codegen-time <dir> [out.rs]");
    let mut config = carnet_codegen::Config::new();
    config.dir(&dir).crate_dir(&dir);
    let start = Instant::now();
    let report = config.check();
    let checked = start.elapsed();
    assert!(!report.has_errors(), "{}", report.render(false));
    let start = Instant::now();
    let generated = config.generate().expect("the catalog compiles");
    let elapsed = start.elapsed();
    println!(
        "check {:.0} ms, check + generate {:.0} ms ({} bytes of Rust, {} bytes of text)",
        checked.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e3,
        generated.code.len(),
        generated.texts.iter().map(String::len).sum::<usize>()
    );
    // Part of generating: the search index over the tools (`search.bin`).
    let manifest = report.manifest().expect("a manifest");
    let start = Instant::now();
    let index = carnet_runtime::search::SearchIndex::build(manifest);
    println!(
        "of which the search index {:.0} ms ({} tools, {} bytes)",
        start.elapsed().as_secs_f64() * 1e3,
        index.tools(),
        index.as_bytes().len()
    );
    let out_dir = std::env::temp_dir().join(format!("codegen-time-{}", std::process::id()));
    config.out_dir(&out_dir);
    let start = Instant::now();
    config.compile().expect("the catalog compiles");
    let compiled = start.elapsed();
    let start = Instant::now();
    config.compile().expect("the catalog compiles");
    let again = start.elapsed();
    let _ = std::fs::remove_dir_all(&out_dir);
    println!(
        "compile (as in build.rs, writing every file) {:.0} ms; again, nothing changed {:.0} ms",
        compiled.as_secs_f64() * 1e3,
        again.as_secs_f64() * 1e3
    );
    if let Some(out) = std::env::args().nth(2) {
        std::fs::write(&out, &generated.code).expect("the output file is writable");
        let dir = std::path::Path::new(&out).with_file_name("text");
        std::fs::create_dir_all(&dir).expect("the text folder can be made");
        for (i, text) in generated.texts.iter().enumerate() {
            std::fs::write(dir.join(format!("{i}.txt")), text).expect("the text file is writable");
        }
    }
}
