//! A replayed trace's own figures: how faithfully it was replayed (how late each I/O went
//! against its due time, and the replay's length against the trace's) and the latency the
//! target gave beside the latency the trace recorded, per direction and size class.

use serde::{Deserialize, Serialize};
use stats::LatencySummary;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplayReport {
    pub trace: String,
    /// volbench, blktrace, fio iolog v2 or v3.
    pub format: String,
    /// `1x`, `2x`, ... (the trace's rate scaled), or `max` (replay_no_stall).
    pub speed: String,
    pub loops: u32,
    /// I/Os in one pass of the trace (reads, writes, flushes and trims).
    pub trace_ios: u64,
    /// How long the trace takes at this speed (first issue to last completion, or last issue
    /// where it holds no completions), all loops: what a faithful replay takes.
    pub trace_ns: u64,
    /// How long the replay took (the job's runtime).
    pub replay_ns: u64,
    /// Flushes replayed as fsyncs; trims (not replayed: the engines issue no discards),
    /// I/Os left out by replay_skip, and I/Os wrapped into the target.
    pub syncs: u64,
    pub trims_skipped: u64,
    pub skipped: u64,
    pub wrapped: u64,
    /// The queue depth the replay allowed, and the deepest the trace had (if it says).
    pub depth: u32,
    pub recorded_depth: Option<u32>,
    /// How late each I/O was issued against its due time (none at `max` speed).
    pub lag_ns: Option<LatencySummary>,
    /// Latency rows: each direction overall (`class` "all"), then per size class.
    pub latency: Vec<ReplayLatency>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayLatency {
    /// read or write.
    pub dir: String,
    /// `all`, or a size class (`≤4KiB`, ..., `>1MiB`).
    pub class: String,
    /// I/Os replayed in this row.
    pub ios: u64,
    /// Issue to completion where the trace was recorded, when it holds completions.
    pub recorded: Option<LatencySummary>,
    /// Issue to completion on the target.
    pub here: LatencySummary,
}

impl ReplayReport {
    /// The replay's length over the trace's (1.0: on time).
    pub fn stretch(&self) -> Option<f64> {
        (self.trace_ns > 0).then(|| self.replay_ns as f64 / self.trace_ns as f64)
    }
}
