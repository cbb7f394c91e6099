//! Scale-out under mpirun: ranks started together, merged exactly, checked against the kernel;
//! failures on one rank stop all; Ctrl-C leaves nothing; a wrong launcher is refused; two
//! emulated hosts (network and UTS namespaces, mpirun's rsh agent) share a directory.
//!
//! These need Open MPI's `mpirun` and a volbench built with `--features mpi`, named by
//! `VOLBENCH_MPI_BIN` (scripts/test.sh builds it). Without them a test skips with a message,
//! except under CI, where a missing binary is a failure.

mod common;

use base64::Engine as _;
use common::hosts::Hosts;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The MPI build, or `None` after `common::cannot_run` (a failure under CI, a skip elsewhere).
fn mpi_bin() -> Option<PathBuf> {
    let found = std::env::var_os("VOLBENCH_MPI_BIN")
        .map(PathBuf::from)
        .filter(|p| p.exists());
    let have_mpirun = Command::new("mpirun")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found.is_none() || !have_mpirun {
        common::cannot_run(
            "needs mpirun and VOLBENCH_MPI_BIN (a build with --features mpi): run scripts/test.sh",
        );
        return None;
    }
    found
}

/// `mpirun -n N [launcher args] BIN ARGS`, allowed as root, with the test store.
fn mpirun(n: u32, launcher: &[&str], bin: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &n.to_string(),
    ])
    .args(["--mca", "btl", "self,vader,tcp"])
    .args(launcher)
    .arg(bin)
    .args(args)
    .env("VOLBENCH_STORE", test_store())
    .env_remove("RUST_BACKTRACE");
    c
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); status {:?}; stderr: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "status {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Percentiles of histograms added here with the HDR library from each rank's own JSON row.
fn offline_percentiles(ranks: &[Value], dir: &str) -> Vec<(f64, u64)> {
    use hdrhistogram::serialization::Deserializer;
    let mut total: Option<hdrhistogram::Histogram<u64>> = None;
    let (mut lo, mut hi) = (u64::MAX, 0);
    for r in ranks {
        let l = &r[dir]["lat_ns"];
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(l["hdr"].as_str().expect("a histogram per rank"))
            .unwrap();
        let h: hdrhistogram::Histogram<u64> =
            Deserializer::new().deserialize(&mut &bytes[..]).unwrap();
        lo = lo.min(l["min_ns"].as_u64().unwrap());
        hi = hi.max(l["max_ns"].as_u64().unwrap());
        match &mut total {
            Some(t) => {
                t.auto(true);
                t.add(&h).unwrap();
            }
            None => total = Some(h),
        }
    }
    let t = total.unwrap();
    ranks[0][dir]["lat_ns"]["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let p = p["p"].as_f64().unwrap();
            (p, t.value_at_percentile(p).clamp(lo, hi))
        })
        .collect()
}

