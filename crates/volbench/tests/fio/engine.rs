//! The I/O engines and their own options (io_uring's, libaio's, psync, mmap, the not-I/O engines
//! cpuio, exec, e4defrag, falloc), each against fio: the syscalls strace sees, the kernel's
//! counters.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Std;
use std::time::{Duration, Instant};

/// F_GET_RW_HINT on a file: the write-lifetime hint the kernel keeps on its inode.
fn rw_hint(path: &Path) -> u64 {
    let f = std::fs::File::open(path).unwrap();
    let mut hint: u64 = 0;
    // SAFETY: F_GET_RW_HINT (1024 + 11) writes one u64 through the pointer.
    let rc = unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&f), 1035, &mut hint) };
    assert_eq!(rc, 0, "F_GET_RW_HINT: {}", std::io::Error::last_os_error());
    hint
}

/// write_hint=long leaves RWH_WRITE_LIFE_LONG (4) on the file's inode, as fio leaves it.
#[test]
fn write_hint_is_set_on_the_file_as_fio_sets_it() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    for (tool, name) in [(Tool::Fio, "f.dat"), (Tool::Volbench, "v.dat")] {
        let file = d.path().join(name);
        let args = [
            "--name=t".to_string(),
            format!("--filename={}", file.display()),
            "--rw=write".into(),
            "--size=1m".into(),
            "--write_hint=long".into(),
        ];
        let out = tool.run(&args, &[]);
        succeeded(&out, format_args!("{tool}"));
        assert_eq!(rw_hint(&file), 4, "{tool}'s file");
    }
}

/// The scheduler in use on a disk (`none [mq-deadline] bfq` gives mq-deadline) and another it
/// offers.
fn schedulers(name: &str) -> (String, String) {
    let text = std::fs::read_to_string(format!("/sys/block/{name}/queue/scheduler")).unwrap();
    let words: Vec<&str> = text.split_whitespace().collect();
    let now = words.iter().find(|w| w.starts_with('[')).unwrap();
    let now = now.trim_matches(|c| c == '[' || c == ']').to_string();
    let other = words
        .iter()
        .map(|w| w.trim_matches(|c| c == '[' || c == ']'))
        .find(|w| *w != now)
        .expect("a second scheduler")
        .to_string();
    (now, other)
}

