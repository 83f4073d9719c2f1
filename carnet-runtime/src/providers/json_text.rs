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

/// How many bytes from the start of `bytes` surely need no escape: whole blocks of 32
/// bytes, then words of 8, checked without a branch per byte.
fn clean_prefix(bytes: &[u8]) -> usize {
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
        if escapes(word(chunk)) != 0 {
            break;
        }
        clean += 8;
    }
    clean
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
    let (mut start, mut at) = (0, 0);
    while at < bytes.len() {
        at += clean_prefix(&bytes[at..]);
        let Some(&byte) = bytes.get(at) else { break };
        let escape = ESCAPE.get(usize::from(byte)).copied().unwrap_or(0);
        if escape == 0 {
            at += 1;
            continue;
        }
        out.write_all(&bytes[start..at])?;
        if escape == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.write_all(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ])?;
        } else {
            out.write_all(&[b'\\', escape])?;
        }
        at += 1;
        start = at;
    }
    out.write_all(&bytes[start..])
}

/// What is written through it goes out as the inside of a JSON string (see [`write_inner`]):
/// a value serialized through it is its JSON text escaped once, without the text kept.
struct Escaping<'w, W: ?Sized>(&'w mut W);

impl<W: Write + ?Sized> Write for Escaping<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write_inner(self.0, buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        write_inner(self.0, buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Writes the text of `value` as a JSON string: a string as it is, anything else as its JSON
/// text (a tool result's text, a call's arguments as `OpenAI` sends them). The bytes
/// `serde_json` writes for that text as a string, without making it.
///
/// # Errors
///
/// When `out` fails.
pub(crate) fn write_value_text<W: Write + ?Sized>(out: &mut W, value: &serde_json::Value) -> io::Result<()> {
    if let serde_json::Value::String(text) = value {
        return write_str(out, text);
    }
    out.write_all(b"\"")?;
    serde_json::to_writer(Escaping(&mut *out), value).map_err(io::Error::from)?;
    out.write_all(b"\"")
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
            serde_json::json!(null),
            serde_json::json!(-3),
        ];
        for value in values {
            let text = match &value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let mut out = Vec::new();
            write_value_text(&mut out, &value).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&text).unwrap());
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
