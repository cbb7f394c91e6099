//! The idle before a run's window (issue 53), in the one place every run passes: the
//! runner's start line, whatever drives the run (run, each repeat, each sweep point and suite
//! test, each curve step and point, PTS rounds, infer's probes). `db`, whose I/O is the
//! database's, not the runner's, waits [`SETTLE`] itself between its load and its run.
//!
//! An I/O throttle remembers recent I/O: cgroup v1's slice, resumed after a pause shorter than
//! it, grants the pause as credit (a second run of a repeat under a 3,000 IOPS cap read 3,146,
//! with a 100 ms pause 3,296; after 300 ms, 3,000 as the first), and a cloud volume's bucket
//! likewise. A lone fio run starts after idle; so does every volbench run once this process
//! has touched storage itself (the safety probe's reads, a layout, the run before it).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;
use workload::Workload;

/// The idle that outlasts a throttle's memory (two v1 slices and a margin).
pub const SETTLE: Duration = Duration::from_millis(300);

/// Set once this process has done I/O on storage of its own: only then is there anything for
/// a throttle to remember. (A first run with no probe or layout starts at once, as fio does: a
/// burst test's steady state attains on fio's second.)
static TOUCHED: AtomicBool = AtomicBool::new(false);

/// Says that this process just did I/O on storage (a run, the safety probe, a layout).
pub(crate) fn touched() {
    TOUCHED.store(true, Relaxed);
}

/// Whether a run's jobs touch storage (the null engine, cpuio and exec do not).
pub(crate) fn does_io(w: &Workload) -> bool {
    use workload::EngineKind as E;
    w.jobs
        .iter()
        .any(|j| !matches!(j.ioengine, E::Null | E::CpuIo | E::Exec))
}

/// Waits [`SETTLE`] before a run that touches storage, if this process touched it before.
pub(crate) fn before_window(w: &Workload) {
    if does_io(w) && TOUCHED.load(Relaxed) {
        std::thread::sleep(SETTLE);
    }
}
