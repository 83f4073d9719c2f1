//! Generation: the Rust module `carnet::include_manifest!()` includes.
//!
//! The module holds `MANIFEST`, the whole manifest as `'static` data, and typed ids
//! (`agents::RESEARCHER`, `skills::DATA_ANALYSIS`, `toolsets::SEARCH_TOOLS`,
//! `tools::BASIC_SEARCH`). Its size follows the declarations, not the content: the bodies,
//! prompts and descriptions go into text files beside it (`text/0.txt`, ...), embedded
//! with `include_str!` and taken out by offset (`text(TEXT0, 120, 4031)`); short texts
//! are literals; skill files are embedded from where they are (`include_bytes!`).
//!
//! Written as text, line by line, not through a syntax tree and a formatter (which took
//! seconds at a thousand skills at the build-script opt-level); one item or argument a
//! line, since rustc is slow on one huge line. The lists inside the tables are named
//! `const` items, never inline `const { .. }` blocks, whose cost in rustc grows with the
//! square of their number in one item. Paths go through `rt::` (the `use $crate::__private
//! as rt;` that `include_manifest!` writes before including the file, so a renamed
//! `carnet` works) and `::core::` macros, so nothing in the including crate changes their
//! meaning.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use carnet_manifest::search::SearchIndex;
use carnet_manifest::{Manifest, Text};

use crate::project::Project;

mod ids;

use ids::{ids, toolsets_struct};

/// Texts shorter than this are written as literals: a reference would not be shorter.
const SHORT: usize = 64;

/// `to` relative to `from`, with `..` where needed; `None` when they share no root.
pub(crate) fn relative_path(from: &Path, to: &Path) -> Option<String> {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    if from.first() != to.first() {
        return None;
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), from.len() - common).collect();
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(parts.join("/"))
}

/// Options of generation.
pub(crate) struct Options<'a> {
    /// The crate directory (`CARGO_MANIFEST_DIR`) that embedded paths are relative to.
    pub(crate) crate_dir: &'a Path,
    /// The search index the previous build wrote, reused when the tools' text is unchanged.
    pub(crate) previous_search: Option<&'a [u8]>,
}

/// A Rust string literal of `s`: only `"`, `\` and control characters are escaped (a bare
/// carriage return is not allowed in a literal), so the text stays readable.
fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut run = 0;
    for (i, c) in s.char_indices() {
        let escaped = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if c.is_control() => "",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        if escaped.is_empty() {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push_str(escaped);
        }
        run = i + c.len_utf8();
    }
    out.push_str(&s[run..]);
    out.push('"');
    out
}

fn opt_literal(s: Option<&str>) -> String {
    s.map_or_else(|| "None".to_owned(), |s| format!("Some({})", literal(s)))
}

/// `&'static [Cow<str>]` in a `const` block (a temporary passed to a function is not
/// extended to `'static`; an empty array needs no drop, so it is promoted as it is). For the
/// few lists of the manifest itself: the tables' lists are named items ([`Lists`]).
fn names(items: &[Text]) -> String {
    if items.is_empty() {
        return "&[]".to_owned();
    }
    format!("const {{ &[{}] }}", name_items(items).join(", "))
}

fn name_items(items: &[Text]) -> Vec<String> {
    items
        .iter()
        .map(|s| format!("rt::Cow::Borrowed({})", literal(s)))
        .collect()
}

/// The lists inside the tables (a skill's toolsets, a toolset's tools), each a named
/// `const` after the table: rustc takes time quadratic in their number when they are
/// inline `const { .. }` blocks of one table (measured: 1.8 s for 1,000).
#[derive(Default)]
struct Lists(String);

impl Lists {
    /// The expression for a list: `&[]`, or the name of a new `const NAME: &[ty]`.
    fn add(&mut self, name: String, ty: &str, items: &[String]) -> String {
        if items.is_empty() {
            return "&[]".to_owned();
        }
        let _ = writeln!(self.0, "const {name}: &[{ty}] = &[");
        for item in items {
            let _ = writeln!(self.0, "    {item},");
        }
        self.0.push_str("];\n");
        name
    }

    /// Appends the lists and starts a new batch.
    fn flush(&mut self, out: &mut String) {
        if !self.0.is_empty() {
            out.push('\n');
            out.push_str(&std::mem::take(&mut self.0));
        }
    }
}

