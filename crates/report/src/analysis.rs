//! What a sweep shows: where more parallelism stops paying (the knee), and where a block-size
//! sweep turns from IOPS-limited to bandwidth-limited (the crossover).

use crate::{Finding, SuiteReport, SuiteRun};
use workload::fio::table::names;
use workload::{format_bytes, parse_size};

/// More parallelism that adds less than this share of throughput is not worth its latency.
const KNEE_GAIN: f64 = 0.05;
/// A point within this share of the best bandwidth counts as at the ceiling.
const AT_CEILING: f64 = 0.9;

fn iops(r: &SuiteRun) -> f64 {
    r.report.group.total_iops()
}
fn bw(r: &SuiteRun) -> f64 {
    r.report.group.total_bw_bytes()
}
fn mean_lat(r: &SuiteRun) -> f64 {
    let g = &r.report.group;
    let (mut sum, mut n) = (0.0, 0u64);
    for d in [&g.read, &g.write].into_iter().flatten() {
        sum += d.lat_ns.mean_ns * d.lat_ns.n as f64;
        n += d.lat_ns.n;
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

fn numeric(param: &str, v: &str) -> Option<f64> {
    if param == "bs" {
        parse_size(v).ok().map(|x| x as f64)
    } else {
        v.parse().ok()
    }
}

/// Groups runs that differ only in `param`, each group sorted by that parameter's value.
fn series<'a>(s: &'a SuiteReport, param: &str) -> Vec<(String, Vec<(f64, &'a SuiteRun)>)> {
    let mut groups: Vec<(String, Vec<(f64, &SuiteRun)>)> = Vec::new();
    for r in &s.runs {
        let Some(x) = r.param(param).and_then(|v| numeric(param, v)) else {
            continue;
        };
        let key: Vec<String> = r
            .params
            .iter()
            .filter(|(k, _)| k != param)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let key = key.join(" ");
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push((x, r)),
            None => groups.push((key, vec![(x, r)])),
        }
    }
    for (_, v) in &mut groups {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    groups.retain(|(_, v)| v.len() >= 3);
    groups
}

fn ctx(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!(" ({key})")
    }
}

pub fn analyze(s: &SuiteReport) -> Vec<Finding> {
    let mut out = Vec::new();
    let points: Vec<(&str, f64)> = s.runs.iter().map(|r| (r.label.as_str(), iops(r))).collect();
    for param in [names::NUMJOBS, names::IODEPTH] {
        for (key, pts) in series(s, param) {
            if let Some(f) = knee(param, &key, &pts) {
                out.push(beaten_elsewhere(f, &key, &points));
            }
        }
    }
    for (key, pts) in series(s, names::BS) {
        out.extend(crossover(&key, &pts));
    }
    out
}

/// The knee of a sweep, as a Finding: see [`knee_index`].
fn knee(param: &str, key: &str, pts: &[(f64, &SuiteRun)]) -> Option<Finding> {
    let curve: Vec<(f64, f64)> = pts.iter().map(|(_, r)| (iops(r), mean_lat(r))).collect();
    let (i, gain, lat_rise) = knee_index(&curve)?;
    let ((x0, a), (x1, _)) = (pts[i], pts[i + 1]);
    let beyond = beyond_words(gain);
    Some(Finding {
        kind: "knee".into(),
        message: format!(
            "knee at {param}={x0}{}: {} IOPS; beyond it {beyond} while {param}={x1} costs {:+.0}% mean latency",
            ctx(key),
            figures::fmt_count(iops(a)),
            lat_rise * 100.0
        ),
        point: Some(a.label.clone()),
        value: Some(x0),
    })
}

/// A knee along one parameter, with the others held (`key`), is that series' knee only: when
/// another point of the sweep does better by more than `KNEE_GAIN`, the finding says so (a
/// new user read "knee at iodepth=8 (numjobs=2): 365k IOPS; beyond it throughput does not
/// grow" as the sweep's ceiling, where numjobs=4 reached 547k).
fn beaten_elsewhere(mut f: Finding, key: &str, points: &[(&str, f64)]) -> Finding {
    let Some(&(_, at)) = points.iter().find(|(l, _)| Some(*l) == f.point.as_deref()) else {
        return f;
    };
    let best = points.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((label, v)) = best.filter(|b| !key.is_empty() && b.1 > at * (1.0 + KNEE_GAIN)) {
        f.message.push_str(&format!(
            "; that is the knee with {key} held: the sweep's best point, {label}, does {} IOPS ({:+.0}%)",
            figures::fmt_count(*v),
            (v / at - 1.0) * 100.0
        ));
    }
    f
}

/// What happens past a knee, from the best later point's gain over it. A later point that
/// is no better is said so: "grows at most -13.6%" said it in a riddle.
fn beyond_words(gain: f64) -> String {
    // Said to the tenth of a percent it is printed in: a gain that rounds to 0.0 is level,
    // not "at least -0.0 % lower".
    let pct = (gain * 1000.0).round() / 10.0;
    if pct > 0.0 {
        format!("throughput grows at most {pct:.1}%")
    } else if pct == 0.0 {
        "throughput stays level (no later point is 0.1% above it)".to_string()
    } else {
        format!(
            "throughput does not grow (every later point is at least {:.1}% lower)",
            -pct
        )
    }
}

/// The knee of a curve of (IOPS, mean latency) points in sweep order: the first point after
/// which throughput stops growing for good (no later point is more than `KNEE_GAIN` above it)
/// while the next point's latency rises. A small step followed by a large gain (numjobs 1 -> 2
/// adds 3 %, 4 adds 57 %) is no knee. Returns the point, the best later gain and the next
/// point's latency rise, as fractions.
fn knee_index(curve: &[(f64, f64)]) -> Option<(usize, f64, f64)> {
    (0..curve.len().saturating_sub(1)).find_map(|i| {
        let (a_iops, a_lat) = curve[i];
        let best_later = curve[i + 1..].iter().map(|c| c.0).fold(0.0, f64::max);
        let gain = best_later / a_iops.max(1e-9) - 1.0;
        let lat_rise = curve[i + 1].1 / a_lat.max(1e-9) - 1.0;
        (gain < KNEE_GAIN && lat_rise > 0.0).then_some((i, gain, lat_rise))
    })
}

/// The level of a plateau: the median of the values within `AT_CEILING` of the best, so one
/// noisy point (a burst at a run's start) does not set the ceiling.
fn plateau(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.collect();
    let best = v.iter().cloned().fold(0.0, f64::max);
    let mut top: Vec<f64> = v.into_iter().filter(|&x| x >= AT_CEILING * best).collect();
    top.sort_by(f64::total_cmp);
    match top.len() {
        0 => 0.0,
        n if n % 2 == 1 => top[n / 2],
        n => (top[n / 2 - 1] + top[n / 2]) / 2.0,
    }
}

fn crossover(key: &str, pts: &[(f64, &SuiteRun)]) -> Vec<Finding> {
    let ceiling = plateau(pts.iter().map(|(_, r)| bw(r)));
    let iops_cap = plateau(pts.iter().map(|(_, r)| iops(r)));
    let first = pts.first().unwrap();
    let last = pts.last().unwrap();
    let Some(at) = pts.iter().find(|(_, r)| bw(r) >= AT_CEILING * ceiling) else {
        return Vec::new();
    };
    let mut out = vec![Finding {
        kind: "bandwidth_ceiling".into(),
        message: format!(
            "bandwidth ceiling {}/s{}, reached from bs={}",
            format_bytes(ceiling),
            ctx(key),
            format_bytes(at.0).replace(' ', "")
        ),
        point: Some(at.1.label.clone()),
        value: Some(ceiling),
    }];
    // Both regimes must be in range: small blocks well under the bandwidth ceiling, large
    // blocks well under the IOPS ceiling. Otherwise there is no crossover to name.
    if bw(first.1) < AT_CEILING * ceiling && iops(last.1) < AT_CEILING * iops_cap {
        let x = ceiling / iops_cap;
        out.push(Finding {
            kind: "iops_ceiling".into(),
            message: format!(
                "IOPS ceiling {}{} at small blocks",
                figures::fmt_count(iops_cap),
                ctx(key)
            ),
            point: Some(first.1.label.clone()),
            value: Some(iops_cap),
        });
        out.push(Finding {
            kind: "crossover".into(),
            message: format!(
                "IOPS-limited below and bandwidth-limited above bs ≈ {}{} (where {} IOPS × bs meets {}/s)",
                format_bytes(x),
                ctx(key),
                figures::fmt_count(iops_cap),
                format_bytes(ceiling)
            ),
            point: Some(at.1.label.clone()),
            value: Some(x),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{beaten_elsewhere, beyond_words, knee_index, plateau};
    use crate::Finding;

    /// Regression (issue 20): "knee at numjobs=1 ... numjobs=2 adds +3.3 %" while numjobs=4
    /// reached 190k against 121k. The knee is where gains stop for good.
    #[test]
    fn a_small_step_before_a_large_gain_is_no_knee() {
        // numjobs 1, 2, 4, 8: 121k, 125k, 190k, 192k IOPS, latency rising throughout.
        let curve = [(121e3, 8.0), (125e3, 16.0), (190e3, 21.0), (192e3, 42.0)];
        let (i, gain, _) = knee_index(&curve).unwrap();
        assert_eq!(i, 2, "the knee is at numjobs=4");
        assert!(gain < 0.05);
        // Still rising at the last point: no knee at all.
        assert_eq!(knee_index(&[(1e3, 1.0), (2e3, 2.0), (4e3, 3.0)]), None);
    }

    /// Issue 65's trial: a knee along iodepth at numjobs=2 names the sweep's better point
    /// elsewhere; a knee with nothing held, or with no better point, is left as it was.
    #[test]
    fn a_series_knee_names_a_better_point_elsewhere_in_the_sweep() {
        let f = || Finding {
            kind: "knee".into(),
            message: "knee at iodepth=8 (numjobs=2): 365.5k IOPS".into(),
            point: Some("iodepth=8 numjobs=2".into()),
            value: Some(8.0),
        };
        let pts = [
            ("iodepth=8 numjobs=2", 365.5e3),
            ("iodepth=32 numjobs=2", 363.1e3),
            ("iodepth=32 numjobs=4", 547.1e3),
        ];
        let m = beaten_elsewhere(f(), "numjobs=2", &pts).message;
        assert!(
            m.ends_with("the sweep's best point, iodepth=32 numjobs=4, does 547.1k IOPS (+50%)"),
            "{m}"
        );
        assert_eq!(beaten_elsewhere(f(), "", &pts).message, f().message);
        assert_eq!(
            beaten_elsewhere(f(), "numjobs=2", &pts[..2]).message,
            f().message
        );
    }

    /// Regression (issue 42): "beyond it throughput grows at most -13.6%".
    #[test]
    fn a_knee_past_which_throughput_falls_says_so() {
        assert_eq!(beyond_words(0.034), "throughput grows at most 3.4%");
        let w = beyond_words(-0.136);
        assert!(
            w.contains("does not grow") && w.contains("13.6% lower"),
            "{w}"
        );
        assert!(!w.contains('-'), "{w}");
    }

    #[test]
    fn plateau_is_the_median_of_the_top_not_the_best_point() {
        // An IOPS-limited rise, then a bandwidth plateau with one burst-inflated point.
        let bw = [8.0, 16.0, 31.8, 33.0, 33.4, 32.5, 37.0, 33.4];
        assert_eq!(plateau(bw.into_iter()), 33.4);
        assert_eq!(plateau([5.0].into_iter()), 5.0);
        assert_eq!(plateau(std::iter::empty()), 0.0);
    }

    /// What lies past a knee, in words that read at the precision printed.
    #[test]
    fn past_the_knee_is_said_at_the_precision_printed() {
        assert_eq!(beyond_words(0.031), "throughput grows at most 3.1%");
        for level in [0.0, -0.0, -0.0004, 0.0004] {
            let w = beyond_words(level);
            assert!(
                w.contains("stays level") && !w.contains("-0.0"),
                "{level}: {w}"
            );
        }
        assert!(beyond_words(-0.136).contains("at least 13.6% lower"));
    }
}
