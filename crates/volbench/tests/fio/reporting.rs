//! What is reported: fio-JSON's keys and types, percentiles, fio's logs, and fio's own clients
//! (fio-plot, fio2gnuplot, fio_jsonplus_clat2csv) reading volbench's files.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

#[test]
fn percentile_list_and_lat_percentiles_print_what_fio_prints() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("p.fio");
    std::fs::write(
        &job,
        "[p]\nioengine=null\nrw=randrw\nsize=64m\npercentile_list=50:99.5:99.999\nlat_percentiles=1\n",
    )
    .unwrap();
    let theirs = fio_on(d.path(), &job, &[]);
    let out = volbench()
        .current_dir(d.path())
        .arg("run")
        .arg(&job)
        .args(["--output-format=fio-json", "-q", "--no-store"])
        .output()
        .unwrap();
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = |v: &Value, dir: &str, lat: &str| -> Vec<String> {
        v["jobs"][0][dir][lat]["percentile"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    for dir in ["read", "write"] {
        for lat in ["clat_ns", "lat_ns", "slat_ns"] {
            assert_eq!(
                keys(&ours, dir, lat),
                keys(&theirs, dir, lat),
                "{dir} {lat}"
            );
        }
        assert_eq!(
            keys(&ours, dir, "lat_ns"),
            ["50.000000", "99.500000", "99.999000"]
        );
    }
    // The native report keeps fio's default set too, plus the list.
    let native = vb_json(d.path(), &job, &[]);
    let ps: Vec<f64> = native["group"]["read"]["lat_ns"]["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["p"].as_f64().unwrap())
        .collect();
    assert!(
        ps.contains(&99.5) && ps.contains(&99.999) && ps.contains(&99.9),
        "{ps:?}"
    );
}

#[test]
fn bw_iops_and_lat_logs_are_written_in_fios_format() {
    let _disk = shared_disk();
    let d = tmpdir();
    let (f, v) = (d.path().join("fio"), d.path().join("vb"));
    std::fs::create_dir_all(&f).unwrap();
    std::fs::create_dir_all(&v).unwrap();
    let job = d.path().join("l.fio");
    std::fs::write(
        &job,
        "[l]\nioengine=psync\nrw=randrw\nbs=4k\nsize=8m\nruntime=3\ntime_based\n\
         write_bw_log=b\nwrite_iops_log=i\nwrite_lat_log=l\nlog_avg_msec=1000\n",
    )
    .unwrap();
    fio_on(&f, &job, &[]);
    vb_json(&v, &job, &["--directory=."]);
    let names = |p: &Path| -> Vec<String> {
        files(p)
            .into_iter()
            .map(|x| x.0)
            .filter(|n| n.ends_with(".log"))
            .collect()
    };
    assert_eq!(names(&v), names(&f));
    assert_eq!(
        names(&v),
        [
            "b_bw.1.log",
            "i_iops.1.log",
            "l_clat.1.log",
            "l_lat.1.log",
            "l_slat.1.log"
        ]
    );
    let parse = |p: &Path| -> Vec<[u64; 5]> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Vec<u64> = l.split(", ").map(|x| x.trim().parse().unwrap()).collect();
                v.try_into()
                    .unwrap_or_else(|v: Vec<u64>| panic!("5 fields: {v:?}"))
            })
            .collect()
    };
    for name in names(&v) {
        let (ours, theirs) = (parse(&v.join(&name)), parse(&f.join(&name)));
        for dir in 0..2 {
            let n = |x: &[[u64; 5]]| x.iter().filter(|l| l[2] == dir).count() as i64;
            // One line per second and direction; the tools may differ by the last partial
            // second, which fio writes for some logs and not others.
            assert!(
                (n(&ours) - n(&theirs)).abs() <= 1,
                "{name} dir {dir}: {ours:?} vs {theirs:?}"
            );
        }
        for l in &ours {
            assert_eq!(l[0] % 1000, 0, "{name}: window ends on the second");
            assert!(l[2] <= 1 && l[3] == 0 && l[4] == 0, "{name}: {l:?}");
        }
    }
    // The bandwidth log is the IOPS log times 4 KiB, line by line.
    let (b, i) = (parse(&v.join("b_bw.1.log")), parse(&v.join("i_iops.1.log")));
    for (x, y) in b.iter().zip(&i) {
        assert!(x[1].abs_diff(y[1] * 4) <= 4, "{x:?} vs {y:?}");
    }
    // psync has no submission latency: fio's slat log is empty, and so is volbench's.
    assert!(parse(&v.join("l_slat.1.log")).is_empty());
}

