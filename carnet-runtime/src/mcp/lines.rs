//! Newline-delimited input read up to a limit (the stdio transport's framing): a line longer
//! than the limit is skipped as it arrives, never buffered whole.

use std::io;

use tokio::io::{AsyncBufReadExt as _, AsyncRead, BufReader};

/// What one read produced.
pub(super) enum Line {
    /// A whole line is in the buffer.
    Complete,
    /// The line was longer than the limit; its bytes were skipped.
    Oversized,
    /// End of stream.
    Eof,
}

/// Lines read up to a limit: a longer line is skipped, not buffered.
pub(super) struct Lines<R> {
    pub(super) read: BufReader<R>,
    pub(super) line: Vec<u8>,
    pub(super) discarding: bool,
    pub(super) max: usize,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(super) async fn next(&mut self) -> io::Result<Line> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                // A last line without a newline is still a line.
                return Ok(if self.discarding {
                    self.discarding = false;
                    Line::Oversized
                } else if self.line.is_empty() {
                    Line::Eof
                } else {
                    Line::Complete
                });
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(end) => (end + 1, true),
                None => (available.len(), false),
            };
            if !self.discarding {
                if self.line.len() + take > self.max.saturating_add(1) {
                    self.discarding = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(&available[..take]);
                }
            }
            self.read.consume(take);
            if done {
                return Ok(if std::mem::take(&mut self.discarding) {
                    Line::Oversized
                } else {
                    Line::Complete
                });
            }
        }
    }
}
