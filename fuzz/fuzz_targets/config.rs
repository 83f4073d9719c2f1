//! `carnet.config.json` and the include/exclude globs.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| {
    carnet_codegen::__fuzz::config(text);
    if let Some((pattern, path)) = text.split_once('\n') {
        let _ = carnet_codegen::__fuzz::glob(pattern, path);
    }
});
