//! How sure a figure is: the spread of one figure over repeated runs (mean, standard
//! deviation, coefficient of variation, extremes and the 95 % confidence interval of the mean
//! from Student's t), and whether two sets of runs differ by more than their noise (Welch's
//! t-test, which does not assume the two sides vary alike). docs/statistics.md gives the
//! formulas and their sources.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// One figure over `n` runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator); 0 for one run.
    pub stdev: f64,
    /// stdev / mean; 0 when the mean is 0.
    pub cv: f64,
    pub min: f64,
    pub max: f64,
    /// The 95 % confidence interval of the mean: mean ± t(0.975, n-1) · stdev / √n, its low
    /// end cut at 0 where no value is negative (IOPS, bytes, latencies cannot be: three runs
    /// of 2.1M, 2.1M and 4.1M IOPS give mean ± 3.0M). For one run, the run's value at both
    /// ends (nothing is known of its spread).
    pub ci95: [f64; 2],
}

/// Student's t quantile `p` with `df` degrees of freedom.
fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df.max(1e-9))
        .map(|t| t.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

impl Spread {
    /// The spread of `values` (empty gives None).
    pub fn of(values: &[f64]) -> Option<Spread> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let stdev = var.sqrt();
        let half = if n > 1 {
            t_quantile(0.975, (n - 1) as f64) * stdev / (n as f64).sqrt()
        } else {
            0.0
        };
        Some(Spread {
            n,
            mean,
            stdev,
            cv: if mean != 0.0 { stdev / mean.abs() } else { 0.0 },
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ci95: [
                match values.iter().all(|v| *v >= 0.0) {
                    true => (mean - half).max(0.0),
                    false => mean - half,
                },
                mean + half,
            ],
        })
    }

    /// Half the confidence interval's width as a share of the mean (`--until-stable`'s test).
    pub fn half_width_share(&self) -> f64 {
        if self.mean == 0.0 {
            return 0.0;
        }
        // The upper half: the lower one may be cut at 0.
        (self.ci95[1] - self.mean) / self.mean.abs()
    }
}

/// What a comparison can say about a difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The difference's 95 % confidence interval excludes no difference.
    Significant,
    /// It includes it: what was measured is within the runs' noise.
    NotSignificant,
    /// A side has fewer than 3 runs: no interval can be had.
    Unknown,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Significant => "significant",
            Verdict::NotSignificant => "not_significant",
            Verdict::Unknown => "unknown",
        }
    }
    /// The mark beside a ratio in text and Markdown.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Significant => "*",
            Verdict::NotSignificant => "~",
            Verdict::Unknown => "?",
        }
    }
}

/// Welch's test of `b` against `a` (the base).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Welch {
    pub verdict: Verdict,
    /// mean(b) / mean(a), and its 95 % interval (by the delta method on the log ratio, with
    /// Welch's degrees of freedom).
    pub ratio: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_ci95: Option<[f64; 2]>,
    /// Two-sided p-value of the difference of the means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
}

/// Fewer runs than this on a side and the verdict is `unknown`.
pub const MIN_RUNS: usize = 3;

/// Welch's t-test of `b`'s mean against `a`'s at the 5 % level.
pub fn welch(a: &[f64], b: &[f64]) -> Welch {
    let (sa, sb) = (Spread::of(a), Spread::of(b));
    let ratio = match (&sa, &sb) {
        (Some(x), Some(y)) if x.mean != 0.0 => y.mean / x.mean,
        _ => f64::NAN,
    };
    let unknown = Welch {
        verdict: Verdict::Unknown,
        ratio,
        ratio_ci95: None,
        p_value: None,
    };
    let (Some(sa), Some(sb)) = (sa, sb) else {
        return unknown;
    };
    if sa.n < MIN_RUNS || sb.n < MIN_RUNS {
        return unknown;
    }
    let (va, vb) = (
        sa.stdev.powi(2) / sa.n as f64,
        sb.stdev.powi(2) / sb.n as f64,
    );
    let se = (va + vb).sqrt();
    let diff = sb.mean - sa.mean;
    if se == 0.0 {
        return exact(diff, sa.mean, ratio);
    }
    let df = (va + vb).powi(2) / (va.powi(2) / (sa.n - 1) as f64 + vb.powi(2) / (sb.n - 1) as f64);
    let t = diff / se;
    let p = StudentsT::new(0.0, 1.0, df)
        .map(|d| 2.0 * (1.0 - d.cdf(t.abs())))
        .unwrap_or(f64::NAN);
    let q = t_quantile(0.975, df);
    let ratio_ci95 = (sa.mean > 0.0 && sb.mean > 0.0).then(|| {
        let s = (va / sa.mean.powi(2) + vb / sb.mean.powi(2)).sqrt();
        [ratio * (-q * s).exp(), ratio * (q * s).exp()]
    });
    let excludes_zero = (diff - q * se) > 0.0 || (diff + q * se) < 0.0;
    Welch {
        verdict: if excludes_zero {
            Verdict::Significant
        } else {
            Verdict::NotSignificant
        },
        ratio,
        ratio_ci95,
        p_value: Some(p),
    }
}

