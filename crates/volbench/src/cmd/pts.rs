//! `volbench suite pts-iops|pts-throughput|pts-latency TARGET`: the SNIA PTS tests. Purge
//! the device, write it over twice in 128 KiB sequential writes, then run rounds of the test's
//! points (R/W mixes x block sizes, one run each) until the tracked figure holds steady over
//! five rounds, or 25 rounds. The rules and their arithmetic are `report::pts`'s.

use crate::cli::{OutputArgs, StoreArgs};
use crate::output::Output;
use crate::overrides::Overrides;
use crate::usage::usage;
use anyhow::Result;
use report::pts::{PtsPlan, PtsPoint, PtsRound, MAX_ROUNDS};
use report::{Document, PtsReport, RunReport, Status, SuiteReport};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use workload::fio::table::names::{
    BS, DIRECT, GROUP_REPORTING, IODEPTH, IOENGINE, LOOPS, NUMJOBS, RUNTIME, RW, RWMIXREAD, SIZE,
    TIME_BASED,
};
use workload::{fio, JobSpec, Workload};

/// What a PTS run is given beyond the suite's own options.
pub struct PtsOptions<'a> {
    pub capacity: Option<&'a str>,
    pub client: bool,
    /// At most this many rounds (25, the spec's; fewer to shorten a test run).
    pub max_rounds: u32,
    pub out: &'a OutputArgs,
    pub store: &'a StoreArgs,
}

/// Runs a PTS test on `target` (a block device, or a file of `--capacity`).
/// `volbench suite pts-...`: a SNIA PTS test (the dispatch sends a suite named pts-* here).
pub fn main(a: crate::cli::SuiteArgs) -> Result<ExitCode> {
    let name = a.suite.as_deref().unwrap_or_default();
    let target = a.target.clone().unwrap_or_else(crate::cli::here);
    let p = PtsOptions {
        capacity: a.capacity.as_deref(),
        client: a.profile == "client",
        max_rounds: a.rounds,
        out: &a.out,
        store: &a.store,
    };
    run(name, &target, &Overrides::of(&a), &p)
}

fn run(name: &str, target: &Path, o: &Overrides, p: &PtsOptions) -> Result<ExitCode> {
    let Some(mut plan) = PtsPlan::named(name, p.client) else {
        return Err(usage(format!("no PTS test named {name}")));
    };
    let lbs = runner::purge::logical_block(target);
    let skipped: Vec<u64> = plan.sizes.iter().copied().filter(|&b| b < lbs).collect();
    plan.sizes.retain(|&b| b >= lbs);
    let capacity = capacity(target, p.capacity)?;
    let mut out = Output::open(p.out, false)?;
    // Before the purge and the precondition: a store that cannot take the result says so now.
    let mut recorder = crate::recording::recorder(p.store, out.quiet)?;
    let stop = crate::stop::stop_flag();
    let opts = runner::RunOptions {
        stop: stop.clone(),
        ..Default::default()
    };
    let purge = runner::purge::purge(target, capacity, o.allow_destructive)?;
    let mut report = fresh(plan, target, capacity, purge, p.client);
    report.skipped_sizes = skipped;
    let mut suite = SuiteReport::started(name, "1");
    let t0 = Instant::now();
    let pre = precondition(target, capacity, o)?;
    let done = point_run(&out, &opts, pre, "precondition (2x capacity, 128k seq) ")?;
    let status = done.status;
    // What the run wrote, as it counted it (checked against the kernel's counters there).
    report.precondition_bytes = done.group.write.as_ref().map_or(0, |w| w.io_bytes);
    report.precondition_ns = t0.elapsed().as_nanos() as u64;
    suite.status = status;
    if status == Status::Complete {
        let run = (&out, &opts, p.max_rounds);
        suite.status = rounds(&mut report, target, capacity, o, run)?;
    }
    suite.pts = Some(Box::new(report));
    suite.finish();
    let doc = Document::Suite(Box::new(suite));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}

/// The target's size, or `--capacity` below it (a file needs `--capacity` when it is new).
fn capacity(target: &Path, limit: Option<&str>) -> Result<u64> {
    let limit = limit
        .map(workload::parse_size)
        .transpose()
        .map_err(|e| usage(format!("--capacity: {e}")))?;
    if target.is_dir() {
        return Err(usage(format!(
            "{} is a directory: a PTS test runs on a block device, or on a file with --capacity",
            target.display()
        )));
    }
    let have = runner::purge::capacity(target);
    match (have, limit) {
        (0, None) => Err(usage(format!(
            "{} is empty or missing: give a block device, or a file with --capacity",
            target.display()
        ))),
        (0, Some(l)) => Ok(l),
        (h, l) => Ok(l.map_or(h, |l| l.min(h))),
    }
}

fn fresh(plan: PtsPlan, target: &Path, capacity: u64, purge: String, client: bool) -> PtsReport {
    PtsReport {
        plan,
        profile: if client { "client" } else { "enterprise" }.into(),
        target: target.display().to_string(),
        purge,
        precondition_bytes: 0,
        precondition_ns: 0,
        capacity,
        point_runtime_ns: 0,
        rounds: Vec::new(),
        steady_state: None,
        table: Vec::new(),
        skipped_sizes: Vec::new(),
    }
}

