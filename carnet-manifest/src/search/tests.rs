use super::*;

/// Three tools in two toolsets, one remote (its parameters come from the pin), one skill.
fn manifest() -> Manifest {
    let remote = serde_json::json!({
        "inputSchema": {"type": "object", "properties": {
            "timezone": {"type": "string", "description": "IANA time zone name"}
        }}
    });
    let json = serde_json::json!({
        "agents": {},
        "skills": {"files": {"name": "files", "description": "Work with files on disk", "content": "Use the tools.", "toolsets": ["filesystem"]}},
        "toolsets": {
            "filesystem": {"name": "filesystem", "description": "Files on disk", "tools": [
                {"name": "readTextFile", "description": "Read a file's contents as text"},
                {"name": "listDirectory", "description": "List the entries of a directory"}
            ]},
            "time": {"name": "time", "description": "Clocks", "tools": [
                {"name": "get_current_time", "description": "Get the current time in a time zone", "remote": remote}
            ]}
        }
    });
    Manifest::from_json(&json.to_string()).expect("a valid manifest")
}

fn top(index: &SearchIndex, query: &str) -> Option<u32> {
    index.search(query, 3, |_| true).first().map(|s| s.tool)
}

#[test]
fn ranks_by_meaning_and_exact_names_win() {
    let index = SearchIndex::build(&manifest());
    assert_eq!(index.tools(), 3);
    assert_eq!(top(&index, "what time is it in Tokyo"), Some(2));
    assert_eq!(top(&index, "show the folder listing of a directory"), Some(1));
    assert_eq!(top(&index, "read a text file"), Some(0));
    assert_eq!(top(&index, "get_current_time"), Some(2));
    assert_eq!(
        top(&index, "list_directory"),
        Some(1),
        "snake_case query, camelCase name"
    );
    assert_eq!(top(&index, "ListDirectory"), Some(1));
    assert_eq!(
        top(&index, "IANA zone"),
        Some(2),
        "a remote tool's pinned parameters are indexed"
    );
    assert_eq!(top(&index, "the of and"), None, "stop words only");
    assert_eq!(top(&index, ""), None);
    // The skill that brings a toolset is context of its tools.
    let mut disk: Vec<u32> = index.search("disk", 3, |_| true).iter().map(|s| s.tool).collect();
    disk.sort_unstable();
    assert_eq!(disk, [0, 1]);
    // Filtered tools are never returned.
    assert!(index.search("file", 3, |t| t != 0).iter().all(|s| s.tool != 0));
    assert!(index.search("get_current_time", 3, |t| t != 2).is_empty());
}

#[test]
fn an_exact_name_outranks_any_number_of_matching_words() {
    let index = SearchIndex::build(&manifest());
    let hits = index.search("readTextFile", 3, |_| true);
    assert_eq!(hits[0].tool, 0);
    assert!(hits[0].score > EXACT_NAME);
    assert!(hits.iter().skip(1).all(|h| h.score < EXACT_NAME));
}

#[test]
fn the_bytes_are_the_same_on_every_build_and_read_back_as_they_are() {
    let manifest = manifest();
    let index = SearchIndex::build(&manifest);
    assert_eq!(index.as_bytes(), SearchIndex::build(&manifest).as_bytes());
    assert_eq!(index.fingerprint(), manifest.fingerprint);
    let read = SearchIndex::from_bytes(index.as_bytes().to_vec().into()).expect("an index");
    for query in ["time", "read a file", "directory listing", "get_current_time", "disk"] {
        assert_eq!(
            read.search(query, 3, |_| true),
            index.search(query, 3, |_| true),
            "{query}"
        );
    }
    // Borrowed bytes (as `include_bytes!` gives them) are read in place.
    let leaked: &'static [u8] = Box::leak(index.as_bytes().to_vec().into_boxed_slice());
    let borrowed = SearchIndex::from_bytes(std::borrow::Cow::Borrowed(leaked)).expect("an index");
    assert_eq!(borrowed.search("time", 3, |_| true), index.search("time", 3, |_| true));
}

