//! The name the crate being compiled gives `carnet`: the generated code names the crate by
//! it, so `my_carnet = { package = "carnet", ... }` works. Read from the crate's
//! `Cargo.toml` (and, for `{ workspace = true }`, the workspace's), without a TOML crate:
//! only dependency tables are looked at, and only for `package = "carnet"`.

use std::path::{Path, PathBuf};

use proc_macro2::{Ident, Spacing, TokenStream, TokenTree};

/// The package whose renames are looked for.
const PACKAGE: &str = "carnet";

/// The identifier the crate being compiled uses for `carnet`, when it renames it; read
/// once per crate (a proc-macro server may expand several crates in one process).
pub(crate) fn renamed() -> Option<String> {
    type Cache = Option<(std::ffi::OsString, Option<String>)>;
    static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(None);
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let mut cache = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((cached, renamed)) = &*cache
        && *cached == dir
    {
        return renamed.clone();
    }
    let renamed = read(&dir);
    *cache = Some((dir, renamed.clone()));
    renamed
}

/// [`renamed`], read from the `Cargo.toml` in `dir`.
fn read(dir: &std::ffi::OsStr) -> Option<String> {
    let manifest = Path::new(dir).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).ok()?;
    let found = scan(&text);
    if let Some(key) = found.renamed {
        return Some(key.replace('-', "_"));
    }
    // `my_carnet = { workspace = true }`: the rename is in the workspace's table.
    if found.inherited.is_empty() {
        return None;
    }
    let root = workspace_root(manifest.parent()?)?;
    let workspace = scan(&std::fs::read_to_string(root).ok()?);
    workspace
        .workspace_renames
        .into_iter()
        .find(|key| found.inherited.contains(key))
        .map(|key| key.replace('-', "_"))
}

/// What one `Cargo.toml` says about `carnet`.
#[derive(Debug, Default, PartialEq)]
struct Found {
    /// The key of a dependency on the package under another name (a `[dependencies]`
    /// table's first, else a `[dev-dependencies]` one's).
    renamed: Option<String>,
    /// Keys of dependencies inherited from the workspace.
    inherited: Vec<String>,
    /// Keys of `[workspace.dependencies]` entries that rename the package.
    workspace_renames: Vec<String>,
}

/// The `Cargo.toml` of the workspace above `dir` (one with a `[workspace]` table).
fn workspace_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .skip(1)
        .map(|d| d.join("Cargo.toml"))
        .find(|path| std::fs::read_to_string(path).is_ok_and(|text| text.lines().any(|l| l.trim() == "[workspace]")))
}

/// Reads the dependency tables of a `Cargo.toml`.
fn scan(text: &str) -> Found {
    let mut found = Found::default();
    let mut dev_rename = None;
    // The current table: a dependency table (`Some(None)`), a dependency's own table
    // (`Some(Some(key))`), or something else (`None`); whether it is a dev or workspace one.
    let mut table: Option<Option<String>> = None;
    let (mut dev, mut workspace) = (false, false);
    for line in text.lines() {
        let line = strip_comment(line).trim();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let header = header.trim_matches(['[', ']']).trim();
            let parts = split_key(header);
            let position = parts.iter().rposition(|p| p.ends_with("dependencies"));
            table = position.map(|i| parts.get(i + 1).cloned());
            if let Some(i) = position {
                dev = parts[i] == "dev-dependencies";
                workspace = parts.first().is_some_and(|p| p == "workspace");
            }
            continue;
        }
        let Some(table) = &table else { continue };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = unquote(key.trim());
        let value = value.trim();
        let (dependency, entry) = match table {
            // `[dependencies.my_carnet]` then `package = "carnet"`.
            Some(dependency) if key == "package" => (dependency.clone(), format!("package = {value}")),
            Some(dependency) if key == "workspace" => (dependency.clone(), format!("workspace = {value}")),
            Some(_) => continue,
            None => (key, value.to_owned()),
        };
        if names_package(&entry) && dependency != PACKAGE {
            if workspace {
                found.workspace_renames.push(dependency);
            } else if dev {
                dev_rename.get_or_insert(dependency);
            } else {
                found.renamed.get_or_insert(dependency);
            }
        } else if inherits(&entry) {
            found.inherited.push(dependency);
        }
    }
    found.renamed = found.renamed.or(dev_rename);
    found
}

/// Whether an entry (an inline table's text) says `package = "carnet"`.
fn names_package(entry: &str) -> bool {
    has_field(entry, "package", |v| unquote(v) == PACKAGE)
}

/// Whether an entry says `workspace = true`.
fn inherits(entry: &str) -> bool {
    has_field(entry, "workspace", |v| v == "true")
}

/// Whether an entry has field `key` with a value `matches` accepts.
fn has_field(entry: &str, key: &str, matches: impl Fn(&str) -> bool) -> bool {
    entry.split([',', '{', '}']).any(|field| {
        field
            .split_once('=')
            .is_some_and(|(k, v)| unquote(k.trim()) == key && matches(v.trim()))
    })
}

/// A line without its `#` comment (outside a string).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => return &line[..i],
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

