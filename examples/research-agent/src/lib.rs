//! The research agent of carnet's README: its content lives in `carnet/`, compiled by
//! `build.rs` into [`manifest`]; its tools, in [`tools`], are bound to the toolsets the
//! content declares with `#[carnet::toolset]`.

// Example code: results are returned, not accidentally dropped, and counts stay far below 2^52.
#![allow(clippy::must_use_candidate, clippy::cast_precision_loss)]

carnet::include_manifest!(pub mod manifest);

pub mod policy;
pub mod telemetry;
pub mod tools;
