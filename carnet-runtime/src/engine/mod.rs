//! [`Carnet`]: the immutable engine built from a manifest and the tool implementations,
//! shared by every session. Its tables are built once by [`CarnetBuilder::build`] and read by
//! every session through typed indices.

mod builder;
pub(crate) mod carnet;
mod compiled;
pub(crate) mod options;
mod remote;
mod tables;

pub use builder::{Bound, CarnetBuilder, Checked};
pub use carnet::Carnet;
pub(crate) use carnet::Inner;
pub use compiled::{CompiledManifest, CompiledToolsets, RuntimeManifest, ToolsetOf};
pub use options::{
    BuildError, CatalogFormat, DriftPolicy, ExposureMode, Naming, Preset, PromptOptions, ProviderSearch, RemoteOptions,
    ResultFormat,
};
