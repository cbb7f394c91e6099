//! Executes a [`Workload`]: prepares targets, runs one thread per job, samples the per-second
//! series, and assembles the [`RunReport`].
//!
//! The runner owns the truth checks that need the live system: device safety, free space,
//! O_DIRECT support, and the kernel's own I/O counters taken around the run.

mod assemble;
mod backlog;
mod begin;
mod bits;
pub mod board;
mod budget;
mod clock;
mod cpuio;
mod data;
mod error;
mod exec_job;
mod fileops;
mod finish;
mod flow;
mod identity;
mod issuelog;
mod job;
#[cfg(test)]
mod job_tests;
mod jobgroup;

mod lat_search;
mod live;
mod lockmem;
mod minrate;
mod next;
mod offsets;
pub mod openmetrics;
mod outcome;
mod pace;
mod passes;
mod permutation;
mod phase;
mod pick;
mod placement;
mod plan;
pub mod points;
pub mod probe;
pub mod purge;
mod queue;
mod readback;
pub mod replay;
pub mod safety;
mod sched;
pub mod settle;
mod skew;
mod start;
mod steady;
mod steer;
mod syncs;
mod tally;
mod tap;
mod target;
mod think;
mod trimback;
mod vstate;
mod written;
mod zones;

pub use error::RunError;
pub use target::{free_bytes, resolve_paths, DEFAULT_FILE_SIZE};

pub use points::{Points, Step};
use report::RunReport;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use workload::Workload;

/// Series interval: one sample per second per job, unless a job's fio logs ask for a shorter
/// average (`log_avg_msec`).
pub const SAMPLE_MS: u64 = 1000;

/// The run's sample interval: the shortest `log_avg_msec` of a job that writes fio logs
/// (100 ms at the least: the sampler wakes every 20 ms), else one second.
fn sample_interval(w: &Workload) -> u64 {
    w.jobs
        .iter()
        .filter(|j| j.reporting.logs.any())
        .map(|j| j.reporting.logs.avg_msec as u64)
        .filter(|&m| m > 0)
        .min()
        .map_or(SAMPLE_MS, |m| m.clamp(100, SAMPLE_MS))
}
/// How often the sampler wakes: progress, the ramp's end, and the end of the I/O (whose kernel
/// counters must be read within milliseconds) are seen at this granularity at worst.
const TICK: Duration = Duration::from_millis(20);

/// The window the live rate is taken over. One tick's 20 ms is noise: under a cgroup throttle
/// (100 ms slices) or with jobs waiting on fsync, a tick often completes nothing, and the
/// progress said "0 IOPS" of a run doing 1.3k (issue 20's seed-003 runs).
const RATE_WINDOW: Duration = Duration::from_secs(1);

/// Live progress handed to an [`Observer`] about fifty times a second.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub elapsed: Duration,
    /// Total planned time (ramp included) for time-based runs.
    pub planned: Option<Duration>,
    /// Fraction of the byte budget issued, for size-based runs.
    pub fraction: Option<f64>,
    pub ios: u64,
    pub bytes: u64,
    /// Rates over the last [`RATE_WINDOW`] (since the start, in the first one).
    pub iops: f64,
    pub bw_bytes: f64,
    pub ramping: bool,
    /// Every job's measured window has closed and the I/Os still in flight are completing
    /// (not counted): for this long so far.
    pub draining: Option<Duration>,
}

/// Receives progress; the CLI draws a bar with it, tests ignore it.
pub trait Observer {
    fn layout(&mut self, _path: &Path, _done: u64, _total: u64) {}
    fn tick(&mut self, _p: &Progress) {}
    fn finish(&mut self) {}
}

/// An observer that shows nothing.
pub struct Silent;
impl Observer for Silent {}

pub struct RunOptions {
    /// Set it (e.g. from a Ctrl-C handler) to stop the run; results so far are kept.
    pub stop: Arc<AtomicBool>,
    pub command_line: Vec<String>,
    /// Remove files this run created once it ends (they are always removed after an interrupt).
    pub unlink: bool,
    /// Other processes running the same workload in step (MPI ranks), if any.
    pub peers: Option<Rc<dyn Peers>>,
}

