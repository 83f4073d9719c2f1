//! JSON strings written as `serde_json` writes them, byte for byte, at close to the speed of
//! copying them: a system prompt is most of a request body, and `serde_json` looks at each of
//! its bytes in turn. Runs without anything to escape are found eight bytes at a time and
//! copied whole.

use std::io::{self, Write};

/// What `serde_json` writes for an ASCII byte that needs escaping (`0` for none): the short
/// escapes it knows, `u` for `\u00XX` (lowercase hex).
const ESCAPE: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Non-zero when one of the eight bytes of `word` is a control character, `"` or `\`.
fn escapes(word: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    control | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')))
}

/// Where the first byte of `bytes` that needs an escape is (`bytes.len()` if none): whole
/// blocks of 32 bytes, then words of 8, checked without a branch per byte. In a word, the
/// lowest byte [`escapes`] flags is exact (a borrow only ever flags bytes above a true one),
/// so the escape is found without stepping through its word.
fn first_escape(bytes: &[u8]) -> usize {
    let word = |chunk: &[u8]| u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
    let mut clean = 0;
    for block in bytes.chunks_exact(32) {
        let (a, rest) = block.split_at(8);
        let (b, rest) = rest.split_at(8);
        let (c, d) = rest.split_at(8);
        if escapes(word(a)) | escapes(word(b)) | escapes(word(c)) | escapes(word(d)) != 0 {
            break;
        }
        clean += 32;
    }
    for chunk in bytes[clean..].chunks_exact(8) {
        let flagged = escapes(word(chunk));
        if flagged != 0 {
            return clean + (flagged.trailing_zeros() / 8) as usize;
        }
        clean += 8;
    }
    bytes[clean..]
        .iter()
        .position(|&b| ESCAPE.get(usize::from(b)).is_some_and(|&e| e != 0))
        .map_or(bytes.len(), |at| clean + at)
}

/// Writes `text` as a JSON string, quotes included: the bytes `serde_json::to_writer` gives.
///
/// # Errors
///
/// When `out` fails.
pub(crate) fn write_str<W: Write + ?Sized>(out: &mut W, text: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    write_inner(out, text.as_bytes())?;
    out.write_all(b"\"")
}

/// Writes the inside of a JSON string of UTF-8 bytes, without the quotes. Escapes are per
/// byte (bytes of multi-byte characters are written as they are), so any cut of the text
/// gives its part of the whole.
pub(crate) fn write_inner<W: Write + ?Sized>(out: &mut W, bytes: &[u8]) -> io::Result<()> {
    write_escaped::<W, false>(out, bytes)
}

/// [`write_inner`], or with `TWICE` the inside of a string whose text is the JSON string
/// of `bytes` (a string inside a value's JSON text sent as a string): each escape escaped
/// again (a newline `\\n`, a quote `\\\"`), in one pass.
fn write_escaped<W: Write + ?Sized, const TWICE: bool>(out: &mut W, bytes: &[u8]) -> io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let (mut start, mut at) = (0, 0);
    while at < bytes.len() {
        at += first_escape(&bytes[at..]);
        let Some(&byte) = bytes.get(at) else { break };
        let escape = ESCAPE.get(usize::from(byte)).copied().unwrap_or(0);
        out.write_all(&bytes[start..at])?;
        let (high, low) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]);
        match (escape, TWICE) {
            (b'u', false) => out.write_all(&[b'\\', b'u', b'0', b'0', high, low])?,
            (b'u', true) => out.write_all(&[b'\\', b'\\', b'u', b'0', b'0', high, low])?,
            (b'"' | b'\\', true) => out.write_all(&[b'\\', b'\\', b'\\', escape])?,
            (_, true) => out.write_all(&[b'\\', b'\\', escape])?,
            (_, false) => out.write_all(&[b'\\', escape])?,
        }
        at += 1;
        start = at;
    }
    out.write_all(&bytes[start..])
}

/// Writes the text of `value` as a JSON string: a string as it is, anything else as its JSON
/// text (a tool result's text, a call's arguments as `OpenAI` sends them). The bytes
/// `serde_json` writes for that text as a string, without making it: the value's strings
/// are escaped twice in one pass.
///
/// # Errors
///
/// When `out` fails.
pub(crate) fn write_value_text<W: Write + ?Sized>(out: &mut W, value: &serde_json::Value) -> io::Result<()> {
    if let serde_json::Value::String(text) = value {
        return write_str(out, text);
    }
    out.write_all(b"\"")?;
    write_value_in::<W, true>(out, value)?;
    out.write_all(b"\"")
}

