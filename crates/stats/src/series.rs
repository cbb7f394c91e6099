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

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Series {
    pub interval_ms: u64,
    /// Where the series starts on the run's one timeline, in ms after the run's first measured
    /// instant: jobs that run one after another (`stonewall`) start later, and their samples'
    /// `t_ms` count from here.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_ms: u64,
    /// One per interval at first, then folded (`crate::fold`): a sample's `dt_ms` says how
    /// long it is. Add through [`Series::push`].
    pub samples: Vec<Sample>,
    /// The intervals pushed so far (the fold's clock): bookkeeping, not content.
    #[serde(skip)]
    pushed: u64,
}

impl PartialEq for Series {
    fn eq(&self, o: &Series) -> bool {
        (self.interval_ms, self.start_ms, &self.samples) == (o.interval_ms, o.start_ms, &o.samples)
    }
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
    pub fn new(interval_ms: u64) -> Series {
        Series {
            interval_ms,
            ..Series::default()
        }
    }

    /// The next interval's sample: kept as it is, or added to the last sample when the fold
    /// puts both in one record.
    pub fn push(&mut self, s: Sample) {
        let rec = crate::fold::bucket(self.pushed, self.interval_ms);
        self.pushed += 1;
        let kept = self.samples.len() as u64;
        match self.samples.last_mut() {
            Some(last) if rec < kept => {
                last.add(&s);
                last.t_ms = s.t_ms;
                last.dt_ms += s.dt_ms;
            }
            _ => self.samples.push(s),
        }
    }

    /// Starts over (a latency search restarted its counts).
    pub fn clear(&mut self) {
        self.samples.clear();
        self.pushed = 0;
    }

    /// Sets each sample's latency percentiles from its record's histograms (record k is the
    /// k-th sample; both are folded alike), for reads and writes.
    pub fn attach_percentiles(&mut self, read: &crate::LatHist, write: &crate::LatHist) {
        let (r, w) = (read.intervals(), write.intervals());
        let (mut ri, mut wi) = (r.iter().peekable(), w.iter().peekable());
        for (k, s) in self.samples.iter_mut().enumerate() {
            // Both lists are sorted by record: walk them beside the samples.
            let at = |it: &mut std::iter::Peekable<std::slice::Iter<crate::interval::Closed>>| {
                while it.next_if(|c| c.idx < k as u64).is_some() {}
                it.next_if(|c| c.idx == k as u64).map(|c| c.pct)
            };
            s.lat_pct = LatPct {
                read: at(&mut ri),
                write: at(&mut wi),
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

    /// Min, max, mean and standard deviation of a per-sample rate. Each sample weighs its
    /// length: once the fold makes later samples longer, a minute counts as sixty seconds.
    pub fn summarize(&self, f: impl Fn(&Sample) -> f64) -> SeriesSummary {
        let v: Vec<(f64, f64)> = self.full().map(|s| (f(s), s.dt_ms as f64)).collect();
        if v.is_empty() {
            return SeriesSummary::default();
        }
        let w1: f64 = v.iter().map(|x| x.1).sum();
        let w2: f64 = v.iter().map(|x| x.1 * x.1).sum();
        let mean = v.iter().map(|x| x.0 * x.1).sum::<f64>() / w1;
        // Reliability weights: with equal lengths this is the sample variance (n - 1).
        let var = if v.len() > 1 {
            v.iter().map(|x| x.1 * (x.0 - mean).powi(2)).sum::<f64>() / (w1 - w2 / w1)
        } else {
            0.0
        };
        SeriesSummary {
            min: v.iter().map(|x| x.0).fold(f64::INFINITY, f64::min),
            max: v.iter().map(|x| x.0).fold(0.0, f64::max),
            mean,
            stdev: var.max(0.0).sqrt(),
            samples: v.len() as u64,
        }
    }

    /// Mean total IOPS over the first and the last third of the run's time, the shape of a
    /// burst.
    pub fn thirds(&self) -> Option<(f64, f64)> {
        let full: Vec<&Sample> = self.full().collect();
        if full.len() < 6 {
            return None;
        }
        let (from, to) = (full[0].t_ms - full[0].dt_ms, full[full.len() - 1].t_ms);
        let third = (to - from) / 3;
        let rate = |keep: &dyn Fn(&Sample) -> bool| {
            let (n, ms) = full
                .iter()
                .filter(|s| keep(s))
                .fold((0, 0), |(n, ms), s| (n + s.ios[0] + s.ios[1], ms + s.dt_ms));
            n as f64 * 1000.0 / ms.max(1) as f64
        };
        let first = rate(&|s| s.t_ms <= from + third);
        let last = rate(&|s| s.t_ms - s.dt_ms >= to - third);
        Some((first, last))
    }

    /// The run's last stretch of samples of one length (the fold's last tier; all of them
    /// before the fold begins): a trend is fitted over evenly spaced points.
    pub fn last_tier(&self) -> Vec<&Sample> {
        let full: Vec<&Sample> = self.full().collect();
        let Some(last) = full.last() else {
            return full;
        };
        // Native samples jitter by a tick or two; a folded one is ten times longer at least.
        let like = |s: &Sample| s.dt_ms * 2 > last.dt_ms && s.dt_ms < last.dt_ms * 2;
        let start = full.iter().rposition(|s| !like(s)).map_or(0, |k| k + 1);
        full[start..].to_vec()
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
            ..Series::default()
        };
        let b = Series {
            interval_ms: 1000,
            start_ms: 2100,
            samples: vec![s(1000, 1000, 3000), s(2000, 1000, 3000)],
            ..Series::default()
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
            ..Series::default()
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
            ..Series::default()
        };
        let b = Series {
            interval_ms: 1000,
            start_ms: 0,
            samples: vec![s(1000, 1000, 10), s(2000, 1000, 20), s(2500, 500, 5)],
            ..Series::default()
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
            samples,
            ..Series::default()
        };
        assert_eq!(series.thirds(), Some((1000.0, 100.0)));
    }

    /// Past the fold's first 1,200 intervals ten 100 ms samples make one record; a summary
    /// weighs each record by its length, a trend is fitted over the last tier only, and the
    /// thirds are thirds of the time.
    #[test]
    fn pushed_samples_fold_and_summaries_weigh_their_length() {
        let mut a = Series::new(100);
        for k in 0..1500u64 {
            let r = if k < 1200 { 10 } else { 30 };
            a.push(s(100 * (k + 1), 100, r));
        }
        assert_eq!(a.samples.len(), 1230);
        let last = a.samples[1229];
        assert_eq!((last.t_ms, last.dt_ms, last.ios[0]), (150_000, 1000, 300));
        let sum = a.summarize(|x| x.iops(0));
        assert_eq!((sum.min, sum.max), (100.0, 300.0));
        // 120 s at 100 IOPS and 30 s at 300, by time: not the mean of 1,230 records (~105).
        assert!((sum.mean - 140.0).abs() < 1e-9, "{}", sum.mean);
        assert_eq!(a.last_tier().len(), 30);
        let (first, later) = a.thirds().unwrap();
        // The last 50 s: 20 s at 100 and 30 s at 300.
        assert_eq!((first, later), (100.0, 220.0));
        let mut b = a.clone();
        b.merge(&a);
        assert_eq!(b.samples[1229].ios[0], 600);
        a.clear();
        a.push(s(100, 100, 1));
        assert_eq!(a.samples.len(), 1);
    }
}