/// A table: `const NAME: &[ty] = &[P0, P1, ...];`, its entries each a `const` of their own
/// (written after it), so that editing one entry changes one item for rustc.
fn table(out: &mut String, name: &str, ty: &str, prefix: &str, len: usize) {
    let _ = writeln!(out, "\nconst {name}: &[{ty}] = &[");
    for i in 0..len {
        let _ = writeln!(out, "    {prefix}{i},");
    }
    out.push_str("];\n");
}

/// The path expression `include_str!`/`include_bytes!` takes for `path`: relative to the
/// crate when they share a root, so the code does not depend on where the crate sits.
fn include_path(crate_dir: &Path, path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match relative_path(crate_dir, &absolute) {
        Some(rel) => format!(
            "::core::concat!(::core::env!(\"CARGO_MANIFEST_DIR\"), {})",
            literal(&format!("/{rel}"))
        ),
        None => literal(&absolute.to_string_lossy()),
    }
}

/// The tables' texts, in files of a few KiB (`text/0.txt`, ...).
///
/// Not one file: rustc hashes a `&str` constant's whole data each time a constant function
/// takes it, so taking ten thousand texts out of one 9 MB file took 40 s (measured); out
/// of files of tens of KiB it is noise. Where a file ends depends on the entries' names,
/// not on the sizes before it, so editing one skill changes one file and the offsets into
/// it, not every file after it (and rustc redoes little on the rebuild).
#[derive(Default)]
struct Content {
    chunks: Vec<String>,
}

/// A text file is closed before an entry whose name's hash is a multiple of this, so it
/// holds the texts of this many entries on average.
const ENTRIES_PER_CHUNK: u64 = 4;

/// A text file grows past this only by a single text larger than it.
const MAX_CHUNK: usize = 64 * 1024;

impl Content {
    /// Starts the texts of the entry `name` (an agent, skill or toolset), in a new file
    /// when `name` says so or the current one is full.
    fn entry(&mut self, kind: &str, name: &str) {
        let hash = fnv1a(kind.bytes().chain([0]).chain(name.bytes()));
        if self
            .chunks
            .last()
            .is_some_and(|last| !last.is_empty() && (hash.is_multiple_of(ENTRIES_PER_CHUNK) || last.len() >= MAX_CHUNK))
        {
            self.chunks.push(String::new());
        }
    }

    /// `text` as an expression: a literal when short, else its place in a text file.
    fn text(&mut self, text: &str) -> String {
        if text.len() < SHORT {
            return literal(text);
        }
        if self
            .chunks
            .last()
            .is_none_or(|last| !last.is_empty() && last.len() + text.len() > MAX_CHUNK)
        {
            self.chunks.push(String::new());
        }
        let chunk = self.chunks.len() - 1;
        let last = &mut self.chunks[chunk];
        let start = last.len();
        last.push_str(text);
        format!("text(TEXT{chunk}, {start}, {})", start + text.len())
    }
}

/// 64-bit FNV-1a: stable across Rust versions and platforms, unlike `DefaultHasher`.
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What generation writes: the module (`manifest.rs`) and the files it embeds, relative to
/// it: the texts (`text/0.txt`, `text/1.txt`, ..., read with `include_str!`) and the search
/// index (`search.bin`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The Rust module.
    pub code: String,
    /// The text files, in order: `text/{index}.txt`.
    pub texts: Vec<String>,
    /// The search index over the tools (`search.bin`, embedded with `include_bytes!`):
    /// [`carnet_manifest::search::SearchIndex`]'s bytes.
    pub search: Vec<u8>,
}

