//! A loaded carnet directory: discovery, reading and parsing, before validation.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::Limits;
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::discover::{self, Discovered, Filter, SkillDir};
use crate::messages;
use crate::model::{self, AgentDef, SkillDef, ToolsetDef};
use crate::read::{Budget, ReadError};
use crate::settings::{self, Settings};
use crate::source::{FileId, Sources, Span};

/// A file of a skill, resolved and read.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedFile {
    /// Path relative to the skill's folder, `/`-separated.
    pub(crate) path: String,
    /// Where it was read from.
    pub(crate) source: PathBuf,
    pub(crate) description: Option<String>,
    pub(crate) data: Vec<u8>,
    pub(crate) is_text: bool,
}

/// A file of a skill's folder as `load` found it; validation judges it.
#[derive(Debug)]
pub(crate) enum FolderFile {
    /// A symbolic link whose target lies outside the skill's folder: not read.
    Escapes,
    /// A symbolic link to a directory: not followed.
    DirLink,
    Read(Vec<u8>),
    Unreadable(ReadError),
}

/// What the path of a `files` entry leads to, as `load` found it; validation judges it.
#[derive(Debug)]
pub(crate) enum ListedFile {
    Missing,
    /// It, or a link on the way, leaves the skill's folder.
    Escapes,
    Directory,
    /// A file of the folder, already read with the others.
    InFolder,
    Read(Vec<u8>),
    Unreadable(ReadError),
}