/// Starts a 4 s run that asks for `want` on `dev`; returns once the disk shows it.
fn run_switched(dev: &Loop, want: &str) -> std::process::Child {
    let child = Std::new(assert_cmd::cargo::cargo_bin("volbench"))
        .env("VOLBENCH_STORE", test_store())
        .args([
            "run",
            "--name=s",
            "--rw=randread",
            "--direct=1",
            "--runtime=4s",
            "--time_based",
        ])
        .arg(format!("--filename={}", dev.p()))
        .arg(format!("--ioscheduler={want}"))
        .args(["-q", "--no-store"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while schedulers(&dev.name()).0 != want {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "never switched to {want}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// ioscheduler switches the job's disk for the run and back after it; after a SIGKILL, the
/// next volbench to start (here `volbench clean`) switches it back.
#[test]
fn ioscheduler_is_switched_for_the_run_and_back_even_after_a_kill() {
    let _disk = shared_disk();
    require_root!();
    let dev = Loop::new(64 << 20, 512);
    let (before, want) = schedulers(&dev.name());
    let child = run_switched(&dev, &want);
    let out = child.wait_with_output().unwrap();
    succeeded(&out, "");
    assert_eq!(
        schedulers(&dev.name()).0,
        before,
        "switched back after the run"
    );
    let mut child = run_switched(&dev, &want);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        schedulers(&dev.name()).0,
        want,
        "a SIGKILL leaves it switched"
    );
    let said = ok_stdout(volbench().arg("clean"));
    assert_eq!(
        schedulers(&dev.name()).0,
        before,
        "clean switched it back: {said}"
    );
    assert!(said.contains(&format!("back to {before}")), "{said}");
}

/// io_uring_enter calls of a 20,000-read io_uring job, with or without sqthread_poll.
fn enters(d: &Path, file: &Path, poll: bool) -> u64 {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let f = format!("--filename={}", file.display());
    let p = format!("--sqthread_poll={}", u8::from(poll));
    let cmd = [
        vb.to_str().unwrap(),
        "run",
        "--name=q",
        &f,
        "--size=16m",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--direct=1",
        "--number_ios=20000",
        &p,
        "-q",
        "--no-store",
    ];
    let (log, _) = strace(d, &["-c", "-e", "trace=io_uring_enter"], &cmd);
    log.lines()
        .find(|l| l.trim_end().ends_with("io_uring_enter"))
        .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or(0)
}

/// sqthread_poll: the kernel's thread takes the submissions, so the job makes far fewer
/// io_uring_enter calls (here about a sixth; the bound is half).
#[test]
fn sqthread_poll_submits_without_a_syscall_per_batch() {
    let _disk = shared_disk();
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("q.dat");
    std::fs::write(&file, vec![1u8; 16 << 20]).unwrap();
    let (plain, polled) = (
        enters(d.path(), &file, false),
        enters(d.path(), &file, true),
    );
    assert!(plain > 0, "no io_uring_enter counted");
    assert!(
        polled * 2 < plain,
        "sqthread_poll: {polled} enters, without: {plain}"
    );
}

/// atomic=1 on a device without an atomic write unit (zram has none): refused before any
/// I/O, naming the device, where the kernel would refuse every write.
#[test]
fn atomic_writes_are_refused_where_the_device_has_no_atomic_unit() {
    let _disk = shared_disk();
    require_root!();
    let z = Zram::new("16M");
    let unit =
        std::fs::read_to_string(z.sysfs().join("queue/atomic_write_unit_max_bytes")).unwrap();
    assert_eq!(
        unit.trim(),
        "0",
        "zram offers atomic writes now: pick another device"
    );
    let f = format!("--filename={}", z.p());
    let out = volbench()
        .args([
            "run",
            "--name=a",
            &f,
            "--size=1m",
            "--rw=write",
            "--direct=1",
            "--atomic=1",
            "-q",
            "--no-store",
        ])
        .output()
        .unwrap();
    let err = fails_saying(&out, 2, "atomic_write_unit_max_bytes is 0");
    assert!(
        err.contains(&z.name()) && err.contains("drop atomic"),
        "{err}"
    );
}

/// nowait=1 (RWF_NOWAIT) on libaio and io_uring: a buffered read of a file that is not in the
/// page cache fails at once with EAGAIN and ends the job, in fio and in volbench; the same
/// read of the cached file (invalidate=0) completes in both.
#[test]
fn nowait_fails_a_blocking_read_with_eagain_as_fio_does() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("n.dat");
    std::fs::write(&file, vec![5u8; 8 << 20]).unwrap();
    // Dirty pages survive drop_caches: write them out first so the file can go cold.
    std::fs::File::open(&file).unwrap().sync_all().unwrap();
    for engine in ["libaio", "io_uring"] {
        let args = [
            "--name=n".to_string(),
            format!("--filename={}", file.display()),
            "--size=8m".into(),
            "--bs=4k".into(),
            "--rw=read".into(),
            format!("--ioengine={engine}"),
            "--nowait=1".into(),
            "--invalidate=0".into(),
        ];
        for tool in Tool::BOTH {
            drop_caches();
            let out = tool.run(&args, &[]);
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let eagain = text.contains("Resource temporarily unavailable");
            assert!(eagain, "{tool} {engine}, cold file: {text}");
            // Cached, no read blocks. Other tests drop the caches now and then (each of
            // their drop_caches can evict the file between our read and the run), so a run
            // that meets EAGAIN is tried again after caching the file afresh: a tool that
            // failed cached reads would fail all five.
            let mut last = String::new();
            let ok = (0..5).any(|_| {
                std::fs::read(&file).unwrap();
                let out = tool.run(&args, &[]);
                last = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                out.status.success() && !last.contains("temporarily unavailable")
            });
            assert!(ok, "{tool} {engine}, cached file: {last}");
        }
    }
}

/// From an strace log of a libaio job: the I/Os in flight each time a refill starts (an
/// io_submit right after an io_getevents), and the smallest min_nr of those waits.
fn refills(log: &str) -> (Vec<i64>, u64) {
    let (mut in_flight, mut after_reap, mut starts, mut min_nr) = (0i64, false, vec![], u64::MAX);
    for l in log.lines() {
        let Some(n) = l
            .rsplit("= ")
            .next()
            .and_then(|n| n.trim().parse::<i64>().ok())
        else {
            continue;
        };
        if l.contains("io_submit(") {
            if after_reap {
                starts.push(in_flight);
            }
            in_flight += n;
            after_reap = false;
        } else if let Some(args) = l.split("io_getevents(").nth(1) {
            let want: u64 = args.split(", ").nth(1).unwrap().parse().unwrap();
            // The closing drain waits for all that is left; the refills' waits are at 16.
            if in_flight == 16 {
                min_nr = min_nr.min(want);
            }
            in_flight -= n;
            after_reap = true;
        }
    }
    (starts, min_nr)
}

/// iodepth_low=4 at iodepth 16 (libaio, strace): fio lets a full queue drain to 4 before it
/// fills it again (every refill starts with 4 in flight, 15 without the option); volbench
/// waits for the 12 completions in one io_getevents (min_nr 12, 1 without it), so no refill
/// of its starts with more than 4 in flight either.
#[test]
fn iodepth_low_lets_the_queue_drain_before_refilling_as_fio_does() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let z = Zram::new("64M");
    fill_random(&z.path, 16 << 20);
    let d = tmpdir();
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let vb = vb.to_str().unwrap();
    let f = format!("--filename={}", z.p());
    for (low, fio_start, vb_min_nr) in [("16", 15, 1), ("4", 4, 12)] {
        let low = format!("--iodepth_low={low}");
        let job = [
            "--name=l",
            &f,
            "--rw=randread",
            "--direct=1",
            "--ioengine=libaio",
        ];
        let job = [&job[..], &["--iodepth=16", &low, "--bs=4k", "--size=16m"]].concat();
        let trace = ["-e", "trace=io_submit,io_getevents"];
        let (log, _) = strace(d.path(), &trace, &[&["fio"], &job[..]].concat());
        let (starts, _) = refills(&log);
        assert!(starts.len() > 100, "fio {low}: {} refills", starts.len());
        let off = starts.iter().filter(|&&s| s != fio_start).count();
        assert!(
            off <= 2,
            "fio {low}: {off} refills not at {fio_start}: {starts:?}"
        );
        let cmd = [&[vb, "run", "-q", "--no-store"], &job[..]].concat();
        let (log, _) = strace(d.path(), &trace, &cmd);
        let (starts, min_nr) = refills(&log);
        assert_eq!(min_nr, vb_min_nr, "volbench {low}: {log}");
        let worst = starts.iter().max().copied().unwrap_or(0);
        assert!(
            worst <= 4 || vb_min_nr == 1,
            "volbench {low}: a refill at {worst}"
        );
    }
}

/// force_async=1 on io_uring: every request goes to the kernel with IOSQE_ASYNC, which
/// queues it to an io-wq worker instead of trying it inline first (the io_uring_submit_req
/// event's request flags carry it, 0x10); without it none does: 1,024 reads, in fio and in
/// volbench. The event counts every process's requests, and other tests use io_uring at the
/// same time, but none with IOSQE_ASYNC: at least 1,024 forced with the option, none
/// without. (A count of requests queued to io-wq would also count those the kernel punted
/// because the host was busy: thousands, with another io_uring job running.)
#[test]
fn force_async_sends_requests_to_io_wq_workers_as_fio() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("fa.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    let count = common::tracefs::EventCount::start("io_uring/io_uring_submit_req");
    for tool in Tool::BOTH {
        for force in ["1", "0"] {
            count.take_lines();
            let args = [
                "--name=a",
                &f,
                "--rw=randread",
                "--direct=1",
                "--ioengine=io_uring",
                "--iodepth=8",
                "--bs=4k",
                "--size=4m",
                &format!("--force_async={force}"),
            ];
            let out = tool.run(&args, &[]);
            succeeded(&out, tool);
            let reads: Vec<u64> = count
                .take_lines()
                .iter()
                .filter(|l| l.contains("opcode READ"))
                .filter_map(|l| {
                    let hex = l.split("flags 0x").nth(1)?.split(',').next()?;
                    u64::from_str_radix(hex, 16).ok()
                })
                .collect();
            let forced = reads.iter().filter(|f| *f & 0x10 != 0).count();
            match force {
                "1" => assert!(forced >= 1024, "{tool}: {forced} of {} forced", reads.len()),
                _ => assert!(
                    reads.len() >= 1024 && forced == 0,
                    "{tool}: {forced} forced"
                ),
            }
        }
    }
}

/// hipri=1 hipri_percentage=30 on pvsync2 (volbench's psync): about 30 % of 4,096 direct
/// reads carry RWF_HIPRI in both tools (strace; within 4 points, six standard deviations).
#[test]
fn hipri_percentage_polls_that_share_of_the_reads_as_fio() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("hp.dat");
    fill_random(&file, 16 << 20);
    let f = format!("--filename={}", file.display());
    let job = [
        "--name=h",
        &f,
        "--rw=randread",
        "--direct=1",
        "--bs=4k",
        "--size=16m",
    ];
    let job = [&job[..], &["--hipri=1", "--hipri_percentage=30"]].concat();
    for tool in Tool::BOTH {
        let engine = if tool == Tool::Fio {
            "--ioengine=pvsync2"
        } else {
            "--ioengine=psync"
        };
        // fio takes an engine's options only after the engine.
        let job = [&[engine], &job[..]].concat();
        let (log, _) = tool.strace(d.path(), &["-e", "trace=preadv2"], &job, false);
        let reads = log.matches("preadv2(").count();
        let polled = log.lines().filter(|l| l.contains("RWF_HIPRI")).count();
        assert_eq!(reads, 4096, "{tool}");
        let pct = 100.0 * polled as f64 / reads as f64;
        assert!((26.0..34.0).contains(&pct), "{tool}: {pct:.1} % polled");
    }
}

