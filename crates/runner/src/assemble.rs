//! The report of a run, from what its phases measured: each job's report with its series
//! closed, the kernel's counters per target, the reporting groups and the whole run.

use crate::phase::{delta, process_cpu, Collected, Counters, Window};
use crate::plan::Plan;
use crate::RunOptions;
use report::{GroupReport, JobReport, RunReport, Status, Tool, SCHEMA_VERSION};
use stats::JobStats;
use std::sync::atomic::Ordering::Relaxed;
use workload::Workload;

/// A job's statistics with where it ran: (group, phase, spec index, stats).
type Placed = (u32, usize, usize, JobStats);

/// The report of the run. `started` is when it started (RFC 3339, Unix seconds).
/// What the phases measured, with each spec's trace summary (a replaying job's).
pub(crate) struct Measured {
    pub got: Collected,
    pub window: Window,
    pub traces: Vec<Option<trace::Summary>>,
}

pub(crate) fn report(
    w: &Workload,
    mut plan: Plan,
    m: Measured,
    opts: &RunOptions,
    sample_ms: u64,
    started: (String, u64),
) -> RunReport {
    let Measured {
        mut got,
        window,
        traces,
    } = m;
    let cpu_before = count_devices(&mut plan, window);
    let cpu_after = process_cpu();
    let interrupted = opts.stop.load(Relaxed);
    plan.files.clear();
    let (jobs, placed, first_error) = job_reports(w, &plan, &mut got, &traces, sample_ms);
    let groups = groups_of(w, &jobs, &placed, plan.last_group);
    let mut all = all_stats(&placed, plan.last_phase);
    process_cpu_into(&mut all, w, cpu_before, cpu_after);
    let sync_only = w.jobs.iter().all(|s| s.ioengine.is_sync());
    let paths = plan.targets.iter().map(|t| t.path.clone()).collect();
    let group = JobReport::from_stats("all", paths, &all, sync_only);
    let warnings = report::trust::records(&w.jobs, &jobs, &groups, &plan.targets);
    let status = match (interrupted, &first_error) {
        (true, _) => Status::Interrupted,
        (false, Some(_)) => Status::Partial,
        _ => Status::Complete,
    };
    // Files this run created go after an interrupt, with --unlink, or for jobs asking unlink=1.
    plan.unlink(w, interrupted || opts.unlink);
    let mut environment = crate::probe::environment();
    environment.targets = plan.targets;
    let mut report = RunReport {
        schema_version: SCHEMA_VERSION,
        tool: Tool::volbench(),
        started_at: started.0,
        started_unix: started.1,
        command_line: opts.command_line.clone(),
        status,
        error: first_error,
        workload: w.clone(),
        environment,
        jobs,
        group,
        groups,
        global_options: w.global_options.clone(),
        warnings,
        ranks: Vec::new(),
        scaleout: None,
        repeats: None,
    };
    report::apply_percentile_lists(&mut report);
    report
}

/// The devices' kernel counters over the measured window, into their targets (the window
/// closes now if no phase closed it); the process's CPU when it opened.
fn count_devices(plan: &mut Plan, window: Window) -> (u64, u64, u64) {
    let Window {
        before,
        before_at,
        after,
        cpu_before,
    } = window;
    let (after, interval) = after.unwrap_or_else(|| (plan.snapshot(), before_at.elapsed()));
    for (k, (ti, _)) in plan.devs.iter().enumerate() {
        if let (Some(Some(a)), Some(Some(b))) = (before.get(k), after.get(k)) {
            let mut k = crate::probe::counters_delta(*a, *b);
            k.interval_ns = interval.as_nanos() as u64;
            plan.targets[*ti].kernel_counters = Some(k);
        }
    }
    cpu_before
}

/// The group's CPU is the whole process: io_uring runs work the device cannot take without
/// blocking on kernel worker threads (iou-wrk) that belong to the process but not to a job
/// thread, and leaving them out would understate the cost per I/O. A latency search measures
/// only its last windows, which the process's CPU since the start does not isolate: there the
/// job threads' own CPU over those windows is the figure.
fn process_cpu_into(
    all: &mut JobStats,
    w: &Workload,
    before: (u64, u64, u64),
    after: (u64, u64, u64),
) {
    if !w.jobs.iter().any(|s| s.latency.lat_target.on()) {
        all.usr_ns = after.0.saturating_sub(before.0);
        all.sys_ns = after.1.saturating_sub(before.1);
        all.ctx = after.2.saturating_sub(before.2);
    }
}

/// The reporting groups. A group's steady state is its first job's (with group_reporting,
/// the group's own); its latency search's depth, the last job's, as fio's group stats take it.
fn groups_of(w: &Workload, jobs: &[JobReport], placed: &[Placed], last: u32) -> Vec<GroupReport> {
    let mut groups = group_reports(w, placed, last);
    for g in groups.iter_mut() {
        let first = jobs.iter().find(|j| j.groupid == g.report.groupid);
        g.report.steadystate = first.and_then(|j| j.steadystate.clone());
        g.report.replay = first.and_then(|j| j.replay.clone());
        let last = jobs.iter().rfind(|j| j.groupid == g.report.groupid);
        g.report.lat_target = last.and_then(|j| j.lat_target.clone());
    }
    groups
}

