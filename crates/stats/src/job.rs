//! What one job measured, and how jobs add up into a group.

use crate::{LatHist, Series};

/// fio's `iodepth_level` buckets: depth 1, 2, 4, 8, 16, 32 and 64 or more.
pub const DEPTH_BUCKETS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// One direction (reads or writes) of one job.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    pub ios: u64,
    pub bytes: u64,
    /// Submission latency: from issuing the request to the kernel accepting it.
    pub slat: LatHist,
    /// Completion latency: from submission to completion.
    pub clat: LatHist,
    /// Total latency: from issue to completion.
    pub lat: LatHist,
    /// With a rate cap: from the time the I/O was due on the rate's schedule to its
    /// completion. Equal to `lat` while the device keeps up; behind, it holds the wait before
    /// issue that `lat` and `clat` leave out (coordinated omission). Empty without a cap.
    pub lat_due: LatHist,
    /// With a rate cap: how late volbench itself issued each I/O, from when it was due and
    /// the queue had room to its issue. The part of `lat_due` that is the host's (a busy
    /// CPU, a late wake-up), not the device's. Empty without a cap.
    pub issue_late: LatHist,
    /// How far behind its rate's schedule the job issued.
    pub late: Lateness,
}

/// How far a rate-capped direction fell behind its schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lateness {
    /// The longest an I/O was issued after it was due (ns).
    pub max_ns: u64,
    /// Time spent behind: from an issue later than the threshold until the schedule was
    /// caught up again (ns).
    pub behind_ns: u64,
}

impl Lateness {
    pub fn merge(&mut self, o: &Lateness) {
        self.max_ns = self.max_ns.max(o.max_ns);
        self.behind_ns = self.behind_ns.max(o.behind_ns);
    }
}

impl DirStats {
    pub fn merge(&mut self, o: &DirStats) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
        self.lat_due.merge(&o.lat_due);
        self.issue_late.merge(&o.issue_late);
        self.late.merge(&o.late);
    }
}

/// A replaying job's own figures.
#[derive(Clone, Debug, Default)]
pub struct ReplayStats {
    /// How late each I/O was issued against its due time in the trace.
    pub lag: LatHist,
    /// Latency (issue to completion) per size class and direction.
    pub by_class: Vec<[LatHist; 2]>,
}

impl ReplayStats {
    pub fn new(classes: usize) -> ReplayStats {
        ReplayStats {
            lag: LatHist::new(),
            by_class: (0..classes)
                .map(|_| [LatHist::new(), LatHist::new()])
                .collect(),
        }
    }

    pub fn merge(&mut self, o: &ReplayStats) {
        self.lag.merge(&o.lag);
        if self.by_class.len() < o.by_class.len() {
            self.by_class
                .resize_with(o.by_class.len(), Default::default);
        }
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            a[0].merge(&b[0]);
            a[1].merge(&b[1]);
        }
    }
}

/// I/Os that failed with an error the job was told to carry on past (fio's
/// `continue_on_error`): counted per errno and left out of every other figure.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Errors {
    pub total: u64,
    /// The first one's errno (fio's `first_error`).
    pub first: i32,
    /// (errno, count), ascending errno.
    pub by_errno: Vec<(i32, u64)>,
    /// Failed reads and writes (fio counts them in its total_ios, not in bytes or latency).
    pub per_dir: [u64; 2],
}

impl Errors {
    /// One failed I/O of direction `dir` (0 reads, 1 writes).
    #[cold]
    pub fn note(&mut self, errno: i32, dir: usize) {
        self.add(errno, 1);
        self.per_dir[dir & 1] += 1;
    }

    fn add(&mut self, errno: i32, n: u64) {
        if self.total == 0 {
            self.first = errno;
        }
        self.total += n;
        match self.by_errno.binary_search_by_key(&errno, |e| e.0) {
            Ok(i) => self.by_errno[i].1 += n,
            Err(i) => self.by_errno.insert(i, (errno, n)),
        }
    }

    pub fn merge(&mut self, o: &Errors) {
        let first = if self.total == 0 { o.first } else { self.first };
        for &(e, n) in &o.by_errno {
            self.add(e, n);
        }
        self.first = first;
        self.per_dir[0] += o.per_dir[0];
        self.per_dir[1] += o.per_dir[1];
    }
}

