//! The probe: a manifest whose index stands for how text becomes an index.

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
