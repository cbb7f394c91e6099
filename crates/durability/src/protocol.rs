//! The witness protocol: one JSON object per line over TCP, each request answered in order.
//! Documented in docs/durability-protocol.md; serde_json does the parsing, and lines are read
//! with a hard length limit so no message can grow the reader's memory.

use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Read};

/// Protocol version; a witness refuses a client that speaks another.
pub const VERSION: u32 = 1;
/// The longest line either side accepts, newline included. Real messages are under 300 bytes.
pub const MAX_LINE: usize = 4096;
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7810";

/// What a client sends. The first message of every connection is `hello`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    Hello {
        version: u32,
        token: String,
    },
    /// Starts a run on `file` (named `host:path`): the witness forgets what it knew of it.
    Create {
        file: String,
        size: u64,
        block: u32,
    },
    /// Block `block` is about to be written with record `seq` whose checksum is `sum`.
    Intent {
        file: String,
        block: u64,
        seq: u64,
        sum: u32,
    },
    /// Record `seq` in `block` was made durable (its sync returned).
    Ack {
        file: String,
        block: u64,
        seq: u64,
    },
    /// Asks for every block the witness knows of `file`: answered by `info`, `block`s, `end`.
    Verify {
        file: String,
    },
}

/// One record as the witness keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rec {
    pub seq: u64,
    pub sum: u32,
    /// Milliseconds since the Unix epoch when the witness recorded it.
    pub ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "r", rename_all = "snake_case")]
pub enum Reply {
    Ok,
    Error {
        error: String,
    },
    Info {
        size: u64,
        block: u32,
        blocks: u64,
        last_ms: u64,
    },
    Block {
        block: u64,
        acked: Option<Rec>,
        intent: Option<Rec>,
    },
    End {
        blocks: u64,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("message longer than {MAX_LINE} bytes")]
    TooLong,
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Reads one line into `buf` (without its newline); `Ok(false)` at end of stream. A line over
/// [`MAX_LINE`] is an error after reading at most that much of it.
pub fn read_line<R: BufRead>(r: &mut R, buf: &mut Vec<u8>) -> Result<bool, LineError> {
    buf.clear();
    let n = r.by_ref().take(MAX_LINE as u64).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(false);
    }
    if buf.last() != Some(&b'\n') {
        if n >= MAX_LINE {
            return Err(LineError::TooLong);
        }
        // The stream ended mid-line: treat what came as the last line.
        return Ok(true);
    }
    buf.pop();
    Ok(true)
}

/// A message as one line, newline included.
pub fn line<T: Serialize>(m: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec(m).expect("protocol messages serialize");
    v.push(b'\n');
    v
}

/// Compares secrets in time independent of where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_longer_than_the_limit_is_refused_after_reading_only_the_limit() {
        let big = vec![b'x'; 100 * MAX_LINE];
        let mut r = io::BufReader::new(&big[..]);
        let mut buf = Vec::new();
        assert!(matches!(
            read_line(&mut r, &mut buf),
            Err(LineError::TooLong)
        ));
        assert!(buf.len() <= MAX_LINE);
    }

    #[test]
    fn lines_round_trip_through_serde() {
        let m = Request::Intent {
            file: "h:/f".into(),
            block: 7,
            seq: 9,
            sum: 3,
        };
        let l = line(&m);
        let mut r = io::BufReader::new(&l[..]);
        let mut buf = Vec::new();
        assert!(read_line(&mut r, &mut buf).unwrap());
        assert_eq!(serde_json::from_slice::<Request>(&buf).unwrap(), m);
        assert!(!read_line(&mut r, &mut buf).unwrap());
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("abc", "abcd"));
    }
}
