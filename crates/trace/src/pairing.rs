//! Pairs each issued I/O with its completion, and hands the I/Os on in issue order once
//! complete. Memory holds only the I/Os still in flight: one whose completion never comes
//! (lost by the tracer, or still in flight when the trace ended) goes on without one after
//! [`PATIENCE_NS`] of trace time, or when [`MAX_OPEN`] wait.

use crate::Io;
use std::collections::{BTreeMap, VecDeque};

/// How long (trace time) an issued I/O waits for its completion before it goes on without.
pub const PATIENCE_NS: u64 = 30_000_000_000;
/// The most I/Os waiting at once: far above any device's queue.
pub const MAX_OPEN: usize = 1 << 16;

#[derive(Default)]
pub struct Pairing {
    /// In issue order; the number of the front one is `first`.
    queue: VecDeque<Io>,
    first: u64,
    /// Waiting for a completion, by (file, offset): their numbers, oldest first.
    open: BTreeMap<(u32, u64), VecDeque<u64>>,
    /// The latest time seen, issue or completion.
    now: u64,
    /// Completions that matched no issued I/O (issued before the trace began).
    pub unmatched: u64,
}

impl Pairing {
    /// An issued I/O. A flush has no range: it completes as issued, as far as order goes.
    pub fn issued(&mut self, io: Io) {
        self.now = self.now.max(io.at_ns);
        let n = self.first + self.queue.len() as u64;
        if io.done_ns.is_none() && io.len > 0 {
            self.open
                .entry((io.file, io.offset))
                .or_default()
                .push_back(n);
        }
        self.queue.push_back(io);
    }

    /// A completion of `len` bytes at `offset`: completes the oldest waiting I/O starting
    /// there and, for a request merged from several, the ones that follow it back to back up
    /// to the range's end (an overlapping I/O that does not start at the cursor is another's).
    pub fn completed(&mut self, file: u32, offset: u64, len: u64, at_ns: u64) {
        self.now = self.now.max(at_ns);
        let end = offset.saturating_add(len);
        let mut cursor = offset;
        let mut matched = false;
        while let Some(ids) = self.open.get_mut(&(file, cursor)) {
            let n = ids.pop_front();
            if ids.is_empty() {
                self.open.remove(&(file, cursor));
            }
            let Some(io) = n.and_then(|n| self.queue.get_mut((n - self.first) as usize)) else {
                break;
            };
            io.done_ns = Some(at_ns.max(io.at_ns));
            matched = true;
            cursor += io.len.max(1);
            if cursor >= end {
                break;
            }
        }
        self.unmatched += u64::from(!matched);
    }

    /// The next I/O in issue order that is complete, has waited long enough, or must make
    /// room; at the end of the trace (`flush`), every one left.
    pub fn ready(&mut self, flush: bool) -> Option<Io> {
        let front = self.queue.front()?;
        let waited = self.now.saturating_sub(front.at_ns) > PATIENCE_NS;
        let go = front.done_ns.is_some()
            || front.len == 0
            || flush
            || waited
            || self.queue.len() > MAX_OPEN;
        if !go {
            return None;
        }
        let io = self.queue.pop_front()?;
        let n = self.first;
        self.first += 1;
        if io.done_ns.is_none() && io.len > 0 {
            if let Some(ids) = self.open.get_mut(&(io.file, io.offset)) {
                ids.retain(|&x| x != n);
                if ids.is_empty() {
                    self.open.remove(&(io.file, io.offset));
                }
            }
        }
        Some(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    fn io(at: u64, off: u64, len: u64) -> Io {
        Io {
            at_ns: at,
            op: Op::Read,
            fua: false,
            file: 0,
            offset: off,
            len,
            done_ns: None,
        }
    }

    #[test]
    fn completions_out_of_order_come_out_in_issue_order() {
        let mut p = Pairing::default();
        p.issued(io(10, 0, 4096));
        p.issued(io(20, 8192, 4096));
        p.completed(0, 8192, 4096, 30);
        assert!(p.ready(false).is_none(), "the first is still in flight");
        p.completed(0, 0, 4096, 40);
        let a = p.ready(false).unwrap();
        let b = p.ready(false).unwrap();
        assert_eq!((a.offset, a.done_ns), (0, Some(40)));
        assert_eq!((b.offset, b.done_ns), (8192, Some(30)));
    }

    #[test]
    fn a_merged_request_completes_every_bio_inside_it() {
        let mut p = Pairing::default();
        p.issued(io(1, 0, 4096));
        p.issued(io(2, 4096, 4096));
        p.issued(io(3, 65536, 4096));
        p.completed(0, 0, 8192, 9);
        assert_eq!(p.ready(false).unwrap().done_ns, Some(9));
        assert_eq!(p.ready(false).unwrap().done_ns, Some(9));
        assert!(p.ready(false).is_none());
        assert_eq!(p.ready(true).unwrap().done_ns, None);
        assert_eq!(p.unmatched, 0);
    }
}
