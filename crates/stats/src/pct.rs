//! One interval's latency percentiles: what an interval keeps (`crate::interval`), what a
//! live scraper's board holds of the last few (`crate::live`), and what a series sample shows.

use serde::{Deserialize, Serialize};

/// One interval's latency percentiles, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pct {
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}
