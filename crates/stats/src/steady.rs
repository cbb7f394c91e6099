//! Whether a series has settled: fio's steady-state criteria (the largest deviation from the
//! window's mean, or the least-squares slope over it), the SNIA PTS rule (range and best-fit
//! excursion over five rounds), and the check every run gets (a trend over its last third).
//! Pure arithmetic on the samples, so each rule is tested on its own numbers.

use serde::{Deserialize, Serialize};

/// A criterion judged over one window of samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// The value compared with the limit (a percentage of the mean with `%`).
    pub criterion: f64,
    /// The largest distance of a sample from the window's mean (deviation criteria).
    pub max_deviation: f64,
    /// The least-squares slope, per interval (slope criteria).
    pub slope: f64,
    pub attained: bool,
}

/// The least-squares line through `ys` at x = 0, 1, 2, ...: (slope, intercept).
pub fn fit(ys: &[f64]) -> (f64, f64) {
    let n = ys.len() as f64;
    if ys.len() < 2 {
        return (0.0, ys.first().copied().unwrap_or(0.0));
    }
    let mx = (n - 1.0) / 2.0;
    let my = ys.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in ys.iter().enumerate() {
        let dx = i as f64 - mx;
        sxy += dx * (y - my);
        sxx += dx * dx;
    }
    let b = sxy / sxx;
    (b, my - b * mx)
}

fn mean(ys: &[f64]) -> f64 {
    ys.iter().sum::<f64>() / ys.len().max(1) as f64
}

/// fio's check of a full window: deviation, every sample within `limit` of the mean
/// (attained when the largest distance is below it); `slope`, the least-squares slope below
/// it in absolute value. With `percent`, both as a percentage of the mean.
pub fn judge(slope: bool, limit: f64, percent: bool, ys: &[f64]) -> Judged {
    let m = mean(ys);
    let scale = |v: f64| if percent { 100.0 * v / m } else { v };
    if slope {
        let slope = fit(ys).0;
        let criterion = scale(slope);
        Judged {
            criterion,
            slope,
            attained: criterion.abs() < limit,
            ..Judged::default()
        }
    } else {
        let dev = ys.iter().map(|y| (y - m).abs()).fold(0.0, f64::max);
        let criterion = scale(dev);
        Judged {
            criterion,
            max_deviation: dev,
            attained: criterion < limit,
            ..Judged::default()
        }
    }
}

/// The SNIA PTS steady-state rule over a measurement window (five rounds): the range of the
/// tracked variable within 20 % of its mean, and the excursion of its best-fit line across
/// the window within 10 % of the mean (the Steady State definition of SNIA's Solid State
/// Storage Performance Test Specification, Enterprise 1.1 and 2.0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsVerdict {
    pub mean: f64,
    /// max - min, as a percentage of the mean.
    pub range_pct: f64,
    /// The best-fit line's change from the first round to the last, as a percentage of the
    /// mean (absolute).
    pub excursion_pct: f64,
    pub slope: f64,
    pub intercept: f64,
    pub reached: bool,
}

pub const PTS_RANGE_PCT: f64 = 20.0;
pub const PTS_EXCURSION_PCT: f64 = 10.0;

pub fn pts(ys: &[f64]) -> PtsVerdict {
    let m = mean(ys);
    let (lo, hi) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &y| {
            (l.min(y), h.max(y))
        });
    let (slope, intercept) = fit(ys);
    let pct = |v: f64| {
        if m > 0.0 {
            100.0 * v / m
        } else {
            f64::INFINITY
        }
    };
    let range_pct = pct(hi - lo);
    let excursion_pct = pct((slope * (ys.len().max(1) - 1) as f64).abs());
    PtsVerdict {
        mean: m,
        range_pct,
        excursion_pct,
        slope,
        intercept,
        reached: range_pct <= PTS_RANGE_PCT && excursion_pct <= PTS_EXCURSION_PCT,
    }
}

/// A trend in the last part of a run: the best-fit line's change across it as a fraction of
/// its mean, and that change in units of its own noise (the standard error the samples'
/// noise would give it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trend {
    pub change: f64,
    pub sigmas: f64,
    pub samples: usize,
}

/// At least this many samples in the last third before a trend is judged.
pub const TREND_MIN_SAMPLES: usize = 5;
/// The change across the last third that counts as still moving...
pub const TREND_MIN_CHANGE: f64 = 0.10;
/// ...when it is also this many of its standard errors: noise alone gets there about once
/// in a million runs.
pub const TREND_MIN_SIGMAS: f64 = 5.0;

