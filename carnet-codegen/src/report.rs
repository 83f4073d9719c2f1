//! What a compilation gives back: the report of every diagnostic, the remote toolsets, and
//! why a compilation failed.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use carnet_manifest::Manifest;

use crate::diagnostic::{self, Diagnostic};
use crate::project::Project;
use crate::remote;

/// A toolset whose tools an MCP server serves (an `mcp:` block in its `TOOLSET.md`), or an
/// A2A agent (an `a2a:` block).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RemoteToolset {
    /// The toolset's name.
    pub name: String,
    /// Where its pin is (`mcp.lock.json` beside its `TOOLSET.md`).
    pub pin_path: PathBuf,
    /// Its server: `{"command", "args"?, "env"?}` or `{"url", "headers"?}`, with `${VAR}`
    /// references as written.
    pub server: serde_json::Value,
    /// MCP (`mcp:`) or A2A (`a2a:`).
    pub protocol: remote::RemoteProtocol,
}

/// The outcome of checking a carnet directory: every diagnostic, and the manifest when
/// there is no error.
pub struct Report {
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) manifest: Option<Manifest>,
    pub(crate) project: Project,
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Report")
            .field("diagnostics", &self.diagnostics)
            .field("manifest", &self.manifest.as_ref().map(|_| ".."))
            .finish_non_exhaustive()
    }
}

impl Report {
    /// Every diagnostic, sorted by file and position.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// How long each stage of the check took, in order: `discover` (listing the folders),
    /// `read` (the content files, on every core), `parse` (frontmatter and bodies, on every
    /// core), `skill files`, `validate`, `lower` (the manifest and its fingerprint). What
    /// `carnet build --timings` prints.
    #[must_use]
    pub fn timings(&self) -> &[(&'static str, std::time::Duration)] {
        &self.project.timings
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }

    /// Whether any diagnostic is an error.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// The manifest, when there is no error.
    #[must_use]
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// The manifest, or every diagnostic as an [`Error`].
    ///
    /// # Errors
    ///
    /// [`Error::Content`] when the content has errors.
    pub fn into_manifest(mut self) -> Result<Manifest, Error> {
        match self.manifest.take() {
            Some(manifest) if !self.has_errors() => Ok(manifest),
            _ => Err(Error::Content(Box::new(self))),
        }
    }

    /// Every diagnostic rendered as a source snippet, like rustc, then a summary line.
    #[must_use]
    pub fn render(&self, color: bool) -> String {
        self.render_some(&self.diagnostics, color)
    }

    /// The errors only, rendered as [`Report::render`] does (`carnet check -q`).
    #[must_use]
    pub fn render_errors(&self, color: bool) -> String {
        let errors: Vec<Diagnostic> = self.errors().cloned().collect();
        self.render_some(&errors, color)
    }

    fn render_some(&self, diagnostics: &[Diagnostic], color: bool) -> String {
        let mut out = diagnostic::render(diagnostics, &self.project.sources, color);
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = diagnostics.len() - errors;
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        if errors > 0 {
            out.push_str(&format!(
                "error: the content in `{}` has {}{}\n",
                self.project.root.display(),
                plural(errors, "error"),
                if warnings > 0 {
                    format!(" and {}", plural(warnings, "warning"))
                } else {
                    String::new()
                }
            ));
        } else if warnings > 0 {
            out.push_str(&format!(
                "warning: the content in `{}` has {}\n",
                self.project.root.display(),
                plural(warnings, "warning")
            ));
        }
        if let Some(hint) = explain_hint(diagnostics) {
            out.push_str(&hint);
            out.push('\n');
        }
        out
    }

    /// The remote toolsets of the directory (`mcp:` in their `TOOLSET.md`), also when the
    /// content has errors (a missing pin is one): what `carnet mcp pin` starts and pins.
    #[must_use]
    pub fn remote_toolsets(&self) -> Vec<RemoteToolset> {
        self.project
            .toolsets
            .iter()
            .filter_map(|t| {
                let mcp = t.mcp.as_ref()?;
                let file = &self.project.sources.get(t.name.span.file).display;
                let folder = file.parent().map(Path::to_path_buf).unwrap_or_default();
                Some(RemoteToolset {
                    name: t.name.value.clone(),
                    pin_path: folder.join(mcp.protocol.pin_file()),
                    server: mcp.server.clone(),
                    protocol: mcp.protocol,
                })
            })
            .collect()
    }

    /// The files the check read (content, config and skill files).
    #[must_use]
    pub fn files_read(&self) -> &[PathBuf] {
        &self.project.read_files
    }

    /// Where `carnet build` writes the manifest by default: `output` of
    /// `carnet.config.json`, relative to the folder holding the carnet directory, joined
    /// with `carnet.manifest.json`; else `carnet.manifest.json` inside the carnet directory.
    #[must_use]
    pub fn default_output(&self) -> PathBuf {
        match &self.project.settings.output {
            Some(output) => {
                let base = self.project.root.parent().unwrap_or(Path::new(""));
                base.join(output).join("carnet.manifest.json")
            }
            None => self.project.root.join("carnet.manifest.json"),
        }
    }
}

/// The line that ends a report, as rustc's does: the codes seen, sorted, and the command
/// that explains the first (`For more information about E0001 and E0006, try `carnet
/// explain E0001`.`). `None` without diagnostics.
pub(crate) fn explain_hint(diagnostics: &[Diagnostic]) -> Option<String> {
    let mut codes: Vec<&str> = diagnostics.iter().map(|d| d.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let subject = match codes.as_slice() {
        [] => return None,
        // One code, one severity.
        [_] if diagnostics[0].is_error() => "this error".to_owned(),
        [_] => "this warning".to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    Some(format!(
        "For more information about {subject}, try `carnet explain {}`.",
        codes[0]
    ))
}

/// Why a compilation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The content has errors; the report holds every diagnostic.
    Content(Box<Report>),
    /// Neither [`Config::out_dir`](crate::Config::out_dir) nor `$OUT_DIR` is set (not running
    /// in a build script).
    OutDir,
    /// An output file could not be written.
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl Error {
    /// The content diagnostics (empty for other errors).
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Content(report) => report.diagnostics(),
            _ => &[],
        }
    }

    /// Prints the error (every diagnostic as a snippet) to stderr and exits with status 1:
    /// the end of a build script.
    pub fn exit(&self) -> ! {
        match self {
            Error::Content(report) => eprint!("{}", report.render(false)),
            other => eprintln!("error: {other}"),
        }
        std::process::exit(1)
    }
}

impl fmt::Display for Error {
    /// The first error as `file:line:col: error[CODE]: message`, then how many more.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Content(report) => {
                let mut errors = report.errors();
                match errors.next() {
                    Some(first) => {
                        write!(f, "{first}")?;
                        let more = errors.count();
                        if more > 0 {
                            write!(f, " (and {more} more error{})", if more == 1 { "" } else { "s" })?;
                        }
                        Ok(())
                    }
                    None => f.write_str("the content has errors"),
                }
            }
            Error::OutDir => {
                f.write_str("`OUT_DIR` is not set: call `compile` from a build script, or set `Config::out_dir`")
            }
            Error::Io { path, source } => write!(f, "cannot write `{}`: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
