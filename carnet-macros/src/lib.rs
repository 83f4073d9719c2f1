//! Attribute macros of [carnet](https://docs.rs/carnet).
//!
//! This crate is a thin shell over `carnet_codegen::expand`; use it through the
//! `carnet` facade (`#[carnet::toolset]`, `#[carnet::tool]`). The binding attributes
//! land with the compile-time binding work; until then the crate exports nothing.
