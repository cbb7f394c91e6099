//! fio-compatible JSON: the report mapped onto the shape of fio 3.x's `--output-format=json`,
//! so fio-plot, dashboards and scripts that read fio's JSON read volbench's.
//!
//! Units follow fio: `bw` in KiB/s, `runtime` in ms, latencies in ns, percentiles keyed
//! "99.000000". Fields volbench does not measure (`iodepth_submit`, `iodepth_complete`, `majf`)
//! are written as fio writes them for a job that did none of it: zeros.

use super::Exporter;
use report::{DirReport, JobReport, RunReport, SuiteReport};
use serde_json::{json, Map, Value};
use stats::{LatHist, LatencySummary};

/// `plus`: fio's `json+`, which adds each latency's histogram bins.
pub struct FioJson {
    pub plus: bool,
}

/// How a job's latencies are printed: which of clat, lat and slat carry percentiles (fio's
/// `clat_percentiles`, `lat_percentiles`, `slat_percentiles`), which percentiles (a job's
/// `percentile_list`), and whether with json+'s bins.
#[derive(Clone, Copy)]
struct Shape<'a> {
    pct: [bool; 3],
    only: Option<&'a [f64]>,
    plus: bool,
}

/// The fio version this output imitates; consumers branch on the major version only.
pub const FIO_VERSION: &str = "fio-3.33";

fn lat(s: &LatencySummary) -> Value {
    let none = Shape {
        pct: [false; 3],
        only: None,
        plus: false,
    };
    lat_listed(s, false, none)
}

/// With `sh.only`, just those percentiles, as fio prints them; with json+, where fio prints
/// percentiles it prints the bins too.
fn lat_listed(s: &LatencySummary, with_percentiles: bool, sh: Shape) -> Value {
    let mut m = Map::new();
    m.insert("min".into(), json!(s.min_ns));
    m.insert("max".into(), json!(s.max_ns));
    m.insert("mean".into(), json!(s.mean_ns));
    m.insert("stddev".into(), json!(s.stdev_ns));
    m.insert("N".into(), json!(s.n));
    if with_percentiles && s.n > 0 {
        let p: Map<String, Value> = s
            .percentiles
            .iter()
            .filter(|x| sh.only.is_none_or(|o| o.contains(&x.p)))
            .map(|x| (format!("{:.6}", x.p), json!(x.ns)))
            .collect();
        m.insert("percentile".into(), Value::Object(p));
        if let Some(h) = s
            .hdr
            .as_deref()
            .and_then(LatHist::decode)
            .filter(|_| sh.plus)
        {
            let bins: Map<String, Value> = h
                .fio_bins()
                .into_iter()
                .map(|(ns, n)| (ns.to_string(), json!(n)))
                .collect();
            m.insert("bins".into(), Value::Object(bins));
        }
    }
    Value::Object(m)
}

/// The summary of no samples (all zeros), for directions and syncs a job did not do.
fn empty_lat() -> LatencySummary {
    LatHist::new().summary()
}

/// One direction as fio counts it: over its own runtime where fio has one (a write job's
/// writes end where its verify backlog's read-back starts), and the closing verify's reads
/// (`verify`) added to the reads, their time to the reads' time, as fio's do_verify does.
fn fio_dir(
    d: Option<&DirReport>,
    verify: Option<&DirReport>,
    job_ns: u64,
    group_bw: f64,
    sh: Shape,
) -> Value {
    let own = |d: &DirReport| d.runtime_ns.unwrap_or(job_ns);
    let (mut d, ns) = match (d, verify) {
        (None, None) => return dir(None, 0, group_bw, sh),
        (Some(d), None) => (d.clone(), own(d)),
        (None, Some(v)) => (v.clone(), own(v)),
        (Some(d), Some(v)) => (with_reads(d, v), own(d) + own(v)),
    };
    let secs = ns.max(1) as f64 / 1e9;
    (d.iops, d.bw_bytes) = (d.total_ios as f64 / secs, d.io_bytes as f64 / secs);
    dir(Some(&d), ns, group_bw, sh)
}

