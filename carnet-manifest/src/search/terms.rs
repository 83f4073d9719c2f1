//! Search terms: words split as people read tool names, lowercased, stop words dropped,
//! suffixes stripped; the same for tools and for queries.

/// The longest word indexed, in bytes (longer ones are noise: hashes, base64).
const MAX_WORD: usize = 40;

/// Words that carry no meaning for tool search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "do", "does", "for",
    "from", "get", "give", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "many", "me", "much",
    "my", "of", "on", "or", "our", "please", "should", "show", "so", "some", "that", "the", "their", "them", "then",
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
/// what the tool does: "26.2 miles"), suffixes stripped. Letters and digits together stay one
/// word (`s3`, `base64`, `v2`).
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut lower = String::new();
    let mut emit = |word: &str| {
        if word.is_empty() || word.len() > MAX_WORD || word.chars().all(char::is_numeric) {
            return;
        }
        lower.clear();
        if word.is_ascii() {
            lower.push_str(word);
            lower.make_ascii_lowercase();
        } else {
            lower.extend(word.chars().flat_map(char::to_lowercase));
        }
        if STOP_WORDS.binary_search(&lower.as_str()).is_err() {
            f(stem(&lower));
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

/// A light English suffix stripping, the same for queries and tools, so the forms of a word
/// meet: `files` and `file` → `fil`, `directories` and `directory` → `director`, `listing`
/// and `listed` → `list`, `created`, `creating` and `create` → `creat`, `boxes` → `box`.
/// Short and non-ASCII words are kept whole.
fn stem(word: &str) -> &str {
    if word.len() <= 3 || !word.is_ascii() {
        return word;
    }
    let long = |s: &str| s.len() >= 3;
    let stripped = if let Some(s) = word.strip_suffix("ies").filter(|s| long(s)) {
        s
    } else if let Some(s) = word.strip_suffix("ing").filter(|s| long(s)) {
        s
    } else if let Some(s) = word.strip_suffix("ed").filter(|s| long(s)) {
        s
    } else if let Some(s) = word
        .strip_suffix("es")
        .filter(|s| s.ends_with(['s', 'x', 'z']) || s.ends_with("ch") || s.ends_with("sh"))
    {
        s
    } else if let Some(s) = word.strip_suffix('s').filter(|s| long(s) && !s.ends_with('s')) {
        s
    } else if let Some(s) = word.strip_suffix('y').filter(|s| long(s)) {
        s
    } else {
        word
    };
    match stripped.strip_suffix('e') {
        Some(s) if long(s) => s,
        _ => stripped,
    }
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
        assert_eq!(terms("readTextFile"), ["read", "text", "fil"]);
        assert_eq!(terms("read_text_file"), ["read", "text", "fil"]);
        assert_eq!(terms("file.read"), ["fil", "read"]);
        assert_eq!(terms("HTTPServer v2"), ["http", "server", "v2"]);
        assert_eq!(
            terms("upload to s3, base64 encoded"),
            ["upload", "s3", "base64", "encod"]
        );
        assert_eq!(terms("how many kilometers is 26.2 miles"), ["kilometer", "mil"]);
        assert_eq!(terms("list the directories"), ["list", "director"]);
        assert_eq!(terms("directory"), ["director"]);
        assert_eq!(terms("Listing files"), ["list", "fil"]);
        assert_eq!(terms("created creating create"), ["creat", "creat", "creat"]);
        assert_eq!(terms("boxes matches class"), ["box", "match", "class"]);
        assert_eq!(terms("über Straße"), ["über", "straße"]);
        assert!(terms("the of and to").is_empty());
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
