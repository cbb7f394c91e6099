//! A run repeated (`--repeat N`, `--until-stable`): one result whose figures are the runs'
//! means, with the spread of every figure (mean, standard deviation, CV, extremes, 95 %
//! confidence interval of the mean) and the single runs kept inside, each with its own checks
//! and warnings.

use crate::{DirReport, JobReport, RunReport, Status};
use serde::{Deserialize, Serialize};
use stats::Spread;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The percentiles whose spread a repeated run reports, per direction.
pub const PERCENTILES: [(f64, &str); 4] =
    [(50.0, "p50"), (90.0, "p90"), (99.0, "p99"), (99.9, "p999")];

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Repeats {
    /// The runs the means and the spread are over (complete ones).
    pub n: usize,
    /// Runs cut short (Ctrl-C, an error) after complete ones: in `runs`, not in the figures.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub left_out: usize,
    /// The pause between runs, ms (`--repeat-delay`).
    #[serde(default)]
    pub delay_ms: u64,
    /// `--until-stable`: the target and whether the runs met it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_stable: Option<Stable>,
    pub stats: RepeatStats,
    /// Every run as it was measured.
    pub runs: Vec<RunReport>,
}

/// `--until-stable=PCT`: repeat until the 95 % interval's half-width of the total IOPS (or
/// bandwidth, for a job measured in bytes) is within PCT % of the mean.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stable {
    pub target_pct: f64,
    pub max_runs: usize,
    pub reached: bool,
    /// The half-width the last run left, % of the mean.
    pub half_width_pct: f64,
}

/// The spread of the whole run's figures and each direction's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RepeatStats {
    pub iops: Spread,
    pub bw_bytes: Spread,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<DirSpread>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<DirSpread>,
}

/// One direction's figures over the runs; latencies are total latency (`lat`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DirSpread {
    pub iops: Spread,
    pub bw_bytes: Spread,
    pub lat_mean_ns: Spread,
    pub lat_p50_ns: Spread,
    pub lat_p90_ns: Spread,
    pub lat_p99_ns: Spread,
    pub lat_p999_ns: Spread,
}

fn spread(values: impl Iterator<Item = f64>) -> Spread {
    let v: Vec<f64> = values.collect();
    Spread::of(&v).unwrap_or(Spread {
        n: 0,
        mean: 0.0,
        stdev: 0.0,
        cv: 0.0,
        min: 0.0,
        max: 0.0,
        ci95: [0.0, 0.0],
    })
}

/// `runs`' direction `pick` (reads or writes), where every run has it.
fn dir_spread(
    runs: &[&JobReport],
    pick: fn(&JobReport) -> Option<&DirReport>,
) -> Option<DirSpread> {
    let dirs: Vec<&DirReport> = runs.iter().map(|j| pick(j)).collect::<Option<_>>()?;
    let pct = |p: f64| {
        spread(
            dirs.iter()
                .map(|d| d.lat_ns.percentile(p).unwrap_or(0) as f64),
        )
    };
    Some(DirSpread {
        iops: spread(dirs.iter().map(|d| d.iops)),
        bw_bytes: spread(dirs.iter().map(|d| d.bw_bytes)),
        lat_mean_ns: spread(dirs.iter().map(|d| d.lat_ns.mean_ns)),
        lat_p50_ns: pct(50.0),
        lat_p90_ns: pct(90.0),
        lat_p99_ns: pct(99.0),
        lat_p999_ns: pct(99.9),
    })
}

/// The spread of the runs' whole-run figures.
pub fn stats_of(runs: &[RunReport]) -> RepeatStats {
    let groups: Vec<&JobReport> = runs.iter().map(|r| &r.group).collect();
    RepeatStats {
        iops: spread(groups.iter().map(|g| g.total_iops())),
        bw_bytes: spread(groups.iter().map(|g| g.total_bw_bytes())),
        read: dir_spread(&groups, |j| j.read.as_ref()),
        write: dir_spread(&groups, |j| j.write.as_ref()),
    }
}