/// Welch's verdict where both sides are exact (a throttle's rate repeats to the I/O): no
/// noise to weigh against, so a difference counts when it is more than a rounding (0.1 % of
/// the base mean `base`).
fn exact(diff: f64, base: f64, ratio: f64) -> Welch {
    let significant = diff.abs() > 1e-3 * base.abs();
    Welch {
        verdict: if significant {
            Verdict::Significant
        } else {
            Verdict::NotSignificant
        },
        ratio,
        ratio_ci95: Some([ratio, ratio]),
        p_value: Some(if significant { 0.0 } else { 1.0 }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against SciPy (stats.t.ppf, and stats.ttest_ind with equal_var=False, as printed by
    /// SciPy 1.x).
    #[test]
    fn matches_the_textbook_values() {
        let s = Spread::of(&[10.0, 12.0, 11.0, 13.0, 9.0]).unwrap();
        assert_eq!(s.mean, 11.0);
        assert!((s.stdev - 1.5811388).abs() < 1e-6);
        // t.ppf(0.975, 4) = 2.776445
        let half = 2.776445 * 1.5811388 / 5f64.sqrt();
        assert!((s.ci95[0] - (11.0 - half)).abs() < 1e-5, "{:?}", s.ci95);
        // ttest_ind([10,12,11,13,9], [14,15,13,16,15], equal_var=False): t = -4.1295,
        // df = 7.2746, p = 0.0040545
        let w = welch(
            &[10.0, 12.0, 11.0, 13.0, 9.0],
            &[14.0, 15.0, 13.0, 16.0, 15.0],
        );
        assert_eq!(w.verdict, Verdict::Significant);
        assert!((w.p_value.unwrap() - 0.0040545).abs() < 2e-6, "{w:?}");
        let w = welch(
            &[10.0, 12.0, 11.0, 13.0, 9.0],
            &[11.0, 12.0, 10.0, 12.0, 10.0],
        );
        assert_eq!(w.verdict, Verdict::NotSignificant);
    }

    /// A throttle repeats its rate to the I/O: exact sides differ only past a rounding.
    #[test]
    fn exact_sides_differ_only_past_a_rounding() {
        let w = welch(&[2000.0; 3], &[2000.5; 3]);
        assert_eq!(w.verdict, Verdict::NotSignificant);
        let w = welch(&[3000.0; 3], &[3600.0; 3]);
        assert_eq!(w.verdict, Verdict::Significant);
    }

    #[test]
    fn two_runs_are_not_enough() {
        let w = welch(&[1.0, 2.0], &[5.0, 6.0, 7.0]);
        assert_eq!(w.verdict, Verdict::Unknown);
        assert_eq!(Spread::of(&[4.0]).unwrap().ci95, [4.0, 4.0]);
    }

    /// Same-distribution samples are called significant about as often as the level allows:
    /// 2,000 pairs of 5 normal draws, a rate within 5 % ± 1.5 points (over 6 standard errors).
    #[test]
    fn false_alarms_stay_at_the_level() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut normal = || {
            // Box-Muller.
            let (u, v): (f64, f64) = (rng.gen::<f64>().max(1e-12), rng.gen());
            100.0 + 3.0 * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        let mut hits = 0;
        for _ in 0..2000 {
            let a: Vec<f64> = (0..5).map(|_| normal()).collect();
            let b: Vec<f64> = (0..5).map(|_| normal()).collect();
            hits += usize::from(welch(&a, &b).verdict == Verdict::Significant);
        }
        let rate = hits as f64 / 2000.0;
        assert!((rate - 0.05).abs() < 0.015, "{rate}");
    }

    #[test]
    fn an_interval_of_counts_stops_at_zero() {
        let s = Spread::of(&[2.09e6, 2.09e6, 4.14e6]).unwrap();
        assert_eq!(s.ci95[0], 0.0);
        assert!(s.ci95[1] > s.max);
        // Its half-width share is the upper half's.
        assert!((s.half_width_share() - (s.ci95[1] - s.mean) / s.mean).abs() < 1e-12);
        // Differences may be negative, and so may their interval.
        assert!(Spread::of(&[-1.0, 0.5, 2.0]).unwrap().ci95[0] < 0.0);
    }
}
