//! Sweeps and suites: the points run, the analysis finds what the device's caps imply.

mod common;
use common::*;
use serde_json::Value;

fn finding(v: &Value, kind: &str) -> Value {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == kind)
        .cloned()
        .unwrap_or_else(|| panic!("no {kind} finding in {}", v["findings"]))
}

/// A block-size sweep on a device capped at 2000 IOPS and 32 MiB/s finds the bandwidth ceiling
/// and the crossover (32 MiB/s / 2000 IOPS = 16.4 KiB) within 10 %.
#[test]
fn bs_sweep_finds_the_configured_caps() {
    require_root!();
    let z = Zram::new("256M");
    fill_random(&z.path, 256 << 20);
    let (iops, bps) = (2000u64, 32u64 << 20);
    let Some(cap) = Throttle::new(z.p(), iops, bps) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let out = cap.run(
        vb.to_str().unwrap(),
        &[
            "sweep".into(),
            format!("--filename={}", z.p()),
            "--rw=randread".into(),
            "--bs=4k..1m".into(),
            "--iodepth=16".into(),
            "--ioengine=libaio".into(),
            // The throttle lets a burst through at each start; measure after it, as a user would.
            "--ramp_time=1s".into(),
            "--runtime=2s".into(),
            "--output-format=json".into(),
            "-q".into(),
        ],
    );
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["suite"], "sweep");
    assert_eq!(v["runs"].as_array().unwrap().len(), 9, "4k, 8k, ... 1m");
    let ceiling = finding(&v, "bandwidth_ceiling")["value"].as_f64().unwrap();
    assert!(
        (ceiling - bps as f64).abs() / bps as f64 <= 0.10,
        "ceiling {ceiling} vs cap {bps}"
    );
    let x = finding(&v, "crossover")["value"].as_f64().unwrap();
    let want = bps as f64 / iops as f64;
    assert!((x - want).abs() / want <= 0.10, "crossover {x} vs {want}");
    let cap_iops = finding(&v, "iops_ceiling")["value"].as_f64().unwrap();
    assert!(
        (cap_iops - iops as f64).abs() / iops as f64 <= 0.10,
        "IOPS ceiling {cap_iops}"
    );
}

/// On a device capped at 2000 IOPS, one or two jobs reach the cap: more jobs add nothing but
/// latency, so the knee is there, at the cap.
#[test]
fn numjobs_sweep_flags_the_knee() {
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 2000, 1 << 30) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let out = cap.run(
        vb.to_str().unwrap(),
        &[
            "sweep".into(),
            format!("--filename={}", z.p()),
            "--rw=randread".into(),
            "--numjobs=1..8".into(),
            "--iodepth=4".into(),
            "--ioengine=libaio".into(),
            "--ramp_time=1s".into(),
            "--runtime=2s".into(),
            "--output-format=json".into(),
            "-q".into(),
        ],
    );
    let v: Value = serde_json::from_slice(&out).unwrap();
    let knee = finding(&v, "knee");
    let at = knee["value"].as_f64().unwrap();
    assert!(at <= 2.0, "the cap is reached by 2 jobs: {knee}");
    let runs = v["runs"].as_array().unwrap();
    let iops = |i: usize| runs[i]["report"]["group"]["read"]["iops"].as_f64().unwrap();
    let k = runs
        .iter()
        .position(|r| r["label"] == knee["point"])
        .unwrap();
    assert!(
        (iops(k) - 2000.0).abs() / 2000.0 < 0.10,
        "knee throughput is the cap: {}",
        iops(k)
    );
    assert!(iops(k + 1) < 1.05 * iops(k), "past the knee adds under 5 %");
}

#[test]
fn sweep_cross_product_table_and_incremental_output() {
    let d = tmpdir();
    let json = d.path().join("sweep.json");
    let out = volbench()
        .current_dir(d.path())
        .args([
            "sweep",
            "--ioengine=null",
            "--rw=randread,randwrite",
            "--iodepth=1,4",
            "--size=4m",
            "--runtime=1s",
            "--output-format=json",
        ])
        .arg(format!("--output={}", json.display()))
        .output()
        .unwrap();
    succeeded(&out, "");
    let table = String::from_utf8_lossy(&out.stdout);
    for label in [
        "rw=randread iodepth=1",
        "rw=randread iodepth=4",
        "rw=randwrite iodepth=1",
        "rw=randwrite iodepth=4",
    ] {
        assert!(table.contains(label), "{label} missing:\n{table}");
    }
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    assert_eq!(
        runs[3]["params"],
        serde_json::json!([["rw", "randwrite"], ["iodepth", "4"]])
    );
    assert_eq!(runs[3]["report"]["workload"]["jobs"][0]["iodepth"], 4);
    assert_eq!(v["status"], "complete");
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("sweep.json")],
        "the sweep's test files are gone"
    );
}

