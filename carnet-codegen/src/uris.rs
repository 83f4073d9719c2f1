//! Rules on the `skill://<skill>/<path>` resource URIs the MCP server gives every skill's
//! `SKILL.md` and files: a name must be a URI segment as written, and no two resources may
//! share a URI. Runs after the skill files are resolved.

use crate::by_name::ByName;
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::messages;
use crate::project::Project;
use crate::source::Span;

/// Runs both rules.
pub(crate) fn check_resource_uris(project: &Project, diags: &mut Diagnostics) {
    check_uri_safe_names(project, diags);
    check_uri_collisions(project, diags);
}

/// RFC 3986's unreserved characters, and not a dot segment.
fn is_uri_safe(name: &str) -> bool {
    !matches!(name, "" | "." | "..")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

fn check_uri_safe_names(project: &Project, diags: &mut Diagnostics) {
    for skill in &project.skills {
        let name = &skill.def.name;
        // A control character is E0032's to report (and not to print raw).
        if !is_uri_safe(name.as_str()) && !name.as_str().chars().any(char::is_control) {
            diags.push(
                Builder::new(
                    Code::SkillNameNotUriSafe,
                    messages::skill_name_not_uri_safe(name.as_str()),
                )
                .at(name.span)
                .label(messages::URI_SAFE_CHARACTERS)
                .note(messages::SERVED_AS_SKILL_URI),
            );
        }
    }
}

fn check_uri_collisions(project: &Project, diags: &mut Diagnostics) {
    // The URI's skill and path, decoded: equal keys are equal URIs once encoded.
    let mut seen: ByName<'_, Span> = ByName::new();
    let mut skill_mds = Vec::new();
    for skill in &project.skills {
        let key = format!("{}/SKILL.md", skill.def.name.as_str());
        skill_mds.push(key.clone());
        seen.insert_first(key, skill.def.name.span);
    }
    for skill in &project.skills {
        let name = skill.def.name.as_str();
        for file in &skill.files {
            let key = format!("{name}/{}", file.path);
            // Point at the `files` entry when the file is listed, else at the skill's name.
            let span = skill
                .def
                .files
                .iter()
                .find(|f| f.path.as_str().trim_start_matches("./") == file.path)
                .map_or(skill.def.name.span, |f| f.path.span);
            match seen.get(&key) {
                Some(first) => {
                    let own = file.path == "SKILL.md";
                    let mut builder = Builder::new(
                        Code::ResourceUriCollision,
                        messages::resource_uri_collision(&format!("skill://{key}")),
                    )
                    .at(span)
                    .label(if own {
                        messages::COLLIDES_WITH_SKILL_MD
                    } else {
                        messages::SAME_URI_HERE
                    });
                    if own {
                        builder = builder.help(messages::SKILL_MD_IS_SERVED);
                    } else {
                        builder = builder.related(*first, messages::FIRST_DEFINED_HERE);
                    }
                    diags.push(builder);
                }
                None => {
                    seen.insert(key, span);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_uri_safe;

    #[test]
    fn uri_safe_names_are_unreserved_characters_but_not_dot_segments() {
        for ok in ["webSearch", "data-analysis", "a.b", "a_b~c", "v2"] {
            assert!(is_uri_safe(ok), "{ok}");
        }
        for bad in ["a/b", "my skill", "données", "50%", ".", "..", "", "a?b", "a#b"] {
            assert!(!is_uri_safe(bad), "{bad}");
        }
    }
}
