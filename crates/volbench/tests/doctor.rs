//! `volbench doctor` and the run's own host checks, on real devices: a cgroup limit set by
//! `emulate` (a real v1 blkio/v2 io.max throttle), another process's I/O (fio on the same
//! device), and this VM as it is, each checked against what the kernel and the tools say.

mod common;
use common::*;
use serde_json::Value;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

fn doctor(args: &[&str]) -> Value {
    let mut c = volbench();
    c.args(["doctor", "--output-format=json"]).args(args);
    ok_json(&mut c)
}

/// The findings of `area` (or of `code`), as (level, line) pairs.
fn found(v: &Value, code: &str) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| {
            (
                f["level"].as_str().unwrap().to_string(),
                f["what"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn doctor_and_run_name_an_emulated_limit_and_its_cgroup() {
    require_root!();
    let z = Zram::new("256M");
    let free = doctor(&[z.p(), "--watch=0.1s"]);
    assert_eq!(
        found(&free, "io_limit"),
        [(
            "ok".into(),
            "no cgroup I/O limit on this process for zram".to_string()
                + &z.p()["/dev/zram".len()..]
        )],
        "{free}"
    );
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let under = |args: &[&str]| {
        ok_json(
            volbench()
                .args(["emulate", "--device", z.p(), "--iops", "3000", "--"])
                .arg(&bin)
                .args(args),
        )
    };
    let v = under(&["doctor", z.p(), "--watch=0.1s", "--output-format=json"]);
    let lim = found(&v, "io_limit");
    assert_eq!(lim.len(), 1, "{v}");
    assert_eq!(lim[0].0, "warn");
    assert!(
        lim[0].1.contains("3000 read IOPS, 3000 write IOPS on zram")
            && lim[0].1.contains("/volbench-emulate-"),
        "{lim:?}"
    );
    let r = under(&[
        "run",
        &format!("--filename={}", z.p()),
        "--rw=randread",
        "--size=64m",
        "--runtime=1s",
        "--no-store",
        "--output-format=volbench-json",
    ]);
    let w = r["warnings"].to_string();
    assert!(
        w.contains("io_limit") && w.contains("3000 read IOPS"),
        "{w}"
    );
}

#[test]
fn other_io_from_a_concurrent_fio_is_reported_by_doctor_and_run() {
    require_root!();
    require_tool!("fio");
    let z = Zram::new("256M");
    fill_random(&z.path, 64 << 20);
    // Nothing else uses a fresh zram device: no warning (udev's probe is a few reads at most).
    let quiet = doctor(&[z.p(), "--watch=0.5s"]);
    assert!(
        found(&quiet, "other_io").iter().all(|(l, _)| l != "warn"),
        "{quiet}"
    );
    let mut fio = Std::new("fio")
        .args([
            "--name=other",
            "--rw=randread",
            "--bs=4k",
            "--size=64m",
            "--direct=1",
        ])
        // --thread: the job runs in fio's own process, so killing it stops the I/O (a forked
        // job would hold the device after its parent died).
        .args([
            "--time_based",
            "--runtime=30s",
            "--ioengine=psync",
            "--thread",
            // A known rate, for the figure doctor prints.
            "--rate_iops=2000",
        ])
        .arg(format!("--filename={}", z.p()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until fio's reads show in the device's counters.
    let name = z.p().trim_start_matches("/dev/").to_string();
    let reads = || block_stat(&name)[0];
    let (t, start) = (Instant::now(), reads());
    while reads() < start + 1000 && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let busy = doctor(&[z.p(), "--watch=1s"]);
    let r = run_json(&[
        &format!("--filename={}", z.p()),
        "--rw=randread",
        "--size=64m",
        "--runtime=1s",
        "--no-store",
    ]);
    // fsync's flush times move with a neighbour's I/O too (a trial's verdict flipped on a
    // shared disk): it looks before it writes, as run does.
    let fsync = volbench()
        .args([
            "fsync",
            z.p(),
            "--methods=fdatasync",
            "--bs=4k",
            "--threads=1",
        ])
        .args([
            "--runtime=1s",
            "--size=16m",
            "--no-penalty",
            "--allow-destructive",
        ])
        .args(["--output-format=volbench-json", "-q", "--no-store"])
        .output()
        .unwrap();
    let _ = fio.kill();
    let _ = fio.wait();
    let other = found(&busy, "other_io");
    assert_eq!(other[0].0, "warn", "{busy}");
    assert!(other[0].1.starts_with("other I/O on zram"), "{other:?}");
    // The rate doctor prints is fio's: 2,000 read IOPS (fio paces psync to within a few per
    // cent; a quarter either way is beyond any watch's edge effects), and no writes.
    let (_, rates) = other[0].1.split_once("s): ").unwrap();
    let read: f64 = rates.split(' ').next().unwrap().parse().unwrap();
    assert!((1500.0..2500.0).contains(&read), "{other:?}");
    assert!(rates.contains(" and 0 write IOPS"), "{other:?}");
    assert_eq!(r.0, 0, "{}", r.2);
    assert!(
        r.1["warnings"].to_string().contains("other_io"),
        "{}",
        r.1["warnings"]
    );
    let f: Value = serde_json::from_slice(&fsync.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&fsync.stderr)));
    assert!(
        f["warnings"].to_string().contains("other I/O on zram"),
        "{}",
        f["warnings"]
    );
}

/// This VM as it is: every area is there, and what doctor says agrees with the tools.
#[test]
fn doctor_on_this_machine_agrees_with_findmnt_and_nproc() {
    require_tool!("findmnt");
    let d = tmpdir();
    let v = doctor(&[d.path().to_str().unwrap(), "--watch=0.2s"]);
    let areas: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["area"].as_str().unwrap())
        .collect();
    for a in ["limits", "other_io", "block", "filesystem", "cpu", "cloud"] {
        assert!(areas.contains(&a), "no {a} in {v}");
    }
    let fstype = stdout_of(
        {
            let mut c = Std::new("findmnt");
            c.args(["-n", "-o", "FSTYPE", "--target"]).arg(d.path());
            c
        },
        "findmnt",
    );
    let fstype = String::from_utf8_lossy(&fstype);
    let fs = found(&v, "filesystem");
    assert!(
        fs[0].1.contains(&format!("({})", fstype.trim())),
        "{fs:?} vs {fstype}"
    );
    let nproc = stdout_of(Std::new("nproc"), "nproc");
    let nproc = String::from_utf8_lossy(&nproc);
    assert_eq!(
        found(&v, "cpus")[0].1,
        format!("{} CPUs available to this process", nproc.trim())
    );
    // More jobs than CPUs: a warning naming both counts.
    let many = doctor(&[d.path().to_str().unwrap(), "--watch=0.1s", "--numjobs=4096"]);
    let cpus = found(&many, "cpus");
    assert!(
        cpus.iter()
            .any(|(l, w)| l == "warn" && *w == format!("4096 jobs on {} CPUs", nproc.trim())),
        "{cpus:?}"
    );
    // Reads only: the text form lists the same findings, one line each.
    let text = ok_stdout(volbench().args(["doctor", d.path().to_str().unwrap(), "--watch=0.1s"]));
    assert!(
        text.contains("Where we are") && text.contains("warning(s)"),
        "{text}"
    );
}
