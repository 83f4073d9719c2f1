//! Tests of the frontmatter split, the YAML tree, the simple reader and the error causes.

use super::cause::{colon_in_value, unclosed_flow};
use super::tree::resolve_plain;
use super::*;

fn body(text: &str) -> &str {
    &text[split(text).body_start..]
}

#[test]
fn unopened_frontmatter_only_for_key_lines_closed_by_dashes() {
    let text = "name: a\ndescription: b\ntoolsets:\n  - x\n---\nBody\n";
    let s = unopened(text).expect("key lines closed by ---");
    assert_eq!(
        &text[s.matter.clone().unwrap()],
        "name: a\ndescription: b\ntoolsets:\n  - x"
    );
    assert_eq!(&text[s.body_start..], "Body\n");
    // Prose whose first line holds a colon, a horizontal rule with nothing above it,
    // a heading first: not a frontmatter. (A file of these kinds without a frontmatter
    // is an error either way: this only chooses which error explains it.)
    assert!(unopened("Read this first: the rules.\n---\nMore\n").is_none());
    assert!(unopened("---\nname: a\n---\n").is_none());
    assert!(unopened("# Title\nname: a\n---\n").is_none());
    assert!(unopened("name: a\ndescription: b\n").is_none());
}

#[test]
fn unclosed_brackets_are_found_only_in_values() {
    assert_eq!(
        unclosed_flow("name: a\ntoolsets: [x, y\ndescription: d\n"),
        Some((18, '['))
    );
    assert_eq!(unclosed_flow("m: {a: 1\n"), Some((3, '{')));
    // Closed across lines, inside quotes, inside plain text or a block scalar: fine.
    assert_eq!(unclosed_flow("toolsets: [x,\n  y]\n"), None);
    assert_eq!(unclosed_flow("description: \"see [1\"\n"), None);
    assert_eq!(unclosed_flow("description: see [1 and more\n"), None);
    assert_eq!(unclosed_flow("description: |\n  a [ b\nname: a\n"), None);
    assert_eq!(unclosed_flow("# a [ comment\nname: a\n"), None);
    // The wrong closing bracket.
    assert_eq!(unclosed_flow("t: [a}\n"), Some((3, '[')));
}

#[test]
fn a_colon_in_a_plain_value_is_quoted_in_the_hint() {
    let text = "name: w\ndescription: Writes reports: weekly # note\n";
    let colon = text.find("s: w").unwrap() + 1;
    let Some(Cause::ColonInValue { key, quoted, .. }) = colon_in_value(text, colon) else {
        panic!("no cause")
    };
    assert_eq!(key, "description");
    assert_eq!(quoted, "description: \"Writes reports: weekly\" # note");
    let text = "description: He said \"go\": now\n";
    let colon = text.find("\": ").unwrap() + 1;
    let Some(Cause::ColonInValue { quoted, .. }) = colon_in_value(text, colon) else {
        panic!("no cause")
    };
    assert_eq!(quoted, "description: 'He said \"go\": now'");
    // A quoted value is not the cause.
    let text = "description: \"a: b\"\n";
    assert!(colon_in_value(text, text.find("a:").unwrap() + 1).is_none());
}

#[test]
fn gray_matter_body_rules() {
    assert_eq!(body("---\nname: a\n---\n\nHello"), "\nHello");
    assert_eq!(body("---\nname: a\n---\nHello\n"), "Hello\n");
    assert_eq!(body("---\r\nname: a\r\n---\r\nLine1\r\nLine2"), "Line1\r\nLine2");
    assert_eq!(body("---\nname: s\ndescription: d\n---"), "");
    assert_eq!(body("no frontmatter"), "no frontmatter");
    assert_eq!(body("----\nname: a\n----\nx"), "----\nname: a\n----\nx");
    assert_eq!(body("\u{feff}---\nname: a\n---\nx"), "x");
    let s = split("---\nname: a\n");
    assert!(s.unclosed);
    assert_eq!(body("---\nname: a\n"), "");
}

#[test]
fn matter_range_keeps_file_lines() {
    let text = "---\nname: a\n---\nbody";
    let s = split(text);
    assert_eq!(&text[s.matter.unwrap()], "\nname: a");
}

#[test]
fn language_after_opening_delimiter() {
    let text = "---toml\nname = 'a'\n---\nbody";
    let s = split(text);
    assert_eq!(&text[s.language.unwrap()], "toml");
    assert_eq!(body(text), "body");
}

#[test]
fn yaml_positions_and_types() {
    let text = "---\nname: héllo\ncount: 12\nlist: [a, 'b']\nf: 1.5\nn: ~\n---\n";
    let s = split(text);
    let node = parse_yaml(text, s.matter.unwrap(), &YamlLimits::default()).unwrap();
    let Value::Map(entries) = node.value else { panic!() };
    assert_eq!(entries[0].1.value, Value::String("héllo".into()));
    assert_eq!(&text[entries[0].1.start..entries[0].1.end], "héllo");
    assert_eq!(entries[1].1.value, Value::Int(12));
    assert_eq!(&text[entries[1].0.start..entries[1].0.end], "count");
    let Value::List(items) = &entries[2].1.value else {
        panic!()
    };
    assert_eq!(&text[items[1].start..items[1].end], "'b'");
    assert_eq!(entries[3].1.value, Value::Float(1.5));
    assert_eq!(entries[4].1.value, Value::Null);
}

