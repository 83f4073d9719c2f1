//! Variable expansion: `{{ NAME }}` placeholders, one pass, values never re-expanded.
//! The input's first lines are `NAME=value` pairs (until an empty line), the rest the text.
#![no_main]

use carnet_runtime::variables::Variables;

libfuzzer_sys::fuzz_target!(|input: &str| {
    let (head, text) = input.split_once("\n\n").unwrap_or(("", input));
    let mut vars = Variables::new();
    let mut call = Variables::new();
    for (i, line) in head.lines().enumerate() {
        if let Some((name, value)) = line.split_once('=') {
            let target = if i % 2 == 0 { &mut vars } else { &mut call };
            let _ = target.set(name, value);
        }
    }
    let once = vars.inject_with(text, Some(&call));
    // Output is bounded: each placeholder becomes at most its longest value.
    let longest = vars.iter().chain(call.iter()).map(|(_, v)| v.len()).max().unwrap_or(0);
    assert!(once.len() <= text.len() * (longest + 1) + 1);
    let _ = Variables::placeholders(text).count();
    let _ = vars.layered(&call).inject(text);
});
