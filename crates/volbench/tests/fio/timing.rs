//! When a job runs (start delays, wait_for, ramp by time or bytes, think time), against fio on
//! the same job.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::time::Instant;

/// ramp_size=8m (fio 3.36) at a paced 1,000 IOPS of 4 KiB: the ramp takes the first 2,048
/// I/Os (about 2 s), then the 2 s runtime counts from its end: 2,000 measured I/Os (the pace
/// fixes them, within 2 %) in a run of at least 4 s.
#[test]
fn ramp_size_warms_up_by_bytes_then_runs_its_runtime() {
    let _disk = shared_disk();
    let d = tmpdir();
    let f = format!("--filename={}", d.path().join("r.dat").display());
    let t0 = Instant::now();
    let v: Value = serde_json::from_str(&ok_stdout(volbench().args([
        "run",
        "--name=r",
        &f,
        "--size=64m",
        "--rw=randread",
        "--bs=4k",
        "--ramp_size=8m",
        "--runtime=2",
        "--time_based",
        "--rate_iops=1000",
        "--output-format=json",
        "-q",
        "--no-store",
    ])))
    .unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let ios = v["jobs"][0]["read"]["total_ios"].as_f64().unwrap();
    assert!((ios - 2000.0).abs() <= 40.0, "{ios} I/Os measured");
    assert!(secs >= 4.0, "the run took {secs:.1} s");
}

/// thinktime_iotime=300ms thinktime=100ms at 1,000 IOPS for 2 s (null engine): 300 ms of
/// I/O then 100 ms idle (fio 3.33's first cycle is 400 ms of I/O); by default the rate
/// catches up after each think (2,000 I/Os in both tools), with rate_ignore_thinktime it
/// does not (about 1,600 in both: 1.6 s of I/O at 1,000 IOPS); within 8 %, which keeps the
/// two apart (a busy machine delays a paced job, more so one that does not catch up).
#[test]
fn thinktime_iotime_and_rate_ignore_thinktime_pace_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    for (ignore, want) in [("0", 2000.0), ("1", 1600.0)] {
        let args = [
            "--name=t",
            "--ioengine=null",
            "--size=1g",
            "--rw=randread",
            "--bs=4k",
            "--rate_iops=1000",
            "--thinktime=100ms",
            "--thinktime_iotime=300ms",
            &format!("--rate_ignore_thinktime={ignore}"),
            "--runtime=2",
            "--time_based",
        ];
        for tool in Tool::BOTH {
            let out = tool.fio_json(&args);
            let ios = u(&out["jobs"][0], "/read/total_ios") as f64;
            assert!(
                (ios / want - 1.0).abs() < 0.08,
                "{tool}, rate_ignore_thinktime={ignore}: {ios} I/Os, not about {want}"
            );
        }
    }
}