#[test]
fn what_the_program_adds_ranks_as_if_the_manifest_said_it() {
    let mut added = SearchIndex::build(&manifest());
    assert_eq!(top(&added, "encoding"), None);
    added.add(0, Field::Parameter, "encoding: the text encoding, utf-8 by default");
    assert_eq!(top(&added, "text encoding"), Some(0));
    // Out of range: ignored.
    added.add(99, Field::Name, "encoding");
    assert!(added.search("encoding", 5, |_| true).iter().all(|s| s.tool == 0));

    // Adding a word to a tool's description scores as a description written with it: the
    // same as an index whose manifest had the words.
    let mut json = manifest().to_json();
    json = json.replace(
        "List the entries of a directory",
        "List the entries of a directory recursively",
    );
    let said = SearchIndex::build(&Manifest::from_json(&json).unwrap());
    let mut added = SearchIndex::build(&manifest());
    added.add(1, Field::Description, "recursively");
    for query in ["recursively", "list directory recursively", "file", "recur"] {
        let (a, b) = (said.search(query, 3, |_| true), added.search(query, 3, |_| true));
        assert_eq!(a.len(), b.len(), "{query}");
        for (a, b) in a.iter().zip(&b) {
            assert_eq!(a.tool, b.tool, "{query}");
            assert!((a.score - b.score).abs() < 1e-4, "{query}: {} vs {}", a.score, b.score);
        }
    }
}

#[test]
fn a_query_word_finds_the_longer_words_it_begins_below_whole_ones() {
    let index = SearchIndex::build(&manifest());
    // "direct" is no indexed term; it begins "directori" (directory, stemmed).
    assert_eq!(top(&index, "direct"), Some(1));
    let begun = index.search("direct", 1, |_| true)[0].score;
    let whole = index.search("directory", 1, |_| true)[0].score;
    assert!(begun < whole / 2.0, "weighed below the word itself: {begun} vs {whole}");
    // A word shorter than LONGER_FROM begins too many to count.
    assert_eq!(top(&index, "tex"), None);
    assert_eq!(top(&index, "fil"), None);
}

#[test]
fn an_explanation_adds_up_to_the_hits_score() {
    let mut index = SearchIndex::build(&manifest());
    // Terms the program added are merged with the bytes' (the other path of the scorer).
    index.add(0, Field::Parameter, "the encoding of the text");
    for query in [
        "what time is it in Tokyo",
        "show the folder listing of a directory",
        "read a text file in some encoding",
        "get_current_time",
        "direct",
        "IANA zone",
        "the of and",
        "",
    ] {
        for hit in index.search(query, 10, |_| true) {
            let why = index.explain(query, hit.tool);
            assert_eq!(why.score.to_bits(), hit.score.to_bits(), "{query:?}, tool {}", hit.tool);
            assert!(!why.terms.is_empty() || why.exact_name, "{query:?}");
            assert!(why.terms.iter().all(|t| t.score > 0.0 && t.tools > 0 && t.weight > 0.0));
        }
    }
    // Where each term comes from.
    let why = index.explain("folder", 1);
    let folder = Origin::Synonym { of: "folder".into() };
    assert!(
        why.terms.iter().any(|t| t.term == "directori" && t.origin == folder),
        "{why:?}"
    );
    assert_eq!(
        index.explain("direct", 1).terms[0].origin,
        Origin::Begun { by: "direct".into() }
    );
    assert_eq!(index.explain("encoding", 0).terms[0].origin, Origin::Query);
    assert!(index.explain("get_current_time", 2).exact_name);
    assert!(!index.explain("get_current_time", 1).exact_name);
    // Nothing to explain: a tool out of range, a query the tool holds nothing of.
    assert_eq!(index.explain("read", 99), Explanation::default());
    assert_eq!(index.explain("zzz", 0), Explanation::default());
}

#[test]
fn news_is_not_the_plural_of_new() {
    let json = serde_json::json!({
        "agents": {},
        "skills": {},
        "toolsets": {"t": {"name": "t", "description": "Tools", "tools": [
            {"name": "createBranch", "description": "Create a new branch"},
            {"name": "headlines", "description": "The latest news from the wire"}
        ]}}
    });
    let index = SearchIndex::build(&Manifest::from_json(&json.to_string()).expect("a valid manifest"));
    let hits: Vec<u32> = index
        .search("recent news", 3, |_| true)
        .iter()
        .map(|s| s.tool)
        .collect();
    assert_eq!(hits, [1], "Porter's rules alone make \"news\" `new`");
    assert_eq!(top(&index, "a new branch"), Some(0));
}

