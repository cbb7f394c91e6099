//! A latency-under-load curve (`volbench curve`): the closed-loop maximum, then open-loop
//! points at shares of it, each with its latency from the due time beside its clat, and the
//! answers to latency targets (SLOs): the highest achieved IOPS whose percentile stays within
//! the limit. The runs themselves stay in the suite's `runs`; this holds what was read off
//! them.

use crate::{JobReport, RunReport};
use serde::{Deserialize, Serialize};
use stats::{LatHist, LatencySummary};

/// The curve of one workload on one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CurveReport {
    /// The closed-loop maximum: the curve's 100 %.
    pub max: CurveMax,
    /// The queue depth of the open-loop points (large, so the wait stays in the latency).
    pub point_iodepth: u32,
    pub points: Vec<CurvePoint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slo: Vec<SloAnswer>,
    /// The last point before the due-time p99 rose above twice the curve's lowest and
    /// stayed there: where queueing starts to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<Knee>,
    /// No knee is named because volbench itself issued late where the p99 rose: the bend may
    /// be the host's, not the device's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee_host_late: Option<KneeLate>,
}

/// The point where the due p99 rose past the knee's bar while volbench itself issued late by
/// enough to make the rise (and by more than [`HOST_JITTER_NS`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct KneeLate {
    pub share_percent: u32,
    /// volbench's own lateness there, at p99.
    pub issue_late_p99_ns: u64,
    /// The knee's bar: twice the curve's lowest due p99.
    pub bar_ns: u64,
}

/// The hockey stick's bend.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Knee {
    pub share_percent: u32,
    pub achieved_iops: f64,
    pub lat_due_p99_ns: u64,
}

/// The closed-loop run that saturated: depth raised until IOPS stopped growing.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CurveMax {
    pub iops: f64,
    pub bw_bytes: f64,
    pub iodepth: u32,
    /// Index of its run in the suite's `runs`.
    pub run: usize,
}

/// One open-loop point: Poisson arrivals at `share_percent` of the maximum.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CurvePoint {
    pub share_percent: u32,
    pub offered_iops: f64,
    pub achieved_iops: f64,
    pub achieved_bw_bytes: f64,
    /// Latency from when each I/O was due on the arrival schedule (the wait included).
    pub lat_due: Pcts,
    /// Completion latency from issue, as fio reports it (the wait left out).
    pub clat: Pcts,
    /// How late volbench itself issued (from when an I/O was due and the queue had room):
    /// the host's share of `lat_due`, which a busy CPU raises and the device never does.
    #[serde(default)]
    pub issue_late: Pcts,
    /// volbench's own lateness at p99 was at least half the point's due-time p99 (and over
    /// [`HOST_JITTER_NS`]): the host, more than the device, set the point's latency (marked,
    /// and left out of the knee).
    #[serde(default)]
    pub host_late: bool,
    /// Achieved fell short of offered (by more than 5 % and more than the arrivals' own
    /// randomness explains) or the run spent a tenth of its time behind the schedule.
    pub fell_behind: bool,
    /// The point's queue depth was reached: I/Os waited for a slot (the wait is in `lat_due`).
    pub depth_reached: bool,
    /// Index of its run in the suite's `runs`.
    pub run: usize,
}

/// The percentiles a curve reports, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pcts {
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p99_9_ns: u64,
    pub max_ns: u64,
}

/// A latency target: `p99=5ms`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slo {
    pub percentile: f64,
    pub limit_ns: u64,
}

/// The answer to one SLO.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SloAnswer {
    pub percentile: f64,
    pub limit_ns: u64,
    /// The highest achieved IOPS within the limit; none when even the lightest point broke it.
    pub slo_iops: Option<f64>,
    /// `slo_iops` lies between two measured points (linear in latency), not on one.
    pub interpolated: bool,
    /// The first point (its share) whose percentile broke the limit; none if none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broke_at_percent: Option<u32>,
    /// Points (their shares) left out of the answer: over the limit where volbench itself
    /// issued late, by more than [`HOST_SHARE`] of the limit at the SLO's percentile (and
    /// more than [`HOST_JITTER_NS`]), so their latency is the host's as much as the device's.
    /// A late point within the limit is kept: its lateness is in the latency that met it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out_percent: Vec<u32>,
    /// No answer: volbench itself issued late at the lightest point, by this much at the
    /// SLO's percentile, and that point was over the limit, so the host could not judge the
    /// device (exit status 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_late_ns: Option<u64>,
    /// The answer in words, as the text output prints it.
    pub message: String,
}

