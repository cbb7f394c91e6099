//! What a stored document measured, as the cloud commands read it: its tests (a run's
//! reporting groups, a sweep's or suite's runs), each test's rates, and a burst in its own
//! per-second series. `check` sets these against a model; `infer` reads limits off them.

use crate::step;
use report::{Document, JobReport, RunReport};
use workload::JobSpec;

/// One test as measured, with what the verdict needs to know about how it was run.
#[derive(Clone, Debug)]
pub struct Measured {
    pub test: String,
    pub spec: JobSpec,
    pub report: JobReport,
    /// The cloud machine it ran on (from DMI) and its vCPUs: the instance's own cap.
    pub machine: Option<report::machine::Machine>,
    pub cpus: u32,
}

/// Every test of a document: a run's reporting groups, a sweep's or suite's runs.
pub fn measured(doc: &Document) -> Vec<Measured> {
    match doc {
        Document::Run(r) => from_run(r, None),
        // A curve's maximum is its one test at full load; its points run below it on purpose.
        Document::Suite(s) => s
            .runs
            .iter()
            .enumerate()
            .filter(|(i, _)| s.curve.as_ref().is_none_or(|c| c.max.run == *i))
            .flat_map(|(_, x)| from_run(&x.report, Some(&x.label)))
            .collect(),
        _ => Vec::new(),
    }
}

fn from_run(r: &RunReport, label: Option<&str>) -> Vec<Measured> {
    r.groups
        .iter()
        .filter_map(|g| {
            let spec = r.workload.jobs.get(g.spec_index)?.clone();
            let test = match (label, r.groups.len()) {
                (Some(l), 1) => l.to_string(),
                (Some(l), _) => format!("{l} / {}", g.report.name),
                (None, _) => g.report.name.clone(),
            };
            Some(Measured {
                test,
                spec,
                report: g.report.clone(),
                machine: r.environment.machine.clone(),
                cpus: r.environment.cpus,
            })
        })
        .collect()
}

/// A burst in a run's own per-second series.
pub fn series_step(r: &JobReport) -> Option<step::Step> {
    let s = &r.series;
    let dt = s.interval_ms.max(1) as f64 / 1000.0;
    let rates: Vec<f64> = s
        .samples
        .iter()
        .filter(|x| x.dt_ms * 2 >= s.interval_ms)
        .map(|x| x.iops(0) + x.iops(1))
        .collect();
    step::find(&rates, dt)
}

/// IOPS and bytes/s of both directions together, and their mean latency (count-weighted).
/// The median latency of the direction that did more I/Os (0 where none was kept).
pub fn median_ns(g: &JobReport) -> f64 {
    [&g.read, &g.write]
        .into_iter()
        .flatten()
        .max_by_key(|d| d.lat_ns.n)
        .and_then(|d| d.lat_ns.percentile(50.0))
        .unwrap_or(0) as f64
}

pub fn rates(g: &JobReport) -> (f64, f64, f64) {
    let mut iops = 0.0;
    let mut bw = 0.0;
    let mut lat = 0.0;
    let mut n = 0u64;
    for d in [&g.read, &g.write].into_iter().flatten() {
        iops += d.iops;
        bw += d.bw_bytes;
        lat += d.lat_ns.mean_ns * d.lat_ns.n as f64;
        n += d.lat_ns.n;
    }
    (iops, bw, if n > 0 { lat / n as f64 } else { 0.0 })
}
