//! The witness protocol: one JSON object per line over TCP, each request answered in order.
//! Documented in docs/durability-protocol.md; serde_json does the parsing, and lines are read
//! with a hard length limit so no message can grow the reader's memory.

use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Read};

/// Protocol version; a witness refuses a client that speaks another.
/// Version 2: `create` answers with a writer key, and a writer's other connections `join`.
pub const VERSION: u32 = 2;
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
    /// Starts a run on `file` (named `host:/absolute/path`). Refused while another writer is
    /// at work on it, and while the witness holds records of it no verify has read, unless
    /// `discard` says to forget them.
    Create {
        file: String,
        size: u64,
        block: u32,
        #[serde(default)]
        discard: bool,
    },
    /// Another connection of the run's writer (its writer threads): `writer` is the key
    /// `create` answered with. Only a connection that created or joined a run may send its
    /// intents and acks.
    Join {
        file: String,
        writer: String,
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
    /// How far a run has got, answered by `status`: `file` is the name `create` used, or an
    /// absolute path, matched against the one run of that path (`durability cycle` starts
    /// create on another machine and does not know its host name).
    Status {
        file: String,
    },
    /// Ends a run's writing: the witness refuses the file's further intents, so its client
    /// stops at its next record. What was acknowledged stays, for verify.
    Stop {
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
    /// A run was created; `writer` is the key its other connections `join` with.
    Created {
        writer: String,
    },
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
    Status {
        /// The run's name, `host:/absolute/path`.
        file: String,
        /// Records acknowledged since the run was created.
        acks: u64,
        /// When the witness last heard of the run (milliseconds since the epoch).
        last_ms: u64,
        /// Whether a writer is at work on it (heard from within the writer's lease).
        writing: bool,
        /// Whether `stop` ended its writing.
        stopped: bool,
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
    use subtle::ConstantTimeEq;
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// The smallest and largest block a run may use (a sector; the largest I/O worth a record).
pub const MIN_BLOCK: u32 = 512;
pub const MAX_BLOCK: u32 = 1 << 20;
/// The most blocks a file may have: the witness keeps a row per block written.
pub const MAX_BLOCKS: u64 = 1 << 32;
/// The longest `file` name, in bytes.
pub const MAX_NAME: usize = 1024;

/// `host:/absolute/path`: a host name of letters, digits, '.', '-' and '_', then an absolute
/// path with no "." or ".." component, no empty component and no control character.
pub fn check_file(name: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "file {name:?}: {why}; the protocol names a file host:/absolute/path"
        ))
    };
    if name.len() > MAX_NAME {
        return bad(&format!("longer than {MAX_NAME} bytes"));
    }
    let Some((host, path)) = name.split_once(':') else {
        return bad("no host");
    };
    let host_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    if host.is_empty() || !host.chars().all(host_ok) {
        return bad("the host is empty or holds other than letters, digits, '.', '-', '_'");
    }
    if !path.starts_with('/') || path.len() < 2 {
        return bad("the path is not absolute");
    }
    if path.chars().any(char::is_control) {
        return bad("the path holds a control character");
    }
    if path[1..]
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return bad("the path has an empty, '.' or '..' component");
    }
    Ok(())
}

/// A run's size and block: a power-of-two block from 512 B to 1 MiB, a size of whole blocks,
/// at least two (the header and one record) and at most [`MAX_BLOCKS`]. Returns the blocks.
pub fn check_geometry(size: u64, block: u32) -> Result<u64, String> {
    if !(MIN_BLOCK..=MAX_BLOCK).contains(&block) || !block.is_power_of_two() {
        return Err(format!(
            "block {block}: a power of two from {MIN_BLOCK} to {MAX_BLOCK} bytes"
        ));
    }
    if !size.is_multiple_of(block as u64) {
        return Err(format!("size {size} is not whole blocks of {block}"));
    }
    let blocks = size / block as u64;
    if !(2..=MAX_BLOCKS).contains(&blocks) {
        return Err(format!(
            "size {size}: from two blocks (the header and a record) to {MAX_BLOCKS} blocks"
        ));
    }
    Ok(blocks)
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
    fn file_names_follow_the_protocol() {
        for ok in ["vm:/srv/x.dat", "db-1.example_a:/a/b/c"] {
            assert_eq!(check_file(ok), Ok(()), "{ok}");
        }
        let long = format!("h:/{}", "a".repeat(MAX_NAME));
        for bad in [
            "",
            "/etc/passwd",
            "h:",
            ":/x",
            "h:../../x",
            "h:/a/../x",
            "h:/a/./x",
            "h:/a//x",
            "h:/a\0b",
            "h h:/x",
            "h:/x\n",
            &long,
        ] {
            assert!(check_file(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sizes_are_whole_blocks_in_range() {
        assert_eq!(check_geometry(8192, 4096), Ok(2));
        for (size, block) in [
            (65537, 4096),
            (u64::MAX, 4096),
            (4096, 4096),
            (8192, 3000),
            (1 << 22, 256),
            (1 << 24, 1 << 21),
        ] {
            assert!(check_geometry(size, block).is_err(), "{size} {block}");
        }
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("abc", "abcd"));
    }
}