/// A skill with its folder's files.
#[derive(Debug)]
pub(crate) struct Skill {
    pub(crate) def: SkillDef,
    pub(crate) folder: SkillDir,
    /// One per entry of `folder.files`, in the same order.
    pub(crate) folder_files: Vec<FolderFile>,
    /// One per entry of `def.files`, in the same order: where it points and what is there;
    /// `None` when the path is invalid or listed before (validation says why).
    pub(crate) listed_files: Vec<Option<(PathBuf, ListedFile)>>,
    /// Filled by validation: every file of the folder plus the listed ones, sorted by path.
    pub(crate) files: Vec<ResolvedFile>,
}

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
fn read_skill_files(root: &Path, skill: &mut Skill, read_files: &mut Vec<PathBuf>, budget: &Budget) {
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
    let read_in_folder: BTreeSet<&str> = skill
        .folder
        .files
        .iter()
        .zip(&skill.folder_files)
        .filter(|(_, file)| matches!(file, FolderFile::Read(_)))
        .map(|((relative, _), _)| relative.as_str())
        .collect();
    let mut seen = BTreeSet::new();
    skill.listed_files = skill
        .def
        .files
        .iter()
        .map(|file_ref| {
            let ListedPath::Inside(parts) = ListedPath::parse(file_ref.path.as_str()) else {
                return None;
            };
            let key = parts.join("/");
            if !seen.insert(key.clone()) {
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

/// Everything read from a carnet directory.
#[derive(Debug)]
pub(crate) struct Project {
    pub(crate) root: PathBuf,
    pub(crate) sources: Sources,
    pub(crate) settings: Settings,
    pub(crate) agents: Vec<AgentDef>,
    pub(crate) skills: Vec<Skill>,
    pub(crate) toolsets: Vec<ToolsetDef>,
    /// Every file read, for `cargo:rerun-if-changed`.
    pub(crate) read_files: Vec<PathBuf>,
}

/// Files read ahead of parsing, on every core: reading thousands of small files is mostly
/// waiting on the kernel, which parallelises well.
#[derive(Default)]
struct Prefetched(std::collections::VecDeque<(PathBuf, Result<Vec<u8>, ReadError>)>);

impl Prefetched {
    /// Reads `paths` on every core, in order (the order `load` asks for them).
    fn read_all(paths: &[PathBuf], budget: &Budget) -> Self {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(8);
        if threads < 2 || paths.len() < 64 {
            return Prefetched::default();
        }
        let chunk = paths.len().div_ceil(threads);
        let files = std::thread::scope(|scope| {
            let handles: Vec<_> = paths
                .chunks(chunk)
                .map(|chunk| scope.spawn(move || chunk.iter().map(|p| (p.clone(), budget.read(p))).collect::<Vec<_>>()))
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        Prefetched(files)
    }

    /// The bytes of `path`: requests come in the prefetch order, possibly skipping files (a
    /// toolset whose TOOLSET.md fails skips its tool files), so skipped ones are dropped.
    fn read(&mut self, path: &Path, budget: &Budget) -> Result<Vec<u8>, ReadError> {
        match self.0.iter().position(|(p, _)| p == path) {
            Some(index) => {
                self.0.drain(..index);
                self.0.pop_front().map_or_else(|| budget.read(path), |(_, bytes)| bytes)
            }
            None => budget.read(path),
        }
    }
}

/// Reads a content file into `sources`; reports it when it cannot be read or is not UTF-8.
fn read_source(
    project: &mut Project,
    budget: &Budget,
    prefetched: &mut Prefetched,
    path: &Path,
    relative: &str,
    diags: &mut Diagnostics,
) -> Option<FileId> {
    project.read_files.push(path.to_path_buf());
    let display = project.root.join(relative);
    match prefetched.read(path, budget) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(project.sources.add(display, text)),
            Err(e) => {
                let id = project.sources.add(display, String::new());
                diags.push(
                    Builder::new(Code::UnreadableSource, messages::not_utf8(relative))
                        .at(crate::source::Span::file_start(id))
                        .note(messages::invalid_byte_at(e.utf8_error().valid_up_to())),
                );
                None
            }
        },
        Err(e) => {
            let id = project.sources.add(display, String::new());
            diags.push(read_error(&e, relative, Span::file_start(id)));
            None
        }
    }
}

/// The diagnostic for a content file that was not read: a special file (E0030), a limit
/// (E0029) or an I/O error (E0024).
fn read_error(e: &ReadError, relative: &str, at: Span) -> Builder {
    match e {
        ReadError::NotAFile(kind) => Builder::new(Code::SpecialFile, messages::special_file(relative, kind))
            .at(at)
            .note(messages::SPECIAL_FILES_NOT_READ),
        ReadError::TooLarge { limit } => Builder::new(Code::LimitExceeded, messages::file_too_large(relative, *limit))
            .at(at)
            .help(messages::raise_limit("maxFileSize")),
        ReadError::OverTotal { limit } => {
            Builder::new(Code::LimitExceeded, messages::total_too_large(relative, *limit))
                .at(at)
                .help(messages::raise_limit("maxTotalSize"))
        }
        ReadError::Io(e) => Builder::new(Code::UnreadableSource, messages::unreadable_source(relative, e)).at(at),
    }
}

/// Discovers and parses the carnet directory at `root`, within `limits` (those of
/// `carnet.config.json` replace them when it sets `limits`).
pub(crate) fn load(root: &Path, limits: &Limits, diags: &mut Diagnostics) -> Project {
    let mut project = Project {
        root: root.to_path_buf(),
        sources: Sources::default(),
        settings: Settings::default(),
        agents: Vec::new(),
        skills: Vec::new(),
        toolsets: Vec::new(),
        read_files: Vec::new(),
    };
    if !root.is_dir() {
        diags.push(
            Builder::new(Code::MissingDirectory, messages::missing_directory(root)).help(messages::CREATE_DIRECTORY),
        );
        return project;
    }
    let config_path = root.join("carnet.config.json");
    if fs::symlink_metadata(&config_path).is_ok()
        && let Some(id) = read_source(
            &mut project,
            &Budget::new(limits),
            &mut Prefetched::default(),
            &config_path,
            "carnet.config.json",
            diags,
        )
    {
        project.settings = settings::parse(id, &project.sources, diags);
    }
    let limits = project.settings.limits.unwrap_or(*limits);
    let budget = Budget::new(&limits);
    let filter = Filter {
        include: project.settings.include.clone(),
        exclude: project.settings.exclude.clone(),
    };
    let Discovered {
        agents,
        skills,
        toolsets,
        loose_skill_files,
        problems,
        truncated,
        unmatched,
    } = discover::discover(root, &filter, limits.max_files);
    report_discovery(&project, &problems, truncated, &unmatched, limits.max_files, diags);
    let mut prefetched = Prefetched::read_all(
        &agents
            .iter()
            .map(|e| e.path.clone())
            .chain(skills.iter().map(|s| s.manifest.path.clone()))
            .chain(toolsets.iter().flat_map(|t| {
                std::iter::once(&t.manifest)
                    .chain(&t.tool_files)
                    .map(|e| e.path.clone())
            }))
            .collect::<Vec<_>>(),
        &budget,
    );
    let yaml = limits.yaml();

    for entry in agents {
        if let Some(id) = read_source(
            &mut project,
            &budget,
            &mut prefetched,
            &entry.path,
            &entry.relative,
            diags,
        ) && let Some(agent) = model::parse_agent(id, &project.sources, &yaml, diags)
        {
            project.agents.push(agent);
        }
    }
    for folder in skills {
        if let Some(id) = read_source(
            &mut project,
            &budget,
            &mut prefetched,
            &folder.manifest.path,
            &folder.manifest.relative,
            diags,
        ) && let Some(def) = model::parse_skill(id, &folder.dir, &project.sources, &yaml, diags)
        {
            project.skills.push(Skill {
                def,
                folder,
                folder_files: Vec::new(),
                listed_files: Vec::new(),
                files: Vec::new(),
            });
        }
    }
    for dir in toolsets {
        let Some(id) = read_source(
            &mut project,
            &budget,
            &mut prefetched,
            &dir.manifest.path,
            &dir.manifest.relative,
            diags,
        ) else {
            continue;
        };
        let Some(mut toolset) = model::parse_toolset(id, &project.sources, &yaml, diags) else {
            continue;
        };
        for entry in &dir.tool_files {
            let Some(file) = read_source(
                &mut project,
                &budget,
                &mut prefetched,
                &entry.path,
                &entry.relative,
                diags,
            ) else {
                continue;
            };
            let Some(tool) = model::parse_tool_file(file, &project.sources, &yaml, diags) else {
                continue;
            };
            // A name declared twice (reported as E0009) gets the description at both sites.
            let mut declarations = toolset
                .tools
                .iter_mut()
                .filter(|d| d.name.value == tool.name.value)
                .peekable();
            match declarations.peek() {
                Some(_) => {
                    for decl in declarations {
                        if decl.description.is_none() {
                            decl.description = Some(tool.description.clone());
                        }
                        decl.content.clone_from(&tool.content);
                    }
                }
                None => {
                    let declared: Vec<&str> = toolset.tools.iter().map(|d| d.name.as_str()).collect();
                    diags.push(
                        Builder::new(
                            Code::OrphanToolFile,
                            messages::orphan_tool_file(&tool.name.value, &toolset.name.value),
                        )
                        .at(tool.name.span)
                        .label(messages::NOT_IN_TOOLS)
                        .related(toolset.name.span, messages::TOOLSET_DECLARED_HERE)
                        .help_opt(
                            crate::diagnostic::did_you_mean(&tool.name.value, declared.iter().copied())
                                .map(messages::did_you_mean),
                        )
                        .help(messages::add_tool_or_delete_file(&tool.name.value)),
                    );
                }
            }
        }
        for decl in &toolset.tools {
            if decl.description.is_none() {
                let folder = dir.manifest.relative.trim_end_matches("/TOOLSET.md");
                diags.push(
                    Builder::new(
                        Code::ToolWithoutDescription,
                        messages::tool_without_description(&decl.name.value),
                    )
                    .at(decl.name.span)
                    .label(messages::DECLARED_BY_NAME_ONLY)
                    .help(messages::add_tool_file(folder, &decl.name.value)),
                );
            }
        }
        project.toolsets.push(toolset);
    }
    for entry in loose_skill_files {
        check_single_file_skill(&mut project, &budget, &entry, &yaml, diags);
    }
    for skill in &mut project.skills {
        read_skill_files(&project.root, skill, &mut project.read_files, &budget);
    }
    project
}

/// Reports the folders discovery could not list, the file limit, and the `include` and
/// `exclude` patterns that match nothing (they sit in `carnet.config.json`).
fn report_discovery(
    project: &Project,
    problems: &[discover::Problem],
    truncated: bool,
    unmatched: &[(&'static str, usize)],
    max_files: usize,
    diags: &mut Diagnostics,
) {
    for problem in problems {
        let message = match problem {
            discover::Problem::NotADirectory { relative } => messages::not_a_directory(relative),
            discover::Problem::Unreadable { relative, error } => messages::unreadable_directory(relative, error),
        };
        diags.push(Builder::new(Code::UnreadableDirectory, message).note(messages::CONTENT_MAY_BE_MISSING));
    }
    if truncated {
        diags.push(
            Builder::new(Code::LimitExceeded, messages::too_many_files(&project.root, max_files))
                .help(messages::raise_limit("maxFiles")),
        );
    }
    for &(key, index) in unmatched {
        if let Some((_, pattern)) = project
            .settings
            .pattern_spans
            .iter()
            .filter(|(k, _)| *k == key)
            .nth(index)
            .filter(|(_, pattern)| settings::pattern_problem(&pattern.value).is_none())
        {
            diags.push(
                Builder::new(Code::UnmatchedPattern, messages::unmatched_pattern(key, &pattern.value))
                    .at(pattern.span)
                    .note(messages::PATTERNS_ARE_RELATIVE),
            );
        }
    }
}

/// A `*.md` under `skills/` outside every skill folder. One whose frontmatter has a `name`
/// and a `description` is a single-file skill (TS Carnet's older layout, and what many
/// tools' "skills/foo.md" look like): rejected with the command that converts it, since an
/// Agent Skills skill is a folder. Any other markdown (a README) is left alone.
fn check_single_file_skill(
    project: &mut Project,
    budget: &Budget,
    entry: &discover::Entry,
    yaml: &crate::limits::YamlLimits,
    diags: &mut Diagnostics,
) {
    let data = match budget.read(&entry.path) {
        Ok(data) => data,
        Err(e @ ReadError::NotAFile(_)) => {
            let id = project.sources.add(project.root.join(&entry.relative), String::new());
            diags.push(read_error(&e, &entry.relative, Span::file_start(id)));
            return;
        }
        Err(_) => return,
    };
    let Ok(text) = String::from_utf8(data) else { return };
    let split = crate::frontmatter::split(&text);
    let Some(matter) = split.matter.clone() else { return };
    let Ok(node) = crate::frontmatter::parse_yaml(&text, matter, yaml) else {
        return;
    };
    let crate::frontmatter::Value::Map(entries) = node.value else {
        return;
    };
    let has = |key: &str| {
        entries
            .iter()
            .find(|(k, _)| matches!(&k.value, crate::frontmatter::Value::String(s) if s == key))
    };
    let (Some((_, name)), Some(_)) = (has("name"), has("description")) else {
        return;
    };
    let span = (name.start, name.end);
    let stem = Path::new(&entry.relative)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = entry.relative.rsplit_once('/').map_or("skills", |(p, _)| p);
    let target = format!("{parent}/{stem}/SKILL.md");
    project.read_files.push(entry.path.clone());
    let id = project.sources.add(project.root.join(&entry.relative), text);
    diags.push(
        Builder::new(Code::SingleFileSkill, messages::single_file_skill(&entry.relative))
            .at(Span::new(id, span.0, span.1))
            .label(messages::SKILLS_ARE_FOLDERS)
            .help(messages::move_to_folder(&entry.relative, &target)),
    );
}
