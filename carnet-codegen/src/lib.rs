//! Compiles a carnet directory (markdown agents, skills and toolsets) into a validated
//! manifest and typed Rust code. Call it from `build.rs`:
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     carnet_codegen::compile("carnet").unwrap_or_else(|e| e.exit())
//! }
//! ```
//!
//! and include the result with `carnet::include_manifest!()`. [`compile`] prints
//! `cargo:rerun-if-changed` for the directory and every file it read, writes
//! `$OUT_DIR/carnet/manifest.rs`, the texts it embeds (`$OUT_DIR/carnet/text/*.txt`) and
//! what the binding macros read (`$OUT_DIR/carnet/bindings.json`, the toolsets), each
//! only when its bytes change, so a build whose content did not change rebuilds nothing
//! (the same content gives the same bytes on any machine), and points `CARNET_MANIFEST`
//! at the JSON for the binding macros. On a content error it prints
//! every diagnostic as a source snippet and fails the build:
//!
//! ```text
//! error[E0006]: agent `researcher` references unknown skill `webSerch`
//!   ┌─ carnet/agents/researcher/AGENT.md:4:17
//!   │
//! 4 │ initialSkills: [webSerch]
//!   │                 ^^^^^^^^ no skill named `webSerch`
//!   │
//!   = help: did you mean `webSearch`?
//! ```
//!
//! The pipeline, one module per stage: `discover` → `frontmatter` → `model` → `validate` →
//! `manifest` (lowering) → `generate` → `output`. Every problem is reported in one run, with a
//! stable [`Code`]; see [`Code::ALL`] for the list, and [`Code::explanation`] (what
//! `carnet explain CODE` prints) for each code's page of the error index: what it means, an
//! erroneous example and the fixed one. [`fields`] lists every field of each content file.
//!
//! # Limits
//!
//! Content is often written by others (Agent Skills from a marketplace, a shared
//! repository), and a build script runs with the builder's rights, so every check is
//! bounded: only regular files are read (a FIFO or a device is an error, `E0030`), and
//! time and memory stay linear in the bytes read. Going over a limit is an error at the
//! place it happened (`E0029`); `limits` in `carnet.config.json`, or [`Config::limits`],
//! raises them:
//!
//! | limit | default | `limits` key in `carnet.config.json` |
//! | --- | --- | --- |
//! | size of one file (content, config, skill file) | 16 MiB | `maxFileSize` |
//! | bytes read in all | 256 MiB | `maxTotalSize` |
//! | files under the carnet directory | 20,000 | `maxFiles` |
//! | nesting depth of a frontmatter's YAML | 64 | `maxYamlDepth` |
//! | values YAML aliases may copy in one frontmatter | 10,000 | `maxYamlAliasExpansion` |
//!
//! ```json
//! { "limits": { "maxFileSize": 67108864, "maxFiles": 100000 } }
//! ```
//!
//! A value copied by an alias counts one per node (scalar, list or mapping) plus one per 64
//! bytes of scalar text. Files larger than 4 MiB get a warning (`W0006`) before the limit.

mod bindings;
mod by_name;
mod diagnostic;
mod discover;
#[doc(hidden)]
pub mod expand;
pub mod explain;
pub mod fields;
mod frontmatter;
mod generate;
mod limits;
mod manifest;
mod messages;
mod model;
mod output;
mod project;
mod read;
mod remote;
mod report;
mod settings;
mod similar;
mod source;
mod typed_id;
mod uris;
mod validate;

use std::io;
use std::path::{Path, PathBuf};

pub use carnet_manifest::Manifest;
pub use diagnostic::{Code, Diagnostic, Location, Related, Severity};
pub use generate::Generated;
pub use limits::Limits;
pub use remote::RemoteProtocol;
pub use report::{Error, RemoteToolset, Report};

use crate::diagnostic::Diagnostics;

/// Compiles the carnet directory `dir` (relative to the crate root in a build script) with
/// the default [`Config`]. The one-liner for `build.rs`.
///
/// # Errors
///
/// As [`Config::compile`].
pub fn compile(dir: impl AsRef<Path>) -> Result<(), Error> {
    Config::new().dir(dir).compile()
}

/// Entry points for the fuzz targets in `fuzz/`: not a public API.
#[doc(hidden)]
pub mod __fuzz {
    use crate::diagnostic::Diagnostics;
    use crate::limits::YamlLimits;
    use crate::source::Sources;

