//! What a job shares with the runner: its inputs, the live counters the sampler reads, the
//! start line every job of a phase meets at, and what it hands back when it ends.

use engine::EngineError;
use stats::JobStats;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::Instant;
use workload::JobSpec;

/// Counters the sampler thread reads while the job runs. Aligned so two jobs' counters never
/// share a cache line.
#[repr(align(128))]
#[derive(Default)]
pub struct Live {
    pub ios: [AtomicU64; 2],
    pub bytes: [AtomicU64; 2],
    /// Latency sums of the counted I/Os: total, completion, submission; reads then writes.
    pub lat_sums: [AtomicU64; 6],
    /// Bytes issued, ramp included: progress for size-based runs.
    pub issued: AtomicU64,
    pub measuring: AtomicBool,
    /// The job is in its ramp (a job with none goes from its start straight to measuring).
    pub ramping: AtomicBool,
    /// The job's measured I/O is over (set before its verify pass and engine teardown, which
    /// the kernel's counters for the run must not include).
    pub ended: AtomicBool,
    /// Where the job's measured I/O ended (its window's cut, or its last I/O): the run's
    /// kernel-counter interval ends at the last job's, not when the sampler reads the counters.
    pub ended_at: OnceLock<Instant>,
    /// Each direction's latency, counted as each interval closes (for live scrapers).
    pub hist: [Arc<stats::LiveHist>; 2],
    /// I/Os in flight at the last turn, and failed I/Os so far (for live scrapers).
    pub inflight: AtomicU64,
    pub errors: AtomicU64,
    /// The measured window closed (the runtime ran out, or a stop): what completes from now
    /// on is the queue draining, outside the figures, so the sampler stops sampling the job.
    pub closed: AtomicBool,
    pub done: AtomicBool,
    /// Stop this job alone: its steady state was attained (the sampler judges it).
    pub halt: AtomicBool,
    /// The job dropped what it had counted and measures again from now (a latency search
    /// found its depth): the sampler starts the job's series over.
    pub restarted: AtomicBool,
}

impl Live {
    /// The job's measured I/O is over; it ended at `at`.
    pub fn end(&self, at: Instant) {
        let _ = self.ended_at.set(at);
        self.ended.store(true, Relaxed);
    }
}

/// The start delay of clone `clone` of `spec`: its `startdelay`, or with `startdelay=low-high`
/// a time drawn uniformly from the range (in microseconds, as fio's `rand_between`), one per
/// clone as fio draws one per thread, repeatable from `randseed`.
pub fn start_delay(spec: &JobSpec, clone: u32) -> std::time::Duration {
    let lo = spec.timing.startdelay;
    let Some(hi) = spec.timing.startdelay_high.filter(|h| *h > lo) else {
        return lo;
    };
    let span = (hi - lo).as_micros() as u64 + 1;
    let r =
        crate::permutation::splitmix(spec.pattern.randseed ^ 0x5354_4152_5400 ^ u64::from(clone));
    lo + std::time::Duration::from_micros(r % span)
}

pub struct JobInput {
    pub spec: JobSpec,
    pub clone: u32,
    /// One descriptor per file, and the region `(offset, len)` of each.
    pub fds: Vec<RawFd>,
    pub regions: Vec<(u64, u64)>,
    /// Each file's path, as reported (a replay maps the trace's files to these).
    pub paths: Vec<String>,
    pub lbs: u32,
    pub live: Arc<Live>,
    pub stop: Arc<AtomicBool>,
    pub start: Arc<StartLine>,
    /// This job's place among the jobs of its `flow_id`, if it has a weight (taken by the
    /// loop, and dropped when it ends, which gives the others its share).
    pub flow: std::cell::Cell<Option<crate::flow::Flow>>,
    /// The job's data seed, and the run's (see [`crate::data`]).
    pub data_seed: (u64, u64),
    /// The series' interval, whose latency percentiles the job keeps (`stats::interval`).
    pub interval_ns: u64,
    /// fio's wait_for: the jobs of this phase whose I/O must end before this one starts.
    pub waitees: Vec<Arc<Live>>,
    /// fio's lockfile: each file's lock, shared with the phase's other jobs on that file
    /// (empty when the job locks nothing).
    pub locks: Vec<Arc<std::sync::RwLock<()>>>,
    /// fio's cgroup: the blkio group the job's thread does its I/O from.
    pub cgroup: Option<crate::jobgroup::Member>,
}

/// Where a phase's jobs meet before measuring. Each job counts itself ready once its setup is
/// done; the runner waits for all, fixes the common clock (`epoch`), then releases the barrier.
/// Every job measures from that one instant, so a job whose thread is scheduled late does
/// less I/O in the common interval rather than measuring a window of its own.
pub struct StartLine {
    pub ready: AtomicUsize,
    pub barrier: Barrier,
    pub epoch: OnceLock<Instant>,
    /// Set by the runner once it has read the kernel's counters after the phase's measured
    /// I/O: a job waits for it before a verify pass, whose reads are not part of the run.
    pub counted: AtomicBool,
}

impl StartLine {
    pub fn new(jobs: usize) -> StartLine {
        StartLine {
            ready: AtomicUsize::new(0),
            barrier: Barrier::new(jobs + 1),
            epoch: OnceLock::new(),
            counted: AtomicBool::new(false),
        }
    }

    /// A job's side: ready, wait for the start, return the common clock.
    pub(crate) fn arrive(&self) -> Instant {
        self.ready.fetch_add(1, Relaxed);
        self.barrier.wait();
        *self
            .epoch
            .get()
            .expect("the runner sets the epoch before releasing the barrier")
    }
}

#[derive(Default)]
pub struct JobOutput {
    pub stats: JobStats,
    /// The error that ended the job early, if any.
    pub error: Option<String>,
    /// The engine could not be built: nothing ran.
    pub setup_error: Option<EngineError>,
    /// Blocks read back and checked by the `do_verify` pass.
    pub verified: u64,
    /// Window maxima and latency histograms for fio's logs, when the job asked for them.
    pub windows: Option<stats::WindowLog>,
    /// The job ended inside its ramp: the whole run is its measurement, as in fio.
    pub ramp_swallowed: bool,
    /// A latency search's depth, and whether it settled before the job ended.
    pub lat_depth: Option<(u32, bool)>,
    /// A replay's counts besides its I/Os.
    pub replay: Option<crate::replay::Counts>,
    /// What ended the measured I/O, and how long the queue then took to drain.
    pub ended_by: Option<report::Ended>,
    pub drain_ns: Option<u64>,
    /// The engine's large-block buffers and whether they sit on huge pages.
    pub huge_page_buffers: Option<bool>,
}

/// (user ns, system ns, context switches) from getrusage: `RUSAGE_THREAD` for a job thread,
/// `RUSAGE_SELF` for the whole process.
pub(crate) fn rusage(who: libc::c_int) -> (u64, u64, u64) {
    // SAFETY: an all-zero rusage is a valid value, and getrusage only writes into it.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut ru);
        ru
    };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (
        ns(ru.ru_utime),
        ns(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
    )
}