#[test]
fn interrupted_sweep_keeps_the_points_it_measured() {
    let d = tmpdir();
    let json = d.path().join("partial.json");
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let child = std::process::Command::new(&bin)
        .current_dir(d.path())
        .env("VOLBENCH_STORE", test_store())
        .args([
            "sweep",
            "--ioengine=null",
            "--numjobs=1,2,3,4",
            "--size=4m",
            "--runtime=1s",
            "--output-format=json",
            "-q",
        ])
        .arg(format!("--output={}", json.display()))
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2600));
    common::interrupt(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["status"], "interrupted");
    let n = v["runs"].as_array().unwrap().len();
    assert!(
        (2..4).contains(&n),
        "points measured before the interrupt are kept: {n}"
    );
}

#[test]
fn suites_are_listed_shown_and_run() {
    let out = volbench().args(["suite", "--list"]).output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    for name in ["quick", "cloud-volume", "scaling", "crystal"] {
        assert!(list.contains(name), "{name} missing: {list}");
    }
    // --show prints a job file that runs as a suite file after copying and editing.
    let out = volbench()
        .args(["suite", "--show", "crystal"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace("runtime=5", "runtime=1");
    let d = tmpdir();
    let mine = d.path().join("mine.fio");
    std::fs::write(&mine, text).unwrap();
    let v = ok_json(volbench().args([
        "suite",
        mine.to_str().unwrap(),
        d.path().to_str().unwrap(),
        "--ioengine=null",
        "--size=8m",
        "--output-format=json",
        "-q",
    ]));
    assert_eq!(
        v["suite"], "crystal",
        "the name comes from the file's header"
    );
    let labels: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels[0], "SEQ1M Q8T1 read");
    assert_eq!(labels.len(), 8);
    assert!(
        v["runs"][7]["report"]["group"]["runtime_ns"]
            .as_u64()
            .unwrap()
            < 1_500_000_000,
        "edited runtime"
    );
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("mine.fio")],
        "the suite's temp files are gone"
    );
}

#[test]
fn cloud_volume_suite_runs_long_enough_for_bursts_unless_shortened() {
    let out = volbench()
        .args(["suite", "--show", "cloud-volume"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let d = tmpdir();
    let p = d.path().join("c.fio");
    std::fs::write(&p, text.as_bytes()).unwrap();
    let out = volbench()
        .args(["run", p.to_str().unwrap(), "--showcmd"])
        .output()
        .unwrap();
    let cmd = String::from_utf8_lossy(&out.stdout);
    assert!(
        cmd.contains("--name=throughput-read") && cmd.contains("--runtime=120s"),
        "{cmd}"
    );
}

/// Regression (issue 42): a numjobs sweep on one device and the same sweep over several
/// targets (seed 002's comparison) paired nothing: one named its points `rw=randread
/// numjobs=1`, the other `filename=... rw=randread numjobs=1`. Points pair by the axes both
/// sweeps vary; each point of the one-device sweep stands beside each target's, and the
/// multi-target sweep's header names all its targets.
#[test]
fn compare_pairs_sweeps_by_the_axes_they_share() {
    let d = tmpdir();
    let store = d.path().join("s.db");
    let sweep = |label: &str, extra: &[&str]| {
        ok_stdout(
            volbench()
                .current_dir(d.path())
                .env("VOLBENCH_STORE", &store)
                .args(["sweep", "--ioengine=null", "--rw=randread", "--numjobs=1,2"])
                .args(["--size=4m", "--runtime=300ms", "--label", label, "-q"])
                .args(extra),
        )
    };
    sweep("one", &["--filename=one.dat"]);
    sweep("stripes", &["--filename=a.dat,a.dat:b.dat"]);
    let text = ok_stdout(
        volbench()
            .env("VOLBENCH_STORE", &store)
            .args(["show", "stripes"]),
    );
    let head = text
        .lines()
        .find(|l| l.starts_with("volbench sweep"))
        .unwrap();
    assert!(
        head.contains("a.dat + ") && head.contains("b.dat"),
        "the header names one target of several: {text}"
    );
    // The history (and serve, from the same column) lists every target, and finds the
    // sweep by any of them.
    let rows = ok_json(volbench().env("VOLBENCH_STORE", &store).args([
        "history",
        "--target=b.dat",
        "--output-format=json",
    ]));
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let t = rows[0]["target"].as_str().unwrap();
    assert!(t.contains("a.dat") && t.contains("b.dat"), "{t}");
    let v = ok_json(volbench().env("VOLBENCH_STORE", &store).args([
        "compare",
        "one",
        "stripes",
        "--output-format",
        "json",
    ]));
    let rows = v["rows"].as_array().unwrap();
    let iops: Vec<&Value> = rows.iter().filter(|r| r["metric"] == "IOPS").collect();
    // Two numjobs x two targets, each row with both inputs' values.
    assert_eq!(iops.len(), 4, "{v}");
    for r in &iops {
        let item = r["item"].as_str().unwrap();
        assert!(
            item.contains("numjobs=") && item.contains("filename="),
            "{item}"
        );
        assert!(
            r["values"].as_array().unwrap().iter().all(|x| x.is_f64()),
            "an unpaired point: {r}"
        );
    }
}
