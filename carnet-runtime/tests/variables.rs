//! Variable injection: placeholder syntax, layers, environment prefixes, performance.

use std::borrow::Cow;

use carnet_runtime::Manifest;
use carnet_runtime::manifest::DEFAULT_ENV_PREFIXES;
use carnet_runtime::variables::{InvalidName, Variables};

fn vars(pairs: &[(&str, &str)]) -> Variables {
    pairs.iter().copied().collect()
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|&(k, v)| (k.to_owned(), v.to_owned())).collect()
}

#[expect(clippy::ptr_arg, reason = "the point is to tell the variants apart")]
fn is_borrowed(cow: &Cow<'_, str>) -> bool {
    matches!(cow, Cow::Borrowed(_))
}

#[test]
fn basic() {
    let v = vars(&[("NAME", "Ana"), ("CITY", "Lyon")]);
    assert_eq!(v.inject("Hello {{ NAME }} from {{ CITY }}."), "Hello Ana from Lyon.");
    assert_eq!(v.inject("{{ NAME }} {{ NAME }}"), "Ana Ana");
}

#[test]
fn whitespace_forms() {
    let v = vars(&[("VAR", "v")]);
    assert_eq!(v.inject("{{VAR}}"), "v");
    assert_eq!(v.inject("{{ VAR }}"), "v");
    assert_eq!(v.inject("{{  VAR  }}"), "v");
    assert_eq!(v.inject("{{\tVAR\n}}"), "v");
    assert_eq!(v.inject("{{\r\n\tVAR \u{a0}\u{3000}}}"), "v");
    assert_eq!(v.inject("{{ VAR}} {{VAR }}"), "v v");
}

#[test]
fn case_sensitive() {
    let v = vars(&[("var", "lower"), ("VAR", "upper")]);
    assert_eq!(v.inject("{{ var }} {{ VAR }} {{ Var }}"), "lower upper {{ Var }}");
}

#[test]
fn lowercase_and_mixed_case_names() {
    let v = vars(&[("userFullName", "Ana Lima"), ("city", "Lyon"), ("_x1", "u")]);
    assert_eq!(v.inject("{{ userFullName }} in {{city}} {{_x1}}"), "Ana Lima in Lyon u");
}

#[test]
fn unicode_text_and_non_ascii_names() {
    let v = vars(&[("NOMBRE", "José"), ("EMOJI", "🦀")]);
    assert_eq!(
        v.inject("¡Hola {{ NOMBRE }}! 日本語 {{EMOJI}}é"),
        "¡Hola José! 日本語 🦀é"
    );
    // `Ñ` is not a name character: not a placeholder.
    assert_eq!(v.inject("{{ NOMBRE_Ñ }} {{ Ñ }}"), "{{ NOMBRE_Ñ }} {{ Ñ }}");
    assert!(!Variables::is_valid_name("NOMBRE_Ñ"));
    let mut v = v;
    assert_eq!(v.set("NOMBRE_Ñ", "x"), Err(InvalidName("NOMBRE_Ñ".to_owned())));
}

#[test]
fn unknown_stays_verbatim() {
    let v = vars(&[("DEFINED", "value")]);
    assert_eq!(
        v.inject("{{ DEFINED }} and {{ UNDEFINED }}"),
        "value and {{ UNDEFINED }}"
    );
    assert_eq!(v.inject("{{\n UNDEFINED\t}} {{DEFINED}}"), "{{\n UNDEFINED\t}} value");
}

#[test]
fn empty_value() {
    let v = vars(&[("EMPTY", "")]);
    assert_eq!(v.inject("a{{ EMPTY }}b"), "ab");
    assert_eq!(v.inject("{{EMPTY}}"), "");
    assert!(!is_borrowed(&v.inject("{{EMPTY}}")));
}

#[test]
fn circular_references_are_one_pass() {
    let v = vars(&[("A", "{{ B }}"), ("B", "{{ A }}")]);
    assert_eq!(v.inject("{{ A }} {{ B }}"), "{{ B }} {{ A }}");
    let again = v.inject(&v.inject("{{ A }}")).into_owned();
    assert_eq!(again, "{{ A }}");
}

#[test]
fn values_are_never_re_expanded() {
    let v = vars(&[("X", "{{ Y }}"), ("Y", "y")]);
    assert_eq!(v.inject("{{ X }}{{ Y }}"), "{{ Y }}y");
}

