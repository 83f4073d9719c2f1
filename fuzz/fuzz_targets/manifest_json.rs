//! Manifest JSON (ours and TS Carnet's): parsing never panics, and what parses writes JSON
//! that parses again to the same manifest.
#![no_main]

use carnet_runtime::Manifest;

libfuzzer_sys::fuzz_target!(|json: &str| {
    if let Ok(manifest) = Manifest::from_json(json) {
        let again = Manifest::from_json(&manifest.to_json()).expect("a written manifest parses");
        assert_eq!(again.fingerprint, manifest.fingerprint);
    }
});