/// Rounds of every point until the tracked figure is steady over five, or 25 rounds, or a
/// point does not complete (its status is the suite's).
fn rounds(
    report: &mut PtsReport,
    target: &Path,
    capacity: u64,
    o: &Overrides,
    (out, opts, max): (&Output, &runner::RunOptions, u32),
) -> Result<Status> {
    let points = report.plan.points();
    for r in 1..=max.min(MAX_ROUNDS as u32) {
        let mut round = PtsRound {
            round: r,
            points: Vec::with_capacity(points.len()),
        };
        for (k, &(mix, bs)) in points.iter().enumerate() {
            let spec = point(&report.plan, target, capacity, (mix, bs), o)?;
            report.point_runtime_ns = spec.runtime.map_or(0, |d| d.as_nanos() as u64);
            let label = format!(
                "round {r}/{max} point {}/{} {mix}/{} {} ",
                k + 1,
                points.len(),
                100 - mix,
                workload::short_size(bs)
            );
            let run = point_run(out, opts, spec, &label)?;
            if run.status != Status::Complete {
                report.rounds.push(round);
                return Ok(run.status);
            }
            round.points.push(figures_of(&run, mix, bs));
        }
        report.rounds.push(round);
        if report.judge() {
            break;
        }
    }
    Ok(Status::Complete)
}

/// One run of one job, with a progress bar named `label`.
fn point_run(
    out: &Output,
    opts: &runner::RunOptions,
    spec: JobSpec,
    label: &str,
) -> Result<RunReport> {
    let mut bar = out.progress();
    bar.set_prefix(label.to_string());
    let w = Workload {
        jobs: vec![spec],
        ..Default::default()
    };
    // A round is judged by PTS's steady-state rule, not by the host's checks.
    let driver = experiment::Driver {
        checks: false,
        ..experiment::Driver::new(opts)
    };
    driver.run_once(&w, &mut bar)
}

/// A job on the target through the option table, fio's names for everything.
fn job(target: &Path, capacity: u64, o: &Overrides, opts: &[(&str, String)]) -> Result<JobSpec> {
    let mut j = JobSpec {
        name: "pts".into(),
        filename: vec![target.to_path_buf()],
        allow_destructive: o.allow_destructive,
        ..Default::default()
    };
    let common = [
        (SIZE, capacity.to_string()),
        (DIRECT, o.direct.clone().unwrap_or("1".into())),
        (GROUP_REPORTING, "1".into()),
    ];
    let engine = o.ioengine.iter().map(|e| (IOENGINE, e.clone()));
    for (k, v) in common.into_iter().chain(engine).chain(opts.iter().cloned()) {
        fio::apply(&mut j, k, Some(&v)).map_err(|e| usage(format!("--{e}")))?;
    }
    Ok(j)
}

/// The workload-independent preconditioning: the capacity written twice, 128 KiB sequential.
fn precondition(target: &Path, capacity: u64, o: &Overrides) -> Result<JobSpec> {
    let opts = [
        (RW, "write".into()),
        (BS, "128k".into()),
        (IODEPTH, "32".into()),
        (TIME_BASED, "0".into()),
        (RUNTIME, "0".into()),
        (LOOPS, "2".into()),
    ];
    job(target, capacity, o, &opts)
}

/// One point of a round: the mix and block size, random or sequential as the test says.
fn point(
    plan: &PtsPlan,
    target: &Path,
    capacity: u64,
    (mix, bs): (u32, u64),
    o: &Overrides,
) -> Result<JobSpec> {
    let rw = match (plan.sequential, mix) {
        (false, 100) => "randread",
        (false, 0) => "randwrite",
        (false, _) => "randrw",
        (true, 100) => "read",
        (true, 0) => "write",
        (true, _) => "rw",
    };
    let opts = [
        (RW, rw.to_string()),
        (RWMIXREAD, mix.to_string()),
        (BS, bs.to_string()),
        (IODEPTH, plan.iodepth.to_string()),
        (NUMJOBS, plan.numjobs.to_string()),
        (TIME_BASED, "1".into()),
        (RUNTIME, o.runtime.clone().unwrap_or("60s".into())),
    ];
    job(target, capacity, o, &opts)
}

/// A point's figures from its run: both directions together, the latency weighted by I/Os.
fn figures_of(r: &RunReport, read_pct: u32, bs: u64) -> PtsPoint {
    let g = &r.group;
    let dirs = [g.read.as_ref(), g.write.as_ref()];
    let ios: u64 = dirs.iter().flatten().map(|d| d.total_ios).sum();
    let lat: f64 = dirs
        .iter()
        .flatten()
        .map(|d| d.lat_ns.mean_ns * d.total_ios as f64)
        .sum();
    PtsPoint {
        read_pct,
        bs,
        iops: g.total_iops(),
        bw_bytes: g.total_bw_bytes(),
        lat_mean_ns: if ios > 0 { lat / ios as f64 } else { 0.0 },
    }
}
