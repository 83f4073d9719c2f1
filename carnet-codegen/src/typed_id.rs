//! The typed-id rule, written once: how a content name becomes a Rust identifier
//! (`dataAnalysis` → `DATA_ANALYSIS`, `search-tools` → `search_tools`), and which names get
//! one. Generation follows it, and validation warns (`W0009`) where it leaves a name out.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::by_name::ByName;
use crate::model::Spanned;

/// The type a toolset's implementations carry (`BoundToolset<Name>`): its name spelled in
/// the arguments of a `ToolsetNamed`, `ToolsetNamed<'m', 'a', 't', 'h'>` for `math`, so that the
/// generated `Toolsets` struct and `#[carnet::toolset]` agree on it without sharing a path,
/// and a mismatch prints both names.
pub(crate) fn toolset_type(name: &str) -> TokenStream {
    toolset_type_needing(name, &quote!(()))
}

/// [`toolset_type`] with the states its tools take (`(Need<A>, (Need<B>, ()))`).
pub(crate) fn toolset_type_needing(name: &str, needs: &TokenStream) -> TokenStream {
    let name = name_type(name, |chunk, rest| {
        let chars = chunk.iter().map(|&c| Literal::character(c));
        let rest = rest.into_iter();
        quote!(::carnet::__private::ToolsetNamed<#(#chars,)* #(#rest)*>)
    });
    quote!(::carnet::__private::BoundToolset<#name, #needs>)
}

/// A toolset's name as a type, `L<'m', 'a', 't', 'h'>` (the generated module's `L` is
/// `ToolsetNamed`).
pub(crate) fn toolset_name_text(name: &str) -> String {
    name_type(name, |chunk, rest| {
        let mut args: Vec<String> = chunk.iter().map(|c| format!("{c:?}")).collect();
        args.extend(rest);
        format!("L<{}>", args.join(", "))
    })
}

/// How many characters one `ToolsetNamed` holds (its const parameters, each defaulting to
/// `'\0'`, which rustc leaves out when it prints the type).
const NAME_CHUNK: usize = 32;

/// The one rule for a name's type, which the macros and the generated module must follow
/// alike: `ToolsetNamed` of the name's first [`NAME_CHUNK`] characters, the rest of a longer
/// name in its last parameter, another `ToolsetNamed` (`wrap(chunk, rest)` writes one).
fn name_type<T>(name: &str, mut wrap: impl FnMut(&[char], Option<T>) -> T) -> T {
    let chars: Vec<char> = name.chars().collect();
    let mut chunks = chars.chunks(NAME_CHUNK).rev();
    // Innermost first; an empty name is `ToolsetNamed<>`.
    let mut name = wrap(chunks.next().unwrap_or_default(), None);
    for chunk in chunks {
        name = wrap(chunk, Some(name));
    }
    name
}

/// The generated `Toolsets`' type parameter for each field: the field's name in CamelCase
/// (`search_tools` → `SearchTools`), `Toolset…` where that would not be a fresh type name
/// (`Self`, `Toolsets`, `L`, a leading digit), numbered where two would be equal.
pub(crate) fn type_params<'a>(fields: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen: ByName<'_> = ByName::new();
    fields
        .into_iter()
        .map(|field| {
            let field = field.strip_prefix("r#").unwrap_or(field);
            let mut camel: String = field
                .split('_')
                .filter(|part| !part.is_empty())
                .map(|part| {
                    let mut chars = part.chars();
                    chars
                        .next()
                        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                        .unwrap_or_default()
                })
                .collect();
            if camel.is_empty()
                || camel.starts_with(|c: char| c.is_ascii_digit())
                || matches!(&*camel, "Self" | "Toolsets" | "L")
            {
                camel.insert_str(0, "Toolset");
            }
            let mut param = camel.clone();
            let mut n = 2;
            while !seen.add(param.clone()) {
                param = format!("{camel}{n}");
                n += 1;
            }
            param
        })
        .collect()
}

/// The Rust constant name for a content name: `dataAnalysis` → `DATA_ANALYSIS`,
/// `search-tools` → `SEARCH_TOOLS`, `file.read` → `FILE_READ`. Characters that cannot be in
/// an identifier separate words; a leading digit gets a `_` prefix.
pub(crate) fn const_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let boundary = c.is_ascii_uppercase()
                && prev.is_some_and(|p| {
                    p.is_ascii_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
                });
            if boundary && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        return "_".to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// The Rust module or field name for a content name, as source text: `search-tools` →
/// `search_tools`, `type` → `r#type`, `self` → `self_`.
pub(crate) fn snake_ident(name: &str) -> String {
    let snake = const_name(name).to_ascii_lowercase();
    match snake.as_str() {
        "self" | "super" | "crate" | "_" => format!("{snake}_"),
        s if KEYWORDS.contains(&s) => format!("r#{s}"),
        _ => snake,
    }
}

/// The words that are not identifiers: syn's list (a test holds the two together) and
/// `gen`, reserved from edition 2024 on; less `self`, `super`, `crate` and `_`, which
/// cannot be raw either.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
    "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move",
    "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The names of one kind that get a constant: those whose constant name no other name of
/// the kind shares (and is not `_`), with that constant.
pub(crate) fn consts<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, String)> {
    unique(names, const_name)
        .into_iter()
        .filter(|(_, ident)| ident != "_")
        .collect()
}

