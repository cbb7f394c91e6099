//! How sure a number is (issue 45): `--repeat` reports every figure with its spread over the
//! runs, `--until-stable` repeats until the interval is narrow enough, and `compare` tells a
//! difference from noise, on cgroup-throttled zram devices whose rate is known.

mod common;
use common::*;
use serde_json::Value;

/// A randread of `secs` s at QD4 on `dev`, inside `cap`, with `extra` options: the
/// volbench-json document.
fn run(cap: &Throttle, dev: &str, secs: u32, extra: &[&str]) -> Value {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let mut args: Vec<String> = [
        "run",
        "--rw=randread",
        "--bs=4k",
        "--iodepth=4",
        "--ioengine=libaio",
        "--direct=1",
        "--ramp_time=1s",
        "--output-format=json",
        "-q",
    ]
    .map(String::from)
    .to_vec();
    args.push(format!("--filename={dev}"));
    args.push(format!("--runtime={secs}s"));
    args.extend(extra.iter().map(|s| s.to_string()));
    serde_json::from_slice(&cap.run(vb.to_str().unwrap(), &args)).unwrap()
}

/// `--repeat 5` on a 2,000-IOPS device: one result whose figures are the five runs' means,
/// each with its spread; the interval holds the mean and the cap; every run is kept with its
/// own kernel counters, which match its own I/O.
#[test]
fn repeat_reports_each_figure_with_its_spread() {
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 2000, 64 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let v = run(&cap, z.p(), 1, &["--repeat=5"]);
    let rep = &v["repeats"];
    assert_eq!(rep["n"], 5);
    let runs = rep["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5);
    let iops: Vec<f64> = runs.iter().map(|r| f(r, "/group/read/iops")).collect();
    let mean = iops.iter().sum::<f64>() / 5.0;
    assert!(
        (f(&v, "/group/read/iops") - mean).abs() < 1e-6 * mean,
        "the result is the mean"
    );
    let s = &rep["stats"]["read"]["iops"];
    assert!((f(s, "/mean") - mean).abs() < 1e-6 * mean);
    let (lo, hi) = (f(s, "/ci95/0"), f(s, "/ci95/1"));
    assert!(
        lo <= mean && mean <= hi && hi - lo < 0.05 * mean,
        "[{lo}, {hi}]"
    );
    assert!((mean - 2000.0).abs() < 100.0, "the cap: {mean}");
    for r in runs {
        let ios = u(r, "/group/read/total_ios");
        let kernel = u(r, "/environment/targets/0/kernel_counters/read_ios");
        assert!(
            kernel >= ios && kernel <= ios + 8,
            "a run's own counters: {kernel} vs {ios}"
        );
    }
}

/// --until-stable=2: a throttled device is stable (its rate repeats to the I/O), so three runs
/// are enough; on the same device without its cap the runs differ, a target of a millionth of
/// a percent is not met in the four runs allowed, and the result says so.
#[test]
fn until_stable_stops_when_the_interval_is_narrow_or_says_it_was_not() {
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 2000, 64 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let v = run(&cap, z.p(), 1, &["--until-stable=2"]);
    assert_eq!(v["repeats"]["n"], 3, "{}", v["repeats"]["until_stable"]);
    assert_eq!(v["repeats"]["until_stable"]["reached"], true);
    drop(cap);
    let v = ok_json(
        volbench()
            .args([
                "run",
                "--rw=randread",
                "--runtime=1s",
                "--output-format=json",
                "-q",
                "--until-stable=0.000001",
                "--repeat=4",
            ])
            .arg(format!("--filename={}", z.p())),
    );
    assert_eq!(v["repeats"]["n"], 4);
    assert_eq!(v["repeats"]["until_stable"]["reached"], false);
}

/// Stores a 3-run result of `secs` s on `dev` capped at `iops`, labelled `label`.
fn stored(dev: &str, iops: u64, label: &str) {
    let Some(cap) = Throttle::new(dev, iops, 64 << 20) else {
        panic!("no throttle");
    };
    run(&cap, dev, 1, &["--repeat=3", &format!("--label={label}")]);
}

/// The verdict on the IOPS row of `volbench compare a b`.
fn verdict(a: &str, b: &str) -> String {
    let v = ok_json(volbench().args(["compare", a, b, "--output-format=json"]));
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "IOPS")
        .unwrap()
        .clone();
    row["significance"][1]["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

/// compare's verdicts: 3,000 against 3,600 IOPS caps is significant; ten 3-run results on the
/// same 3,000 IOPS cap, compared in 20 pairs, are called significant no more often than the
/// test's 5 % level allows (at most 5 of 20: a binomial tail of 0.03 % at 5 %), and a
/// single run against a repeated one is unknown.
#[test]
fn compare_tells_a_difference_from_noise() {
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    if Throttle::new(z.p(), 3000, 64 << 20).is_none() {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    }
    stored(z.p(), 3600, "fast");
    for i in 0..10 {
        stored(z.p(), 3000, &format!("same{i}"));
    }
    assert_eq!(verdict("same0", "fast"), "significant");
    let mut alarms = Vec::new();
    for (a, b) in (0..10)
        .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
        .take(20)
    {
        let v = verdict(&format!("same{a}"), &format!("same{b}"));
        assert_ne!(v, "unknown");
        if v == "significant" {
            alarms.push((a, b));
        }
    }
    assert!(
        alarms.len() <= 5,
        "same-device pairs called significant: {alarms:?}"
    );
    let Some(cap) = Throttle::new(z.p(), 3000, 64 << 20) else {
        panic!("no throttle");
    };
    run(&cap, z.p(), 1, &["--label=once"]);
    assert_eq!(verdict("same0", "once"), "unknown");
}

/// The warnings' codes of a volbench-json document.
fn codes(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Every sample carries its interval's own percentiles; a throttle that tightens from out of
/// reach to 300 IOPS 4 s into an 8 s run raises p99 from tens of microseconds to the
/// throttle's 100 ms slices and keeps it there: the cliff is named, near when it started. A
/// steady throttled run (whose p99 is the slices' wait throughout) and an unthrottled zram run
/// have none.
#[test]
fn a_latency_cliff_is_seen_and_steady_runs_raise_no_alarm() {
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 3000, 256 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let steady = run(&cap, z.p(), 6, &["--no-store"]);
    assert!(
        !codes(&steady).contains(&"latency_cliff".into()),
        "{:?}",
        steady["warnings"]
    );
    let samples = steady["group"]["series"]["samples"].as_array().unwrap();
    for s in samples.iter().filter(|s| u(s, "/ios/0") > 100) {
        let p = &s["lat_pct"]["read"];
        assert!(
            u(p, "/p50_ns") <= u(p, "/p99_ns") && u(p, "/p99_ns") <= u(p, "/max_ns"),
            "{s}"
        );
    }
    let free = ok_json(
        volbench()
            .args([
                "run",
                "--rw=randread",
                "--runtime=6s",
                "--output-format=json",
                "-q",
                "--no-store",
            ])
            .arg(format!("--filename={}", z.p())),
    );
    assert!(
        !codes(&free).contains(&"latency_cliff".into()),
        "{:?}",
        free["warnings"]
    );
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let args: Vec<String> = [
        "run",
        "--rw=randread",
        "--bs=4k",
        "--iodepth=4",
        "--ioengine=libaio",
        "--direct=1",
        "--runtime=8s",
        "--output-format=json",
        "-q",
        "--no-store",
    ]
    .map(String::from)
    .into_iter()
    .chain([format!("--filename={}", z.p())])
    .collect();
    cap.retune(1_000_000, 256 << 20);
    let child = cap
        .command(vb.to_str().unwrap(), &args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    cap.retune(300, 256 << 20);
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "latency_cliff")
        .unwrap_or_else(|| panic!("no cliff: {}", v["warnings"]))
        .clone();
    let msg = w["message"].as_str().unwrap();
    let at: f64 = msg
        .split(" at ")
        .nth(1)
        .unwrap()
        .split(" s")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((2.5..=6.0).contains(&at), "{msg}");
    // The SVG of each interval's p99 draws the read line.
    let d = tmpdir();
    let json = d.path().join("cliff.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let svg = d.path().join("p99.svg");
    ok_stdout(
        volbench()
            .args(["chart"])
            .arg(&json)
            .args(["--metric", "p99", "--x", "time", "--output"])
            .arg(&svg),
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("read p99"), "{text}");
}

/// `--until-stable` takes a percentage above 0 and at most 100, and at least 3 runs (an
/// interval needs them): anything else is one line, exit 2, before any run.
#[test]
fn until_stable_bounds_are_checked_before_any_run() {
    for args in [
        vec!["--until-stable=-5"],
        vec!["--until-stable=0"],
        vec!["--until-stable=101"],
        vec!["--until-stable", "--repeat", "2"],
    ] {
        let out = volbench()
            .args(["run", "--ioengine=null", "--runtime=5s", "--no-store"])
            .args(&args)
            .output()
            .unwrap();
        let err = fails_saying(&out, 2, "--until-stable");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} ran");
    }
}

/// A run cut short by Ctrl-C in the third of five repeats is left out of the means and the
/// spread (it is listed, and the result is marked interrupted); the text shows the spread's
/// half-width with its first significant digit, whatever its size against the mean.
#[test]
fn a_cut_run_is_left_out_and_the_spread_is_readable() {
    let d = tmpdir();
    let out = d.path().join("r.json");
    let store = d.path().join("results.db");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_volbench"))
        .args(["run", "--ioengine=null", "--runtime=2s", "--repeat=5", "-q"])
        .args(["--output-format=volbench-json", "--output"])
        .arg(&out)
        .arg("--store")
        .arg(&store)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Run 3 starts after two 2 s runs: wait until it is said, then a little into it.
    let mut child = child;
    let mut said = String::new();
    {
        use std::io::Read;
        let e = child.stderr.as_mut().unwrap();
        let mut b = [0u8; 1];
        while !said.contains("run 3 of 5") && e.read(&mut b).unwrap_or(0) == 1 {
            said.push(b[0] as char);
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    interrupt(&child);
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130), "{said}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["status"], "interrupted");
    let rep = &v["repeats"];
    assert_eq!(rep["n"], 2, "{rep}");
    assert_eq!(rep["left_out"], 1);
    assert_eq!(rep["runs"].as_array().unwrap().len(), 3);
    // The text's IOPS spread: its half-width within a factor of two of the JSON's (one
    // significant digit), never a "0.0k" for a spread that is not zero.
    let text = ok_stdout(volbench().args(["show", "last", "--store"]).arg(&store));
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("IOPS") && l.contains('±'))
        .unwrap_or_else(|| panic!("{text}"));
    let half_shown = line
        .split('±')
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let (num, scale) = match half_shown.chars().last().unwrap() {
        'k' => (&half_shown[..half_shown.len() - 1], 1e3),
        'M' => (&half_shown[..half_shown.len() - 1], 1e6),
        _ => (half_shown, 1.0),
    };
    let shown: f64 = num.parse::<f64>().unwrap() * scale;
    let ci = &rep["stats"]["iops"]["ci95"];
    let half = (ci[1].as_f64().unwrap() - ci[0].as_f64().unwrap()) / 2.0;
    assert!(
        half > 0.0 && shown > half / 2.0 && shown < half * 2.0,
        "{line} vs {half}"
    );
    assert!(text.contains("1 run cut short"), "{text}");
}
