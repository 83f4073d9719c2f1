//! Words people use for what tools call otherwise: a query's terms are widened with their
//! group's other words (at a lower weight), so "folder" finds `list_directory` and "remember
//! that" finds a memory tool. Query-side only: the index does not depend on this table.
//!
//! The groups are general vocabulary of tool catalogs (files, code hosting, the web,
//! browsers, chat, maps, time, data), not the words of any one catalog; the retrieval
//! benchmark (`bench/search/`) measures them on requests written before and after the table.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::terms::for_each_term;

/// Each line a group of words that ask for the same thing.
const GROUPS: &[&str] = &[
    // Verbs of tools.
    "create make new add generate",
    "delete remove erase drop destroy trash",
    "update edit modify change alter replace patch",
    "find search lookup locate seek discover",
    "fetch retrieve download obtain grab pull",
    "read open view inspect look",
    "list enumerate browse catalog",
    "run execute exec invoke evaluate eval launch",
    "send post publish submit deliver dm",
    "write save store persist record",
    "move rename relocate",
    "copy duplicate clone",
    "compare diff difference changes",
    "summarize summary overview digest brief",
    "describe explain details info information",
    "convert conversion transform translate",
    "remember memorize memory note recall",
    "think reason reasoning plan step",
    "calculate compute count total",
    // Files and code.
    "directory folder dir subfolder subdirectory",
    "file document doc",
    "size large big space bytes",
    "tree hierarchy structure nested recursive",
    "repository repo project codebase",
    "issue ticket bug",
    "pull pr merge review",
    "commit checkin revision",
    "log history",
    "stage staging index",
    "status state",
    // The web and browsers.
    "web internet online website site page url link",
    "image picture photo screenshot snapshot capture png jpg",
    "click press tap",
    "fill type enter input form field",
    "select choose pick dropdown option",
    "hover mouse mouseover",
    "navigate go visit browse",
    "javascript js script console",
    // People and messages.
    "message chat conversation thread reply",
    "channel room",
    "user person people member account profile",
    "email mail inbox",
    "calendar event meeting schedule appointment",
    // Maps, places and time.
    "directions route drive driving travel commute",
    "elevation altitude height high sea",
    "distance far near nearby around within",
    "place shop store restaurant cafe coffee business venue",
    "address location geocode coordinates latitude longitude lat lng",
    "time clock hour date now",
    "timezone zone",
    "weather forecast temperature",
    "unit units meter metre kilometer kilometre mile miles foot feet inch pound kilogram gram celsius fahrenheit kelvin liter litre gallon",
    // Data.
    "database db sql table",
    "query sql select",
    "chart graph plot visualize diagram",
    "statistics stats mean average median deviation",
    "cite citation reference bibliography source",
    "knowledge graph entity entities relation relations observation",
];

/// The most extra terms a query gains.
pub(super) const MAX_EXTRA_TERMS: usize = 48;

/// Term → the terms of its groups (stemmed, as the index holds them), built once.
fn table() -> &'static HashMap<String, Vec<String>> {
    static TABLE: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<String, Vec<String>> = HashMap::new();
        for group in GROUPS {
            let mut terms: Vec<String> = Vec::new();
            for_each_term(group, |term| {
                if !terms.iter().any(|t| t == term) {
                    terms.push(term.to_owned());
                }
            });
            for term in &terms {
                let others = table.entry(term.clone()).or_default();
                for other in &terms {
                    if other != term && !others.contains(other) {
                        others.push(other.clone());
                    }
                }
            }
        }
        table
    })
}

/// The terms that ask for what `term` asks for, without `term`.
pub(super) fn of(term: &str) -> &'static [String] {
    table().get(term).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(word: &str) -> String {
        let mut out = String::new();
        for_each_term(word, |t| out.push_str(t));
        out
    }

    fn widened(word: &str) -> Vec<String> {
        of(&term(word)).to_vec()
    }

    #[test]
    fn a_word_finds_its_group_as_the_index_holds_it() {
        assert!(
            widened("folders").contains(&term("directory")),
            "{:?}",
            widened("folders")
        );
        assert!(widened("directory").contains(&term("folder")));
        assert!(widened("remember").contains(&term("memory")));
        assert!(widened("miles").contains(&term("unit")));
        assert!(widened("zebra").is_empty());
        assert!(!widened("folder").contains(&term("folder")), "not itself");
    }

    #[test]
    fn every_group_has_two_terms_or_more() {
        for group in GROUPS {
            let mut terms = Vec::new();
            for_each_term(group, |t| terms.push(t.to_owned()));
            terms.dedup();
            assert!(terms.len() >= 2, "{group}");
        }
    }
}
