//! A skill's files: the paths its `files` list gives, judged from their text, and the
//! files of its folder read within the budget.

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::{FolderFile, ListedFile, Skill};
use crate::by_name::ByName;
use crate::read::Budget;

/// Where a `files` entry points, judged from its text alone.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ListedPath<'a> {
    /// `./x`: `rest` is `x`.
    DotSlash {
        rest: &'a str,
    },
    Absolute,
    /// Climbs above the skill's folder.
    Outside,
    /// The skill's folder itself.
    SkillFolder,
    /// A path inside the folder, by components.
    Inside(Vec<String>),
}

impl<'a> ListedPath<'a> {
    pub(crate) fn parse(path: &'a str) -> Self {
        if let Some(rest) = path.strip_prefix("./").or_else(|| path.strip_prefix(".\\")) {
            return ListedPath::DotSlash { rest };
        }
        if is_absolute(path) {
            return ListedPath::Absolute;
        }
        match normalise(path) {
            None => ListedPath::Outside,
            Some(parts) if parts.is_empty() => ListedPath::SkillFolder,
            Some(parts) => ListedPath::Inside(parts),
        }
    }
}

/// Normalises a relative path by components; `None` when it climbs above its start.
pub(crate) fn normalise(path: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = Vec::new();
    for component in Path::new(&path.replace('\\', "/")).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts)
}

fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || Path::new(path).is_absolute()
        || (bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic())
}

/// Whether `path` (after following every link) stays inside `folder`. A link whose target
/// does not exist is judged by its target's path, so a dangling link inside the folder is
/// an unreadable file, not an escape.
fn stays_inside(path: &Path, folder: &Path) -> bool {
    let Ok(folder) = fs::canonicalize(folder) else {
        return false;
    };
    if let Ok(path) = fs::canonicalize(path) {
        return path.starts_with(&folder);
    }
    let Ok(target) = fs::read_link(path) else { return false };
    let base = path.parent().and_then(|p| fs::canonicalize(p).ok()).unwrap_or_default();
    let mut resolved = PathBuf::new();
    for component in base.join(target).components() {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(&folder)
}

/// Reads the files of a skill's folder and looks up the ones its `files` entries name.
/// Every file it touches goes into `read_files`.
pub(super) fn read_skill_files(root: &Path, skill: &mut Skill, read_files: &mut Vec<PathBuf>, budget: &Budget) {
    let folder = root.join(&skill.def.dir);
    skill.folder_files = skill
        .folder
        .files
        .iter()
        .map(|(_, entry)| {
            read_files.push(entry.path.clone());
            if entry.symlink && !stays_inside(&entry.path, &folder) {
                FolderFile::Escapes
            } else if entry.dir_link {
                FolderFile::DirLink
            } else {
                budget
                    .read(&entry.path)
                    .map_or_else(FolderFile::Unreadable, FolderFile::Read)
            }
        })
        .collect();
    let read_in_folder: ByName<'_> = skill
        .folder
        .files
        .iter()
        .zip(&skill.folder_files)
        .filter(|(_, file)| matches!(file, FolderFile::Read(_)))
        .map(|((relative, _), _)| relative.as_str())
        .collect();
    let mut seen: ByName<'_> = ByName::new();
    skill.listed_files = skill
        .def
        .files
        .iter()
        .map(|file_ref| {
            let ListedPath::Inside(parts) = ListedPath::parse(file_ref.path.as_str()) else {
                return None;
            };
            let key = parts.join("/");
            if !seen.add(key.clone()) {
                return None;
            }
            let full: PathBuf = parts.iter().fold(folder.clone(), |p, part| p.join(part));
            read_files.push(full.clone());
            let found = match fs::symlink_metadata(&full) {
                Err(_) => ListedFile::Missing,
                Ok(meta) if (meta.file_type().is_symlink() || full.exists()) && !stays_inside(&full, &folder) => {
                    ListedFile::Escapes
                }
                Ok(_) if full.is_dir() => ListedFile::Directory,
                Ok(_) if read_in_folder.contains(key.as_str()) => ListedFile::InFolder,
                Ok(_) => budget.read(&full).map_or_else(ListedFile::Unreadable, ListedFile::Read),
            };
            Some((full, found))
        })
        .collect();
}
