//! Record and replay against the real thing: a recording of a known run holds every I/O the
//! run issued (its own iolog) and as many as the kernel counted; a replay on another device
//! issues the trace's I/Os as the device's counters and an strace of the offsets see them,
//! as fio's read_iolog does the same trace; blktrace's files read as blkparse reads them; a
//! killed recording leaves tracing as found once the next volbench starts; and a trace of any
//! length replays in the same memory.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

type Ios = HashMap<(char, u64, u64), u32>;

/// The (op, offset, len) multiset of a volbench trace's reads and writes.
fn trace_ios(p: &Path) -> Ios {
    let mut m = Ios::new();
    for l in std::fs::read_to_string(p).unwrap().lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if l.starts_with('#') || f.len() != 6 || !matches!(f[1], "R" | "W" | "WF") {
            continue;
        }
        let k = (
            f[1].chars().next().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        *m.entry(k).or_default() += 1;
    }
    m
}

/// The same multiset from fio's iolog v3 (what volbench's write_iolog wrote).
fn iolog_ios(p: &Path) -> Ios {
    let mut m = Ios::new();
    for l in std::fs::read_to_string(p).unwrap().lines().skip(1) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let op = match f.get(2) {
            Some(&"read") => 'R',
            Some(&"write") => 'W',
            _ => continue,
        };
        *m.entry((op, f[3].parse().unwrap(), f[4].parse().unwrap()))
            .or_default() += 1;
    }
    m
}

/// Percentile `p` of a LatencySummary in JSON.
fn pct(l: &Value, p: f64) -> u64 {
    l["percentiles"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["p"].as_f64() == Some(p)))
        .and_then(|x| x["ns"].as_u64())
        .unwrap_or_else(|| panic!("no p{p} in {l}"))
}

fn count(m: &Ios, op: char) -> (u64, u64) {
    m.iter()
        .filter(|(k, _)| k.0 == op)
        .fold((0, 0), |(n, b), (k, c)| {
            (n + *c as u64, b + k.2 * *c as u64)
        })
}

fn instance_of(pid: u32) -> PathBuf {
    PathBuf::from(format!("/sys/kernel/tracing/instances/volbench-{pid}"))
}

