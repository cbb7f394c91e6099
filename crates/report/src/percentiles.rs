//! fio's `percentile_list`: a job's own percentiles, read off the histograms the report
//! keeps, so every summary (job, group, all) shows the points the job file asked for.

use crate::{JobReport, RunReport};

/// fio's `percentile_list`: every latency summary of the report read again off its histogram
/// at the job's own percentiles (the group's and "all" at their first job's).
pub fn apply_percentile_lists(r: &mut RunReport) {
    let specs = &r.workload.jobs;
    // fio's default set stays (the text and HTML reports show p50/p99/p99.9); fio-json prints
    // only the job's own list, as fio does.
    let list = |i: usize| {
        specs
            .get(i)
            .and_then(|s| s.reporting.percentile_list.clone())
            .map(|mut ps| {
                ps.extend(stats::FIO_PERCENTILES);
                ps.sort_by(f64::total_cmp);
                ps.dedup();
                ps
            })
    };
    let redo = |j: &mut JobReport, ps: &[f64]| {
        for d in [j.read.as_mut(), j.write.as_mut()].into_iter().flatten() {
            d.clat_ns = d.clat_ns.with_percentiles(ps);
            d.lat_ns = d.lat_ns.with_percentiles(ps);
            let optional = [
                d.slat_ns.as_mut(),
                d.lat_due_ns.as_mut(),
                d.issue_late_ns.as_mut(),
            ];
            for s in optional.into_iter().flatten() {
                *s = s.with_percentiles(ps);
            }
        }
        if let Some(s) = j.sync.as_mut() {
            s.lat_ns = s.lat_ns.with_percentiles(ps);
        }
    };
    for j in r.jobs.iter_mut() {
        if let Some(ps) = list(j.spec_index) {
            redo(j, &ps);
        }
    }
    for g in r.groups.iter_mut() {
        if let Some(ps) = list(g.spec_index) {
            redo(&mut g.report, &ps);
        }
    }
    if let Some(ps) = list(0) {
        redo(&mut r.group, &ps);
    }
}
