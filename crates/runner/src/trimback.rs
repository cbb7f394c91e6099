//! fio's verify-after-trim: in a verifying write job, `trim_percentage` percent of the
//! written blocks are discarded again, `trim_backlog_batch` at a time (else
//! `trim_backlog`) after every `trim_backlog` writes, as fio's check_get_trim issues them;
//! the closing verify then reads those blocks as zeros (`trim_verify_zero`, fio's default)
//! or leaves them out. A block joins the list once its write has completed, so a discard
//! never races the write it undoes.

use crate::next::Next;
use crate::pace::NOT_DUE;
use engine::Op;
use std::collections::{HashSet, VecDeque};

pub(crate) struct TrimBack {
    percent: u64,
    backlog: u64,
    batch: u64,
    /// Written blocks chosen for a trim, in the order their writes completed.
    list: VecDeque<(u32, u64, u32)>,
    /// Blocks trimmed so far: what the closing verify expects as zeros (or skips).
    pub done: HashSet<(u32, u64)>,
    pub zero: bool,
    writes: u64,
    left: u64,
    state: u64,
}

impl TrimBack {
    /// None unless the job verifies its writes and sets trim_percentage and trim_backlog.
    pub fn new(spec: &workload::JobSpec, seed: u64) -> Option<TrimBack> {
        let t = spec.checking.trim_back;
        let on =
            t.percent > 0 && t.backlog > 0 && spec.checking.verify.is_some() && spec.rw.writes();
        on.then(|| TrimBack {
            percent: u64::from(t.percent.min(100)),
            backlog: t.backlog,
            batch: if t.batch > 0 { t.batch } else { t.backlog },
            list: VecDeque::new(),
            done: HashSet::new(),
            zero: t.verify_zero,
            writes: 0,
            left: 0,
            state: seed | 1,
        })
    }

    /// A write issued: every `backlog` writes a batch of trims falls due.
    pub fn wrote(&mut self) {
        self.writes += 1;
        if self.writes.is_multiple_of(self.backlog) {
            self.left = self.batch;
        }
    }

    /// A write completed: drawn into the trim list at `percent`.
    pub fn completed(&mut self, file: u32, offset: u64, len: u32) {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        if self.state % 100 < self.percent {
            self.list.push_back((file, offset, len));
        }
    }

    /// The next trim due, if one is.
    pub fn next(&mut self) -> Option<Next> {
        if self.left == 0 {
            return None;
        }
        let (file, offset, len) = self.list.pop_front()?;
        self.left -= 1;
        self.done.insert((file, offset));
        Some(Next {
            op: Op::Trim,
            dir: 1,
            len,
            file,
            offset,
            back: false,
            due: NOT_DUE,
        })
    }
}
