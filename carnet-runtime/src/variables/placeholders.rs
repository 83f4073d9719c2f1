//! Finding `{{ NAME }}` placeholders in a text, in one linear pass.

use std::iter::FusedIterator;
use std::ops::Range;

/// The placeholders of a text, from [`Variables::placeholders`](super::Variables::placeholders): `(byte range, name)`.
#[derive(Debug, Clone)]
pub struct Placeholders<'a> {
    text: &'a str,
    /// Where the search resumes; always a char boundary (just after a `{` or a `}}`).
    pos: usize,
}

impl<'a> Placeholders<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Placeholders { text, pos: 0 }
    }
}

impl<'a> Iterator for Placeholders<'a> {
    type Item = (Range<usize>, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let text = self.text;
        let bytes = text.as_bytes();
        loop {
            // `find(char)` is a `memchr` search.
            let at = self.pos + text.get(self.pos..)?.find('{')?;
            self.pos = at + 1;
            if bytes.get(at + 1) != Some(&b'{') {
                continue;
            }
            if let Some((end, name)) = placeholder_at(text, at) {
                self.pos = end;
                return Some((at..end, &text[name]));
            }
            // No placeholder at `at`: the next candidate may start at `at + 1` (`{{{ X }}}`).
        }
    }
}

impl FusedIterator for Placeholders<'_> {}

/// The placeholder starting with the `{{` at `at`: its end and the range of its name.
///
/// Linear overall: the bytes this looks at after `{{` (whitespace and name bytes) hold no
/// `{`, so the next search only passes over them once more.
fn placeholder_at(text: &str, at: usize) -> Option<(usize, Range<usize>)> {
    let bytes = text.as_bytes();
    let start = skip_whitespace(text, at + 2);
    if !is_name_start(*bytes.get(start)?) {
        return None;
    }
    let mut end = start + 1;
    while bytes.get(end).is_some_and(|&b| is_name_byte(b)) {
        end += 1;
    }
    let close = skip_whitespace(text, end);
    (bytes.get(close..close + 2)? == b"}}").then_some((close + 2, start..end))
}

/// The first position from `i` (a char boundary) that is not whitespace.
fn skip_whitespace(text: &str, mut i: usize) -> usize {
    let bytes = text.as_bytes();
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii() {
            if !char::from(b).is_whitespace() {
                break;
            }
            i += 1;
        } else {
            match text[i..].chars().next() {
                Some(c) if c.is_whitespace() => i += c.len_utf8(),
                _ => break,
            }
        }
    }
    i
}

pub(super) const fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(super) const fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
