//! How alike two names are, for the "did you mean" of diagnostics: the Jaro–Winkler
//! similarity, over characters (as the `strsim` crate computes it; a test checks the two
//! agree), written here so that no author's build compiles a crate for one function.

/// The Jaro–Winkler similarity of `a` and `b`, from 0 (nothing alike) to 1 (equal): the Jaro
/// similarity, raised for a common prefix of up to four characters when it is above 0.7.
pub(crate) fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let similarity = jaro(&a, &b);
    if similarity > 0.7 {
        let prefix = a.iter().take(4).zip(&b).take_while(|(x, y)| x == y).count();
        similarity + 0.1 * count(prefix) * (1.0 - similarity)
    } else {
        similarity
    }
}

/// The Jaro similarity: the characters the two share within a window of half the longer
/// one, and how many of those are out of order.
fn jaro(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut in_a = vec![false; a.len()];
    let mut in_b = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, x) in a.iter().enumerate() {
        for j in i.saturating_sub(window)..b.len().min(i + window + 1) {
            if !in_b[j] && b[j] == *x {
                in_a[i] = true;
                in_b[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let mut matched_b = b.iter().zip(&in_b).filter(|(_, m)| **m).map(|(c, _)| c);
    let out_of_order = a
        .iter()
        .zip(&in_a)
        .filter(|(_, m)| **m)
        .filter(|(x, _)| matched_b.next().is_some_and(|y| y != *x))
        .count();
    let m = count(matches);
    (m / count(a.len()) + m / count(b.len()) + count(matches - out_of_order / 2) / m) / 3.0
}

/// A count as a float, exactly (names are far shorter than 2³² characters).
fn count(n: usize) -> f64 {
    f64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::jaro_winkler;

    #[test]
    fn agrees_with_strsim() {
        let (long, longer) = ("x".repeat(40), "xy".repeat(20));
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "cab",
            "name",
            "names",
            "nmae",
            "description",
            "descriptoin",
            "toolsets",
            "toolset",
            "tools",
            "allowed-tools",
            "allowedTools",
            "readOnlyHint",
            "readonlyhint",
            "destructiveHint",
            "search_files",
            "searchFiles",
            "notes",
            "notez",
            "Friedrich Nietzsche",
            "Jean-Paul Sartre",
            "cheeseburger",
            "cheese fries",
            "dixon",
            "dicksonx",
            "martha",
            "marhta",
            "ünïcödé",
            "unicode",
            "日本語",
            "日本",
            "aaaa",
            "aaab",
            "abab",
            "baba",
            &long,
            &longer,
        ];
        for a in words {
            for b in words {
                let (ours, theirs) = (jaro_winkler(a, b), strsim::jaro_winkler(a, b));
                assert!(
                    ours.to_bits() == theirs.to_bits(),
                    "{a:?} / {b:?}: {ours} against {theirs}"
                );
            }
        }
    }

    #[test]
    fn known_values() {
        assert!((jaro_winkler("martha", "marhta") - 0.9611).abs() < 1e-4);
        assert!((jaro_winkler("dixon", "dicksonx") - 0.8133).abs() < 1e-4);
        assert_eq!(jaro_winkler("", "").to_bits(), 1f64.to_bits());
        assert_eq!(jaro_winkler("abc", "").to_bits(), 0f64.to_bits());
        assert_eq!(jaro_winkler("abc", "xyz").to_bits(), 0f64.to_bits());
    }
}
