//! A small Redis client: RESP2 over one TCP connection, commands pipelined, every reply
//! bounded in size and depth. The caller bounds each exchange in time and drops a
//! connection whose exchange did not end (its stream is out of step).

use std::io;

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;

/// The longest status, error or number line read.
const MAX_LINE: usize = 64 * 1024;
/// The largest bulk string read (a task with its history, a conversation).
pub(super) const MAX_BULK: usize = 64 * 1024 * 1024;
/// The most elements of one array.
const MAX_ARRAY: usize = 1_000_000;
/// The deepest nesting of arrays (`XREAD` answers with four levels).
const MAX_DEPTH: usize = 6;

/// A reply of Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reply {
    /// `+OK`.
    Status(String),
    /// `-ERR ...`: the command failed.
    Error(String),
    /// `:N`.
    Integer(i64),
    /// `$N`: `None` for the null bulk string.
    Bulk(Option<Vec<u8>>),
    /// `*N`: `None` for the null array.
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// The bulk string as UTF-8 text; `None` for nil.
    pub(super) fn text(self) -> Result<Option<String>, String> {
        match self {
            Reply::Bulk(None) | Reply::Array(None) => Ok(None),
            Reply::Bulk(Some(bytes)) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| "a reply that is not UTF-8".to_owned()),
            Reply::Status(text) => Ok(Some(text)),
            other => Err(unexpected(&other)),
        }
    }

    /// The integer reply.
    pub(super) fn integer(self) -> Result<i64, String> {
        match self {
            Reply::Integer(n) => Ok(n),
            other => Err(unexpected(&other)),
        }
    }

    /// The array's elements; empty for the null array.
    pub(super) fn array(self) -> Result<Vec<Reply>, String> {
        match self {
            Reply::Array(items) => Ok(items.unwrap_or_default()),
            other => Err(unexpected(&other)),
        }
    }

    /// The reply, or the command's error.
    pub(super) fn ok(self) -> Result<Reply, String> {
        match self {
            Reply::Error(message) => Err(format!("it answered `{}`", clip(&message))),
            other => Ok(other),
        }
    }
}

fn unexpected(reply: &Reply) -> String {
    match reply {
        Reply::Error(message) => format!("it answered `{}`", clip(message)),
        other => format!("an unexpected reply ({})", kind(other)),
    }
}

fn kind(reply: &Reply) -> &'static str {
    match reply {
        Reply::Status(_) => "a status",
        Reply::Error(_) => "an error",
        Reply::Integer(_) => "an integer",
        Reply::Bulk(_) => "a string",
        Reply::Array(_) => "an array",
    }
}

/// At most 200 characters of what Redis said.
fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}

/// One connection to Redis.
#[derive(Debug)]
pub(super) struct Connection {
    stream: BufReader<TcpStream>,
}

impl Connection {
    /// Connects to `addr` (`host:port`). The caller bounds the time.
    pub(super) async fn connect(addr: &str) -> io::Result<Connection> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream: BufReader::new(stream),
        })
    }

    /// Sends `commands` at once and reads one reply to each, in order. An error reply is a
    /// [`Reply::Error`]; an `Err` is the connection's (closed, or a reply that is not RESP
    /// or is too large), after which the connection is of no further use.
    pub(super) async fn run(&mut self, commands: &[Vec<Vec<u8>>]) -> Result<Vec<Reply>, String> {
        let mut bytes = Vec::new();
        for command in commands {
            encode(command, &mut bytes);
        }
        self.stream
            .get_mut()
            .write_all(&bytes)
            .await
            .map_err(|e| format!("cannot send: {e}"))?;
        let mut replies = Vec::with_capacity(commands.len());
        for _ in commands {
            replies.push(read(&mut self.stream, 0).await?);
        }
        Ok(replies)
    }
}

/// A command as RESP: an array of bulk strings.
pub(super) fn encode(command: &[Vec<u8>], out: &mut Vec<u8>) {
    out.extend_from_slice(format!("*{}\r\n", command.len()).as_bytes());
    for argument in command {
        out.extend_from_slice(format!("${}\r\n", argument.len()).as_bytes());
        out.extend_from_slice(argument);
        out.extend_from_slice(b"\r\n");
    }
}