/// `d` with the reads of `v` added: counts summed, latencies merged from their histograms.
fn with_reads(d: &DirReport, v: &DirReport) -> DirReport {
    let mut out = d.clone();
    out.total_ios += v.total_ios;
    out.io_bytes += v.io_bytes;
    let merged = |a: &LatencySummary, b: &LatencySummary| {
        let (a, b) = (a.hdr.as_deref()?, b.hdr.as_deref()?);
        let mut h = LatHist::decode(a)?;
        h.merge(&LatHist::decode(b)?);
        Some(h.summary())
    };
    if let Some(m) = merged(&d.clat_ns, &v.clat_ns) {
        out.clat_ns = m;
    }
    if let Some(m) = merged(&d.lat_ns, &v.lat_ns) {
        out.lat_ns = m;
    }
    out
}

/// One direction, its latencies printed as `sh` says.
fn dir(d: Option<&DirReport>, runtime_ns: u64, group_bw: f64, sh: Shape) -> Value {
    let runtime_ms = if d.is_some() {
        runtime_ns / 1_000_000
    } else {
        0
    };
    let e = empty_lat();
    let (ios, bytes, iops, bw) = d.map_or((0, 0, 0.0, 0.0), |d| {
        (d.total_ios, d.io_bytes, d.iops, d.bw_bytes)
    });
    let slat = d.and_then(|d| d.slat_ns.as_ref()).unwrap_or(&e);
    let clat = d.map_or(&e, |d| &d.clat_ns);
    let total = d.map_or(&e, |d| &d.lat_ns);
    let bws = d.map(|d| d.bw_bytes_per_sec).unwrap_or_default();
    let iopss = d.map(|d| d.iops_per_sec).unwrap_or_default();
    let mut v = json!({
        "io_bytes": bytes,
        "io_kbytes": bytes / 1024,
        "bw_bytes": bw.round() as u64,
        "bw": (bw / 1024.0).round() as u64,
        "iops": iops,
        "runtime": runtime_ms,
        "total_ios": ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": lat_listed(slat, sh.pct[2], sh),
        "clat_ns": lat_listed(clat, sh.pct[0], sh),
        "lat_ns": lat_listed(total, sh.pct[1], sh),
        "bw_min": (bws.min / 1024.0).round() as u64,
        "bw_max": (bws.max / 1024.0).round() as u64,
        "bw_agg": if group_bw > 0.0 { 100.0 * bw / group_bw } else { 0.0 },
        "bw_mean": bws.mean / 1024.0,
        "bw_dev": bws.stdev / 1024.0,
        "bw_samples": bws.samples,
        "iops_min": iopss.min.round() as u64,
        "iops_max": iopss.max.round() as u64,
        "iops_mean": iopss.mean,
        "iops_stddev": iopss.stdev,
        "iops_samples": iopss.samples,
    });
    // volbench's own: latency from when a rate-capped I/O was due, in fio's latency shape
    // (fio has no such figure; its lat_ns starts at submission).
    if let Some(due) = d.and_then(|d| d.lat_due_ns.as_ref()) {
        v["lat_due_ns"] = lat_listed(due, true, sh);
    }
    v
}

