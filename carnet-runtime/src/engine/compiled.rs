//! A manifest compiled by the build step, tied by type to its generated `Toolsets`: the
//! engine of a compiled manifest is made from the `Toolsets` value itself
//! ([`Carnet::new`]), so a toolset left out is a missing field and a toolset in the wrong
//! field a type error, never a [`BuildError`](super::BuildError) at run time.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use super::builder::{Bound, CarnetBuilder};
use super::carnet::Carnet;
use crate::dispatch::{BoundToolset, ToolsetImpl};
use crate::manifest::Manifest;

/// The `MANIFEST` that `include_manifest!()` declares: the manifest as `'static` data,
/// typed by the `Toolsets` struct generated beside it. It dereferences to [`Manifest`] for
/// reading; an engine over it is made with [`Carnet::new`], which takes that `Toolsets`.
///
/// [`Carnet::builder`] does not take it: that builder checks, at run time, implementations
/// given by name, for manifests read at run time. A program that wants exactly that for a
/// compiled manifest (binding some toolsets only, in a test) passes
/// [`CompiledManifest::manifest`] and gets the run-time checks.
pub struct CompiledManifest<T> {
    manifest: Manifest,
    /// The search index over its tools, built with it (`carnet_manifest::search`).
    search: &'static [u8],
    toolsets: PhantomData<fn(T)>,
}

impl<T> CompiledManifest<T> {
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(manifest: Manifest, search: &'static [u8]) -> Self {
        CompiledManifest {
            manifest,
            search,
            toolsets: PhantomData,
        }
    }

    /// The manifest.
    #[must_use]
    pub const fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

impl<T> Deref for CompiledManifest<T> {
    type Target = Manifest;

    fn deref(&self) -> &Manifest {
        &self.manifest
    }
}

impl<T> AsRef<Manifest> for CompiledManifest<T> {
    fn as_ref(&self) -> &Manifest {
        &self.manifest
    }
}

impl<T> fmt::Debug for CompiledManifest<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CompiledManifest").field(&self.manifest).finish()
    }
}

/// The generated `Toolsets` struct of a compiled manifest: one field per toolset with
/// tools written in Rust, each taking the `toolset()` that `#[carnet::toolset("name")]`
/// generates. Implemented by the generated code only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the `Toolsets` of a compiled manifest",
    label = "`Carnet::new` takes the `Toolsets` struct generated beside `MANIFEST`",
    note = "for implementations given at run time (`ToolsetImpl`), use `Carnet::builder(&manifest).toolset(...)`"
)]
pub trait CompiledToolsets {
    /// The `Toolsets` of the manifest these belong to, with its type parameters left to
    /// their defaults (the type `MANIFEST` names).
    type Canonical;

    /// The states the tools of these toolsets take (`State<T>`), as pairs of
    /// [`Need`](crate::Need)s: the engine's state must provide each.
    type Needs;

    #[doc(hidden)]
    fn __into_impls(self) -> Vec<ToolsetImpl>;
}

/// What a field of the generated `Toolsets` accepts: the implementations of the toolset
/// whose name `Name` spells, as `#[carnet::toolset]` generates them.
#[diagnostic::on_unimplemented(
    message = "this field of `Toolsets` takes another toolset's implementation",
    label = "the `toolset()` of a different `#[carnet::toolset(\"...\")]`",
    note = "each field of `Toolsets` takes the `toolset()` generated for the toolset of the field's name (`search_tools` for `#[carnet::toolset(\"search-tools\")]`)"
)]
pub trait ToolsetOf<Name> {
    /// The states its tools take.
    type Needs;

    #[doc(hidden)]
    fn __into_impl(self) -> ToolsetImpl;
}

impl<Name, Needs> ToolsetOf<Name> for BoundToolset<Name, Needs> {
    type Needs = Needs;

    fn __into_impl(self) -> ToolsetImpl {
        self.into_impl()
    }
}

/// A manifest [`Carnet::builder`] takes: one read at run time, whose implementations are
/// checked when the engine is built. A compiled manifest (`MANIFEST`) is not one: its engine
/// is made with [`Carnet::new`], from the generated `Toolsets`.
#[diagnostic::on_unimplemented(
    message = "`Carnet::builder` is for manifests read at run time, and `{Self}` is compiled",
    label = "a compiled manifest",
    note = "make its engine with `Carnet::new(&MANIFEST, Toolsets {{ .. }})`: the compiler then checks every toolset",
    note = "to check implementations at run time instead, pass `MANIFEST.manifest()`"
)]
pub trait RuntimeManifest: sealed::Sealed {
    /// The manifest.
    fn manifest(&self) -> &Manifest;
}

impl RuntimeManifest for Manifest {
    fn manifest(&self) -> &Manifest {
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::manifest::Manifest {}
}

impl Carnet {
    /// Starts building the engine of a compiled manifest from its generated `Toolsets`:
    /// every toolset with tools written in Rust is a field, so a forgotten toolset does not
    /// compile, and [`CarnetBuilder::build`] cannot fail for a missing or misplaced one.
    ///
    /// ```ignore
    /// carnet::include_manifest!();
    /// use manifest::{MANIFEST, Toolsets};
    ///
    /// let carnet = Carnet::new(&MANIFEST, Toolsets { search_tools: search::toolset() }).build()?;
    /// ```
    ///
    /// Manifests read at run time take [`Carnet::builder`] and implementations checked when
    /// the engine is built.
    // A builder, not `Self`: the options (variables, mode, hooks) follow, as after
    // `Carnet::builder`; `new` because the manifest and its toolsets are all it needs.
    #[allow(clippy::new_ret_no_self)]
    #[must_use]
    pub fn new<T, U>(manifest: &CompiledManifest<T>, toolsets: U) -> CarnetBuilder<Bound<U::Needs>>
    where
        U: CompiledToolsets<Canonical = T>,
    {
        CarnetBuilder::bound(&manifest.manifest, manifest.search, toolsets.__into_impls())
    }
}