fn percentiles(v: &Value) -> Vec<(f64, u64)> {
    v["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["p"].as_f64().unwrap(), p["ns"].as_u64().unwrap()))
        .collect()
}

#[test]
fn four_ranks_on_zram_merge_exactly_and_match_the_kernel() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    let z = Zram::new("1G");
    let dev = z.p().to_string();
    let o = ok(mpirun(
        4,
        &[],
        &bin,
        &[
            "run",
            "--filename",
            &dev,
            "--shared-file",
            "--rw=randrw",
            "--bs=4k",
            "--iodepth=8",
            "--size=128m",
            "--runtime=3s",
            "--output-format=volbench-json",
            "-q",
        ],
    )
    .output()
    .unwrap());
    let v = json_of(&o);
    let ranks = v["ranks"].as_array().expect("a row per rank");
    assert_eq!(ranks.len(), 4);
    let ids: Vec<u64> = ranks.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ids, [0, 1, 2, 3]);
    let k = v["environment"]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|t| t.get("kernel_counters"))
        .expect("the zram device's counters")
        .clone();
    for (dir, ios, merges) in [
        ("read", "read_ios", "read_merges"),
        ("write", "write_ios", "write_merges"),
    ] {
        let merged = v["group"][dir]["total_ios"].as_u64().unwrap();
        let sum: u64 = ranks
            .iter()
            .map(|r| r[dir]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(merged, sum, "{dir}: the merged count is the ranks' sum");
        // Each rank's regions are its own: rank r's offsets start at r x 128 MiB.
        let kernel = k[ios].as_u64().unwrap() + k[merges].as_u64().unwrap();
        let diff = (kernel as f64 - merged as f64).abs() / merged as f64;
        assert!(
            diff <= 0.005,
            "{dir}: kernel {kernel} vs merged {merged} ({:.3}%)",
            diff * 100.0
        );
        assert_eq!(
            percentiles(&v["group"][dir]["lat_ns"]),
            offline_percentiles(ranks, dir),
            "{dir}: merged percentiles are those of the added histograms"
        );
    }
    let series: u64 = v["group"]["series"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ios"][0].as_u64().unwrap() + s["ios"][1].as_u64().unwrap())
        .sum();
    assert_eq!(
        series,
        v["group"]["read"]["total_ios"].as_u64().unwrap()
            + v["group"]["write"]["total_ios"].as_u64().unwrap()
    );
    let so = &v["scaleout"];
    assert_eq!(so["size"], 4);
    assert_eq!(so["layout"], "shared-file");
    assert!(so["start_skew_ns"].is_u64() && so["common_ns"].as_u64().unwrap() > 0);
    assert_eq!(so["hosts"].as_array().unwrap().len(), 1);
}

#[test]
fn the_first_rank_to_finish_ends_the_interval_for_all() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    // Unwritten zram pages cost no memory: the 2 GiB hold the four regions for free.
    let z = Zram::new("2G");
    let dev = z.p().to_string();
    // MPMD: rank 0 reads 8 MiB at full speed; ranks 1-3 would read 512 MiB each but are held
    // to 500 IOPS (2 MiB/s), so reading half of it would take them 128 s. The stonewall stops
    // them when rank 0 is done: the bound holds by construction on any machine that finishes
    // 8 MiB of zram reads in under two minutes, not by how fast this one happens to be.
    let common = [
        "--filename",
        &dev,
        "--shared-file",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--output-format=volbench-json",
        "-q",
    ];
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-n", "1"])
        .arg(&bin)
        .args(["run", "--size=8m"])
        .args(common)
        .args([":", "-n", "3"])
        .arg(&bin)
        .args(["run", "--size=512m", "--rate_iops=500"])
        .args(common)
        .env("VOLBENCH_STORE", test_store());
    let v = json_of(&ok(c.output().unwrap()));
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks[0]["read"]["io_bytes"].as_u64().unwrap(), 8 << 20);
    for r in &ranks[1..] {
        let b = r["read"]["io_bytes"].as_u64().unwrap();
        assert!(
            b < 256 << 20,
            "rank {} read {b} bytes: not stopped",
            r["rank"]
        );
        assert_eq!(r["status"], "complete");
    }
    assert_eq!(v["status"], "complete");
}

#[test]
fn a_rank_that_cannot_start_stops_all_and_is_named() {
    let Some(bin) = mpi_bin() else { return };
    let d = tmpdir();
    for r in [0, 1, 3] {
        std::fs::create_dir(d.path().join(format!("sub{r}"))).unwrap();
    }
    let dir = d.path().display().to_string();
    let o = mpirun(
        4,
        &[],
        &bin,
        &[
            "run",
            "--directory",
            &dir,
            "--filename_format=sub$clientuid/f.$jobnum",
            "--size=4m",
            "--runtime=2s",
            "--direct=0",
            "--ioengine=psync",
            "--no-store",
        ],
    )
    .output()
    .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "one error line, from rank 0: {err}");
    assert!(
        lines[0].contains("rank 2 on ") && lines[0].contains("sub2"),
        "{err}"
    );
    assert!(!lines[0].contains("rank 1 "), "{err}");
    for r in [0, 1, 3] {
        let left: Vec<_> = std::fs::read_dir(d.path().join(format!("sub{r}")))
            .unwrap()
            .collect();
        assert!(left.is_empty(), "rank {r} left files behind: {left:?}");
    }
}