/// fio's latency buckets: the share of I/Os whose total latency falls at or below each edge
/// (and above the previous one), from the merged histogram of both directions.
fn latency_buckets(j: &JobReport) -> (Value, Value, Value) {
    let mut h = LatHist::new();
    for d in [&j.read, &j.write].into_iter().flatten() {
        if let Some(x) = d.lat_ns.hdr.as_deref().and_then(LatHist::decode) {
            h.merge(&x);
        }
    }
    let n = h.count().max(1) as f64;
    let edges = [2u64, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    let mut prev = 0u64;
    let mut bucket = |scale: u64, labels: &[(String, u64)]| -> Value {
        let mut m = Map::new();
        for (label, edge) in labels {
            let upto = h.count_at_or_below(*edge * scale);
            m.insert(
                label.clone(),
                json!(100.0 * (upto - prev.min(upto)) as f64 / n),
            );
            prev = upto.max(prev);
        }
        Value::Object(m)
    };
    let std_labels: Vec<(String, u64)> = edges.iter().map(|e| (e.to_string(), *e)).collect();
    let ns = bucket(1, &std_labels);
    let us = bucket(1_000, &std_labels);
    let mut ms_labels = std_labels.clone();
    ms_labels.push(("2000".into(), 2000));
    let mut ms = bucket(1_000_000, &ms_labels);
    let rest = h.count().saturating_sub(prev);
    ms.as_object_mut()
        .unwrap()
        .insert(">=2000".into(), json!(100.0 * rest as f64 / n));
    (ns, us, ms)
}

/// The buckets of fio's iodepth_submit and iodepth_complete, which volbench writes as zeros
/// (it does not count submit and complete batches).
const DEPTHS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

fn job(r: &RunReport, j: &JobReport, spec_idx: usize, group_bw: f64, plus: bool) -> Value {
    let spec = r.workload.jobs.get(spec_idx);
    let sh = Shape {
        pct: spec.map_or([true, false, false], |s| s.reporting.percentiles_for),
        only: spec.and_then(|s| s.reporting.percentile_list.as_deref()),
        plus,
    };
    let levels = depth_levels(j);
    let zeros = Value::Object(DEPTHS.iter().map(|k| (k.to_string(), json!(0.0))).collect());
    let (ns, us, ms) = latency_buckets(j);
    let sync = match &j.sync {
        // fio prints a sync's percentiles from the job's percentile_list too.
        Some(s) => json!({"total_ios": s.total_ios, "lat_ns": lat_listed(&s.lat_ns, true, sh)}),
        None => json!({"total_ios": 0, "lat_ns": lat(&empty_lat())}),
    };
    let error = j.error.as_deref().map_or(0, errno_of);
    let mut v = json!({
        "jobname": spec.map_or(j.name.as_str(), |s| s.name.as_str()),
        "groupid": j.groupid,
        "error": error,
        "eta": 0,
        "elapsed": (j.runtime_ns as f64 / 1e9).ceil() as u64,
        // fio 3.35's: when the job started, in ms since the epoch.
        "job_start": r.started_unix * 1000 + j.series.start_ms,
        "job options": spec.map(report::fio_options).unwrap_or_default(),
        "read": fio_dir(j.read.as_ref(), j.verify.as_ref(), j.runtime_ns, group_bw, sh),
        "write": fio_dir(j.write.as_ref(), None, j.runtime_ns, group_bw, sh),
        "trim": fio_dir(j.trim.as_ref(), None, j.runtime_ns, group_bw, sh),
        "sync": sync,
        "job_runtime": j.runtime_ns / 1_000_000,
        "usr_cpu": j.cpu.usr_percent,
        "sys_cpu": j.cpu.sys_percent,
        "ctx": j.cpu.ctx_switches,
        "majf": 0,
        "minf": 0,
        "iodepth_level": levels,
        "iodepth_submit": zeros.clone(),
        "iodepth_complete": zeros,
        "latency_ns": ns,
        "latency_us": us,
        "latency_ms": ms,
        "latency_depth": spec.map_or(1, |s| s.effective_iodepth()),
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
    });
    if let Some(d) = spec.and_then(|s| s.description.as_deref()) {
        v["desc"] = json!(d);
    }
    if spec.is_some_and(|s| s.errors.continue_on_error != 0) {
        errors_into(&mut v, j);
    }
    if let Some(ss) = &j.steadystate {
        v["steadystate"] = steady_block(ss);
    }
    if let Some(t) = &j.lat_target {
        lat_target_into(&mut v, t);
    }
    v
}

/// fio's iodepth levels: the share of the time at each depth, 64 and over as one.
fn depth_levels(j: &JobReport) -> Map<String, Value> {
    let key = |d: u32| match d {
        64 => ">=64".to_string(),
        d => d.to_string(),
    };
    let levels = j.iodepth.levels.iter();
    levels.map(|l| (key(l.depth), json!(l.percent))).collect()
}

/// fio's error counts, which it adds with continue_on_error (zero when nothing failed); its
/// total_ios counts the failed I/Os too (its bytes and latencies do not).
fn errors_into(v: &mut Value, j: &JobReport) {
    let e = j.errors.clone().unwrap_or_default();
    v["total_err"] = json!(e.total);
    v["first_error"] = json!(e.first);
    for (k, n) in ["read", "write"].into_iter().zip(e.per_dir) {
        if let Some(t) = v[k]["total_ios"].as_u64() {
            v[k]["total_ios"] = json!(t + n);
        }
    }
}

/// fio's fields for its latency-target search: the target in ns, the window in µs.
fn lat_target_into(v: &mut Value, t: &report::LatTargetReport) {
    v["latency_depth"] = json!(t.depth);
    v["latency_target"] = json!(t.target_ns);
    v["latency_target_ns"] = json!(t.target_ns);
    v["latency_percentile"] = json!(t.percentile);
    v["latency_window"] = json!(t.window_ns / 1000);
    v["latency_window_us"] = json!(t.window_ns / 1000);
}

/// fio's `steadystate` block: the criterion as fio spells it, the window in seconds, whether
/// it was attained, the last window's criterion, deviation and slope, and its samples.
fn steady_block(ss: &report::SteadyReport) -> Value {
    let c = &ss.criterion;
    let mean = |v: &[u64]| v.iter().sum::<u64>() / (v.len().max(1) as u64);
    let mut data = json!({
        "bw_mean": mean(&ss.bw),
        "iops_mean": mean(&ss.iops),
        "iops": ss.iops,
        "bw": ss.bw,
    });
    if c.metric == workload::steady::Metric::Lat {
        data["lat_mean"] = json!(mean(&ss.lat_ns));
        data["lat_ns"] = json!(ss.lat_ns);
    }
    json!({
        "ss": c.to_string(),
        "duration": ss.duration_ns / 1_000_000_000,
        "attained": ss.attained as u8,
        "criterion": format!("{:.6}{}", ss.judged.criterion, if c.percent { "%" } else { "" }),
        "max_deviation": ss.judged.max_deviation,
        "slope": ss.judged.slope,
        "data": data,
    })
}

/// fio's `error` is an errno; volbench keeps the message, which names the errno's text.
fn errno_of(msg: &str) -> i32 {
    // The digits after the last "os error", wherever the message goes on after them.
    msg.rsplit("os error ")
        .next()
        .filter(|_| msg.contains("os error"))
        .map(|s| {
            s.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .and_then(|d| d.parse().ok())
        .unwrap_or(1)
}

fn disk_util(r: &RunReport) -> Value {
    let secs_ms = (r.group.runtime_ns / 1_000_000).max(1);
    Value::Array(
        r.environment
            .targets
            .iter()
            .filter_map(|t| {
                let (k, d) = (t.kernel_counters.as_ref()?, t.device.as_ref()?);
                Some(json!({
                    "name": d.partition.as_deref().unwrap_or(&d.name),
                    "read_ios": k.read_ios,
                    "write_ios": k.write_ios,
                    "read_merges": k.read_merges,
                    "write_merges": k.write_merges,
                    "read_ticks": k.read_ticks_ms,
                    "write_ticks": k.write_ticks_ms,
                    "in_queue": k.time_in_queue_ms,
                    "util": (100.0 * k.io_ticks_ms as f64 / secs_ms as f64).min(100.0),
                }))
            })
            .collect(),
    )
}

/// What fio's readers do not look at: who wrote the file and, for a repeated run (whose
/// figures above are the runs' means), the spread of every figure.
fn volbench_key(r: &RunReport) -> Value {
    let mut v = json!({ "version": env!("CARGO_PKG_VERSION") });
    if let Some(rep) = &r.repeats {
        v["repeats"] = json!({
            "n": rep.n,
            "stats": rep.stats,
            "until_stable": rep.until_stable,
        });
    }
    v
}

/// The document fio writes for jobs that failed before any I/O (fio 3.33 with an engine that
/// cannot start: each job with its errno, every figure zero), for jobs volbench refused or
/// could not start, so a harness that reads fio's JSON finds the jobs and their error rather
/// than nothing. `why` is volbench's one line, under its own key.
pub fn failed(names: &[&str], why: &str, started_unix: u64, started_at: &str) -> Value {
    let sh = Shape {
        pct: [true, false, false],
        only: None,
        plus: false,
    };
    // EINVAL, fio's errno for a job it cannot set up, unless the OS named another.
    let errno = if why.contains("os error") {
        errno_of(why)
    } else {
        22
    };
    let jobs: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({
                "jobname": name,
                "groupid": 0,
                "error": errno,
                "eta": 0,
                "elapsed": 0,
                "job options": {},
                "read": dir(None, 0, 0.0, sh),
                "write": dir(None, 0, 0.0, sh),
                "trim": dir(None, 0, 0.0, sh),
                "job_runtime": 0,
                "usr_cpu": 0.0,
                "sys_cpu": 0.0,
                "ctx": 0,
                "majf": 0,
                "minf": 0,
            })
        })
        .collect();
    json!({
        "fio version": FIO_VERSION,
        "volbench": { "version": env!("CARGO_PKG_VERSION"), "error": why },
        "timestamp": started_unix,
        "timestamp_ms": started_unix * 1000,
        "time": started_at,
        "global options": {},
        "jobs": jobs,
        "disk_util": [],
    })
}

/// The whole fio document for one run; `plus`: fio's json+.
pub fn document(r: &RunReport, plus: bool) -> Value {
    let secs = r.started_unix;
    // fio walks the jobs in order: a job with group_reporting joins the entry of its group,
    // any other job gets its own entry.
    let mut jobs: Vec<Value> = Vec::new();
    let mut emitted_groups = Vec::new();
    for j in &r.jobs {
        let group = r.groups.iter().find(|g| g.report.groupid == j.groupid);
        let gbw = group.map_or(0.0, |g| g.report.total_bw_bytes());
        let grouped = r
            .workload
            .jobs
            .get(j.spec_index)
            .is_some_and(|s| s.reporting.group_reporting);
        match group {
            Some(g) if grouped => {
                if !emitted_groups.contains(&j.groupid) {
                    emitted_groups.push(j.groupid);
                    let members: Vec<&JobReport> = r
                        .jobs
                        .iter()
                        .filter(|x| {
                            x.groupid == j.groupid
                                && r.workload
                                    .jobs
                                    .get(x.spec_index)
                                    .is_some_and(|s| s.reporting.group_reporting)
                        })
                        .collect();
                    // The group entry stands for the grouped jobs only.
                    let report = if members.len()
                        == r.jobs.iter().filter(|x| x.groupid == j.groupid).count()
                    {
                        g.report.clone()
                    } else {
                        j.clone()
                    };
                    jobs.push(job(r, &report, j.spec_index, gbw, plus));
                }
            }
            _ => jobs.push(job(r, j, j.spec_index, gbw, plus)),
        }
    }
    json!({
        "fio version": FIO_VERSION,
        // Who wrote it, where fio's readers do not look (they branch on "fio version").
        "volbench": volbench_key(r),
        "timestamp": secs,
        "timestamp_ms": secs * 1000,
        "time": r.started_at,
        "global options": r
            .global_options
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect::<Map<String, Value>>(),
        "jobs": jobs,
        "disk_util": disk_util(r),
    })
}

impl Exporter for FioJson {
    fn export(&self, r: &RunReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(&document(r, self.plus))?;
        v.push(b'\n');
        Ok(v)
    }

    /// A suite as fio would report running its job files one after another: one document with
    /// every run's jobs, each run its own group.
    fn export_suite(&self, s: &SuiteReport) -> anyhow::Result<Vec<u8>> {
        let mut jobs = Vec::new();
        let mut first = None;
        for (gid, run) in s.runs.iter().enumerate() {
            let mut d = document(&run.report, self.plus);
            for mut j in d["jobs"]
                .as_array_mut()
                .map(std::mem::take)
                .unwrap_or_default()
            {
                j["groupid"] = json!(gid);
                jobs.push(j);
            }
            first.get_or_insert(d);
        }
        let mut d = first.unwrap_or_else(|| json!({"fio version": FIO_VERSION}));
        d["jobs"] = Value::Array(jobs);
        let mut v = serde_json::to_vec_pretty(&d)?;
        v.push(b'\n');
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::errno_of;

    #[test]
    fn errno_from_message() {
        assert_eq!(errno_of("write failed: Input/output error (os error 5)"), 5);
        assert_eq!(errno_of("verify failed: checksum mismatch"), 1);
        assert_eq!(
            errno_of("a read took 22 ms: Connection timed out (os error 110), as fio does"),
            110
        );
    }
}
