//! Latency in nanoseconds: an HDR histogram plus exact count, sum, min and max.
//!
//! The histogram keeps three significant digits (every value below 2048 ns exactly, above that
//! within 0.1 %), finer than fio's 1.6 % buckets. Mean, min and max do not come from buckets:
//! they are kept exactly, so `min <= mean <= max` holds to the nanosecond.

use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// The percentiles fio prints by default; reports list these.
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// `hist` is made on first use: a job allocates only the histograms its I/O needs (a read-only
/// psync job needs two of seven), which keeps hundreds of jobs cheap to start.
#[derive(Clone, Debug)]
pub struct LatHist {
    hist: Option<Histogram<u64>>,
    n: u64,
    sum: u128,
    sum_sq: u128,
    min: u64,
    max: u64,
    /// Per-interval percentiles (`crate::interval`): values go to the interval's histogram
    /// first, which is merged into `hist` when the interval closes: each value is recorded
    /// once.
    ival: Option<Box<crate::interval::Intervals>>,
}

impl Default for LatHist {
    fn default() -> Self {
        Self::new()
    }
}

impl LatHist {
    /// An empty histogram; its buckets are allocated on first use (or by [`LatHist::prepare`]).
    pub fn new() -> LatHist {
        LatHist {
            hist: None,
            n: 0,
            sum: 0,
            sum_sq: 0,
            min: u64::MAX,
            max: 0,
            ival: None,
        }
    }

    /// Keeps each interval's own distribution from now on (`record_at`), intervals of
    /// `interval_ms` each (folded over a long run as the series is: `crate::fold`).
    pub fn with_intervals(&mut self, interval_ms: u64) {
        self.ival.get_or_insert_with(|| {
            Box::new(crate::interval::Intervals::new(Self::fresh(), interval_ms))
        });
    }

    /// Counts each interval, as it closes, in `live` too (intervals must be on).
    pub fn feed(&mut self, live: std::sync::Arc<crate::live::LiveHist>) {
        if let Some(iv) = self.ival.as_mut() {
            iv.live = Some(live);
        }
    }

    /// The HDR histogram itself, once anything was recorded.
    pub(crate) fn hdr(&self) -> Option<&Histogram<u64>> {
        self.hist.as_ref()
    }