impl SloAnswer {
    /// The share of the load (percent) from which volbench was late, when that, and not a
    /// broken limit, is where the answer stopped: loads above it were not judged.
    pub fn cut_by_host_at(&self) -> Option<u32> {
        let late = self.left_out_percent.iter().min().copied()?;
        self.broke_at_percent
            .is_none_or(|b| b > late)
            .then_some(late)
    }
}

impl Slo {
    /// Reads `p99=5ms` (`p50`, `p99.9`, ..., any duration fio's units take).
    pub fn parse(s: &str) -> Result<Slo, String> {
        let fix = "give it as pPERCENTILE=LIMIT, e.g. --slo p99=5ms";
        let (p, l) = s
            .split_once('=')
            .ok_or_else(|| format!("--slo {s}: {fix}"))?;
        let percentile: f64 = p
            .trim()
            .strip_prefix('p')
            .and_then(|v| v.parse().ok())
            .filter(|v| *v > 0.0 && *v < 100.0)
            .ok_or_else(|| {
                format!("--slo {s}: '{p}' is not a percentile between p0 and p100; {fix}")
            })?;
        // A bare number is refused: fio's latency options read one as microseconds, time
        // options as seconds, and `p99=5` was read as 5 s (met at every point, a false yes).
        let l = l.trim();
        if !l.is_empty() && l.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Err(format!(
                "--slo {s}: the limit has no unit: write {l}ms or {l}us (or ns, s)"
            ));
        }
        let limit = workload::parse_duration(l).map_err(|e| format!("--slo {s}: {e}; {fix}"))?;
        let limit_ns = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
        if limit_ns == 0 {
            return Err(format!("--slo {s}: the limit must be above zero"));
        }
        Ok(Slo {
            percentile,
            limit_ns,
        })
    }

    /// `p99 ≤ 5 ms`.
    pub fn name(&self) -> String {
        format!(
            "p{} ≤ {}",
            self.percentile,
            figures::fmt_ns(self.limit_ns as f64)
        )
    }
}

/// The share of an SLO's limit that volbench's own lateness at a point may take before the
/// point is left out of the answer: a tenth, so a busy host cannot move an answer by more
/// than the noise of the measurement itself.
pub const HOST_SHARE: f64 = 0.1;

/// Issue lateness (p99) an idle host shows anyway: a late wake-up in a VM, which the spin
/// before each due I/O mostly absorbs (20-90 us seen on this project's idle VM, most at the
/// lightest load; 4 ms beside four busy loops). Below it nothing is marked or left out.
pub const HOST_JITTER_NS: u64 = 250_000;

/// Which latency of a direction.
#[derive(Clone, Copy)]
enum Of {
    Due,
    Clat,
    IssueLate,
}

/// Both directions' histogram as one (a mixed workload's SLO is on all its I/Os).
fn merged(j: &JobReport, of: Of) -> Option<LatHist> {
    let pick = |d: &crate::DirReport| -> Option<LatencySummary> {
        match of {
            Of::Due => d.lat_due_ns.clone(),
            Of::Clat => Some(d.clat_ns.clone()),
            Of::IssueLate => d.issue_late_ns.clone(),
        }
    };
    let mut all: Option<LatHist> = None;
    for d in [&j.read, &j.write].into_iter().flatten() {
        let Some(h) = pick(d).as_ref().and_then(LatHist::from_summary) else {
            continue;
        };
        match all.as_mut() {
            Some(a) => a.merge(&h),
            None => all = Some(h),
        }
    }
    all
}