/// The space calls (fallocate, ftruncate) `tool` makes for `job` on `file`, filled with 1 MiB
/// of data first, without their descriptor; with the job's fio-JSON.
fn space_calls(dir: &Path, tool: Tool, file: &Path, job: &[&str]) -> (Vec<String>, Value) {
    std::fs::write(file, vec![7u8; 1 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    let mut args = vec!["--name=t", &f, "--size=1m", "--bs=64k"];
    args.extend(job);
    let opts = ["-e", "trace=fallocate,ftruncate"];
    let (log, stdout) = tool.strace(dir, &opts, &args, true);
    let calls = log
        .lines()
        .filter_map(|l| {
            let at = l.find("fallocate(").or_else(|| l.find("ftruncate("))?;
            let (name, rest) = l[at..].split_once('(')?;
            let (_fd, args) = rest.split_once(", ")?;
            let args = args.split_whitespace().collect::<Vec<_>>().join(" ");
            Some(format!("{name}({args}"))
        })
        .collect();
    (calls, first_job(&stdout))
}

/// fio's falloc and ftruncate engines: each I/O is a fallocate (a write allocates its range,
/// a read does so keeping the size, a trim punches a hole) or an ftruncate to the write's
/// offset. Both tools make the same calls on the same file (strace), count the same I/Os,
/// and leave the file the same size with the same blocks.
#[test]
fn falloc_and_ftruncate_engines_make_fios_calls() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("space.dat");
    let cases: [(&str, &[&str], &str); 4] = [
        ("falloc", &["--rw=write"], "write"),
        ("falloc", &["--rw=read"], "read"),
        ("falloc", &["--rw=randtrim"], "trim"),
        ("ftruncate", &["--rw=write"], "write"),
    ];
    for (engine, rw, dir) in cases {
        let e = format!("--ioengine={engine}");
        let mut job = vec![e.as_str()];
        job.extend(rw);
        let mut seen = Vec::new();
        for tool in Tool::BOTH {
            let (mut calls, j) = space_calls(d.path(), tool, &file, &job);
            if rw[0].contains("rand") {
                calls.sort();
            }
            assert_eq!(calls.len(), 16, "{tool} {engine} {rw:?}: {calls:?}");
            assert_eq!(
                u(&j, &format!("/{dir}/total_ios")),
                16,
                "{tool} {engine} {rw:?}"
            );
            let m = std::fs::metadata(&file).unwrap();
            use std::os::unix::fs::MetadataExt;
            seen.push((calls, m.len(), m.blocks()));
        }
        assert_eq!(seen[0], seen[1], "{engine} {rw:?}: calls, size, blocks");
    }
    // The calls are what fio's engines make: a punched hole frees the blocks, a truncation
    // to each offset in turn leaves the last one's.
    let (calls, _) = space_calls(
        d.path(),
        Tool::Volbench,
        &file,
        &["--ioengine=ftruncate", "--rw=write"],
    );
    assert_eq!(calls[1], "ftruncate(65536) = 0", "{calls:?}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 15 << 16);
    // A time-based trim job ends on time in both tools (volbench's trims, done in place,
    // once kept its loop from ever reading the clock).
    let f = format!("--filename={}", file.display());
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    for tool in ["fio", vb.to_str().unwrap()] {
        let mut cmd = Std::new("timeout");
        cmd.args(["60", tool]);
        if tool != "fio" {
            cmd.args(["run", "--no-store", "-q"]);
        }
        let out = cmd
            .args(["--name=t", &f, "--size=1m", "--bs=4k", "--ioengine=falloc"])
            .args(["--rw=randtrim", "--runtime=1", "--time_based"])
            .output()
            .unwrap();
        succeeded(&out, format_args!("{tool}"));
    }
    // A read on ftruncate fails as in fio (EINVAL); a verify is refused before any I/O.
    let out = Tool::Volbench.run(
        &[
            "--name=t",
            &f,
            "--size=1m",
            "--ioengine=falloc",
            "--rw=write",
            "--verify=crc32c",
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("moves no data"),
        "{err}"
    );
}

/// fio's cpuio engine: a job that keeps cpuload percent of one CPU busy, in both tools (its
/// usr+sys CPU share, for 40 % and 10 %, spinning and sorting); with exit_on_io_done it
/// ends when the I/O job beside it does. Bounds wide enough for a busy machine: a spinning
/// thread can lose CPU to other tests, never gain more than it asks.
#[test]
fn cpuio_burns_the_cpu_share_fios_does() {
    let _disk = shared_disk();
    require_tool!("fio");
    let cpu = |j: &Value| f(j, "/usr_cpu") + f(j, "/sys_cpu");
    for tool in Tool::BOTH {
        for mode in ["noop", "qsort"] {
            let m = format!("--cpumode={mode}");
            let mut share = Vec::new();
            for load in ["--cpuload=40", "--cpuload=10"] {
                let a = [
                    "--name=b",
                    "--ioengine=cpuio",
                    load,
                    &m,
                    "--time_based",
                    "--runtime=2",
                ];
                share.push(cpu(&tool.jobs(&a)[0]));
            }
            let [hi, lo] = [share[0], share[1]];
            assert!(
                hi > 15.0 && hi <= 50.0,
                "{tool} {mode}: 40 % load used {hi:.1} %"
            );
            assert!(
                lo <= 16.0 && hi > 1.8 * lo,
                "{tool} {mode}: 10 % load used {lo:.1} %"
            );
        }
        // Beside a paced I/O job of ~1 s, with exit_on_io_done and no runtime of its own.
        let jobs = tool.jobs(&[
            "--name=io",
            "--ioengine=null",
            "--size=8m",
            "--bs=4k",
            "--rate_iops=2000",
            "--name=burn",
            "--ioengine=cpuio",
            "--cpuload=20",
            "--exit_on_io_done=1",
        ]);
        let io_ms = u(&jobs[0], "/job_runtime");
        let burn_ms = u(&jobs[1], "/job_runtime");
        assert!(io_ms > 800, "{tool}: the paced job ran {io_ms} ms");
        assert!(
            burn_ms + 50 >= io_ms && burn_ms < io_ms + 600,
            "{tool}: burn {burn_ms} ms, io {io_ms} ms"
        );
    }
}

/// fio's exec engine: the program runs for the job's runtime with fio's arguments (`%n`,
/// `%r` expanded, split at spaces), its output in NAME.stdout, SIGTERM at the end; one that
/// ignores SIGTERM is killed grace_time later. Both tools, the same files written, no
/// program left running.
#[test]
fn exec_runs_the_program_as_fios_exec_engine() {
    let _disk = shared_disk();
    use std::os::unix::fs::PermissionsExt;
    require_tool!("fio");
    let d = tmpdir();
    let dir = d.path();
    let script = dir.join("prog.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\n\
         echo \"$@\" > \"$1.args\"\n\
         echo started\n\
         if [ \"$2\" = stubborn ]; then trap '' TERM; else trap 'echo term > \"$1.term\"; exit 0' TERM; fi\n\
         echo $$ > \"$1.pid\"\n\
         while :; do sleep 0.05; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let prog = format!("--program={}", script.display());
    for tool in Tool::BOTH {
        for kind in ["polite", "stubborn"] {
            let tag = format!("{}-{tool}-{kind}", dir.join("x").display());
            let args = format!("--arguments={tag} {kind} %n %r");
            let job = [
                "--name=ex",
                "--ioengine=exec",
                &prog,
                &args,
                "--time_based",
                "--runtime=1",
            ];
            let t0 = Instant::now();
            let out = tool.command_in(dir).args(job).output().unwrap();
            let took = t0.elapsed();
            succeeded(&out, format_args!("{tool}"));
            let read =
                |ext: &str| std::fs::read_to_string(format!("{tag}.{ext}")).unwrap_or_default();
            assert_eq!(
                read("args").trim(),
                format!("{tag} {kind} ex 1"),
                "{tool}: %n and %r"
            );
            let stdout = std::fs::read_to_string(dir.join("ex.stdout")).unwrap_or_default();
            assert_eq!(stdout.trim(), "started", "{tool}: std_redirect");
            match kind {
                "polite" => assert_eq!(read("term").trim(), "term", "{tool}: SIGTERM at the end"),
                _ => assert!(
                    took >= Duration::from_millis(1900),
                    "{tool}: grace_time before SIGKILL ({took:?})"
                ),
            }
            let pid = read("pid").trim().to_string();
            assert!(
                !pid.is_empty() && !Path::new(&format!("/proc/{pid}/cmdline")).exists()
                    || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .unwrap_or_default()
                        .contains(") Z"),
                "{tool} {kind}: the program still runs"
            );
        }
    }
}

/// fio's e4defrag engine on ext4: each write moves its blocks in from the donor file with
/// EXT4_IOC_MOVE_EXT; both tools make the same moves (strace), with the donor allocated
/// whole first (inplace=0) or per move (inplace=1), and leave the donor file as fio does.
#[test]
fn e4defrag_moves_what_fios_moves() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    require_tool!("mkfs.ext4");
    let fs = Ext4::new("64M");
    let dir = fs.dir.path();
    let d = format!("--directory={}", dir.display());
    let opts = ["-e", "trace=ioctl,fallocate,ftruncate"];
    for inplace in ["0", "1"] {
        let ip = format!("--inplace={inplace}");
        let job = [
            "--name=t",
            &d,
            "--filename=f1",
            "--ioengine=e4defrag",
            "--donorname=f.def",
            &ip,
            // fio sizes the donor by filesize (without it, its init fails: EINVAL).
            "--filesize=1m",
            "--size=1m",
            "--bs=32k",
            "--rw=write",
            "--direct=1",
        ];
        let mut seen = Vec::new();
        for tool in Tool::BOTH {
            fill_random(&dir.join("f1"), 1 << 20);
            let before = std::fs::read(dir.join("f1")).unwrap();
            let _ = std::fs::remove_file(dir.join("f.def"));
            let (log, stdout) = tool.strace(dir, &opts, &job, true);
            let m = moves(&log);
            let n = m.iter().filter(|c| c.starts_with("move = 0")).count();
            assert_eq!(n, 32, "{tool} inplace={inplace}: {m:?}");
            assert_eq!(u(&first_job(&stdout), "/write/total_ios"), 32, "{tool}");
            // A move copies the data into the donor's blocks and swaps them in: the file
            // reads as before (defragmenting changes where the data is, not what it is).
            let after = std::fs::read(dir.join("f1")).unwrap();
            assert!(after == before, "{tool}: the file's data kept");
            assert!(
                dir.join("f.def").exists(),
                "{tool}: the donor is left, as fio leaves it"
            );
            seen.push(m);
        }
        assert_eq!(seen[0], seen[1], "inplace={inplace}: the moves");
    }
}

#[test]
fn synchronous_engines_run_as_psync_and_say_so() {
    let _disk = shared_disk();
    let d = tmpdir();
    for engine in ["sync", "vsync", "pvsync", "pvsync2"] {
        let job = d.path().join(format!("{engine}.fio"));
        std::fs::write(
            &job,
            format!("[j]\nioengine={engine}\nrw=write\nbs=4k\nsize=1m\n"),
        )
        .unwrap();
        let out = volbench()
            .current_dir(d.path())
            .arg("run")
            .arg(&job)
            .args(["--output-format=volbench-json", "-q", "--no-store"])
            .output()
            .unwrap();
        succeeded(&out, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("ioengine={engine} runs as psync")),
            "{err}"
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        assert_eq!(
            v["group"]["write"]["total_ios"],
            theirs["jobs"][0]["write"]["total_ios"]
        );
    }
}

#[test]
fn hipri_polls_as_fio_does_or_says_why_it_cannot() {
    let _disk = shared_disk();
    let d = tmpdir();
    let strace = |prog: &str, args: &[&str]| -> (bool, String) {
        let log = d.path().join("strace.txt");
        let out = std::process::Command::new("strace")
            .current_dir(d.path())
            .args(["-f", "-e", "trace=preadv2", "-o"])
            .arg(&log)
            .arg(prog)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            std::fs::read_to_string(&log).unwrap_or_default(),
        )
    };
    // pvsync2: RWF_HIPRI on every read, as fio passes it (the kernel falls back to
    // interrupts on a disk without polled queues).
    let job = d.path().join("p.fio");
    std::fs::write(
        &job,
        "[p]\nioengine=pvsync2\nhipri=1\ndirect=1\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=50\n",
    )
    .unwrap();
    let j = job.to_str().unwrap();
    let hipri = |log: &str| log.lines().filter(|l| l.contains("RWF_HIPRI")).count();
    let (ok, theirs) = strace("fio", &[j]);
    assert!(ok && hipri(&theirs) == 50, "fio: {theirs}");
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let (ok, ours) = strace(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
    assert!(ok && hipri(&ours) == 50, "volbench: {ours}");
    // io_uring: polled completions need a disk with polled queues. Without them (zram, loop,
    // virtio here) every I/O fails in fio; volbench says so before laying anything out.
    std::fs::write(
        &job,
        "[u]\nioengine=io_uring\nhipri=1\ndirect=1\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=50\n",
    )
    .unwrap();
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(d.path()).unwrap().dev();
    let sys = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
    let sys = std::fs::canonicalize(sys).ok();
    let polls = sys.is_some_and(|s| {
        let disk = if s.join("partition").exists() {
            s.parent().unwrap().to_path_buf()
        } else {
            s
        };
        std::fs::read_to_string(disk.join("queue/io_poll")).is_ok_and(|v| v.trim() == "1")
    });
    let out = volbench()
        .current_dir(d.path())
        .args(["run", j, "-q", "--no-store"])
        .output()
        .unwrap();
    let laid_out = d.path().join("u.0.0").exists();
    let fio = std::process::Command::new("fio")
        .current_dir(d.path())
        .arg(&job)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if polls {
        assert!(fio.status.success() && out.status.success(), "{err}");
    } else {
        assert!(String::from_utf8_lossy(&fio.stderr).contains("Operation not supported"));
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.lines().count() == 1 && err.contains("hipri") && err.contains("io_poll"),
            "{err}"
        );
        assert!(!laid_out, "nothing laid out");
    }
    // Where hipri means nothing, one line says what to do.
    for (engine, extra, says) in [
        ("libaio", "direct=1", "io_uring and pvsync2"),
        ("io_uring", "direct=0", "add direct=1"),
    ] {
        std::fs::write(
            &job,
            format!("[x]\nioengine={engine}\nhipri=1\n{extra}\nsize=1m\n"),
        )
        .unwrap();
        let err = refusal(&job);
        assert!(err.contains(says) && err.contains("p.fio:3"), "{err}");
    }
}

/// fio's mmap engine with `direct=1`: mmap has no O_DIRECT, so it msyncs each I/O's pages
/// before completing it (volbench made no msync and measured memcpy into the page cache,
/// writing nothing to the disk). Both tools make one msync per read and write.
#[test]
fn mmap_with_direct_msyncs_every_io_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let text = "[m]\nfilename=mf\nioengine=mmap\ndirect=1\nrw=randrw\nbs=4k\nsize=256k\n";
    std::fs::write(d.path().join("m.fio"), text).unwrap();
    let vb = env!("CARGO_BIN_EXE_volbench");
    for (tool, cmd) in [
        ("fio", vec!["fio", "m.fio"]),
        ("volbench", vec![vb, "run", "m.fio", "-q", "--no-store"]),
    ] {
        let _ = std::fs::remove_file(d.path().join("mf"));
        let n = syscall_counts(d.path(), &["msync"], cmd[0], &cmd[1..]);
        assert_eq!(n, [64], "{tool}: msync calls for 64 I/Os");
    }
}

/// A virtio disk takes 254 segments per request, so a 1 MiB direct I/O from 256 scattered
/// 4 KiB pages reaches it as two requests; from huge pages as one. volbench puts large-block
/// buffers on huge pages, so in every run the disk's own counter reads one request per I/O
/// (fio's buffer lands there only some runs: 1.00-2.11 requests per read), and the report
/// says where its buffers were.
#[test]
fn large_direct_io_reaches_a_virtio_disk_as_one_request_per_io() {
    let _disk = alone();
    let d = tmpdir();
    let job = d.path().join("big.fio");
    for (i, engine) in ["psync", "io_uring", "libaio", "psync"].iter().enumerate() {
        let text = format!(
            "[j]\nfilename=big\nbs=1m\nsize=64m\nrw=read\ndirect=1\nioengine={engine}\niodepth=8\n"
        );
        std::fs::write(&job, text).unwrap();
        let v = vb_json(d.path(), &job, &[]);
        let dev = v["environment"]["targets"][0]["device"]["name"]
            .as_str()
            .unwrap()
            .to_string();
        let seg = std::fs::read_to_string(format!("/sys/block/{dev}/queue/max_segments"));
        let seg: u64 = seg.unwrap().trim().parse().unwrap();
        if seg >= 256 {
            cannot_run!("the test directory's disk {dev} takes {seg} segments per request: no split to show (a virtio disk takes 254)");
        }
        let ios = u(&v, "/group/read/total_ios");
        let reqs = u(&v, "/environment/targets/0/kernel_counters/read_ios");
        assert_eq!(ios, 64);
        // Checked first: on small pages the split below is expected, not a fault of the count.
        assert_eq!(v["jobs"][0]["huge_page_buffers"], true, "run {i}");
        // Split, the disk would count 128; other reads on the shared disk add a few at most
        // (no other test of this binary runs beside this one: `alone`).
        assert!(
            (ios..ios + ios / 4).contains(&reqs),
            "run {i} ({engine}): {reqs} requests for {ios} reads of 1 MiB"
        );
    }
}

#[test]
fn mmap_runs_as_fios_mmap_engine_and_splice_as_psync() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // Written through the mapping with verify headers, then read back by pread in another
    // job and checked: the mapping's writes reached the file.
    let text = "[global]\nfilename=mm\nsize=8m\nverify=crc32c\n\
                [w]\nioengine=mmap\nrw=randwrite\nbs=4k\nend_fsync=1\n\
                [r]\nstonewall\nioengine=psync\nrw=read\nbs=4k\n";
    let [fio, ours] = both_fresh(d.path(), text, "mm");
    assert_eq!(ours, fio);
    assert_eq!(ours.0[1], ("r".into(), 8192, 0, 0));
    // Random reads through the mapping fault in the pages they touch (MADV_RANDOM, as fio),
    // not a readahead window: the device reads about what the job read, in both tools. On a
    // file system of its own (ext4 on zram): the device's counters are the whole device's,
    // and on the shared disk other tests' reads in the same window were counted (8.7 MB once).
    require_root!();
    let fs = Ext4::new("64M");
    let d = &fs.dir;
    for engine in ["mmap", "splice"] {
        let text = format!(
            "[j]\nfilename=mm\nsize=8m\nbs=4k\nrw=randread\nioengine={engine}\nnumber_ios=512\n"
        );
        let job = d.path().join("m.fio");
        std::fs::write(&job, text).unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        let ours = vb_json(d.path(), &job, &[]);
        assert_eq!(fio_io(&theirs, "read"), (512, 2 << 20), "fio {engine}");
        assert_eq!(vb_io(&ours, "read"), (512, 2 << 20), "volbench {engine}");
        let dev = u(&ours, "/environment/targets/0/kernel_counters/read_bytes");
        assert!(
            dev <= 3 << 20,
            "{engine}: the device read {dev} bytes for 2 MiB"
        );
    }
}