/// A direction with the runs' means in place of its figures (counts, rates, latency mean
/// and percentiles); its histogram and per-second spread stay the last run's.
fn mean_dir(into: &mut DirReport, all: &[&DirReport]) {
    let n = all.len().max(1) as f64;
    let mean = |f: &dyn Fn(&DirReport) -> f64| all.iter().map(|d| f(d)).sum::<f64>() / n;
    into.iops = mean(&|d| d.iops);
    into.bw_bytes = mean(&|d| d.bw_bytes);
    into.total_ios = mean(&|d| d.total_ios as f64).round() as u64;
    into.io_bytes = mean(&|d| d.io_bytes as f64).round() as u64;
    for (lat, get) in [
        (
            &mut into.lat_ns,
            (|d: &DirReport| &d.lat_ns) as fn(&DirReport) -> &_,
        ),
        (&mut into.clat_ns, |d: &DirReport| &d.clat_ns),
    ] {
        lat.mean_ns = mean(&|d| get(d).mean_ns);
        for p in lat.percentiles.iter_mut() {
            let at = p.p;
            p.ns = mean(&|d| get(d).percentile(at).unwrap_or(0) as f64).round() as u64;
        }
    }
}

/// One result of `runs` (at least one): the last run's shape with every run's mean in its
/// figures, and the runs with their spread under `repeats`.
///
/// A run cut short by Ctrl-C (or an error) after complete ones is left out of the means and
/// the spread (its shorter window would pull both), but kept in `runs` and its status is the
/// result's: a 1.2 s partial run no longer counts as a whole one.
pub fn combine(runs: Vec<RunReport>, delay_ms: u64, until_stable: Option<Stable>) -> RunReport {
    let whole = runs.iter().filter(|r| r.status == Status::Complete).count();
    let (counted, cut): (Vec<RunReport>, Vec<RunReport>) = if whole > 0 && whole < runs.len() {
        runs.into_iter().partition(|r| r.status == Status::Complete)
    } else {
        (runs, Vec::new())
    };
    let mut out = combine_counted(counted, delay_ms, until_stable);
    if let Some(c) = cut.first() {
        out.status = c.status;
        out.error = c.error.clone();
    }
    if let Some(rep) = out.repeats.as_mut() {
        rep.left_out = cut.len();
        rep.runs.extend(cut.into_iter().map(|mut r| {
            r.repeats = None;
            r
        }));
    }
    out
}

fn combine_counted(
    mut runs: Vec<RunReport>,
    delay_ms: u64,
    until_stable: Option<Stable>,
) -> RunReport {
    let stats = stats_of(&runs);
    let mut out = runs.last().cloned().expect("at least one run");
    let groups: Vec<&JobReport> = runs.iter().map(|r| &r.group).collect();
    mean_job_dirs(&mut out.group, &groups);
    for (i, g) in out.groups.iter_mut().enumerate() {
        let all: Vec<&JobReport> = runs
            .iter()
            .filter_map(|r| r.groups.get(i))
            .map(|g| &g.report)
            .collect();
        mean_job_dirs(&mut g.report, &all);
    }
    for (i, j) in out.jobs.iter_mut().enumerate() {
        let all: Vec<&JobReport> = runs.iter().filter_map(|r| r.jobs.get(i)).collect();
        mean_job_dirs(j, &all);
    }
    // A run that failed makes the result failed; the warnings are each run's own.
    if let Some(bad) = runs.iter().find(|r| r.error.is_some()) {
        out.status = bad.status;
        out.error = bad.error.clone();
    }
    for r in runs.iter_mut() {
        r.repeats = None;
    }
    out.repeats = Some(Box::new(Repeats {
        n: runs.len(),
        left_out: 0,
        delay_ms,
        until_stable,
        stats,
        runs,
    }));
    out
}

/// `into`'s directions and runtime as the means of `all`'s.
fn mean_job_dirs(into: &mut JobReport, all: &[&JobReport]) {
    let n = all.len().max(1) as f64;
    into.runtime_ns = (all.iter().map(|j| j.runtime_ns as f64).sum::<f64>() / n) as u64;
    if let Some(d) = into.read.as_mut() {
        let dirs: Option<Vec<&DirReport>> = all.iter().map(|j| j.read.as_ref()).collect();
        if let Some(dirs) = dirs {
            mean_dir(d, &dirs);
        }
    }
    if let Some(d) = into.write.as_mut() {
        let dirs: Option<Vec<&DirReport>> = all.iter().map(|j| j.write.as_ref()).collect();
        if let Some(dirs) = dirs {
            mean_dir(d, &dirs);
        }
    }
}

/// The words a figure's spread is said in: `12.3k ± 0.4k (95 % CI, 5 runs)`, the half-width
/// of the interval after the mean; `fmt` formats a value with its unit.
pub fn words(s: &Spread, fmt: &dyn Fn(f64) -> String) -> String {
    let half = (s.ci95[1] - s.ci95[0]) / 2.0;
    format!("{} ± {} (95 % CI, {} runs)", fmt(s.mean), fmt(half), s.n)
}
