//! Who writes which file: one writer per run, known by the key the witness answered its
//! `create` with. Only connections holding that key (the creating one, and the writer
//! threads' that `join`ed with it) may send the run's intents and acks, so another holder of
//! the token cannot add records to a run it did not start.
//!
//! Kept in memory by the journal thread only: a restarted witness has no writer, and a client
//! whose witness restarted has lost its connections anyway.

use crate::protocol;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A writer not heard from for this long has stopped (its machine lost power, or it was
/// killed): its file may get a new writer, once its records are verified.
pub const WRITER_LEASE: Duration = Duration::from_secs(10);

/// Who sent a request: the connection's address, and the writer key it holds (from its
/// `create` or `join`), if any.
#[derive(Clone, Debug)]
pub struct Who {
    pub peer: String,
    pub key: Option<String>,
}

/// A file's writer as the journal thread knows it.
pub struct Writer {
    /// The address of the connection that created the run.
    pub peer: String,
    key: String,
    pub since_ms: u64,
    pub heard: Instant,
}

#[derive(Default)]
pub struct Writers(HashMap<String, Writer>);

impl Writers {
    /// The file's writer, while it was heard from within the lease.
    pub fn live(&self, file: &str) -> Option<&Writer> {
        self.0
            .get(file)
            .filter(|w| w.heard.elapsed() < WRITER_LEASE)
    }

    /// Makes `peer` the file's writer with the new `key` (a create was accepted; the journal
    /// makes the key, as it makes the token): that key.
    pub fn claim(&mut self, file: &str, peer: &str, key: String, now_ms: u64) -> String {
        let w = Writer {
            peer: peer.to_string(),
            key: key.clone(),
            since_ms: now_ms,
            heard: Instant::now(),
        };
        self.0.insert(file.to_string(), w);
        key
    }

    /// Whether `key` is the file's writer's (compared in time independent of the key).
    pub fn holds(&self, file: &str, key: Option<&str>) -> bool {
        match (self.0.get(file), key) {
            (Some(w), Some(k)) => protocol::same_token(&w.key, k),
            _ => false,
        }
    }

    /// The file's writer was heard from (by one of its connections).
    pub fn heard(&mut self, file: &str) {
        if let Some(w) = self.0.get_mut(file) {
            w.heard = Instant::now();
        }
    }

    /// The connection holding `key` that created the file's run ended: the writer's place
    /// is free. A key that is no longer the writer's (a newer create replaced it) frees
    /// nothing.
    pub fn release(&mut self, file: &str, key: &str) {
        if self.holds(file, Some(key)) {
            self.0.remove(file);
        }
    }

    /// Ends the writer's place whoever holds it (`stop`).
    pub fn remove(&mut self, file: &str) {
        self.0.remove(file);
    }

    /// When the file's writer was last heard from.
    pub fn last_heard(&self, file: &str) -> Option<Instant> {
        self.0.get(file).map(|w| w.heard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_key_a_create_answered_holds_the_file() {
        let mut ws = Writers::default();
        let key = ws.claim("h:/f", "127.0.0.1:1", "k1".into(), 0);
        assert!(ws.holds("h:/f", Some(&key)));
        assert!(!ws.holds("h:/f", None));
        assert!(!ws.holds("h:/f", Some("0123")));
        assert!(!ws.holds("h:/g", Some(&key)));
        let newer = ws.claim("h:/f", "127.0.0.1:2", "k2".into(), 0);
        assert!(!ws.holds("h:/f", Some(&key)), "a replaced key still held");
        ws.release("h:/f", &key);
        assert!(
            ws.holds("h:/f", Some(&newer)),
            "an old key freed the new writer"
        );
        ws.release("h:/f", &newer);
        assert!(ws.live("h:/f").is_none());
    }
}