#[test]
fn merging_sums_the_weights_of_a_tool_in_both_lists() {
    let mut out = Vec::new();
    merge(
        [(1, 10), (3, 10), (7, 10)].into_iter(),
        &[(0, 1), (3, 1), (9, 1)],
        &mut out,
    );
    assert_eq!(out, [(0, 1), (1, 10), (3, 11), (7, 10), (9, 1)]);
    out.clear();
    merge(std::iter::empty(), &[(2, 1)], &mut out);
    assert_eq!(out, [(2, 1)]);
}

#[test]
fn hostile_queries_are_bounded() {
    let index = SearchIndex::build(&manifest());
    let huge = "file ".repeat(200_000);
    assert_eq!(top(&index, &huge), Some(0));
    let _ = index.search("文件 📁 \u{202e}read\u{0}", 3, |_| true);
    let long_word = "x".repeat(100_000);
    assert!(index.search(&long_word, 3, |_| true).is_empty());
    let many = (0..10_000).map(|i| format!("w{i}x")).collect::<Vec<_>>().join(" ");
    let _ = index.search(&many, 3, |_| true);
    assert!(index.search("file", 0, |_| true).is_empty());
}

#[test]
fn damaged_bytes_are_refused_or_find_less_never_panic() {
    let bytes = SearchIndex::build(&manifest()).as_bytes().to_vec();
    assert!(SearchIndex::from_bytes(Vec::new().into()).is_none());
    assert!(SearchIndex::from_bytes(b"CSX1".to_vec().into()).is_none());
    for cut in [1, 4, 47, bytes.len() - 1] {
        assert!(
            SearchIndex::from_bytes(bytes[..cut].to_vec().into()).is_none(),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(SearchIndex::from_bytes(longer.into()).is_none());
    // Every byte flipped in turn: read or refused, searched without a panic.
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0xa5;
        if let Some(index) = SearchIndex::from_bytes(damaged.into()) {
            for query in ["time", "read_text_file", "directory"] {
                let _ = index.search(query, 3, |_| true);
            }
        }
    }
}

#[test]
fn an_empty_manifest_has_an_empty_index() {
    let empty = Manifest::from_json(r#"{"agents": {}, "skills": {}, "toolsets": {}}"#).unwrap();
    let index = SearchIndex::build(&empty);
    assert_eq!(index.tools(), 0);
    assert!(index.search("anything", 5, |_| true).is_empty());
    let default = SearchIndex::default();
    assert_eq!(default.tools(), 0);
    assert!(SearchIndex::from_bytes(default.as_bytes().to_vec().into()).is_some());
    assert!(default.search("anything", 5, |_| true).is_empty());
}

#[test]
fn a_build_reuses_the_previous_index_only_when_no_tool_text_changed() {
    let before = manifest();
    let previous = SearchIndex::build(&before);
    // A skill's body is not indexed: the previous bytes are reused, with the new fingerprint,
    // and they are exactly what a fresh build gives.
    let json = before.to_json().replace("Use the tools.", "Use the tools well.");
    let body_edit = Manifest::from_json(&json).unwrap();
    assert_ne!(body_edit.fingerprint, before.fingerprint);
    let reused = SearchIndex::build_reusing(&body_edit, Some(previous.as_bytes()));
    assert_eq!(reused.fingerprint(), body_edit.fingerprint);
    assert_eq!(reused.as_bytes(), SearchIndex::build(&body_edit).as_bytes());
    // A description is: built again.
    let json = before
        .to_json()
        .replace("Read a file's contents as text", "Read a file's bytes");
    let description_edit = Manifest::from_json(&json).unwrap();
    let rebuilt = SearchIndex::build_reusing(&description_edit, Some(previous.as_bytes()));
    assert_eq!(rebuilt.as_bytes(), SearchIndex::build(&description_edit).as_bytes());
    assert_ne!(rebuilt.as_bytes(), previous.as_bytes());
    // Bytes that are no index, or none: built.
    let garbage = SearchIndex::build_reusing(&before, Some(b"not an index"));
    assert_eq!(garbage.as_bytes(), previous.as_bytes());
    assert_eq!(
        SearchIndex::build_reusing(&before, None).as_bytes(),
        previous.as_bytes()
    );
}

/// [`probe`]'s manifest, as JSON.
const PROBE: &str = r#"{"agents": {}, "skills": {"probeSkill": {"name": "probeSkill",
    "description": "Skills bring toolsets", "content": "", "toolsets": ["t"]}},
    "toolsets": {"t": {"name": "t", "description": "The toolset of über boxes", "tools": [
    {"name": "readTextFile", "title": "Read matches",
    "description": "Reads the HTTPServer v2 s3_bucket listing of directories created in 26.2 s"},
    {"name": "get_current_time", "description": "",
    "remote": {"inputSchema": {"properties": {"timeZone": {"description": "An IANA zone"}}}}}
    ]}}}"#;