/// Starts `volbench trace record DEV` and returns once its tracing is on.
fn start_recording(dev: &str, out: &Path) -> std::process::Child {
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("volbench"))
        .env("VOLBENCH_STORE", test_store())
        .args(["trace", "record", dev, "--duration", "60s", "--output"])
        .arg(out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let on = instance_of(child.id()).join("tracing_on");
    let t0 = Instant::now();
    while std::fs::read_to_string(&on).map_or(true, |s| s.trim() != "1") {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the recording never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn settle() {
    let _ = std::process::Command::new("udevadm").arg("settle").status();
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn a_recording_holds_every_io_of_a_known_run_and_the_kernels_count() {
    require_root!();
    let dir = tmpdir();
    let z = Zram::new("256M");
    settle();
    let (trace, issued) = (
        dir.path().join("app.trace"),
        dir.path().join("issued.iolog"),
    );
    let rec = start_recording(z.p(), &trace);
    settle();
    let before = block_stat(&z.name());
    let run = ok_json(volbench().args([
        "run",
        "--output-format=volbench-json",
        &format!("--filename={}", z.p()),
        "--rw=randrw",
        "--bs=4k,16k",
        "--direct=1",
        "--ioengine=libaio",
        "--iodepth=4",
        "--size=64m",
        "--number_ios=3000",
        "--randseed=42",
        &format!("--write_iolog={}", issued.display()),
        "--no-store",
        "-q",
    ]));
    // udev may read the device once the run closes it: those reads are in the trace and in
    // the counters alike, so the window is closed once it has settled.
    settle();
    let after = block_stat(&z.name());
    interrupt(&rec);
    let inst = instance_of(rec.id());
    let out = rec.wait_with_output().unwrap();
    succeeded(&out, "");
    assert!(!inst.exists(), "Ctrl-C left the tracefs instance");
    let (got, want) = (trace_ios(&trace), iolog_ios(&issued));
    assert_eq!(count(&want, 'R').0 + count(&want, 'W').0, 3000);
    for (k, n) in &want {
        assert!(
            got.get(k).is_some_and(|g| g >= n),
            "issued {k:?} x{n}, not all in the trace"
        );
    }
    // Anything more is another reader's (udev probing the device after the run): reads only.
    let extra: Vec<_> = got.iter().filter(|(k, n)| want.get(k) != Some(n)).collect();
    assert!(
        extra.iter().all(|(k, _)| k.0 == 'R'),
        "writes nobody issued: {extra:?}"
    );
    let (r, w) = (count(&got, 'R'), count(&got, 'W'));
    assert_eq!(
        [r.0, r.1 / 512, w.0, w.1 / 512],
        [0, 1, 2, 3].map(|i| after[i] - before[i]),
        "the trace against the kernel's counters (ios, sectors)"
    );
    // The device's latency as traced (queue to completion) lies inside each I/O's latency as
    // the run measured it (issue to reap), so every percentile of the one is at most the
    // other's (traced times are whole µs: 1 µs of slack, and HDR's 0.1 %).
    let sum = ok_json(
        volbench()
            .args(["trace", "summary"])
            .arg(&trace)
            .args(["--output-format", "json"]),
    );
    let (traced, measured) = (&sum["latency"][1], &run["group"]["write"]["lat_ns"]);
    for p in [50.0, 90.0, 99.0] {
        let (t, m) = (pct(traced, p), pct(measured, p));
        assert!(
            t <= m + m / 100 + 1000,
            "write p{p}: traced {t} ns, measured {m} ns"
        );
    }
    assert!(
        pct(traced, 50.0) > 0,
        "the trace's write latency is empty: {traced}"
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .all(|l| !l.contains(" - ")),
        "every I/O has its completion"
    );
}

/// Regression (issue 42): a trace recorded on a 256 MiB device, reaching its last block, was
/// refused on another 256 MiB device ("the trace reaches 256.0 MiB into its target, which has
/// 256.0 MiB"). Record on one, replay on one of the same size: the same counts on both.
#[test]
fn a_trace_of_a_whole_device_replays_on_another_of_its_size() {
    require_root!();
    let dir = tmpdir();
    let zs = Zram::several(2, "64M");
    settle();
    let trace = dir.path().join("whole.trace");
    let rec = start_recording(zs[0].p(), &trace);
    settle();
    ok_json(volbench().args([
        "run",
        "--output-format=volbench-json",
        &format!("--filename={}", zs[0].p()),
        "--rw=randrw",
        "--bs=4k",
        "--direct=1",
        "--number_ios=2000",
        "--no-store",
        "-q",
    ]));
    // The device's last 1 MiB, as udev's probe and a whole-device fio reach it.
    ok_json(volbench().args([
        "run",
        "--output-format=volbench-json",
        &format!("--filename={}", zs[0].p()),
        "--rw=write",
        "--bs=1m",
        "--offset=63m",
        "--size=1m",
        "--direct=1",
        "--no-store",
        "-q",
    ]));
    settle();
    interrupt(&rec);
    assert!(rec.wait_with_output().unwrap().status.success());
    let got = trace_ios(&trace);
    let (r, w) = (count(&got, 'R'), count(&got, 'W'));
    assert!(
        got.keys().any(|k| k.1 + k.2 == 64 << 20),
        "the trace does not reach the device's end"
    );
    let v = ok_json(volbench().args([
        "replay",
        trace.to_str().unwrap(),
        &format!("--filename={}", zs[1].p()),
        "--speed=max",
        "--allow-destructive",
        "--output-format=volbench-json",
        "-q",
        "--no-store",
    ]));
    assert_eq!(
        reported_kernel(&v),
        [r.0, r.1 / 512, w.0, w.1 / 512],
        "the replay on the same-size device against the trace"
    );
}

/// A trace of `n` I/Os on `name` (reads and writes of 4 KiB to 64 KiB at distinct offsets
/// in 64 MiB, `gap_us` apart, each completing 50 µs later), written in volbench's format.
fn synthetic(dir: &Path, name: &str, n: u64, gap_us: u64) -> PathBuf {
    let p = dir.join("synthetic.trace");
    let mut s = format!("# volbench trace v1\n# method test\n# file 0 {name}\n");
    let mut x: u64 = 12345;
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = 4096u64 << ((x >> 33) % 5);
        let off = (i % 1024) * 65536;
        let op = if (x >> 40) % 10 < 6 { "R" } else { "W" };
        let at = i * gap_us * 1000;
        let _ = writeln!(s, "{at} {op} {off} {len} {} 0", at + 50_000);
    }
    std::fs::write(&p, s).unwrap();
    p
}

/// The last `n` reads and writes in an strace log (the replay's; the safety check's reads of
/// the device's first blocks come before them).
fn strace_ios(log: &str, n: usize, dev: &str) -> Ios {
    let mut all = Vec::new();
    // strace -y names each call's file: only the device's calls are the replay's.
    let on_dev = format!("{dev}>");
    for l in log.lines().filter(|l| l.contains(&on_dev)) {
        let op = if l.contains("pread64(") || l.contains("preadv2(") {
            'R'
        } else if l.contains("pwrite64(") || l.contains("pwritev2(") {
            'W'
        } else {
            continue;
        };
        let Some((call, ret)) = l.rsplit_once(" = ") else {
            continue;
        };
        let len: u64 = match ret.trim().parse() {
            Ok(v) => v,
            Err(_) => continue,
        };
        let args = call.trim_end_matches(')');
        let off = args.rsplit(", ").find_map(|a| a.parse::<u64>().ok());
        if let Some(off) = off {
            all.push((op, off, len));
        }
    }
    let mut m = Ios::new();
    for k in &all[all.len().saturating_sub(n)..] {
        *m.entry(*k).or_default() += 1;
    }
    m
}

/// The kernel's counters volbench read around its run: (reads, read sectors, writes, write
/// sectors), as `block_stat` gives them.
fn reported_kernel(v: &Value) -> [u64; 4] {
    let k = &v["environment"]["targets"][0]["kernel_counters"];
    [
        u(k, "/read_ios") + u(k, "/read_merges"),
        u(k, "/read_bytes") / 512,
        u(k, "/write_ios") + u(k, "/write_merges"),
        u(k, "/write_bytes") / 512,
    ]
}

#[test]
fn a_replay_issues_the_trace_as_the_devices_counters_strace_and_fio_see_it() {
    require_root!();
    require_tool!("strace");
    require_tool!("fio");
    let dir = tmpdir();
    let z = Zram::new("256M");
    settle();
    // 1,500 I/Os 400 µs apart: 0.6 s of trace, named as the target so fio replays it as is.
    let trace = synthetic(dir.path(), z.p(), 1500, 400);
    let want = trace_ios(&trace);
    let cmd = [
        assert_cmd::cargo::cargo_bin("volbench")
            .display()
            .to_string(),
        "replay".into(),
        trace.display().to_string(),
        format!("--filename={}", z.p()),
        "--ioengine=psync".into(),
        "--output-format=volbench-json".into(),
        "-q".into(),
        "--no-store".into(),
    ];
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let whole = block_stat(&z.name());
    let (log, json) = strace(
        dir.path(),
        &["-y", "-e", "trace=pread64,pwrite64,preadv2,pwritev2"],
        &cmd,
    );
    let whole = [0, 1, 2, 3].map(|i| block_stat(&z.name())[i] - whole[i]);
    assert!(
        strace_ios(&log, 1500, z.p()) == want,
        "strace's offsets and sizes differ from the trace's"
    );
    let (r, w) = (count(&want, 'R'), count(&want, 'W'));
    let kernel = [r.0, r.1 / 512, w.0, w.1 / 512];
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        reported_kernel(&v),
        kernel,
        "volbench's replay against the kernel"
    );
    // The safety check's reads before the run (blkid -p: the trace writes) are said, and the
    // device saw them beside the replay's own (udev may add its own probe once the device,
    // written, is closed: at most as many again).
    let checked = u(&v["environment"]["targets"][0], "/checked_reads/ios");
    let extra = whole[0] - kernel[0];
    assert!(
        checked > 0 && checked <= extra && extra <= 2 * checked,
        "checked {checked} reads; the device saw {extra} beyond the replay's"
    );
    let rp = &v["jobs"][0]["replay"];
    assert_eq!(rp["trace_ios"], 1500);
    // The synthetic trace's last I/O is issued at 1499 x 400 µs and completes 50 µs later;
    // each completes 50 µs after its issue where it was "recorded".
    assert_eq!(u(rp, "/trace_ns"), 1499 * 400_000 + 50_000);
    assert!(
        u(rp, "/replay_ns") >= 1499 * 400_000,
        "ended before its last I/O was due: {rp}"
    );
    for row in rp["latency"].as_array().unwrap() {
        let p50 = pct(&row["recorded"], 50.0);
        assert!(
            p50.abs_diff(50_000) <= 100,
            "recorded p50 {p50} ns, traced 50 µs: {row}"
        );
    }
    assert!(rp["lag_ns"].is_object(), "the lag at 1x: {rp}");
    assert!(rp["latency"]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| !x["recorded"].is_null())));
    // fio replays the same trace, converted to its iolog.
    let iolog = dir.path().join("t.iolog");
    ok_stdout(
        volbench()
            .args(["trace", "convert"])
            .arg(&trace)
            .args(["--to", "fio", "--output"])
            .arg(&iolog),
    );
    let before = block_stat(&z.name());
    let fio = fio_json(std::process::Command::new("fio").args([
        "--name=r",
        &format!("--read_iolog={}", iolog.display()),
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=8",
    ]));
    let after = block_stat(&z.name());
    let fio_ios = [
        u(&fio, "/jobs/0/read/total_ios"),
        u(&fio, "/jobs/0/write/total_ios"),
    ];
    assert_eq!(fio_ios, [r.0, w.0], "fio's replay of the converted trace");
    assert_eq!(
        [0, 1, 2, 3].map(|i| after[i] - before[i]),
        kernel,
        "fio's replay against the kernel"
    );
}