    /// Parses `text` as a `SKILL.md`, an `AGENT.md`, a `TOOLSET.md` and a tool file, the way
    /// a check does, then resolves and renders every diagnostic. Returns how many there were.
    #[must_use]
    pub fn frontmatter(text: &str) -> usize {
        let mut sources = Sources::default();
        let file = sources.add("skills/fuzz/SKILL.md".into(), text.to_owned());
        let mut diags = Diagnostics::default();
        let yaml = YamlLimits::default();
        let _ = crate::model::parse_skill(file, "skills/fuzz", &sources, &yaml, &mut diags);
        let _ = crate::model::parse_agent(file, &sources, &yaml, &mut diags);
        let _ = crate::model::parse_toolset(file, &sources, &yaml, &mut diags);
        let _ = crate::model::parse_tool_file(file, &sources, &yaml, &mut diags);
        let diagnostics = diags.finish(&sources, &[]);
        let rendered = crate::diagnostic::render(&diagnostics, &sources, false);
        assert!(!rendered.contains('\u{1b}'), "control characters are escaped");
        crate::frontmatter::check_simple_reader(text);
        diagnostics.len()
    }

    /// Parses `text` as `carnet.config.json`.
    pub fn config(text: &str) {
        let mut sources = Sources::default();
        let file = sources.add("carnet.config.json".into(), text.to_owned());
        let mut diags = Diagnostics::default();
        let _ = crate::settings::parse(file, &sources, &mut diags);
        let _ = diags.finish(&sources, &[]);
    }

    /// Matches `path` against the glob `pattern`.
    #[must_use]
    pub fn glob(pattern: &str, path: &str) -> bool {
        crate::discover::glob_match(pattern, path)
    }
}

/// Reads the regular file at `path` (links followed) the way carnet reads content: a FIFO,
/// a device or a socket is refused without opening it in a way that could block, and no
/// more than `limit` bytes are read. For programs that read manifests or content at run
/// time (`carnet --manifest FILE` does).
///
/// # Errors
///
/// An [`io::Error`] saying what the file is instead (`InvalidInput`), that it is larger
/// than `limit` (`FileTooLarge`), or why it could not be read.
///
/// # Examples
///
/// ```
/// let err = carnet_codegen::read_file("/dev/zero", 1024).unwrap_err();
/// # #[cfg(unix)]
/// assert_eq!(err.to_string(), "it is a character device, not a regular file");
/// ```
pub fn read_file(path: impl AsRef<Path>, limit: u64) -> io::Result<Vec<u8>> {
    read::bounded(path.as_ref(), limit).map_err(|e| match e {
        read::ReadError::Io(e) => e,
        read::ReadError::NotAFile(_) => io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
        read::ReadError::TooLarge { .. } | read::ReadError::OverTotal { .. } => {
            io::Error::new(io::ErrorKind::FileTooLarge, e.to_string())
        }
    })
}

/// Settings of a compilation, in the style of `prost_build::Config`.
///
/// # Examples
///
/// ```no_run
/// // build.rs
/// fn main() {
///     carnet_codegen::Config::new()
///         .dir("content/carnet")
///         .variables([("PRODUCT", "Acme")])
///         .compile()
///         .unwrap_or_else(|e| e.exit());
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    dir: PathBuf,
    out_dir: Option<PathBuf>,
    crate_dir: Option<PathBuf>,
    variables: Vec<(String, String)>,
    limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dir: PathBuf::from("carnet"),
            out_dir: None,
            crate_dir: None,
            variables: Vec::new(),
            limits: Limits::default(),
        }
    }
}