#[test]
fn hist_logs_and_window_maxima_are_written_in_fios_format() {
    let _disk = shared_disk();
    let d = tmpdir();
    let (f, v) = (d.path().join("fio"), d.path().join("vb"));
    std::fs::create_dir_all(&f).unwrap();
    std::fs::create_dir_all(&v).unwrap();
    let job = d.path().join("h.fio");
    std::fs::write(
        &job,
        "[h]\nioengine=libaio\niodepth=4\nrw=randrw\nbs=4k\nsize=8m\nruntime=2\ntime_based\n\
         write_hist_log=h\nlog_hist_msec=500\nwrite_lat_log=l\nlog_avg_msec=500\n\
         log_max_value=1\n[c]\nioengine=psync\nrw=randread\nbs=4k\nsize=4m\nruntime=2\n\
         time_based\nwrite_hist_log=c\nlog_hist_msec=1000\nlog_hist_coarseness=2\n",
    )
    .unwrap();
    fio_on(&f, &job, &[]);
    let ours = vb_json(&v, &job, &["--directory=."]);
    let rows = |p: &Path| -> Vec<Vec<u64>> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| l.split(", ").map(|x| x.trim().parse().unwrap()).collect())
            .collect()
    };
    // The same files; per direction the same lines (window, block size), but for the last:
    // a window is written when a later completion closes it, and fio counts completions
    // after the deadline (it drains the queue) where volbench's window ends there. The same
    // number of bins: 1856, a quarter of that at coarseness 2.
    for (name, width, cols) in [
        ("h_clat_hist.1.log", 500, 1859),
        ("c_clat_hist.2.log", 1000, 467),
    ] {
        let (o, t) = (rows(&v.join(name)), rows(&f.join(name)));
        for dir in 0..2 {
            let lines = |x: &[Vec<u64>]| -> Vec<(u64, u64)> {
                x.iter()
                    .filter(|r| r[1] == dir)
                    .map(|r| ((r[0] + width / 2) / width, r[2]))
                    .collect()
            };
            let (lo, lt) = (lines(&o), lines(&t));
            let common = lo.len().min(lt.len());
            assert!(
                lo.len().abs_diff(lt.len()) <= 1 && lo[..common] == lt[..common],
                "{name} dir {dir}: {lo:?} vs fio {lt:?}"
            );
        }
        assert!(
            !o.is_empty() && o.iter().chain(&t).all(|r| r.len() == cols),
            "{name}"
        );
    }
    // The histograms hold the counted I/Os of every window but the open last one, in bins
    // that agree with the report's completion latencies: the median bin's lower edge is at
    // most the median and within one bin (1/64) below it, give or take the windows' spread.
    let o = rows(&v.join("h_clat_hist.1.log"));
    let job0 = &ours["jobs"][0];
    for (dir, key) in [(0, "read"), (1, "write")] {
        let mut bins = vec![0u64; 1856];
        for r in o.iter().filter(|r| r[1] == dir) {
            for (b, n) in r[3..].iter().enumerate() {
                bins[b] += n;
            }
        }
        let total: u64 = bins.iter().sum();
        let ios = job0[key]["total_ios"].as_u64().unwrap();
        assert!(total <= ios && total * 2 >= ios, "{key}: {total} of {ios}");
        let mut seen = 0;
        let median = bins
            .iter()
            .position(|&n| {
                seen += n;
                seen * 2 >= total
            })
            .unwrap();
        let edge = stats::winlog::plat_value(median) as f64;
        let p50 = job0[key]["clat_ns"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["p"] == 50.0)
            .unwrap()["ns"]
            .as_f64()
            .unwrap();
        assert!(
            (0.5..=2.0).contains(&(p50 / edge)),
            "{key}: median bin {median} starts at {edge} ns, the report's p50 is {p50}"
        );
    }
    // log_max_value=1: each line is a window's largest latency; the largest of them is the
    // job's (every counted I/O falls in a written window), and none is below the job's least.
    for (kind, field) in [("lat", "lat_ns"), ("clat", "clat_ns"), ("slat", "slat_ns")] {
        let name = format!("l_{kind}.1.log");
        let (o, t) = (rows(&v.join(&name)), rows(&f.join(&name)));
        for (dir, key) in [(0, "read"), (1, "write")] {
            // fio may add a line at the end for the I/Os it drains after the deadline.
            let n = |x: &[Vec<u64>]| x.iter().filter(|r| r[2] == dir).count();
            assert!(n(&o).abs_diff(n(&t)) <= 1, "{name}: {o:?} vs {t:?}");
            let vals: Vec<u64> = o.iter().filter(|r| r[2] == dir).map(|r| r[1]).collect();
            let s = &job0[key][field];
            let (min, max) = (s["min_ns"].as_u64().unwrap(), s["max_ns"].as_u64().unwrap());
            assert_eq!(vals.iter().max(), Some(&max), "{name} {key}");
            assert!(vals.iter().all(|&x| x >= min), "{name} {key}");
        }
    }
}

