//! The last check of reading: every reference (agent → skill, skill → toolset, global skill)
//! resolves. Lookups are binary searches: the entities are sorted by name.

use super::{ManifestError, child, invalid};
use crate::manifest::Manifest;

pub(super) fn check_references(m: &Manifest) -> Result<(), ManifestError> {
    for agent in &*m.agents {
        for (key, list) in [("initialSkills", &agent.initial_skills), ("skills", &agent.skills)] {
            for (i, skill) in list.iter().enumerate() {
                if m.skill(skill).is_none() {
                    return Err(invalid(
                        &format!("{}/{key}/{i}", child("/agents", &agent.name)),
                        format!("agent `{}` references unknown skill `{skill}`", agent.name),
                    ));
                }
            }
        }
    }
    for skill in &*m.skills {
        for (i, toolset) in skill.toolsets.iter().enumerate() {
            if m.toolset(toolset).is_none() {
                return Err(invalid(
                    &format!("{}/toolsets/{i}", child("/skills", &skill.name)),
                    format!("skill `{}` references unknown toolset `{toolset}`", skill.name),
                ));
            }
        }
    }
    for (key, list) in [
        ("globalInitialSkills", &m.app.global_initial_skills),
        ("globalSkills", &m.app.global_skills),
    ] {
        for (i, skill) in list.iter().enumerate() {
            if m.skill(skill).is_none() {
                return Err(invalid(&format!("/app/{key}/{i}"), format!("unknown skill `{skill}`")));
            }
        }
    }
    Ok(())
}