/// Other processes running the same workload at the same time (MPI ranks). The runner calls
/// these at fixed points of a single-phase run, in this order, each at most once except
/// `poll_end`: every process starts its measured interval together, and the first to finish
/// ends it for all (IOR's stonewalling), so all ranks measure one common interval.
pub trait Peers {
    /// Every local job is set up and waiting; `ok` is false when this process cannot run.
    /// Returns once every peer has arrived: true if all of them can run.
    fn start_line(&self, ok: bool) -> bool;
    /// Called about fifty times a second while the I/O runs; `done` says this process's jobs
    /// have all ended. True means a peer has finished: end the measured interval now.
    fn poll_end(&self, done: bool) -> bool;
    /// This process's jobs have all ended; returns once every peer's have, so the kernel's
    /// counters read after it include every rank's I/O.
    fn ended(&self);
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            stop: Arc::new(AtomicBool::new(false)),
            command_line: report::secrets::command_line(),
            unlink: false,
            peers: None,
        }
    }
}

/// Runs the workload to completion (or interruption) and reports it: plan (lay out every
/// clone's files), run the phases, assemble the report.
pub fn run(w: &Workload, opts: &RunOptions, obs: &mut dyn Observer) -> Result<RunReport, RunError> {
    for s in &w.jobs {
        s.validate()?;
        // A log refused (a planted link, a device) is bad input, said before anything runs.
        if let Some(p) = &s.reporting.write_iolog {
            outfile::Opener::log("write_iolog")
                .check(p)
                .map_err(|r| RunError::Refused(r.0))?;
        }
    }
    // A replaying job is sized from its trace (its sizes, depth, reach) before anything else.
    let (mut w, traces) = replay::prepare(w)?;
    // fio's verify_only: the job's own pattern, reading, every block checked.
    for j in w.jobs.iter_mut().filter(|j| j.checking.verify_only) {
        j.rw = j.rw.reading();
    }
    let w = &w;
    check_memory(w)?;
    raise_open_files();
    let started = report::started(SystemTime::now());
    let plan = plan::Plan::build(w, opts, obs)?;
    let sample_ms = sample_interval(w);
    let mut phases = phase::Phases::new(w, &plan, opts, sample_ms);
    phases.run_all(obs)?;
    let phase::Phases { window, got, .. } = phases;
    let got = assemble::Measured {
        got,
        window,
        traces,
    };
    Ok(assemble::report(w, plan, got, opts, sample_ms, started))
}

/// Lays out `spec`'s file (its first clone's) as a run would, without running: for a file
/// several processes share, laid out once before they start. Returns the files it created.
pub fn lay_out(spec: &workload::JobSpec, stop: &AtomicBool) -> Result<Vec<PathBuf>, RunError> {
    spec.validate()?;
    let mut created = Vec::new();
    for path in target::resolve_paths(spec, 0) {
        let n = spec.files.nrfiles.max(1);
        if let Err(e) = target::prepare(spec, 0, &path, n, stop, &mut created, &mut |_, _, _| {}) {
            plan::remove_created(&created);
            return Err(e);
        }
    }
    Ok(created)
}

/// volbench keeps every file of every job open (fio opens `openfiles` at a time): a job of
/// thousands of files needs more descriptors than the usual soft limit of 1,024, so the soft
/// limit is raised to the hard one, as a shell's `ulimit -n` would.
fn raise_open_files() {
    // SAFETY: getrlimit/setrlimit read and write a plain struct owned here.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// Every job holds `iodepth` buffers of the largest block size: refuse before allocating what
/// the machine does not have (`bs=1g iodepth=32` is 32 GiB), with the fix in the message.
fn check_memory(w: &Workload) -> Result<(), RunError> {
    let need: u64 = w
        .jobs
        .iter()
        .map(|s| s.numjobs as u64 * s.effective_iodepth() as u64 * s.max_bs())
        .sum();
    let avail = probe::mem_available().unwrap_or(u64::MAX);
    // Leave room for the page cache and everything else: buffers may take 80 % of it.
    if need > avail / 5 * 4 {
        return Err(RunError::Memory {
            need: workload::format_bytes(need as f64),
            avail: workload::format_bytes(avail as f64),
        });
    }
    Ok(())
}
