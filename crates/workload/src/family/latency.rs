//! Latency limits: fio's max_latency and latency_target search.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// Latency limits: fio's max_latency and latency_target search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyLimits {
    /// fio's `max_latency` (reads, writes; 0: none): an I/O whose latency (issue to
    /// completion) exceeds it ends the job with ETIMEDOUT.
    #[serde(default, skip_serializing_if = "is_zero_pair")]
    pub max_latency_ns: [u64; 2],
    /// fio's latency-target search (`latency_target`, `latency_window`,
    /// `latency_percentile`, `latency_run`).
    #[serde(default, skip_serializing_if = "lat_target_off")]
    pub lat_target: crate::lat_target::LatTarget,
}
