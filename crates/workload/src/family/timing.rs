//! When a job starts and settles: start delays, waits on other jobs, ramp, think time, stonewalls.

use crate::values::*;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// When a job starts and settles: start delays, waits on other jobs, ramp, think time, stonewalls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Wait this long before starting (fio's `startdelay`).
    pub startdelay: Duration,
    /// fio's `startdelay=low-high`: each clone waits a time drawn from `startdelay` to this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startdelay_high: Option<Duration>,
    /// fio's `wait_for`: the job starts when the I/O of the job of this name (an earlier
    /// one) has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<String>,
    pub ramp_time: Duration,
    /// fio's `ramp_size`: the warm-up is this many bytes of I/O instead of a time.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub ramp_size: u64,
    /// fio's `thinktime`: after every `think.blocks` I/Os (completed, or with `on_issue`
    /// issued), wait for those in flight, then spin `spin_us` and sleep the rest of `us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    /// Start only after every earlier job has finished; also starts a new reporting group.
    pub stonewall: bool,
    /// Start a new reporting group here.
    pub new_group: bool,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            startdelay: Duration::ZERO,
            startdelay_high: None,
            wait_for: None,
            ramp_time: Duration::ZERO,
            ramp_size: 0,
            think: None,
            stonewall: false,
            new_group: false,
        }
    }
}
