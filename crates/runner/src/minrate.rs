//! fio's `rate_min` and `rate_iops_min`: a job whose rate falls under a floor ends, with
//! fio's error. As fio's `__check_min_rate`: nothing is judged in the first 2 s of the job nor
//! during its ramp; then, per direction that has moved data, the rate over each `rate_cycle`
//! is compared with the floor (bytes when `rate_min` is set, else I/Os).

use stats::JobStats;
use workload::JobSpec;

/// fio's settling time before the first judgement.
const SETTLE_NS: u64 = 2_000_000_000;

pub struct MinRate {
    bytes: [u64; 2],
    ios: [u64; 2],
    cycle_ns: u64,
    /// Per direction: (bytes, ios, at ns) of the last check, None before the first.
    last: [Option<(u64, u64, u64)>; 2],
}

impl MinRate {
    /// None for a job without floors: the hot loop then pays one branch.
    pub fn new(spec: &JobSpec) -> Option<MinRate> {
        (spec.rates.rate_min != [0, 0] || spec.rates.rate_iops_min != [0, 0]).then(|| MinRate {
            bytes: spec.rates.rate_min,
            ios: spec.rates.rate_iops_min,
            cycle_ns: spec.rates.rate_cycle_ms * 1_000_000,
            last: [None; 2],
        })
    }

    /// Judges the directions at `now` (ns from the job's start); the error that ends the job
    /// when one fell under its floor over the cycle just ended.
    pub fn check(&mut self, now: u64, stats: &JobStats) -> Option<String> {
        if now < SETTLE_NS {
            return None;
        }
        for d in 0..2 {
            let (floor_b, floor_i) = (self.bytes[d], self.ios[d]);
            let s = &stats.dirs[d];
            if floor_b == 0 && floor_i == 0 || s.bytes == 0 {
                continue;
            }
            if let Some((b, i, at)) = self.last[d] {
                let spent = now.saturating_sub(at);
                if spent < self.cycle_ns || spent == 0 {
                    continue;
                }
                let per_s = |n: u64| n as f64 * 1e9 / spent as f64;
                let (got_b, got_i) = (
                    per_s(s.bytes.saturating_sub(b)),
                    per_s(s.ios.saturating_sub(i)),
                );
                let dir = ["read", "write"][d];
                if floor_b > 0 && got_b < floor_b as f64 {
                    return Some(format!(
                        "{dir}s fell under rate_min={}/s: {}/s over the last {} (fio ends the \
                         job here, with EIO; os error 5)",
                        figures::fmt_bytes(floor_b as f64),
                        figures::fmt_bytes(got_b),
                        figures::fmt_ns(spent as f64)
                    ));
                }
                if floor_b == 0 && got_i < floor_i as f64 {
                    return Some(format!(
                        "{dir}s fell under rate_iops_min={floor_i}: {got_i:.0} IOPS over the last \
                         {} (fio ends the job here, with EIO; os error 5)",
                        figures::fmt_ns(spent as f64)
                    ));
                }
            }
            self.last[d] = Some((s.bytes, s.ios, now));
        }
        None
    }
}
