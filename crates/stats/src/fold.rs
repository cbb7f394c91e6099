//! How a long run keeps its per-interval records in bounded memory (issue 56): the report's
//! samples and each interval's latency histogram are kept as they come for the first
//! [`NATIVE`] intervals, then folded to one record per second until the first hour is over,
//! then to one per minute. A day at a 100 ms interval keeps 6,060 records, not 864,000; the
//! interval log (`--interval-log`) streams every native interval as it closes.
//!
//! The rule depends on the interval's index alone, so every job of a run folds alike and their
//! records still add position by position (a group's series, its merged histograms).

/// Intervals kept as they come: two minutes at 100 ms, twenty at fio's 1 s.
pub const NATIVE: u64 = 1200;
/// Until the first hour is over, a record covers this much at least.
const FINE_MS: u64 = 1_000;
const HOUR_MS: u64 = 3_600_000;
/// After the first hour.
const COARSE_MS: u64 = 60_000;

/// The kept record that native interval `k` (of `interval_ms` each) falls in: records count
/// up from 0 and never skip, so record `r` is the `r`-th sample of the series.
pub fn bucket(k: u64, interval_ms: u64) -> u64 {
    if k < NATIVE {
        return k;
    }
    let i = interval_ms.max(1);
    let fine = (FINE_MS / i).max(1);
    // The first hour's end, on a whole fine record.
    let hour = NATIVE + HOUR_MS.div_ceil(i).saturating_sub(NATIVE).div_ceil(fine) * fine;
    if k < hour {
        return NATIVE + (k - NATIVE) / fine;
    }
    let coarse = (COARSE_MS / i).max(1);
    NATIVE + (hour - NATIVE) / fine + (k - hour) / coarse
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records count up by one at most and cover the widths the docs promise.
    #[test]
    fn records_are_native_then_per_second_then_per_minute() {
        for i in [100u64, 250, 1000] {
            let day = 86_400_000 / i;
            let mut last = 0;
            let mut width = 0u64;
            let mut widths = Vec::new();
            for k in 0..day {
                let b = bucket(k, i);
                assert!(
                    b == last || b == last + 1,
                    "{i} ms: {k} -> {b} after {last}"
                );
                if b != last {
                    widths.push((k * i, width * i));
                    width = 0;
                }
                width += 1;
                last = b;
            }
            let at = |t_ms: u64| widths.iter().rev().find(|w| w.0 <= t_ms).unwrap().1;
            assert_eq!(at(60_000), i, "{i} ms: native at first");
            assert!((900..=1000).contains(&at(1_800_000)), "{i} ms: per second");
            assert_eq!(at(7_200_000), 60_000 / i * i, "{i} ms: per minute");
            assert!(last < 6_100, "{i} ms: {last} records a day");
        }
    }
}