/// The names of one kind that get a module or a field: those whose snake-case name no
/// other name of the kind shares, with that name.
pub(crate) fn snake_idents<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, String)> {
    unique(names, snake_ident)
}

/// Pairs of different names of one kind whose constants collide (`W0009`):
/// `(earlier, later, constant)`.
pub(crate) fn const_collisions<'a>(
    names: impl IntoIterator<Item = &'a Spanned<String>>,
) -> Vec<(&'a Spanned<String>, &'a Spanned<String>, String)> {
    let mut seen: ByName<'_, &Spanned<String>> = ByName::new();
    let mut out = Vec::new();
    for name in names {
        let ident = const_name(name.as_str());
        match seen.get(&ident) {
            Some(first) if first.value != name.value => out.push((*first, name, ident)),
            Some(_) => {}
            None => {
                seen.insert(ident, name);
            }
        }
    }
    out
}

fn unique<'a>(names: impl IntoIterator<Item = &'a str>, ident: impl Fn(&str) -> String) -> Vec<(&'a str, String)> {
    let all: Vec<(&str, String)> = names.into_iter().map(|n| (n, ident(n))).collect();
    let mut count: ByName<'_, usize> = ByName::new();
    for (_, ident) in &all {
        *count.get_or_insert_with(ident.as_str(), || 0) += 1;
    }
    let keep: Vec<bool> = all.iter().map(|(_, ident)| count.get(ident) == Some(&1)).collect();
    all.into_iter()
        .zip(keep)
        .filter(|(_, keep)| *keep)
        .map(|(entry, _)| entry)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Ident;

    #[test]
    fn const_names() {
        assert_eq!(const_name("dataAnalysis"), "DATA_ANALYSIS");
        assert_eq!(const_name("search-tools"), "SEARCH_TOOLS");
        assert_eq!(const_name("basicSearch"), "BASIC_SEARCH");
        assert_eq!(const_name("HTTPServer"), "HTTP_SERVER");
        assert_eq!(const_name("file.read"), "FILE_READ");
        assert_eq!(const_name("3d-art"), "_3D_ART");
        assert_eq!(const_name("analyzeStatistics2"), "ANALYZE_STATISTICS2");
        assert_eq!(const_name("My Agent!"), "MY_AGENT");
        assert_eq!(const_name("é"), "_");
    }

    #[test]
    fn snake_idents_of_names() {
        assert_eq!(snake_ident("search-tools"), "search_tools");
        assert_eq!(snake_ident("type"), "r#type");
        assert_eq!(snake_ident("self"), "self_");
        assert_eq!(snake_ident("gen"), "r#gen");
    }

    #[test]
    fn keywords_are_what_syn_refuses_as_identifiers() {
        for word in KEYWORDS {
            // `gen` is reserved from edition 2024 on, which syn does not know of.
            assert!(
                syn::parse_str::<Ident>(word).is_err() || *word == "gen",
                "{word} is an identifier"
            );
            assert!(syn::parse_str::<Ident>(&format!("r#{word}")).is_ok(), "r#{word}");
        }
        // Every lowercase word syn refuses, among Rust's keywords (strict, reserved, weak).
        let words = "as break const continue crate else enum extern false fn for if impl in let loop match mod move \
                     mut pub ref return self static struct super trait true type unsafe use where while async await \
                     dyn abstract become box do final macro override priv typeof unsized virtual yield try gen \
                     union macro_rules raw safe auto default";
        for word in words.split_whitespace() {
            let refused = syn::parse_str::<Ident>(word).is_err();
            let known = (KEYWORDS.contains(&word) && word != "gen") || matches!(word, "self" | "super" | "crate");
            assert_eq!(refused, known, "{word}");
        }
    }

    #[test]
    fn colliding_names_get_no_constant() {
        let names = ["dataAnalysis", "data-analysis", "search", "é"];
        let kept: Vec<String> = consts(names).into_iter().map(|(_, i)| i).collect();
        assert_eq!(kept, ["SEARCH"]);
    }

    /// The macros' type and the generated module's alias spell a name alike: one
    /// `ToolsetNamed` up to 32 characters, the rest of a longer name nested in its last
    /// argument, the empty name with no arguments.
    #[test]
    fn toolset_names_as_types() {
        assert_eq!(toolset_name_text("math"), "L<'m', 'a', 't', 'h'>");
        assert_eq!(toolset_name_text(""), "L<>");
        assert_eq!(toolset_name_text("it's"), r"L<'i', 't', '\'', 's'>");
        let long = format!("{}{}", "a".repeat(32), "bc");
        let first = vec!["'a'"; 32].join(", ");
        assert_eq!(toolset_name_text(&long), format!("L<{first}, L<'b', 'c'>>"));
        let exactly = "a".repeat(32);
        assert_eq!(toolset_name_text(&exactly), format!("L<{first}>"));
        // The same type, up to spaces and trailing commas.
        let plain = |text: String| text.replace(' ', "").replace(",>", ">");
        for name in ["math", "", &long, &exactly] {
            let tokens = toolset_type(name)
                .to_string()
                .replace(":: carnet :: __private :: ToolsetNamed", "L");
            assert_eq!(
                plain(tokens),
                plain(format!(
                    "::carnet::__private::BoundToolset<{}, ()>",
                    toolset_name_text(name)
                )),
                "{name}"
            );
        }
    }
}
