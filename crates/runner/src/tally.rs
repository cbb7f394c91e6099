//! A job's figures: each completed I/O counted (fio's slat/clat/lat split, the rate's lateness,
//! replay's classes, the fio logs' windows), the running totals handed to the sampler, and the
//! empty figures allocated before the start.

use crate::live::Live;
use crate::pick::NOT_DUE;
use crate::queue::Meta;
use engine::Op;
use stats::{JobStats, WindowLog};
use std::sync::atomic::Ordering::Relaxed;
use workload::JobSpec;

/// Accounts one I/O that completed at `tc` (ns on the job's clock) inside the measured window
/// (`t` into it, in the series' interval `idx`): fio's split, slat from its preparation to the
/// return of its submission and clat from there to its completion (a synchronous engine has
/// no submission of its own: all of it is clat).
#[inline]
pub(crate) fn count(
    stats: &mut JobStats,
    windows: &mut Option<stats::WindowLog>,
    m: &Meta,
    (tc, t, idx): (u64, u64, u64),
    sync_engine: bool,
) {
    let dir = m.op as usize;
    let d = &mut stats.dirs[dir];
    d.ios += 1;
    d.bytes += m.len as u64;
    // A trim is done in place, on every engine: all completion.
    let (slat, clat) = if sync_engine || m.op == Op::Trim {
        (0, tc - m.start)
    } else {
        d.slat.record(m.sub - m.start);
        (m.sub - m.start, tc - m.sub)
    };
    d.clat.record(clat);
    d.lat.record_at(tc - m.start, idx);
    if m.due != NOT_DUE {
        d.lat_due.record(tc - m.due.min(m.start));
        d.issue_late
            .record(m.start.saturating_sub(m.due.max(m.room)));
    }
    if let Some(r) = &mut stats.replay {
        r.by_class[trace::size_class(m.len as u64)][dir].record(tc - m.start);
        if m.due != NOT_DUE {
            r.lag.record(m.start.saturating_sub(m.due));
        }
    }
    if let Some(w) = windows {
        // The logs and the windows hold reads and writes (a trim's figures are the report's).
        if dir < 2 {
            w.record(t, dir, tc - m.start, clat, slat);
        }
    }
}

/// Hands the sampler the job's running totals: relaxed stores, once per turn.
#[inline]
pub(crate) fn publish(live: &Live, stats: &JobStats) {
    live.errors.store(stats.errors.total, Relaxed);
    for d in 0..2 {
        let s = &stats.dirs[d];
        live.ios[d].store(s.ios, Relaxed);
        live.bytes[d].store(s.bytes, Relaxed);
        live.lat_sums[d].store(s.lat.sum(), Relaxed);
        live.lat_sums[2 + d].store(s.clat.sum(), Relaxed);
        live.lat_sums[4 + d].store(s.slat.sum(), Relaxed);
    }
}

/// Empty figures and fio-log windows for the job, with the histograms it will fill allocated
/// up front (before the start line, and again at the ramp's end), so that neither the start of
/// hundreds of jobs nor the first I/O of each pays for the others.
pub(crate) fn fresh_counts(
    spec: &JobSpec,
    sync_engine: bool,
    interval_ns: u64,
) -> (JobStats, Option<WindowLog>) {
    let mut stats = JobStats::default();
    // A verify backlog reads back what a write job wrote, and counts the reads.
    let reads = spec.rw.reads() || spec.checking.verify_backlog > 0;
    for (used, d) in [(reads, 0), (spec.rw.writes(), 1)] {
        if used {
            let dir = &mut stats.dirs[d];
            dir.clat.prepare();
            dir.lat.prepare();
            dir.lat.with_intervals(interval_ns / 1_000_000);
            if spec.rate_capped(d) {
                dir.lat_due.prepare();
                dir.issue_late.prepare();
            }
            if !sync_engine {
                dir.slat.prepare();
            }
        }
    }
    if spec.sync.sync_every > 0 || spec.replay.on() {
        stats.sync.prepare();
        stats.durable.prepare();
    }
    if spec.replay.on() {
        stats.replay = Some(Box::new(stats::ReplayStats::new(trace::SIZE_CLASSES.len())));
    }
    let (max_ms, hist_ms) = spec.reporting.logs.window_ms();
    (stats, WindowLog::new(max_ms, hist_ms))
}
