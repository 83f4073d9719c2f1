//! Counts the o200k_base tokens of files (a TS Carnet prompt, say), one count per line.
//!
//! Usage: `count-tokens <file>...`

fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("read the file");
        println!("{}", carnet_runtime::tokens::count(&text));
    }
}
