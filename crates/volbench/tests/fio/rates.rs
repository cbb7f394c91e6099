//! Rate caps and floors and flow between jobs, against fio on the same job and on a throttled
//! device.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;

/// One job under a 500-IOPS throttle with `rate_iops_min`, by `tool`: (its fio-JSON error,
/// seconds it ran).
fn under_floor(cap: &Throttle, tool: Tool, dev: &str, floor: u32) -> (i64, f64) {
    let (err, secs, _) = on_cap(cap, tool, dev, 6, &format!("--rate_iops_min={floor}"));
    (err, secs)
}

/// rate_iops_min over what a 500-IOPS volume gives ends the job after fio's 2 s settling and
/// one cycle, with EIO, in both tools; a floor under it lets both run their 6 s.
#[test]
fn rate_iops_min_ends_a_job_under_its_floor_as_fio_does() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 500, 64 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    for tool in Tool::BOTH {
        let (err, secs) = under_floor(&cap, tool, z.p(), 1000);
        assert_eq!(err, 5, "{tool}: a floor over the cap ends the job with EIO");
        assert!(secs < 5.5, "{tool}: it ran {secs:.1} s of its 6");
        let (err, secs) = under_floor(&cap, tool, z.p(), 200);
        assert_eq!(err, 0, "{tool}: a floor under the cap");
        assert!(secs >= 6.0, "{tool}: it ran {secs:.1} s");
    }
}

#[test]
fn rate_iops_and_rate_cap_the_load() {
    let _disk = shared_disk();
    let d = tmpdir();
    let f = d.path().join("r");
    let v = job(
        d.path(),
        &format!(
            "[j]\nioengine=null\nfilename={}\nsize=1m\nrate_iops=500\nruntime=2\ntime_based\n",
            f.display()
        ),
    );
    let iops = f64::from(v["group"]["read"]["iops"].as_f64().unwrap() as f32);
    assert!(
        (iops - 500.0).abs() / 500.0 < 0.05,
        "rate_iops=500 gave {iops}"
    );
    let v = job(d.path(), &format!("[j]\nioengine=null\nfilename={}\nsize=1m\nrw=write\nbs=64k\nrate=2m\nruntime=2\ntime_based\n", f.display()));
    let bw = v["group"]["write"]["bw_bytes"].as_f64().unwrap();
    assert!(
        (bw - 2.0 * 1048576.0).abs() / (2.0 * 1048576.0) < 0.05,
        "rate=2m gave {bw} B/s"
    );
}

