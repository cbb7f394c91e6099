//! fio's `verify_backlog`: a verified write job reads back what it wrote while it writes,
//! instead of only after. Each completed write joins the backlog; once it holds `every`
//! blocks the job stops writing and reads back the oldest `batch` of them (checked as every
//! verified read is), then writes on. When the writes are all issued, the rest is read back
//! (fio's closing verify). fio counts these reads as reads, and so does volbench.

use std::collections::VecDeque;
use workload::JobSpec;

/// A written block still to be read back: (file, offset, length).
pub type Block = (u32, u64, u32);

pub struct Backlog {
    every: usize,
    batch: usize,
    written: VecDeque<Block>,
    /// Reads still to issue in the current batch.
    left: usize,
}

impl Backlog {
    /// The job's backlog, if it verifies as it writes. `depth` writes can complete on top of
    /// a full backlog, so the queue never grows in the hot loop.
    pub fn new(spec: &JobSpec, depth: usize) -> Option<Backlog> {
        let every = spec.checking.verify_backlog as usize;
        (every > 0 && spec.checking.verify.is_some() && spec.checking.do_verify).then(|| {
            let batch = match spec.checking.verify_backlog_batch as usize {
                0 => every,
                b => b.min(every),
            };
            Backlog {
                every,
                batch,
                written: VecDeque::with_capacity(every + depth),
                left: 0,
            }
        })
    }

    /// A write completed: it joins the backlog, and a full backlog starts a batch of reads.
    pub fn written(&mut self, b: Block) {
        self.written.push_back(b);
        if self.left == 0 && self.written.len() >= self.every {
            self.left = self.batch;
        }
    }

    /// The next block to read back: one of the current batch, or with `drain` (the writes are
    /// all issued) any that is left.
    pub fn next(&mut self, drain: bool) -> Option<Block> {
        if self.left == 0 && !drain {
            return None;
        }
        let b = self.written.pop_front()?;
        self.left = self.left.saturating_sub(1);
        Some(b)
    }

    pub fn is_empty(&self) -> bool {
        self.written.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workload::Verify;

    fn backlog(every: u64, batch: u64) -> Backlog {
        let spec = JobSpec {
            checking: workload::Checking {
                verify: Some(Verify::Crc32c),
                verify_backlog: every,
                verify_backlog_batch: batch,
                ..Default::default()
            },
            ..JobSpec::default()
        };
        Backlog::new(&spec, 4).unwrap()
    }

    /// The order of a sequential write job at QD1: 'w' per write, 'r' per read back.
    fn pattern(mut b: Backlog, writes: u64) -> String {
        let mut s = String::new();
        let mut done = 0;
        while done < writes || !b.is_empty() {
            if b.next(done == writes).is_some() {
                s.push('r');
            } else {
                b.written((0, done * 4096, 4096));
                done += 1;
                s.push('w');
            }
        }
        s
    }

    #[test]
    fn reads_back_in_fios_order() {
        // fio 3.33 under strace: 16 writes, 16 reads, ...; with a batch of 4, 16 writes then
        // 4 reads and 4 writes in turn.
        let w16 = "w".repeat(16);
        let r16 = "r".repeat(16);
        assert_eq!(pattern(backlog(16, 0), 32), format!("{w16}{r16}{w16}{r16}"));
        let p = pattern(backlog(16, 4), 24);
        assert!(p.starts_with(&format!("{w16}rrrrwwwwrrrrwwww")), "{p}");
        assert_eq!(p.matches('r').count(), 24);
        // A last partial backlog is read back when the writes are done.
        assert_eq!(pattern(backlog(16, 0), 20).matches('r').count(), 20);
    }

    #[test]
    fn off_without_verify_or_do_verify() {
        let mut spec = JobSpec {
            checking: workload::Checking {
                verify_backlog: 16,
                ..Default::default()
            },
            ..JobSpec::default()
        };
        assert!(Backlog::new(&spec, 1).is_none());
        spec.checking.verify = Some(Verify::Crc32c);
        spec.checking.do_verify = false;
        assert!(Backlog::new(&spec, 1).is_none());
    }
}
