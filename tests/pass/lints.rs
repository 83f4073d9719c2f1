//! The generated code is clean under strict lints: `warnings`, `missing_docs`, `unused` and
//! many allow-by-default rustc lints are denied, in the module form and the impl form, with
//! documented public items (trybuild runs rustc, not clippy: the clippy groups are only
//! accepted here).

#![deny(warnings, missing_docs, unused, clippy::all, clippy::pedantic)]
#![deny(
    unreachable_pub,
    rust_2018_idioms,
    missing_debug_implementations,
    unsafe_code,
    trivial_casts,
    trivial_numeric_casts,
    unused_qualifications,
    unused_results,
    single_use_lifetimes,
    variant_size_differences,
    unused_lifetimes,
    let_underscore_drop,
    redundant_lifetimes,
    meta_variable_misuse,
    non_ascii_idents,
    keyword_idents,
    unit_bindings
)]

// The shared helper is not written for `unused_qualifications`; only this file's own code
// and the generated code are under test.
#[allow(unused_qualifications)]
mod support {
    include!("../support/block_on.rs");

    pub(super) fn run<F: Future>(future: F) -> F::Output {
        block_on(future)
    }
}

use support::run as block_on;

use carnet::{Carnet, Manifest};
use serde_json::json;

/// Arithmetic tools.
#[carnet::toolset("math")]
pub mod math {
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// The input of `negate`.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Negate {
        /// The number.
        pub x: i64,
    }

    /// Adds two numbers.
    #[carnet::tool]
    #[must_use]
    pub fn add(a: i64, b: i64, scale: Option<i64>) -> i64 {
        (a + b) * scale.unwrap_or(1)
    }

    /// Negates a number.
    ///
    /// # Errors
    ///
    /// On overflow.
    #[carnet::tool]
    pub async fn negate(input: Negate) -> Result<i64, String> {
        std::future::ready(input.x.checked_neg().ok_or_else(|| "overflow".to_owned())).await
    }

    /// Answers.
    #[carnet::tool]
    #[must_use]
    pub fn ping(ctx: &carnet::Context<'_>) -> String {
        ctx.agent().to_owned()
    }
}

/// A database.
#[derive(Debug)]
pub struct Db {
    /// The rows.
    pub rows: u64,
}

#[carnet::toolset("db-tools")]
impl Db {
    /// Runs a query.
    #[carnet::tool]
    #[must_use]
    pub fn query(&self, sql: String) -> String {
        format!("{sql} over {} rows", self.rows)
    }

    /// Counts the rows.
    #[carnet::tool]
    pub async fn count(&self) -> u64 {
        std::future::ready(self.rows).await
    }
}

fn main() {
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest)
        .toolset(math::toolset().into_impl())
        .toolset(Db { rows: 3 }.toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    let _skills = session.load_skill("testing").unwrap();
    assert_eq!(math::add(1, 2, None), 3);
    assert_eq!(block_on(session.call("add", json!({"a": 1, "b": 2, "scale": 10}))).value, json!(30));
    assert_eq!(block_on(session.call("negate", json!({"x": 3}))).value, json!(-3));
    assert_eq!(block_on(session.call("ping", json!({}))).value, json!("tester"));
    assert_eq!(block_on(session.call("query", json!({"sql": "q"}))).value, json!("q over 3 rows"));
    assert_eq!(block_on(session.call("count", json!({}))).value, json!(3));
}