/// Gaps between a program's pread64 calls (strace's timestamps), as the ratio of their 90th
/// percentile to their median: ln 10 / ln 2 = 3.3 for Poisson arrivals (exponential gaps), 1
/// for evenly paced ones. Robust to the one long gap either tool has while starting.
fn pread_gap_spread(dir: &Path, prog: &Path, args: &[&str]) -> (usize, f64) {
    let cmd = [&[prog.to_str().unwrap()][..], args].concat();
    let (text, _) = strace(dir, &["-ttt", "-e", "trace=pread64"], &cmd);
    let ts: Vec<f64> = text
        .lines()
        .filter(|l| l.contains("pread64(") && !l.contains("resumed"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .collect();
    let mut gaps: Vec<f64> = ts.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_by(f64::total_cmp);
    let q = |p: f64| gaps[((gaps.len() - 1) as f64 * p) as usize];
    (ts.len(), q(0.9) / q(0.5))
}

#[test]
fn rate_process_poisson_spaces_ios_at_random_as_fio() {
    // Alone in this binary: another test's threads at normal priority delayed the traced
    // reads by tens of milliseconds (volbench's spread read 19, fio's 9, in a fresh clone's
    // run), where two low-priority busy threads do not.
    let _disk = alone();
    // In memory: a read that waits on the shared disk (200 ms while the suite writes) is
    // followed by a burst of catch-up reads, which made fio's own linear gaps read 9.2.
    let d = tempfile::tempdir_in("/dev/shm").unwrap();
    let job = d.path().join("p.fio");
    let fio = std::path::PathBuf::from("fio");
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    // 400 gaps: the p90/median of exponential gaps is 3.3, of even ones 1. A busy machine
    // delays some wake-ups by a millisecond or more, and at 1,000 IOPS that was the gap
    // itself (fio's own spreads read 9 to 44 beside two busy threads); at 100 IOPS a late
    // wake-up is a tenth of a gap. Each tool's poisson spread must stay well above its own
    // linear one.
    let mut spread = Vec::new();
    for (process, lo, hi) in [("poisson", 2.0, 15.0), ("linear", 0.7, 2.0)] {
        std::fs::write(
            &job,
            format!("[p]\nrw=randread\nbs=4k\nsize=4m\nrate_iops=100\nrate_process={process}\nnumber_ios=400\n"),
        )
        .unwrap();
        let j = job.to_str().unwrap();
        let (n_f, s_f) = pread_gap_spread(d.path(), &fio, &[j]);
        let (n_v, s_v) = pread_gap_spread(d.path(), &vb, &["run", j, "-q", "--no-store"]);
        assert!(n_f >= 400 && n_v >= 400, "{n_f} {n_v}");
        assert!(s_f > lo && s_f < hi, "fio {process}: p90/median {s_f}");
        assert!(
            s_v > lo && s_v < hi,
            "volbench {process}: p90/median {s_v} (fio {s_f})"
        );
        spread.push((s_f, s_v));
    }
    let (p, l) = (spread[0], spread[1]);
    assert!(
        p.0 > 1.5 * l.0 && p.1 > 1.5 * l.1,
        "poisson {p:?} against linear {l:?}"
    );
}

#[test]
fn flow_weights_share_the_ios_as_fio() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("f.fio");
    // Two jobs of one flow at 3:1 and a third in a flow of its own, on the null engine (no
    // device to share, so only the flow sets the ratio).
    std::fs::write(
        &job,
        "[global]\nioengine=null\nsize=1g\nbs=4k\nruntime=2\ntime_based\n\
         [a]\nflow_id=1\nflow=3\n[b]\nflow_id=1\nflow=1\n[c]\nflow_id=2\nflow=1\n",
    )
    .unwrap();
    let ios = |v: &Value| -> Vec<f64> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["read"]["total_ios"].as_f64().unwrap())
            .collect()
    };
    let theirs = ios(&fio_on(d.path(), &job, &[]));
    let out = volbench()
        .args([
            "run",
            job.to_str().unwrap(),
            "-q",
            "--no-store",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let ours = ios(&serde_json::from_slice(&out.stdout).unwrap());
    // volbench's job takes its I/Os 32 at a time and never runs ahead of its share by more
    // than that, so with s I/Os for the lighter job the ratio is within 128 / (s - 32) of 3:
    // at 2,000 or more, within 0.065 (0.09 allowed). A debug build with the other tests of
    // this file beside it on 2 cores did 4,096 in 1 s once (it failed the 5,000 asked before
    // for no fault of the flow): 2 s and the bound the arithmetic needs leave room for that.
    // The reference is the weights, not fio's figures: fio gives 3:1 on an idle machine, but
    // its balance is erratic under load (3.35 in one CI run, 844 against 25,799 in another),
    // so fio is only required to run the same file.
    assert!(
        theirs.len() == 3 && theirs.iter().all(|&n| n > 0.0),
        "fio: {theirs:?}"
    );
    assert!(ours[1] >= 2000.0, "volbench: {ours:?}");
    assert!((ours[0] / ours[1] - 3.0).abs() < 0.09, "volbench: {ours:?}");
    // A weight out of fio's range is refused where it is written.
    std::fs::write(&job, "[a]\nioengine=null\nflow=1001\n").unwrap();
    let err = refusal(&job);
    assert!(
        err.contains("f.fio:3") && err.contains("0 to 1000"),
        "{err}"
    );
}

/// On a device-bound target (a throttled zram device), IOPS and bandwidth agree with fio's
/// within 5 %, and volbench's I/O counts match the kernel's (less the final queue in flight).
#[test]
fn matches_fio_on_a_throttled_device() {
    // Alone in this binary: each tool's rate is compared within 5 %, and another test's
    // threads at normal priority, taking the CPUs during one tool's run and not the other's,
    // moved one by 9-15 % in a fresh clone's run.
    let _disk = alone();
    require_root!();
    require_tool!("fio");
    let z = Zram::new("256M");
    fill_random(&z.path, 256 << 20);
    let Some(cap) = Throttle::new(z.p(), 2000, 32 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let cases: &[(&str, &str, u32, u32, u32)] = &[
        // rw, bs, iodepth, numjobs, fsync
        ("randread", "4k", 32, 1, 0),
        ("randwrite", "4k", 32, 1, 0),
        // QD4: at QD1 the rate is each tool's wake-up, not the throttle (a fresh clone's run
        // beside other tests read 2,296 against fio's 2,712).
        ("randrw", "4k", 4, 1, 0),
        ("read", "64k", 32, 1, 0),
        // QD4, not 32: 32 MiB in flight at 32 MiB/s is a second of queue, and at the window's
        // end fio waits for it and adds that second to its runtime (3.9 s for a 3 s job, 25
        // IOPS with a ramp) where volbench closes the window at the deadline.
        ("write", "1m", 4, 1, 0),
        ("randread", "4k", 32, 2, 0),
        ("randwrite", "4k", 1, 1, 1),
    ];
    let d = tmpdir();
    for &(rw, bs, qd, nj, fsync) in cases {
        // The same job file through both tools. ramp_time keeps the throttle's first slice out
        // of both measurements: blkio lets a fresh cgroup run ahead of its rate for a moment,
        // which once put one tool 5.2 % above the other in a 3 s run.
        let job = write_job(
            d.path(),
            "x.fio",
            &format!(
                "[x]\nfilename={}\nrw={rw}\nrwmixread=70\nbs={bs}\niodepth={qd}\nnumjobs={nj}\nfsync={fsync}\nioengine=libaio\ndirect=1\nramp_time=1\nruntime=3\ntime_based\ngroup_reporting\n",
                z.p()
            ),
        );
        let job = job.to_str().unwrap().to_string();
        let label = format!("{rw} {bs} QD{qd} x{nj} fsync={fsync}");
        let theirs: Value =
            serde_json::from_slice(&cap.run("fio", &[job.clone(), "--output-format=json".into()]))
                .unwrap();
        let before = block_stat(&z.name());
        let ours: Value = serde_json::from_slice(&cap.run(
            vb.to_str().unwrap(),
            &[
                "run".into(),
                job,
                "--output-format=json".into(),
                "-q".into(),
                "--allow-destructive".into(),
            ],
        ))
        .unwrap();
        let after = block_stat(&z.name());
        let get = |v: &Value, d: &str, k: &str| v["jobs"][0][d][k].as_f64().unwrap();
        // The throttle fixes the total rate, so totals agree within 5 %. How a random mix
        // splits it between reads and writes is a coin toss per I/O in each tool: per
        // direction the tolerance is six standard deviations of the difference of two
        // binomial shares, which chance does not cross.
        let total = |v: &Value| get(v, "read", "iops") + get(v, "write", "iops");
        let (ft, ot) = (total(&theirs), total(&ours));
        assert!(
            (ot - ft).abs() / ft <= 0.05,
            "{label}: volbench {ot:.0} IOPS in all vs fio {ft:.0}"
        );
        let n = get(&ours, "read", "total_ios") + get(&ours, "write", "total_ios");
        for dir in ["read", "write"] {
            let (f, o) = (get(&theirs, dir, "iops"), get(&ours, dir, "iops"));
            if f < 1.0 && o < 1.0 {
                continue;
            }
            let p = (o / ot).clamp(0.01, 1.0);
            let tol = if p < 1.0 {
                0.05f64.max(6.0 * (2.0 * (1.0 - p) / (n * p)).sqrt())
            } else {
                0.05
            };
            assert!(
                (o - f).abs() / f <= tol,
                "{label} {dir}: volbench {o:.0} IOPS vs fio {f:.0} (tolerance {:.1}%)",
                tol * 100.0
            );
            let (f, o) = (get(&theirs, dir, "bw_bytes"), get(&ours, dir, "bw_bytes"));
            assert!(
                (o - f).abs() / f <= tol,
                "{label} {dir}: volbench {o:.0} B/s vs fio {f:.0}"
            );
        }
        // The kernel splits nothing at these sizes on zram, so its count is volbench's plus
        // the ramp's I/Os (1 s at the throttled rate the run measured, give or take the
        // throttle's first slice) and the I/Os still in flight when the window closed (reaped
        // after it and not counted, as fio counts: at most one queue per job). The ramp's
        // share must be there, or the ramp was counted; and no more, or I/Os were lost.
        let ios = get(&ours, "read", "total_ios") + get(&ours, "write", "total_ios");
        let kernel = (after[0] - before[0] + after[2] - before[2]) as f64;
        let tail = (qd * nj) as f64;
        let ramp = kernel - ios;
        assert!(
            ramp >= 0.8 * ot && ramp <= 1.2 * ot + tail + 0.005 * kernel,
            "{label}: kernel saw {kernel} I/Os, volbench counted {ios}: {ramp} in the 1 s ramp \
             and the tail, against {ot:.0} a second measured and up to {tail} in flight"
        );
    }
}

#[test]
fn a_rate_caps_each_direction_of_a_mixed_job_as_in_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // One value caps reads and writes each; a read drawn while reads wait must not hold back
    // a write that may go (fio's rate_ddir switches direction).
    for (rate, want) in [("rate=64k", [48, 48]), ("rate_iops=20,10", [60, 30])] {
        let text = format!(
            "[r]\nioengine=null\nrw=randrw\nbs=4k\nsize=64m\n{rate}\ntime_based\nruntime=3\n"
        );
        let (theirs_r, ours_r) = both(d.path(), &text, "read");
        let job = d.path().join("j.fio");
        let ours_w = vb_io(&vb_json(d.path(), &job, &[]), "write");
        let theirs_w = fio_io(&fio_on(d.path(), &job, &[]), "write");
        // Paced I/Os: the counts are the rate times the runtime, give or take the one
        // banked or cut at either end.
        for (dir, ours, theirs, want) in [
            ("read", ours_r.0, theirs_r.0, want[0]),
            ("write", ours_w.0, theirs_w.0, want[1]),
        ] {
            assert!(
                ours.abs_diff(want) <= 2,
                "{rate} {dir}: volbench {ours}, want {want}"
            );
            assert!(
                theirs.abs_diff(want) <= 2,
                "{rate} {dir}: fio {theirs}, want {want}"
            );
        }
    }
}