#[test]
fn an_io_error_on_a_rank_stops_every_rank() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    // The device fails writes once 8 MiB are stored: random data over 4 x 64 MiB fills it.
    let z = Zram::with_mem_limit("512M", "8M");
    let dev = z.p().to_string();
    let o = mpirun(
        4,
        &[],
        &bin,
        &[
            "run",
            "--filename",
            &dev,
            "--shared-file",
            "--rw=randwrite",
            "--bs=64k",
            "--size=64m",
            "--runtime=60s",
            "--output-format=volbench-json",
            "-q",
        ],
    )
    .output()
    .unwrap();
    assert!(!o.status.success());
    let v = json_of(&o);
    assert_eq!(v["status"], "partial");
    let e = v["error"].as_str().unwrap();
    // Ranks that met the error themselves are named with their host, or, when every rank
    // met it, said once for all of them.
    assert!(
        e.starts_with("all 4 ranks: ") || (e.contains("rank ") && e.contains(" on ")),
        "{e}"
    );
    assert_eq!(e.matches("Input/output error").count(), 1, "said once: {e}");
    for r in v["ranks"].as_array().unwrap() {
        // Far from the 60 s asked for: the first error ended every rank's interval.
        let secs = r["runtime_ns"].as_u64().unwrap() as f64 / 1e9;
        assert!(
            secs < 30.0,
            "rank {} ran {secs} s after the error",
            r["rank"]
        );
    }
}

