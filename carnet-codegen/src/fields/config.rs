//! The keys of `carnet.config.json`, its `app` and its `limits`.

use super::{Table, Type, field};

/// `app` in `carnet.config.json`.
pub static CONFIG_APP: Table = Table {
    title: "app",
    anchor: "app",
    place: "`app` in `carnet.config.json`",
    intro: "Skills for every agent.",
    fields: &[
        field(
            "globalSkills",
            Type::Strings,
            false,
            "`[]`",
            "Skills every agent may load, as if each listed them in `skills` (`E0008`).",
            r#"{ "app": { "globalSkills": ["style-guide"] } }"#,
        ),
        field(
            "globalInitialSkills",
            Type::Strings,
            false,
            "`[]`",
            "Skills every agent starts with, as if each listed them in `initialSkills`.",
            r#"{ "app": { "globalInitialSkills": ["safety"] } }"#,
        ),
    ],
};

/// `limits` in `carnet.config.json`.
pub static CONFIG_LIMITS: Table = Table {
    title: "limits",
    anchor: "limits",
    place: "`limits` in `carnet.config.json`",
    intro: "What a check reads is bounded; going over a limit is `E0029`. Each key replaces \
            the program's limit (`Config::limits` in `build.rs`); an unknown key is an error.",
    fields: &[
        field(
            "maxFileSize",
            Type::Integer,
            false,
            "16 MiB (16777216)",
            "The largest file read, in bytes.",
            r#"{ "limits": { "maxFileSize": 67108864 } }"#,
        ),
        field(
            "maxTotalSize",
            Type::Integer,
            false,
            "256 MiB (268435456)",
            "The bytes read in all.",
            r#"{ "limits": { "maxTotalSize": 1073741824 } }"#,
        ),
        field(
            "maxFiles",
            Type::Integer,
            false,
            "20000",
            "The files under the carnet directory.",
            r#"{ "limits": { "maxFiles": 100000 } }"#,
        ),
        field(
            "maxYamlDepth",
            Type::Integer,
            false,
            "64",
            "The nesting depth of a frontmatter's YAML.",
            r#"{ "limits": { "maxYamlDepth": 16 } }"#,
        ),
        field(
            "maxYamlAliasExpansion",
            Type::Integer,
            false,
            "10000",
            "The values YAML aliases may copy in one frontmatter (one per value plus one per 64 \
             bytes of text).",
            r#"{ "limits": { "maxYamlAliasExpansion": 1000 } }"#,
        ),
    ],
};

/// `carnet.config.json`.
pub static CONFIG: Table = Table {
    title: "carnet.config.json",
    anchor: "carnetconfigjson",
    place: "`carnet.config.json` in the carnet directory",
    intro: "Optional settings. Every key takes effect (in TS Carnet most are parsed and \
            ignored). An unknown key is a warning with a did-you-mean (`W0011`).",
    fields: &[
        field(
            "$schema",
            Type::String,
            false,
            "none",
            "A JSON schema for editors; informational.",
            r#"{ "$schema": "https://example.com/carnet.schema.json" }"#,
        ),
        field(
            "schema",
            Type::String,
            false,
            "none",
            "The same, as TS Carnet writes it; informational.",
            r#"{ "schema": "https://example.com/carnet.schema.json" }"#,
        ),
        field(
            "app",
            Type::Object(&CONFIG_APP),
            false,
            "`{}`",
            "Skills for every agent.",
            r#"{ "app": { "globalSkills": ["style-guide"] } }"#,
        ),
        field(
            "output",
            Type::String,
            false,
            "`./carnet` (the directory itself)",
            "Where `carnet build` writes `carnet.manifest.json`, relative to the folder \
             holding the carnet directory.",
            r#"{ "output": "./dist" }"#,
        ),
        field(
            "variables",
            Type::StringMap,
            false,
            "`{}`",
            "Default values of `{{ NAME }}` variables, written into the manifest (the \
             program's and each call's values come first).",
            r#"{ "variables": { "ORGANIZATION": "Acme" } }"#,
        ),
        field(
            "envPrefix",
            Type::Strings,
            false,
            "`[\"CARNET_\", \"PUBLIC_\"]`",
            "Environment variables whose name starts with one of these fill `{{ NAME }}` \
             variables; `[]` lets none in, `[\"\"]` every one (`W0013`).",
            r#"{ "envPrefix": ["ACME_"] }"#,
        ),
        field(
            "include",
            Type::Strings,
            false,
            "every file",
            "Glob patterns, relative to the carnet directory: only matching files are read \
             (`E0027`, `W0012`).",
            r#"{ "include": ["agents/**", "skills/**", "toolsets/**"] }"#,
        ),
        field(
            "exclude",
            Type::Strings,
            false,
            "`[]`",
            "Glob patterns, relative to the carnet directory: matching files are not read.",
            r#"{ "exclude": ["skills/drafts-*/**"] }"#,
        ),
        field(
            "allow",
            Type::Strings,
            false,
            "`[]`",
            "Warnings not to report, by code or name (a carnet extension); an error cannot be \
             allowed.",
            r#"{ "allow": ["skill-name-style", "W0005"] }"#,
        ),
        field(
            "limits",
            Type::Object(&CONFIG_LIMITS),
            false,
            "the program's limits",
            "Raises (or lowers) the limits on what a check reads.",
            r#"{ "limits": { "maxFileSize": 67108864 } }"#,
        ),
    ],
};
