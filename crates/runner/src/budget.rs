//! What a job may issue and what it has (the budget), and its passes over its files: fio's
//! cache drop, unlink_each_loop and per-loop verify at each pass's end.

use workload::{EngineKind, JobSpec};

/// What the job may issue, and what it has.
pub(crate) struct Budget {
    pub(crate) bytes: u64,
    pub(crate) ios: u64,
    pub(crate) issued: u64,
    pub(crate) issued_ios: u64,
}

/// The bytes of one pass over the job's files: `io_size`, or the files' regions, or less
/// where a sequential pass with holes ends short ([`holed_pass`]).
pub(crate) fn pass_bytes(spec: &JobSpec, regions: &[(u64, u64)]) -> u64 {
    let whole = spec
        .region
        .io_size
        .unwrap_or(regions.iter().map(|r| r.1).sum());
    let holed: Option<u64> = regions.iter().map(|r| holed_pass(spec, r.1)).sum();
    holed.map_or(whole, |h| whole.min(h))
}

/// fio's `rw=read:N` pass over a region of `len` bytes: I/Os at every `bs + N`. When the
/// offset after the last whole I/O is still inside the region, fio cannot place the next
/// I/O and the pass ends there (`read:512k` with bs=1m over 128m reads 85 MiB, fio's own
/// test asserts it); when it falls at or past the end, fio wraps to the start and goes on.
/// None: the pass is not cut short.
pub(crate) fn holed_pass(spec: &JobSpec, len: u64) -> Option<u64> {
    if spec.rw.is_random() || spec.pattern.seq_skip <= 0 || spec.mixed_sizes() || len < spec.bs {
        return None;
    }
    let step = spec.bs + spec.pattern.seq_skip as u64;
    let n = (len - spec.bs) / step + 1;
    (n * step < len).then_some(n * spec.bs)
}

impl Budget {
    pub(crate) fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Budget {
        // A replay ends with its trace (or its runtime).
        let empty = !regions.is_empty() && regions.iter().all(|r| r.1 == 0);
        let bytes = if spec.files.create_only || (empty && !spec.replay.on()) {
            // fio's create_only: the files are laid out, and that is the job. So it is when
            // each file is smaller than a block (fio's nrfiles over a small size), even
            // time-based.
            0
        } else if spec.time_based || spec.replay.on() {
            u64::MAX
        } else {
            pass_bytes(spec, regions).saturating_mul(spec.io_loops() as u64)
        };
        Budget {
            bytes,
            // number_ios only stops a job early: it never extends the work past size (fio's rule).
            ios: spec.region.number_ios.unwrap_or(u64::MAX),
            issued: 0,
            issued_ios: 0,
        }
    }

    #[inline]
    pub(crate) fn spent(&self) -> bool {
        self.issued >= self.bytes || self.issued_ios >= self.ios
    }

    /// Whether fio would pick no further I/O: number_ios reached, or the bytes spent where
    /// fio's own count (the size asked, not cut to whole blocks) is spent too. A size that
    /// is no whole number of blocks leaves fio a remainder, and it goes round once more.
    pub(crate) fn spent_as_fio(&self, spec: &JobSpec) -> bool {
        let whole = spec
            .region
            .io_size
            .or(spec.size)
            .is_none_or(|n| n % spec.bs.max(1) == 0);
        self.issued_ios >= self.ios || (self.issued >= self.bytes && whole)
    }
}
/// fio's invalidate at every pass: a buffered job that goes over its files more than once
/// (time-based, or `loops`) drops their cached pages each time it starts over, as fio does
/// when it reopens them, so a pass is not served from the page cache the last one filled.
pub(crate) struct Passes {
    /// The bytes of one pass ([`pass_bytes`]).
    pub(crate) bytes: u64,
    /// Where the next pass starts, in issued bytes.
    pub(crate) next: u64,
    /// A pass is over: drop the cache (or recreate the files) once the queue is empty.
    pub(crate) due: bool,
    /// Drop the cached pages at each pass (a buffered job).
    pub(crate) drop: bool,
    /// fio's unlink_each_loop: delete the files and create them afresh at each loop.
    pub(crate) unlink: bool,
    /// fio verifies after every loop of a write job: each loop's writes read back before the
    /// next loop, inside the runtime (not with experimental_verify, which verifies once).
    pub(crate) verify: bool,
}

impl Passes {
    pub(crate) fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Option<Passes> {
        let bytes = pass_bytes(spec, regions);
        let again = spec.time_based || spec.io_loops() > 1;
        let cached = !spec.direct && spec.ioengine != EngineKind::Null;
        let drop = spec.drops_cache() && cached && again;
        let unlink = spec.files.unlink_each_loop && spec.io_loops() > 1 && !spec.time_based;
        let verify = spec.reads_back_at_end()
            && !spec.checking.experimental_verify
            && spec.io_loops() > 1
            && !spec.time_based;
        ((drop || unlink || verify) && bytes > 0).then_some(Passes {
            bytes,
            next: bytes,
            due: false,
            drop,
            unlink,
            verify,
        })
    }
}