fn pcts(h: Option<&LatHist>) -> Pcts {
    let Some(h) = h.filter(|h| h.count() > 0) else {
        return Pcts::default();
    };
    Pcts {
        p50_ns: h.percentile(50.0),
        p90_ns: h.percentile(90.0),
        p99_ns: h.percentile(99.0),
        p99_9_ns: h.percentile(99.9),
        max_ns: h.percentile(100.0),
    }
}

/// Total IOPS and bandwidth of a run, both directions.
pub fn totals(r: &RunReport) -> (f64, f64) {
    [&r.group.read, &r.group.write]
        .into_iter()
        .flatten()
        .fold((0.0, 0.0), |(i, b), d| (i + d.iops, b + d.bw_bytes))
}

/// Achieved fell short of offered by more than Poisson arrivals explain: 5 %, or four
/// standard deviations of the arrival count where that is more (a light point over a short
/// run counts few arrivals).
fn short(offered: f64, achieved: f64, runtime_ns: u64) -> bool {
    let n = offered * runtime_ns as f64 / 1e9;
    let allowed = if n > 0.0 {
        (4.0 / n.sqrt()).max(0.05)
    } else {
        0.05
    };
    achieved < offered * (1.0 - allowed)
}

impl CurvePoint {
    /// The point read off its run.
    pub fn of(share_percent: u32, offered_iops: f64, run: usize, r: &RunReport) -> CurvePoint {
        let (achieved_iops, achieved_bw_bytes) = totals(r);
        let g = &r.group;
        let behind = r.warnings.iter().any(|w| w.code == "fell_behind");
        let depth = r.jobs.first().map_or(0, |j| j.iodepth.max);
        let asked = r
            .workload
            .jobs
            .first()
            .map_or(u32::MAX, |j| j.iodepth.max(1));
        CurvePoint {
            share_percent,
            offered_iops,
            achieved_iops,
            achieved_bw_bytes,
            lat_due: pcts(merged(g, Of::Due).as_ref()),
            clat: pcts(merged(g, Of::Clat).as_ref()),
            issue_late: pcts(merged(g, Of::IssueLate).as_ref()),
            host_late: false,
            fell_behind: behind || short(offered_iops, achieved_iops, g.runtime_ns),
            depth_reached: depth >= asked,
            run,
        }
    }
}

impl CurveReport {
    /// Answers each SLO from the points' runs (`runs` is the suite's list) and finds the knee.
    pub fn answer(&mut self, slos: &[Slo], runs: &[crate::SuiteRun]) {
        self.mark_host_late();
        self.slo = slos.iter().map(|s| self.answer_one(s, runs)).collect();
        Self::keep_order(&mut self.slo);
        (self.knee, self.knee_host_late) = match (self.knee(), self.rise_host_late()) {
            (Some(_), Some(late)) => (None, Some(late)),
            (knee, _) => (knee, None),
        };
    }

    /// Marks the points where volbench's own issue lateness (p99) is at least half their
    /// due-time p99 and above [`HOST_JITTER_NS`]: a busy host, not the device, set their
    /// latency. Each point is judged on its own: under a busy host every point is late, the
    /// curve's lowest with them.
    fn mark_host_late(&mut self) {
        for p in &mut self.points {
            let own = p.issue_late.p99_ns;
            p.host_late = own >= HOST_JITTER_NS && own >= p.lat_due.p99_ns / 2;
        }
    }

    /// The last point before the due p99 went above twice the curve's lowest p99 and stayed
    /// there to the end (one noisy light point moves no knee; no knee while it stays flat).
    /// Points the host made late are not the device's and are skipped.
    fn knee(&self) -> Option<Knee> {
        let (own, stays, _) = self.knee_walk()?;
        let p = own.get(stays).filter(|_| stays + 1 < own.len())?;
        Some(Knee {
            share_percent: p.share_percent,
            achieved_iops: p.achieved_iops,
            lat_due_p99_ns: p.lat_due.p99_ns,
        })
    }