#[test]
fn large_value() {
    let big = "é".repeat(512 * 1024); // 1 MiB
    let v = vars(&[("BIG", &big)]);
    let out = v.inject("<{{ BIG }}>{{BIG}}");
    assert_eq!(out.len(), 2 * big.len() + 2);
    assert!(out.starts_with("<é") && out.ends_with("é"));
    assert_eq!(&out[big.len() + 1..big.len() + 2], ">");
}

#[test]
// Correctness on pathological inputs; speed is measured by the benchmarks, not asserted here.
fn long_texts_are_linear() {
    let v = vars(&[("A", "1")]);

    let many = "{{ A }}".repeat(200_000);
    assert_eq!(v.inject(&many), "1".repeat(200_000));

    // Pathological near misses: runs of braces, long whitespace, a long unterminated name.
    let braces = "{".repeat(1 << 20);
    assert!(is_borrowed(&v.inject(&braces)));
    let spaces = format!("{{{{{}A", " ".repeat(1 << 20));
    assert!(is_borrowed(&v.inject(&spaces)));
    let name = format!("{{{{ {}", "A".repeat(1 << 20));
    assert!(is_borrowed(&v.inject(&name)));
    let repeated = "{{ A ".repeat(200_000);
    assert!(is_borrowed(&v.inject(&repeated)));
    let mixed = format!("{}{{{{A}}}}", "{{{ }".repeat(200_000));
    let out = v.inject(&mixed);
    assert_eq!(out.len(), mixed.len() - 4);
    assert!(out.ends_with("{ }1"));
}

#[test]
fn values_are_literal() {
    let v = vars(&[("A", "$& and \\1 and $1 and $$")]);
    assert_eq!(v.inject("[{{ A }}]"), "[$& and \\1 and $1 and $$]");
}

#[test]
fn non_matching_forms() {
    let v = vars(&[("VAR", "v"), ("A", "a"), ("B", "b")]);
    for text in [
        "{{ VAR }",
        "{ VAR }}",
        "{{ }}",
        "{{}}",
        "{{ 123 }}",
        "{{ 1A }}",
        "{{ A-B }}",
        "{{ A.B }}",
        "{{ A B }}",
        "{ { VAR } }",
        "{{ VAR",
        "{{",
        "}}",
        "{{ VAR }\n}",
    ] {
        let out = v.inject(text);
        assert_eq!(out, text);
        assert!(is_borrowed(&out), "{text:?}");
    }
}

#[test]
fn extra_braces() {
    let v = vars(&[("VAR", "v")]);
    assert_eq!(v.inject("{{{ VAR }}}"), "{v}");
    assert_eq!(v.inject("{{{{VAR}}}}"), "{{v}}");
    assert_eq!(v.inject("{{ VAR }}}"), "v}");
    assert_eq!(v.inject("{{{ VAR }}"), "{v");
}

#[test]
fn nested() {
    let v = vars(&[("B", "b"), ("A_b", "never")]);
    assert_eq!(v.inject("{{ A_{{ B }} }}"), "{{ A_b }}");
}

#[test]
fn adjacent_and_edges() {
    let v = vars(&[("A", "a"), ("B", "b")]);
    assert_eq!(v.inject("{{A}}{{B}}"), "ab");
    assert_eq!(v.inject("{{A}}{{C}}{{B}}"), "a{{C}}b");
    assert_eq!(v.inject("{{ A }} middle"), "a middle");
    assert_eq!(v.inject("middle {{ B }}"), "middle b");
    assert_eq!(v.inject("{{ A }}"), "a");
    assert_eq!(v.inject(""), "");
}

#[test]
fn unterminated_at_end() {
    let v = vars(&[("VAR", "v")]);
    assert_eq!(v.inject("text {{ VAR"), "text {{ VAR");
    assert_eq!(v.inject("text {{ VAR }"), "text {{ VAR }");
    assert_eq!(v.inject("{{ VAR }} {{ VAR "), "v {{ VAR ");
    assert_eq!(v.inject("{{VAR}} {"), "v {");
}

#[test]
fn precedence_env_builder_call() {
    let env = Variables::from_env_iter(
        env(&[("CARNET_A", "env"), ("CARNET_B", "env"), ("CARNET_C", "env")]),
        &DEFAULT_ENV_PREFIXES,
    );
    let builder = vars(&[("CARNET_B", "builder"), ("CARNET_C", "builder")]);
    let call = vars(&[("CARNET_C", "call")]);
    let defaults = env.layered(&builder);
    let text = "{{CARNET_A}} {{CARNET_B}} {{CARNET_C}}";
    assert_eq!(defaults.inject(text), "env builder builder");
    assert_eq!(defaults.inject_with(text, Some(&call)), "env builder call");
    assert_eq!(defaults.inject_with(text, None), "env builder builder");
    // `layered` leaves both inputs alone.
    assert_eq!(env.get("CARNET_B"), Some("env"));
    assert_eq!(builder.get("CARNET_A"), None);
}

