//! A loaded carnet directory: discovery, reading and parsing, before validation.

use std::fs;
use std::path::{Path, PathBuf};

use crate::Limits;
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::discover::{self, Discovered, Filter, SkillDir};
use crate::messages;
use crate::model::{self, AgentDef, SkillDef, ToolsetDef};
use crate::read::{Budget, ReadError};
use crate::settings::{self, Settings};
use crate::source::{FileId, Sources, Span};

mod broken;
mod pin;
mod skill_files;

pub(crate) use broken::Broken;
use pin::read_pin;
use skill_files::read_skill_files;
pub(crate) use skill_files::{ListedPath, normalise};

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

/// Everything read from a carnet directory.
#[derive(Debug)]
pub(crate) struct Project {
    pub(crate) root: PathBuf,
    pub(crate) sources: Sources,
    pub(crate) settings: Settings,
    pub(crate) agents: Vec<AgentDef>,
    pub(crate) skills: Vec<Skill>,
    pub(crate) toolsets: Vec<ToolsetDef>,
    /// The skill and toolset files that gave no entity (nothing in the content references
    /// an agent).
    pub(crate) broken_skills: Vec<Broken>,
    pub(crate) broken_toolsets: Vec<Broken>,
    /// How many agent files gave no agent: the skills they listed are not known, nor
    /// whether the content has an agent.
    pub(crate) broken_agents: usize,
    /// Every file read, for `cargo:rerun-if-changed`.
    pub(crate) read_files: Vec<PathBuf>,
    /// How long each stage took (`Report::timings`).
    pub(crate) timings: Vec<(&'static str, std::time::Duration)>,
}

/// Reads a content file into `sources`; reports it when it cannot be read or is not UTF-8.
fn read_source(
    project: &mut Project,
    budget: &Budget,
    path: &Path,
    relative: &str,
    diags: &mut Diagnostics,
) -> Option<FileId> {
    project.read_files.push(path.to_path_buf());
    let display = project.root.join(relative);
    match budget.read(path) {
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

/// What a content file is, for reading and parsing them all at once.
#[derive(Clone, Copy)]
enum Job {
    Agent,
    /// The skill folder's index.
    Skill(usize),
    Toolset,
    /// A tool file of the toolset before it.
    Tool,
}

enum Parsed {
    Agent(AgentDef),
    Skill(SkillDef),
    Toolset(ToolsetDef),
    Tool(model::ToolFile),
}

/// `f` over `items` on every core (up to 8 threads), results in order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(8);
    if threads < 2 || items.len() < 64 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// Gives a tool file's description and documentation to the declarations of its name in
/// the toolset, or reports a file no declaration names.
fn attach_tool_file(toolset: &mut ToolsetDef, tool: &model::ToolFile, diags: &mut Diagnostics) {
    // A name declared twice (reported as E0009) gets the description at both sites.
    let mut declarations = toolset
        .tools
        .iter_mut()
        .filter(|d| d.name.value == tool.name.value)
        .peekable();
    if declarations.peek().is_some() {
        for decl in declarations {
            // A remote tool's description comes from its pin; a tool file beside TOOLSET.md
            // rewrites it (as a `- {name, description}` entry does).
            if decl.description.is_none() || (decl.remote.is_some() && !decl.description_written) {
                decl.description = Some(tool.description.clone());
            }
            decl.content.clone_from(&tool.content);
        }
        return;
    }
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
            crate::diagnostic::did_you_mean(&tool.name.value, declared.iter().copied()).map(messages::did_you_mean),
        )
        .help(messages::add_tool_or_delete_file(&tool.name.value)),
    );
}

fn parent_folder(relative: &str) -> &str {
    relative.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// Reports the tools a toolset declares by name only, with no file to describe them.
fn report_undescribed_tools(toolset: &ToolsetDef, dir: &discover::ToolsetDir, diags: &mut Diagnostics) {
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
        broken_skills: Vec::new(),
        broken_toolsets: Vec::new(),
        broken_agents: 0,
        read_files: Vec::new(),
        timings: Vec::new(),
    };
    let mut clock = std::time::Instant::now();
    let mut lap = |project: &mut Project, stage: &'static str| {
        let now = std::time::Instant::now();
        project.timings.push((stage, now - clock));
        clock = now;
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
            &config_path,
            "carnet.config.json",
            diags,
        )
    {
        project.settings = settings::parse(id, &project.sources, diags);
    }
    let limits = project.settings.limits.map_or(*limits, |set| limits.with(&set));
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
    lap(&mut project, "discover");
    report_discovery(&project, &problems, truncated, &unmatched, limits.max_files, diags);
    // Every content file is read and parsed on every core (at a thousand skills, reading
    // and YAML are most of the time), then assembled in order on this thread.
    let mut jobs: Vec<(Job, discover::Entry)> = agents.into_iter().map(|e| (Job::Agent, e)).collect();
    jobs.extend(
        skills
            .iter()
            .enumerate()
            .map(|(i, s)| (Job::Skill(i), s.manifest.clone())),
    );
    for t in &toolsets {
        jobs.push((Job::Toolset, t.manifest.clone()));
        jobs.extend(t.tool_files.iter().map(|e| (Job::Tool, e.clone())));
    }
    let read = parallel(&jobs, |(_, entry)| {
        budget
            .read_listed(&entry.path, entry.regular && !entry.symlink)
            .map(String::from_utf8)
    });
    // A tool file's problem is reported only when its toolset parses (below).
    let mut ids: Vec<Option<FileId>> = Vec::with_capacity(jobs.len());
    let mut files: Vec<FileId> = Vec::with_capacity(jobs.len());
    let mut tool_problems: Vec<Option<Builder>> = Vec::with_capacity(jobs.len());
    for ((job, entry), read) in jobs.iter().zip(read) {
        project.read_files.push(entry.path.clone());
        let display = project.root.join(&entry.relative);
        let problem = match read {
            Ok(Ok(text)) => {
                let id = project.sources.add(display, text);
                ids.push(Some(id));
                files.push(id);
                tool_problems.push(None);
                continue;
            }
            Ok(Err(e)) => {
                let id = project.sources.add(display, String::new());
                files.push(id);
                Builder::new(Code::UnreadableSource, messages::not_utf8(&entry.relative))
                    .at(Span::file_start(id))
                    .note(messages::invalid_byte_at(e.utf8_error().valid_up_to()))
            }
            Err(e) => {
                let id = project.sources.add(display, String::new());
                files.push(id);
                read_error(&e, &entry.relative, Span::file_start(id))
            }
        };
        ids.push(None);
        if matches!(job, Job::Tool) {
            tool_problems.push(Some(problem));
        } else {
            diags.push(problem);
            tool_problems.push(None);
        }
    }
    lap(&mut project, "read");
    let yaml = limits.yaml();
    let sources = &project.sources;
    let mut parsed = parallel(&jobs.iter().zip(&ids).collect::<Vec<_>>(), |((job, _), id)| {
        let mut local = Diagnostics::default();
        let parsed = id.and_then(|id| match job {
            Job::Agent => model::parse_agent(id, sources, &yaml, &mut local).map(Parsed::Agent),
            Job::Skill(i) => model::parse_skill(id, &skills[*i].dir, sources, &yaml, &mut local).map(Parsed::Skill),
            Job::Toolset => model::parse_toolset(id, sources, &yaml, &mut local).map(Parsed::Toolset),
            Job::Tool => model::parse_tool_file(id, sources, &yaml, &mut local).map(Parsed::Tool),
        });
        (parsed, local)
    })
    .into_iter();
    drop(ids);