/// A dotted key's parts, unquoted: `target.'cfg(unix)'.dependencies` has three.
fn split_key(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    for c in key.chars() {
        match (quote, c) {
            (None, '.') => parts.push(std::mem::take(&mut current)),
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts.into_iter().map(|p| p.trim().to_owned()).collect()
}

fn unquote(text: &str) -> String {
    text.trim_matches(['"', '\'']).to_owned()
}

/// `tokens` with every leading `::carnet` path (not `x::carnet`) naming `name` instead.
pub(crate) fn rename(tokens: TokenStream, name: &str) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    for token in tokens {
        let token = match token {
            TokenTree::Group(group) => {
                let mut renamed = proc_macro2::Group::new(group.delimiter(), rename(group.stream(), name));
                renamed.set_span(group.span());
                TokenTree::Group(renamed)
            }
            TokenTree::Ident(ident) if ident == PACKAGE && leading_path(&out) => {
                TokenTree::Ident(Ident::new(name, ident.span()))
            }
            other => other,
        };
        out.push(token);
    }
    out.into_iter().collect()
}

/// Whether `out` ends with a `::` that starts a path (nothing path-like before it).
fn leading_path(out: &[TokenTree]) -> bool {
    let n = out.len();
    let colons = n >= 2
        && matches!(&out[n - 2], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
        && matches!(&out[n - 1], TokenTree::Punct(p) if p.as_char() == ':');
    colons
        && match out.get(n.wrapping_sub(3)) {
            // `foo::carnet` continues a path; `use ::carnet`, `dyn ::carnet` start one.
            // `&'a ::carnet`: a lifetime's name is an identifier after `'`.
            Some(TokenTree::Ident(ident)) => {
                KEYWORDS.iter().any(|k| ident == k)
                    || matches!(out.get(n.wrapping_sub(4)), Some(TokenTree::Punct(p)) if p.as_char() == '\'')
            }
            // `<T>::carnet` continues a path; `-> ::carnet` and `=> ::carnet` start one.
            Some(TokenTree::Punct(p)) if p.as_char() == '>' => matches!(
                out.get(n.wrapping_sub(4)),
                Some(TokenTree::Punct(p)) if matches!(p.as_char(), '-' | '=') && p.spacing() == Spacing::Joint
            ),
            _ => true,
        }
}

/// Keywords a path may follow.
const KEYWORDS: &[&str] = &[
    "use", "pub", "as", "in", "for", "impl", "dyn", "return", "mut", "const", "static", "type", "where", "let", "else",
    "match", "if", "while", "move", "unsafe", "async", "break", "ref", "yield",
];

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn finds_renames_in_every_form() {
        let inline = "[package]\nname = \"app\"\n\n[dependencies]\nserde = \"1\"\nmy-carnet = { package = \"carnet\", version = \"0.1\" } # renamed\n";
        assert_eq!(scan(inline).renamed.as_deref(), Some("my-carnet"));
        let table = "[dependencies.agents]\nversion = \"0.1\"\npackage = 'carnet'\n";
        assert_eq!(scan(table).renamed.as_deref(), Some("agents"));
        let target = "[target.'cfg(unix)'.dependencies]\nc = { package = \"carnet\" }\n";
        assert_eq!(scan(target).renamed.as_deref(), Some("c"));
        let plain = "[dependencies]\ncarnet = { version = \"0.1\", features = [\"openai\"] }\n";
        assert_eq!(scan(plain), Found::default());
        let other = "[dependencies]\nx = { package = \"carnet-runtime\" }\n[features]\ncarnet = []\n";
        assert_eq!(scan(other), Found::default());
        let dev_first =
            "[dev-dependencies]\nd = { package = \"carnet\" }\n[dependencies]\nn = { package = \"carnet\" }\n";
        assert_eq!(scan(dev_first).renamed.as_deref(), Some("n"));
        let commented = "[dependencies]\n# old = { package = \"carnet\" }\n";
        assert_eq!(scan(commented), Found::default());
    }

    #[test]
    fn finds_workspace_inheritance() {
        let member = "[dependencies]\nagents = { workspace = true }\n";
        assert_eq!(scan(member).inherited, ["agents"]);
        let root = "[workspace]\nmembers = [\"app\"]\n[workspace.dependencies]\nagents = { package = \"carnet\", path = \"carnet\" }\n";
        assert_eq!(scan(root).workspace_renames, ["agents"]);
        assert_eq!(scan(root).renamed, None);
    }

    #[test]
    fn renames_leading_paths_only() {
        let tokens = quote!(::carnet::__private::bound(x, ::carnet::X); self::carnet::y; <T>::carnet; { ::carnet::z } use ::carnet::a; fn f() -> ::carnet::b {} fn g<'a>(x: &'a ::carnet::c) { match x { _ => ::carnet::d } });
        let renamed = rename(tokens, "agents").to_string();
        assert_eq!(
            renamed,
            quote!(::agents::__private::bound(x, ::agents::X); self::carnet::y; <T>::carnet; { ::agents::z } use ::agents::a; fn f() -> ::agents::b {} fn g<'a>(x: &'a ::agents::c) { match x { _ => ::agents::d } }).to_string()
        );
    }
}
