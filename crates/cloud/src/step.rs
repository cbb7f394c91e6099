//! Finding a burst in a per-second rate series: the one split into "before" and "after" that
//! best explains the series as two flat levels (least squares), accepted only when the drop is
//! large against the noise within each level.

use serde::{Deserialize, Serialize};

/// A drop from one sustained level to a lower one.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Step {
    /// Mean rate before the drop (the burst) and after it (the baseline).
    pub before: f64,
    pub after: f64,
    /// Seconds from the series' start to the drop (the burst's duration).
    pub at_s: f64,
    /// How many seconds of the series are after the drop.
    pub after_s: f64,
}

/// The smallest drop called a burst: 15 % below the level before it. Throttled devices and
/// cloud volumes hold their caps within a few percent second to second, so a smaller drop is
/// more likely noise or a change of workload than a bucket running dry.
pub const MIN_DROP: f64 = 0.15;

/// Finds a step down in `rates` (one value per `dt_s` seconds). The sample in which the drop
/// happens is usually partial; its position gives the drop's time to within that sample.
pub fn find(rates: &[f64], dt_s: f64) -> Option<Step> {
    let n = rates.len();
    if n < 4 {
        return None;
    }
    let k = best_split(rates)?;
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len().max(1) as f64;
    let (b0, a0) = (mean(&rates[..k]), mean(&rates[k..]));
    // The sample in which the bucket ran dry is partly burst, partly baseline: find it (next
    // to the split, strictly between the levels), leave it out of both levels' means, and
    // place the drop within it by where its rate lies between them.
    let between = |i: usize| rates[i] < b0 * 0.97 && rates[i] > a0 * 1.03;
    let edge = [k - 1, k].into_iter().find(|&i| between(i));
    let (before, after) = match edge {
        Some(e) => (mean(&rates[..e]), mean(&rates[e + 1..])),
        None => (b0, a0),
    };
    if !(before > 0.0 && after < before * (1.0 - MIN_DROP)) {
        return None;
    }
    let first_after = edge.map_or(k, |e| e + 1);
    let noise =
        spread(&rates[..edge.unwrap_or(k)], before).max(spread(&rates[first_after..], after));
    if before - after < 4.0 * noise {
        return None;
    }
    let at = match edge {
        Some(e) => (e as f64 + (rates[e] - after) / (before - after)) * dt_s,
        None => k as f64 * dt_s,
    };
    Some(Step {
        before,
        after,
        at_s: at,
        after_s: (n - first_after) as f64 * dt_s,
    })
}

/// The split index (first "after" sample) minimising the squared error of two flat levels,
/// each at least two samples long.
fn best_split(r: &[f64]) -> Option<usize> {
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let sse = |s: &[f64]| {
        let m = mean(s);
        s.iter().map(|x| (x - m).powi(2)).sum::<f64>()
    };
    (2..=r.len() - 2)
        .map(|k| (sse(&r[..k]) + sse(&r[k..]), k))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// Robust noise of a level: the median absolute deviation from its mean, scaled to a
/// standard deviation.
fn spread(s: &[f64], m: f64) -> f64 {
    let mut d: Vec<f64> = s.iter().map(|x| (x - m).abs()).collect();
    d.sort_by(f64::total_cmp);
    let med = if d.is_empty() { 0.0 } else { d[d.len() / 2] };
    1.4826 * med
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_burst_is_found_with_its_levels_and_time() {
        let mut r = vec![4000.0; 10];
        r.push(2500.0); // half a second at 4000, half at 1000
        r.extend(vec![1000.0; 8]);
        let s = find(&r, 1.0).unwrap();
        assert!((s.before - 4000.0).abs() < 1.0, "{s:?}");
        assert!((s.after - 1000.0).abs() < 200.0, "{s:?}");
        assert!((s.at_s - 10.5).abs() < 0.6, "{s:?}");
    }

    #[test]
    fn a_flat_noisy_series_has_no_burst() {
        let r: Vec<f64> = (0..30)
            .map(|i| 3000.0 + if i % 2 == 0 { 60.0 } else { -60.0 })
            .collect();
        assert_eq!(find(&r, 1.0), None);
    }

    #[test]
    fn a_small_dip_is_not_a_burst() {
        let mut r = vec![3000.0; 10];
        r.extend(vec![2800.0; 10]);
        assert_eq!(find(&r, 1.0), None);
    }

    #[test]
    fn a_rise_is_not_a_burst() {
        let mut r = vec![1000.0; 10];
        r.extend(vec![3000.0; 10]);
        assert_eq!(find(&r, 1.0), None);
    }
}