    let mut skill_folders = skills.into_iter();
    let mut toolset_dirs = toolsets.iter();
    let mut current: Option<(ToolsetDef, &discover::ToolsetDir)> = None;
    let finish_toolset =
        |current: Option<(ToolsetDef, &discover::ToolsetDir)>, project: &mut Project, diags: &mut Diagnostics| {
            if let Some((toolset, dir)) = current {
                report_undescribed_tools(&toolset, dir, diags);
                project.toolsets.push(toolset);
            }
        };
    for (index, (job, entry)) in jobs.iter().enumerate() {
        let (result, local) = parsed.next().expect("one result per job");
        let broken = |sources: &Sources| Broken::new(&entry.relative, files[index], &sources.get(files[index]).text);
        match job {
            Job::Agent => {
                diags.append(local);
                match result {
                    Some(Parsed::Agent(agent)) => project.agents.push(agent),
                    _ => {
                        project.broken_agents += 1;
                        diags.mark_cause(files[index]);
                    }
                }
            }
            Job::Skill(_) => {
                diags.append(local);
                let folder = skill_folders.next().expect("one folder per skill");
                match result {
                    Some(Parsed::Skill(def)) => project.skills.push(Skill {
                        def,
                        folder,
                        folder_files: Vec::new(),
                        listed_files: Vec::new(),
                        files: Vec::new(),
                    }),
                    _ => {
                        project.broken_skills.extend(broken(&project.sources));
                        diags.mark_cause(files[index]);
                    }
                }
            }
            Job::Toolset => {
                diags.append(local);
                finish_toolset(current.take(), &mut project, diags);
                let dir = toolset_dirs.next().expect("one folder per toolset");
                match result {
                    Some(Parsed::Toolset(mut toolset)) => {
                        if toolset.mcp.is_some() {
                            read_pin(&mut project, &budget, &mut toolset, dir, diags);
                        }
                        current = Some((toolset, dir));
                    }
                    _ => {
                        project.broken_toolsets.extend(broken(&project.sources));
                        diags.mark_cause(files[index]);
                    }
                }
            }
            Job::Tool => match &mut current {
                // Its toolset did not parse: the tool file is left alone, as before.
                None => local.discard(),
                Some((toolset, _)) => {
                    diags.append(local);
                    if let Some(problem) = tool_problems[index].take() {
                        diags.push(problem);
                    }
                    if let Some(Parsed::Tool(tool)) = result {
                        attach_tool_file(toolset, &tool, diags);
                    }
                }
            },
        }
    }
    finish_toolset(current.take(), &mut project, diags);
    lap(&mut project, "parse");
    for entry in loose_skill_files {
        check_single_file_skill(&mut project, &budget, &entry, &yaml, diags);
    }
    for skill in &mut project.skills {
        read_skill_files(&project.root, skill, &mut project.read_files, &budget);
    }
    lap(&mut project, "skill files");
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
