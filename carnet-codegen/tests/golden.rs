//! Golden tests of the generated code and manifest JSON, and determinism of the output.
//!
//! Each folder of `tests/golden/` holds a `carnet/` directory and the expected
//! `manifest.rs`, its texts (`manifest.txt`, the text files joined) and `manifest.json`
//! (the manifest as JSON). Re-bless after an intended change with
//! `CARNET_BLESS=1 cargo test -p carnet-codegen --test golden`, then review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use carnet_codegen::Config;

mod common;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("carnet").is_dir())
        .collect();
    cases.sort();
    cases
}

/// Compares `actual` with the golden file (or re-blesses it), noting a difference.
fn check_or_bless(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if let Err(e) = common::check_or_bless(
        path,
        actual,
        "CARNET_BLESS=1 cargo test -p carnet-codegen --test golden",
    ) {
        failures.push(e);
    }
}

#[test]
fn generated_code_and_json_match_golden_files() {
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() >= 3, "golden cases: {cases:?}");
    for case in cases {
        let mut config = Config::new();
        config.dir(case.join("carnet")).crate_dir(&case);
        let generated = config.generate().unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        let code = generated.code;
        let manifest = config.manifest().unwrap();
        check_or_bless(&case.join("manifest.rs"), &code, &mut failures);
        check_or_bless(
            &case.join("manifest.txt"),
            &generated.texts.join("\n\u{1e}\n"),
            &mut failures,
        );
        // Every text taken out of a text file is a whole UTF-8 slice of it.
        for cut in code.split("rt::__text(T").skip(1) {
            let (chunk, rest) = cut.split_once(", ").unwrap();
            let (start, rest) = rest.split_once(", ").unwrap();
            let end = rest.split_once(')').unwrap().0;
            let [chunk, start, end]: [usize; 3] = [chunk, start, end].map(|n| n.parse().unwrap());
            assert!(
                generated.texts[chunk].get(start..end).is_some(),
                "{}: {start}..{end}",
                case.display()
            );
        }
        // Each toolset's name is spelled as a type (`L<'n', 'o', 't', 'e', 's'>`, the rest
        // of a name longer than 32 characters nested in its last argument) once: rustc
        // checks every character as a constant, and five spellings a toolset made the
        // crate's type-checking three times slower at a thousand toolsets.
        for toolset in manifest.toolsets.iter() {
            let chars: Vec<String> = toolset.name.chars().map(|c| format!("{c:?}")).collect();
            let spelled = match chars.get(..32) {
                Some(first) if chars.len() > 32 => format!("L<{}, L<", first.join(", ")),
                _ => format!("L<{}>", chars.join(", ")),
            };
            let count = code.matches(&spelled).count();
            let bound = !toolset.tools.is_empty() && toolset.mcp.is_none();
            assert_eq!(
                count,
                usize::from(bound),
                "{}: `{}` spelled {count} times",
                case.display(),
                toolset.name
            );
        }
        check_or_bless(&case.join("manifest.json"), &manifest.to_json_pretty(), &mut failures);
        // The code must be valid Rust, one item or argument a line.
        syn::parse_str::<syn::File>(&code).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        assert!(code.lines().count() > 20, "{}: not line-broken", case.display());
        // And the JSON must read back into the same manifest.
        let reloaded = carnet_manifest::Manifest::from_json(&manifest.to_json_pretty()).unwrap();
        assert_eq!(reloaded, manifest, "{}", case.display());
        // The embedded search index is the one a program that reads the JSON builds.
        let index = carnet_manifest::search::SearchIndex::build(&reloaded);
        assert_eq!(index.as_bytes(), generated.search, "{}", case.display());
        assert_eq!(index.fingerprint(), manifest.fingerprint);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Compiles a copy of `case` placed at `root/<deep path>`; returns the output bytes.
fn compile_copy(case: &Path, root: &Path, deep: &str) -> (Vec<u8>, Vec<u8>) {
    let crate_dir = root.join(deep);
    copy_dir(&case.join("carnet"), &crate_dir.join("carnet"));
    let out = root.join("out");
    Config::new()
        .dir(crate_dir.join("carnet"))
        .crate_dir(&crate_dir)
        .out_dir(&out)
        .compile()
        .unwrap();
    let mut rest = fs::read(out.join("carnet/bindings.json")).unwrap();
    rest.extend(fs::read(out.join("carnet/search.bin")).unwrap());
    for i in 0.. {
        match fs::read(out.join(format!("carnet/text/{i}.txt"))) {
            Ok(text) => rest.extend(text),
            Err(_) => break,
        }
    }
    (fs::read(out.join("carnet/manifest.rs")).unwrap(), rest)
}

#[test]
fn two_builds_produce_identical_bytes_wherever_they_run() {
    for case in cases() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let first = compile_copy(&case, a.path(), "project");
        let second = compile_copy(&case, b.path(), "somewhere/else/entirely");
        assert!(
            first.0 == second.0,
            "{}: manifest.rs differs between builds",
            case.display()
        );
        assert!(
            first.1 == second.1,
            "{}: bindings.json or the text files differ between builds",
            case.display()
        );
        let code = String::from_utf8(first.0).unwrap();
        assert!(
            !code.contains(&*a.path().to_string_lossy()),
            "machine paths leak into the code"
        );
    }
}