#[test]
fn blktrace_files_read_as_blkparse_reads_them_and_replay_as_fio_replays_them() {
    require_root!();
    require_tool!("blkparse");
    require_tool!("fio");
    let dir = tmpdir();
    let z = Zram::new("256M");
    settle();
    let trace = synthetic(dir.path(), z.p(), 800, 100);
    let want = trace_ios(&trace);
    let base = dir.path().join("dev");
    ok_stdout(
        volbench()
            .args(["trace", "convert"])
            .arg(&trace)
            .args(["--to", "blktrace", "--output"])
            .arg(&base),
    );
    let parsed = stdout_of(
        {
            let mut c = std::process::Command::new("blkparse");
            c.arg("-i")
                .arg(&base)
                .arg("-d")
                .arg(dir.path().join("dump.bin"));
            c
        },
        "blkparse",
    );
    let parsed = String::from_utf8_lossy(&parsed);
    let queued = parsed
        .lines()
        .filter(|l| l.split_whitespace().nth(5) == Some("Q"))
        .count();
    assert_eq!(queued, 800, "blkparse's queue events");
    // volbench reads the per-CPU files back: the same I/Os, in order, with their latency.
    let sum = ok_json(
        volbench()
            .args(["trace", "summary"])
            .arg(dir.path().join("dev.blktrace.0"))
            .args(["--output-format", "json"]),
    );
    let (r, w) = (count(&want, 'R'), count(&want, 'W'));
    assert_eq!([u(&sum, "/ios/0"), u(&sum, "/ios/1")], [r.0, w.0]);
    assert_eq!(sum["format"], "blktrace");
    assert!(sum["latency"][0].is_object(), "completions paired: {sum}");
    let kernel_of = |f: &dyn Fn()| {
        let b = block_stat(&z.name());
        f();
        let a = block_stat(&z.name());
        [0, 1, 2, 3].map(|i| a[i] - b[i])
    };
    let v = ok_json(volbench().arg("replay").arg(&base).args([
        &format!("--filename={}", z.p()),
        "--no-store",
        "-q",
        "--output-format=volbench-json",
    ]));
    let vb = reported_kernel(&v);
    assert_eq!(
        vb,
        [r.0, r.1 / 512, w.0, w.1 / 512],
        "volbench's replay of the blktrace"
    );
    let fio = kernel_of(&|| {
        fio_json(std::process::Command::new("fio").args([
            "--name=r",
            &format!("--read_iolog={}", dir.path().join("dump.bin").display()),
            &format!("--replay_redirect={}", z.p()),
            "--ioengine=libaio",
            "--direct=1",
            "--iodepth=8",
        ]));
    });
    assert_eq!(fio, vb, "fio's replay of blkparse's dump of the same files");
}