/// One reply; arrays read element by element, at most [`MAX_DEPTH`] deep.
fn read<R>(reader: &mut R, depth: usize) -> crate::dispatch::BoxFuture<'_, Result<Reply, String>>
where
    R: tokio::io::AsyncBufRead + Unpin + Send,
{
    Box::pin(async move {
        let line = read_line(reader).await?;
        let (&kind, rest) = line.split_first().ok_or("an empty line where a reply belongs")?;
        let text = std::str::from_utf8(rest).map_err(|_| "a reply line that is not UTF-8".to_owned())?;
        match kind {
            b'+' => Ok(Reply::Status(text.to_owned())),
            b'-' => Ok(Reply::Error(text.to_owned())),
            b':' => text
                .parse()
                .map(Reply::Integer)
                .map_err(|_| format!("`{}` where an integer belongs", clip(text))),
            b'$' => {
                let Some(len) = length(text, MAX_BULK)? else {
                    return Ok(Reply::Bulk(None));
                };
                let mut bytes = vec![0; len + 2];
                reader
                    .read_exact(&mut bytes)
                    .await
                    .map_err(|e| format!("cannot read a reply: {e}"))?;
                if !bytes.ends_with(b"\r\n") {
                    return Err("a string reply not ended by CRLF".to_owned());
                }
                bytes.truncate(len);
                Ok(Reply::Bulk(Some(bytes)))
            }
            b'*' => {
                let Some(len) = length(text, MAX_ARRAY)? else {
                    return Ok(Reply::Array(None));
                };
                if depth >= MAX_DEPTH {
                    return Err(format!("arrays nested deeper than {MAX_DEPTH}"));
                }
                let mut items = Vec::with_capacity(len.min(1024));
                for _ in 0..len {
                    items.push(read(reader, depth + 1).await?);
                }
                Ok(Reply::Array(Some(items)))
            }
            other => Err(format!(
                "a reply starting with byte {other:#04x}, which is not RESP (is this Redis?)"
            )),
        }
    })
}

/// The length of a bulk string or array: `None` for -1 (nil).
fn length(text: &str, max: usize) -> Result<Option<usize>, String> {
    if text == "-1" {
        return Ok(None);
    }
    match text.parse::<usize>() {
        Ok(len) if len <= max => Ok(Some(len)),
        Ok(len) => Err(format!("a reply of {len} elements or bytes, more than the {max} read")),
        Err(_) => Err(format!("`{}` where a length belongs", clip(text))),
    }
}

/// A line without its CRLF, at most [`MAX_LINE`] bytes.
async fn read_line<R>(reader: &mut R) -> Result<Vec<u8>, String>
where
    R: tokio::io::AsyncBufRead + Unpin + Send,
{
    let mut line = Vec::new();
    loop {
        let buffer = reader
            .fill_buf()
            .await
            .map_err(|e| format!("cannot read a reply: {e}"))?;
        if buffer.is_empty() {
            return Err("the connection closed before the reply ended".to_owned());
        }
        let (taken, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buffer.len(), false),
        };
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken);
        if line.len() > MAX_LINE + 2 {
            return Err(format!("a reply line longer than {MAX_LINE} bytes"));
        }
        if done {
            if !line.ends_with(b"\r\n") {
                return Err("a reply line not ended by CRLF".to_owned());
            }
            line.truncate(line.len() - 2);
            return Ok(line);
        }
    }
}

/// A command from its arguments: `command(&[&"SET", &key, &value])`.
pub(super) fn command(arguments: &[&(dyn AsRef<[u8]> + Sync)]) -> Vec<Vec<u8>> {
    arguments.iter().map(|a| (*a).as_ref().to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn parse(bytes: &[u8]) -> Result<Reply, String> {
        let mut reader = BufReader::new(bytes);
        read(&mut reader, 0).await
    }

    #[tokio::test]
    async fn replies_of_every_kind() {
        assert_eq!(parse(b"+OK\r\n").await, Ok(Reply::Status("OK".into())));
        assert_eq!(parse(b"-ERR no\r\n").await, Ok(Reply::Error("ERR no".into())));
        assert_eq!(parse(b":-12\r\n").await, Ok(Reply::Integer(-12)));
        assert_eq!(parse(b"$-1\r\n").await, Ok(Reply::Bulk(None)));
        assert_eq!(
            parse(b"$3\r\na\r\n\r\n").await,
            Ok(Reply::Bulk(Some(b"a\r\n".to_vec())))
        );
        assert_eq!(
            parse(b"*2\r\n$1\r\nx\r\n*1\r\n:1\r\n").await,
            Ok(Reply::Array(Some(vec![
                Reply::Bulk(Some(b"x".to_vec())),
                Reply::Array(Some(vec![Reply::Integer(1)]))
            ])))
        );
    }

    #[tokio::test]
    async fn garbage_is_an_error_never_a_hang_or_a_huge_allocation() {
        for garbage in [
            &b"HTTP/1.1 400 Bad Request\r\n"[..],
            b"$99999999999\r\n",
            b"*99999999999\r\n",
            b"$5\r\nab",
            b"$2\r\nabcd",
            b":x\r\n",
            b"+OK",
            b"",
            b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
        ] {
            assert!(parse(garbage).await.is_err(), "{}", String::from_utf8_lossy(garbage));
        }
        let long = vec![b'+'; MAX_LINE + 10];
        assert!(parse(&long).await.is_err());
    }

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        let mut out = Vec::new();
        encode(&command(&[&"SET", &"k", &"v\r\n"]), &mut out);
        assert_eq!(out, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nv\r\n\r\n");
    }
}
