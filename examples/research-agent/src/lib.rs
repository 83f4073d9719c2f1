//! The research agent of carnet's README: its content lives in `carnet/`, compiled by
//! `build.rs` into [`manifest`].

carnet::include_manifest!(pub mod manifest);
