//! Discovery: which files of a carnet directory are agents, skills, skill files, toolsets
//! and tool files.
//!
//! - `agents/**/AGENT.md`, `skills/**/SKILL.md`, `toolsets/**/TOOLSET.md` (case-sensitive,
//!   any depth, as TS Carnet's globs);
//! - every other file under a skill's folder is a skill file, except those of a nested
//!   skill (a sub-folder with its own SKILL.md) and hidden files (`.DS_Store`, `.git/`);
//! - every `*.md` file directly beside a TOOLSET.md is a tool file (TS Carnet 0.3.0);
//! - `include` / `exclude` patterns of `carnet.config.json` filter all of the above.
//!
//! Symbolic links to files are followed; links to directories are not (no cycles). A link
//! in a skill's folder whose target lies outside the folder is reported, never followed.
//! Entries are visited in sorted order so every later stage is deterministic.

use std::fs;
use std::path::{Path, PathBuf};

/// A file found under the carnet directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Path relative to the carnet directory, `/`-separated.
    pub(crate) relative: String,
    /// The path to open.
    pub(crate) path: PathBuf,
    /// The entry is a symbolic link.
    pub(crate) symlink: bool,
    /// The entry is a directory reached through a symbolic link (not followed).
    pub(crate) dir_link: bool,
}

/// A skill folder.
#[derive(Debug, Clone)]
pub(crate) struct SkillDir {
    /// The SKILL.md file.
    pub(crate) manifest: Entry,
    /// The folder, relative to the carnet directory (`skills/pdf`).
    pub(crate) dir: String,
    /// Every other file of the folder, with its path relative to the folder.
    pub(crate) files: Vec<(String, Entry)>,
}

/// A toolset folder.
#[derive(Debug, Clone)]
pub(crate) struct ToolsetDir {
    /// The TOOLSET.md file.
    pub(crate) manifest: Entry,
    /// `*.md` files beside it.
    pub(crate) tool_files: Vec<Entry>,
}

/// What discovery found.
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    pub(crate) agents: Vec<Entry>,
    pub(crate) skills: Vec<SkillDir>,
    pub(crate) toolsets: Vec<ToolsetDir>,
}

/// Include and exclude patterns (`carnet.config.json`).
#[derive(Debug, Default, Clone)]
pub(crate) struct Filter {
    pub(crate) include: Vec<String>,
    pub(crate) exclude: Vec<String>,
}

impl Filter {
    /// Whether a file (path relative to the carnet directory) takes part in the build: it
    /// matches no `exclude` pattern and, when there are `include` patterns, one of them.
    /// A pattern matching a folder matches everything inside it.
    pub(crate) fn accepts(&self, relative: &str) -> bool {
        let matches = |patterns: &[String]| patterns.iter().any(|p| matches_path_or_parent(p, relative));
        !matches(&self.exclude) && (self.include.is_empty() || matches(&self.include))
    }
}

fn matches_path_or_parent(pattern: &str, relative: &str) -> bool {
    let mut prefix = relative;
    loop {
        if glob_match(pattern, prefix) {
            return true;
        }
        match prefix.rfind('/') {
            Some(i) => prefix = &prefix[..i],
            None => return false,
        }
    }
}

/// Matches a `/`-separated path against a glob: `**` (any number of folders), `*` (any
/// characters but `/`), `?` (one character but `/`).
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern
        .trim_start_matches("./")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match_segments(&pattern, &path)
}

fn match_segments(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| match_segments(rest, &path[skip..])),
        Some((segment, rest)) => {
            !path.is_empty()
                && match_segment(segment.as_bytes(), path[0].as_bytes())
                && match_segments(rest, &path[1..])
        }
    }
}

fn match_segment(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| match_segment(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && match_segment(rest, &name[1..]),
        Some((c, rest)) => name.first() == Some(c) && match_segment(rest, &name[1..]),
    }
}

/// Lists every file below `root/sub`, sorted, skipping hidden entries.
fn walk(root: &Path, sub: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let start = root.join(sub);
    if start.is_dir() {
        walk_into(&start, sub, &mut out);
    }
    out
}