/// wait_for=a in a job file of three time-based jobs (a 1 s, b 3 s, c 1 s waiting for a, at
/// 200 IOPS each, psync, strace -y): in fio and volbench c's reads start when a's end (1 s
/// in, within 0.4 s) and end while b still runs; its 200 reads are all done, as are a's and
/// b's. A wait_for naming no earlier job is refused in one line.
#[test]
fn wait_for_starts_a_job_when_the_one_it_names_ends_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let job = d.path().join("wf.fio");
    let text = "[global]\nioengine=psync\nrw=randread\nbs=4k\nsize=4m\nrate_iops=200\n\
                time_based\n[a]\nfilename=a.dat\nruntime=1\n[b]\nfilename=b.dat\nruntime=3\n\
                [c]\nfilename=c.dat\nwait_for=a\nruntime=1\n";
    std::fs::write(&job, text).unwrap();
    let job_s = job.to_str().unwrap();
    for tool in Tool::BOTH {
        for f in ["a", "b", "c"] {
            fill_random(&d.path().join(format!("{f}.dat")), 4 << 20);
        }
        let trace = ["-ttt", "-y", "-e", "trace=pread64"];
        let (log, _) = tool.strace(d.path(), &trace, &[job_s], false);
        let mut span = std::collections::BTreeMap::<char, (f64, f64, u32)>::new();
        for l in log.lines().filter(|l| l.contains(" pread64(")) {
            let t: f64 = l.split_whitespace().nth(1).unwrap().parse().unwrap();
            let Some(at) = l.find(".dat>") else { continue };
            let file = l[..at].chars().last().unwrap();
            let e = span.entry(file).or_insert((t, t, 0));
            (e.1, e.2) = (t, e.2 + 1);
        }
        let t0 = span.values().map(|s| s.0).fold(f64::MAX, f64::min);
        let (a, b, c) = (span[&'a'], span[&'b'], span[&'c']);
        assert!(
            (c.0 - a.1).abs() < 0.4,
            "{tool}: c starts {:.2} s after a ends",
            c.0 - a.1
        );
        assert!(
            c.1 < b.1 - 0.5,
            "{tool}: c ends at {:.2} s, b at {:.2}",
            c.1 - t0,
            b.1 - t0
        );
        // Each job ran its runtime at its rate: a cap, so never over it by more than an edge,
        // and under it only by a busy host's stalls under strace (fio itself read 536 of
        // b's 600 in a fresh clone beside stress-ng).
        let counts = (a.2 as f64, b.2 as f64, c.2 as f64);
        let near = |n: f64, want: f64| (0.75..1.1).contains(&(n / want));
        let all = near(counts.0, 200.0) && near(counts.1, 600.0) && near(counts.2, 200.0);
        assert!(all, "{tool}: reads of a, b, c {counts:?}");
    }
    std::fs::write(&job, text.replace("wait_for=a", "wait_for=z")).unwrap();
    let out = volbench()
        .args(["run", job_s, "-q", "--no-store"])
        .output()
        .unwrap();
    fails_saying(&out, 2, "wait_for=z names no job before it");
}

/// `startdelay=low-high`: each clone waits its own time drawn from the range, as fio draws one
/// per thread. Eight clones under strace, in both tools: each clone's first read comes at
/// least the low end after the program starts, and the clones start spread over the range
/// (never all together, never wider than it).
#[test]
fn a_start_delay_range_spreads_the_clones_over_it() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let job = [
        "--name=late",
        "--startdelay=1-3",
        "--numjobs=8",
        "--size=256k",
        "--rw=read",
        "--ioengine=psync",
    ];
    let trace = ["-ttt", "-y", "-e", "trace=execve,pread64"];
    for tool in Tool::BOTH {
        let (log, _) = tool.strace(d.path(), &trace, &job, false);
        let t = |l: &str| -> f64 { l.split_whitespace().nth(1).unwrap().parse().unwrap() };
        let t0 = t(log.lines().next().unwrap());
        let mut first: std::collections::BTreeMap<&str, f64> = Default::default();
        for l in log
            .lines()
            .filter(|l| l.contains("pread64(") && l.contains("late."))
        {
            let pid = l.split_whitespace().next().unwrap();
            first.entry(pid).or_insert(t(l) - t0);
        }
        let starts: Vec<f64> = first.into_values().collect();
        assert_eq!(starts.len(), 8, "{tool}: {starts:?}");
        let (lo, hi) = starts
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), &s| (a.min(s), b.max(s)));
        assert!(lo >= 1.0, "{tool}: a clone began at {lo:.2} s: {starts:?}");
        assert!(
            hi - lo > 0.2 && hi - lo < 2.0 + 0.5,
            "{tool}: clones began {lo:.2} to {hi:.2} s"
        );
    }
}

