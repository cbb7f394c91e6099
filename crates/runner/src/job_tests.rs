//! The job's loop on its own, below the runner: the null engine for the loop's arithmetic
//! (budgets, loops, syncs, ramp and deadline), and one conformance matrix that runs the same
//! checks on every engine over a real file, reading back what it wrote.

use crate::live::{JobInput, JobOutput, Live, StartLine};
use crate::start::run;
use std::cell::Cell;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};
use workload::{EngineKind, JobSpec, Rw, Verify};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

fn spec(engine: EngineKind, rw: Rw, depth: u32) -> JobSpec {
    JobSpec {
        rw,
        bs: 4 * KIB,
        iodepth: depth,
        ioengine: engine,
        // Size-based unless a test asks for time (volbench's own default is 30 s of time).
        time_based: false,
        runtime: None,
        ..JobSpec::default()
    }
}

/// Runs one job on a thread as the runner does: waits for it at the start line, fixes the
/// epoch, releases it, and lets a closing verify go at once (no kernel counters to read).
fn run_one(spec: JobSpec, fd: i32, region: u64) -> JobOutput {
    let line = Arc::new(StartLine::new(1));
    line.counted.store(true, Relaxed);
    let inp = JobInput {
        spec,
        clone: 0,
        fds: vec![fd],
        regions: vec![(0, region)],
        paths: vec!["/dev/target".into()],
        lbs: 512,
        live: Arc::new(Live::default()),
        stop: Arc::new(AtomicBool::new(false)),
        start: line.clone(),
        flow: Cell::new(None),
        data_seed: (1, 2),
        interval_ns: 1_000_000_000,
        waitees: Vec::new(),
        locks: Vec::new(),
        cgroup: None,
    };
    let job = std::thread::spawn(move || run(inp));
    while line.ready.load(Relaxed) < 1 {
        std::thread::yield_now();
    }
    line.epoch
        .set(Instant::now())
        .expect("the epoch is set once");
    line.barrier.wait();
    job.join().expect("the job thread ends without a panic")
}

fn null(spec: JobSpec, region: u64) -> JobOutput {
    run_one(spec, -1, region)
}

#[test]
fn a_size_based_job_issues_its_region_exactly_once() {
    let out = null(spec(EngineKind::Null, Rw::RandWrite, 8), MIB);
    assert_eq!(out.error, None);
    let w = &out.stats.dirs[1];
    assert_eq!((w.ios, w.bytes), (256, MIB));
    assert_eq!(out.stats.dirs[0].ios, 0);
}

#[test]
fn loops_repeat_the_region_and_number_ios_cuts_it_short() {
    let looped = null(
        JobSpec {
            region: workload::Region {
                loops: 3,
                ..Default::default()
            },
            ..spec(EngineKind::Null, Rw::Read, 4)
        },
        MIB,
    );
    assert_eq!(looped.stats.dirs[0].ios, 3 * 256);
    let cut = null(
        JobSpec {
            region: workload::Region {
                number_ios: Some(100),
                ..Default::default()
            },
            ..spec(EngineKind::Null, Rw::Read, 4)
        },
        MIB,
    );
    assert_eq!(cut.stats.dirs[0].ios, 100);
    // number_ios never extends the work past the region (fio's rule).
    let long = null(
        JobSpec {
            region: workload::Region {
                number_ios: Some(10_000),
                ..Default::default()
            },
            ..spec(EngineKind::Null, Rw::Read, 4)
        },
        MIB,
    );
    assert_eq!(long.stats.dirs[0].ios, 256);
}

#[test]
fn fsync_every_n_writes_issues_one_sync_per_n_but_not_after_the_last() {
    for (every, depth) in [(1, 1), (4, 8), (5, 3)] {
        let out = null(
            JobSpec {
                sync: workload::SyncOptions {
                    sync_every: every,
                    ..Default::default()
                },
                ..spec(EngineKind::Null, Rw::Write, depth)
            },
            64 * 4 * KIB,
        );
        assert_eq!(out.error, None);
        assert_eq!(out.stats.dirs[1].ios, 64);
        let syncs = out.stats.sync.count();
        // One per N writes, but none after the job's last write: fio picks no further I/O
        // then, so the sync due with it is never issued (63 for fsync=1, 15 for 4, 12 for 5).
        assert_eq!(syncs, 63 / every as u64, "fsync={every} iodepth={depth}");
        assert_eq!(out.stats.durable.count(), syncs);
    }
}

