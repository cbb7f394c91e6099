//! What a verifying job wrote, for its closing read-back (fio's do_verify): whether there is
//! one, and for mixed sizes or a job that also reads, where each written block began and
//! ended. The picker marks; the read-back reads.

use crate::bits::Bits;
use workload::JobSpec;

/// Whether the job ends with fio's do_verify read-back: a verifying job that writes, whose
/// pass writes each block at most once, so each holds what was written last (not
/// time-based, with the random map and its uniform draw, the whole size, no backlog). With
/// mixed sizes the one pass must be the only one, as the blocks' bounds are those of the
/// last pass.
pub(crate) fn closing_wanted(spec: &JobSpec) -> bool {
    let sizes = mixed_sizes(spec);
    let whole_pass = !spec.time_based
        && !spec.norandommap
        && spec.random_distribution == workload::Distribution::Random
        && spec.number_ios.is_none()
        && spec.io_size.is_none()
        && (!sizes || (spec.loops <= 1 && spec.rand_run <= 1 && spec.seq_skip == 0));
    spec.verify.is_some()
        && spec.do_verify
        && spec.rw.writes()
        && whole_pass
        && spec.verify_backlog == 0
}

/// The job's blocks vary in size (`bssplit`, `bsrange`, or writes of their own size: bs=R,W).
pub(crate) fn mixed_sizes(spec: &JobSpec) -> bool {
    !spec.bssplit.is_empty() || spec.bs_range.is_some() || spec.write_sizes.is_some()
}

/// Per file, a bit for each smallest block where a write began and one where it ended: with
/// mixed sizes or a job that also reads, the read-back reads each written block whole, and
/// only those, as fio reads back its log of writes.
pub struct Starts {
    base: Vec<u64>,
    bs: u64,
    pub starts: Vec<Bits>,
    pub ends: Vec<Bits>,
}

impl Starts {
    pub(crate) fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Option<Starts> {
        let some = mixed_sizes(spec) || spec.rw.reads();
        let bs = spec.unit();
        let maps = || regions.iter().map(|r| Bits::new(r.1 / bs)).collect();
        (some && closing_wanted(spec)).then(|| Starts {
            base: regions.iter().map(|r| r.0).collect(),
            bs,
            starts: maps(),
            ends: maps(),
        })
    }

    #[inline]
    pub(crate) fn mark(&mut self, file: u32, offset: u64, len: u64) {
        let f = file as usize;
        let b = (offset - self.base[f]) / self.bs;
        self.starts[f].set(b);
        self.ends[f].set(b + (len / self.bs).max(1) - 1);
    }
}
