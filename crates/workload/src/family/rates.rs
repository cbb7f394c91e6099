//! Rate caps and floors, and flow between jobs.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// Rate caps and floors, and flow between jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Cap in bytes/s for [reads, writes]; 0: none (fio's `rate`).
    pub rate: [u64; 2],
    /// Cap in I/Os per second for [reads, writes]; 0: none (fio's `rate_iops`).
    pub rate_iops: [u64; 2],
    /// Floors for [reads, writes] in bytes/s (fio's `rate_min`) and I/Os per second
    /// (`rate_iops_min`): a direction under its floor over a `rate_cycle` ends the job with
    /// fio's error (EIO), after fio's 2 s settling.
    #[serde(default, skip_serializing_if = "is_zero_pair")]
    pub rate_min: [u64; 2],
    #[serde(default, skip_serializing_if = "is_zero_pair")]
    pub rate_iops_min: [u64; 2],
    /// The span over which the floors are judged (fio's `rate_cycle`, 1 s by default).
    #[serde(default = "one_second_ms")]
    pub rate_cycle_ms: u64,
    /// fio's `rate_process=poisson`: rate-limited I/Os arrive as a Poisson process (random
    /// exponential gaps with the rate's mean) instead of evenly spaced.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_poisson: bool,
    /// fio's `rate_ignore_thinktime`: the rate's schedule moves on by each think instead of
    /// catching up on it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_ignore_thinktime: bool,
    /// Weight among the jobs of the same `flow_id` (fio's `flow`, 1 to 1000; 0: none): they
    /// issue I/Os in proportion to their weights.
    #[serde(default)]
    pub flow: u32,
    #[serde(default)]
    pub flow_id: u32,
    /// Sleep this many µs when held back with nothing in flight (fio's `flow_sleep`).
    #[serde(default)]
    pub flow_sleep: u64,
}

impl Default for Rates {
    fn default() -> Self {
        Rates {
            rate: [0, 0],
            rate_iops: [0, 0],
            rate_min: [0, 0],
            rate_iops_min: [0, 0],
            rate_cycle_ms: 1000,
            rate_poisson: false,
            rate_ignore_thinktime: false,
            flow: 0,
            flow_id: 0,
            flow_sleep: 0,
        }
    }
}
