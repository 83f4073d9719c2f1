//! Server-sent events (`text/event-stream`), decoded from bytes in any chunking, each event
//! bounded by [`MAX_EVENT_BYTES`].

use super::common::ProviderError;

/// The largest event (all its `data:` lines) a stream may send: far above any real event,
/// it bounds the memory a hostile server can make the decoder hold.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// Server-sent events (the `text/event-stream` format), decoded from bytes in any chunking.
#[derive(Debug, Default)]
pub(super) struct SseDecoder {
    /// The bytes of the line being read.
    line: Vec<u8>,
    /// The current event's `event:` field.
    event: String,
    /// The current event's data, its `data:` lines joined by `\n`.
    data: String,
    /// Whether the current event has a `data:` line.
    has_data: bool,
    /// The last byte was a `\r` (so a following `\n` ends nothing more).
    after_cr: bool,
}

impl SseDecoder {
    /// Decodes `bytes`, calling `on_event(event, data)` for each complete event.
    pub(super) fn feed(
        &mut self,
        bytes: &[u8],
        on_event: &mut dyn FnMut(&str, &str) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        for &byte in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => self.end_line(on_event)?,
                _ => {
                    self.line.push(byte);
                    if self.line.len() + self.data.len() > MAX_EVENT_BYTES {
                        return Err(ProviderError::Response {
                            message: format!("a streamed event is larger than {MAX_EVENT_BYTES} bytes"),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn end_line(
        &mut self,
        on_event: &mut dyn FnMut(&str, &str) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if self.has_data {
                on_event(&self.event, &self.data)?;
            }
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            return Ok(());
        }
        let line = String::from_utf8(line).map_err(|_| ProviderError::Response {
            message: "a streamed event is not UTF-8".to_owned(),
        })?;
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {} // comments (`: ping`), `id`, `retry`
        }
        Ok(())
    }
}
