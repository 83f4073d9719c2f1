//! Unit tests of the binding attributes' expansion: the whole output, formatted with
//! prettyplease, compared with `tests/expand/<case>.expanded.rs`. Re-bless after an
//! intended change with `CARNET_BLESS=1 cargo test -p carnet-codegen --test expand`.

use std::path::Path;

use carnet_codegen::expand;
use proc_macro2::TokenStream;

const MANIFEST: &str = "tests/expand/manifest.json";

fn pretty(tokens: &TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens.clone()).unwrap_or_else(|e| panic!("{e}: {tokens}"));
    prettyplease::unparse(&file)
}

fn check(case: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expand")
        .join(format!("{case}.expanded.rs"));
    if std::env::var_os("CARNET_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} is missing (CARNET_BLESS=1)", path.display()));
    assert!(
        expected == actual,
        "{case}: the expansion changed (CARNET_BLESS=1 to accept)\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

fn expand(attr: &str, item: &str, manifest: Option<&str>) -> String {
    let attr: TokenStream = attr.parse().unwrap();
    let item: TokenStream = item.parse().unwrap();
    pretty(&expand::toolset_with_manifest(attr, item, manifest.map(Path::new)))
}

#[test]
fn module_form() {
    let out = expand(
        r#""search-tools""#,
        r#"
        pub mod search {
            use super::*;
            /// Searches.
            #[carnet::tool]
            pub async fn basic_search(query: String, limit: Option<u32>, ctx: &carnet::Context<'_>) -> Result<Vec<Hit>, Error> { todo!() }
            /// Searches with operators, from the doc comment.
            #[carnet::tool(name = "advancedSearch")]
            pub fn advanced(input: AdvancedQuery) -> Vec<Hit> { todo!() }
            #[tool]
            fn filter_results() {}
            fn helper() {}
        }
        "#,
        Some(MANIFEST),
    );
    check("module-form", &out);
}

#[test]
fn impl_form() {
    let out = expand(
        r#""db-tools""#,
        r"
        impl Db {
            #[carnet::tool]
            pub async fn query(&self, sql: String) -> Result<Rows, DbError> { todo!() }
            pub fn not_a_tool(&self) {}
        }
        ",
        Some(MANIFEST),
    );
    check("impl-form", &out);
}

#[test]
fn errors_reemit_the_item_with_a_typed_stub() {
    let out = expand(
        r#""search-tools""#,
        r"
        mod search {
            #[carnet::tool]
            fn basic_search(query: String) -> String { query }
            #[carnet::tool]
            fn filter_results<T>(hits: T) -> String { todo!() }
        }
        ",
        Some(MANIFEST),
    );
    check("errors", &out);
}

#[test]
fn parameter_docs_become_descriptions() {
    let out = expand(
        r#""search-tools""#,
        r#"
        pub mod search {
            #[carnet::tool]
            pub fn basic_search(
                /// Words to search for.
                query: String,
                /// At most this many results:
                /// 10 if absent.
                limit: Option<u32>,
                #[doc = " Written as an attribute."]
                #[allow(unused_variables)]
                site: Option<String>,
                /// A raw identifier names the field `type`.
                r#type: Option<String>,
                ctx: &carnet::Context<'_>,
            ) -> Vec<Hit> { todo!() }
            #[carnet::tool(name = "advancedSearch")]
            pub fn advanced(input: AdvancedQuery) -> Vec<Hit> { todo!() }
            #[carnet::tool]
            fn filter_results() {}
        }
        "#,
        Some(MANIFEST),
    );
    check("parameter-docs", &out);
}

#[test]
fn errors_strip_the_tools_parameter_docs() {
    let out = expand(
        r#""search-tools""#,
        r"
        mod search {
            #[carnet::tool]
            fn basic_search(
                /// Words.
                query: String,
            ) -> String { query }
            #[carnet::tool]
            fn advanced_search(
                /// The whole input: an error.
                input: AdvancedQuery,
            ) -> String { todo!() }
            #[carnet::tool]
            fn filter_results(
                /// Not an input: an error.
                ctx: &carnet::Context<'_>,
            ) {}
        }
        ",
        Some(MANIFEST),
    );
    check("parameter-doc-errors", &out);
}

#[test]
fn an_unknown_toolset_gets_a_stub_any_field_takes() {
    // Generic in the name: the field of `Toolsets` it is put in infers it, so the unknown
    // name is the only error.
    let out = expand(
        r#""serch-tools""#,
        r"
        mod search {
            #[carnet::tool]
            fn basic_search(query: String) -> String { query }
        }
        ",
        Some(MANIFEST),
    );
    check("unknown-toolset", &out);
}

#[test]
fn no_manifest() {
    let out = expand(r#""search-tools""#, "mod search {}", None);
    check("no-manifest", &out);
    assert!(
        out.contains("no carnet manifest: add `carnet_codegen::compile(\\\"carnet\\\")` to build.rs"),
        "{out}"
    );
}

#[test]
fn tool_outside_a_toolset() {
    let out = pretty(&expand::tool(TokenStream::new(), "fn lonely() {}".parse().unwrap()));
    assert_eq!(
        out,
        "::core::compile_error! {\n    \"`#[carnet::tool]` must be inside a `#[carnet::toolset(\\\"...\\\")]` module or impl block\"\n}\nfn lonely() {}\n"
    );
}

/// A tool's `parameters:` block in TOOLSET.md describes its named parameters; a single
/// parameter it names is a named field.
#[test]
fn parameters_block_describes_named_parameters() {
    let out = expand(
        r#""described""#,
        r"
        pub mod described {
            #[carnet::tool]
            pub fn search(query: String, limit: Option<u32>) -> Vec<String> { todo!() }
            #[carnet::tool]
            pub fn lookup(key: Key, ctx: &carnet::Context<'_>) -> String { todo!() }
        }
        ",
        Some(MANIFEST),
    );
    check("parameters-block", &out);
}

/// Each way the block and the function can disagree is one error, naming TOOLSET.md:line.
#[test]
fn parameters_block_errors() {
    let out = expand(
        r#""misdescribed""#,
        r"
        pub mod misdescribed {
            #[carnet::tool]
            pub fn search(
                /// Also described here.
                query: String,
                limit: Option<u32>,
            ) -> Vec<String> { todo!() }
            #[carnet::tool]
            pub fn fetch(url: String, timeout: u32, retries: u8) -> String { todo!() }
            #[carnet::tool]
            pub fn advanced(input: Advanced) -> String { todo!() }
        }
        ",
        Some(MANIFEST),
    );
    check("parameters-block-errors", &out);
}

/// `Option<T>` sends `T`'s schema (optional by absence); `Option<Option<T>>` sends
/// `Option<T>`'s, which accepts `null`.
#[test]
fn optional_parameters_send_the_inner_schema() {
    let out = expand(
        r#""search-tools""#,
        r"
        pub mod search {
            #[carnet::tool]
            pub fn basic_search(query: String, limit: Option<u32>, cursor: Option<Option<String>>) -> String { todo!() }
            #[carnet::tool]
            pub fn advanced_search(input: Advanced) -> String { todo!() }
            #[carnet::tool]
            pub fn filter_results() {}
        }
        ",
        Some(MANIFEST),
    );
    assert!(out.contains(r#".param::<u32>("limit", false, "")"#), "{out}");
    assert!(
        out.contains(r#".param::<Option<String>>("cursor", false, "")"#),
        "{out}"
    );
    assert!(out.contains(r#".param::<String>("query", true, "")"#), "{out}");
}