#[derive(Clone, Debug, Default)]
pub struct JobStats {
    /// Index 0 is reads, 1 is writes.
    /// Reads, writes and trims, by engine::Op's order.
    pub dirs: [DirStats; 3],
    /// Latency of each fsync/fdatasync, its own metric.
    pub sync: LatHist,
    /// From the first write after a sync to the end of the next sync: what a caller waits for
    /// a durable write (with `fsync=1`, one write plus its flush).
    pub durable: LatHist,
    /// Wall time measured (after ramp), in nanoseconds; a group's is its longest job's.
    pub runtime_ns: u64,
    pub usr_ns: u64,
    pub sys_ns: u64,
    /// Voluntary plus involuntary context switches.
    pub ctx: u64,
    /// I/Os submitted at each depth bucket (see [`DEPTH_BUCKETS`]).
    pub depth: [u64; 7],
    pub max_depth: u32,
    pub series: Series,
    /// fio's per-direction runtime where it differs from `runtime_ns` (0: the same): a write
    /// job's writes end when its closing read-back starts, and its reads are that read-back.
    pub dir_runtime_ns: [u64; 2],
    /// The closing read-back of a verifying job (fio's do_verify), outside the measured
    /// window: fio counts these as the job's reads.
    pub verify: DirStats,
    pub verify_ns: u64,
    /// A replay's lag and latency per size class.
    pub replay: Option<Box<ReplayStats>>,
    /// Failed I/Os the job carried on past (`continue_on_error`).
    pub errors: Errors,
}

impl JobStats {
    pub fn merge(&mut self, o: &JobStats) {
        for (a, b) in self.dirs.iter_mut().zip(&o.dirs) {
            a.merge(b);
        }
        self.sync.merge(&o.sync);
        self.durable.merge(&o.durable);
        self.runtime_ns = self.runtime_ns.max(o.runtime_ns);
        self.usr_ns += o.usr_ns;
        self.sys_ns += o.sys_ns;
        self.ctx += o.ctx;
        for (a, b) in self.depth.iter_mut().zip(o.depth) {
            *a += b;
        }
        self.max_depth = self.max_depth.max(o.max_depth);
        self.series.merge(&o.series);
        for (a, b) in self.dir_runtime_ns.iter_mut().zip(o.dir_runtime_ns) {
            *a = (*a).max(b);
        }
        self.verify.merge(&o.verify);
        self.verify_ns = self.verify_ns.max(o.verify_ns);
        if let Some(r) = &o.replay {
            self.replay.get_or_insert_with(Default::default).merge(r);
        }
        self.errors.merge(&o.errors);
    }

    /// Records `n` I/Os submitted while `depth` were in flight.
    #[inline]
    pub fn mark_depth(&mut self, depth: u32, n: u64) {
        let idx = (31 - depth.max(1).leading_zeros()).min(6) as usize;
        self.depth[idx] += n;
        self.max_depth = self.max_depth.max(depth);
    }

    pub fn total_ios(&self) -> u64 {
        self.dirs.iter().map(|d| d.ios).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_buckets_match_fio() {
        let mut j = JobStats::default();
        for (d, want) in [
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (31, 4),
            (32, 5),
            (63, 5),
            (64, 6),
            (500, 6),
        ] {
            let before = j.depth[want];
            j.mark_depth(d, 1);
            assert_eq!(j.depth[want], before + 1, "depth {d}");
        }
        assert_eq!(j.max_depth, 500);
    }

    #[test]
    fn merge_adds_counts_and_takes_longest_runtime() {
        let mut a = JobStats {
            runtime_ns: 5,
            ..Default::default()
        };
        a.dirs[0].ios = 3;
        a.dirs[0].lat.record(100);
        let mut b = JobStats {
            runtime_ns: 9,
            ..Default::default()
        };
        b.dirs[0].ios = 4;
        b.dirs[0].lat.record(300);
        a.merge(&b);
        assert_eq!(a.total_ios(), 7);
        assert_eq!(a.runtime_ns, 9);
        assert_eq!(a.dirs[0].lat.count(), 2);
        assert_eq!(a.dirs[0].lat.mean(), 200.0);
    }
}