#[test]
fn ctrl_c_on_mpirun_leaves_no_rank_and_no_file() {
    let Some(bin) = mpi_bin() else { return };
    let d = tmpdir();
    // What the ranks and mpirun said, shown when the test fails.
    let err_file = tempfile::NamedTempFile::new().unwrap();
    let dir = d.path().display().to_string();
    let mut child = mpirun(
        4,
        &[],
        &bin,
        &[
            "run",
            "--directory",
            &dir,
            "--size=8m",
            "--runtime=60s",
            "--direct=0",
            "--ioengine=psync",
            "--no-store",
            "-q",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::from(err_file.reopen().unwrap()))
    .spawn()
    .unwrap();
    let began = Instant::now();
    while std::fs::read_dir(d.path()).unwrap().count() < 4
        && began.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    common::interrupt(&child);
    let status = wait_for(&mut child, Duration::from_secs(30));
    assert!(status.is_some(), "mpirun did not end after Ctrl-C");
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    let said = std::fs::read_to_string(err_file.path()).unwrap_or_default();
    assert!(
        left.is_empty(),
        "files left: {left:?}; mpirun said:\n{said}"
    );
    // Only this test's ranks name its directory (other tests run the same binary meanwhile).
    let ranks = Command::new("pgrep").args(["-f", &dir]).output().unwrap();
    assert!(
        ranks.stdout.is_empty(),
        "ranks still running: {}",
        String::from_utf8_lossy(&ranks.stdout)
    );
}

fn wait_for(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let began = Instant::now();
    while began.elapsed() < limit {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    None
}

#[test]
fn a_wrong_launcher_is_refused_and_no_launcher_runs_alone() {
    let Some(bin) = mpi_bin() else { return };
    let d = tmpdir();
    let dir = d.path().display().to_string();
    let args = [
        "run",
        "--directory",
        &dir,
        "--size=1m",
        "--runtime=1s",
        "--direct=0",
        "--ioengine=psync",
        "--no-store",
        "--output-format=volbench-json",
        "-q",
    ];
    // The build without MPI under mpirun: each rank would be alone. Rank 0 is started two
    // seconds after the other, as on a busy host: mpirun kills the job when a rank exits
    // non-zero, and a refusal rank 1 made first had killed rank 0 before it said why.
    let plain = assert_cmd::cargo::cargo_bin("volbench");
    let late = d.path().join("late-rank-0.sh");
    std::fs::write(
        &late,
        format!(
            "#!/bin/sh\n[ \"$OMPI_COMM_WORLD_RANK\" = 0 ] && sleep 2\nexec {} \"$@\"\n",
            plain.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&late, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for bin in [&plain, &late] {
        let o = mpirun(2, &[], bin, &args).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(lines.len(), 1, "said once ({}): {err}", bin.display());
        assert!(
            lines[0].contains("built without MPI") && lines[0].contains("OMPI_COMM_WORLD_SIZE=2"),
            "{err}"
        );
    }
    // The MPI build started by another MPI's launcher (its variables, a world of one here).
    let o = Command::new(&bin)
        .args(args)
        .env("PMI_SIZE", "3")
        .env("PMI_RANK", "0")
        .env("VOLBENCH_STORE", test_store())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("PMI_SIZE=3") && err.contains("sees only this one"),
        "{err}"
    );
    // No launcher: an ordinary single run.
    let o = ok(Command::new(&bin)
        .args(args)
        .env("VOLBENCH_STORE", test_store())
        .output()
        .unwrap());
    let v = json_of(&o);
    assert!(v.get("ranks").is_none() && v["group"]["read"]["total_ios"].as_u64().unwrap() > 0);
}

#[test]
fn a_sweep_runs_every_point_on_every_rank() {
    let Some(bin) = mpi_bin() else { return };
    let d = tmpdir();
    let dir = d.path().display().to_string();
    let o = ok(mpirun(
        2,
        &[],
        &bin,
        &[
            "sweep",
            "--directory",
            &dir,
            "--bs=4k,64k",
            "--size=8m",
            "--runtime=1s",
            "--direct=0",
            "--ioengine=psync",
            "--no-store",
            "--output-format=volbench-json",
            "-q",
        ],
    )
    .output()
    .unwrap());
    let v = json_of(&o);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        let rows = r["report"]["ranks"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        let sum: u64 = rows
            .iter()
            .map(|x| x["read"]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(
            sum,
            r["report"]["group"]["read"]["total_ios"].as_u64().unwrap()
        );
    }
}

#[test]
fn two_emulated_hosts_share_a_directory_and_store_one_result() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    let hosts = Hosts::new(2);
    let d = tmpdir();
    let dir = d.path().display().to_string();
    let store = d.path().join("history.db").display().to_string();
    let spec = format!("{}:2,{}:2", hosts.addrs[0], hosts.addrs[1]);
    let agent = hosts.agent.display().to_string();
    let subnet = hosts.subnet();
    let launcher = [
        "--host",
        &spec,
        "--mca",
        "plm_rsh_agent",
        &agent,
        "--mca",
        "oob_tcp_if_include",
        &subnet,
        "--mca",
        "btl_tcp_if_include",
        &subnet,
    ];
    let run = || {
        let mut c = mpirun(
            4,
            &launcher,
            &bin,
            &[
                "run",
                "--directory",
                &dir,
                "--rw=randread",
                "--size=8m",
                "--runtime=1s",
                "--direct=0",
                "--ioengine=psync",
                "--store",
                &store,
                "--output-format=volbench-json",
                "-q",
            ],
        );
        c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        json_of(&ok(c.output().unwrap()))
    };
    let v = run();
    let so = &v["scaleout"];
    let hs: Vec<(String, Vec<u64>)> = so["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["host"].as_str().unwrap().to_string(),
                h["ranks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_u64().unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        hs,
        [
            ("emuhost0".to_string(), vec![0, 1]),
            ("emuhost1".to_string(), vec![2, 3])
        ]
    );
    for r in v["ranks"].as_array().unwrap() {
        let want = if r["rank"].as_u64().unwrap() < 2 {
            "emuhost0"
        } else {
            "emuhost1"
        };
        assert_eq!(r["host"], want);
    }
    let sum: u64 = v["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["read"]["total_ios"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, v["group"]["read"]["total_ios"].as_u64().unwrap());
    // Stored once per run, and two runs compare like any two runs.
    run();
    let hist = ok_json(volbench().args(["history", "--store", &store, "--output-format", "json"]));
    assert_eq!(hist.as_array().unwrap().len(), 2, "{hist}");
    let cmp = ok_stdout(volbench().args(["compare", "--store", &store, "1", "2"]));
    assert!(cmp.contains("IOPS") || cmp.contains("iops"), "{cmp}");
    // The HTML report has the host and rank rows.
    let page = d.path().join("r.html");
    ok_stdout(
        volbench()
            .args(["report", "--store", &store, "2", "--output"])
            .arg(&page),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Per rank") && html.contains("emuhost1") && html.contains("IOPS per rank")
    );
}

/// Regression (issue 20): `--shared-file` on a device without `--size` failed on every rank
/// ("--size=1073741824 plus --offset=... does not fit"). A device is the whole target, split
/// among the ranks: four ranks on a 64 MiB device each read their own 16 MiB, every byte of
/// it once (size-based, sequential), and the kernel saw exactly that.
#[test]
fn shared_file_on_a_device_splits_the_device_among_the_ranks() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let before = block_stat(&z.name());
    let o = ok(mpirun(
        4,
        &[],
        &bin,
        &[
            "run",
            "--filename",
            z.p(),
            "--shared-file",
            "--rw=read",
            "--bs=64k",
            "--ioengine=psync",
            "--time_based=0",
            "--output-format=volbench-json",
            "-q",
        ],
    )
    .output()
    .unwrap());
    let after = block_stat(&z.name());
    let v = json_of(&o);
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    for r in ranks {
        assert_eq!(r["read"]["io_bytes"].as_u64().unwrap(), 16 << 20, "{r}");
    }
    assert_eq!(
        (after[1] - before[1]) * 512,
        64 << 20,
        "the kernel's read bytes"
    );
}

/// Regression (issue 20): an error every rank meets was printed once per rank, with sizes in
/// bytes. Four ranks asking for more than a 64 MiB device holds get one line, "all 4
/// ranks: ...", in units (no 9-digit byte count).
#[test]
fn an_error_all_ranks_meet_is_said_once_in_units() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    let z = Zram::new("64M");
    let o = mpirun(
        4,
        &[],
        &bin,
        &[
            "run",
            "--filename",
            z.p(),
            "--shared-file",
            "--size=1g",
            "--rw=read",
            "--runtime=1s",
        ],
    )
    .output()
    .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("does not fit")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert_eq!(lines[0].matches("does not fit").count(), 1, "{err}");
    assert!(lines[0].contains("all 4 ranks: --size=1g"), "{err}");
    assert!(lines[0].contains("(64.0 MiB)"), "{err}");
    // mpirun stops the other ranks while rank 0 finalizes: nothing is left to stop.
    assert!(!err.contains("stopping:"), "{err}");
    assert!(
        !lines[0]
            .chars()
            .collect::<Vec<_>>()
            .windows(7)
            .any(|w| w.iter().all(char::is_ascii_digit)),
        "a raw byte count: {err}"
    );
}

/// Issue 47's team set-up across hosts: two emulated hosts, each with its own device at the
/// same path (a zram of its own bound there in the host's mount namespace), four ranks over
/// TCP between the namespaces, rank 0 storing the merged result into a PostgreSQL server on
/// the bridge. Each host's row counts what that host's device counted (the kernel's own
/// counters, read by the test), and `serve` shows the stored run with both hosts.
#[test]
fn hosts_on_their_own_devices_store_one_run_in_postgres_and_serve_shows_them() {
    require_root!();
    let Some(bin) = mpi_bin() else { return };
    if db::pg::bindir().is_err() {
        cannot_run!("needs PostgreSQL's server (apt-get install postgresql)");
    }
    let zs = Zram::several(2, "256M");
    let hosts = Hosts::under_lock(2);
    let d = open_dir();
    let at = d.path().join("hostdev");
    let devs: Vec<String> = zs.iter().map(|z| z.p().to_string()).collect();
    let agent = hosts.agent_with_devices(&devs, &at);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let c = db::pg::Cluster::start_with(
        d.path(),
        &db::pg::Serving {
            listen: Some(hosts.gateway()),
            port: Some(port),
            hba: vec![format!("host all all {} trust", hosts.subnet())],
            tls: None,
        },
    )
    .unwrap();
    let user = c.parts().2;
    let url = format!("postgresql://{user}@{}:{port}/postgres", hosts.gateway());
    let spec = format!("{}:2,{}:2", hosts.addrs[0], hosts.addrs[1]);
    let (agent, subnet, at_s) = (
        agent.display().to_string(),
        hosts.subnet(),
        at.display().to_string(),
    );
    let launcher = [
        "--host",
        &spec,
        "--mca",
        "plm_rsh_agent",
        &agent,
        "--mca",
        "oob_tcp_if_include",
        &subnet,
        "--mca",
        "btl_tcp_if_include",
        &subnet,
        "--mca",
        "rtc",
        "^hwloc",
    ];
    let before: Vec<[u64; 4]> = zs.iter().map(|z| block_stat(&z.name())).collect();
    let mut cmd = mpirun(
        4,
        &launcher,
        &bin,
        &[
            "run",
            "--filename",
            &at_s,
            "--shared-file",
            "--rw=randread",
            "--bs=4k",
            "--size=32m",
            "--runtime=2s",
            "--ioengine=psync",
            "--direct=1",
            "--store",
            &url,
            "--label",
            "two-hosts",
            "--output-format=volbench-json",
            "-q",
        ],
    );
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    let v = json_of(&ok(cmd.output().unwrap()));
    let rows = v["scaleout"]["hosts"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for (i, z) in zs.iter().enumerate() {
        let after = block_stat(&z.name());
        // Reads and read merges: what the device counted while this run read it.
        let kernel = after[0] - before[i][0];
        let row = &rows[i];
        assert_eq!(row["host"], format!("emuhost{i}"));
        let ios = row["ios"].as_u64().unwrap();
        let diff = (kernel as f64 - ios as f64).abs() / ios.max(1) as f64;
        assert!(
            ios > 1000 && diff <= 0.005,
            "host {i}: row {ios} vs its device {kernel}"
        );
    }
    let sum: u64 = rows.iter().map(|r| r["ios"].as_u64().unwrap()).sum();
    assert_eq!(sum, v["group"]["read"]["total_ios"].as_u64().unwrap());
    // Stored once, by rank 0, in the team's store; served with both hosts.
    let hist = ok_json(volbench().args(["history", "--store", &url, "--output-format", "json"]));
    assert_eq!(hist.as_array().unwrap().len(), 1, "{hist}");
    assert_eq!(hist[0]["label"], "two-hosts");
    let (mut serve, addr, _err) = serve_on(&url);
    let (_, _, page) = http(&addr, "GET", "/result/1", "");
    interrupt(&serve);
    let _ = serve.wait();
    assert!(
        page.contains("emuhost0") && page.contains("emuhost1"),
        "{page}"
    );
    assert!(page.contains("Per rank"), "no host and rank tables");
}
