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
    /// Each input against the first: whether the difference is beyond the runs' noise
    /// (`significant`, `not_significant`, or `unknown` with fewer than 3 runs on a side).
    /// None for the first input, and where a value is missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub significance: Vec<Option<Significance>>,
    /// Each input's value in every repeated run (`--repeat`), and its per-second spread
    /// (IOPS and bandwidth): what the verdicts are judged on.
    #[serde(skip)]
    pub evidence: Vec<Evidence>,
}

/// What one input holds of a figure beside its value.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    pub runs: Vec<f64>,
    /// The standard deviation of its per-second samples, where it has them.
    pub per_second_sd: Option<f64>,
}

/// A difference judged: Welch's t-test on the runs (stats::spread), or for a side with fewer
/// than 3 runs, a weak hint from the per-second spread.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Significance {
    pub verdict: stats::Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_ci95: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// The runs on each side (the first input's, this one's).
    pub runs: [usize; 2],
    /// With `unknown`: whether the difference is within or beyond the results' own
    /// per-second spread, and that --repeat gives the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Judges input `i`'s value against the first input's.
fn judge(base: (&Option<f64>, &Evidence), this: (&Option<f64>, &Evidence)) -> Option<Significance> {
    let (Some(a), Some(b)) = (base.0, this.0) else {
        return None;
    };
    let (ea, eb) = (base.1, this.1);
    let w = stats::welch(&ea.runs, &eb.runs);
    let runs = [ea.runs.len().max(1), eb.runs.len().max(1)];
    let hint = (w.verdict == stats::Verdict::Unknown).then(|| {
        let spread = match (ea.per_second_sd, eb.per_second_sd) {
            (Some(x), Some(y)) => Some((x * x + y * y).sqrt()),
            _ => None,
        };
        let again = "--repeat 5 on both gives the answer";
        match spread {
            Some(sd) if (b - a).abs() > 2.0 * sd => format!(
                "beyond the per-second spread of both runs (a weak hint: seconds of one run are not independent runs); {again}"
            ),
            Some(_) => format!("within the per-second spread of both runs; {again}"),
            None => format!("fewer than {} runs on a side; {again}", stats::spread::MIN_RUNS),
        }
    });
    Some(Significance {
        verdict: w.verdict,
        ratio_ci95: w.ratio_ci95,
        p_value: w.p_value,
        runs,
        hint,
    })
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
const SETTINGS: [&str; 3] = ["ioengine", "direct", "data"];

/// The comparable units of a document, each with its metrics: a run's reporting groups (or
/// the run as a whole), a suite's or sweep's points, an fsync report's cases, a db report's
/// targets ("tpcb" when it has one, so db results of different directories line up).
type Metrics = Vec<(String, &'static str, f64, Evidence)>;

/// A metric with nothing beside its value (one run, no per-second samples).
fn bare(m: Vec<(String, &'static str, f64)>) -> Metrics {
    m.into_iter()
        .map(|(a, b, c)| (a, b, c, Evidence::default()))
        .collect()
}

/// A repeated run's (or point's) own runs, one job report each: `pick` takes the unit's
/// report out of each run.
fn reps<'a>(
    r: &'a RunReport,
    pick: &dyn Fn(&'a RunReport) -> Option<&'a JobReport>,
) -> Vec<&'a JobReport> {
    r.repeats
        .iter()
        .flat_map(|rep| rep.runs.iter())
        .filter_map(pick)
        .collect()
}

fn units(d: &Document) -> Vec<(String, Metrics)> {
    match d {
        Document::Run(r) => run_units(r),
        Document::Suite(s) => s
            .curve
            .iter()
            .map(|c| ("curve answers".to_string(), curve_answers(c)))
            .chain(s.runs.iter().map(|x| {
                let runs = reps(&x.report, &|run| Some(&run.group));
                (x.label.clone(), metrics(&x.report.group, &runs))
            }))
            .collect(),
        Document::Fsync(f) => f
            .cases
            .iter()
            .filter(|c| c.writes > 0)
            .map(fsync_unit)
            .collect(),
        Document::Infer(i) => {
            let l = &i.limits;
            let m = [
                ("IOPS cap", "iops", l.iops_cap),
                ("bw cap", "bytes_per_s", l.bw_cap_bytes),
                ("lat floor", "ns", l.latency_floor_ns),
            ];
            let m = m
                .into_iter()
                .filter_map(|(n, u, v)| Some((n.to_string(), u, v?)));
            vec![("limits".to_string(), bare(m.collect()))]
        }
        Document::Db(d) => d
            .runs
            .iter()
            .map(|r| db_unit(r, d.runs.len() == 1))
            .collect(),
        Document::Durability(d) => durability_units(d),
        // A comparison has no figures of its own to compare.
        Document::Compare(_) => Vec::new(),
    }
}

/// A run's units: each reporting group where it has several, else the whole run.
fn run_units(r: &RunReport) -> Vec<(String, Metrics)> {
    if r.groups.len() <= 1 {
        let m = metrics(&r.group, &reps(r, &|run| Some(&run.group)));
        return vec![("all".to_string(), m)];
    }
    let unit = |(i, g): (usize, &crate::GroupReport)| {
        let name = r.workload.jobs.get(g.spec_index);
        let name = name.map_or(g.report.name.clone(), |s| s.name.clone());
        let runs = reps(r, &|run| run.groups.get(i).map(|g| &g.report));
        (name, metrics(&g.report, &runs))
    };
    r.groups.iter().enumerate().map(unit).collect()
}

/// An fsync case measured: its syncs per second (where it syncs), bandwidth and p99.
fn fsync_unit(c: &crate::FsyncCase) -> (String, Metrics) {
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
    let name = format!("{} {} x{}", c.method, workload::short_size(c.bs), c.threads);
    (name, bare(m))
}

/// A db run: its TPS and latency, named by its target where there are several.
fn db_unit(r: &crate::DbRun, only: bool) -> (String, Metrics) {
    let item = if only {
        "tpcb".to_string()
    } else {
        r.target.clone()
    };
    let m = bare(vec![
        ("tps".to_string(), "iops", r.tps),
        ("lat mean".to_string(), "ns", r.latency_ns.mean_ns),
        (
            "lat p99".to_string(),
            "ns",
            r.latency_ns.percentile(99.0).unwrap_or(0) as f64,
        ),
    ]);
    (item, m)
}

/// What a curve answers, compared first: its maximum, its knee, each SLO's answer (IOPS).
fn curve_answers(c: &crate::curve::CurveReport) -> Metrics {
    let mut m = vec![("maximum IOPS".to_string(), "iops", c.max.iops)];
    if let Some(k) = c.knee {
        m.push(("knee IOPS".to_string(), "iops", k.achieved_iops));
    }
    for a in &c.slo {
        let slo = crate::curve::Slo {
            percentile: a.percentile,
            limit_ns: a.limit_ns,
        };
        m.push((
            format!("SLO {} IOPS", slo.name()),
            "iops",
            a.slo_iops.unwrap_or(0.0),
        ));
    }
    bare(m)
}

/// The power cuts as counts, and the flush cost measured beside them.
fn durability_units(d: &crate::DurabilityReport) -> Vec<(String, Metrics)> {
    let (n, lossy, checked, lost) = d.totals();
    let mut out = vec![(
        "power cuts".to_string(),
        bare(vec![
            ("cycles judged".to_string(), "count", n as f64),
            ("cycles with loss".to_string(), "count", lossy as f64),
            ("records checked".to_string(), "count", checked as f64),
            ("records lost".to_string(), "count", lost as f64),
        ]),
    )];
    if let Some(f) = &d.fsync {
        out.push((
            format!("{} {}", f.method, workload::short_size(f.bs)),
            bare(vec![
                ("syncs/s".to_string(), "iops", f.syncs_per_sec),
                ("lat p99".to_string(), "ns", f.lat_p99_ns as f64),
            ]),
        ));
    }
    out
}

/// A unit's figures; with `runs` (a repeated result's own runs), each figure's value in every
/// run beside it, and the per-second spread of its rates.
/// How a figure is read from a job's report, where the report has it.
type Get = Box<dyn Fn(&JobReport) -> Option<f64>>;

fn metrics(j: &JobReport, runs: &[&JobReport]) -> Metrics {
    let mut defs: Vec<(String, &'static str, Get)> = vec![
        (
            "IOPS".into(),
            "iops",
            Box::new(|j: &JobReport| Some(j.total_iops())),
        ),
        (
            "bandwidth".into(),
            "bytes_per_s",
            Box::new(|j: &JobReport| Some(j.total_bw_bytes())),
        ),
    ];
    defs.extend(direction_defs(j, "read", |j| j.read.as_ref()));
    defs.extend(direction_defs(j, "write", |j| j.write.as_ref()));
    if j.sync.is_some() {
        let p99 = |j: &JobReport| {
            let s = j.sync.as_ref()?;
            Some(s.lat_ns.percentile(99.0).unwrap_or(0) as f64)
        };
        defs.push(("sync lat p99".into(), "ns", Box::new(p99)));
    }
    defs.into_iter()
        .filter_map(|(name, unit, get)| {
            let v = get(j)?;
            let per_second_sd = per_second_sd(j, unit);
            let runs = runs.iter().filter_map(|r| get(r)).collect();
            Some((
                name,
                unit,
                v,
                Evidence {
                    runs,
                    per_second_sd,
                },
            ))
        })
        .collect()
}

/// A direction's figures, where the job has the direction: its latency's mean and p99, led
/// (where it is rate-capped) by its latency from the due time, the figure a curve's point and
/// a paced run are judged by (the wait before issue included).
fn direction_defs(
    j: &JobReport,
    dir: &str,
    pick: fn(&JobReport) -> Option<&crate::DirReport>,
) -> Vec<(String, &'static str, Get)> {
    let Some(d) = pick(j) else { return Vec::new() };
    let mut defs: Vec<(String, &'static str, Get)> = Vec::new();
    if d.lat_due_ns.is_some() {
        let due = move |j: &JobReport| {
            let due = pick(j)?.lat_due_ns.as_ref()?;
            Some(due.percentile(99.0).unwrap_or(0) as f64)
        };
        defs.push((format!("{dir} due p99"), "ns", Box::new(due)));
    }
    let mean = move |j: &JobReport| pick(j).map(|d| d.lat_ns.mean_ns);
    let p99 = move |j: &JobReport| pick(j).map(|d| d.lat_ns.percentile(99.0).unwrap_or(0) as f64);
    defs.push((format!("{dir} lat mean"), "ns", Box::new(mean)));
    defs.push((format!("{dir} lat p99"), "ns", Box::new(p99)));
    defs
}

/// The standard deviation of a rate's per-second samples (the directions' added as
/// independent), for IOPS and bandwidth.
fn per_second_sd(j: &JobReport, unit: &str) -> Option<f64> {
    let dirs = [&j.read, &j.write];
    let var: f64 = match unit {
        "iops" => dirs
            .iter()
            .flat_map(|d| d.as_ref())
            .map(|d| d.iops_per_sec.stdev.powi(2))
            .sum(),
        "bytes_per_s" => dirs
            .iter()
            .flat_map(|d| d.as_ref())
            .map(|d| d.bw_bytes_per_sec.stdev.powi(2))
            .sum(),
        _ => return None,
    };
    let samples = dirs
        .iter()
        .flat_map(|d| d.as_ref())
        .map(|d| d.iops_per_sec.samples)
        .max()?;
    (samples >= 2).then(|| var.sqrt())
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
        ("data", crate::run_data_words(r)),
    ]
}

/// A comparable unit of one input and where it pairs: `key` names it among every input
/// (a point by the axes all the compared sweeps vary); `detail` holds the axes only its own
/// sweep varies (a sweep over striped targets against one over a single device).
struct Keyed {
    key: String,
    detail: String,
    metrics: Metrics,
}

/// "k=v k=v", the swept values a point is named by.
fn label(params: &[&(String, String)]) -> String {
    let v: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    v.join(" ")
}

/// A sweep's axes: the parameters that take more than one value over its points (one that
/// takes one, as a sweep's single target, names what differs between the inputs instead).
fn axes(s: &crate::SuiteReport) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (k, _) in s.runs.iter().flat_map(|r| &r.params) {
        let values: Vec<&str> = s.runs.iter().filter_map(|r| r.param(k)).collect();
        if !names.contains(k) && values.iter().any(|v| *v != values[0]) {
            names.push(k.clone());
        }
    }
    names
}

/// With two or more sweeps: the axes every one of them varies, which their points pair on.
fn shared_axes(inputs: &[(String, Document)]) -> Option<Vec<String>> {
    let sweeps: Vec<Vec<String>> = inputs
        .iter()
        .filter_map(|(_, d)| match d {
            Document::Suite(s)
                if !s.runs.is_empty() && s.runs.iter().all(|r| !r.params.is_empty()) =>
            {
                Some(axes(s))
            }
            _ => None,
        })
        .collect();
    let (first, rest) = sweeps.split_first().filter(|_| sweeps.len() >= 2)?;
    Some(
        first
            .iter()
            .filter(|k| rest.iter().all(|o| o.contains(k)))
            .cloned()
            .collect(),
    )
}

fn keyed(d: &Document, shared: Option<&[String]>) -> Vec<Keyed> {
    match (d, shared) {
        (Document::Suite(s), Some(sh)) if s.runs.iter().all(|r| !r.params.is_empty()) => {
            let own = axes(s);
            let answers = s.curve.iter().map(|c| Keyed {
                key: "curve answers".into(),
                detail: String::new(),
                metrics: curve_answers(c),
            });
            answers
                .chain(s.runs.iter().map(|x| {
                    let pick = |f: &dyn Fn(&String) -> bool| {
                        label(&x.params.iter().filter(|(k, _)| f(k)).collect::<Vec<_>>())
                    };
                    Keyed {
                        key: pick(&|k| sh.contains(k)),
                        detail: pick(&|k| own.contains(k) && !sh.contains(k)),
                        metrics: metrics(
                            &x.report.group,
                            &reps(&x.report, &|run| Some(&run.group)),
                        ),
                    }
                }))
                .collect()
        }
        _ => units(d)
            .into_iter()
            .map(|(key, metrics)| Keyed {
                key,
                detail: String::new(),
                metrics,
            })
            .collect(),
    }
}

/// Sets input `i`'s value of `metric` (and what backs it) on the row of (item, metric), made
/// when missing.
fn put(
    rows: &mut Vec<Row>,
    n: usize,
    i: usize,
    item: &str,
    m: &(String, &'static str, f64, Evidence),
) {
    let (metric, unit, v, ev) = m;
    let at = match rows
        .iter()
        .position(|r| r.item == item && r.metric == *metric)
    {
        Some(at) => at,
        None => {
            rows.push(Row {
                item: item.to_string(),
                metric: metric.clone(),
                unit: unit.to_string(),
                values: vec![None; n],
                significance: Vec::new(),
                evidence: vec![Evidence::default(); n],
            });
            rows.len() - 1
        }
    };
    rows[at].values[i] = Some(*v);
    rows[at].evidence[i] = ev.clone();
}

/// Each row's verdicts: every input against the first.
fn judge_rows(rows: &mut [Row]) {
    for r in rows.iter_mut() {
        let base = (&r.values[0], &r.evidence[0]);
        r.significance = std::iter::once(None)
            .chain((1..r.values.len()).map(|i| judge(base, (&r.values[i], &r.evidence[i]))))
            .collect();
    }
}

pub fn compare(inputs: &[(String, Document)]) -> Comparison {
    let n = inputs.len();
    let shared = shared_axes(inputs);
    let all_units: Vec<Vec<Keyed>> = inputs
        .iter()
        .map(|(_, d)| keyed(d, shared.as_deref()))
        .collect();
    // A point of a sweep with fewer axes pairs with every point of the others that shares
    // its key: one device's numjobs=4 beside each striped target's numjobs=4.
    let details = |key: &str| -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for u in all_units.iter().flatten().filter(|u| u.key == key) {
            if !u.detail.is_empty() && !v.contains(&u.detail.as_str()) {
                v.push(&u.detail);
            }
        }
        v
    };
    let mut rows: Vec<Row> = Vec::new();
    for (i, units) in all_units.iter().enumerate() {
        for u in units {
            let targets = match (u.detail.is_empty(), details(&u.key)) {
                (true, d) if !d.is_empty() => d,
                _ => vec![u.detail.as_str()],
            };
            for t in targets {
                let item = [u.key.as_str(), t]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                u.metrics
                    .iter()
                    .for_each(|m| put(&mut rows, n, i, &item, m));
            }
        }
    }
    judge_rows(&mut rows);
    Comparison {
        inputs: inputs.iter().map(|(n, _)| n.clone()).collect(),
        rows,
        differences: differences(inputs),
    }
}

/// The facts of the inputs' first runs that differ between them (settings marked).
fn differences(inputs: &[(String, Document)]) -> Vec<Difference> {
    let all: Vec<Vec<(&str, String)>> = inputs
        .iter()
        .map(|(_, d)| d.first_run().map(facts).unwrap_or_default())
        .collect();
    let Some(first) = all.first() else {
        return Vec::new();
    };
    let mut differences = Vec::new();
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
    differences
}
