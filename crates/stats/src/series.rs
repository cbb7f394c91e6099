//! Per-second series: counts sampled from the jobs' live counters at one-second ticks.
//!
//! Bursts, throttles and write cliffs show up here and nowhere else: a 30-second average hides
//! a volume that did 16,000 IOPS for ten seconds and 3,000 after.

use serde::{Deserialize, Serialize};

/// Work completed in one interval. Index 0 is reads, 1 is writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// End of the interval, in milliseconds since measurement began.
    pub t_ms: u64,
    /// Length of the interval in milliseconds (the last one is usually shorter).
    pub dt_ms: u64,
    pub ios: [u64; 2],
    pub bytes: [u64; 2],
    /// Sums of the total, completion and submission latencies of the interval's I/Os, per
    /// direction: the interval's mean latency is the sum over `ios` (fio's averaged lat logs).
    #[serde(default, skip_serializing_if = "zeros")]
    pub lat_sum_ns: [u64; 2],
    #[serde(default, skip_serializing_if = "zeros")]
    pub clat_sum_ns: [u64; 2],
    #[serde(default, skip_serializing_if = "zeros")]
    pub slat_sum_ns: [u64; 2],
    /// The interval's own total-latency percentiles per direction (`crate::interval`).
    #[serde(default, skip_serializing_if = "LatPct::is_empty")]
    pub lat_pct: LatPct,
}

/// An interval's latency percentiles, reads and writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatPct {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<crate::interval::Pct>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<crate::interval::Pct>,
}

impl LatPct {
    pub fn is_empty(&self) -> bool {
        self.read.is_none() && self.write.is_none()
    }
    pub fn dir(&self, d: usize) -> Option<&crate::interval::Pct> {
        if d == 0 {
            self.read.as_ref()
        } else {
            self.write.as_ref()
        }
    }
}

fn zeros(v: &[u64; 2]) -> bool {
    *v == [0, 0]
}

impl Sample {
    /// Adds another interval's work (another job's at the same tick, or the next interval's).
    pub fn add(&mut self, o: &Sample) {
        for d in 0..2 {
            self.ios[d] += o.ios[d];
            self.bytes[d] += o.bytes[d];
            self.lat_sum_ns[d] += o.lat_sum_ns[d];
            self.clat_sum_ns[d] += o.clat_sum_ns[d];
            self.slat_sum_ns[d] += o.slat_sum_ns[d];
        }
    }

    pub fn iops(&self, dir: usize) -> f64 {
        rate(self.ios[dir], self.dt_ms)
    }
    pub fn bw_bytes(&self, dir: usize) -> f64 {
        rate(self.bytes[dir], self.dt_ms)
    }
    pub fn total_iops(&self) -> f64 {
        rate(self.ios[0] + self.ios[1], self.dt_ms)
    }
}