fn walk_into(dir: &Path, relative: &str, out: &mut Vec<Entry>) {
    let Ok(read) = fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = format!("{relative}/{name}");
        let Ok(file_type) = entry.file_type() else { continue };
        let symlink = file_type.is_symlink();
        let is_dir = if symlink { path.is_dir() } else { file_type.is_dir() };
        if is_dir && !symlink {
            walk_into(&path, &rel, out);
        } else {
            out.push(Entry {
                relative: rel,
                path,
                symlink,
                dir_link: is_dir,
            });
        }
    }
}

fn parent(relative: &str) -> &str {
    relative.rfind('/').map_or("", |i| &relative[..i])
}

/// Finds the content of the carnet directory `root`.
pub(crate) fn discover(root: &Path, filter: &Filter) -> Discovered {
    fn file_named(name: &'static str) -> impl Fn(&Entry) -> bool {
        move |e: &Entry| !e.dir_link && e.relative.rsplit('/').next() == Some(name)
    }

    let agents = walk(root, "agents")
        .into_iter()
        .filter(|e| file_named("AGENT.md")(e))
        .filter(|e| filter.accepts(&e.relative))
        .collect();

    let skill_entries = walk(root, "skills");
    let skill_files: Vec<&Entry> = skill_entries
        .iter()
        .filter(|e| file_named("SKILL.md")(e) && filter.accepts(&e.relative))
        .collect();
    let skill_dirs: Vec<&str> = skill_files.iter().map(|e| parent(&e.relative)).collect();
    let mut skills: Vec<SkillDir> = skill_files
        .iter()
        .map(|e| SkillDir {
            manifest: (*e).clone(),
            dir: parent(&e.relative).to_owned(),
            files: Vec::new(),
        })
        .collect();
    let index_of: std::collections::HashMap<&str, usize> =
        skill_dirs.iter().enumerate().map(|(i, dir)| (*dir, i)).collect();
    for entry in &skill_entries {
        // The deepest skill folder holding the file owns it: walk up its parents.
        let mut dir = parent(&entry.relative);
        let owner = loop {
            if let Some(&index) = index_of.get(dir) {
                break Some((index, dir));
            }
            if dir.is_empty() {
                break None;
            }
            dir = parent(dir);
        };
        if let Some((index, dir)) = owner {
            let inner = &entry.relative[dir.len() + 1..];
            if inner != "SKILL.md" && filter.accepts(&entry.relative) {
                skills[index].files.push((inner.to_owned(), entry.clone()));
            }
        }
    }

    let toolset_entries = walk(root, "toolsets");
    let mut by_folder: std::collections::HashMap<&str, Vec<&Entry>> = std::collections::HashMap::new();
    for entry in &toolset_entries {
        by_folder.entry(parent(&entry.relative)).or_default().push(entry);
    }
    let toolsets = toolset_entries
        .iter()
        .filter(|e| file_named("TOOLSET.md")(e) && filter.accepts(&e.relative))
        .map(|manifest| {
            let tool_files = by_folder[parent(&manifest.relative)]
                .iter()
                .filter(|e| {
                    !e.dir_link
                        && Path::new(&e.relative).extension().is_some_and(|ext| ext == "md")
                        && !e.relative.ends_with("/TOOLSET.md")
                        && filter.accepts(&e.relative)
                })
                .map(|e| (*e).clone())
                .collect();
            ToolsetDir {
                manifest: manifest.clone(),
                tool_files,
            }
        })
        .collect();

    Discovered {
        agents,
        skills,
        toolsets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("skills/**/SKILL.md", "skills/a/b/SKILL.md"));
        assert!(glob_match("skills/**/SKILL.md", "skills/SKILL.md"));
        assert!(glob_match("skills/*.md", "skills/x.md"));
        assert!(!glob_match("skills/*.md", "skills/a/x.md"));
        assert!(glob_match("skills/dr?fts", "skills/drafts"));
        assert!(!glob_match("skills/drafts", "skills/drafts-old"));
    }

    #[test]
    fn filters_match_folders() {
        let filter = Filter {
            include: vec![],
            exclude: vec!["skills/drafts".into()],
        };
        assert!(!filter.accepts("skills/drafts/x/SKILL.md"));
        assert!(filter.accepts("skills/draftsman/SKILL.md"));
        let filter = Filter {
            include: vec!["agents/**".into(), "skills/a/**".into()],
            exclude: vec![],
        };
        assert!(filter.accepts("skills/a/SKILL.md"));
        assert!(!filter.accepts("skills/b/SKILL.md"));
    }
}
