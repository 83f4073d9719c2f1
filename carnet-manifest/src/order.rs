//! Sorting and collecting maps with one copy of the standard library's sort for all of carnet.
//!
//! Every `slice::sort_by` with a closure of its own, and every `BTreeMap` (so every
//! `serde_json::Map`) collected from an iterator of its own type, compiles the whole of the
//! standard library's sort again: about 4,000 lines of LLVM IR each in a debug build. carnet's
//! crates had some fifty of them, a sixth of the runtime's code and a fifth of this crate's,
//! compiled in every author's build. The functions here sort a list of positions instead,
//! with the comparison behind a `dyn`, so that sort is compiled once, in this crate; what
//! stays generic is a loop over the items. They are for the lists sorted once (a manifest's
//! entities, a directory, diagnostics, JSON objects); the sorts on a hot path (a request's
//! aliases, a query's hits) keep the standard library's, specialised for their comparison.
//!
//! Used by carnet's crates; not part of the API.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Sorts `items` by `compare`, stably (equal items keep their order), as `slice::sort_by`.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = positions(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` by the key `key` gives, stably, as `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` in their own order, stably, as `slice::sort`.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// A map of `pairs`, the last value kept for a key given twice, as `collect()` makes it
/// (inserted one by one: `BTreeMap`'s `FromIterator` sorts its input first).
pub fn map<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(pairs);
    map
}

/// A JSON object of `pairs`, the last value kept for a key given twice, as `collect()`
/// makes it.
pub fn object(
    pairs: impl IntoIterator<Item = (String, serde_json::Value)>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut object = serde_json::Map::new();
    object.extend(pairs);
    object
}

/// The positions `0..len` in the order `compare` (of two positions) gives, stably: the one
/// sort compiled for all of the above, and for a caller that wants the order, not the
/// items moved.
pub fn positions(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Rearranges `items` so that `items[i]` is what `items[order[i]]` was, following each cycle
/// of the permutation with swaps (`order` is a permutation of the positions).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the cases are the same on every run.
    fn numbers(seed: u64, count: usize, below: u64) -> Vec<u64> {
        let mut state = seed.max(1);
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % below
            })
            .collect()
    }

    #[test]
    fn sorts_as_the_standard_library_does_and_keeps_equal_items_in_order() {
        for (seed, count, below) in [
            (1, 0, 1),
            (2, 1, 1),
            (3, 2, 2),
            (4, 17, 3),
            (5, 100, 10),
            (6, 1000, 1000),
            (7, 5000, 7),
        ] {
            // Each item is its key and its first position, so a stable sort has one answer.
            let items: Vec<(u64, usize)> = numbers(seed, count, below)
                .into_iter()
                .enumerate()
                .map(|(i, k)| (k, i))
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|&(key, _)| key);
            let mut got = items.clone();
            sort_by_key(&mut got, |&(key, _)| key);
            assert_eq!(got, expected, "seed {seed}");
            let mut got = items.clone();
            sort_by(&mut got, |a, b| b.0.cmp(&a.0));
            let mut reversed = items.clone();
            reversed.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
            assert_eq!(got, reversed, "seed {seed}, descending");
            let mut got = items;
            sort(&mut got);
            expected.sort_unstable();
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn moves_items_that_own_memory() {
        let mut names: Vec<String> = ["delta", "alpha", "charlie", "bravo", "alpha"]
            .map(String::from)
            .to_vec();
        sort(&mut names);
        assert_eq!(names, ["alpha", "alpha", "bravo", "charlie", "delta"]);
    }

    #[test]
    fn maps_keep_the_last_value_of_a_key_as_collect_does() {
        let pairs = [("b", 1), ("a", 2), ("b", 3)];
        assert_eq!(map(pairs), pairs.into_iter().collect::<BTreeMap<_, _>>());
        let json = [
            ("k".to_owned(), serde_json::json!(1)),
            ("a".to_owned(), serde_json::json!(2)),
            ("k".to_owned(), serde_json::json!(3)),
        ];
        assert_eq!(
            object(json.clone()),
            json.into_iter().collect::<serde_json::Map<_, _>>()
        );
    }
}
