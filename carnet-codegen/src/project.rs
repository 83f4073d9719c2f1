//! A loaded carnet directory: discovery, reading and parsing, before validation.

use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::discover::{self, Discovered, Filter, SkillDir};
use crate::messages;
use crate::model::{self, AgentDef, SkillDef, ToolsetDef};
use crate::settings::{self, Settings};
use crate::source::{FileId, Sources};

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

/// A skill with its folder's files.
#[derive(Debug, Clone)]
pub(crate) struct Skill {
    pub(crate) def: SkillDef,
    pub(crate) folder: SkillDir,
    /// Filled by validation: every file of the folder plus the listed ones, sorted by path.
    pub(crate) files: Vec<ResolvedFile>,
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
struct Prefetched(std::collections::VecDeque<(PathBuf, std::io::Result<Vec<u8>>)>);

impl Prefetched {
    /// Reads `paths` on every core, in order (the order `load` asks for them).
    fn read_all(paths: &[PathBuf]) -> Self {
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
                .map(|chunk| scope.spawn(move || chunk.iter().map(|p| (p.clone(), fs::read(p))).collect::<Vec<_>>()))
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        Prefetched(files)
    }

    /// The bytes of `path`: requests come in the prefetch order, possibly skipping files (a
    /// toolset whose TOOLSET.md fails skips its tool files), so skipped ones are dropped.
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        match self.0.iter().position(|(p, _)| p == path) {
            Some(index) => {
                self.0.drain(..index);
                self.0.pop_front().map_or_else(|| fs::read(path), |(_, bytes)| bytes)
            }
            None => fs::read(path),
        }
    }
}

/// Reads a content file into `sources`; reports it when it cannot be read or is not UTF-8.
fn read_source(
    project: &mut Project,
    prefetched: &mut Prefetched,
    path: &Path,
    relative: &str,
    diags: &mut Diagnostics,
) -> Option<FileId> {
    project.read_files.push(path.to_path_buf());
    let display = project.root.join(relative);
    match prefetched.read(path) {
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
            diags.push(
                Builder::new(Code::UnreadableSource, messages::unreadable_source(relative, &e))
                    .at(crate::source::Span::file_start(id)),
            );
            None
        }
    }
}

/// Discovers and parses the carnet directory at `root`.
pub(crate) fn load(root: &Path, diags: &mut Diagnostics) -> Project {
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
    if config_path.is_file()
        && let Some(id) = read_source(
            &mut project,
            &mut Prefetched::default(),
            &config_path,
            "carnet.config.json",
            diags,
        )
    {
        project.settings = settings::parse(id, &project.sources, diags);
    }
    let filter = Filter {
        include: project.settings.include.clone(),
        exclude: project.settings.exclude.clone(),
    };
    let Discovered {
        agents,
        skills,
        toolsets,
    } = discover::discover(root, &filter);
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
    );

    for entry in agents {
        if let Some(id) = read_source(&mut project, &mut prefetched, &entry.path, &entry.relative, diags)
            && let Some(agent) = model::parse_agent(id, &project.sources, diags)
        {
            project.agents.push(agent);
        }
    }
    for folder in skills {
        if let Some(id) = read_source(
            &mut project,
            &mut prefetched,
            &folder.manifest.path,
            &folder.manifest.relative,
            diags,
        ) && let Some(def) = model::parse_skill(id, &folder.dir, &project.sources, diags)
        {
            project.skills.push(Skill {
                def,
                folder,
                files: Vec::new(),
            });
        }
    }
    for dir in toolsets {
        let Some(id) = read_source(
            &mut project,
            &mut prefetched,
            &dir.manifest.path,
            &dir.manifest.relative,
            diags,
        ) else {
            continue;
        };
        let Some(mut toolset) = model::parse_toolset(id, &project.sources, diags) else {
            continue;
        };
        for entry in &dir.tool_files {
            let Some(file) = read_source(&mut project, &mut prefetched, &entry.path, &entry.relative, diags) else {
                continue;
            };
            let Some(tool) = model::parse_tool_file(file, &project.sources, diags) else {
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
    project
}
