//! `volbench curve`: latency under load. A closed-loop search for the maximum (depth doubled
//! until IOPS stops growing, as vdbench's `iorate=max` before its `curve`), then open-loop
//! points at shares of it with Poisson arrivals and latency from each I/O's due time, so the
//! queueing wait a rate-limited fio leaves out of clat stays in (coordinated omission). The
//! runs are a suite (stored, compared, reported like a sweep) with the curve read off them.

use crate::cli::{CurveArgs, RunArgs};
use crate::output::Output;
use crate::points::{checkpoint, run_test};
use crate::usage::usage;
use anyhow::Result;
use report::curve::{totals, CurveMax, CurvePoint, CurveReport, Slo};
use report::{Document, Status, SuiteReport};
use std::path::PathBuf;
use std::process::ExitCode;
use workload::fio::table::names;
use workload::fio::{self, cmdline::Given};
use workload::JobSpec;

/// A depth that adds less than this share of IOPS has found the maximum.
const GROWTH: f64 = 1.05;

use crate::points::Running;

/// The workload's options: the user's, with the target and the curve's defaults (random 4k
/// reads, time-based, 10 s a point) where the user gave none.
fn base_options(a: &CurveArgs) -> Result<(Vec<Given>, Option<PathBuf>)> {
    let given = |name: &str| a.fio.iter().any(|(k, _)| fio::canonical(k) == name);
    let mut opts: Vec<Given> = Vec::new();
    let mut temp = None;
    for (k, v) in [
        (names::RW, "randread"),
        (names::RUNTIME, "10s"),
        (names::TIME_BASED, "1"),
    ] {
        if !given(k) {
            opts.push((k.into(), Some(v.into())));
        }
    }
    let targets = [names::FILENAME, names::DIRECTORY];
    let target = match (&a.target, targets.iter().any(|n| given(n))) {
        (Some(_), true) => {
            return Err(usage(
                "give the target once: as TARGET or as --filename/--directory, not both",
            ))
        }
        (None, true) => None,
        (Some(t), false) => Some(t.clone()),
        (None, false) => Some(crate::cli::here()),
    };
    if let Some(t) = target {
        let file = if t.is_dir() {
            let f = t.join(format!("volbench-curve.{}.tmp", std::process::id()));
            temp = Some(f.clone());
            if !given(names::SIZE) {
                opts.push((names::SIZE.into(), Some("1g".into())));
            }
            f
        } else {
            t
        };
        opts.push(("filename".into(), Some(file.display().to_string())));
    }
    opts.extend(a.fio.iter().cloned());
    Ok((opts, temp))
}

/// The job with `extra` options on top of the base.
fn spec(base: &[Given], extra: &[(&str, String)]) -> Result<JobSpec> {
    let mut fio: Vec<Given> = base.to_vec();
    fio.extend(extra.iter().map(|(k, v)| (k.to_string(), Some(v.clone()))));
    RunArgs::of_fio(fio, Default::default(), Default::default()).spec()
}

/// Everything the points share.
struct Plan {
    base: Vec<Given>,
    opts: runner::RunOptions,
    points: u32,
    overload: bool,
    max_depth: u32,
    slos: Vec<Slo>,
}

pub fn main(a: CurveArgs) -> Result<ExitCode> {
    if !(1..=100).contains(&a.points) {
        return Err(usage("--points must be 1 to 100"));
    }
    if !(1..=4096).contains(&a.max_depth) {
        return Err(usage("--max-depth must be 1 to 4096"));
    }
    let slos = a
        .slo
        .iter()
        .map(|s| Slo::parse(s).map_err(usage))
        .collect::<Result<Vec<_>>>()?;
    let (base, temp) = base_options(&a)?;
    // Checked before any I/O: a bad option fails here, not after the search.
    let first = spec(&base, &[(names::IODEPTH, "1".into())])?;
    if first.rates.rate_iops != [0, 0] || first.rates.rate != [0, 0] {
        return Err(usage(
            "curve sets the rate of each point itself: leave out --rate and --rate_iops",
        ));
    }
    let _cleanup = RemoveOnDrop(temp.filter(|p| !p.exists()));
    let out = Output::open(&a.out, false)?;
    let recorder = crate::recording::recorder(&a.store, out.quiet)?;
    let plan = Plan {
        base,
        opts: runner::RunOptions {
            stop: crate::stop::stop_flag(),
            ..Default::default()
        },
        points: a.points,
        overload: !a.no_overload,
        max_depth: a.max_depth,
        slos,
    };
    let mut state: Running = (SuiteReport::started("curve", ""), out, recorder);
    let max = search_max(&plan, &mut state)?;
    if let Some(max) = max {
        run_points(&plan, &mut state, max)?;
    }
    let (mut suite, mut out, mut recorder) = state;
    suite.finish();
    if suite.curve.is_none() && suite.status == Status::Complete {
        suite.status = Status::Partial;
    }
    // A host too busy to judge is an answer of its own, not a success a script would read
    // as a number (docs/curve.md: exit status 4).
    let unjudged = suite
        .curve
        .as_ref()
        .is_some_and(|c| c.slo.iter().any(|a| a.host_late_ns.is_some()));
    let doc = Document::Suite(Box::new(suite));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(match unjudged && code == ExitCode::SUCCESS {
        true => ExitCode::from(CANNOT_JUDGE),
        false => code,
    })
}

/// The exit status of a curve that could not judge an SLO on this host.
const CANNOT_JUDGE: u8 = 4;

