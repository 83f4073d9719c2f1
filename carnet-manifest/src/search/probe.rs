//! The probe, a manifest whose index stands for how text becomes an index, and what changes an
//! index when it changes.

use std::sync::OnceLock;

use super::SearchIndex;
use crate::hash::StableHasher;
use crate::manifest::Manifest;

/// A manifest whose index shows how text becomes an index: names in every case, digits, stop
/// words, plurals and verb forms, non-ASCII words, a title, a remote tool's parameters, a
/// toolset and a skill (every field). Built from the constructors, not read from JSON: the
/// build script hashes it, and reading JSON there would compile the manifest reader into
/// every author's build script (`tests.rs` holds the same manifest as JSON, and checks that
/// both give the same index).
pub(super) fn probe() -> Manifest {
    use crate::manifest::{__annotated_tool, __remote_tool};
    use crate::{Agent, App, Skill, Text, Tool, Toolset};
    use std::borrow::Cow;

    const TOOLSETS: &[Text] = &[Cow::Borrowed("t")];
    const TOOLS: &[Tool] = &[
        __annotated_tool(
            "readTextFile",
            "Reads the HTTPServer v2 s3_bucket listing of directories created in 26.2 s",
            "",
            None,
            Some("Read matches"),
            [None; 4],
        ),
        __remote_tool(
            "get_current_time",
            "",
            "",
            r#"{"inputSchema":{"properties":{"timeZone":{"description":"An IANA zone"}}}}"#,
        ),
    ];
    const SKILLS: &[Skill] = &[Skill::__new(
        "probeSkill",
        "Skills bring toolsets",
        TOOLSETS,
        &[],
        "",
        None,
        None,
        &[],
        "{}",
        "{}",
    )];
    const AGENTS: &[Agent] = &[];
    const ENV_PREFIXES: &[Text] = &[
        Cow::Borrowed(crate::manifest::DEFAULT_ENV_PREFIXES[0]),
        Cow::Borrowed(crate::manifest::DEFAULT_ENV_PREFIXES[1]),
    ];
    const TOOLSET: &[Toolset] = &[Toolset::__new("t", "The toolset of über boxes", TOOLS, "")];
    let mut probe = Manifest::__new(
        crate::manifest::MANIFEST_VERSION,
        App::__new(&[], &[]),
        AGENTS,
        SKILLS,
        TOOLSET,
        &[],
        ENV_PREFIXES,
        0,
    );
    probe.fingerprint = probe.compute_fingerprint();
    probe
}

/// What changes the index when it changes: how text becomes an index ([`INDEX_VERSION`], and
/// the bytes of a probe's index, so that a change of the tokenizer, the stemmer or a weight is
/// seen even if the version is not bumped) and every text the index reads, with its length.
pub(super) fn inputs(manifest: &Manifest) -> u64 {
    // The probe's index is the same for the whole process: built and hashed once.
    static PROBE: OnceLock<u64> = OnceLock::new();
    let probe = PROBE.get_or_init(|| {
        let mut hasher = StableHasher::new();
        hasher.bytes(SearchIndex::build_with(&probe(), 0).as_bytes());
        hasher.finish()
    });
    let mut hasher = StableHasher::new();
    hasher.bytes(&probe.to_le_bytes());
    let mut text = |text: &str| {
        hasher.bytes(&(text.len() as u64).to_le_bytes());
        hasher.bytes(text.as_bytes());
    };
    text(INDEX_VERSION);
    for toolset in manifest.toolsets.iter() {
        text(&toolset.name);
        text(&toolset.description);
        for tool in toolset.tools.iter() {
            text(&tool.name);
            text(&tool.description);
            text(tool.title.as_deref().unwrap_or_default());
            text(tool.remote.as_deref().unwrap_or_default());
        }
        text("");
    }
    for skill in manifest.skills.iter() {
        text(&skill.name);
        text(&skill.description);
        for toolset in skill.toolsets.iter() {
            text(toolset);
        }
        text("");
    }
    hasher.finish()
}

/// The layout and scoring inputs of the index: changed whenever the bytes an index of the same
/// text would have change.
const INDEX_VERSION: &str = "carnet search index 4";
