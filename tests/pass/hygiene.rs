//! The generated code names everything by absolute path: it compiles next to items
//! shadowing the prelude (`Result`, `Option`, `Ok`, `Err`, `Some`, `None`, `Box`, `String`,
//! `Vec`, `Send`, `Sync`, `Into`, `Default`), common macros and the crates it uses
//! (`serde`, `serde_json`, `schemars`, `carnet`, `core`), in the module form (shadows
//! glob-imported into the module) and the impl form (shadows at top level). Types in this
//! file are therefore written with full paths.

#![allow(dead_code, non_camel_case_types, unused_macros)]

type Result = ();
type Option = ();
struct Ok;
struct Err;
struct Some;
struct None;
struct Box;
struct String;
struct Vec;
trait Send {}
trait Sync {}
trait Into {}
trait Default {}
trait From {}
trait Future {}
struct Value;
struct Context;
struct Arc;
mod serde {}
mod serde_json {}
mod schemars {}
mod carnet {}
mod carnet_private {}
mod __private {}
mod core {}
mod alloc {}
macro_rules! vec {
    ($($t:tt)*) => {
        compile_error!("the generated code used a local `vec!`")
    };
}
macro_rules! unreachable {
    ($($t:tt)*) => {
        compile_error!("the generated code used a local `unreachable!`")
    };
}
macro_rules! include_bytes {
    ($($t:tt)*) => {
        compile_error!("the generated code used a local `include_bytes!`")
    };
}
macro_rules! format {
    ($($t:tt)*) => {
        compile_error!("the generated code used a local `format!`")
    };
}

include!("../support/block_on.rs");

// Derives from other crates are not under test: serde's and schemars' derives are kept
// away from the shadows (schemars' derive uses relative `schemars::` paths).
mod inputs {
    #[derive(::serde::Deserialize, ::schemars::JsonSchema)]
    pub struct Negate {
        pub x: i64,
    }
}

#[::carnet::toolset("math")]
pub mod math {
    #[allow(unused_imports)]
    use super::*;
    use super::inputs::Negate;

    /// Shadows inside the module as well.
    pub struct Params;
    pub struct Args;
    pub struct ToolError;
    pub struct BoxFuture;
    pub fn tool() {}
    pub fn output() {}
    pub fn result() {}
    pub fn args() {}

    #[::carnet::tool]
    pub fn add(a: i64, b: i64, note: ::std::option::Option<::std::string::String>) -> ::std::vec::Vec<i64> {
        let _ = note;
        ::std::vec::Vec::from([a + b])
    }

    #[::carnet::tool]
    pub async fn negate(input: Negate) -> ::std::result::Result<i64, ::std::string::String> {
        input.x.checked_neg().ok_or_else(|| ::std::string::String::from("overflow"))
    }

    #[::carnet::tool]
    pub fn ping(ctx: &::carnet::Context<'_>) -> ::std::string::String {
        ::std::string::String::from(ctx.agent())
    }
}

pub struct Db(pub ::std::string::String);

#[::carnet::toolset("db-tools")]
impl Db {
    #[::carnet::tool]
    pub fn query(&self, sql: ::std::string::String) -> ::std::result::Result<::std::string::String, ::std::string::String> {
        ::std::result::Result::Ok(::std::format!("{}: {sql}", self.0))
    }

    #[::carnet::tool]
    pub async fn count(&self, ctx: &::carnet::Context<'_>) {
        let _ = ctx;
    }
}

fn main() {
    let manifest = ::carnet::Manifest::from_json(::std::include_str!(::std::env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = ::carnet::Carnet::builder(&manifest)
        .toolset(math::toolset().into_impl())
        .toolset(Db(::std::string::String::from("db")).toolset().into_impl())
        .allow_unimplemented()
        .build()
        .unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();
    let mut call = |name: &str, args| block_on(session.call(name, args));
    assert_eq!(call("add", ::serde_json::json!({"a": 1, "b": 2})).value, ::serde_json::json!([3]));
    assert_eq!(call("negate", ::serde_json::json!({"x": 1})).value, ::serde_json::json!(-1));
    assert_eq!(call("ping", ::serde_json::json!({})).value, ::serde_json::json!("tester"));
    assert_eq!(call("query", ::serde_json::json!({"sql": "q"})).value, ::serde_json::json!("db: q"));
    assert_eq!(call("count", ::serde_json::json!({})).value, ::serde_json::Value::Null);
}
