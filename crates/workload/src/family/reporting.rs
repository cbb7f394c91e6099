//! What is reported and logged: groups, percentiles, logs, the iolog written, stat type.

use crate::values::*;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What is reported and logged: groups, percentiles, logs, the iolog written, stat type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reporting {
    /// Report the jobs of this group as one (fio's `group_reporting`).
    pub group_reporting: bool,
    /// Percentiles reported instead of fio's default set (fio's `percentile_list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentile_list: Option<Vec<f64>>,
    /// Which latencies fio-json prints percentiles for: completion (fio's default), total,
    /// submission (`clat_percentiles`, `lat_percentiles`, `slat_percentiles`).
    #[serde(default = "percentiles_default")]
    pub percentiles_for: [bool; 3],
    /// fio's log files (`write_bw_log` and friends), written after the run.
    #[serde(default, skip_serializing_if = "Logs::is_none")]
    pub logs: Logs,
    /// fio's `write_iolog`: an iolog (v3) of every I/O the job issued, with its time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iolog: Option<PathBuf>,
    /// `filestat`/`dirstat`: 0 stat(2), 1 lstat(2), 2 statx(2) (fio's `stat_type`).
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub stat_type: u8,
}

impl Default for Reporting {
    fn default() -> Self {
        Reporting {
            group_reporting: false,
            percentile_list: None,
            percentiles_for: percentiles_default(),
            logs: Logs::default(),
            write_iolog: None,
            stat_type: 0,
        }
    }
}
