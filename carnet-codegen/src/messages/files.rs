//! Texts of the diagnostics on the files a skill lists in `files`: missing, unreadable,
//! directories, paths that are not relative or leave the skill's folder, symbolic links that
//! escape it, files listed twice or too large, and URIs that collide.

use std::fmt::Display;
use std::path::Path;

// E0014 file-not-found.

/// A skill lists a file that does not exist.
pub(crate) fn file_not_found(skill: &str, path: &str) -> String {
    format!("skill `{skill}` lists missing file `{path}`")
}

/// Label on a missing file.
pub(crate) const NO_SUCH_FILE: &str = "no such file";

/// Note on where the missing file was looked for.
pub(crate) fn expected_at(path: &Path) -> String {
    format!("expected at `{}`", path.display())
}

// E0015 file-unreadable.

/// A file of a skill's folder cannot be read.
pub(crate) fn unreadable_skill_file(relative: &str, skill: &str, error: &impl Display) -> String {
    format!("cannot read `{relative}` of skill `{skill}`: {error}")
}

/// A file a skill lists cannot be read.
pub(crate) fn unreadable_listed_file(path: &str, skill: &str, error: &impl Display) -> String {
    format!("cannot read file `{path}` of skill `{skill}`: {error}")
}

/// Label on an unreadable listed file.
pub(crate) const UNREADABLE: &str = "unreadable";

// E0016 file-is-directory.

/// A skill file path is the skill's folder.
pub(crate) fn path_is_skill_folder(path: &str) -> String {
    format!("file path `{path}` is the skill's folder itself")
}

/// A skill file path names a directory.
pub(crate) fn path_is_directory(path: &str) -> String {
    format!("file path `{path}` is a directory")
}

/// Label on a path naming a directory.
pub(crate) const LIST_FILES_INSIDE: &str = "list the files inside it instead";

// E0017 file-dot-slash.

/// A skill file path starts with `./`.
pub(crate) fn path_starts_with_dot_slash(path: &str) -> String {
    format!("file path `{path}` starts with `./`")
}

/// Label on a path starting with `./`.
pub(crate) const RELATIVE_TO_SKILL_FOLDER: &str = "paths are relative to the skill's folder";

/// Help with the path without its `./`.
pub(crate) fn write_path(path: &str) -> String {
    format!("write `{path}`")
}

// E0018 file-absolute.

/// A skill file path is absolute.
pub(crate) fn path_is_absolute(path: &str) -> String {
    format!("file path `{path}` is absolute")
}

/// Label on an absolute path.
pub(crate) const MUST_BE_RELATIVE: &str = "must be relative to the skill's folder";

// E0019 file-outside-skill.

/// A skill file path climbs out of the skill's folder.
pub(crate) fn path_outside_skill(path: &str, skill: &str) -> String {
    format!("file path `{path}` resolves outside skill `{skill}`'s folder")
}

/// Label on a path leaving the skill's folder.
pub(crate) const LEAVES_SKILL_FOLDER: &str = "leaves the skill's folder";

/// Note naming the skill's folder.
pub(crate) fn skill_folder_is(folder: &Path) -> String {
    format!("the skill's folder is `{}`", folder.display())
}

// E0020 symlink-escape.

/// A link in a skill's folder leads outside it.
pub(crate) fn symlink_escape(relative: &str, skill: &str) -> String {
    format!("`{relative}` in skill `{skill}` links outside the skill's folder")
}

/// Label on the skill holding the link.
pub(crate) const IN_THIS_SKILL: &str = "in this skill";

/// Note naming the link.
pub(crate) fn is_a_symbolic_link(path: &Path) -> String {
    format!("`{}` is a symbolic link", path.display())
}

/// Help for a link leaving the skill's folder.
pub(crate) const COPY_INSTEAD_OF_LINKING: &str = "copy the file into the skill's folder instead of linking to it";

/// A file a skill lists is a link leading outside the skill's folder.
pub(crate) fn listed_file_symlink_escape(path: &str, skill: &str) -> String {
    format!("file `{path}` of skill `{skill}` links outside the skill's folder")
}

/// Label on a listed link leaving the skill's folder.
pub(crate) const LINK_LEAVES_FOLDER: &str = "a symbolic link leaves the folder";

// E0025 duplicate-file.

/// A skill lists a file twice.
pub(crate) fn duplicate_file(skill: &str, path: &str) -> String {
    format!("skill `{skill}` lists file `{path}` twice")
}

/// Label on the second listing (also W0008).
pub(crate) const LISTED_AGAIN_HERE: &str = "listed again here";
/// Points at the first listing (also W0008).
pub(crate) const FIRST_LISTED_HERE: &str = "first listed here";

// W0006 large-file.

/// A skill file is very large.
pub(crate) fn large_file(path: &str, skill: &str, mebibytes: usize) -> String {
    format!("file `{path}` of skill `{skill}` is {mebibytes} MiB")
}

/// Note on a large skill file.
pub(crate) const FILES_ARE_EMBEDDED: &str = "skill files are embedded in the binary and the manifest";

/// A SKILL.md is very large.
pub(crate) fn large_skill_md(skill: &str, mebibytes: usize) -> String {
    format!("SKILL.md of skill `{skill}` is {mebibytes} MiB")
}

/// Note on a large SKILL.md.
pub(crate) const BODY_IS_SENT: &str = "the whole body is sent to the model when the skill loads";

// E0035 resource-uri-collision.

/// Two resources with one URI.
pub(crate) fn resource_uri_collision(uri: &str) -> String {
    format!("two resources of the MCP server would both be `{uri}`")
}

/// Label on the file that collides with its skill's instructions.
pub(crate) const COLLIDES_WITH_SKILL_MD: &str = "this file has the URI of the skill's own instructions";

/// Label on the second of two colliding resources.
pub(crate) const SAME_URI_HERE: &str = "this resource has the same URI";

/// Help for a file listed as `SKILL.md`.
pub(crate) const SKILL_MD_IS_SERVED: &str = "the skill's `SKILL.md` is always served: remove it from `files`";
