//! fio's latency-target search as a job asks for it (`latency_target`, `latency_window`,
//! `latency_percentile`, `latency_run`): find the deepest queue, up to `iodepth`, at which the
//! given share of I/Os completes within the target. The runner drives the search.

use serde::{Deserialize, Serialize};

/// The search's settings; off while `target_ns` is 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatTarget {
    /// The latency (issue to completion) an I/O must stay within.
    pub target_ns: u64,
    /// How long each depth is run before it is judged (fio's default 0: at every turn).
    pub window_ns: u64,
    /// The share of a window's I/Os (in %) that must meet the target; 100 ends a window at
    /// its first I/O over the target.
    pub percentile: f64,
    /// Keep adjusting the depth to the end of the run, instead of ending once it has settled.
    pub run: bool,
}

impl Default for LatTarget {
    fn default() -> Self {
        LatTarget {
            target_ns: 0,
            window_ns: 0,
            percentile: 100.0,
            run: false,
        }
    }
}

impl LatTarget {
    pub fn on(&self) -> bool {
        self.target_ns > 0
    }
}