#[test]
fn a_killed_recording_leaves_tracing_as_found_once_volbench_starts_again() {
    require_root!();
    let dir = tmpdir();
    let z = Zram::new("64M");
    let mut rec = start_recording(z.p(), &dir.path().join("k.trace"));
    let inst = instance_of(rec.id());
    rec.kill().unwrap();
    rec.wait().unwrap();
    assert!(
        inst.exists(),
        "SIGKILL leaves the instance for the next start"
    );
    let out = volbench().args(["history"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !inst.exists(),
        "the next volbench did not remove {}",
        inst.display()
    );
    assert!(err.contains("removed the tracefs instance"), "{err}");
}

/// The peak RSS of `volbench ARGS` in KiB, as GNU time reports it (a child forked from this
/// large test process would count the fork's pages before its exec).
fn peak_rss_kib(args: &[String]) -> i64 {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(assert_cmd::cargo::cargo_bin("volbench"))
        .args(args)
        .env("VOLBENCH_STORE", test_store())
        .stdout(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "volbench {args:?} failed: {err}");
    err.lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap()
}

#[test]
fn a_trace_ten_times_longer_replays_in_the_same_memory() {
    if !Path::new("/usr/bin/time").exists() {
        cannot_run!("GNU time is not installed (scripts/test.sh installs the time package)");
    }
    let dir = tmpdir();
    let rss = |n: u64| {
        let d = dir.path().join(n.to_string());
        std::fs::create_dir(&d).unwrap();
        let t = synthetic(&d, "/dev/src", n, 1);
        let args = [
            "replay".to_string(),
            t.display().to_string(),
            format!("--filename={}", d.join("target").display()),
            "--ioengine=null".into(),
            "--speed=max".into(),
            "--no-store".into(),
            "-q".into(),
        ];
        peak_rss_kib(&args)
    };
    let (small, large) = (rss(100_000), rss(1_000_000));
    // 900,000 more I/Os held in memory would be 30 MiB or more; a stream holds none of them.
    assert!(
        large - small < 8 * 1024,
        "RSS {small} KiB for 100k I/Os, {large} KiB for 1M"
    );
}

/// fio's merge_blktrace_file: two blktrace traces merged (the first at 50 % of its time and
/// twice, the second once), then replayed on zram. The merged file holds every I/O of both
/// (the first's twice) in time order over the longer scaled span, and the device's counters
/// see each of them. fio 3.33's merge writes an empty file (it reads each record into the
/// wrong buffer; fixed after 3.33), so the kernel is the reference here.
#[test]
fn merged_blktraces_replay_every_io_of_both_traces() {
    require_root!();
    let dir = tmpdir();
    let z = Zram::new("256M");
    settle();
    let mut want = [(0u64, 0u64); 2];
    let mut inputs = Vec::new();
    for (name, n, gap_us, times) in [("a", 200, 100, 2), ("b", 300, 50, 1)] {
        let t = synthetic(dir.path(), z.p(), n, gap_us);
        let ios = trace_ios(&t);
        for (k, op) in ['R', 'W'].into_iter().enumerate() {
            let (c, b) = count(&ios, op);
            want[k] = (want[k].0 + times * c, want[k].1 + times * b);
        }
        let base = dir.path().join(name);
        ok_stdout(
            volbench()
                .args(["trace", "convert"])
                .arg(&t)
                .args(["--to", "blktrace", "--output"])
                .arg(&base),
        );
        inputs.push(format!("{}.blktrace.0", base.display()));
    }
    let merged = dir.path().join("m.bin");
    let b = block_stat(&z.name());
    let v = ok_json(
        volbench()
            .args(["run", "--name=m", "--ioengine=libaio", "--direct=1"])
            .args([
                &format!("--read_iolog={}", inputs.join(":")),
                &format!("--merge_blktrace_file={}", merged.display()),
                "--merge_blktrace_scalars=50:100",
                "--merge_blktrace_iters=2:1",
                &format!("--replay_redirect={}", z.p()),
                "--no-store",
                "-q",
                "--output-format=volbench-json",
            ]),
    );
    let a = block_stat(&z.name());
    let sum = ok_json(
        volbench()
            .args(["trace", "summary"])
            .arg(&merged)
            .args(["--output-format", "json"]),
    );
    assert_eq!(sum["format"], "blktrace");
    assert_eq!(
        [u(&sum, "/ios/0"), u(&sum, "/ios/1")],
        [want[0].0, want[1].0],
        "the merged I/Os"
    );
    // a: 200 I/Os 100 µs apart at half time, twice: ~20 ms; b: 300 at 50 µs: ~15 ms.
    let span = u(&sum, "/span_ns");
    assert!(
        (18_000_000..22_000_000).contains(&span),
        "the merged span: {span} ns"
    );
    // The device's counters over the replay (volbench reads them around it; the safety
    // check's reads of the device's first blocks come before), and over the whole run.
    let expect = [want[0].0, want[0].1 / 512, want[1].0, want[1].1 / 512];
    assert_eq!(
        reported_kernel(&v),
        expect,
        "the device saw every merged I/O"
    );
    let whole = [0, 1, 2, 3].map(|i| a[i] - b[i]);
    assert_eq!(whole[2..], expect[2..], "no write but the merged ones");
}
