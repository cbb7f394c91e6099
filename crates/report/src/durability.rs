//! `DurabilityReport`: the power-cut loop's result (`volbench durability cycle`).
//!
//! One report covers N power cuts of one file on one tested machine: per cycle what the
//! witness acknowledged, what verify found after the power came back, and the cycle's verdict;
//! over all cycles one verdict, with what a flush costs on the same target beside it. The
//! model is data only; crate `durability` fills it.

use crate::{Status, TargetInfo, Tool, WarningRecord};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DurabilityReport {
    pub schema_version: u32,
    pub tool: Tool,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub started_unix: u64,
    pub command_line: Vec<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The file written, as a path on the tested machine.
    pub file: String,
    /// The prefix that runs a command on the tested machine; empty: this machine.
    pub remote: String,
    /// The tested machine's host name, as its verify reported it.
    #[serde(default)]
    pub tested_host: String,
    pub settings: CycleSettings,
    /// The file's file system and device (write cache, FUA, model, firmware) as the tested
    /// machine saw them after its first power cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetInfo>,
    /// What a flush costs on the same target, measured before the cycles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<FsyncCost>,
    pub cycles: Vec<Cycle>,
    /// `pass` (every cycle ran and nothing acknowledged was lost), `fail` (a cycle lost
    /// acknowledged records), `error` (a cycle could not be judged: the cut or the return
    /// failed, or a step timed out) or `incomplete` (stopped before the last cycle).
    pub verdict: String,
    /// One sentence: the verdict with its counts and the flush cost.
    pub summary: String,
    #[serde(default)]
    pub warnings: Vec<WarningRecord>,
}

/// How each cycle's `create` wrote, and the time it wrote before the cut.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CycleSettings {
    /// Cycles asked for.
    pub cycles: u32,
    pub size: u64,
    pub block: u32,
    pub sync: String,
    pub threads: u32,
    /// The cut comes a random time in this range after the first acknowledged record.
    pub wait_min_s: f64,
    pub wait_max_s: f64,
    pub stop_on_loss: bool,
}

/// One power cut and what survived it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Cycle {
    /// 1 for the first cycle.
    pub index: u32,
    /// RFC 3339, UTC: when its create was started.
    pub started_at: String,
    /// Seconds records were written before the cut (from the first acknowledged record).
    pub wrote_s: f64,
    /// Records the witness acknowledged in this cycle's run.
    pub acknowledged: u64,
    /// Blocks whose last acknowledged record verify checked (each had to survive).
    pub checked: u64,
    pub intact: u64,
    /// Acknowledged records not on disk after the cut: must be 0.
    pub lost: u64,
    pub lost_stale: u64,
    pub lost_corrupt: u64,
    /// The file's header (synced by create before its first record) was lost too: counted as
    /// one of `lost` and `lost_corrupt`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub header_lost: bool,
    /// Records in flight at the cut (any content is legal), and of them the torn ones.
    pub in_flight: u64,
    pub torn: u64,
    /// For each lost record: seconds between its acknowledgement and the witness's last
    /// message before the cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost_seconds_before_cut: Vec<u64>,
    /// Seconds from the cut until the tested machine answered `--up`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back_after_s: Option<f64>,
    /// `pass`, `loss`, `cut_failed` (the cut command failed, or records were still
    /// acknowledged after it), `not_back` (the machine did not come back in time) or `error`
    /// (another step failed). A cycle stopped by Ctrl-C is not listed: a resume runs it again
    /// (before its cut) or verifies it (after).
    pub verdict: String,
    /// Why a cycle that is not `pass` or `loss` could not be judged, in one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A flush's cost on the tested target, from a `volbench fsync` run there.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FsyncCost {
    /// The method measured, the same as the cycles' `sync` (e.g. `fdatasync`).
    pub method: String,
    pub bs: u64,
    /// Durable writes per second, one thread.
    pub syncs_per_sec: f64,
    /// Latency of the whole durable write (write and its sync).
    pub lat_p50_ns: u64,
    pub lat_p99_ns: u64,
    /// The flush-honesty verdict of that run (`plausible`, `implausible`, ...) and its
    /// sentence.
    pub verdict: String,
    pub summary: String,
}

impl Cycle {
    /// Whether the cycle was judged (its records were read back after a cut).
    pub fn judged(&self) -> bool {
        matches!(self.verdict.as_str(), "pass" | "loss")
    }
}

impl DurabilityReport {
    /// Cycles that were judged, cycles that lost records, records checked, records lost.
    pub fn totals(&self) -> (usize, usize, u64, u64) {
        let judged = self.cycles.iter().filter(|c| c.judged());
        let (mut n, mut lossy, mut checked, mut lost) = (0, 0, 0, 0);
        for c in judged {
            n += 1;
            lossy += usize::from(c.lost > 0);
            checked += c.checked;
            lost += c.lost;
        }
        (n, lossy, checked, lost)
    }

    /// Records acknowledged over every judged cycle.
    pub fn acknowledged(&self) -> u64 {
        self.cycles
            .iter()
            .filter(|c| c.judged())
            .map(|c| c.acknowledged)
            .sum()
    }
}