#[test]
fn the_probe_that_stands_for_the_tokenizer_and_weights_is_a_manifest() {
    let from_json = Manifest::from_json(PROBE).expect("the probe parses");
    assert_eq!(probe(), from_json, "the constructors build the JSON's manifest");
    assert_eq!(
        SearchIndex::build_with(&probe(), 0).as_bytes(),
        SearchIndex::build_with(&from_json, 0).as_bytes(),
        "and the same index"
    );
    let index = SearchIndex::build_with(&probe(), 0);
    assert_eq!(index.tools(), 2);
    // It reaches every field: a name, a description, a title, a remote parameter, context.
    for query in ["readTextFile", "HTTPServer", "matches", "IANA", "über", "probe skill"] {
        assert!(!index.search(query, 2, |_| true).is_empty(), "{query}");
    }
}

#[test]
fn terms_numbered_while_building_are_the_query_terms() {
    // Words met twice, in other cases, stop words, numbers, camelCase and non-ASCII words:
    // the building side remembers each word's term; it must be the term a query makes.
    let text = "Reading the READ files, readFiles 42 times; Über-Straße connections Connected CONNECTING the";
    let mut terms = Terms::default();
    let (mut first, mut again) = (Vec::new(), Vec::new());
    terms.count(&mut first, text, Field::Description);
    terms.count(&mut again, text, Field::Description);
    assert_eq!(first, again);
    let names: Vec<&str> = first.iter().map(|&(id, _)| &*terms.names[id as usize]).collect();
    let mut expected = Vec::new();
    for_each_term(text, |t| expected.push(t.to_owned()));
    assert_eq!(names, expected);
    assert_eq!(
        names,
        [
            "read", "read", "file", "read", "file", "time", "über", "straße", "connect", "connect", "connect"
        ]
    );
}

#[test]
fn parameters_nested_and_enum_values_are_read_to_a_bounded_depth() {
    let schema = serde_json::json!({"type": "object", "properties": {
        "mode": {"type": "string", "description": "How to travel", "enum": ["driving", "walking", 3]},
        "entities": {"type": "array", "items": {"type": "object", "properties": {
            "observations": {"type": "array", "items": {"type": "string"}, "description": "Facts"}
        }}}
    }});
    let mut texts = Vec::new();
    for_each_parameter(&schema, |t| texts.push(t.to_owned()));
    assert_eq!(
        texts,
        [
            "entities",
            "observations",
            "Facts",
            "mode",
            "How to travel",
            "driving",
            "walking"
        ]
    );
    // A schema nested deep (from a stranger's pin) is read to a few levels.
    let mut deep = serde_json::json!({"type": "string"});
    for level in 0..200 {
        let mut properties = serde_json::Map::new();
        properties.insert(format!("p{level}"), deep);
        deep = serde_json::json!({"type": "object"});
        deep["properties"] = properties.into();
    }
    let mut count = 0;
    for_each_parameter(&deep, |_| count += 1);
    assert_eq!(count, PARAMETER_DEPTH);
}