/// The generated module.
pub(crate) fn generate(project: &Project, manifest: &Manifest, options: &Options<'_>) -> Generated {
    let crate_dir = std::path::absolute(options.crate_dir).unwrap_or_else(|_| options.crate_dir.to_path_buf());
    let mut content = Content::default();
    let mut out = String::with_capacity(1 << 16);
    let _ = writeln!(
        out,
        "// @generated by carnet-codegen {} from the carnet directory. Do not edit.\n",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        out,
        "/// The manifest of the carnet directory: {} agents, {} skills, {} toolsets, {} tools.",
        manifest.agents.len(),
        manifest.skills.len(),
        manifest.toolsets.len(),
        manifest.toolsets.iter().map(|t| t.tools.len()).sum::<usize>(),
    );
    out.push_str(
        "pub static MANIFEST: rt::CompiledManifest<Toolsets> = rt::CompiledManifest::__new(rt::Manifest::__new(\n",
    );
    let _ = writeln!(out, "    {},", manifest.version);
    let _ = writeln!(
        out,
        "    rt::App::__new({}, {}),",
        names(&manifest.app.global_initial_skills),
        names(&manifest.app.global_skills)
    );
    out.push_str("    AGENTS,\n    SKILLS,\n    TOOLSETS,\n");
    if manifest.variables.is_empty() {
        out.push_str("    &[],\n");
    } else {
        out.push_str("    const {\n        &[\n");
        for (k, v) in &*manifest.variables {
            let _ = writeln!(
                out,
                "            (rt::Cow::Borrowed({}), rt::Cow::Borrowed({})),",
                literal(k),
                literal(v)
            );
        }
        out.push_str("        ]\n    },\n");
    }
    let _ = writeln!(out, "    {},", names(&manifest.env_prefixes));
    let _ = writeln!(out, "    0x{:016x},", manifest.fingerprint);
    // The search index over the tools, built now: the engine starts with it ready.
    out.push_str("), ::core::include_bytes!(\"search.bin\"));\n");

    let mut lists = Lists::default();
    table(&mut out, "AGENTS", "rt::Agent", "A", manifest.agents.len());
    for (i, a) in manifest.agents.iter().enumerate() {
        content.entry("agent", &a.name);
        let _ = writeln!(out, "\nconst A{i}: rt::Agent = rt::Agent::__new(");
        let _ = writeln!(out, "    {},", literal(&a.name));
        let _ = writeln!(out, "    {},", content.text(&a.description));
        let initial = lists.add(
            format!("A{i}_INITIAL_SKILLS"),
            "rt::Cow<'static, str>",
            &name_items(&a.initial_skills),
        );
        let skills = lists.add(format!("A{i}_SKILLS"), "rt::Cow<'static, str>", &name_items(&a.skills));
        let _ = writeln!(out, "    {initial},\n    {skills},");
        let _ = writeln!(out, "    {},", content.text(&a.prompt));
        let _ = writeln!(out, "    {},", literal(&a.extra));
        out.push_str(");\n");
        lists.flush(&mut out);
    }

    let sources: HashMap<(&str, &str), &PathBuf> = project
        .skills
        .iter()
        .flat_map(|s| {
            s.files
                .iter()
                .map(move |f| ((s.def.name.as_str(), f.path.as_str()), &f.source))
        })
        .collect();
    table(&mut out, "SKILLS", "rt::Skill", "S", manifest.skills.len());
    for (i, s) in manifest.skills.iter().enumerate() {
        content.entry("skill", &s.name);
        // A skill an MCP server serves has no files or content here: read on load, its
        // digest checked.
        let constructor = if s.remote.is_some() { "__remote" } else { "__new" };
        let _ = writeln!(out, "\nconst S{i}: rt::Skill = rt::Skill::{constructor}(");
        let _ = writeln!(out, "    {},", literal(&s.name));
        let _ = writeln!(out, "    {},", content.text(&s.description));
        let toolsets = lists.add(
            format!("S{i}_TOOLSETS"),
            "rt::Cow<'static, str>",
            &name_items(&s.toolsets),
        );
        if let Some(remote) = &s.remote {
            let _ = writeln!(out, "    {toolsets},\n    {},", content.text(remote));
            out.push_str(");\n");
            lists.flush(&mut out);
            continue;
        }
        let files: Vec<String> = s
            .files
            .iter()
            .map(|f| {
                let source = sources
                    .get(&(&*s.name, &*f.path))
                    .expect("every skill file has a source");
                format!(
                    "rt::SkillFile::__new(\n        {},\n        {},\n        {},\n        {},\n        ::core::include_bytes!({}),\n        {},\n    )",
                    literal(&f.path),
                    opt_literal(f.description.as_deref()),
                    literal(&f.media_type),
                    f.is_text,
                    include_path(&crate_dir, source),
                    opt_literal(f.digest.as_deref()),
                )
            })
            .collect();
        let files = lists.add(format!("S{i}_FILES"), "rt::SkillFile", &files);
        let allowed = lists.add(
            format!("S{i}_ALLOWED_TOOLS"),
            "rt::Cow<'static, str>",
            &name_items(&s.allowed_tools),
        );
        let _ = writeln!(out, "    {toolsets},\n    {files},");
        let _ = writeln!(out, "    {},", content.text(&s.content));
        let _ = writeln!(out, "    {},", opt_literal(s.license.as_deref()));
        let _ = writeln!(out, "    {},", opt_literal(s.compatibility.as_deref()));
        let _ = writeln!(out, "    {allowed},");
        let _ = writeln!(out, "    {},", literal(&s.metadata));
        let _ = writeln!(out, "    {},", literal(&s.extra));
        out.push_str(");\n");
        lists.flush(&mut out);
    }

    let tools = manifest.toolsets.iter().flat_map(|t| t.tools.iter());
    if tools.clone().any(|t| t.remote.is_none()) {
        out.push_str("\nuse rt::__tool as tool;\n");
    }
    if tools.clone().any(|t| t.remote.is_some()) {
        out.push_str("use rt::__remote_tool as remote_tool;\n");
    }
    table(&mut out, "TOOLSETS", "rt::Toolset", "T", manifest.toolsets.len());
    for (i, t) in manifest.toolsets.iter().enumerate() {
        content.entry("toolset", &t.name);
        let constructor = if t.mcp.is_some() { "__remote" } else { "__new" };
        let _ = writeln!(out, "\nconst T{i}: rt::Toolset = rt::Toolset::{constructor}(");
        let _ = writeln!(out, "    {},", literal(&t.name));
        let _ = writeln!(out, "    {},", content.text(&t.description));
        let tools: Vec<String> = t
            .tools
            .iter()
            .map(|tool| match &tool.remote {
                _ if tool.title.is_some() || !tool.annotations.is_empty() => {
                    let a = tool.annotations;
                    let hints: Vec<String> = [a.read_only, a.destructive, a.idempotent, a.open_world]
                        .iter()
                        .map(|h| match h {
                            Some(b) => format!("Some({b})"),
                            None => "None".to_owned(),
                        })
                        .collect();
                    format!(
                        "rt::__annotated_tool({}, {}, {}, {}, {}, [{}])",
                        literal(&tool.name),
                        content.text(&tool.description),
                        content.text(&tool.content),
                        tool.remote
                            .as_deref()
                            .map_or_else(|| "None".to_owned(), |r| format!("Some({})", content.text(r))),
                        opt_literal(tool.title.as_deref()),
                        hints.join(", ")
                    )
                }
                None => format!(
                    "tool({}, {}, {})",
                    literal(&tool.name),
                    content.text(&tool.description),
                    content.text(&tool.content),
                ),
                Some(remote) => format!(
                    "remote_tool({}, {}, {}, {})",
                    literal(&tool.name),
                    content.text(&tool.description),
                    content.text(&tool.content),
                    content.text(remote),
                ),
            })
            .collect();
        let tools = lists.add(format!("T{i}_TOOLS"), "rt::Tool", &tools);
        let _ = writeln!(out, "    {tools},");
        let _ = writeln!(out, "    {},", content.text(&t.content));
        if let Some(mcp) = &t.mcp {
            let _ = writeln!(out, "    {},", content.text(mcp));
        }
        out.push_str(");\n");
        lists.flush(&mut out);
    }

    ids(&mut out, manifest);
    toolsets_struct(&mut out, manifest);
    if !content.chunks.is_empty() {
        out.push_str(
            "\n// The tables' texts, each once (`text` takes one out by offset).\nuse rt::__text as text;\n\n",
        );
        for i in 0..content.chunks.len() {
            let _ = writeln!(out, "const TEXT{i}: &str = ::core::include_str!(\"text/{i}.txt\");");
        }
    }
    Generated {
        code: out,
        texts: content.chunks,
        search: SearchIndex::build_reusing(manifest, options.previous_search)
            .as_bytes()
            .to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_path(Path::new("/a/b"), Path::new("/a/b/c/d.md")).unwrap(),
            "c/d.md"
        );
        assert_eq!(
            relative_path(Path::new("/a/b"), Path::new("/a/x/d.md")).unwrap(),
            "../x/d.md"
        );
    }

    #[test]
    fn literals_escape_only_what_rust_requires() {
        assert_eq!(literal("a \"b\" \\ é\n\r\t\u{1b}"), r#""a \"b\" \\ é\n\r\t\u{1b}""#);
        for s in ["", "plain", "\u{7f}\u{0}", "multi\nline </x> & 'q'"] {
            let parsed: syn::LitStr = syn::parse_str(&literal(s)).unwrap();
            assert_eq!(parsed.value(), s);
        }
    }
}