/// Closed loop at depth 1, 2, 4, ... until a doubling adds less than 5 %: the best run is the
/// curve's 100 %. None when the search was cut short before it found anything.
fn search_max(plan: &Plan, state: &mut Running) -> Result<Option<CurveMax>> {
    let depths: Vec<u32> = std::iter::successors(Some(1u32), |d| d.checked_mul(2))
        .take_while(|d| *d <= plan.max_depth)
        .collect();
    let mut best: Option<CurveMax> = None;
    let mut list = runner::Points::new(plan.opts.stop.clone(), None);
    list.each(
        state,
        depths,
        |(suite, out, _), step, depth| {
            let spec = spec(&plan.base, &[(names::IODEPTH, depth.to_string())])?;
            let prefix = format!("maximum {} QD{depth} ", step.position());
            let param = (names::IODEPTH, depth.to_string());
            let (st, run) = one(
                plan,
                suite,
                out,
                (format!("max QD{depth}"), param),
                spec,
                prefix,
            )?;
            let (iops, bw) = totals(&suite.runs[run].report);
            let grew = best.as_ref().is_none_or(|b| iops > b.iops * GROWTH);
            if best.as_ref().is_none_or(|b| iops > b.iops) {
                best = Some(CurveMax {
                    iops,
                    bw_bytes: bw,
                    iodepth: depth,
                    run,
                });
            }
            Ok(st == Status::Complete && grew)
        },
        checkpoint,
    )?;
    Ok(best.filter(|b| b.iops > 0.0))
}

/// One run of the curve, labelled and with its one parameter: how it ended and its index in
/// the suite's runs. A curve draws no sweep findings (its points are not a swept axis).
fn one(
    plan: &Plan,
    suite: &mut SuiteReport,
    out: &Output,
    (label, (key, value)): (String, (&str, String)),
    spec: JobSpec,
    prefix: String,
) -> Result<(Status, usize)> {
    let params = vec![(key.to_string(), value)];
    let driver = experiment::Driver {
        layout: scaleout::world::Layout::FilePerProcess,
        ..experiment::Driver::new(&plan.opts)
    };
    let st = run_test(suite, out, &driver, label, params, spec, prefix)?;
    suite.findings.clear();
    Ok((st, suite.runs.len() - 1))
}

/// Each job's `rate_iops` for a total of `iops`: split by the maximum's read share, so a
/// mixed workload keeps its mix (fio's rate_iops caps each direction on its own).
fn rate_option(iops: f64, read_share: f64, jobs: u32) -> String {
    let per = iops / jobs.max(1) as f64;
    let whole = |v: f64| (v.round() as u64).max(1);
    if read_share >= 0.999 || read_share <= 0.001 {
        whole(per).to_string()
    } else {
        format!(
            "{},{}",
            whole(per * read_share),
            whole(per * (1.0 - read_share))
        )
    }
}

/// The open-loop points at their shares of the maximum, the curve rebuilt after each.
fn run_points(plan: &Plan, state: &mut Running, max: CurveMax) -> Result<()> {
    let mut shares: Vec<u32> = (1..=plan.points).map(|k| k * 100 / plan.points).collect();
    if plan.overload {
        shares.push(110);
    }
    let r = &state.0.runs[max.run].report;
    let read_share = r.group.read.as_ref().map_or(0.0, |d| d.iops) / max.iops;
    let jobs = r.workload.jobs.first().map_or(1, |j| j.numjobs);
    // Deep enough that a slot is never what holds an I/O back below the maximum; the wait
    // for one past it is in the due-time latency either way.
    let depth = (max.iodepth * 4).clamp(64, 4096);
    let mut curve = CurveReport {
        max,
        point_iodepth: depth,
        points: Vec::new(),
        slo: Vec::new(),
        knee: None,
        knee_host_late: None,
    };
    let mut list = runner::Points::new(plan.opts.stop.clone(), Some(shares.len()));
    let mut st = (state, &mut curve);
    list.each(
        &mut st,
        shares,
        |(state, curve), step, share| {
            let offered = curve.max.iops * share as f64 / 100.0;
            let spec = spec(
                &plan.base,
                &[
                    (names::IODEPTH, depth.to_string()),
                    (names::RATE_IOPS, rate_option(offered, read_share, jobs)),
                    (names::RATE_PROCESS, "poisson".into()),
                ],
            )?;
            let (suite, out, _) = &mut **state;
            let prefix = format!("load {share} % {} ", step.position());
            let param = ("load_percent", share.to_string());
            let (st, run) = one(
                plan,
                suite,
                out,
                (format!("{share} %"), param),
                spec,
                prefix,
            )?;
            curve
                .points
                .push(CurvePoint::of(share, offered, run, &suite.runs[run].report));
            curve.answer(&plan.slos, &suite.runs);
            suite.curve = Some(Box::new((*curve).clone()));
            Ok(st == Status::Complete)
        },
        |(state, _)| checkpoint(state),
    )
}

/// Removes the temporary file when the curve ends, however it ends.
struct RemoveOnDrop(Option<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_keep_the_mix_and_split_over_jobs() {
        assert_eq!(rate_option(1000.0, 1.0, 1), "1000");
        assert_eq!(rate_option(1000.0, 0.0, 4), "250");
        assert_eq!(rate_option(1000.0, 0.7, 1), "700,300");
        assert_eq!(rate_option(0.2, 0.5, 1), "1,1");
    }
}
