//! The generated module's typed side: the `Toolsets` struct the bound toolsets fill, and the
//! typed ids of agents, skills, toolsets and tools.

use std::fmt::Write as _;

use carnet_manifest::Manifest;

use super::literal;
use crate::by_name::ByName;
use crate::typed_id;

/// `Toolsets`: one field per toolset that declares tools, each bound to the toolset's
/// identity, so forgetting a toolset is a missing field and swapping two is a type error.
/// Each field's type names its toolset (`BoundToolset<Name, Needs>`); only the states its
/// tools take (`Needs`) are a type parameter, inferred from the value. A value of another
/// toolset is then a mismatch on that field alone: rustc reports it there, once, and goes on
/// with the field's own type, so nothing that uses the struct (`Carnet::new`) fails again.
/// (A bound on a generic field type, `ToolsetOf<Name>`, was checked again by every use of the
/// struct: one misplaced toolset gave an error at the field and another at `Carnet::new`. So
/// did a trait per field with `on_unimplemented` and a `do_not_recommend` blanket impl: its
/// error at the field reads well, but `Carnet::new`'s return type normalises
/// `CompiledToolsets::Needs`, whose impl carries the struct's bounds, and fails them again:
/// two swapped toolsets gave 4 errors in 73 lines against 2 in 17 here.) Each name is one
/// type, `ToolsetNamed<'m', 'a', 't', 'h'>`, its characters const parameters whose defaults
/// rustc does not print: a mismatch's note spells both names in full and nothing else. (A
/// tuple of one type per character, `(Letter<'m'>, ..)`, made rustc's message about the
/// tuples' lengths: "expected a tuple with 4 elements, found one with 5 elements".)
pub(super) fn toolsets_struct(out: &mut String, manifest: &Manifest) {
    let bound: Vec<(&str, String)> = typed_id::snake_idents(manifest.toolsets.iter().map(|t| &*t.name))
        .into_iter()
        // Remote toolsets need no Rust: the engine calls their server.
        .filter(|(name, _)| {
            manifest
                .toolset(name)
                .is_some_and(|t| !t.tools.is_empty() && t.mcp.is_none())
        })
        .collect();
    let params = typed_id::type_params(bound.iter().map(|(_, ident)| ident.as_str()));
    out.push_str(
        "
// A toolset's name as a type, `L<'m', 'a', 't', 'h'>` (rustc's messages name it
// `ToolsetNamed` in full).
use rt::ToolsetNamed as L;

/// The implementations of every toolset that declares tools, for
/// `Carnet::new(&MANIFEST, Toolsets { .. })`: each field takes what
/// `#[carnet::toolset(\"name\")]` generates (`toolset()`). A missing field is a toolset
/// without implementation; a field only accepts its own toolset's. (The type parameters
/// are the states each toolset's tools take, inferred from the values: leave them to their
/// defaults.)
pub struct Toolsets",
    );
    // Each name is spelled once, in `toolset_names` (written after the impl): rustc checks
    // every character of a spelled name as a constant, and naming each toolset more than
    // once, at a thousand toolsets, tripled the crate's type-checking.
    if !params.is_empty() {
        let defaults: Vec<String> = params.iter().map(|param| format!("{param} = ()")).collect();
        let _ = write!(out, "<\n    {},\n>", defaults.join(",\n    "));
    }
    out.push_str(" {\n");
    for ((name, ident), param) in bound.iter().zip(&params) {
        let _ = writeln!(
            out,
            "    /// `#[carnet::toolset(\"{name}\")]`\n    pub {ident}: rt::BoundToolset<toolset_names::{param}, {param}>,"
        );
    }
    out.push_str("}\n\n");
    let generics = if params.is_empty() {
        String::new()
    } else {
        format!("<{}>", params.join(", "))
    };
    // What the tools take as `State<T>`, every toolset's list in one, as a balanced tree of
    // pairs (a chain as deep as the toolsets are many would pass the trait solver's
    // recursion limit at a few hundred toolsets).
    let needs = balanced(&params);
    let _ = write!(
        out,
        "impl{generics} rt::CompiledToolsets for Toolsets{generics} {{
    type Canonical = Toolsets;
    type Needs = {needs};

    fn __into_impls(self) -> ::std::vec::Vec<rt::ToolsetImpl> {{
        ::std::vec::Vec::from(["
    );
    let values: Vec<String> = bound
        .iter()
        .map(|(_, ident)| format!("rt::BoundToolset::into_impl(self.{ident})"))
        .collect();
    if !values.is_empty() {
        let _ = write!(out, "\n            {},\n        ", values.join(",\n            "));
    }
    out.push_str("])\n    }\n}\n");
    // Under the type parameters' names, which a module's path keeps apart from the
    // parameters themselves.
    if !params.is_empty() {
        out.push_str("\n/// Each toolset's name as a type, spelled once.\nmod toolset_names {\n    use super::L;\n\n");
        for ((name, _), param) in bound.iter().zip(&params) {
            let _ = writeln!(
                out,
                "    pub(super) type {param} = {};",
                typed_id::toolset_name_text(name)
            );
        }
        out.push_str("}\n");
    }
}

/// `items` as a balanced tree of pairs: `()`, `X`, `(X, Y)`, `((X, Y), Z)`, ...
fn balanced(items: &[String]) -> String {
    match items {
        [] => "()".to_owned(),
        [one] => one.clone(),
        _ => {
            let (left, right) = items.split_at(items.len() / 2);
            format!("({}, {})", balanced(left), balanced(right))
        }
    }
}

/// The doc line of a typed id: its kind and name (the description is in the manifest; the
/// generated code's size follows the declarations, not the content).
fn describe(kind: &str, name: &str) -> String {
    format!("/// {kind} `{}`.", name.replace(|c: char| c.is_control(), " "))
}

/// Writes the typed ids of one toolset's tools: `ids! { "toolset": CONST = "tool", ... }`.
const IDS_MACRO: &str = "    /// `ids! { \"toolset\": NAME = \"tool\", ... }`: the typed ids of one toolset's tools.
    macro_rules! ids {
        ($toolset:literal: $($name:ident = $tool:literal,)*) => {
            $(pub const $name: super::super::rt::ToolId = super::super::rt::ToolId::__new($toolset, $tool);)*
        };
    }

";

/// A module body, with `use super::rt;` first when it needs it (an unused import would
/// warn in the including crate).
fn with_rt(body: &str) -> String {
    if body.contains("rt::") {
        format!("    use super::rt;\n\n{body}")
    } else {
        body.to_owned()
    }
}

/// Typed ids. A name whose constant collides with another's gets none (`W0009` says so).
pub(super) fn ids(out: &mut String, manifest: &Manifest) {
    let kinds: [(&str, &str, Vec<&str>); 3] = [
        ("agents", "Agent", manifest.agents.iter().map(|a| &*a.name).collect()),
        ("skills", "Skill", manifest.skills.iter().map(|s| &*s.name).collect()),
        (
            "toolsets",
            "Toolset",
            manifest.toolsets.iter().map(|t| &*t.name).collect(),
        ),
    ];
    for (module, kind, entities) in kinds {
        let mut body = String::new();
        for (name, ident) in typed_id::consts(entities) {
            let _ = writeln!(
                body,
                "    {}\n    pub const {ident}: rt::{kind}Id = rt::{kind}Id::__new({});",
                describe(kind, name),
                literal(name)
            );
        }
        let _ = write!(
            out,
            "\n/// Typed ids of the {module}.\npub mod {module} {{\n{}}}\n",
            with_rt(&body)
        );
    }

    // Tools: one module per toolset, and their names at the top through glob re-exports, so
    // a name two toolsets declare is ambiguous there (rustc says so where it is used).
    let mut modules: ByName<'_, String> = ByName::new();
    for (name, module) in typed_id::snake_idents(manifest.toolsets.iter().map(|t| &*t.name)) {
        modules.insert(name, module);
    }
    let mut idents: ByName<'_, usize> = ByName::new();
    for t in &*manifest.toolsets {
        for (_, ident) in typed_id::consts(t.tools.iter().map(|tool| &*tool.name)) {
            *idents.get_or_insert_with(ident, || 0) += 1;
        }
    }
    let (mut top, mut globs, mut per_toolset) = (String::new(), String::new(), String::new());
    for t in manifest.toolsets.iter().filter(|t| !t.tools.is_empty()) {
        let consts = typed_id::consts(t.tools.iter().map(|tool| &*tool.name));
        match modules.get(&t.name) {
            Some(module) => {
                let _ = writeln!(globs, "    pub use self::{module}::*;");
                let _ = write!(
                    per_toolset,
                    "\n    /// Tools of toolset `{}`.\n    pub mod {module} {{\n",
                    t.name
                );
                if !consts.is_empty() {
                    let _ = writeln!(per_toolset, "        ids! {{\n            {}:", literal(&t.name));
                    for (tool, ident) in consts {
                        let _ = writeln!(per_toolset, "            {ident} = {},", literal(tool));
                    }
                    per_toolset.push_str("        }\n");
                }
                per_toolset.push_str("    }\n");
            }
            // No module (its name collides with another toolset's, W0009): its tools are at
            // the top when no other toolset's tool has the same constant.
            None => {
                for (tool, ident) in consts {
                    if idents.get(&ident) == Some(&1) {
                        let _ = writeln!(
                            top,
                            "    pub const {ident}: rt::ToolId = rt::ToolId::__new({}, {});",
                            literal(&t.name),
                            literal(tool)
                        );
                    }
                }
            }
        }
    }
    let _ = write!(
        out,
        "\n/// Typed ids of the tools: `tools::NAME` when one toolset declares the name,\n/// `tools::<toolset>::NAME` always (each named after its tool).\n#[allow(ambiguous_glob_reexports, unused_imports, missing_docs)]\npub mod tools {{\n{}{IDS_MACRO}{globs}{per_toolset}}}\n",
        with_rt(&top)
    );
}