#[test]
fn a_time_based_window_ends_at_the_deadline_after_the_ramp() {
    let out = null(
        JobSpec {
            time_based: true,
            // Long enough that a thread starved on a loaded machine still issues in it.
            runtime: Some(Duration::from_millis(400)),
            timing: workload::Timing {
                ramp_time: Duration::from_millis(100),
                ..Default::default()
            },
            ..spec(EngineKind::Null, Rw::RandRead, 16)
        },
        MIB,
    );
    assert_eq!(out.error, None);
    // The measured interval runs from the ramp's end to the deadline, to the nanosecond:
    // the cut is the deadline, never the moment the loop noticed it.
    assert_eq!(out.stats.runtime_ns, 400_000_000);
    assert!(out.stats.dirs[0].ios > 0);
}

#[test]
fn a_rate_cap_is_never_exceeded() {
    let out = null(
        JobSpec {
            time_based: true,
            runtime: Some(Duration::from_millis(200)),
            rates: workload::Rates {
                rate_iops: [1000, 0],
                ..Default::default()
            },
            ..spec(EngineKind::Null, Rw::RandRead, 4)
        },
        MIB,
    );
    let ios = out.stats.dirs[0].ios;
    // 1,000 IOPS over 0.2 s: at most 200, and the first I/O goes at once.
    assert!((1..=201).contains(&ios), "{ios} I/Os");
}

#[test]
fn an_async_engine_splits_slat_from_clat_and_a_sync_one_does_not() {
    let out = null(spec(EngineKind::Null, Rw::Read, 8), MIB);
    let r = &out.stats.dirs[0];
    assert_eq!((r.slat.count(), r.clat.count()), (256, 256));
    let f = tempfile::NamedTempFile::new().expect("a temp file");
    f.as_file().set_len(MIB).expect("the file is sized");
    let psync = run_one(
        spec(EngineKind::Psync, Rw::Read, 1),
        f.as_file().as_raw_fd(),
        MIB,
    );
    let r = &psync.stats.dirs[0];
    assert_eq!((r.slat.count(), r.clat.count()), (0, 256));
}

/// The same checks on each engine: a verified write pass over a real file, read back by the
/// job's closing verify and then by this test, byte for byte. The null engine moves no data,
/// so it answers for the counts alone.
#[test]
fn every_engine_writes_what_it_is_asked_and_reads_it_back() {
    use EngineKind::*;
    for engine in [IoUring, Libaio, Psync, Null] {
        let depth = if engine == Psync { 1 } else { 16 };
        let moves_data = engine != Null;
        let f = tempfile::NamedTempFile::new().expect("a temp file");
        f.as_file().set_len(2 * MIB).expect("the file is sized");
        let job = JobSpec {
            checking: workload::Checking {
                verify: moves_data.then_some(Verify::Crc32c),
                do_verify: moves_data,
                ..Default::default()
            },
            ..spec(engine, Rw::RandWrite, depth)
        };
        let out = run_one(job, f.as_file().as_raw_fd(), 2 * MIB);
        assert!(
            out.setup_error.is_none(),
            "{engine:?}: {:?}",
            out.setup_error
        );
        assert_eq!(out.error, None, "{engine:?}");
        let w = &out.stats.dirs[1];
        assert_eq!((w.ios, w.bytes), (512, 2 * MIB), "{engine:?}");
        assert_eq!(w.clat.count(), 512, "{engine:?}");
        if !moves_data {
            continue;
        }
        assert_eq!(
            out.verified, 512,
            "{engine:?}: the closing verify read every block"
        );
        // Every block was written once: none is left as the zeros the file was sized with.
        let data = std::fs::read(f.path()).expect("the file reads back");
        let zero_blocks = data.chunks(4096).filter(|b| b.iter().all(|&x| x == 0));
        assert_eq!(zero_blocks.count(), 0, "{engine:?}");
    }
}