#[test]
fn unchanged_output_is_not_rewritten() {
    let case = &cases()[0];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut config = Config::new();
    config.dir(case.join("carnet")).crate_dir(case).out_dir(&out);
    config.compile().unwrap();
    let rs = out.join("carnet/manifest.rs");
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    fs::File::options()
        .write(true)
        .open(&rs)
        .unwrap()
        .set_modified(old)
        .unwrap();
    config.compile().unwrap();
    assert_eq!(
        fs::metadata(&rs).unwrap().modified().unwrap(),
        old,
        "an identical manifest.rs was rewritten"
    );
    // The text files likewise; one an earlier, larger build left is removed.
    let text = out.join("carnet/text/0.txt");
    fs::File::options()
        .write(true)
        .open(&text)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let stale = out.join("carnet/text/99.txt");
    fs::write(&stale, "from an earlier build").unwrap();
    config.compile().unwrap();
    assert_eq!(fs::metadata(&text).unwrap().modified().unwrap(), old);
    assert!(!stale.exists(), "a stale text file was left");
    // A changed output is written.
    fs::write(&rs, "stale").unwrap();
    config.compile().unwrap();
    assert!(fs::read_to_string(&rs).unwrap().starts_with("// @generated"));
    // The search index is reused when nothing it reads changed, and a damaged or foreign one
    // is built again: either way the bytes a fresh build gives.
    let search = out.join("carnet/search.bin");
    let fresh = fs::read(&search).unwrap();
    for previous in [b"not an index".to_vec(), fresh[..fresh.len() / 2].to_vec(), Vec::new()] {
        fs::write(&search, previous).unwrap();
        config.compile().unwrap();
        assert_eq!(fs::read(&search).unwrap(), fresh);
    }
}

#[test]
fn compile_without_out_dir_is_a_clear_error() {
    if std::env::var_os("OUT_DIR").is_some() {
        return; // cargo sets OUT_DIR only for crates with a build script; this one has none
    }
    let err = Config::new()
        .dir(golden_dir().join("ts-030/carnet"))
        .compile()
        .unwrap_err();
    assert!(matches!(err, carnet_codegen::Error::OutDir), "{err}");
    assert!(err.to_string().contains("OUT_DIR"));
}

#[test]
fn errors_can_cross_threads() {
    // `anyhow` and `Box<dyn Error + Send + Sync>` in build scripts need this.
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<carnet_codegen::Error>();
    send_sync::<carnet_codegen::Report>();
}

/// `sha256:<hex>`, computed here with `sha256sum`'s algorithm from the `sha2` crate.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::from("sha256:"), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[test]
fn every_skill_file_carries_the_digest_of_its_bytes() {
    let mut checked = 0;
    for case in cases() {
        let manifest = Config::new().dir(case.join("carnet")).manifest().unwrap();
        for skill in &*manifest.skills {
            for file in &*skill.files {
                assert_eq!(file.digest.as_deref(), Some(&*sha256(&file.data)), "{}", file.path);
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "only {checked} files");
}