/// Each job's report, its series closed with the remainder up to its own end, so samples sum
/// exactly to the job's totals. Jobs of phases that never started (interrupted) report nothing.
fn job_reports(
    w: &Workload,
    plan: &Plan,
    got: &mut Collected,
    traces: &[Option<trace::Summary>],
    sample_ms: u64,
) -> (Vec<JobReport>, Vec<Placed>, Option<String>) {
    let mut reports = Vec::with_capacity(plan.jobs.len());
    let mut placed = Vec::with_capacity(plan.jobs.len());
    let mut first_error = None;
    for (i, p) in plan.jobs.iter().enumerate() {
        let Some(o) = got.outputs[i].take() else {
            continue;
        };
        let mut st = o.stats;
        st.series = close_series(got, i, &st, sample_ms);
        let spec = &w.jobs[p.spec_idx];
        let paths = p
            .targets
            .iter()
            .map(|&t| plan.targets[t].path.clone())
            .collect();
        let mut jr = JobReport::from_stats(&p.name, paths, &st, spec.ioengine.is_sync());
        jr.groupid = p.group;
        jr.spec_index = p.spec_idx;
        jr.verified_blocks = (o.verified > 0).then_some(o.verified);
        jr.ramp_swallowed = o.ramp_swallowed;
        jr.ended_by = o.ended_by;
        jr.drain_ns = o.drain_ns;
        jr.huge_page_buffers = o.huge_page_buffers;
        jr.fio_windows = o.windows;
        jr.steadystate = got.steady[i].take();
        let trace = traces.get(p.spec_idx).and_then(|t| t.as_ref());
        if let (Some(c), Some(sum)) = (o.replay, trace) {
            jr.replay = Some(Box::new(crate::replay::report(spec, sum, c, &st)));
        }
        jr.lat_target = o.lat_depth.map(|(depth, settled)| {
            let t = spec.latency.lat_target;
            let (target_ns, window_ns, percentile) = (t.target_ns, t.window_ns, t.percentile);
            report::LatTargetReport {
                target_ns,
                window_ns,
                percentile,
                depth,
                settled,
            }
        });
        if let Some(e) = o.error {
            first_error.get_or_insert_with(|| format!("job {}: {e}", p.name));
            jr.error = Some(e);
        }
        reports.push(jr);
        placed.push((p.group, p.phase, p.spec_idx, st));
    }
    (reports, placed, first_error)
}

/// Job `i`'s series, closed with the remainder up to its own end.
fn close_series(got: &mut Collected, i: usize, st: &JobStats, sample_ms: u64) -> stats::Series {
    let end_ms = st.runtime_ns / 1_000_000;
    let last_t = got.last_t[i];
    let since = end_ms.saturating_sub(last_t);
    let rest = delta(end_ms.max(last_t), since, &final_counters(st), &got.last[i]);
    let series = &mut got.series[i];
    if rest.ios != [0, 0] || rest.bytes != [0, 0] || series.samples.is_empty() {
        series.push(rest);
    }
    series.interval_ms = sample_ms;
    std::mem::take(series)
}

/// The job's final totals, from its statistics: what the last sample closes up to.
fn final_counters(st: &JobStats) -> Counters {
    let d = &st.dirs;
    [
        d[0].ios,
        d[1].ios,
        d[0].bytes,
        d[1].bytes,
        d[0].lat.sum(),
        d[1].lat.sum(),
        d[0].clat.sum(),
        d[1].clat.sum(),
        d[0].slat.sum(),
        d[1].slat.sum(),
    ]
}

/// Reporting groups: jobs running side by side merge with the longest runtime.
fn group_reports(w: &Workload, placed: &[Placed], last_group: u32) -> Vec<GroupReport> {
    let mut groups = Vec::new();
    for g in 0..=last_group {
        let members: Vec<&Placed> = placed.iter().filter(|x| x.0 == g).collect();
        let Some(first) = members.first() else {
            continue;
        };
        let mut merged = JobStats::default();
        members.iter().for_each(|m| merged.merge(&m.3));
        let sync_only = members.iter().all(|m| w.jobs[m.2].ioengine.is_sync());
        let mut r = JobReport::from_stats(&w.jobs[first.2].name, Vec::new(), &merged, sync_only);
        r.groupid = g;
        r.spec_index = first.2;
        groups.push(GroupReport {
            group_reporting: members
                .iter()
                .any(|m| w.jobs[m.2].reporting.group_reporting),
            spec_index: first.2,
            report: r,
        });
    }
    groups
}

/// All jobs: phases one after another add their runtimes and follow each other on the run's
/// timeline (a second of one phase is never added to a second of another); jobs within a
/// phase overlap.
fn all_stats(placed: &[Placed], last_phase: usize) -> JobStats {
    let mut all = JobStats::default();
    let mut series = stats::Series::default();
    for ph in 0..=last_phase {
        let mut p = JobStats::default();
        placed
            .iter()
            .filter(|x| x.1 == ph)
            .for_each(|x| p.merge(&x.3));
        series.append(&p.series);
        let runtime = all.runtime_ns + p.runtime_ns;
        if last_phase > 0 {
            // Each phase counts its intervals from 0: on one timeline they would collide.
            for d in p.dirs.iter_mut() {
                d.lat.drop_intervals();
            }
        }
        all.merge(&p);
        all.runtime_ns = runtime;
    }
    all.series = series;
    all
}