    /// Records `ns` in interval `idx` (intervals count up; a new one closes the last). Without
    /// intervals, as [`LatHist::record`].
    #[inline]
    pub fn record_at(&mut self, ns: u64, idx: u64) {
        let Some(iv) = self.ival.as_mut() else {
            return self.record(ns);
        };
        if idx != iv.idx {
            let hist = self.hist.get_or_insert_with(Self::fresh);
            iv.close(hist, idx);
        }
        iv.record(ns);
        self.n += 1;
        self.sum += ns as u128;
        self.sum_sq += (ns as u128) * (ns as u128);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Closes the open interval into the whole histogram; call before reading it.
    pub fn close_intervals(&mut self) {
        if let Some(iv) = self.ival.as_mut() {
            let hist = self.hist.get_or_insert_with(Self::fresh);
            let next = iv.idx + 1;
            iv.close(hist, next);
            iv.seal();
        }
    }

    /// The closed intervals, in order: none without intervals.
    pub fn intervals(&self) -> &[crate::interval::Closed] {
        self.ival.as_ref().map_or(&[], |iv| iv.closed())
    }

    pub(crate) fn fresh_hist() -> Histogram<u64> {
        Self::fresh()
    }

    fn fresh() -> Histogram<u64> {
        // Start small (1 ms range) and let the histogram grow: hundreds of jobs must not cost
        // gigabytes up front.
        let mut hist = Histogram::new_with_max(1_000_000, 3).expect("valid HDR bounds");
        hist.auto(true);
        hist
    }

    /// Allocates the buckets now, so the first record in a hot loop does not.
    pub fn prepare(&mut self) {
        self.hist.get_or_insert_with(Self::fresh);
    }

    #[inline]
    pub fn record(&mut self, ns: u64) {
        let hist = self.hist.get_or_insert_with(Self::fresh);
        // Auto-resize grows the range on a new maximum (rare, amortised like Vec growth).
        if hist.record(ns).is_err() {
            hist.saturating_record(ns);
        }
        self.n += 1;
        self.sum += ns as u128;
        self.sum_sq += (ns as u128) * (ns as u128);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    pub fn merge(&mut self, other: &LatHist) {
        let Some(oh) = other.hist.as_ref().filter(|_| other.n > 0) else {
            return;
        };
        match &mut self.hist {
            Some(h) => h
                .add(oh)
                .expect("auto-resizing histograms always accept another"),
            None => self.hist = Some(oh.clone()),
        }
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if let Some(o) = other.ival.as_ref().filter(|o| !o.closed().is_empty()) {
            let mine = self
                .ival
                .get_or_insert_with(|| Box::new(crate::interval::Intervals::new(Self::fresh(), 0)));
            mine.merge(o.closed());
        }
    }

    /// Forgets the per-interval data (intervals of phases that ran one after another would
    /// meet at the same index).
    pub fn drop_intervals(&mut self) {
        self.ival = None;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Sum of every recorded value, ns (saturating at u64's 584 years).
    pub fn sum(&self) -> u64 {
        self.sum.min(u64::MAX as u128) as u64
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// How many recorded values are at or below `ns` (to the histogram's precision).
    pub fn count_at_or_below(&self, ns: u64) -> u64 {
        match &self.hist {
            Some(h) if self.n > 0 => h.count_between(0, ns),
            _ => 0,
        }
    }

    /// The value at percentile `p` (0..100): the highest value equivalent to the recorded
    /// sample at that rank, as HDR defines it.
    pub fn percentile(&self, p: f64) -> u64 {
        match &self.hist {
            // Clamp to the exact extremes so a bucket's width never reports beyond what was seen.
            Some(h) if self.n > 0 => h.value_at_percentile(p).clamp(self.min, self.max),
            _ => 0,
        }
    }

    pub fn summary(&self) -> LatencySummary {
        self.summary_at(&FIO_PERCENTILES)
    }

    /// The summary with percentiles `ps` (fio's `percentile_list`) instead of fio's default set.
    pub fn summary_at(&self, ps: &[f64]) -> LatencySummary {
        let n = self.n;
        let stdev = if n > 1 {
            let mean = self.mean();
            let var = (self.sum_sq as f64 - n as f64 * mean * mean) / (n - 1) as f64;
            var.max(0.0).sqrt()
        } else {
            0.0
        };
        LatencySummary {
            n,
            min_ns: if n == 0 { 0 } else { self.min },
            max_ns: self.max,
            mean_ns: self.mean(),
            stdev_ns: stdev,
            percentiles: ps
                .iter()
                .map(|&p| Percentile {
                    p,
                    ns: self.percentile(p),
                })
                .collect(),
            hdr: (n > 0).then(|| self.encode()),
        }
    }

    /// The histogram in HdrHistogram's V2+deflate form, base64: any HDR library can read it back
    /// and merge it exactly with histograms from other runs or hosts.
    pub fn encode(&self) -> String {
        let mut buf = Vec::new();
        let empty;
        let hist = match &self.hist {
            Some(h) => h,
            None => {
                empty = Self::fresh();
                &empty
            }
        };
        V2DeflateSerializer::new()
            .serialize(hist, &mut buf)
            .expect("serializing into memory");
        base64::engine::general_purpose::STANDARD.encode(buf)
    }

    /// The histogram in fio's `plat` bins, as fio's json+ output lists them: (the bin's
    /// latency in ns as fio names it, count), non-empty bins only, in order. HDR's buckets
    /// are finer than fio's (0.1 % against 1.6 %), so each lands in one fio bin.
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        let mut bins: std::collections::BTreeMap<u64, u64> = Default::default();
        for v in self.hist.iter().flat_map(|h| h.iter_recorded()) {
            let bin = crate::winlog::plat_index(v.value_iterated_to());
            *bins.entry(crate::winlog::plat_mid(bin)).or_default() += v.count_at_value();
        }
        bins.into_iter().collect()
    }

    /// Reads back a histogram written by [`LatHist::encode`]. Sum and extremes come from the
    /// buckets, so they are exact to the histogram's precision.
    pub fn decode(b64: &str) -> Option<LatHist> {
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        let mut hist: Histogram<u64> = Deserializer::new().deserialize(&mut &bytes[..]).ok()?;
        hist.auto(true);
        Some(LatHist::from_hist(hist))
    }

    /// A histogram of raw HDR buckets (an interval's), with its exact extremes.
    pub(crate) fn from_hist(hist: Histogram<u64>) -> LatHist {
        let mut out = LatHist::new();
        for v in hist.iter_recorded() {
            let value = v.value_iterated_to();
            let c = v.count_at_value();
            out.n += c;
            out.sum += value as u128 * c as u128;
            out.sum_sq += (value as u128) * (value as u128) * c as u128;
            out.min = out.min.min(hist.lowest_equivalent(value));
            out.max = out.max.max(value);
        }
        out.hist = Some(hist);
        out
    }
}

impl LatHist {
    /// Rebuilds a histogram from a report's summary (another process's, say) so it can be
    /// merged exactly: the buckets come from `hdr`, and count, extremes, mean and standard
    /// deviation from the summary's exact figures rather than from bucket values.
    pub fn from_summary(s: &LatencySummary) -> Option<LatHist> {
        if s.n == 0 {
            return Some(LatHist::new());
        }
        let mut h = LatHist::decode(s.hdr.as_deref()?)?;
        let n = s.n as f64;
        h.n = s.n;
        h.min = s.min_ns;
        h.max = s.max_ns;
        h.sum = (s.mean_ns * n).round() as u128;
        let sq = s.stdev_ns * s.stdev_ns * (n - 1.0) + n * s.mean_ns * s.mean_ns;
        h.sum_sq = sq.round() as u128;
        Some(h)
    }
}

impl LatencySummary {
    /// The same distribution with percentiles `ps`, read off its histogram (unchanged when it
    /// carries none).
    pub fn with_percentiles(&self, ps: &[f64]) -> LatencySummary {
        match LatHist::from_summary(self) {
            Some(h) if self.n > 0 => {
                let mut out = h.summary_at(ps);
                // Keep the exact figures the summary had (the histogram's are bucket values).
                out.min_ns = self.min_ns;
                out.max_ns = self.max_ns;
                out.mean_ns = self.mean_ns;
                out.stdev_ns = self.stdev_ns;
                out.hdr = self.hdr.clone();
                out
            }
            _ => self.clone(),
        }
    }
}

/// One percentile of a latency distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    pub p: f64,
    pub ns: u64,
}

/// A latency distribution as reports show it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub n: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub percentiles: Vec<Percentile>,
    /// The full histogram (HdrHistogram V2 deflate, base64), for exact merging later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hdr: Option<String>,
}

impl LatencySummary {
    pub fn percentile(&self, p: f64) -> Option<u64> {
        self.percentiles
            .iter()
            .find(|x| (x.p - p).abs() < 1e-9)
            .map(|x| x.ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The nearest-rank percentile of a sorted list, the definition HDR follows.
    fn exact(sorted: &[u64], p: f64) -> u64 {
        let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
        sorted[rank - 1]
    }

    #[test]
    fn small_values_give_exact_percentiles_and_moments() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let values: Vec<u64> = (0..10_000).map(|_| rng.gen_range(1..2000)).collect();
        let mut h = LatHist::new();
        values.iter().for_each(|&v| h.record(v));
        let mut sorted = values.clone();
        sorted.sort_unstable();
        for p in FIO_PERCENTILES {
            assert_eq!(h.percentile(p), exact(&sorted, p), "p{p}");
        }
        let s = h.summary();
        assert_eq!(s.n, 10_000);
        assert_eq!(s.min_ns, sorted[0]);
        assert_eq!(s.max_ns, *sorted.last().unwrap());
        let mean = values.iter().sum::<u64>() as f64 / values.len() as f64;
        assert!((s.mean_ns - mean).abs() < 1e-9);
    }

    #[test]
    fn merging_equals_recording_everything_in_one() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut parts = [LatHist::new(), LatHist::new(), LatHist::new()];
        let mut all = LatHist::new();
        for i in 0..30_000 {
            // Spread over six decades so resizing and bucket widths are exercised.
            let v = 10u64.pow(rng.gen_range(1..7)) + rng.gen_range(0..1000);
            parts[i % 3].record(v);
            all.record(v);
        }
        let mut merged = LatHist::new();
        parts.iter().for_each(|p| merged.merge(p));
        assert_eq!(merged.summary(), all.summary());
    }

    #[test]
    fn large_values_stay_within_hdr_precision() {
        let mut h = LatHist::new();
        for v in [1_234_567_u64, 98_765_432, 5_000_000_000] {
            h.record(v);
        }
        for (p, want) in [(1.0, 1_234_567.0), (50.0, 98_765_432.0), (99.99, 5e9)] {
            let got = h.percentile(p) as f64;
            assert!((got - want).abs() / want < 0.001, "p{p}: {got} vs {want}");
        }
    }

    #[test]
    fn encoded_histograms_decode_and_merge() {
        let mut a = LatHist::new();
        (1..=1000).for_each(|v| a.record(v));
        let b = LatHist::decode(&a.encode()).unwrap();
        assert_eq!(b.count(), 1000);
        assert_eq!(b.percentile(50.0), 500);
        assert_eq!(b.summary().max_ns, 1000);
        assert!(LatHist::decode("not base64!").is_none());
    }

    #[test]
    fn empty_histogram_summarises_to_zeros() {
        let s = LatHist::new().summary();
        assert_eq!((s.n, s.min_ns, s.max_ns), (0, 0, 0));
        assert!(s.hdr.is_none());
    }
}
