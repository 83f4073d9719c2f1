//! A markdown file with YAML frontmatter, parsed as every kind of content file: never a
//! panic, bounded time and memory (alias bombs, deep nesting, many keys).
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| {
    let _ = carnet_codegen::__fuzz::frontmatter(text);
    // The same text behind a frontmatter opening, so the YAML parser sees most inputs.
    let _ = carnet_codegen::__fuzz::frontmatter(&format!("---\n{text}\n---\nbody"));
});
