//! Every message of the binding attributes, kept together so their wording stays
//! consistent: rustc style (lowercase, no final period, names in backticks), naming the
//! tool or toolset involved, then what to do.

use std::fmt::Display;
use std::path::Path;

// The attributes themselves.

pub(crate) const TOOL_OUTSIDE_TOOLSET: &str =
    "`#[carnet::tool]` must be inside a `#[carnet::toolset(\"...\")]` module or impl block";
pub(crate) const TOOL_NOT_ON_FUNCTION: &str = "`#[carnet::tool]` goes on a function";
pub(crate) const DUPLICATE_TOOL_ATTRIBUTE: &str = "duplicate `#[carnet::tool]` attribute";
pub(crate) const TOOL_ATTRIBUTE_FORM: &str = "expected `#[carnet::tool]` or `#[carnet::tool(name = \"...\")]`";
pub(crate) const DUPLICATE_NAME_KEY: &str = "duplicate key `name`";
pub(crate) const TOOLSET_WITHOUT_NAME: &str =
    "expected the toolset's name as in TOOLSET.md: `#[carnet::toolset(\"name\")]`";
pub(crate) const TOOLSET_PLACEMENT: &str = "`#[carnet::toolset]` goes on an inline `mod` or an inherent `impl` block";
pub(crate) const TOOLSET_ON_TRAIT_IMPL: &str = "`#[carnet::toolset]` goes on an inherent impl block, not a trait impl";
pub(crate) const TOOLSET_ON_GENERIC_IMPL: &str = "`#[carnet::toolset]` cannot be used on a generic impl block";
pub(crate) const TOOLSET_ON_FILE_MODULE: &str =
    "`#[carnet::toolset]` needs an inline module (`mod name { ... }`): macros cannot read a module's file";

pub(crate) fn unknown_toolset_key(key: &impl Display, suggestion: Option<&str>) -> String {
    let hint = suggestion
        .map(|name| format!(": write `#[carnet::toolset({name:?})]`"))
        .unwrap_or_default();
    format!("unknown key `{key}`: `#[carnet::toolset]` takes the toolset's name only{hint}")
}

pub(crate) fn unknown_tool_key(key: &impl Display, close_to_name: bool) -> String {
    let hint = if close_to_name { "; did you mean `name`?" } else { "" };
    format!("unknown key `{key}`: `#[carnet::tool]` takes `name`{hint}")
}

// The manifest.

pub(crate) const NO_MANIFEST: &str =
    "no carnet manifest: add `carnet_codegen::compile(\"carnet\")` to build.rs (it sets `CARNET_MANIFEST`)";

pub(crate) fn unreadable_manifest(path: &Path, error: &impl Display) -> String {
    format!("cannot read the carnet manifest `{}`: {error}", path.display())
}

pub(crate) fn invalid_manifest(path: &Path, error: &impl Display) -> String {
    format!("invalid carnet manifest `{}`: {error}", path.display())
}

// Binding functions to declared tools.

