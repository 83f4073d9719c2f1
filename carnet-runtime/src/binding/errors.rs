//! What the model reads of a tool function's `Err`, chosen by the error's type.

use std::fmt::Display;

use crate::dispatch::ToolError;

/// How a tool function's `Err` reaches the model, chosen by its type with autoderef
/// specialisation: the generated code writes
/// `(&&ErrorProbe::of(&error)).converter()(error)` with [`ViaInto`], [`ViaError`] and
/// [`ViaDisplay`] in scope. Method lookup tries `&&ErrorProbe<E>` first (`ViaInto`, where
/// `E: Into<ToolError>`: a `ToolError`, a `String`, or a type whose author wrote a `From`
/// impl choosing what the model reads), then `&ErrorProbe<E>` (`ViaError`: an internal
/// error with its chain of sources), then `ErrorProbe<E>` (`ViaDisplay`: an internal error
/// with its alternate `Display`, which prints `anyhow::Error`'s chain).
pub struct ErrorProbe<E>(std::marker::PhantomData<fn(E)>);

// `Copy` whatever `E`: the last candidate is reached through two dereferences.
impl<E> Clone for ErrorProbe<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for ErrorProbe<E> {}

impl<E> ErrorProbe<E> {
    /// The probe for `error`'s type.
    #[must_use]
    pub const fn of(_error: &E) -> Self {
        ErrorProbe(std::marker::PhantomData)
    }
}

/// Chosen when the error converts into a [`ToolError`]: the model reads it.
pub trait ViaInto<E> {
    /// The conversion.
    fn converter(self) -> fn(E) -> ToolError;
}

impl<E: Into<ToolError>> ViaInto<E> for &&ErrorProbe<E> {
    fn converter(self) -> fn(E) -> ToolError {
        Into::into
    }
}

/// Chosen for other `std::error::Error`s: internal, with the chain.
pub trait ViaError<E> {
    /// The conversion.
    fn converter(self) -> fn(E) -> ToolError;
}

impl<E: std::error::Error> ViaError<E> for &ErrorProbe<E> {
    fn converter(self) -> fn(E) -> ToolError {
        |error| ToolError::internal(&error)
    }
}

/// Chosen for other `Display` types: internal.
pub trait ViaDisplay<E> {
    /// The conversion.
    fn converter(self) -> fn(E) -> ToolError;
}

impl<E: Display> ViaDisplay<E> for ErrorProbe<E> {
    fn converter(self) -> fn(E) -> ToolError {
        |error| ToolError::internal_display(&error)
    }
}