/// The trend of the last third of `ys` (None with fewer than [`TREND_MIN_SAMPLES`] there).
/// The noise is read off the whole run, from the median step between neighbouring samples:
/// a steady device's jitter, which a level shift (a bucket running out) does not inflate,
/// where the scatter around a line through a step would.
pub fn last_third(ys: &[f64]) -> Option<Trend> {
    let k = ys.len() / 3;
    if k < TREND_MIN_SAMPLES {
        return None;
    }
    let w = &ys[ys.len() - k..];
    let (b, _) = fit(w);
    let m = mean(w);
    let n = w.len() as f64;
    let mx = (n - 1.0) / 2.0;
    let sxx: f64 = (0..w.len()).map(|i| (i as f64 - mx).powi(2)).sum();
    let mut steps: Vec<f64> = ys.windows(2).map(|p| (p[1] - p[0]).abs()).collect();
    steps.sort_by(f64::total_cmp);
    // The median absolute difference of two samples is 0.954 sigma for normal noise.
    let sigma = steps[steps.len() / 2] / 0.954;
    let change = b * (n - 1.0);
    let se = sigma * (n - 1.0) / sxx.sqrt();
    Some(Trend {
        change: if m > 0.0 { change / m } else { 0.0 },
        sigmas: if se > 0.0 {
            change.abs() / se
        } else {
            f64::INFINITY
        },
        samples: w.len(),
    })
}

impl Trend {
    /// Still moving: a change beyond noise, both in size and against the noise.
    pub fn moving(&self) -> bool {
        self.change.abs() > TREND_MIN_CHANGE && self.sigmas > TREND_MIN_SIGMAS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_fitted_exactly() {
        let (b, a) = fit(&[3.0, 5.0, 7.0, 9.0]);
        assert!((b - 2.0).abs() < 1e-12 && (a - 3.0).abs() < 1e-12);
    }

    #[test]
    fn fio_deviation_and_slope_on_its_own_numbers() {
        // fio's JSON above (iops:20%): deviation 174,364.25 of a mean of 1,239,441.25,
        // 14.07 %, under 20 %: attained.
        let ys = [1_221_647.0, 1_366_949.0, 1_304_092.0, 1_065_077.0];
        let j = judge(false, 20.0, true, &ys);
        assert!((j.max_deviation - 174_364.25).abs() < 0.01, "{j:?}");
        assert!((j.criterion - 14.0679).abs() < 0.001 && j.attained, "{j:?}");
        let slope = judge(true, 20.0, true, &ys);
        assert!((slope.slope - fit(&ys).0).abs() < 1e-9 && slope.slope < 0.0);
        assert!(!judge(false, 14.0, true, &ys).attained);
    }

    #[test]
    fn pts_rule_needs_both_the_range_and_the_excursion() {
        assert!(pts(&[100.0, 101.0, 99.0, 100.0, 100.0]).reached);
        // A range of 30 % fails however flat the line.
        let wide = pts(&[85.0, 115.0, 85.0, 115.0, 100.0]);
        assert!(!wide.reached && wide.range_pct > 20.0, "{wide:?}");
        // A steady climb: range 16 % (in), the line moves 16 % (out).
        let climb = pts(&[92.0, 96.0, 100.0, 104.0, 108.0]);
        assert!(climb.range_pct <= 20.0 && climb.excursion_pct > 10.0 && !climb.reached);
    }

    #[test]
    fn a_trend_is_found_and_noise_is_not() {
        let flat: Vec<f64> = (0..30).map(|i| 1000.0 + [3.0, -4.0, 1.0][i % 3]).collect();
        assert!(!last_third(&flat).unwrap().moving());
        let falling: Vec<f64> = (0..30)
            .map(|i| 2000.0 - 40.0 * i as f64 + [5.0, -5.0][i % 2])
            .collect();
        let t = last_third(&falling).unwrap();
        assert!(t.moving() && t.change < 0.0, "{t:?}");
        assert!(last_third(&falling[..12]).is_none());
        // A bucket running out one sample into the last third: a step, then flat.
        let step: Vec<f64> = (0..15)
            .map(|i| if i < 11 { 3000.0 } else { 1000.0 } + [4.0, -4.0, 0.0][i % 3])
            .collect();
        assert!(
            last_third(&step).unwrap().moving(),
            "{:?}",
            last_third(&step)
        );
        // Noise of 5 % with one wild sample at the very end is not a trend.
        let mut noisy: Vec<f64> = (0..15)
            .map(|i| 1000.0 + [50.0, -50.0, 20.0][i % 3])
            .collect();
        noisy[14] = 870.0;
        assert!(
            !last_third(&noisy).unwrap().moving(),
            "{:?}",
            last_third(&noisy)
        );
    }
}