    /// The points the knee is read from (those not marked late), the place of the last one
    /// within the bar, and the bar (twice the lowest due p99).
    fn knee_walk(&self) -> Option<(Vec<&CurvePoint>, usize, u64)> {
        let own: Vec<&CurvePoint> = self.points.iter().filter(|p| !p.host_late).collect();
        let bar = 2 * own.iter().map(|p| p.lat_due.p99_ns).min()?.max(1);
        let stays = own.iter().rposition(|p| p.lat_due.p99_ns <= bar)?;
        Some((own, stays, bar))
    }

    /// The first point past the knee, where the p99 rose over the bar, if volbench's own
    /// lateness could have made the rise: the point's device latency (its clat p99, or its
    /// due p99 less the lateness p99, whichever is more) is within the bar. Beside a CPU hog
    /// the knee read 40 % against 80 % alone with no point marked late, as a point that fell
    /// behind has a large due p99 and the lateness is a small share of it; a rise the device
    /// made (a queue past the maximum) stays named, however late the host was there.
    fn rise_host_late(&self) -> Option<KneeLate> {
        let (own, stays, bar) = self.knee_walk()?;
        let rise = own.get(stays + 1)?;
        let late = rise.issue_late.p99_ns;
        let device = rise
            .clat
            .p99_ns
            .max(rise.lat_due.p99_ns.saturating_sub(late));
        (late >= HOST_JITTER_NS && device <= bar).then_some(KneeLate {
            share_percent: rise.share_percent,
            issue_late_p99_ns: late,
            bar_ns: bar,
        })
    }

    /// The share of the maximum up to which `slo` held (its answer over the maximum), the
    /// answer computed from the runs if the curve was not asked this SLO when it ran.
    pub fn slo_share(&self, slo: &Slo, runs: &[crate::SuiteRun]) -> (Option<f64>, SloAnswer) {
        let a = self
            .slo
            .iter()
            .find(|a| a.percentile == slo.percentile && a.limit_ns == slo.limit_ns)
            .cloned()
            .unwrap_or_else(|| self.answer_one(slo, runs));
        let share = a.slo_iops.map(|v| (v / self.max.iops).min(1.0));
        (share, a)
    }

    /// One SLO's answer, walking the points from the lightest load up: it stops at the first
    /// point that broke the limit, or that broke it while volbench itself issued late (the
    /// host's latency as much as the device's), so the answer never exceeds a point it could
    /// not vouch for. A late point within the limit is vouched for: the latency is counted
    /// from each I/O's due time, lateness included, and the device's own can only be lower.
    /// When the lightest point is late and over the limit there is no number: the host
    /// cannot judge.
    fn answer_one(&self, slo: &Slo, runs: &[crate::SuiteRun]) -> SloAnswer {
        let at = |p: &CurvePoint, of: Of| {
            let h = runs.get(p.run).and_then(|r| merged(&r.report.group, of));
            h.filter(|h| h.count() > 0)
                .map(|h| h.percentile(slo.percentile))
        };
        let host = ((slo.limit_ns as f64 * HOST_SHARE) as u64).max(HOST_JITTER_NS);
        // Each point's percentile from its full due-time histogram: any percentile, exactly.
        let over = |p: &CurvePoint| at(p, Of::Due).is_none_or(|v| v > slo.limit_ns);
        let late = |p: &CurvePoint| at(p, Of::IssueLate).filter(|&v| v > host);
        let unvouched = |p: &CurvePoint| late(p).filter(|_| over(p));
        let left: Vec<&CurvePoint> = self
            .points
            .iter()
            .filter(|p| unvouched(p).is_some())
            .collect();
        let mut judged: Vec<(f64, Option<u64>)> = Vec::new();
        let mut stop = Stop::None;
        for p in &self.points {
            if let Some(v) = unvouched(p) {
                stop = Stop::Late(p, v);
                break;
            }
            judged.push((p.achieved_iops, at(p, Of::Due)));
            if over(p) {
                stop = Stop::Broke(p);
                break;
            }
        }
        let (slo_iops, interpolated) = match (&stop, judged.len()) {
            (Stop::Late(..), 0) | (Stop::Broke(_), 1) => (None, false),
            (_, 0) => (None, false),
            (Stop::Broke(_), n) => interpolate(judged[n - 2], judged[n - 1], slo.limit_ns),
            (_, n) => (Some(judged[n - 1].0), false),
        };
        let mut a = SloAnswer {
            percentile: slo.percentile,
            limit_ns: slo.limit_ns,
            slo_iops,
            interpolated,
            broke_at_percent: match stop {
                Stop::Broke(p) => Some(p.share_percent),
                _ => None,
            },
            left_out_percent: left.iter().map(|p| p.share_percent).collect(),
            host_late_ns: match (&stop, judged.len()) {
                (Stop::Late(_, v), 0) => Some(*v),
                _ => None,
            },
            message: String::new(),
        };
        a.message = words(slo, &a, &stop, &judged);
        if !left.is_empty() && a.host_late_ns.is_none() {
            a.message += &left_out_words(slo, &left, host);
        }
        a
    }

