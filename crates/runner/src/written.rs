//! What a verifying job wrote, for its closing read-back (fio's do_verify; whether there is
//! one is `JobSpec::reads_back_at_end`): where each written block began and ended, where the
//! job may not write every block whole. The job marks completed writes; the read-back reads.

use crate::bits::Bits;
use workload::JobSpec;

/// Per file, a bit for each smallest block where a completed write began and one where it
/// ended: with mixed sizes, a job that also reads, or one that may not write every block
/// (time-based, norandommap, a skewed draw, io_size), the read-back reads each written block
/// whole, and only those, as fio reads back its log of writes.
pub struct Starts {
    base: Vec<u64>,
    bs: u64,
    pub starts: Vec<Bits>,
    pub ends: Vec<Bits>,
}

impl Starts {
    pub(crate) fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Option<Starts> {
        let some = spec.mixed_sizes() || spec.rw.reads() || !spec.writes_every_block();
        let bs = spec.unit();
        let maps = || regions.iter().map(|r| Bits::new(r.1 / bs)).collect();
        (some && spec.reads_back_at_end()).then(|| Starts {
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