/// A trace of `n` I/Os `gap_us` apart (reads and writes in turn, 4 KiB at distinct offsets),
/// with a sync after the first and a trim after the second, as fio's iolog v3.
fn iolog(dir: &std::path::Path, n: u64, gap_us: u64) -> std::path::PathBuf {
    let p = dir.join("t.iolog");
    let mut s = String::from("fio version 3 iolog\n1 /dev/src add\n1 /dev/src open\n");
    for i in 0..n {
        let op = if i % 2 == 0 { "read" } else { "write" };
        s += &format!("{} /dev/src {op} {} 4096\n", 1 + i * gap_us, i * 8192);
        match i {
            0 => s += &format!("{} /dev/src sync\n", 1 + i * gap_us),
            1 => s += &format!("{} /dev/src trim 0 4096\n", 1 + i * gap_us),
            _ => {}
        }
    }
    std::fs::write(&p, s).unwrap();
    p
}

fn replaying(trace: &std::path::Path, depth: u32) -> JobSpec {
    let mut s = spec(EngineKind::Null, Rw::RandRw, depth);
    s.replay.read_iolog = Some(trace.to_path_buf());
    s
}

#[test]
fn a_replay_issues_every_traced_io_no_sooner_than_due_and_counts_its_lag() {
    let dir = tempfile::tempdir().unwrap();
    let t = iolog(dir.path(), 100, 1000);
    let started = Instant::now();
    let out = null(replaying(&t, 4), 16 * MIB);
    assert_eq!(out.error, None);
    let d = &out.stats.dirs;
    assert_eq!((d[0].ios, d[1].ios), (50, 50));
    assert_eq!((d[0].bytes, d[1].bytes), (50 * 4096, 50 * 4096));
    // The last I/O is due 99 ms in: a replay that keeps the trace's time cannot end sooner.
    assert!(started.elapsed() >= Duration::from_millis(99));
    let r = out.stats.replay.as_ref().unwrap();
    assert_eq!(r.lag.count(), 100, "every I/O's lag is counted");
    let c = out.replay.unwrap();
    assert_eq!((c.syncs, c.trims, c.skipped, c.wrapped), (1, 1, 0, 0));
    assert_eq!(out.stats.sync.count(), 1, "the traced flush is an fsync");
}

#[test]
fn a_replay_at_max_speed_keeps_order_without_waiting_and_loops_repeat_it() {
    let dir = tempfile::tempdir().unwrap();
    // 200 I/Os a second apart: three minutes if the times were kept.
    let t = iolog(dir.path(), 200, 1_000_000);
    let mut s = replaying(&t, 8);
    s.replay.no_stall = true;
    s.region.loops = 3;
    let out = null(s, 16 * MIB);
    assert_eq!(out.error, None);
    assert_eq!(out.stats.total_ios(), 600);
    assert!(
        out.stats.runtime_ns < 60_000_000_000,
        "no_stall waited for the trace's times"
    );
    assert_eq!(
        out.stats.replay.as_ref().unwrap().lag.count(),
        0,
        "no due times at max"
    );
}

#[test]
fn a_replay_refuses_an_offset_past_a_small_target_unless_it_wraps() {
    let dir = tempfile::tempdir().unwrap();
    let t = iolog(dir.path(), 40, 10);
    let mut s = replaying(&t, 4);
    s.replay.no_stall = true;
    // The trace reaches 40 * 8 KiB = 320 KiB; the region holds 64 KiB.
    let out = null(s.clone(), 64 * KIB);
    let e = out.error.unwrap();
    assert!(
        e.contains("past its 65536 bytes") && e.contains("--wrap"),
        "{e}"
    );
    s.replay.wrap = true;
    let out = null(s, 64 * KIB);
    assert_eq!(out.error, None);
    assert_eq!(out.stats.total_ios(), 40);
    assert!(out.replay.unwrap().wrapped > 0);
}
