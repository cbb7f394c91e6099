//! `FsyncReport`: what durability costs on a device, and whether its flush looks honest.
//!
//! One report covers one or more targets (`volbench fsync DIR1 DIR2`): each measured case is a
//! row of `cases`, each target has one line of the fsync-penalty table and one honesty verdict.
//! The model is data only; `volbench fsync` (crate `durability`) fills it.

use crate::{Environment, Status, Tool, WarningRecord};
use serde::{Deserialize, Serialize};
use stats::LatencySummary;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FsyncReport {
    pub schema_version: u32,
    pub tool: Tool,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub started_unix: u64,
    pub command_line: Vec<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Measured time of each case, in nanoseconds (what `--runtime` asked for).
    pub runtime_ns: u64,
    /// Host facts, and per target its file system and device (write cache, FUA, model, members).
    pub environment: Environment,
    pub cases: Vec<FsyncCase>,
    /// The seed-003 table: random read+write with no sync vs a sync after every write, per target.
    pub penalty: Vec<Penalty>,
    pub verdicts: Vec<Verdict>,
    #[serde(default)]
    pub warnings: Vec<WarningRecord>,
}

/// One measured way of making writes durable, at one block size and thread count.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FsyncCase {
    /// The target as given (a directory or a device).
    pub target: String,
    /// `none`, `direct`, `fsync`, `fdatasync`, `odsync`, `direct-fdatasync` or `rwf-dsync`.
    pub method: String,
    pub bs: u64,
    pub threads: u32,
    /// Writes completed in the measured interval.
    pub writes: u64,
    /// Durable operations completed: sync calls, or writes that were durable on return
    /// (O_DSYNC, RWF_DSYNC). 0 for `none` and `direct`.
    pub syncs: u64,
    pub syncs_per_sec: f64,
    pub writes_per_sec: f64,
    pub mib_per_sec: f64,
    /// Latency of the whole durable write as the caller sees it: the write and its sync for
    /// fsync-style methods, the write call for O_DSYNC-style ones (and for `none`/`direct`).
    pub lat_ns: LatencySummary,
    /// The write call alone.
    pub write_lat_ns: LatencySummary,
    /// The flush alone (the fsync/fdatasync call); absent where no separate call is made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_lat_ns: Option<LatencySummary>,
    pub runtime_ns: u64,
    /// Flush requests the kernel counted on the device during the case, where it has a counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_flushes: Option<u64>,
    pub status: Status,
    /// Why the case did not run or stopped (e.g. O_DIRECT unsupported on this file system).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Read and write MiB/s of one random read+write mix.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct RwRates {
    pub read_mib_per_sec: f64,
    pub write_mib_per_sec: f64,
}

/// One line of the seed-003 table for one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Penalty {
    pub target: String,
    pub bs: u64,
    pub threads: u32,
    pub rwmixread: u8,
    /// O_DIRECT (true) or buffered; buffered only where the file system refuses O_DIRECT.
    pub direct: bool,
    pub no_sync: RwRates,
    pub fsync_every_write: RwRates,
    /// Total MiB/s without a sync divided by total MiB/s with one after every write.
    pub penalty: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The flush-honesty evidence for one target. Never a certainty: only a power cut
/// (`volbench durability`) proves that acknowledged data was lost.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    pub target: String,
    /// `implausible` (the flush is faster than the medium can make data stable),
    /// `plausible`, `no_flush` (the device reports no volatile cache, so the kernel sends no
    /// flush), `volatile` (memory: nothing survives power loss) or `unknown` (too little data).
    pub verdict: String,
    /// Median flush time (fdatasync after an O_DIRECT write, one thread), if measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_p50_ns: Option<u64>,
    /// Median QD1 O_DIRECT write time without a sync, if measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_p50_ns: Option<u64>,
    /// The rules that fired or held, one sentence each, with the threshold used.
    pub evidence: Vec<String>,
    /// One sentence for the text report.
    pub summary: String,
}