#[test]
fn call_layer_alone() {
    let none = Variables::new();
    let call = vars(&[("X", "x")]);
    assert_eq!(none.inject_with("{{ X }} {{ Y }}", Some(&call)), "x {{ Y }}");
}

#[test]
fn env_prefixes() {
    let all = env(&[
        ("CARNET_API_URL", "https://api"),
        ("PUBLIC_NAME", "pub"),
        ("HOME", "/root"),
        ("MY_VAR", "mine"),
        ("carnet_lower", "lower"),
        ("CARNET_BAD-NAME", "bad"),
    ]);
    let text = "{{ CARNET_API_URL }} {{ PUBLIC_NAME }} {{ HOME }} {{ MY_VAR }} {{ carnet_lower }} {{ API_URL }}";

    let default = Variables::from_env_iter(all.clone(), &DEFAULT_ENV_PREFIXES);
    assert_eq!(
        default.inject(text),
        "https://api pub {{ HOME }} {{ MY_VAR }} {{ carnet_lower }} {{ API_URL }}"
    );
    // Names that are not valid variable names are skipped.
    assert_eq!(default.len(), 2);

    let custom = Variables::from_env_iter(all.clone(), &["MY_"]);
    assert_eq!(
        custom.inject(text),
        "{{ CARNET_API_URL }} {{ PUBLIC_NAME }} {{ HOME }} mine {{ carnet_lower }} {{ API_URL }}"
    );

    let none = Variables::from_env_iter(all.clone(), &[] as &[&str]);
    assert!(none.is_empty());
    assert!(is_borrowed(&none.inject(text)));

    let every = Variables::from_env_iter(all, &[""]);
    assert_eq!(every.inject(text), "https://api pub /root mine lower {{ API_URL }}");
    assert_eq!(every.get("CARNET_BAD-NAME"), None);
}

#[test]
fn from_env_reads_the_process_environment() {
    assert!(Variables::from_env::<&str>(&[]).is_empty());
    if let Ok(path) = std::env::var("PATH") {
        let v = Variables::from_env(&["PATH"]);
        assert_eq!(v.get("PATH"), Some(path.as_str()));
    }
    let all = Variables::from_env(&[""]);
    for (name, value) in all.iter() {
        assert!(Variables::is_valid_name(name));
        assert_eq!(std::env::var(name).as_deref(), Ok(value));
    }
}

#[test]
fn from_manifest() {
    let manifest = Manifest::from_json(
        r#"{"agents": {}, "skills": {}, "toolsets": {},
            "variables": {"TONE": "friendly", "USER": "manifest", "PATH": "manifest path"},
            "envPrefix": ["PATH"]}"#,
    )
    .unwrap();
    let app = vars(&[("USER", "app")]);
    let v = Variables::from_manifest(&manifest).layered(&app);
    // Manifest defaults win over the environment, the application's over the manifest's.
    assert_eq!(
        v.inject("{{ TONE }} {{ USER }} {{ PATH }}"),
        "friendly app manifest path"
    );
}

#[test]
fn borrowed_when_nothing_is_replaced() {
    let v = vars(&[("A", "a")]);
    assert!(is_borrowed(&v.inject("no placeholders at all")));
    assert!(is_borrowed(&v.inject("{{ B }} {{ C }} {{ 1 }}")));
    assert!(is_borrowed(&Variables::new().inject("{{ A }}")));
    assert!(is_borrowed(&v.inject_with("{{ B }}", Some(&vars(&[("C", "c")])))));
    assert!(!is_borrowed(&v.inject("{{ A }}")));
}

#[test]
fn names_and_set() {
    let mut v = Variables::new();
    assert!(v.set("A", "1").is_ok());
    assert!(v.set("A", "2").is_ok());
    assert_eq!(v.get("A"), Some("2"));
    for bad in ["", "1A", "A-B", "A.B", "A B", " A", "É"] {
        assert_eq!(v.set(bad, "x"), Err(InvalidName(bad.to_owned())), "{bad:?}");
    }
    assert_eq!(v.len(), 1);
    v.extend([("B", "b"), ("A", "3")]);
    assert_eq!(v.iter().collect::<Vec<_>>(), [("A", "3"), ("B", "b")]);
}

