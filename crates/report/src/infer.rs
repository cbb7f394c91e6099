//! `InferReport`: what limits a volume, inferred from measurement — its IOPS and bandwidth caps,
//! the crossover block size, the latency floor, the depth needed to reach the cap, and a burst
//! bucket when one was seen — with the evidence and the closest catalog products.

use crate::{Environment, Status, Tool, WarningRecord};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InferReport {
    pub schema_version: u32,
    pub tool: Tool,
    pub started_at: String,
    pub started_unix: u64,
    pub command_line: Vec<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The device or directory probed, or the stored result analysed ("stored #12").
    pub target: String,
    pub limits: Limits,
    /// "high", "medium" or "low", with the reasons in `evidence`.
    pub confidence: String,
    pub evidence: Vec<String>,
    /// Every measured point of the probe, in the order run.
    pub points: Vec<Point>,
    /// The burst phase's per-second rate (IOPS), when it ran.
    #[serde(default)]
    pub burst_series: Vec<f64>,
    /// Seconds of I/O the probe spent, per phase and in total.
    pub io_time_s: f64,
    #[serde(default)]
    pub closest: Vec<Closest>,
    pub environment: Environment,
    #[serde(default)]
    pub warnings: Vec<WarningRecord>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Limits {
    /// The IOPS the volume sustains (after any burst), at small blocks.
    pub iops_cap: Option<f64>,
    /// Bytes per second sustained, at large blocks.
    pub bw_cap_bytes: Option<f64>,
    /// The block size where the bandwidth cap starts to bind: bw_cap / iops_cap.
    pub crossover_bs: Option<f64>,
    /// Median latency of one 4k read at queue depth 1 (the mean in results before the
    /// median was kept).
    pub latency_floor_ns: Option<f64>,
    /// The smallest queue depth reaching 95 % of the IOPS cap.
    pub qd_needed: Option<u32>,
    pub burst: Option<BurstFound>,
    /// A throughput bucket of its own, drained at 1m after an IOPS burst was seen (null when
    /// none was seen or not looked for).
    #[serde(default)]
    pub bw_burst: Option<BwBurstFound>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BwBurstFound {
    pub burst_bw_bytes: f64,
    pub baseline_bw_bytes: f64,
    pub duration_s: f64,
    pub bucket_bytes: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BurstFound {
    pub burst_iops: f64,
    pub baseline_iops: f64,
    /// How long the burst lasted from the start of the burst phase.
    pub duration_s: f64,
    /// The credits it drew: (burst - baseline) x duration.
    pub bucket_ios: f64,
    /// Credits earned per idle second, when the probe waited and measured a second burst.
    #[serde(default)]
    pub refill_ios_per_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Point {
    /// "latency", "burst", "depth", "bs" or "refill" (or the stored test's name).
    pub phase: String,
    pub bs: u64,
    pub iodepth: u32,
    pub iops: f64,
    pub bw_bytes: f64,
    pub lat_mean_ns: f64,
    /// The median latency (of the direction that did more I/Os): the latency floor's figure,
    /// as a throttle's waits put the mean far above it (135.9 us against 2.5 us).
    #[serde(default)]
    pub lat_p50_ns: f64,
    pub runtime_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Closest {
    /// The product as `cloud check --model` takes it, e.g. `digitalocean:size=100`.
    pub model: String,
    pub name: String,
    pub iops: f64,
    pub bw_bytes: f64,
    pub burst_iops: Option<f64>,
    /// How far the model is from what was found (0 = identical; 0.1 is about 10 % off).
    pub distance: f64,
}
