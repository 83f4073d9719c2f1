//! What the meta-tools' name `enum`s cost (issue 26, item 6): the o200k tokens of the tools
//! array an agent sends on every turn, without any `enum` ([`NameEnums::OFF`]), with the
//! skill names only, with the skill and toolset names, with every kind (no cap) and with the
//! defaults, on synthetic catalogs of growing size; and, for scale, what one wrong skill name
//! costs (the error result the model reads, which lists the skills that exist). Prints one
//! markdown table.
//!
//! Usage: `name-enums [SKILLS...]` (default 5 20 64 200 1000).

use carnet_bench::catalog;
use carnet_runtime::session::NameEnums;
use carnet_runtime::{Carnet, Preset, PromptOptions, block_on, tokens};
use serde_json::json;

fn tools_tokens(manifest: &carnet_runtime::Manifest, preset: Preset, enums: NameEnums) -> usize {
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .preset(preset)
        .prompt_options(PromptOptions {
            name_enums: enums,
            ..PromptOptions::default()
        })
        .build()
        .expect("the synthetic catalog builds");
    let session = carnet.session("agent").expect("the catalog's agent");
    tokens::tools(session.tools())
}

fn wrong_name_tokens(manifest: &carnet_runtime::Manifest) -> usize {
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .build()
        .expect("the synthetic catalog builds");
    let mut session = carnet.session("agent").expect("the catalog's agent");
    let output = block_on(session.call("loadSkill", json!({"skillName": "skill-typo"})));
    assert!(
        output.error_message().is_some(),
        "a skill that does not exist is refused"
    );
    tokens::count(&output.to_text())
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number of skills"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![5, 20, 64, 200, 1000]
    } else {
        sizes
    };
    let all = NameEnums {
        skills: usize::MAX,
        toolsets: usize::MAX,
        tools: usize::MAX,
    };
    let skills_only = NameEnums {
        skills: usize::MAX,
        ..NameEnums::OFF
    };
    let skills_toolsets = NameEnums {
        toolsets: usize::MAX,
        ..skills_only
    };
    println!(
        "| skills | tools | preset | no enum | + skill names | + toolset names | + tool names (all) | default caps | one wrong skill name |"
    );
    println!("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in &sizes {
        let manifest = catalog(n);
        let tools: usize = manifest.toolsets.iter().map(|t| t.tools.len()).sum();
        let wrong = wrong_name_tokens(&manifest);
        for (label, preset) in [("full", Preset::Full), ("discovery", Preset::Discovery)] {
            let off = tools_tokens(&manifest, preset, NameEnums::OFF);
            let delta = |enums| {
                let t = tools_tokens(&manifest, preset, enums);
                format!("{t} (+{})", t - off)
            };
            println!(
                "| {n} | {tools} | {label} | {off} | {} | {} | {} | {} | {wrong} |",
                delta(skills_only),
                delta(skills_toolsets),
                delta(all),
                delta(NameEnums::default()),
            );
        }
    }
}
