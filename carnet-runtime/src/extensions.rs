//! [`Extensions`]: a conversation's own values (the user, their permissions, a request id),
//! one per type, which tools and hooks read typed.

use carnet_manifest::order;
use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Values of a conversation, at most one per type, cheap to clone (values are shared).
///
/// A session carries them ([`crate::Session::insert`], [`crate::Session::with`]); tools read
/// them from their [`crate::Context`], hooks from [`crate::CallInfo`]. They are not part of
/// [`crate::SessionState`]: a resumed session gets its values again from the application.
///
/// # Examples
///
/// ```
/// use carnet_runtime::extensions::Extensions;
///
/// #[derive(Debug, PartialEq)]
/// struct RequestId(u64);
///
/// let mut extensions = Extensions::new();
/// assert!(!extensions.insert(RequestId(7)));
/// assert_eq!(extensions.get::<RequestId>(), Some(&RequestId(7)));
/// assert!(extensions.insert(RequestId(8)), "replaces the value of that type");
/// assert_eq!(extensions.get::<String>(), None);
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    values: HashMap<TypeId, (&'static str, Arc<dyn Any + Send + Sync>)>,
}

impl Extensions {
    /// No values.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the value of type `T`; returns whether it replaced one.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) -> bool {
        self.values
            .insert(TypeId::of::<T>(), (type_name::<T>(), Arc::new(value)))
            .is_some()
    }

    /// The value of type `T`.
    #[must_use]
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>())?.1.downcast_ref::<T>()
    }

    /// Removes the value of type `T`; returns whether there was one.
    pub fn remove<T: Any + Send + Sync>(&mut self) -> bool {
        self.values.remove(&TypeId::of::<T>()).is_some()
    }

    /// How many values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut types: Vec<&str> = self.values.values().map(|(name, _)| *name).collect();
        order::sort(&mut types);
        f.debug_set().entries(types).finish()
    }
}
