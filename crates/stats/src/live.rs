//! A job's latency as a scraper sees it while the run goes on: cumulative counts in fixed
//! buckets (OpenMetrics histogram buckets), and the percentiles of its last closed intervals.
//!
//! The job thread adds an interval's histogram here when the interval closes (once a second,
//! or per `log_avg_msec`), never per I/O: the loop's cost is unchanged, and the buckets are
//! the run's own HDR histograms re-counted, so a `histogram_quantile` over any window agrees
//! with volbench's interval percentiles to within one bucket's width.

use crate::pct::Pct;
use hdrhistogram::Histogram;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// Buckets per doubling: each bucket's upper bound is 2^(1/4) (19 %) above the last.
pub const PER_OCTAVE: u32 = 4;
/// Finite buckets: from 1 µs up to 2^(99/4) µs (28 s); one more, `+Inf`, holds the rest.
pub const BUCKETS: usize = 100;
/// The first bucket's upper bound, ns.
const FIRST_NS: f64 = 1_000.0;
/// Closed intervals whose percentiles are kept for the live view and interval records.
const KEEP: usize = 8;

/// The upper bound of bucket `k` in ns (`k < BUCKETS`).
pub fn bound_ns(k: usize) -> f64 {
    FIRST_NS * 2f64.powf(k as f64 / PER_OCTAVE as f64)
}

/// The bucket a latency of `ns` falls in: the first whose bound is at or above it.
pub fn bucket_of(ns: u64) -> usize {
    if ns as f64 <= FIRST_NS {
        return 0;
    }
    let k = ((ns as f64 / FIRST_NS).log2() * PER_OCTAVE as f64).ceil() as usize;
    // Rounding at a bound: step to the right side of it.
    let k = if k > 0 && ns as f64 <= bound_ns(k - 1) {
        k - 1
    } else {
        k
    };
    k.min(BUCKETS)
}

/// One job direction's live latency.
#[derive(Debug)]
pub struct LiveHist {
    counts: [AtomicU64; BUCKETS + 1],
    sum_ns: AtomicU64,
    last: Mutex<VecDeque<(u64, Pct)>>,
}

impl Default for LiveHist {
    fn default() -> Self {
        LiveHist {
            counts: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_ns: AtomicU64::new(0),
            last: Mutex::new(VecDeque::with_capacity(KEEP)),
        }
    }
}

impl LiveHist {
    /// Adds closed interval `idx`, its histogram `h` and its percentiles.
    pub(crate) fn add(&self, idx: u64, h: &Histogram<u64>, pct: Pct) {
        let mut sum = 0u64;
        for v in h.iter_recorded() {
            let ns = h.highest_equivalent(v.value_iterated_to());
            let n = v.count_at_value();
            self.counts[bucket_of(ns)].fetch_add(n, Relaxed);
            sum = sum.saturating_add(ns.saturating_mul(n));
        }
        self.sum_ns.fetch_add(sum, Relaxed);
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.len() == KEEP {
            last.pop_front();
        }
        last.push_back((idx, pct));
    }

    /// Counts one value as it comes (a database transaction: there is no interval to close).
    pub fn record(&self, ns: u64) {
        self.counts[bucket_of(ns)].fetch_add(1, Relaxed);
        self.sum_ns.fetch_add(ns, Relaxed);
    }

    /// The counts per bucket (not cumulative; `+Inf` last) and the sum of the latencies, ns.
    pub fn snapshot(&self) -> ([u64; BUCKETS + 1], u64) {
        let counts = std::array::from_fn(|k| self.counts[k].load(Relaxed));
        (counts, self.sum_ns.load(Relaxed))
    }

    /// The percentiles of interval `idx`, if it has closed lately.
    pub fn pct(&self, idx: u64) -> Option<Pct> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.iter().find(|(i, _)| *i == idx).map(|(_, p)| *p)
    }

    /// The last closed interval's index and percentiles.
    pub fn latest(&self) -> Option<(u64, Pct)> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.back().copied()
    }
}

/// The `q` quantile (0-1) of counts per bucket, ns, as Prometheus's `histogram_quantile`
/// takes it: linear within the bucket it falls in (the first bucket from 0; one in `+Inf`
/// answers the last finite bound). None without counts.
pub fn quantile(counts: &[u64], q: f64) -> Option<f64> {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return None;
    }
    let rank = q.clamp(0.0, 1.0) * total as f64;
    let mut below = 0u64;
    for (k, &c) in counts.iter().enumerate() {
        if c > 0 && (below + c) as f64 >= rank {
            if k >= BUCKETS {
                return Some(bound_ns(BUCKETS - 1));
            }
            let lo = if k == 0 { 0.0 } else { bound_ns(k - 1) };
            let within = (rank - below as f64) / c as f64;
            return Some(lo + (bound_ns(k) - lo) * within);
        }
        below += c;
    }
    Some(bound_ns(BUCKETS - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value lands in the bucket whose bound is the first at or above it, bounds included.
    #[test]
    fn buckets_hold_values_up_to_their_bounds() {
        assert_eq!(bucket_of(1), 0);
        assert_eq!(bucket_of(1_000), 0);
        assert_eq!(bucket_of(1_001), 1);
        assert_eq!(bucket_of(2_000), PER_OCTAVE as usize);
        assert_eq!(bucket_of(2_001), PER_OCTAVE as usize + 1);
        assert_eq!(bucket_of(u64::MAX), BUCKETS);
        for k in 1..BUCKETS {
            let b = bound_ns(k) as u64;
            assert!(bucket_of(b) <= k && bucket_of(b + 2) >= k, "bucket {k}");
        }
    }

    /// A quantile lands in the bucket that holds it, interpolated as Prometheus does.
    #[test]
    fn quantiles_interpolate_within_their_bucket() {
        let mut c = vec![0u64; BUCKETS + 1];
        c[8] = 50;
        c[12] = 50;
        let p25 = quantile(&c, 0.25).unwrap();
        assert!(
            (p25 - (bound_ns(7) + bound_ns(8)) / 2.0).abs() < 1.0,
            "{p25}"
        );
        let p99 = quantile(&c, 0.99).unwrap();
        assert!(p99 > bound_ns(11) && p99 <= bound_ns(12));
        assert_eq!(quantile(&[0; 3], 0.5), None);
    }
}