fn rate(n: u64, dt_ms: u64) -> f64 {
    if dt_ms == 0 {
        0.0
    } else {
        n as f64 * 1000.0 / dt_ms as f64
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub interval_ms: u64,
    /// Where the series starts on the run's one timeline, in ms after the run's first measured
    /// instant: jobs that run one after another (`stonewall`) start later, and their samples'
    /// `t_ms` count from here.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_ms: u64,
    pub samples: Vec<Sample>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Min, max, mean and standard deviation of a per-interval rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesSummary {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub stdev: f64,
    pub samples: u64,
}

impl Series {
    /// Sets each sample's latency percentiles from its interval's (interval k is the k-th
    /// sample), for reads and writes.
    pub fn attach_percentiles(&mut self, read: &crate::LatHist, write: &crate::LatHist) {
        for (k, s) in self.samples.iter_mut().enumerate() {
            let at = |h: &crate::LatHist| {
                h.intervals()
                    .iter()
                    .find(|c| c.idx == k as u64)
                    .map(|c| c.pct)
            };
            s.lat_pct = LatPct {
                read: at(read),
                write: at(write),
            };
        }
    }

    /// Adds another job's series sampled at the same ticks.
    pub fn merge(&mut self, other: &Series) {
        if self.samples.is_empty() {
            *self = other.clone();
            return;
        }
        for (a, b) in self.samples.iter_mut().zip(&other.samples) {
            a.add(b);
        }
        if other.samples.len() > self.samples.len() {
            self.samples
                .extend_from_slice(&other.samples[self.samples.len()..]);
        }
    }

    /// Adds a series that runs after this one on the same timeline (the next phase of a run):
    /// its samples keep their own time, so a second measured after this series ends is never
    /// added to one of this series' seconds.
    pub fn append(&mut self, later: &Series) {
        if self.samples.is_empty() {
            *self = later.clone();
            return;
        }
        let shift = later.start_ms.saturating_sub(self.start_ms);
        self.samples.extend(later.samples.iter().map(|s| Sample {
            t_ms: s.t_ms + shift,
            ..*s
        }));
    }

    /// Intervals at least half as long as the nominal one: a 20 ms tail would make a wild rate.
    pub fn full(&self) -> impl Iterator<Item = &Sample> {
        let min = self.interval_ms / 2;
        self.samples.iter().filter(move |s| s.dt_ms >= min.max(1))
    }

    pub fn summarize(&self, f: impl Fn(&Sample) -> f64) -> SeriesSummary {
        let v: Vec<f64> = self.full().map(f).collect();
        if v.is_empty() {
            return SeriesSummary::default();
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = if v.len() > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        SeriesSummary {
            min: v.iter().cloned().fold(f64::INFINITY, f64::min),
            max: v.iter().cloned().fold(0.0, f64::max),
            mean,
            stdev: var.sqrt(),
            samples: v.len() as u64,
        }
    }

    /// Mean total IOPS over the first and the last third of the run, the shape of a burst.
    pub fn thirds(&self) -> Option<(f64, f64)> {
        let v: Vec<f64> = self.full().map(|s| s.total_iops()).collect();
        if v.len() < 6 {
            return None;
        }
        let k = v.len() / 3;
        let first = v[..k].iter().sum::<f64>() / k as f64;
        let last = v[v.len() - k..].iter().sum::<f64>() / k as f64;
        Some((first, last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: u64, dt: u64, r: u64) -> Sample {
        Sample {
            t_ms: t,
            dt_ms: dt,
            ios: [r, 0],
            bytes: [r * 4096, 0],
            ..Default::default()
        }
    }

    #[test]
    fn a_later_phase_keeps_its_own_seconds() {
        let mut a = Series {
            interval_ms: 1000,
            start_ms: 0,
            samples: vec![s(1000, 1000, 1000), s(2000, 1000, 1000)],
        };
        let b = Series {
            interval_ms: 1000,
            start_ms: 2100,
            samples: vec![s(1000, 1000, 3000), s(2000, 1000, 3000)],
        };
        a.append(&b);
        let t: Vec<u64> = a.samples.iter().map(|x| x.t_ms).collect();
        assert_eq!(t, [1000, 2000, 3100, 4100]);
        let sum = a.summarize(|x| x.iops(0));
        assert_eq!((sum.min, sum.max, sum.samples), (1000.0, 3000.0, 4));
    }

    #[test]
    fn summary_ignores_short_tail() {
        let series = Series {
            interval_ms: 1000,
            start_ms: 0,
            samples: vec![s(1000, 1000, 100), s(2000, 1000, 300), s(2010, 10, 50)],
        };
        let sum = series.summarize(|x| x.iops(0));
        assert_eq!(
            (sum.min, sum.max, sum.mean, sum.samples),
            (100.0, 300.0, 200.0, 2)
        );
    }

    #[test]
    fn merge_adds_aligned_samples() {
        let mut a = Series {
            interval_ms: 1000,
            start_ms: 0,
            samples: vec![s(1000, 1000, 1), s(2000, 1000, 2)],
        };
        let b = Series {
            interval_ms: 1000,
            start_ms: 0,
            samples: vec![s(1000, 1000, 10), s(2000, 1000, 20), s(2500, 500, 5)],
        };
        a.merge(&b);
        let ios: Vec<u64> = a.samples.iter().map(|x| x.ios[0]).collect();
        assert_eq!(ios, vec![11, 22, 5]);
    }

    #[test]
    fn thirds_show_a_drop() {
        let samples = (0..9)
            .map(|i| s(1000 * (i + 1), 1000, if i < 3 { 1000 } else { 100 }))
            .collect();
        let series = Series {
            interval_ms: 1000,
            start_ms: 0,
            samples,
        };
        assert_eq!(series.thirds(), Some((1000.0, 100.0)));
    }
}