#[test]
fn startdelay_and_ramp_time_stay_out_of_the_measurement() {
    let _disk = shared_disk();
    let d = tmpdir();
    let f = d.path().join("s");
    let t = std::time::Instant::now();
    let v = job(d.path(), &format!("[j]\nioengine=null\nfilename={}\nsize=1m\nstartdelay=1\nramp_time=1\nruntime=1\ntime_based\n", f.display()));
    assert!(t.elapsed().as_secs_f64() >= 3.0, "delay + ramp + runtime");
    // The measured interval starts at the common ramp end and ends at or after the deadline:
    // at least the runtime exactly, and far below the 2 s that counting the delay or the ramp
    // would give, whatever the machine's load.
    let secs = u(&v, "/group/runtime_ns") as f64 / 1e9;
    assert!(
        (1.0..2.0).contains(&secs),
        "only the runtime is measured: {secs}"
    );
}

#[test]
fn thinktime_pauses_after_every_n_ios_as_fio() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("t.fio");
    let iops = |v: &Value| v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    // 4 I/Os, then 1 ms of thought: never more than 4,000 IOPS (a think is at least its
    // time), and well above a third of that (an I/O on the null engine or a page-cache read
    // takes microseconds; a loaded CI machine wakes a 1 ms sleep late, which read 1,684 once
    // where an idle one reads 2,900). Counted at completion at depth 1, and at issue at
    // depth 16.
    for extra in [
        "ioengine=null",
        "ioengine=psync",
        "ioengine=libaio\niodepth=16\ndirect=1\nthinktime_blocks_type=issue",
    ] {
        std::fs::write(
            &job,
            format!(
                "[t]\nfilename=tf\nrw=randread\nbs=4k\nsize=8m\nruntime=1\ntime_based\n\
                 thinktime=1000\nthinktime_blocks=4\n{extra}\n"
            ),
        )
        .unwrap();
        let theirs = iops(&fio_on(d.path(), &job, &[]));
        let out = volbench()
            .current_dir(d.path())
            .args([
                "run",
                job.to_str().unwrap(),
                "-q",
                "--no-store",
                "--output-format=json",
            ])
            .output()
            .unwrap();
        let ours = iops(&serde_json::from_slice(&out.stdout).unwrap());
        for (who, v) in [(Tool::Fio, theirs), (Tool::Volbench, ours)] {
            assert!((1400.0..=4040.0).contains(&v), "{extra}: {who} {v:.0} IOPS");
        }
    }
    // The spin part is CPU time: 1 ms of 1 ms spun is a busy thread.
    std::fs::write(
        &job,
        "[t]\nioengine=null\nfilename=tf\nsize=8m\nruntime=1\ntime_based\nthinktime=1000\n\
         thinktime_spin=1000\n",
    )
    .unwrap();
    let v = vb_json(d.path(), &job, &[]);
    let cpu = v["jobs"][0]["cpu"]["usr_percent"].as_f64().unwrap()
        + v["jobs"][0]["cpu"]["sys_percent"].as_f64().unwrap();
    assert!(cpu > 60.0, "spinning shows as CPU: {cpu}");
    // Counted at completion with several in flight, the count depends on when each tool
    // reaps: refused, naming the forms that match fio.
    std::fs::write(
        &job,
        "[t]\nioengine=libaio\niodepth=16\nsize=1m\nthinktime=1000\nthinktime_blocks=8\n",
    )
    .unwrap();
    let err = refusal(&job);
    assert!(err.contains("thinktime_blocks_type=issue"), "{err}");
}

#[test]
fn a_job_that_ends_inside_its_ramp_is_counted_whole_and_warned_about() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // fio resets its figures when the ramp ends; a job done before that keeps its whole run.
    let text = "[r]\nioengine=null\nrw=read\nbs=4k\nsize=8m\nramp_time=2\n";
    let (theirs, ours) = both(d.path(), text, "read");
    assert_eq!(ours, theirs);
    assert_eq!(ours, (2048, 8 << 20));
    let job = d.path().join("j.fio");
    let report = vb_json(d.path(), &job, &[]);
    let ids: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert!(ids.contains(&"ramp_swallowed"), "{ids:?}");
    assert_eq!(report["jobs"][0]["ramp_swallowed"], true);
}
