//! Prints what the research agent's model sees first: the agent, its initial skills, and
//! the catalog of skills it can load, all read from the compiled manifest.

use research_agent::manifest::{self, MANIFEST, agents, skills};

fn main() {
    let agent = MANIFEST
        .agent(agents::RESEARCHER.name())
        .expect("typed ids always resolve");
    println!("agent `{}`: {}", agent.name, agent.description);
    println!("manifest fingerprint {:016x}\n", MANIFEST.fingerprint);
    for name in agent.all_skills() {
        let skill = MANIFEST.skill(name).expect("validated at build time");
        let initial = agent.initial_skills.iter().any(|s| s == name);
        println!(
            "{} skill `{}`: {}",
            if initial { "initial  " } else { "on demand" },
            skill.name,
            skill.description
        );
        for toolset in skill.toolsets.iter().filter_map(|t| MANIFEST.toolset(t)) {
            for tool in &*toolset.tools {
                println!("    {:<18} {}", tool.name, tool.description);
            }
        }
        for file in &*skill.files {
            println!(
                "    file {} ({}, {} bytes)",
                file.path,
                file.media_type,
                file.data.len()
            );
        }
    }
    let analysis = MANIFEST
        .skill(skills::DATA_ANALYSIS.name())
        .expect("typed ids always resolve");
    println!(
        "\n`{}` loads on demand: {} bytes of instructions",
        analysis.name,
        analysis.content.len()
    );
    println!(
        "tool ids: {} in `{}`",
        manifest::tools::BASIC_SEARCH,
        manifest::tools::BASIC_SEARCH.toolset()
    );
}
