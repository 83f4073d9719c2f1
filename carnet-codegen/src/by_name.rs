//! Values by name, kept in one B-tree instantiation for the whole crate.
//!
//! Every `BTreeMap<K, V>` of its own key and value types compiles the B-tree again: about
//! 7,000 lines of LLVM IR in a debug build, and this crate is compiled for every author's
//! build script and macro. It had thirteen of its own (sets of names, first spans by name,
//! counts by identifier, files by path): with its dependencies', a quarter of its code. A
//! [`ByName`] keeps its values in a `Vec` and their positions in a `BTreeMap<Cow<str>,
//! usize>`: the same tree for every value type, for borrowed and owned names alike, iterated
//! in the names' order as a `BTreeMap` is.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// Names, each with a value (`V = ()`: a set of names), in the names' byte order.
#[derive(Debug)]
pub(crate) struct ByName<'a, V = ()> {
    index: BTreeMap<Cow<'a, str>, usize>,
    values: Vec<V>,
}

impl<V> Default for ByName<'_, V> {
    fn default() -> Self {
        Self {
            index: BTreeMap::new(),
            values: Vec::new(),
        }
    }
}

impl<'a, V> ByName<'a, V> {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        position(&self.index, name).map(|i| &self.values[i])
    }

    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        position(&self.index, name).map(|i| &mut self.values[i])
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        position(&self.index, name).is_some()
    }

    /// Adds `value` under `name` unless the name is there already, whose value stays (as
    /// `entry(name).or_insert(value)`); `true` if it was added.
    pub(crate) fn insert_first(&mut self, name: impl Into<Cow<'a, str>>, value: V) -> bool {
        match claim(&mut self.index, name.into(), self.values.len()) {
            Claim::New(_) => {
                self.values.push(value);
                true
            }
            Claim::Held(_) => false,
        }
    }

    /// `value` under `name`, replacing the value there (as `BTreeMap::insert`, which
    /// returns the old one).
    pub(crate) fn insert(&mut self, name: impl Into<Cow<'a, str>>, value: V) -> Option<V> {
        match claim(&mut self.index, name.into(), self.values.len()) {
            Claim::New(_) => {
                self.values.push(value);
                None
            }
            Claim::Held(i) => Some(std::mem::replace(&mut self.values[i], value)),
        }
    }

    /// The value under `name`, `make`'s if there was none (`entry(name).or_insert_with`).
    pub(crate) fn get_or_insert_with(&mut self, name: impl Into<Cow<'a, str>>, make: impl FnOnce() -> V) -> &mut V {
        let i = match claim(&mut self.index, name.into(), self.values.len()) {
            Claim::New(i) => {
                self.values.push(make());
                i
            }
            Claim::Held(i) => i,
        };
        &mut self.values[i]
    }

    /// The names, in order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> + Clone {
        self.index.keys().map(|name| &**name)
    }

    /// The values, in their names' order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.index.values().map(|&i| &self.values[i])
    }

    /// The values, in their names' order.
    pub(crate) fn into_values(self) -> Vec<V> {
        let mut slots: Vec<Option<V>> = self.values.into_iter().map(Some).collect();
        self.index.values().filter_map(|&i| slots[i].take()).collect()
    }
}

impl<'a> ByName<'a> {
    /// Adds `name`; `true` if it was not there (as `BTreeSet::insert`).
    pub(crate) fn add(&mut self, name: impl Into<Cow<'a, str>>) -> bool {
        self.insert_first(name, ())
    }
}

impl<'a, N: Into<Cow<'a, str>>> FromIterator<N> for ByName<'a> {
    fn from_iter<I: IntoIterator<Item = N>>(names: I) -> Self {
        let mut set = Self::new();
        set.extend(names);
        set
    }
}

impl<'a, N: Into<Cow<'a, str>>> Extend<N> for ByName<'a> {
    fn extend<I: IntoIterator<Item = N>>(&mut self, names: I) {
        for name in names {
            self.add(name);
        }
    }
}

enum Claim {
    /// The name was not there; its value goes at this position.
    New(usize),
    /// The name was there, with its value at this position.
    Held(usize),
}

// The two functions that touch the tree take no type parameter: one instantiation of the tree.
fn position(index: &BTreeMap<Cow<'_, str>, usize>, name: &str) -> Option<usize> {
    index.get(name).copied()
}

fn claim<'a>(index: &mut BTreeMap<Cow<'a, str>, usize>, name: Cow<'a, str>, next: usize) -> Claim {
    use std::collections::btree_map::Entry;
    match index.entry(name) {
        Entry::Occupied(held) => Claim::Held(*held.get()),
        Entry::Vacant(vacant) => {
            vacant.insert(next);
            Claim::New(next)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_or_replaces_and_iterates_in_name_order() {
        let mut map: ByName<'_, u32> = ByName::new();
        assert!(map.insert_first("b", 1));
        assert!(!map.insert_first(String::from("b"), 2));
        assert_eq!(map.get("b"), Some(&1));
        assert_eq!(map.insert("a", 3), None);
        assert_eq!(map.insert(String::from("a"), 4), Some(3));
        *map.get_or_insert_with("c", || 0) += 5;
        *map.get_or_insert_with("c", || 0) += 5;
        *map.get_mut("b").unwrap() += 10;
        assert_eq!(
            map.names().zip(map.values()).collect::<Vec<_>>(),
            [("a", &4), ("b", &11), ("c", &10)]
        );
        assert!(map.contains("c") && !map.contains("d"));
        assert_eq!(map.get("d"), None);
        assert_eq!(map.into_values(), [4, 11, 10]);
    }

    #[test]
    fn a_set_of_names_as_btreeset() {
        let words = ["pear", "apple", "pear", "fig", "apple"];
        let mut set: ByName<'_> = words.into_iter().collect();
        assert!(!set.add("fig"));
        assert!(set.add(String::from("kiwi")));
        let std: std::collections::BTreeSet<&str> = words.into_iter().chain(["kiwi"]).collect();
        assert_eq!(set.names().collect::<Vec<_>>(), std.into_iter().collect::<Vec<_>>());
    }
}