#[test]
fn yaml_errors_have_offsets() {
    let text = "---\nname: a\nbad: [x\n---\n";
    let s = split(text);
    let err = parse_yaml(text, s.matter.unwrap(), &YamlLimits::default()).unwrap_err();
    assert!(err.offset > 4, "{err:?}");
    let dup = "---\nname: a\nname: b\n---\n";
    let err = parse_yaml(dup, split(dup).matter.unwrap(), &YamlLimits::default()).unwrap_err();
    assert_eq!(&dup[err.offset..err.end], "name");
    assert_eq!(err.offset, 12, "the second `name`, line 3");
}

#[test]
fn the_simple_reader_leaves_other_whitespace_to_the_full_parser() {
    // Found by `cargo fuzz` (frontmatter): a form feed that `str::trim` dropped.
    for text in [
        "---\nname: main\nskills: [researc\u{c}]\n---\nbody\n",
        "---\nname: main\u{a0}\nskills: [a\u{2028}]\n---\nbody\n",
        "---\nname: \u{85}main\n---\n",
    ] {
        check_simple_reader(text);
    }
}

#[test]
fn the_simple_reader_builds_what_the_full_parser_builds() {
    let limits = crate::Limits::default().yaml();
    let words = [
        "skill-00001",
        "Finds things",
        "a b c",
        "v1.2",
        "dataAnalysis",
        "x",
        "C++ tips",
        "é ü",
        "50% off",
        "a:b",
        "a#b",
        "http://x.y/z",
        "tool0x3",
        "yes",
        "no",
        "on",
        "1.2.3",
        "nullable",
        "Trueish",
        "falsehood",
        "e5",
        "E",
        "Nan",
        "inf",
    ];
    let not_simple = [
        "true", "null", "True", "FALSE", "Null", "NULL", "12", "1e3", "~", "'q'", "\"q\"", "a: b", "a #c", "-x", "[x",
        "{x}", "&a", "*a", "!t", "|", ">", "@x", "`x", "%x", "x:", "", " lead",
    ];
    let mut docs: Vec<String> = Vec::new();
    for (i, w) in words.iter().chain(&not_simple).enumerate() {
        let other = words[i % words.len()];
        docs.push(format!("name: {w}\ndescription: {other}\n"));
        docs.push(format!("name: n\ntoolsets: [{w}, {other}]\n"));
        docs.push(format!("name: n\ntoolsets: [ {w} ,{other}  ]\ndescription: d\n"));
        docs.push(format!("tools:\n  - {w}\n  - {other}\nname: x\n"));
        docs.push(format!("tools:\n- {w}\n- {other}\n"));
        docs.push(format!("tools:\n    -   {w}   \n\n    - {other}\n"));
        docs.push(format!("{w}: value\n"));
        docs.push(format!("name:   {w}   \n"));
    }
    for doc in [
        "name: a\nname: b\n",
        "tools:\n",
        "tools: []\nx: y\n",
        "a: [b,]\n",
        "a: [,b]\n",
        "a:b\n",
        "a: b\n  c\n",
        "tools:\n  - a\n   - b\n",
        "a: b # c\n",
        "# c\na: b\n",
        "a: b\r\n",
        "a:\tb\n",
        "tools:\n  - a\nb: c\n  - d\n",
        "k: [a, [b]]\n",
        "k: x\n-  y\n",
        " a: b\n",
    ] {
        docs.push(doc.to_owned());
    }
    // More keys than the simple reader takes.
    docs.push((0..40).fold(String::new(), |doc, i| doc + &format!("key{i}: value {i}\n")));
    let mut simple_count = 0;
    for doc in &docs {
        let text = format!("---\n{doc}---\nbody\n");
        let range = 4..4 + doc.len();
        let full = super::parse_full(&text, range.clone(), &limits);
        if let Some(fast) = super::simple::parse(&text[range], 4) {
            simple_count += 1;
            assert_eq!(Ok(fast), full, "{doc:?}");
        }
    }
    assert!(simple_count > 100, "{simple_count} of {} read simply", docs.len());
}

#[test]
fn plain_scalars() {
    assert_eq!(resolve_plain("yes".into()), Value::String("yes".into()));
    assert_eq!(resolve_plain("-3".into()), Value::Int(-3));
    assert_eq!(resolve_plain("1e3".into()), Value::Float(1000.0));
    assert_eq!(resolve_plain("1.2.3".into()), Value::String("1.2.3".into()));
    assert_eq!(resolve_plain("v1".into()), Value::String("v1".into()));
}