impl Config {
    /// A configuration reading `carnet/` and writing into `$OUT_DIR/carnet/`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The carnet directory to compile (default `carnet`, relative to the current
    /// directory, which is the crate root in a build script).
    pub fn dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.dir = dir.as_ref().to_path_buf();
        self
    }

    /// Where to write `carnet/manifest.rs`, `carnet/text/` and `carnet/bindings.json`
    /// (default `$OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The crate root that generated `include_bytes!` paths are relative to (default
    /// `$CARGO_MANIFEST_DIR`, else the current directory). Generated code names skill files
    /// as `concat!(env!("CARGO_MANIFEST_DIR"), "/carnet/skills/...")`, so it is the same on
    /// every machine.
    pub fn crate_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.crate_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Default variables written into the manifest, over those of `carnet.config.json`.
    pub fn variables<K, V>(&mut self, variables: impl IntoIterator<Item = (K, V)>) -> &mut Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        self.variables
            .extend(variables.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }

    /// The limits on what a check reads (default [`Limits::default`]); `limits` in
    /// `carnet.config.json` overrides the keys it sets. See [Limits](crate#limits).
    pub fn limits(&mut self, limits: Limits) -> &mut Self {
        self.limits = limits;
        self
    }

    /// Reads and validates the directory. Never fails: the [`Report`] holds every
    /// diagnostic, and the manifest when there is no error.
    #[must_use]
    pub fn check(&self) -> Report {
        let mut diags = Diagnostics::default();
        let mut project = project::load(&self.dir, &self.limits, &mut diags);
        let start = std::time::Instant::now();
        if self.dir.is_dir() {
            validate::validate(&mut project, &mut diags);
        }
        project.timings.push(("validate", start.elapsed()));
        let start = std::time::Instant::now();
        let manifest = (!diags.has_errors()).then(|| manifest::lower(&project, &self.variables));
        project.timings.push(("lower", start.elapsed()));
        let allowed: Vec<Code> = Code::ALL
            .iter()
            .copied()
            .filter(|c| {
                project
                    .settings
                    .allow
                    .iter()
                    .any(|a| a.value == c.as_str() || a.value == c.name())
            })
            .collect();
        let diagnostics = diags.finish(&project.sources, &allowed);
        Report {
            diagnostics,
            manifest,
            project,
        }
    }

    /// The validated manifest.
    ///
    /// # Errors
    ///
    /// [`Error`] with every diagnostic when the content has errors.
    pub fn manifest(&self) -> Result<Manifest, Error> {
        self.check().into_manifest()
    }

    /// What [`compile`](Config::compile) would write to `manifest.rs` and the text files
    /// beside it, without writing anything (for tests and tools).
    ///
    /// # Errors
    ///
    /// [`Error`] with every diagnostic when the content has errors.
    pub fn generate(&self) -> Result<Generated, Error> {
        let report = self.check();
        if report.has_errors() {
            return Err(Error::Content(Box::new(report)));
        }
        Ok(self.generate_from(&report, None))
    }

    fn crate_dir_or_default(&self) -> PathBuf {
        self.crate_dir
            .clone()
            .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
    }

    fn generate_from(&self, report: &Report, previous_search: Option<&[u8]>) -> Generated {
        let manifest = report
            .manifest
            .as_ref()
            .expect("generate_from is called without errors");
        let crate_dir = self.crate_dir_or_default();
        generate::generate(
            &report.project,
            manifest,
            &generate::Options {
                crate_dir: &crate_dir,
                previous_search,
            },
        )
    }

    /// Compiles the directory for a build script: prints `cargo:rerun-if-changed` for the
    /// directory and every file read and `cargo:warning` for each warning, writes
    /// `carnet/manifest.rs`, the texts and search index it embeds (`carnet/text/*.txt`,
    /// `carnet/search.bin`) and the toolsets for the binding macros (`carnet/bindings.json`)
    /// into the output directory, only when their bytes change (a build whose content did
    /// not change rebuilds nothing), and sets `CARNET_MANIFEST` to the JSON's path for the
    /// macros.
    ///
    /// # Errors
    ///
    /// [`Error::Content`] when the content has errors (every diagnostic is in it),
    /// [`Error::OutDir`] when neither [`Config::out_dir`] nor `$OUT_DIR` is set,
    /// [`Error::Io`] when an output file cannot be written.
    pub fn compile(&self) -> Result<(), Error> {
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
            .ok_or(Error::OutDir)?;
        let report = self.check();
        for line in self.directives(&report) {
            println!("{line}");
        }
        if report.has_errors() {
            return Err(Error::Content(Box::new(report)));
        }
        let dir = out_dir.join("carnet");
        let search_path = dir.join("search.bin");
        // The index of the last build, if any: reused when no tool's text changed. Read only
        // as large as an index of the manifest's limits could be (anything else is rebuilt).
        let previous_search = read_file(&search_path, 1 << 30).ok();
        let generated = self.generate_from(&report, previous_search.as_deref());
        let json = report
            .manifest
            .as_ref()
            .map(|m| bindings::bindings_json(m, &report.project, &self.crate_dir_or_default()))
            .unwrap_or_default();
        let rs_path = dir.join("manifest.rs");
        let json_path = dir.join("bindings.json");
        let text_dir = dir.join("text");
        let texts: Vec<(PathBuf, &[u8])> = generated
            .texts
            .iter()
            .enumerate()
            .map(|(i, text)| (text_dir.join(format!("{i}.txt")), text.as_bytes()))
            .collect();
        output::remove_stale(&text_dir, texts.len()).map_err(|source| Error::Io {
            path: text_dir.clone(),
            source,
        })?;
        for (path, bytes) in [
            (&rs_path, generated.code.as_bytes()),
            (&json_path, json.as_bytes()),
            (&search_path, &generated.search[..]),
        ]
        .into_iter()
        .chain(texts.iter().map(|(path, bytes)| (path, *bytes)))
        {
            output::write_if_changed(path, bytes).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        }
        let json_path = std::path::absolute(&json_path).unwrap_or(json_path);
        println!("cargo:rustc-env=CARNET_MANIFEST={}", json_path.display());
        Ok(())
    }
}

