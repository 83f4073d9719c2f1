//! Search terms: words split as people read tool names, lowercased, stop words dropped,
//! words stemmed (the Porter stemmer); the same for tools and for queries.

use super::porter;

/// The longest word indexed, in bytes (longer ones are noise: hashes, base64).
const MAX_WORD: usize = 40;

/// Words that carry no meaning for tool search: function words, a request's politeness, and
/// indefinite pronouns ("forget everything about anyone" asks for no tool named so).
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "anyone", "anything", "are", "as", "at", "be", "by", "can",
    "could", "do", "does", "everyone", "everything", "for", "from", "get", "give", "has", "have", "how", "i",
    "if", "in", "into", "is", "it", "its", "many", "me", "much", "my", "nothing", "of", "on", "or", "our",
    "please", "should", "show", "so", "some", "someone", "something", "that", "the", "their", "them", "then",
    "there", "these", "this", "to", "tool", "use", "using", "want", "was", "we", "what", "when", "which", "who",
    "will", "with", "would", "you", "your",
];

/// `text` cut to at most `max` bytes at a character boundary.
pub(super) fn cut(text: &str, max: usize) -> &str {
    &text[..text.floor_char_boundary(max)]
}

/// A tool name as a query would write it whole: lowercase, letters and digits only
/// (`file.read`, `file_read`, `fileRead` and `FileRead` are all `fileread`).
pub(super) fn normalised_name(name: &str) -> String {
    name.trim()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Calls `f` with each search term of `text`: words split at non-alphanumerics and camelCase
/// humps, lowercased, stop words and numbers dropped (a number in a request is a value, not
/// what the tool does: "26.2 miles"), stemmed (Porter). Letters and digits together stay one
/// word (`s3`, `base64`, `v2`).
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut term = Term::default();
    for_each_word(text, |word| {
        if let Some(t) = term.of(word) {
            f(t);
        }
    });
}

/// Turns the words of [`for_each_word`] into terms, reusing its buffers.
#[derive(Default)]
pub(super) struct Term {
    ascii: Vec<u8>,
    lower: String,
}

impl Term {
    /// The term of `word`, a word [`for_each_word`] gave: lowercased and stemmed; `None` for
    /// a stop word.
    pub(super) fn of(&mut self, word: &str) -> Option<&str> {
        if word.is_ascii() {
            self.ascii.clear();
            self.ascii.extend(word.bytes().map(|b| b.to_ascii_lowercase()));
            let stop = std::str::from_utf8(&self.ascii).is_ok_and(|w| STOP_WORDS.binary_search(&w).is_ok());
            if stop {
                return None;
            }
            porter::stem(&mut self.ascii);
            // Still ASCII: the stemmer only removes and adds ASCII letters.
            std::str::from_utf8(&self.ascii).ok()
        } else {
            self.lower.clear();
            self.lower.extend(word.chars().flat_map(char::to_lowercase));
            STOP_WORDS
                .binary_search(&self.lower.as_str())
                .is_err()
                .then_some(self.lower.as_str())
        }
    }
}

/// Calls `f` with each word of `text` that may be a term, as written: split at
/// non-alphanumerics and camelCase humps, numbers and words longer than `MAX_WORD` dropped.
pub(super) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut emit = |word: &str| {
        if !word.is_empty() && word.len() <= MAX_WORD && !word.chars().all(char::is_numeric) {
            f(word);
        }
    };
    let mut start = 0;
    let mut previous: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !c.is_alphanumeric() {
            emit(&text[start..i]);
            start = i + c.len_utf8();
            previous = None;
            continue;
        }
        if let Some(p) = previous {
            let next_lower = chars.peek().is_some_and(|&(_, n)| n.is_lowercase());
            let hump = (p.is_lowercase() && c.is_uppercase())
                // `HTTPServer`: the last capital of a run starts the next word.
                || (p.is_uppercase() && c.is_uppercase() && next_lower);
            if hump {
                emit(&text[start..i]);
                start = i;
            }
        }
        previous = Some(c);
    }
    emit(&text[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_term(text, |t| out.push(t.to_owned()));
        out
    }

    #[test]
    fn names_split_as_people_read_them() {
        assert_eq!(terms("readTextFile"), ["read", "text", "file"]);
        assert_eq!(terms("read_text_file"), ["read", "text", "file"]);
        assert_eq!(terms("file.read"), ["file", "read"]);
        assert_eq!(terms("HTTPServer v2"), ["http", "server", "v2"]);
        assert_eq!(
            terms("upload to s3, base64 encoded"),
            ["upload", "s3", "base64", "encod"]
        );
        assert_eq!(terms("how many kilometers is 26.2 miles"), ["kilomet", "mile"]);
        assert_eq!(terms("list the directories"), ["list", "directori"]);
        assert_eq!(terms("directory"), ["directori"]);
        assert_eq!(terms("Listing files"), ["list", "file"]);
        assert_eq!(terms("created creating create"), ["creat", "creat", "creat"]);
        assert_eq!(terms("boxes matches class"), ["box", "match", "class"]);
        assert_eq!(terms("über Straße"), ["über", "straße"]);
        assert!(terms("the of and to").is_empty());
        assert_eq!(terms("forget everything about anyone"), ["forget"]);
        assert!(terms("").is_empty());
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn cuts_at_character_boundaries() {
        assert_eq!(cut("ééé", 3), "é");
        assert_eq!(cut("abc", 10), "abc");
        assert_eq!(normalised_name("file.read"), "fileread");
        assert_eq!(normalised_name(" Read_File "), "readfile");
    }
}