/// Writes `value` as `serde_json::to_writer` does, its strings (most of a tool's result)
/// escaped by [`write_str`], many bytes at a time, where `serde_json` looks at each byte.
///
/// # Errors
///
/// When `out` fails.
pub(crate) fn write_value<W: Write + ?Sized>(out: &mut W, value: &serde_json::Value) -> io::Result<()> {
    write_value_in::<W, false>(out, value)
}

/// [`write_value`]; with `TWICE`, as the inside of a JSON string of that text (the
/// structure, numbers and literals need no escape; strings are escaped twice).
fn write_value_in<W: Write + ?Sized, const TWICE: bool>(out: &mut W, value: &serde_json::Value) -> io::Result<()> {
    let string = |out: &mut W, text: &str| {
        let quote: &[u8] = if TWICE { b"\\\"" } else { b"\"" };
        out.write_all(quote)?;
        write_escaped::<W, TWICE>(out, text.as_bytes())?;
        out.write_all(quote)
    };
    match value {
        serde_json::Value::String(text) => string(out, text),
        serde_json::Value::Array(items) => {
            out.write_all(b"[")?;
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.write_all(b",")?;
                }
                write_value_in::<W, TWICE>(out, item)?;
            }
            out.write_all(b"]")
        }
        serde_json::Value::Object(fields) => {
            out.write_all(b"{")?;
            for (n, (key, item)) in fields.iter().enumerate() {
                if n > 0 {
                    out.write_all(b",")?;
                }
                string(out, key)?;
                out.write_all(b":")?;
                write_value_in::<W, TWICE>(out, item)?;
            }
            out.write_all(b"}")
        }
        other => serde_json::to_writer(&mut *out, other).map_err(io::Error::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(text: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, text).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_ascii_byte_in_every_position_as_serde_json_writes_it() {
        for byte in 0u8..0x80 {
            let c = char::from(byte);
            for text in [
                c.to_string(),
                format!("abcdefg{c}"),
                format!("{c}abcdefghijklmnop"),
                format!("abc{c}defghij{c}{c}kl"),
            ] {
                assert_eq!(ours(&text), serde_json::to_string(&text).unwrap(), "byte {byte:#x}");
            }
        }
    }

    #[test]
    fn a_value_text_as_serde_json_writes_its_string() {
        let values = [
            serde_json::json!("plain \"quoted\"\n\u{2028}🦀"),
            serde_json::json!({"content": "# T\n\n\"q\" \\ \t\u{1}\u{7f}é 漢字 🦀 \u{2028}", "n": [1, 2.5, null, true]}),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!([{"a\"\n": [[], {}, 1e300, -0.0, u64::MAX, i64::MIN]}, "\u{1f980}"]),
            serde_json::json!(null),
            serde_json::json!(-3),
        ];
        let every_byte = (0u8..0x80).map(|byte| {
            let c = char::from(byte);
            serde_json::json!({format!("k{c}"): [format!("{c}abcdefghijklmnopqrstuvwxyz0123456789{c}x{c}{c}"), c.to_string()]})
        });
        for value in values.into_iter().chain(every_byte) {
            let text = match &value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let mut out = Vec::new();
            write_value_text(&mut out, &value).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&text).unwrap());
            let mut out = Vec::new();
            write_value(&mut out, &value).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), value.to_string());
        }
    }

    #[test]
    fn bytes_next_to_an_escape_in_any_two_positions_as_serde_json_writes_them() {
        // The bytes around the ones flagged in a word (a borrow flags bytes above an
        // escape, never below it): every pair, at every two places of 17 bytes.
        let near = [
            '\0', '\u{1}', '\u{1f}', ' ', '!', '"', '#', '[', '\\', ']', '\u{7f}', 'é', 'x',
        ];
        for a in near {
            for b in near {
                for i in 0..17 {
                    for j in i + 1..17 {
                        let mut text: Vec<char> = vec!['y'; 17];
                        text[i] = a;
                        text[j] = b;
                        let text: String = text.into_iter().collect();
                        assert_eq!(ours(&text), serde_json::to_string(&text).unwrap(), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn mixed_text_as_serde_json_writes_it() {
        let samples = [
            "",
            "plain text longer than one word of eight bytes",
            "# Title\n\nA line with \"quotes\", a \\ backslash,\ta tab and é, 漢字, 🦀.\r\n",
            "\u{7f}\u{80}\u{ff}\u{2028}\u{2029}\u{1f}\u{0}",
            "ends with an escape\n",
        ];
        for text in samples {
            assert_eq!(ours(text), serde_json::to_string(text).unwrap(), "{text:?}");
        }
        // Every length and offset of a run around an escape.
        for len in 0..40 {
            for at in 0..len {
                let mut text: String = "x".repeat(len);
                text.replace_range(at..=at, "\n");
                assert_eq!(ours(&text), serde_json::to_string(&text).unwrap());
            }
        }
    }
}