impl Config {
    /// The `cargo:` lines a build script prints before writing the output: what to rerun
    /// on and each warning. None when the content has errors: Cargo shows a failed build
    /// script's whole standard output above its errors (a line per file read), and runs a
    /// failed script again whatever changed, so the diagnostics [`Error::exit`] prints are
    /// all the author reads.
    fn directives(&self, report: &Report) -> Vec<String> {
        if report.has_errors() {
            return Vec::new();
        }
        std::iter::once(output::rerun_if_changed(&self.dir))
            .chain(
                report
                    .project
                    .read_files
                    .iter()
                    .map(|path| output::rerun_if_changed(path)),
            )
            .chain(
                report
                    .warnings()
                    .map(|warning| output::cargo_warning(&warning.to_string())),
            )
            .chain(report::explain_hint(report.diagnostics()).map(|hint| output::cargo_warning(&hint)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A skill, valid.
    const SKILL: (&str, &str) = (
        "skills/research/SKILL.md",
        "---\nname: research\ndescription: d\n---\nGo\n",
    );

    /// A carnet directory holding `files`, and a `Config` reading it.
    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            write(dir.path(), path, text);
        }
        let mut config = Config::new();
        config.dir(dir.path());
        (dir, config)
    }

    #[test]
    fn a_build_script_warns_then_names_the_command_explaining_the_codes() {
        let (_dir, config) = project(&[SKILL]);
        let lines = config.directives(&config.check());
        let warnings: Vec<&String> = lines.iter().filter(|l| l.starts_with("cargo:warning=")).collect();
        assert_eq!(warnings.len(), 2, "{lines:?}");
        assert!(warnings[0].contains("W0010"), "{lines:?}");
        assert_eq!(
            warnings[1],
            "cargo:warning=For more information about this warning, try `carnet explain W0010`."
        );
    }

    #[test]
    fn a_failing_build_script_prints_its_diagnostics_only() {
        let agent = (
            "agents/main/AGENT.md",
            "---\nname: main\ndescription: d\nskills: [research]\n---\nHi\n",
        );
        let (dir, config) = project(&[agent, SKILL]);
        let report = config.check();
        let lines = config.directives(&report);
        assert_eq!(lines[0], format!("cargo:rerun-if-changed={}", dir.path().display()));
        assert!(lines.iter().any(|l| l.ends_with("SKILL.md")), "{lines:?}");

        write(
            dir.path(),
            "skills/research/SKILL.md",
            "---\nname: research\ndescription: a: b\n---\n",
        );
        let report = config.check();
        assert!(report.has_errors());
        assert_eq!(config.directives(&report), Vec::<String>::new());
        // What `Error::exit` prints ends with one line naming the content, not a crate, and
        // the command explaining its code.
        let rendered = report.render(false);
        assert!(
            rendered.ends_with(&format!(
                "error: the content in `{}` has 1 error\n\
                 For more information about this error, try `carnet explain E0001`.\n",
                dir.path().display()
            )),
            "{rendered}"
        );
    }
}