    /// Every answer within what each looser SLO allows: a target tighter in both percentile
    /// and limit never allows more load than a looser one (each walk stops no later for it,
    /// but one may stop by breaking between two points where the other stopped for lateness).
    fn keep_order(answers: &mut [SloAnswer]) {
        // What the looser targets allow each: the least of their answers (none counts as 0).
        let allowed: Vec<Option<f64>> = answers
            .iter()
            .map(|a| {
                answers
                    .iter()
                    .filter(|b| b.percentile <= a.percentile && b.limit_ns >= a.limit_ns)
                    .map(|b| b.slo_iops.unwrap_or(0.0))
                    .reduce(f64::min)
            })
            .collect();
        for (a, most) in answers.iter_mut().zip(allowed) {
            let (Some(v), Some(m)) = (a.slo_iops, most) else {
                continue;
            };
            if v > m {
                a.slo_iops = (m > 0.0).then_some(m);
                a.interpolated = false;
                a.message += &match a.slo_iops {
                    Some(m) => format!(
                        "; held to {} IOPS, what a looser target allows",
                        figures::fmt_count(m)
                    ),
                    None => "; no answer, as a looser target has none".to_string(),
                };
            }
        }
    }
}

/// Where an SLO's walk up the curve stopped.
enum Stop<'a> {
    /// At the end: every point met it.
    None,
    /// At the first point that broke the limit (or had no I/O).
    Broke(&'a CurvePoint),
    /// At the first point volbench itself issued late, by this much at the SLO's percentile.
    Late(&'a CurvePoint, u64),
}

/// What was left out of an answer and why, appended to its words.
fn left_out_words(slo: &Slo, left: &[&CurvePoint], host: u64) -> String {
    let shares: Vec<String> = left
        .iter()
        .map(|p| format!("{} %", p.share_percent))
        .collect();
    format!(
        "; left out: {} (volbench itself issued I/Os late there, by more than {} at p{}: the host was busy; stop other work on it and run the curve again)",
        shares.join(", "),
        figures::fmt_ns(host as f64),
        slo.percentile
    )
}

/// Between the last point within the limit and the first beyond it, the IOPS where the
/// percentile crosses the limit, linear in latency; the last good point's IOPS when the
/// two do not bracket it (achieved IOPS fell while latency rose).
fn interpolate(
    good: (f64, Option<u64>),
    bad: (f64, Option<u64>),
    limit: u64,
) -> (Option<f64>, bool) {
    let (g_iops, Some(g_lat)) = good else {
        return (Some(good.0), false);
    };
    match bad {
        (b_iops, Some(b_lat)) if b_iops > g_iops && b_lat > g_lat => {
            let f = (limit - g_lat) as f64 / (b_lat - g_lat) as f64;
            (Some(g_iops + f * (b_iops - g_iops)), true)
        }
        _ => (Some(g_iops), false),
    }
}

fn words(slo: &Slo, a: &SloAnswer, stop: &Stop, judged: &[(f64, Option<u64>)]) -> String {
    let at = |v: Option<u64>| v.map_or("no I/O".into(), |v| figures::fmt_ns(v as f64));
    let name = slo.name();
    let count = figures::fmt_count;
    match (stop, a.slo_iops) {
        (Stop::None, Some(iops)) => format!(
            "{name}: met at every point, up to {} IOPS (the highest load measured)",
            count(iops)
        ),
        (Stop::Late(_, v), None) => format!(
            "{name}: cannot judge here: the host was late by {} at p{} at the lightest load \
             (volbench itself issued I/Os late, so the latency is the host's as much as the \
             device's); stop other work on it and run the curve again",
            figures::fmt_ns(*v as f64),
            slo.percentile
        ),
        (Stop::Late(p, _), Some(iops)) => format!(
            "{name}: up to {} IOPS, the last point measured before the host was late at {} % \
             (the points from there up were not judged)",
            count(iops),
            p.share_percent
        ),
        (Stop::Broke(p), None) => format!(
            "{name}: not met even at the lightest load ({} %, {} IOPS: p{} {})",
            p.share_percent,
            count(p.achieved_iops),
            slo.percentile,
            at(judged.last().and_then(|j| j.1))
        ),
        (Stop::Broke(p), Some(iops)) => format!(
            "{name}: up to {} IOPS{} (broke at {} %, {} IOPS: p{} {})",
            count(iops),
            if a.interpolated {
                ", interpolated between the two points around the limit"
            } else {
                ", the last point within it"
            },
            p.share_percent,
            count(p.achieved_iops),
            slo.percentile,
            at(judged.last().and_then(|j| j.1))
        ),
        (Stop::None, None) => format!("{name}: no point measured"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slos_parse_and_refuse_with_the_fix() {
        let s = Slo::parse("p99=5ms").unwrap();
        assert_eq!((s.percentile, s.limit_ns), (99.0, 5_000_000));
        let s = Slo::parse("p99.9=200us").unwrap();
        assert_eq!((s.percentile, s.limit_ns), (99.9, 200_000));
        for bad in [
            "99=5ms", "p100=1ms", "p99", "p99=", "p99=0", "pX=1ms", "p99=5", "p99=0.5",
        ] {
            let e = Slo::parse(bad).unwrap_err();
            assert!(e.starts_with(&format!("--slo {bad}")), "{e}");
        }
        assert!(Slo::parse("p99=5").unwrap_err().contains("5ms or 5us"));
    }

    fn curve_of(p99_us: &[u64]) -> CurveReport {
        let points = p99_us
            .iter()
            .enumerate()
            .map(|(i, &us)| CurvePoint {
                share_percent: 10 * (i as u32 + 1),
                offered_iops: 100.0 * (i + 1) as f64,
                achieved_iops: 100.0 * (i + 1) as f64,
                achieved_bw_bytes: 0.0,
                lat_due: Pcts {
                    p99_ns: us * 1000,
                    ..Default::default()
                },
                clat: Pcts::default(),
                issue_late: Pcts::default(),
                host_late: false,
                fell_behind: false,
                depth_reached: false,
                run: i,
            })
            .collect();
        CurveReport {
            max: CurveMax {
                iops: 1000.0,
                bw_bytes: 0.0,
                iodepth: 1,
                run: 0,
            },
            point_iodepth: 64,
            points,
            slo: Vec::new(),
            knee: None,
            knee_host_late: None,
        }
    }

    #[test]
    fn the_knee_is_where_the_p99_leaves_twice_its_floor_for_good() {
        // A noisy light point (40 us at 20 %) does not make the knee; 70 % does.
        let c = curve_of(&[10, 40, 12, 11, 15, 14, 18, 30, 90, 900]);
        assert_eq!(c.knee().map(|k| k.share_percent), Some(70));
        // Flat to the end: no knee.
        assert!(curve_of(&[10, 12, 11, 15]).knee().is_none());
    }

    #[test]
    fn points_the_host_made_late_are_marked_and_move_no_knee() {
        // The last point read 400 us because volbench itself issued 390 us late there: alone
        // it would make a knee at 40 %; the device's own curve is flat.
        let mut c = curve_of(&[10, 12, 11, 15, 400]);
        assert_eq!(c.knee().map(|k| k.share_percent), Some(40));
        c.points[4].issue_late.p99_ns = 390_000;
        c.points[1].issue_late.p99_ns = 5_000;
        c.mark_host_late();
        let late: Vec<bool> = c.points.iter().map(|p| p.host_late).collect();
        assert_eq!(late, [false, false, false, false, true]);
        assert!(c.knee().is_none());
    }

    /// A rise past the knee that volbench's own lateness could have made names no knee, and
    /// says where and by how much; a rise that stays past the bar without the lateness, or
    /// lateness an idle host shows, names it as before.
    #[test]
    fn a_rise_the_host_could_have_made_names_no_knee() {
        let mut c = curve_of(&[1000, 1100, 3000, 6000]);
        let knee_with = |c: &mut CurveReport, late_ns: u64| {
            c.points[2].issue_late.p99_ns = late_ns;
            c.answer(&[], &[]);
            (c.knee.map(|k| k.share_percent), c.knee_host_late.is_some())
        };
        // 3 ms less 0.9 ms is still past the 2 ms bar: the device's rise (at 1.5 ms, half
        // the due p99, the point itself is marked late and left out of the walk).
        for late in [200_000, 900_000] {
            assert_eq!(knee_with(&mut c, late), (Some(20), false), "late {late}");
        }
        assert_eq!(knee_with(&mut c, 1_400_000), (None, true));
        assert!(c.knee.is_none(), "{:?}", c.knee);
        let late = c.knee_host_late.expect("the host's rise is said");
        assert_eq!(
            (late.share_percent, late.issue_late_p99_ns, late.bar_ns),
            (30, 1_400_000, 2_000_000)
        );
    }

    #[test]
    fn the_crossing_is_interpolated_linearly_in_latency() {
        // 1000 IOPS at 2 ms, 2000 IOPS at 6 ms: 5 ms is three quarters of the way.
        let (v, i) = interpolate(
            (1000.0, Some(2_000_000)),
            (2000.0, Some(6_000_000)),
            5_000_000,
        );
        assert!(i);
        assert!((v.unwrap() - 1750.0).abs() < 1e-6);
        // Achieved IOPS fell past the knee: the last good point stands, not interpolated.
        let (v, i) = interpolate(
            (1000.0, Some(2_000_000)),
            (900.0, Some(9_000_000)),
            5_000_000,
        );
        assert_eq!((v, i), (Some(1000.0), false));
    }

    fn answer(percentile: f64, limit_ms: u64, iops: Option<f64>) -> SloAnswer {
        SloAnswer {
            percentile,
            limit_ns: limit_ms * 1_000_000,
            slo_iops: iops,
            interpolated: true,
            broke_at_percent: None,
            left_out_percent: Vec::new(),
            host_late_ns: None,
            message: String::new(),
        }
    }

    /// An answer stopped by the host's lateness says where (so a price or a check built on it
    /// can say the loads above were never judged); one that broke the limit first does not.
    #[test]
    fn an_answer_the_host_cut_short_says_where() {
        let mut a = answer(99.0, 5, Some(581.0));
        assert_eq!(a.cut_by_host_at(), None);
        a.left_out_percent = vec![60, 40, 80];
        assert_eq!(a.cut_by_host_at(), Some(40));
        a.broke_at_percent = Some(20);
        assert_eq!(a.cut_by_host_at(), None);
        a.broke_at_percent = Some(60);
        assert_eq!(a.cut_by_host_at(), Some(40));
    }

    /// A tighter target (in percentile and limit) is held to what every looser one allows;
    /// targets neither tighter nor looser than each other are left alone.
    #[test]
    fn a_tighter_target_never_allows_more_than_a_looser_one() {
        let mut a = vec![
            answer(99.0, 5, Some(2986.0)),
            answer(99.0, 50, Some(1400.0)),
            answer(50.0, 1, Some(2500.0)),
            answer(99.9, 50, None),
            answer(99.9, 20, Some(900.0)),
        ];
        CurveReport::keep_order(&mut a);
        let got: Vec<Option<f64>> = a.iter().map(|a| a.slo_iops).collect();
        assert_eq!(got, [Some(1400.0), Some(1400.0), Some(2500.0), None, None]);
        assert!(a[0].message.contains("what a looser target allows") && !a[0].interpolated);
    }
}