fn names(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

pub(crate) fn unknown_toolset(toolset: &str, suggestion: Option<&str>, all: &[&str]) -> String {
    let hint = match suggestion {
        Some(s) => format!("; did you mean `{s}`?"),
        None if all.is_empty() => "; the manifest has no toolsets".to_owned(),
        None => format!("; the manifest has: {}", names(all)),
    };
    format!("unknown toolset `{toolset}`{hint}")
}

pub(crate) fn not_declared(toolset: &str, tool: &str, declared: &[&str], suggestion: Option<&str>) -> String {
    let hint = suggestion.map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
    let declared = if declared.is_empty() {
        "no tools".to_owned()
    } else {
        names(declared)
    };
    format!("toolset `{toolset}` declares no tool `{tool}` (it declares {declared}){hint}")
}

pub(crate) fn ambiguous(function: &str, toolset: &str, candidates: &[&str]) -> String {
    format!(
        "function `{function}` matches several tools of toolset `{toolset}` ({}): say which with `#[carnet::tool(name = \"...\")]`",
        names(candidates)
    )
}

pub(crate) fn implemented_twice(tool: &str, first: &impl Display, second: &impl Display) -> String {
    format!("tool `{tool}` is implemented twice: by `{first}` and by `{second}`")
}

pub(crate) fn missing_function(toolset: &str, tool: &str, site: Option<(&str, u64)>) -> String {
    let site = site
        .map(|(file, line)| format!(" (declared at {file}:{line})"))
        .unwrap_or_default();
    format!("toolset `{toolset}` declares tool `{tool}`{site} but no `#[carnet::tool]` function implements it")
}

/// `file:line`, or nothing.
fn at(site: Option<(&str, u64)>) -> String {
    site.map(|(file, line)| format!(" ({file}:{line})")).unwrap_or_default()
}

pub(crate) fn described_parameter_missing(
    tool: &str,
    param: &str,
    function: &impl Display,
    site: Option<(&str, u64)>,
    suggestion: Option<&str>,
) -> String {
    let hint = suggestion.map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
    format!(
        "the `parameters:` block of tool `{tool}` describes `{param}`{}, which `fn {function}` does not take{hint}",
        at(site)
    )
}

pub(crate) fn parameter_not_described(tool: &str, param: &str, site: Option<(&str, u64)>) -> String {
    format!(
        "parameter `{param}` of tool `{tool}` is not described: the tool's `parameters:` block{} describes the others; describe it there (or with `///`)",
        at(site)
    )
}

pub(crate) fn parameter_described_twice(tool: &str, param: &str, site: Option<(&str, u64)>) -> String {
    format!(
        "parameter `{param}` of tool `{tool}` is described twice: by its doc comment and by the `parameters:` block{}; keep one",
        at(site)
    )
}

pub(crate) fn parameters_of_whole_input(tool: &str, param: &str, site: Option<(&str, u64)>) -> String {
    format!(
        "tool `{tool}` takes its whole input as `{param}`, and its `parameters:` block{} names other parameters: describe a struct's fields with doc comments on the fields (the block describes named parameters)",
        at(site)
    )
}

pub(crate) fn tool_in_nested_module(tool: &impl Display, module: &impl Display) -> String {
    format!(
        "tool `{tool}` is in module `{module}`: `#[carnet::tool]` functions go directly in the `#[carnet::toolset]` module"
    )
}

// Signatures.

pub(crate) fn generic(tool: &impl Display) -> String {
    format!("tool `{tool}` cannot be generic: the model's arguments need one concrete type")
}

pub(crate) fn where_clause(tool: &impl Display) -> String {
    format!("tool `{tool}` cannot have a `where` clause")
}

pub(crate) fn const_fn(tool: &impl Display) -> String {
    format!("tool `{tool}` cannot be a `const fn`")
}

pub(crate) fn unsafe_fn(tool: &impl Display) -> String {
    format!("tool `{tool}` cannot be an `unsafe fn`")
}

pub(crate) fn extern_abi(tool: &impl Display) -> String {
    format!("tool `{tool}` cannot have an `extern` ABI")
}

pub(crate) fn variadic(tool: &impl Display) -> String {
    format!("tool `{tool}` cannot be variadic")
}

pub(crate) fn self_by_value(tool: &impl Display) -> String {
    format!("tool `{tool}` takes `self` by value: take `&self`")
}

pub(crate) fn mut_self(tool: &impl Display) -> String {
    format!("tool `{tool}` takes `&mut self`: tools may run concurrently, take `&self`")
}

pub(crate) fn missing_self(tool: &impl Display) -> String {
    format!("tool `{tool}` in an impl block must take `&self`")
}

pub(crate) fn two_contexts(tool: &impl Display) -> String {
    format!("tool `{tool}` takes two `&carnet::Context` parameters: one is enough")
}

pub(crate) fn documented_context(tool: &impl Display) -> String {
    format!(
        "the `&carnet::Context` parameter of tool `{tool}` is not part of the input: its doc comment would describe nothing"
    )
}

pub(crate) fn mut_context(tool: &impl Display) -> String {
    format!("tool `{tool}` takes `&mut` context: take `&carnet::Context`")
}

pub(crate) fn str_param(tool: &impl Display) -> String {
    format!("tool `{tool}` takes `&str`: arguments are deserialized from JSON, take `String`")
}

pub(crate) fn reference_param(tool: &impl Display, owned: &str) -> String {
    format!("tool `{tool}` takes a reference: arguments are deserialized from JSON, take `{owned}`")
}

pub(crate) fn impl_trait_param(tool: &impl Display) -> String {
    format!("tool `{tool}` takes `impl Trait`: parameters need concrete types")
}

pub(crate) fn impl_trait_return(tool: &impl Display) -> String {
    format!("tool `{tool}` returns `impl Trait`: return a concrete `Serialize` type")
}

pub(crate) fn pattern_param(tool: &impl Display) -> String {
    format!("tool `{tool}` has a pattern parameter: parameters need plain names, they name the input's fields")
}

pub(crate) fn ref_param(tool: &impl Display) -> String {
    format!("tool `{tool}` has a `ref` parameter: parameters need plain names")
}

pub(crate) fn remote_toolset(toolset: &str, a2a: bool) -> String {
    let by = if a2a {
        "an A2A agent (`a2a:`"
    } else {
        "an MCP server (`mcp:`"
    };
    format!("toolset `{toolset}` is served by {by} in its TOOLSET.md): carnet calls it, no Rust binds it")
}