/// Newer fio's `log_window_value=both` (fio 3.33 lacks it; fio's HOWTO gives the form):
/// each latency log line is `msec, mean, max, ddir, 0, 0`, the window's mean never above its
/// maximum, the largest maximum the job's, and every mean within the job's least and largest.
#[test]
fn log_window_value_both_gives_each_windows_mean_and_maximum() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("b.fio");
    std::fs::write(
        &job,
        "[b]\nioengine=libaio\niodepth=4\nrw=randrw\nbs=4k\nsize=8m\nruntime=2\ntime_based\n\
         write_lat_log=l\nlog_avg_msec=500\nlog_window_value=both\n",
    )
    .unwrap();
    let ours = vb_json(d.path(), &job, &[]);
    for (kind, field) in [("lat", "lat_ns"), ("clat", "clat_ns"), ("slat", "slat_ns")] {
        let text = std::fs::read_to_string(d.path().join(format!("l_{kind}.1.log"))).unwrap();
        let rows: Vec<Vec<u64>> = text
            .lines()
            .map(|l| l.split(", ").map(|x| x.parse().unwrap()).collect())
            .collect();
        assert!(
            rows.len() >= 4 && rows.iter().all(|r| r.len() == 6),
            "{kind}: {text}"
        );
        for (dir, key) in [(0, "read"), (1, "write")] {
            let s = &ours["jobs"][0][key][field];
            let (min, max) = (s["min_ns"].as_u64().unwrap(), s["max_ns"].as_u64().unwrap());
            let mine: Vec<&Vec<u64>> = rows.iter().filter(|r| r[3] == dir).collect();
            assert!(mine.iter().all(|r| r[1] <= r[2]), "{kind} {key}: {mine:?}");
            assert!(
                mine.iter().all(|r| r[1] >= min && r[1] <= max),
                "{kind} {key}"
            );
            assert_eq!(mine.iter().map(|r| r[2]).max(), Some(max), "{kind} {key}");
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every key volbench writes exists in fio's output with the same JSON type, recursively.
/// Percentile maps are compared by key set; job options and disk names are free-form.
fn same_shape(ours: &Value, theirs: &Value, path: &str, problems: &mut Vec<String>) {
    if kind(ours) != kind(theirs) {
        problems.push(format!(
            "{path}: volbench {} vs fio {}",
            kind(ours),
            kind(theirs)
        ));
        return;
    }
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            if path.ends_with("job options") || path.ends_with("global options") {
                return;
            }
            // json+'s bins are keyed by latency: the keys are the run's, the values counts.
            if path.ends_with("/bins") {
                if let Some((k, _)) = a
                    .iter()
                    .find(|(k, v)| k.parse::<u64>().is_err() || !v.is_u64())
                {
                    problems.push(format!("{path}/{k}: not a latency bin"));
                }
                return;
            }
            for (k, v) in a {
                // Who wrote the file, where fio's readers do not look (documented); and
                // fio 3.35's job_start, which Debian's fio 3.33 does not write yet.
                if (path.is_empty() && k == "volbench") || k == "job_start" {
                    continue;
                }
                match b.get(k) {
                    Some(w) => same_shape(v, w, &format!("{path}/{k}"), problems),
                    None => problems.push(format!("{path}/{k}: not in fio's output")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if let (Some(x), Some(y)) = (a.first(), b.first()) {
                same_shape(x, y, &format!("{path}[0]"), problems);
            }
        }
        _ => {}
    }
}

/// What the issue lists as volbench's to fill: present in ours, everywhere fio has it.
const CLAIMED: &[&str] = &[
    "/fio version",
    "/timestamp",
    "/global options",
    "/jobs/0/jobname",
    "/jobs/0/groupid",
    "/jobs/0/job options",
    "/jobs/0/usr_cpu",
    "/jobs/0/sys_cpu",
    "/jobs/0/ctx",
    "/jobs/0/iodepth_level",
    "/jobs/0/latency_ns",
    "/jobs/0/latency_us",
    "/jobs/0/latency_ms",
    "/jobs/0/sync/total_ios",
    "/jobs/0/sync/lat_ns",
    "/disk_util",
];

const CLAIMED_DIR: &[&str] = &[
    "io_bytes",
    "io_kbytes",
    "bw_bytes",
    "bw",
    "iops",
    "runtime",
    "total_ios",
    "slat_ns/min",
    "slat_ns/max",
    "slat_ns/mean",
    "slat_ns/stddev",
    "slat_ns/N",
    "clat_ns/percentile/99.000000",
    "clat_ns/N",
    "lat_ns/mean",
    "bw_min",
    "bw_max",
    "bw_agg",
    "bw_mean",
    "bw_dev",
    "iops_min",
    "iops_max",
    "iops_mean",
    "iops_stddev",
];

#[test]
fn fio_json_has_the_keys_and_types_of_real_fio_output() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("contract.fio");
    let file = d.path().join("contract.dat");
    std::fs::write(
        &job,
        format!(
            "[global]\nfilename={}\nsize=8m\ndirect=1\nioengine=libaio\n\n[mixed]\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=4\nfsync=8\nruntime=2\ntime_based\n\
             lat_percentiles=1\npercentile_list=1:50:99:99.5\n",
            file.display()
        ),
    )
    .unwrap();
    let theirs = fio_json(Std::new("fio").args([job.to_str().unwrap()]));
    let ours = volbench_fio_json(&[job.to_str().unwrap()]);
    let mut problems = Vec::new();
    same_shape(&ours, &theirs, "", &mut problems);
    assert!(
        problems.is_empty(),
        "fio-json differs from fio's:\n{}",
        problems.join("\n")
    );
    for p in CLAIMED {
        assert!(ours.pointer(p).is_some(), "volbench lacks {p}");
        assert!(
            theirs.pointer(p).is_some(),
            "fio lacks {p} (test out of date?)"
        );
    }
    for dir in ["read", "write"] {
        for k in CLAIMED_DIR {
            let p = format!("/jobs/0/{dir}/{k}");
            assert!(ours.pointer(&p).is_some(), "volbench lacks {p}");
        }
    }
    // Values that are the same facts in two units must agree.
    let r = &ours["jobs"][0]["read"];
    assert_eq!(
        r["io_kbytes"].as_u64().unwrap(),
        r["io_bytes"].as_u64().unwrap() / 1024
    );
    let bw = r["bw"].as_f64().unwrap();
    assert!((bw - r["bw_bytes"].as_f64().unwrap() / 1024.0).abs() <= 1.0);
    assert!(
        ours["jobs"][0]["sync"]["total_ios"].as_u64().unwrap() > 0,
        "fsync=8 issues syncs"
    );
    assert_eq!(ours["jobs"][0]["jobname"], "mixed");
    // fio 3.35's job_start: the job's start in ms since the epoch, by the document's clock.
    let start = ours["jobs"][0]["job_start"].as_u64().unwrap();
    let stamp = ours["timestamp_ms"].as_u64().unwrap();
    assert!(
        start.abs_diff(stamp) <= 5_000,
        "job_start {start} vs timestamp_ms {stamp}"
    );
    check_latency_buckets(&ours["jobs"][0]);
    assert_eq!(ours["jobs"][0]["job options"]["rw"], "randrw");
    // The percentile options' output: lat_ns gets its percentiles, with the listed keys.
    for t in [&ours, &theirs] {
        let p = &t["jobs"][0]["read"]["lat_ns"]["percentile"];
        assert!(p["99.500000"].is_u64() && p["1.000000"].is_u64(), "{p}");
    }
    // json+: the same document with bins wherever percentiles are printed, as fio's.
    let o = Std::new("fio")
        .args([job.to_str().unwrap(), "--output-format=json+"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let theirs: Value =
        serde_json::from_str(text.find("\n{").map_or(&text[..], |i| &text[i + 1..]))
            .unwrap_or_else(|e| panic!("fio's json+: {e}: {text}"));
    let out = volbench()
        .args(["run", job.to_str().unwrap(), "--output-format=json+", "-q"])
        .output()
        .unwrap();
    succeeded(&out, "");
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut problems = Vec::new();
    same_shape(&ours, &theirs, "", &mut problems);
    assert!(
        problems.is_empty(),
        "json+ differs from fio's:\n{}",
        problems.join("\n")
    );
    for t in [&ours, &theirs] {
        for lat in ["clat_ns", "lat_ns"] {
            let v = &t["jobs"][0]["write"][lat];
            let binned: u64 = v["bins"]
                .as_object()
                .unwrap()
                .values()
                .filter_map(Value::as_u64)
                .sum();
            assert_eq!(
                binned,
                v["N"].as_u64().unwrap(),
                "{lat}: bins hold every I/O"
            );
        }
    }
}

/// fio's latency_ns/us/ms buckets come from the histogram; check them against what is kept
/// exactly: the shares add up to 100 %, and no bucket wholly below the smallest or wholly above
/// the largest latency seen holds anything.
fn check_latency_buckets(job: &Value) {
    let mut buckets: Vec<(f64, f64, f64)> = Vec::new(); // (lower edge ns, upper edge ns, percent)
    let mut lower = 0.0;
    for (key, scale) in [
        ("latency_ns", 1.0),
        ("latency_us", 1e3),
        ("latency_ms", 1e6),
    ] {
        let mut edges: Vec<(f64, f64)> = job[key]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                let edge = k.trim_start_matches(">=").parse::<f64>().unwrap() * scale;
                let edge = if k.starts_with(">=") {
                    f64::INFINITY
                } else {
                    edge
                };
                (edge, v.as_f64().unwrap())
            })
            .collect();
        edges.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (edge, pct) in edges {
            buckets.push((lower, edge, pct));
            if edge.is_finite() {
                lower = edge;
            }
        }
    }
    let total: f64 = buckets.iter().map(|b| b.2).sum();
    assert!(
        (total - 100.0).abs() < 0.01,
        "latency buckets add up to {total}"
    );
    let (mut min, mut max) = (f64::INFINITY, 0.0f64);
    for d in ["read", "write"] {
        let l = &job[d]["lat_ns"];
        if l["N"].as_u64().unwrap() > 0 {
            min = min.min(l["min"].as_f64().unwrap());
            max = max.max(l["max"].as_f64().unwrap());
        }
    }
    for (lo, hi, pct) in buckets {
        // HDR buckets are exact to 0.1 %: leave that margin at the edges.
        if hi < min * 0.99 || lo > max * 1.01 {
            assert_eq!(
                pct, 0.0,
                "bucket ({lo}, {hi}] outside [{min}, {max}] holds {pct} %"
            );
        }
    }
}

#[test]
fn json_means_fio_json_for_job_files_and_native_otherwise() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("j.fio");
    std::fs::write(
        &job,
        format!(
            "[j]\nioengine=null\nsize=1m\nfilename={}\n",
            d.path().join("n").display()
        ),
    )
    .unwrap();
    let out = volbench()
        .args(["run", job.to_str().unwrap(), "--output-format=json", "-q"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v.get("fio version").is_some(),
        "job file + json: fio's shape"
    );
    let out = volbench()
        .args([
            "run",
            job.to_str().unwrap(),
            "--output-format=volbench-json",
            "-q",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["schema_version"], 1,
        "volbench-json selects the native schema"
    );
}

/// fio-plot's executable: `VOLBENCH_FIO_PLOT`, as scripts/test.sh exports it.
fn fio_plot() -> Option<PathBuf> {
    std::env::var_os("VOLBENCH_FIO_PLOT")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

/// One short libaio randread on `file` at `qd` x `nj`, as bench-fio names its output
/// (`randread-QD-NJ.json`) and its logs (`randread-iodepth-QD-numjobs-NJ_TYPE.1.log`).
fn run_point(dir: &Path, file: &Path, qd: u32, nj: u32) {
    let logs = format!("randread-iodepth-{qd}-numjobs-{nj}");
    ok_stdout(
        volbench()
            .current_dir(dir)
            .args(["run", "--name=randread", "--rw=randread", "--bs=4k"])
            .arg(format!("--filename={}", file.display()))
            .args([
                "--size=16m",
                "--ioengine=libaio",
                "--direct=1",
                "--runtime=1",
            ])
            .args(["--time_based", "--group_reporting"])
            .arg(format!("--iodepth={qd}"))
            .arg(format!("--numjobs={nj}"))
            .arg(format!("--write_bw_log={logs}"))
            .arg(format!("--write_iops_log={logs}"))
            .arg(format!("--write_lat_log={logs}"))
            .args([
                "--log_avg_msec=100",
                "--output-format=json+",
                "-q",
                "--no-store",
            ])
            .arg(format!(
                "--output={}",
                dir.join(format!("randread-{qd}-{nj}.json")).display()
            )),
    );
}

/// fio-plot with `args` on `dirs`: it must succeed and write its PNG.
fn plots(dirs: &[&Path], args: &[&str], out: &Path) {
    let exe = fio_plot().unwrap();
    let mut c = Std::new(exe);
    c.arg("-i")
        .args(dirs)
        .args(["-T", "volbench", "-r", "randread"]);
    c.args(args).arg("-o").arg(out);
    let o = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "fio-plot {args:?}: {text}");
    assert!(
        out.is_file(),
        "fio-plot {args:?} wrote no {}: {text}",
        out.display()
    );
}

#[test]
fn fio_plot_draws_every_graph_from_volbench_files() {
    let _disk = shared_disk();
    if fio_plot().is_none() {
        cannot_run!("fio-plot is not installed (scripts/test.sh puts it in a venv)");
    }
    let (a, b) = (tmpdir(), tmpdir());
    let file = a.path().join("data.dat");
    // The 3D graph needs every depth at every job count: a full 4 x 2 matrix.
    for qd in [1, 2, 4, 8] {
        for nj in [1, 2] {
            run_point(a.path(), &file, qd, nj);
        }
    }
    run_point(b.path(), &file, 1, 1);
    let out = |n: &str| a.path().join(format!("{n}.png"));
    plots(
        &[a.path()],
        &["-l", "-d", "1", "2", "4", "8", "-n", "1"],
        &out("l"),
    );
    plots(&[a.path()], &["-N", "-d", "1", "-n", "1", "2"], &out("nj"));
    plots(
        &[a.path()],
        &["-L", "-t", "iops", "-J", "2", "-M", "8"],
        &out("3d"),
    );
    plots(&[a.path()], &["-H", "-d", "1", "-n", "1"], &out("hist"));
    plots(
        &[a.path(), b.path()],
        &["-C", "-d", "1", "-n", "1"],
        &out("cmp"),
    );
    plots(
        &[a.path()],
        &["-g", "-d", "1", "-n", "1", "-t", "bw", "iops", "lat"],
        &out("log"),
    );
}

/// Debian's fio package ships fio_jsonplus_clat2csv: it turns a json+ file's completion
/// latency bins into CSV, which it does for volbench's as for fio's.
#[test]
fn fios_own_tools_read_volbench_output() {
    let _disk = shared_disk();
    require_tool!("fio_jsonplus_clat2csv");
    let d = tmpdir();
    let file = d.path().join("data.dat");
    run_point(d.path(), &file, 4, 1);
    let json = d.path().join("randread-4-1.json");
    let csv = d.path().join("clat.csv");
    let o = Std::new("fio_jsonplus_clat2csv")
        .arg(&json)
        .arg(&csv)
        .output()
        .unwrap();
    succeeded(&o, "");
    // It writes one CSV per job: its rows are the latency bins' percentiles.
    let made: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("clat"))
        .collect();
    assert!(!made.is_empty(), "no CSV from fio_jsonplus_clat2csv");
    let text = std::fs::read_to_string(made[0].path()).unwrap();
    assert!(text.lines().count() > 10, "{text}");
    // Its own check: the bins rebuilt from the CSV equal the file's bins.
    let o = Std::new("fio_jsonplus_clat2csv")
        .arg(&json)
        .arg(&csv)
        .arg("--validate")
        .output()
        .unwrap();
    succeeded(&o, "");
    // And the bins hold every I/O the figures count.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let clat = &doc["jobs"][0]["read"]["clat_ns"];
    let binned: u64 = clat["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(binned, clat["N"].as_u64().unwrap());
}

/// fio_generate_plots (Debian's fio package; gnuplot draws) plots volbench's bw, iops and
/// latency logs as it plots fio's: one SVG per log type, each with its data line.
#[test]
fn fio_generate_plots_draws_volbench_logs() {
    let _disk = shared_disk();
    require_tool!("fio_generate_plots");
    require_tool!("gnuplot");
    let d = tmpdir();
    let file = d.path().join("data.dat");
    run_point(d.path(), &file, 2, 1);
    let o = Std::new("fio_generate_plots")
        .arg("volbench")
        .current_dir(d.path())
        .output()
        .unwrap();
    succeeded(&o, "");
    for kind in ["bw", "iops", "lat", "clat"] {
        let svg = d.path().join(format!("volbench-{kind}.svg"));
        let text =
            std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()));
        // gnuplot draws a series as a coloured path through the log's samples (10 here);
        // frames and ticks are black.
        let longest = text
            .split("<path")
            .filter(|p| !p.starts_with(" stroke='black'"))
            .map(|p| p.split("/>").next().unwrap_or("").matches(" L").count())
            .max()
            .unwrap_or(0);
        assert!(longest >= 5, "{kind}: no data line in {}", svg.display());
    }
}