#[test]
#[should_panic(expected = "`A-B` is not a valid variable name")]
fn collect_panics_on_invalid_names() {
    let _ = vars(&[("A-B", "x")]);
}

#[test]
fn placeholders_lists_defined_and_undefined() {
    let text = "x {{ A }} {{b}} {{ 1 }} {{{ C }}}";
    let found: Vec<_> = Variables::placeholders(text)
        .map(|(r, name)| (&text[r], name))
        .collect();
    assert_eq!(found, [("{{ A }}", "A"), ("{{b}}", "b"), ("{{ C }}", "C")]);
}

#[test]
fn send_sync_clone_debug() {
    fn check<T: Send + Sync + Clone + std::fmt::Debug>() {}
    check::<Variables>();
    let v = vars(&[("KEY", "secret")]);
    let debug = format!("{v:?}");
    assert!(debug.contains("KEY") && !debug.contains("secret"), "{debug}");
}

/// A slow, obviously correct reference: at each character, try the pattern
/// `{{ \s* [A-Za-z_][A-Za-z0-9_]* \s* }}`; on a match with a defined name, emit the value and
/// jump past the match; on a match with an undefined name, emit it unchanged and jump past
/// it; otherwise emit one character and move on by one.
fn reference(text: &str, lookup: &mut dyn FnMut(&str) -> Option<String>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some((end, name)) = reference_match(&chars, i) {
            match lookup(&name) {
                Some(value) => out.push_str(&value),
                None => out.extend(&chars[i..end]),
            }
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn reference_match(chars: &[char], start: usize) -> Option<(usize, String)> {
    let mut i = start;
    for _ in 0..2 {
        if chars.get(i) != Some(&'{') {
            return None;
        }
        i += 1;
    }
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    let mut name = String::new();
    while let Some(&c) = chars.get(i) {
        let ok = if name.is_empty() {
            c.is_ascii_alphabetic() || c == '_'
        } else {
            c.is_ascii_alphanumeric() || c == '_'
        };
        if !ok {
            break;
        }
        name.push(c);
        i += 1;
    }
    if name.is_empty() {
        return None;
    }
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    for _ in 0..2 {
        if chars.get(i) != Some(&'}') {
            return None;
        }
        i += 1;
    }
    Some((i, name))
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn matches_reference_on_random_strings() {
    const ALPHABET: [char; 7] = ['{', '}', ' ', 'A', '_', '1', 'x'];
    // Runs of the same characters, so that placeholders and near misses are frequent.
    const CHUNKS: [&str; 6] = ["{{", "}}", "{{ ", " }}", "{{{", "}}}"];
    let defaults = vars(&[("A", "<a>"), ("_", ""), ("A_1", "$&"), ("x", "{{A}}"), ("Ax", "{")]);
    let call = vars(&[("A", "<call a>"), ("_1", "}}")]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut replaced, mut kept) = (0, 0);
    for _ in 0..1000 {
        let mut text = String::new();
        for _ in 0..rng.below(30) {
            if rng.below(3) == 0 {
                text.push_str(CHUNKS[rng.below(CHUNKS.len())]);
            } else {
                text.push(ALPHABET[rng.below(ALPHABET.len())]);
            }
        }

        let mut names = Vec::new();
        let expected = reference(&text, &mut |name| {
            names.push(name.to_owned());
            defaults.get(name).map(str::to_owned)
        });
        let out = defaults.inject(&text);
        assert_eq!(out, expected, "text: {text:?}");
        let any_defined = names.iter().any(|name| defaults.get(name).is_some());
        assert_eq!(is_borrowed(&out), !any_defined, "text: {text:?}");
        if any_defined {
            replaced += 1;
        } else if !names.is_empty() {
            kept += 1;
        }

        // `placeholders` finds exactly the reference's matches.
        let found: Vec<_> = Variables::placeholders(&text).map(|(_, n)| n.to_owned()).collect();
        assert_eq!(found, names, "text: {text:?}");

        let expected = reference(&text, &mut |name| {
            call.get(name).or_else(|| defaults.get(name)).map(str::to_owned)
        });
        assert_eq!(
            defaults.inject_with(&text, Some(&call)),
            expected,
            "text with call layer: {text:?}"
        );
    }
    // The generator does produce placeholders often enough for the test to mean something.
    assert!(replaced > 100 && kept > 20, "replaced {replaced}, kept {kept}");
}
