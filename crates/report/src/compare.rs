//! Side-by-side comparison of runs, suites and sweeps: matching jobs or points, each value with
//! its ratio to the first input, and where the inputs' environments differ.

use crate::{Document, JobReport, RunReport};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    /// What each input was called on the command line (an id, a label or a file).
    pub inputs: Vec<String>,
    pub rows: Vec<Row>,
    /// Environment and workload facts that are not the same in every input.
    pub differences: Vec<Difference>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The job, group or sweep point compared.
    pub item: String,
    pub metric: String,
    /// `iops`, `bytes_per_s`, `ns` or `count`.
    pub unit: String,
    pub values: Vec<Option<f64>>,
}

impl Row {
    /// Each value divided by the first input's.
    pub fn ratios(&self) -> Vec<Option<f64>> {
        let base = self.values.first().copied().flatten();
        self.values
            .iter()
            .map(|v| match (v, base) {
                (Some(v), Some(b)) if b > 0.0 => Some(v / b),
                _ => None,
            })
            .collect()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Difference {
    pub what: String,
    pub values: Vec<String>,
    /// A setting of the workload (engine, O_DIRECT) rather than a fact of the machine.
    pub setting: bool,
}

/// The facts that are the workload's settings, not the environment's.
const SETTINGS: [&str; 2] = ["ioengine", "direct"];

/// The comparable units of a document, each with its metrics: a run's reporting groups (or
/// the run as a whole), a suite's or sweep's points, an fsync report's cases, a db report's
/// targets ("tpcb" when it has one, so db results of different directories line up).
type Metrics = Vec<(String, &'static str, f64)>;

fn units(d: &Document) -> Vec<(String, Metrics)> {
    match d {
        Document::Run(r) if r.groups.len() > 1 => r
            .groups
            .iter()
            .map(|g| {
                (
                    r.workload
                        .jobs
                        .get(g.spec_index)
                        .map_or(g.report.name.clone(), |s| s.name.clone()),
                    metrics(&g.report),
                )
            })
            .collect(),
        Document::Run(r) => vec![("all".to_string(), metrics(&r.group))],
        Document::Suite(s) => s
            .runs
            .iter()
            .map(|x| (x.label.clone(), metrics(&x.report.group)))
            .collect(),
        Document::Fsync(f) => f
            .cases
            .iter()
            .filter(|c| c.writes > 0)
            .map(|c| {
                let mut m = vec![
                    ("syncs/s".to_string(), "iops", c.syncs_per_sec),
                    (
                        "MiB/s".to_string(),
                        "bytes_per_s",
                        c.mib_per_sec * 1048576.0,
                    ),
                    (
                        "lat p99".to_string(),
                        "ns",
                        c.lat_ns.percentile(99.0).unwrap_or(0) as f64,
                    ),
                ];
                if c.syncs == 0 {
                    m.remove(0);
                }
                (
                    format!("{} {} x{}", c.method, workload::short_size(c.bs), c.threads),
                    m,
                )
            })
            .collect(),
        Document::Infer(i) => {
            let l = &i.limits;
            let mut m = Vec::new();
            if let Some(v) = l.iops_cap {
                m.push(("IOPS cap".to_string(), "iops", v));
            }
            if let Some(v) = l.bw_cap_bytes {
                m.push(("bw cap".to_string(), "bytes_per_s", v));
            }
            if let Some(v) = l.latency_floor_ns {
                m.push(("lat floor".to_string(), "ns", v));
            }
            vec![("limits".to_string(), m)]
        }
        Document::Db(d) => d
            .runs
            .iter()
            .map(|r| {
                let item = if d.runs.len() == 1 {
                    "tpcb".to_string()
                } else {
                    r.target.clone()
                };
                let m = vec![
                    ("tps".to_string(), "iops", r.tps),
                    ("lat mean".to_string(), "ns", r.latency_ns.mean_ns),
                    (
                        "lat p99".to_string(),
                        "ns",
                        r.latency_ns.percentile(99.0).unwrap_or(0) as f64,
                    ),
                ];
                (item, m)
            })
            .collect(),
        Document::Durability(d) => durability_units(d),
        // A comparison has no figures of its own to compare.
        Document::Compare(_) => Vec::new(),
    }
}

/// The power cuts as counts, and the flush cost measured beside them.
fn durability_units(d: &crate::DurabilityReport) -> Vec<(String, Metrics)> {
    let (n, lossy, checked, lost) = d.totals();
    let mut out = vec![(
        "power cuts".to_string(),
        vec![
            ("cycles judged".to_string(), "count", n as f64),
            ("cycles with loss".to_string(), "count", lossy as f64),
            ("records checked".to_string(), "count", checked as f64),
            ("records lost".to_string(), "count", lost as f64),
        ],
    )];
    if let Some(f) = &d.fsync {
        out.push((
            format!("{} {}", f.method, workload::short_size(f.bs)),
            vec![
                ("syncs/s".to_string(), "iops", f.syncs_per_sec),
                ("lat p99".to_string(), "ns", f.lat_p99_ns as f64),
            ],
        ));
    }
    out
}

fn metrics(j: &JobReport) -> Vec<(String, &'static str, f64)> {
    let mut m = vec![
        ("IOPS".to_string(), "iops", j.total_iops()),
        ("bandwidth".to_string(), "bytes_per_s", j.total_bw_bytes()),
    ];
    for (dir, d) in [("read", &j.read), ("write", &j.write)] {
        if let Some(d) = d {
            m.push((format!("{dir} lat mean"), "ns", d.lat_ns.mean_ns));
            m.push((
                format!("{dir} lat p99"),
                "ns",
                d.lat_ns.percentile(99.0).unwrap_or(0) as f64,
            ));
        }
    }
    if let Some(s) = &j.sync {
        m.push((
            "sync lat p99".to_string(),
            "ns",
            s.lat_ns.percentile(99.0).unwrap_or(0) as f64,
        ));
    }
    m
}

/// Facts worth knowing when two results disagree.
fn facts(r: &RunReport) -> Vec<(&'static str, String)> {
    let e = &r.environment;
    let t = e.targets.first();
    let d = t.and_then(|t| t.device.as_ref());
    let fs = t.and_then(|t| t.filesystem.as_ref());
    let j = r.workload.jobs.first();
    vec![
        ("host", e.hostname.clone()),
        ("kernel", e.kernel.clone()),
        ("cpu", e.cpu_model.clone()),
        (
            "target",
            e.targets
                .iter()
                .map(|t| t.path.clone())
                .collect::<Vec<_>>()
                .join(","),
        ),
        (
            "device",
            d.map_or(String::new(), |d| {
                format!("{} {}", d.name, d.model).trim().to_string()
            }),
        ),
        (
            "filesystem",
            fs.map_or(String::new(), |f| {
                format!("{} ({})", f.fs_type, f.mount_options)
            }),
        ),
        (
            "scheduler",
            d.map_or(String::new(), |d| d.scheduler.clone()),
        ),
        (
            "write cache",
            d.map_or(String::new(), |d| d.write_cache.clone()),
        ),
        (
            "ioengine",
            j.map_or(String::new(), |j| j.ioengine.as_str().to_string()),
        ),
        (
            "direct",
            j.map_or(String::new(), |j| u8::from(j.direct).to_string()),
        ),
    ]
}

pub fn compare(inputs: &[(String, Document)]) -> Comparison {
    let mut rows: Vec<Row> = Vec::new();
    let n = inputs.len();
    for (i, (_, doc)) in inputs.iter().enumerate() {
        for (item, ms) in units(doc) {
            for (metric, unit, v) in ms {
                match rows
                    .iter_mut()
                    .find(|r| r.item == item && r.metric == metric)
                {
                    Some(r) => r.values[i] = Some(v),
                    None => {
                        let mut values = vec![None; n];
                        values[i] = Some(v);
                        rows.push(Row {
                            item: item.clone(),
                            metric,
                            unit: unit.to_string(),
                            values,
                        });
                    }
                }
            }
        }
    }
    let all: Vec<Vec<(&str, String)>> = inputs
        .iter()
        .map(|(_, d)| d.first_run().map(facts).unwrap_or_default())
        .collect();
    let mut differences = Vec::new();
    if let Some(first) = all.first() {
        for (k, (what, _)) in first.iter().enumerate() {
            let values: Vec<String> = all
                .iter()
                .map(|f| f.get(k).map(|x| x.1.clone()).unwrap_or_default())
                .collect();
            if values.iter().any(|v| *v != values[0]) {
                differences.push(Difference {
                    what: what.to_string(),
                    values,
                    setting: SETTINGS.contains(what),
                });
            }
        }
    }
    Comparison {
        inputs: inputs.iter().map(|(n, _)| n.clone()).collect(),
        rows,
        differences,
    }
}
