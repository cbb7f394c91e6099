//! The rows every tabular format shares: one per run of a suite or sweep, one per reporting
//! group (or the whole run) of a single run. Formats differ only in how they print them.

use crate::{JobReport, RunReport, SuiteReport};

pub struct TableRow<'a> {
    pub label: String,
    pub params: Vec<(String, String)>,
    pub job: &'a JobReport,
    pub status: &'static str,
}

fn status_word(r: &RunReport) -> &'static str {
    match r.status {
        crate::Status::Complete => "",
        crate::Status::Partial => "partial",
        crate::Status::Interrupted => "interrupted",
        crate::Status::Running => "running",
    }
}

pub fn run_rows(r: &RunReport) -> Vec<TableRow<'_>> {
    if r.groups.len() > 1 {
        r.groups
            .iter()
            .map(|g| TableRow {
                label: r
                    .workload
                    .jobs
                    .get(g.spec_index)
                    .map(|s| s.description.clone().unwrap_or_else(|| s.name.clone()))
                    .unwrap_or_else(|| g.report.name.clone()),
                params: Vec::new(),
                job: &g.report,
                status: status_word(r),
            })
            .collect()
    } else {
        vec![TableRow {
            label: r
                .workload
                .jobs
                .first()
                .map_or("all".into(), |j| j.name.clone()),
            params: Vec::new(),
            job: &r.group,
            status: status_word(r),
        }]
    }
}

pub fn suite_rows(s: &SuiteReport) -> Vec<TableRow<'_>> {
    s.runs
        .iter()
        .map(|x| TableRow {
            label: x.label.clone(),
            params: x.params.clone(),
            job: &x.report.group,
            status: status_word(&x.report),
        })
        .collect()
}

/// Mean and percentile of total latency over both directions (weighted by count for the mean;
/// the direction with more I/Os for percentiles).
pub fn latency(j: &JobReport) -> (f64, u64, u64, u64) {
    let dirs: Vec<_> = [&j.read, &j.write].into_iter().flatten().collect();
    let n: u64 = dirs.iter().map(|d| d.lat_ns.n).sum();
    let mean = if n == 0 {
        0.0
    } else {
        dirs.iter()
            .map(|d| d.lat_ns.mean_ns * d.lat_ns.n as f64)
            .sum::<f64>()
            / n as f64
    };
    let main = dirs.iter().max_by_key(|d| d.lat_ns.n);
    let p = |q| main.and_then(|d| d.lat_ns.percentile(q)).unwrap_or(0);
    (mean, p(50.0), p(99.0), p(99.9))
}

pub fn cpu_percent(j: &JobReport) -> f64 {
    j.cpu.usr_percent + j.cpu.sys_percent
}
