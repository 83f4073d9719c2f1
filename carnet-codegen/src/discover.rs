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
//!
//! A folder that cannot be listed is reported, never skipped in silence, and discovery
//! stops after `limits.maxFiles` files. Special files (FIFOs, devices) are listed like any
//! file: reading refuses them with a diagnostic.

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
    /// The folder listing said it is a regular file (not a link, FIFO or device), so
    /// reading it can skip the type check before opening (the check on the open handle
    /// stays).
    pub(crate) regular: bool,
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
    /// `*.md` files under `skills/` outside every skill folder: maybe single-file skills.
    pub(crate) loose_skill_files: Vec<Entry>,
    /// Folders that could not be listed.
    pub(crate) problems: Vec<Problem>,
    /// Discovery stopped at `limits.maxFiles`.
    pub(crate) truncated: bool,
    /// `include` (first) and `exclude` patterns that match no file, by index.
    pub(crate) unmatched: Vec<(&'static str, usize)>,
}

/// A folder that could not be listed.
#[derive(Debug)]
pub(crate) enum Problem {
    /// `relative` exists but is not a directory.
    NotADirectory { relative: String },
    /// Listing `relative` failed.
    Unreadable { relative: String, error: std::io::Error },
}

/// Counts files against `limits.maxFiles` and keeps the listing problems.
struct Walk {
    remaining: usize,
    truncated: bool,
    problems: Vec<Problem>,
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

// Both matchers are the classic wildcard walk that backtracks only to the last star: time
// is O(pattern × path), never exponential in the number of stars.
fn match_segments(pattern: &[&str], path: &[&str]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < path.len() {
        if p < pattern.len() && pattern[p] == "**" {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && match_segment(pattern[p].as_bytes(), path[n].as_bytes()) {
            p += 1;
            n += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|s| *s == "**")
}

fn match_segment(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Lists every file below `root/sub`, sorted, skipping hidden entries.
fn walk(root: &Path, sub: &str, walk: &mut Walk) -> Vec<Entry> {
    let mut out = Vec::new();
    let start = root.join(sub);
    match fs::metadata(&start) {
        Ok(meta) if meta.is_dir() => walk_into(&start, sub, &mut out, walk),
        Ok(_) => walk.problems.push(Problem::NotADirectory {
            relative: sub.to_owned(),
        }),
        // A dangling or looping link: it exists, but leads nowhere readable.
        Err(error) if fs::symlink_metadata(&start).is_ok() => walk.problems.push(Problem::Unreadable {
            relative: sub.to_owned(),
            error,
        }),
        Err(_) => {}
    }
    out
}

fn walk_into(dir: &Path, relative: &str, out: &mut Vec<Entry>, walk: &mut Walk) {
    if walk.truncated {
        return;
    }
    let read = match fs::read_dir(dir) {
        Ok(read) => read,
        Err(error) => {
            walk.problems.push(Problem::Unreadable {
                relative: relative.to_owned(),
                error,
            });
            return;
        }
    };
    let mut entries = Vec::new();
    for entry in read {
        match entry {
            Ok(entry) => entries.push(entry),
            Err(error) => {
                walk.problems.push(Problem::Unreadable {
                    relative: relative.to_owned(),
                    error,
                });
                return;
            }
        }
        // Entries are sorted after listing: stop listing a huge folder at the limit.
        if entries.len() > walk.remaining {
            walk.truncated = true;
            break;
        }
    }
    carnet_manifest::order::sort_by_key(&mut entries, fs::DirEntry::file_name);
    for entry in entries {
        if walk.remaining == 0 {
            walk.truncated = true;
            return;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = format!("{relative}/{name}");
        walk.remaining -= 1;
        let file_type = match entry.file_type() {
            Ok(file_type) => file_type,
            Err(error) => {
                walk.problems.push(Problem::Unreadable { relative: rel, error });
                continue;
            }
        };
        let symlink = file_type.is_symlink();
        let is_dir = if symlink { path.is_dir() } else { file_type.is_dir() };
        if is_dir && !symlink {
            walk_into(&path, &rel, out, walk);
        } else {
            out.push(Entry {
                relative: rel,
                path,
                symlink,
                dir_link: is_dir,
                regular: file_type.is_file(),
            });
        }
    }
}

fn parent(relative: &str) -> &str {
    relative.rfind('/').map_or("", |i| &relative[..i])
}

/// Finds the content of the carnet directory `root`, at most `max_files` files.
pub(crate) fn discover(root: &Path, filter: &Filter, max_files: usize) -> Discovered {
    fn file_named(name: &'static str) -> impl Fn(&Entry) -> bool {
        move |e: &Entry| !e.dir_link && e.relative.rsplit('/').next() == Some(name)
    }

    let mut walker = Walk {
        remaining: max_files,
        truncated: false,
        problems: Vec::new(),
    };
    let agent_entries = walk(root, "agents", &mut walker);
    let skill_entries = walk(root, "skills", &mut walker);
    let toolset_entries = walk(root, "toolsets", &mut walker);
    let unmatched = unmatched_patterns(filter, &[&agent_entries, &skill_entries, &toolset_entries]);

    let agents = agent_entries
        .into_iter()
        .filter(|e| file_named("AGENT.md")(e))
        .filter(|e| filter.accepts(&e.relative))
        .collect();

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
    let mut loose_skill_files = Vec::new();
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
        } else if !entry.dir_link
            && Path::new(&entry.relative).extension().is_some_and(|ext| ext == "md")
            && filter.accepts(&entry.relative)
        {
            loose_skill_files.push(entry.clone());
        }
    }

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
        loose_skill_files,
        problems: walker.problems,
        truncated: walker.truncated,
        unmatched,
    }
}

/// The `include` and `exclude` patterns that match no file found (a typo, a path written
/// from the wrong folder): by index, includes first.
fn unmatched_patterns(filter: &Filter, entries: &[&Vec<Entry>]) -> Vec<(&'static str, usize)> {
    let unmatched = |key: &'static str, patterns: &[String]| {
        patterns
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                !entries
                    .iter()
                    .flat_map(|list| list.iter())
                    .any(|e| matches_path_or_parent(p, &e.relative))
            })
            .map(|(i, _)| (key, i))
            .collect::<Vec<_>>()
    };
    let mut out = unmatched("include", &filter.include);
    out.extend(unmatched("exclude", &filter.exclude));
    out
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
        assert!(glob_match("**/x/**/y", "a/x/b/c/y"));
        assert!(!glob_match("**/x/**/y", "a/x/b/c/z"));
        assert!(glob_match("*a*b", "xaab"));
        assert!(!glob_match("*a*b", "xaa"));
        assert!(glob_match("skills/**", "skills"));
        // Many stars stay fast (a backtracking matcher takes ages here).
        let long = "a".repeat(4000);
        assert!(!glob_match(&format!("{}b", "*a".repeat(30)), &long));
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
