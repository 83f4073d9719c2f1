//! A skill's files resolved: its folder's and the ones its `files` list names, each read or
//! reported, sorted by path.

use std::path::Path;

use crate::by_name::ByName;
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::messages;
use crate::project::{FolderFile, ListedFile, ListedPath, Project, ResolvedFile, normalise};
use crate::read::ReadError;
use crate::source::Span;

use super::{LARGE_FILE, suggest};

/// The code for a skill file that was not read: a special file and a limit have their own.
fn unreadable_code(e: &ReadError) -> Code {
    match e {
        ReadError::NotAFile(_) => Code::SpecialFile,
        ReadError::TooLarge { .. } | ReadError::OverTotal { .. } => Code::LimitExceeded,
        ReadError::Io(_) => Code::FileUnreadable,
    }
}

/// The setting that raises the limit a read hit, if any.
fn limit_help(e: &ReadError) -> Option<String> {
    match e {
        ReadError::TooLarge { .. } => Some(messages::raise_limit("maxFileSize")),
        ReadError::OverTotal { .. } => Some(messages::raise_limit("maxTotalSize")),
        _ => None,
    }
}

fn resolved(path: &str, source: &Path, description: Option<String>, data: Vec<u8>) -> ResolvedFile {
    let is_text = !data.contains(&0) && std::str::from_utf8(&data).is_ok();
    ResolvedFile {
        path: path.to_owned(),
        source: source.to_path_buf(),
        description,
        data,
        is_text,
    }
}

/// Judges what `load` found for each skill's files (the folder's and the listed ones) and
/// keeps those that can be embedded.
pub(super) fn resolve_skill_files(project: &mut Project, diags: &mut Diagnostics) {
    let root = project.root.clone();
    for skill in &mut project.skills {
        let folder = root.join(&skill.def.dir);
        let name = skill.def.name.value.clone();
        let mut files: ByName<'_, ResolvedFile> = ByName::new();
        let listed_paths: ByName<'_> = skill
            .def
            .files
            .iter()
            .filter_map(|f| normalise(f.path.as_str()))
            .map(|p| p.join("/"))
            .collect();
        // Every file of the folder.
        for ((relative, entry), found) in skill.folder.files.iter().zip(std::mem::take(&mut skill.folder_files)) {
            match found {
                FolderFile::Escapes if listed_paths.contains(relative) => {} // reported at the `files` entry
                FolderFile::Escapes => diags.push(
                    Builder::new(Code::SymlinkEscape, messages::symlink_escape(relative, &name))
                        .at(skill.def.name.span)
                        .label(messages::IN_THIS_SKILL)
                        .note(messages::is_a_symbolic_link(&entry.path))
                        .help(messages::COPY_INSTEAD_OF_LINKING),
                ),
                FolderFile::DirLink => {}
                FolderFile::Read(data) => {
                    files.insert(relative.clone(), resolved(relative, &entry.path, None, data));
                }
                FolderFile::Unreadable(e) => diags.push(
                    Builder::new(
                        unreadable_code(&e),
                        messages::unreadable_skill_file(relative, &name, &e),
                    )
                    .at(skill.def.name.span)
                    .help_opt(limit_help(&e)),
                ),
            }
        }
        // The files the frontmatter lists.
        let mut listed: ByName<'_, Span> = ByName::new();
        for (file_ref, found) in skill.def.files.iter().zip(std::mem::take(&mut skill.listed_files)) {
            let path = file_ref.path.as_str();
            let span = file_ref.path.span;
            let error = |code, message: String| Builder::new(code, message).at(span);
            let parts = match ListedPath::parse(path) {
                ListedPath::DotSlash { rest } => {
                    diags.push(
                        error(Code::FileDotSlash, messages::path_starts_with_dot_slash(path))
                            .label(messages::RELATIVE_TO_SKILL_FOLDER)
                            .help(messages::write_path(rest)),
                    );
                    continue;
                }
                ListedPath::Absolute => {
                    diags.push(
                        error(Code::FileAbsolute, messages::path_is_absolute(path)).label(messages::MUST_BE_RELATIVE),
                    );
                    continue;
                }
                ListedPath::Outside => {
                    diags.push(
                        error(Code::FileOutsideSkill, messages::path_outside_skill(path, &name))
                            .label(messages::LEAVES_SKILL_FOLDER)
                            .note(messages::skill_folder_is(&folder)),
                    );
                    continue;
                }
                ListedPath::SkillFolder => {
                    diags.push(
                        error(Code::FileIsDirectory, messages::path_is_skill_folder(path))
                            .label(messages::LIST_FILES_INSIDE),
                    );
                    continue;
                }
                ListedPath::Inside(parts) => parts,
            };
            let key = parts.join("/");
            if let Some(first) = listed.get(&key) {
                diags.push(
                    error(Code::DuplicateFile, messages::duplicate_file(&name, &key))
                        .label(messages::LISTED_AGAIN_HERE)
                        .related(*first, messages::FIRST_LISTED_HERE),
                );
                continue;
            }
            listed.insert(key.clone(), span);
            let (full, found) = found.expect("`load` looked up every valid, first-listed path");
            match found {
                ListedFile::Missing => {
                    let available: Vec<&String> = skill.folder.files.iter().map(|(p, _)| p).collect();
                    diags.push(
                        error(Code::FileNotFound, messages::file_not_found(&name, path))
                            .label(messages::NO_SUCH_FILE)
                            .note(messages::expected_at(&full))
                            .help_opt(suggest(path, available)),
                    );
                }
                ListedFile::Escapes => diags.push(
                    error(Code::SymlinkEscape, messages::listed_file_symlink_escape(path, &name))
                        .label(messages::LINK_LEAVES_FOLDER),
                ),
                ListedFile::Directory => diags.push(
                    error(Code::FileIsDirectory, messages::path_is_directory(path)).label(messages::LIST_FILES_INSIDE),
                ),
                ListedFile::InFolder => {
                    if let Some(file) = files.get_mut(&key) {
                        file.description = Some(file_ref.description.clone());
                    }
                }
                ListedFile::Read(data) => {
                    let file = resolved(&key, &full, Some(file_ref.description.clone()), data);
                    files.insert(key, file);
                }
                ListedFile::Unreadable(e) => diags.push(
                    error(unreadable_code(&e), messages::unreadable_listed_file(path, &name, &e))
                        .label(messages::UNREADABLE)
                        .help_opt(limit_help(&e)),
                ),
            }
        }
        for file in files.values() {
            if file.data.len() > LARGE_FILE {
                diags.push(
                    Builder::new(
                        Code::LargeFile,
                        messages::large_file(&file.path, &name, file.data.len() / (1024 * 1024)),
                    )
                    .at(listed.get(&file.path).copied().unwrap_or(skill.def.name.span))
                    .note(messages::FILES_ARE_EMBEDDED),
                );
            }
        }
        skill.files = files.into_values();
    }
    for skill in &project.skills {
        let text = &project.sources.get(skill.def.file).text;
        if text.len() > LARGE_FILE {
            diags.push(
                Builder::new(
                    Code::LargeFile,
                    messages::large_skill_md(&skill.def.name.value, text.len() / (1024 * 1024)),
                )
                .at(skill.def.name.span)
                .note(messages::BODY_IS_SENT),
            );
        }
    }
}
