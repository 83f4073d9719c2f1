//! Typed application state: a tool takes `State<T>`, and the engine is built with a state
//! that provides every such `T`, checked by the compiler for a compiled manifest.
//!
//! The engine holds one application state, given to the builder's `state(..)`. A tool
//! parameter `db: State<Db>` receives a `Db` taken from it by [`FromRef`] (a `Db` is taken
//! from a `Db` by cloning it; implement `FromRef<App> for Db` to take it from a part of a
//! larger state), computed once when the engine is built. For a compiled manifest the
//! generated `Toolsets` carries what its tools need, so building an engine whose state does
//! not provide one does not compile; implementations given at run time are checked by
//! `build()`, which names the tool and the type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// A tool parameter taking a part of the engine's application state: `db: State<Db>`, a
/// `Db` taken from the state given to the builder's `state(..)` by [`FromRef`], once, when
/// the engine is built. Not part of the tool's input. For a compiled manifest, building an
/// engine whose state does not provide a tool's `State<T>` does not compile; for
/// implementations given at run time, `build()` fails naming the tool and the type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct State<T>(pub T);

impl<T> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for State<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// How a part of the state is taken from the engine's whole state `S`, as in axum: every
/// `Clone` type from itself; implement it for each part a larger state provides.
///
/// # Examples
///
/// ```
/// use carnet_runtime::FromRef;
///
/// #[derive(Clone)]
/// struct Db(&'static str);
/// struct App {
///     db: Db,
/// }
/// impl FromRef<App> for Db {
///     fn from_ref(app: &App) -> Db {
///         app.db.clone()
///     }
/// }
/// assert_eq!(Db::from_ref(&App { db: Db("pool") }).0, "pool");
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool takes `State<{Self}>`, and the engine's state `{S}` does not provide a `{Self}`",
    label = "the engine's state is `{S}`",
    note = "give the engine a `{Self}` with `.state(..)`, or a state with `impl carnet::FromRef<YourState> for {Self}`",
    note = "an engine given no state has the state `()`"
)]
pub trait FromRef<S> {
    /// The part of `state` this type is.
    fn from_ref(state: &S) -> Self;
}

impl<T: Clone> FromRef<T> for T {
    fn from_ref(state: &T) -> T {
        state.clone()
    }
}

/// In a compiled toolset's type: one of its tools takes `State<T>`.
pub struct Need<T>(PhantomData<fn() -> T>);

/// A state `S` provides what a list of [`Need`]s asks (`()`, a `Need<T>`, or a pair of
/// lists): implemented by the library for every `S` from which each `T` is [`FromRef`].
pub trait Provides<N> {
    #[doc(hidden)]
    fn __provide(&self, states: &mut States);
}

impl<S> Provides<()> for S {
    fn __provide(&self, _: &mut States) {}
}

impl<S, A, B> Provides<(A, B)> for S
where
    S: Provides<A> + Provides<B>,
{
    fn __provide(&self, states: &mut States) {
        <S as Provides<A>>::__provide(self, states);
        <S as Provides<B>>::__provide(self, states);
    }
}

impl<S, T> Provides<Need<T>> for S
where
    T: FromRef<S> + Send + Sync + 'static,
{
    fn __provide(&self, states: &mut States) {
        states.insert(T::from_ref(self));
    }
}

/// A state type a tool takes, for the checks of `build()`.
#[derive(Clone, Copy)]
pub struct StateType {
    pub(crate) id: TypeId,
    pub(crate) name: &'static str,
}

impl StateType {
    /// The state type `T`.
    #[must_use]
    pub fn of<T: 'static>() -> Self {
        StateType {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }

    /// The type's name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The engine's state values, one per type: the whole state and the parts its tools take.
#[derive(Default)]
pub struct States(HashMap<TypeId, Box<dyn Any + Send + Sync>>);

impl States {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Box::new(value));
    }

    pub(crate) fn insert_boxed(&mut self, value: Box<dyn Any + Send + Sync>) {
        self.0.insert((*value).type_id(), value);
    }

    /// The value of type `T`, if the engine has one.
    #[must_use]
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref())
    }

    pub(crate) fn contains(&self, ty: StateType) -> bool {
        self.0.contains_key(&ty.id)
    }
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("States").field("types", &self.0.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Db(u32);
    #[derive(Clone, Debug, PartialEq)]
    struct Config(&'static str);
    struct App {
        db: Db,
        config: Config,
    }
    impl FromRef<App> for Db {
        fn from_ref(app: &App) -> Db {
            app.db.clone()
        }
    }
    impl FromRef<App> for Config {
        fn from_ref(app: &App) -> Config {
            app.config.clone()
        }
    }

    #[test]
    fn a_state_provides_each_part_a_list_needs() {
        let app = App {
            db: Db(7),
            config: Config("prod"),
        };
        let mut states = States::default();
        Provides::<(Need<Db>, (Need<Config>, ()))>::__provide(&app, &mut states);
        assert_eq!(states.get::<Db>(), Some(&Db(7)));
        assert_eq!(states.get::<Config>(), Some(&Config("prod")));
        assert!(states.contains(StateType::of::<Db>()));
        assert!(!states.contains(StateType::of::<String>()));
        // A `Clone` type provides itself.
        let mut states = States::default();
        Provides::<Need<Db>>::__provide(&Db(1), &mut states);
        assert_eq!(states.get::<Db>(), Some(&Db(1)));
    }
}
