//! fio's steady-state stop as a job asks for it: the criterion (`steadystate`), the window
//! (`ss_dur`), the time before data is collected (`ss_ramp`) and the check interval
//! (`ss_interval`). The runner judges it; `stats::steady` holds the arithmetic.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What fio's `steadystate` tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    Iops,
    Bw,
    Lat,
}

/// fio's `steadystate=METRIC[_slope]:LIMIT[%]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Criterion {
    pub metric: Metric,
    /// The slope over the window (`*_slope`), else the largest deviation from its mean.
    pub slope: bool,
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    pub percent: bool,
}

impl Default for Criterion {
    /// fio's default: `iops_slope:0.01%`.
    fn default() -> Self {
        Criterion {
            metric: Metric::Iops,
            slope: true,
            limit: 0.01,
            percent: true,
        }
    }
}

impl Criterion {
    /// As the option takes it back (`iops_slope:0.1%`); an absolute latency limit in µs,
    /// with its unit.
    pub fn as_option(&self) -> String {
        let name = self.to_string();
        let name = name.split(':').next().unwrap_or("");
        match (self.metric, self.percent) {
            (_, true) => format!("{name}:{}%", self.limit),
            (Metric::Lat, false) => format!("{name}:{}us", self.limit / 1000.0),
            _ => format!("{name}:{}", self.limit),
        }
    }
}

impl std::fmt::Display for Criterion {
    /// fio's spelling in its JSON (`iops_slope:0.010000%`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = match self.metric {
            Metric::Iops => "iops",
            Metric::Bw => "bw",
            Metric::Lat => "lat",
        };
        let slope = if self.slope { "_slope" } else { "" };
        let pct = if self.percent { "%" } else { "" };
        write!(f, "{m}{slope}:{:.6}{pct}", self.limit)
    }
}

/// A job's steady-state stop; active when `dur` is not zero (fio's `ss_dur`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    pub criterion: Criterion,
    pub dur: Duration,
    pub ramp: Duration,
    /// fio's `ss_interval` (1 s by default): one sample per interval, `dur / interval` in the
    /// window.
    pub interval: Duration,
}

impl Default for SteadyState {
    fn default() -> Self {
        SteadyState {
            criterion: Criterion::default(),
            dur: Duration::ZERO,
            ramp: Duration::ZERO,
            interval: Duration::from_secs(1),
        }
    }
}

impl SteadyState {
    /// Whether the job asked for a steady-state stop (fio's `ss_dur` above zero).
    pub fn on(&self) -> bool {
        !self.dur.is_zero()
    }

    /// Samples in the window (at least 2: a slope needs two points).
    pub fn samples(&self) -> usize {
        let i = self.interval.as_millis().max(1);
        ((self.dur.as_millis() / i) as usize).max(2)
    }
}
