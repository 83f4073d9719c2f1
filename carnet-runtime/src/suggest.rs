//! Did-you-mean: the one matcher behind every "similar" list and hint of the runtime and
//! the CLI.

use carnet_manifest::order;

/// The candidate closest to `name` (edit distance at most a third of its length).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    similar(name, candidates, 1).into_iter().next()
}

/// Up to `n` candidates close to `name`, closest first.
pub fn similar<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = edit_distance(&lower, &c.to_lowercase());
            let contains = c.to_lowercase().contains(&lower) || lower.contains(&c.to_lowercase());
            (d <= (name.chars().count().max(3) / 3).max(1) || contains).then_some((d, c))
        })
        .collect();
    order::sort(&mut scored);
    scored.into_iter().take(n).map(|(_, c)| c.to_owned()).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
