//! Host settings and job behaviours fio applies for a job (issue 44), each against fio on the
//! same job or, where fio leaves no trace to compare, against the kernel: fadvise_hint (the
//! device's read count), write_hint (the inode's hint read back), a directory that does not
//! exist yet, ioscheduler (switched during the run, back after it and after a SIGKILL),
//! fio's section names, percentage_random (the offsets under strace), rate_iops_min on a
//! throttled device, sqthread_poll (the syscalls it saves) and allow_mounted_write.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Std;
use std::time::{Duration, Instant};

/// `fio ARGS` or `volbench run ARGS -q --no-store EXTRA`, by `tool`: its output.
fn by<S: AsRef<std::ffi::OsStr>>(tool: &str, args: &[S], extra: &[&str]) -> std::process::Output {
    if tool == "fio" {
        Std::new("fio").args(args).output().unwrap()
    } else {
        volbench()
            .arg("run")
            .args(args)
            .args(["-q", "--no-store"])
            .args(extra)
            .output()
            .unwrap()
    }
}

/// A job run by `tool` under strace in `dir` (`opts`: strace's filters): fio, or `volbench
/// run` with no store; with `json`, each writes fio-JSON to stdout. strace's log and stdout.
fn strace_job(dir: &Path, tool: &str, opts: &[&str], job: &[&str], json: bool) -> (String, String) {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let mut cmd: Vec<&str> = match tool {
        "fio" => vec!["fio"],
        _ => vec![vb.to_str().unwrap(), "run", "-q", "--no-store"],
    };
    if json {
        cmd.push(if tool == "fio" {
            "--output-format=json"
        } else {
            "--output-format=fio-json"
        });
    }
    cmd.extend(job);
    strace(dir, opts, &cmd)
}

/// `args` run by `tool` (fio, or volbench with no store), as fio-JSON.
fn fio_json_by(tool: &str, args: &[&str]) -> Value {
    match tool {
        "fio" => fio_json(Std::new("fio").args(args)),
        _ => ok_json(
            volbench()
                .arg("run")
                .args(args)
                .args(["--output-format=fio-json", "--no-store"]),
        ),
    }
}

/// Reads the device completed since boot (field 1 of /sys/block/NAME/stat).
fn reads_done(name: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

/// Tests in this binary run in parallel, and one test's drop_caches evicts another's pages
/// mid-measurement (a CI run saw pre_read's file 109 pages short). A drop takes this lock
/// for writing; a test that counts what stays cached holds it for reading (`cache_held`).
static PAGE_CACHE: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn drop_caches() {
    let _only_us = PAGE_CACHE.write().unwrap_or_else(|e| e.into_inner());
    std::fs::write("/proc/sys/vm/drop_caches", "3").unwrap();
}

/// Holds off every other test's drop_caches until the guard is dropped.
fn cache_held() -> std::sync::RwLockReadGuard<'static, ()> {
    PAGE_CACHE.read().unwrap_or_else(|e| e.into_inner())
}

/// The device reads of one buffered sequential 4 KiB read of 8 MiB under `hint`, by `tool`.
fn reads_under(tool: &str, dev: &Zram, hint: &str) -> u64 {
    drop_caches();
    let before = reads_done(&dev.name());
    let args = [
        "--name=t".to_string(),
        format!("--filename={}", dev.p()),
        "--rw=read".into(),
        "--bs=4k".into(),
        "--size=8m".into(),
        format!("--fadvise_hint={hint}"),
    ];
    let out = by(tool, &args, &[]);
    assert!(
        out.status.success(),
        "{tool}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    reads_done(&dev.name()) - before
}

/// fadvise_hint=random turns readahead off: one device read per 4 KiB read (2,048), where
/// `sequential` lets the kernel read ahead in large requests. volbench's counts equal fio's.
#[test]
fn fadvise_hint_advises_the_kernel_as_fio_does() {
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    for hint in ["random", "sequential"] {
        let (f, v) = (reads_under("fio", &z, hint), reads_under("vb", &z, hint));
        if hint == "random" {
            assert!(v >= 2000, "random: {v} device reads, fio {f}");
        } else {
            assert!(v <= 2048 / 8, "sequential: {v} device reads, fio {f}");
        }
        let diff = f.abs_diff(v) as f64 / f.max(1) as f64;
        assert!(diff <= 0.1, "{hint}: volbench {v} device reads, fio {f}");
    }
}

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
    require_tool!("fio");
    let d = tmpdir();
    for (tool, name) in [("fio", "f.dat"), ("vb", "v.dat")] {
        let file = d.path().join(name);
        let args = [
            "--name=t".to_string(),
            format!("--filename={}", file.display()),
            "--rw=write".into(),
            "--size=1m".into(),
            "--write_hint=long".into(),
        ];
        let out = by(tool, &args, &[]);
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(rw_hint(&file), 4, "{tool}'s file");
    }
}

/// A job file whose file names a path that does not exist yet: fio creates the missing
/// directories (mode 0700), so volbench does. A `directory=` that does not exist is refused by
/// both (fio when it runs the job; its --parse-only does not look), and volbench's own
/// command line refuses a missing directory (tests/cli.rs).
#[test]
fn a_job_files_missing_directories_are_created_as_fio_creates_them() {
    require_tool!("fio");
    let d = tmpdir();
    let run = |tool: &str, job: &Path| by(tool, &[job], &[]);
    for tool in ["fio", "vb"] {
        let job = d.path().join(format!("{tool}.fio"));
        let body = format!(
            "[t]\ndirectory={}\nfilename={tool}/new/f\nsize=1m\nrw=write\n",
            d.path().display()
        );
        std::fs::write(&job, body).unwrap();
        let out = run(tool, &job);
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = d.path().join(tool).join("new");
        assert_eq!(
            std::fs::metadata(dir.join("f")).unwrap().len(),
            1 << 20,
            "{tool}"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{tool}'s directory mode");
        let missing = d.path().join(format!("{tool}-missing"));
        std::fs::write(
            &job,
            format!("[t]\ndirectory={}\nsize=1m\nrw=write\n", missing.display()),
        )
        .unwrap();
        let out = run(tool, &job);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() || err.contains("not a directory"),
            "{tool} ran in a missing directory"
        );
        assert!(!missing.exists(), "{tool} created the directory= itself");
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
    require_root!();
    let dev = Loop::new(64 << 20, 512);
    let (before, want) = schedulers(&dev.name());
    let child = run_switched(&dev, &want);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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

/// fio reads a section as global when its name starts with `global`, case and all:
/// `[global-x]` is global, `[Global]` is a job. Both tools run the same jobs.
#[test]
fn section_names_mean_what_they_mean_to_fio() {
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("s.dat");
    let job = d.path().join("s.fio");
    std::fs::write(
        &job,
        format!(
            "[global-x]\nsize=1m\nfilename={}\n\n[Global]\nrw=write\n\n[b]\nrw=read\n",
            file.display()
        ),
    )
    .unwrap();
    let theirs = fio_json(Std::new("fio").arg(&job));
    let out = volbench()
        .arg("run")
        .arg(&job)
        .args(["--output-format=json", "-q", "--no-store"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names = |v: &Value| -> Vec<String> {
        let jobs = v["jobs"].as_array().unwrap();
        jobs.iter()
            .map(|j| j["jobname"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&theirs), ["Global", "b"]);
    assert_eq!(names(&ours), names(&theirs));
    for v in [&theirs, &ours] {
        assert_eq!(
            v["jobs"][0]["write"]["io_bytes"],
            1 << 20,
            "[global-x]'s size"
        );
    }
}

/// A pread64 or pwrite64 line's length and offset, read from the end of the line that ends the
/// call: the data strace prints before them may hold ", " (random bytes do, now and then).
fn len_off(l: &str) -> Option<(u64, u64)> {
    let args = l.rsplit_once(") = ")?.0;
    let mut it = args.rsplit(", ");
    let off = it.next()?.parse().ok()?;
    Some((it.next()?.parse().ok()?, off))
}

/// The share of 4 KiB preads that follow the previous one, under strace.
fn sequential_share(log: &str) -> f64 {
    let offs: Vec<u64> = log
        .lines()
        .filter(|l| l.contains("pread64(") && l.trim_end().ends_with("= 4096"))
        .filter_map(|l| Some(len_off(l)?.1))
        .collect();
    let seq = offs.windows(2).filter(|w| w[1] == w[0] + 4096).count();
    seq as f64 / (offs.len().max(2) - 1) as f64
}

/// percentage_random=30: 70 % of a random job's I/Os follow the last one, in both tools.
/// Over 4,000 I/Os the share's standard deviation is 0.7 points; the bound is 5.
#[test]
fn percentage_random_mixes_as_fio_mixes() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("p.dat");
    std::fs::write(&file, vec![7u8; 64 << 20]).unwrap();
    let args = [
        "--name=t".to_string(),
        format!("--filename={}", file.display()),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--size=64m".into(),
        "--percentage_random=30".into(),
        "--number_ios=4000".into(),
        "--ioengine=psync".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let trace = ["-e", "trace=pread64"];
    let (log, _) = strace(d.path(), &trace, &[&["fio"], &args[..]].concat());
    let fio = sequential_share(&log);
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let cmd = [
        &[vb.to_str().unwrap(), "run"],
        &args[..],
        &["-q", "--no-store"],
    ]
    .concat();
    let (log, _) = strace(d.path(), &trace, &cmd);
    let ours = sequential_share(&log);
    assert!((fio - 0.7).abs() < 0.05, "fio's sequential share {fio}");
    assert!((ours - fio).abs() < 0.05, "volbench {ours} vs fio {fio}");
}

/// A time-based randread job on the throttled device with `options`, run by `tool` (fio or
/// volbench, fio-JSON either way): its first job's JSON, the seconds it ran, its stderr.
fn capped_job(
    cap: &Throttle,
    tool: &str,
    dev: &str,
    secs: u32,
    options: &[&str],
) -> (Value, f64, String) {
    let mut args = vec![
        "--name=m".to_string(),
        format!("--filename={dev}"),
        "--rw=randread".into(),
        "--direct=1".into(),
        "--ioengine=libaio".into(),
        format!("--runtime={secs}"),
        "--time_based".into(),
        "--output-format=json".into(),
    ];
    args.extend(options.iter().map(|o| o.to_string()));
    let prog = if tool == "fio" {
        "fio".to_string()
    } else {
        args.insert(0, "run".into());
        args.extend(["-q".into(), "--no-store".into()]);
        assert_cmd::cargo::cargo_bin("volbench")
            .display()
            .to_string()
    };
    let t0 = Instant::now();
    let out = cap.command(&prog, &args).output().unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let json = text.find('{').map_or("", |i| &text[i..]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v: Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{tool}: {e}: {text} {err}"));
    (v["jobs"][0].clone(), secs, err)
}

/// [`capped_job`] at iodepth 4 with `option`: its fio-JSON error, seconds, stderr.
fn on_cap(cap: &Throttle, tool: &str, dev: &str, secs: u32, option: &str) -> (i64, f64, String) {
    let (job, secs, err) = capped_job(cap, tool, dev, secs, &["--iodepth=4", option]);
    (job["error"].as_i64().unwrap(), secs, err)
}

/// One job under a 500-IOPS throttle with `rate_iops_min`, by `tool`: (its fio-JSON error,
/// seconds it ran).
fn under_floor(cap: &Throttle, tool: &str, dev: &str, floor: u32) -> (i64, f64) {
    let (err, secs, _) = on_cap(cap, tool, dev, 6, &format!("--rate_iops_min={floor}"));
    (err, secs)
}

/// rate_iops_min over what a 500-IOPS volume gives ends the job after fio's 2 s settling and
/// one cycle, with EIO, in both tools; a floor under it lets both run their 6 s.
#[test]
fn rate_iops_min_ends_a_job_under_its_floor_as_fio_does() {
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 500, 64 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    for tool in ["fio", "vb"] {
        let (err, secs) = under_floor(&cap, tool, z.p(), 1000);
        assert_eq!(err, 5, "{tool}: a floor over the cap ends the job with EIO");
        assert!(secs < 5.5, "{tool}: it ran {secs:.1} s of its 6");
        let (err, secs) = under_floor(&cap, tool, z.p(), 200);
        assert_eq!(err, 0, "{tool}: a floor under the cap");
        assert!(secs >= 6.0, "{tool}: it ran {secs:.1} s");
    }
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

/// allow_mounted_write=1 is fio's consent in the job file; volbench reads the file (with a
/// note) and keeps its own rule: a mounted device is written only with --allow-destructive.
#[test]
fn allow_mounted_write_is_read_and_the_safety_rule_holds() {
    require_root!();
    let fs = Ext4::new("64M");
    let d = tmpdir();
    let job = d.path().join("m.fio");
    std::fs::write(
        &job,
        format!(
            "[m]\nfilename={}\nrw=write\nsize=1m\nallow_mounted_write=1\n",
            fs.zram.p()
        ),
    )
    .unwrap();
    let out = volbench()
        .arg("run")
        .arg(&job)
        .arg("--parse-only")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = volbench()
        .arg("run")
        .arg(&job)
        .args(["-q", "--no-store"])
        .output()
        .unwrap();
    let said = fails_saying(&out, 2, "--allow-destructive");
    assert!(said.contains("allow_mounted_write"), "{said}");
}

/// The job thread's set_mempolicy and sched_setaffinity calls under strace, by `tool`.
fn placement_calls(d: &Path, tool: &str) -> (bool, bool) {
    let file = d.join("n.dat");
    let f = format!("--filename={}", file.display());
    let opts = [
        "--name=t",
        &f,
        "--size=1m",
        "--rw=read",
        "--numa_mem_policy=bind:0",
        "--numa_cpu_nodes=0",
    ];
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let cmd: Vec<&str> = if tool == "fio" {
        [&["fio"], &opts[..]].concat()
    } else {
        [
            &[vb.to_str().unwrap(), "run"],
            &opts[..],
            &["-q", "--no-store"],
        ]
        .concat()
    };
    let (log, _) = strace(d, &["-e", "trace=set_mempolicy,sched_setaffinity"], &cmd);
    let node0 = std::fs::read_to_string("/sys/devices/system/node/node0/cpulist").unwrap();
    let mut cpus = Vec::new();
    for part in node0.trim().split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        cpus.extend(a.parse::<u32>().unwrap()..=b.parse::<u32>().unwrap());
    }
    let cpus: Vec<String> = cpus.iter().map(u32::to_string).collect();
    let affinity = format!("[{}])", cpus.join(" "));
    let bound = log
        .lines()
        .any(|l| l.contains("set_mempolicy(MPOL_BIND, [0x00000000000001,"));
    let placed = log
        .lines()
        .any(|l| l.contains("sched_setaffinity(0,") && l.contains(&affinity) && l.ends_with("= 0"));
    (bound, placed)
}

/// numa_mem_policy=bind:0 and numa_cpu_nodes=0: the job thread binds its memory to node 0
/// and runs on node 0's CPUs, with the same calls as fio's (libnuma's) under strace.
#[test]
fn numa_options_place_the_job_as_fio_places_it() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    for tool in ["fio", "vb"] {
        let (bound, placed) = placement_calls(d.path(), tool);
        assert!(bound, "{tool}: no set_mempolicy(MPOL_BIND, node 0)");
        assert!(placed, "{tool}: no sched_setaffinity to node 0's CPUs");
    }
}

/// One file-engine job (`[t]` with 50 files of 4 KiB in `dir`) by `tool`: (total_ios, clat
/// samples) of its reads.
fn file_engine(tool: &str, dir: &Path, engine: &str) -> (u64, u64) {
    let job = dir.join(format!("{engine}.fio"));
    std::fs::write(
        &job,
        format!("[t]\ndirectory={}\nioengine={engine}\nnrfiles=50\nfilesize=4k\nfallocate=none\nopenfiles=1\n", dir.display()),
    )
    .unwrap();
    // The files an earlier run made are not this run's: removing them takes consent.
    let consent = if tool != "fio" && engine.ends_with("delete") {
        &["--allow-destructive"][..]
    } else {
        &[]
    };
    let args = [job.as_os_str(), "--output-format=json".as_ref()];
    let out = by(tool, &args, consent);
    assert!(
        out.status.success(),
        "{tool} {engine}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let r = &v["jobs"][0]["read"];
    assert_eq!(v["jobs"][0]["error"], 0, "{tool} {engine}");
    (
        r["total_ios"].as_u64().unwrap(),
        r["clat_ns"]["N"].as_u64().unwrap(),
    )
}

/// The entries of `dir` that are not job files.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".fio"))
        .collect();
    v.sort();
    v
}

/// fio's file and directory engines: create, stat and delete 50 files, then make, stat and
/// remove 50 directories. Each operation is one completion (as many I/Os and clat samples as
/// fio counts), and the directory holds what fio's leaves at each step. fio 3.33 has the file
/// engines (its directory engines came in 3.34): the directories are checked on disk.
#[test]
fn file_and_directory_engines_count_and_leave_what_fios_do() {
    require_tool!("fio");
    let d = tmpdir();
    let steps = [
        ("filecreate", 50),
        ("filestat", 50),
        ("filedelete", 0),
        ("dircreate", 50),
        ("dirstat", 50),
        ("dirdelete", 0),
    ];
    let mut made: Vec<Vec<String>> = Vec::new();
    for tool in ["fio", "vb"] {
        let dir = d.path().join(tool);
        std::fs::create_dir(&dir).unwrap();
        for (engine, after) in steps {
            if tool == "fio" && engine.starts_with("dir") {
                continue;
            }
            let (ios, clat) = file_engine(tool, &dir, engine);
            assert_eq!(
                (ios, clat),
                (50, 50),
                "{tool} {engine}: I/Os and clat samples"
            );
            let now = entries(&dir);
            assert_eq!(now.len(), after, "{tool} {engine}: {now:?}");
            if engine == "filecreate" {
                made.push(now.clone());
            }
            if engine == "dircreate" {
                assert!(now.iter().all(|n| dir.join(n).is_dir()), "{now:?}");
                assert_eq!(now, made[0], "the directories are named as the files were");
            }
        }
    }
    assert_eq!(made[0], made[1], "the files fio and volbench create");
}

/// filedelete removes files; volbench removes only what it made, so files that were there
/// before are refused without --allow-destructive, and kept.
#[test]
fn filedelete_removes_only_what_the_run_made_unless_allowed() {
    let d = tmpdir();
    let keep = d.path().join("t.0.0");
    std::fs::write(&keep, b"data").unwrap();
    let job = d.path().join("del.fio");
    std::fs::write(
        &job,
        format!(
            "[t]\ndirectory={}\nioengine=filedelete\nfilesize=4\nbs=4\n",
            d.path().display()
        ),
    )
    .unwrap();
    let out = volbench()
        .arg("run")
        .arg(&job)
        .args(["-q", "--no-store"])
        .output()
        .unwrap();
    fails_saying(&out, 2, "--allow-destructive");
    assert!(keep.exists(), "a file volbench did not make was deleted");
    let out = volbench()
        .arg("run")
        .arg(&job)
        .args(["-q", "--no-store", "--allow-destructive"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!keep.exists());
}

/// One verify=pattern job on `file` by `tool` (`verify_only` to check only): its exit status
/// and stderr.
fn pattern_job(tool: &str, file: &Path, only: bool) -> (bool, String) {
    let args = [
        "--name=t".to_string(),
        format!("--filename={}", file.display()),
        "--size=4m".into(),
        "--bs=8k".into(),
        "--rw=randwrite".into(),
        "--direct=1".into(),
        "--ioengine=psync".into(),
        "--verify=pattern".into(),
        "--verify_pattern=0xAA".into(),
        format!("--verify_only={}", u8::from(only)),
        // fio would leave its verify state file in the working directory.
        "--verify_state_save=0".into(),
    ];
    let out = by(tool, &args, &[]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// verify=pattern writes nothing but the pattern, so each tool's verify_only checks the
/// other's file; a byte changed on disk fails both, and volbench names where.
#[test]
fn verify_pattern_files_check_across_tools_and_a_flipped_byte_fails_both() {
    require_tool!("fio");
    let d = tmpdir();
    for writer in ["fio", "vb"] {
        for checker in ["fio", "vb"] {
            let file = d.path().join(format!("{writer}-{checker}.dat"));
            let (ok, err) = pattern_job(writer, &file, false);
            assert!(ok, "{writer} writing: {err}");
            let (ok, err) = pattern_job(checker, &file, true);
            assert!(ok, "{checker} checking {writer}'s file: {err}");
        }
    }
    let file = d.path().join("vb-vb.dat");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[(1 << 20) + 100] = 0x55;
    std::fs::write(&file, bytes).unwrap();
    for checker in ["fio", "vb"] {
        let (ok, err) = pattern_job(checker, &file, true);
        assert!(!ok, "{checker} missed a changed byte");
        if checker == "vb" {
            assert!(err.contains("offset 1048676"), "{err}");
        }
    }
}

/// The bytes of `file` resident in the page cache (util-linux's fincore).
fn resident(file: &Path) -> u64 {
    let out = Std::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// uncached=1 (fio 3.40, RWF_DONTCACHE): a buffered read of a 16 MiB file leaves none of it
/// in the page cache, where the same read without it leaves all of it; writes carry the flag
/// to the kernel (strace), which on this kernel's ext4 still keeps written pages, as it does
/// for any writer that sets it.
#[test]
fn uncached_reads_leave_nothing_in_the_page_cache() {
    require_root!();
    require_tool!("fincore");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("u.dat");
    std::fs::write(&file, vec![3u8; 16 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    for (flag, want_all) in [("--uncached=0", true), ("--uncached=1", false)] {
        drop_caches();
        let _held = cache_held();
        ok_stdout(volbench().args([
            "run",
            "--name=u",
            &f,
            "--size=16m",
            "--rw=read",
            "--bs=128k",
            flag,
            "-q",
            "--no-store",
        ]));
        let res = resident(&file);
        assert_eq!(res == 16 << 20, want_all, "{flag}: {res} bytes resident");
        assert!(want_all || res == 0, "{flag}: {res} bytes resident");
    }
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let cmd = [
        vb.to_str().unwrap(),
        "run",
        "--name=u",
        &f,
        "--size=1m",
        "--rw=write",
        "--bs=128k",
        "--uncached=1",
        "--ioengine=psync",
        "-q",
        "--no-store",
    ];
    let (log, _) = strace(d.path(), &["-e", "trace=pwritev2"], &cmd);
    let flagged = log
        .lines()
        .filter(|l| l.contains("pwritev2(") && l.contains(", 0x80"))
        .count();
    assert_eq!(flagged, 8, "{log}");
}

/// atomic=1 on a device without an atomic write unit (zram has none): refused before any
/// I/O, naming the device, where the kernel would refuse every write.
#[test]
fn atomic_writes_are_refused_where_the_device_has_no_atomic_unit() {
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

/// ramp_size=8m (fio 3.36) at a paced 1,000 IOPS of 4 KiB: the ramp takes the first 2,048
/// I/Os (about 2 s), then the 2 s runtime counts from its end: 2,000 measured I/Os (the pace
/// fixes them, within 2 %) in a run of at least 4 s.
#[test]
fn ramp_size_warms_up_by_bytes_then_runs_its_runtime() {
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

/// A zram device's failed writes since it was made (io_stat's second field).
fn failed_writes(z: &Zram) -> u64 {
    let s = std::fs::read_to_string(z.sysfs().join("io_stat")).unwrap();
    s.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// One pass of 4k random writes over a 32 MiB zram device that stores at most 8 MiB: the
/// writes past the limit fail with EIO. With continue_on_error=write each tool carries on,
/// counts the failures as the kernel counts them (zram's failed_writes), and leaves them out
/// of its figures; the two tools fail about as many writes; without it volbench stops at the
/// first failure and names it.
#[test]
fn continue_on_error_counts_failed_writes_as_the_kernel_and_fio_do() {
    require_root!();
    require_tool!("fio");
    let job = |dev: &str| -> Vec<String> {
        [
            "--name=full",
            &format!("--filename={dev}"),
            "--rw=randwrite",
            "--bs=4k",
            "--size=32m",
            "--direct=1",
            "--ioengine=libaio",
            "--iodepth=8",
            "--continue_on_error=write",
            "--output-format=json",
        ]
        .map(String::from)
        .to_vec()
    };
    let mut errs = Vec::new();
    for tool in ["fio", "vb"] {
        let z = Zram::with_mem_limit("32M", "8M");
        let before = failed_writes(&z);
        let out = by(tool, &job(z.p()), &["--allow-destructive"]);
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let j = &v["jobs"][0];
        let (total, first) = (u(j, "/total_err"), u(j, "/first_error"));
        let kernel = failed_writes(&z) - before;
        assert_eq!(first, libc::EIO as u64, "{tool}");
        assert_eq!(total, kernel, "{tool}: the kernel failed {kernel} writes");
        assert!(
            total > 2048,
            "{tool}: {total} failures, most of 6k blocks past the limit"
        );
        // Each block once: fio's total_ios counts the failed ones too, its bytes do not.
        assert_eq!(u(j, "/write/total_ios"), 8192, "{tool}");
        assert_eq!(u(j, "/write/io_bytes") / 4096 + total, 8192, "{tool}");
        errs.push(total as f64);
    }
    assert!(
        (errs[0] - errs[1]).abs() < 0.05 * errs[0],
        "fio {} vs volbench {}",
        errs[0],
        errs[1]
    );
    let z = Zram::with_mem_limit("32M", "8M");
    let mut plain = job(z.p());
    plain.retain(|a| !a.starts_with("--continue_on_error"));
    let out = by("vb", &plain, &["--allow-destructive"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("Input/output error"), "{err}");
}

/// fill_fs on a fresh 64 MiB ext4: each tool writes until ENOSPC (root's reserved blocks
/// included) and ends without an error; both write the same bytes, the file system is full
/// afterwards, and volbench says what ended the job.
#[test]
fn fill_fs_writes_until_the_file_system_is_full_as_fio() {
    require_root!();
    require_tool!("fio");
    let mut written = Vec::new();
    for tool in ["fio", "vb"] {
        let fs = Ext4::new("64M");
        let dir = fs.dir.path().to_str().unwrap().to_string();
        let args = [
            "--name=fill".to_string(),
            format!("--directory={dir}"),
            "--rw=write".into(),
            "--bs=1m".into(),
            "--fill_fs=1".into(),
            "--direct=1".into(),
            "--ioengine=libaio".into(),
            "--iodepth=4".into(),
            "--output-format=json".into(),
        ];
        let out = by(tool, &args, &[]);
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["jobs"][0]["error"], 0, "{tool}");
        written.push(u(&v, "/jobs/0/write/io_bytes"));
        let df = Std::new("df")
            .args(["-B1", "--output=avail", &dir])
            .output()
            .unwrap();
        let avail: u64 = String::from_utf8_lossy(&df.stdout)
            .lines()
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(avail < 1 << 20, "{tool} left {avail} bytes free");
    }
    assert_eq!(
        written[0], written[1],
        "fio wrote {}, volbench {}",
        written[0], written[1]
    );
    let fs = Ext4::new("64M");
    let out = volbench()
        .args([
            "run",
            "--rw=write",
            "--bs=1m",
            "--fill_fs=1",
            "--output-format=volbench-json",
            "-q",
            "--no-store",
        ])
        .arg(format!("--directory={}", fs.dir.path().display()))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"][0]["ended_by"], "full", "{}", v["jobs"][0]);
}

/// file_append: a write job appends its size after the end of an existing file and leaves
/// what was there byte for byte, in both tools.
#[test]
fn file_append_writes_after_the_end_of_the_file_as_fio() {
    require_tool!("fio");
    let d = tmpdir();
    let old: Vec<u8> = (0..4u32 << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    for tool in ["fio", "vb"] {
        let f = d.path().join(format!("{tool}.dat"));
        std::fs::write(&f, &old).unwrap();
        let args = [
            "--name=app".to_string(),
            format!("--filename={}", f.display()),
            "--rw=write".into(),
            "--bs=64k".into(),
            "--size=2m".into(),
            "--file_append=1".into(),
            "--output-format=json".into(),
        ];
        let out = by(tool, &args, &[]);
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(u(&v, "/jobs/0/write/io_bytes"), 2 << 20, "{tool}");
        let now = std::fs::read(&f).unwrap();
        assert_eq!(
            now.len(),
            6 << 20,
            "{tool}: the file grew by the job's size"
        );
        assert!(
            now[..4 << 20] == old[..],
            "{tool}: what was there is untouched"
        );
        assert!(
            now[4 << 20..].iter().any(|&b| b != 0),
            "{tool}: the appended part was written"
        );
    }
}

/// ignore_error=,ENOSPC: 32 MiB of writes into a 16 MiB ext4 carry on past "no space", the
/// failures counted as fio counts them; without it volbench stops at the first and says so.
#[test]
fn ignore_error_carries_past_the_errnos_listed_as_fio() {
    require_root!();
    require_tool!("fio");
    let args = |dir: &str, ignore: bool| -> Vec<String> {
        let mut a: Vec<String> = [
            "--name=over",
            &format!("--filename={dir}/f"),
            "--rw=write",
            "--bs=1m",
            "--size=32m",
            "--direct=1",
            // No space reserved first: the writes themselves meet the full file system.
            "--fallocate=none",
            "--output-format=json",
        ]
        .map(String::from)
        .to_vec();
        if ignore {
            a.push("--ignore_error=,ENOSPC".into());
        }
        a
    };
    let mut errs = Vec::new();
    for tool in ["fio", "vb"] {
        let fs = Ext4::new("16M");
        let out = by(tool, &args(fs.dir.path().to_str().unwrap(), true), &[]);
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let j = &v["jobs"][0];
        assert_eq!(u(j, "/first_error"), libc::ENOSPC as u64, "{tool}");
        errs.push(u(j, "/total_err"));
    }
    assert!(errs[0] > 10, "most of 32 writes fail in 16 MiB: {errs:?}");
    assert!(
        errs[0].abs_diff(errs[1]) <= 1,
        "fio {} vs volbench {}",
        errs[0],
        errs[1]
    );
    let fs = Ext4::new("16M");
    let out = by("vb", &args(fs.dir.path().to_str().unwrap(), false), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

/// max_latency: on a 100-IOPS volume at depth 4 every read waits tens of milliseconds, so a
/// 5 ms limit ends the job at once with ETIMEDOUT in both tools; a 2 s limit lets both run.
#[test]
fn max_latency_ends_a_job_with_etimedout_as_fio_does() {
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 100, 64 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    for tool in ["fio", "vb"] {
        let (err, secs, said) = on_cap(&cap, tool, z.p(), 3, "--max_latency=5ms");
        assert_eq!(
            err, 110,
            "{tool}: over the limit ends with ETIMEDOUT: {said}"
        );
        assert!(secs < 2.5, "{tool}: it ran {secs:.1} s of its 3");
        let (err, secs, said) = on_cap(&cap, tool, z.p(), 3, "--max_latency=2s");
        assert_eq!(err, 0, "{tool}: under the limit: {said}");
        assert!(secs >= 3.0, "{tool}: it ran {secs:.1} s");
    }
}

/// pre_read: the job's file is read into the page cache before the job starts, in both tools
/// (fincore finds all of it cached after 2,000 random reads, where without pre_read only
/// what those reads touched is), and volbench's measured reads then reach the device almost
/// never (the kernel's counter for the run, in its report).
#[test]
fn pre_read_starts_the_job_with_its_file_cached_as_fio_does() {
    require_root!();
    require_tool!("fio");
    require_tool!("fincore");
    let fs = Ext4::new("256M");
    let file = fs.dir.path().join("pre.dat");
    fill_random(&file, 64 << 20);
    let job = |pre: u8| {
        vec![
            "--name=p".to_string(),
            format!("--filename={}", file.display()),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--size=64m".into(),
            "--ioengine=psync".into(),
            "--number_ios=2000".into(),
            format!("--pre_read={pre}"),
        ]
    };
    for tool in ["fio", "vb"] {
        for pre in [0u8, 1] {
            // Cold first: a job without pre_read drops the cache itself (invalidate=1).
            let _held = cache_held();
            let mut c = if tool == "fio" {
                let mut c = std::process::Command::new("fio");
                c.args(job(pre)).arg("--output-format=json");
                c
            } else {
                let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("volbench"));
                c.arg("run").args(job(pre)).args([
                    "--output-format=volbench-json",
                    "-q",
                    "--no-store",
                ]);
                c
            };
            let out = c.output().unwrap();
            assert!(
                out.status.success(),
                "{tool} pre_read={pre}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let res = resident(&file);
            if pre == 1 {
                assert_eq!(res, 64 << 20, "{tool}: pre_read left {res} bytes cached");
            } else {
                assert!(
                    res < 32 << 20,
                    "{tool}: {res} bytes cached without pre_read"
                );
            }
            if tool == "vb" {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                let k = v["environment"]["targets"][0]["kernel_counters"]["read_ios"]
                    .as_u64()
                    .unwrap();
                if pre == 1 {
                    assert!(k <= 40, "pre_read: the device saw {k} reads during the job");
                } else {
                    assert!(k >= 1000, "without pre_read the device saw only {k} reads");
                }
            }
        }
    }
}

/// The sync_file_range calls of one tool's run: (offset, length, flags) each, from strace.
fn sfr_calls(d: &Path, tool: &str, file: &Path) -> Vec<(u64, u64, String)> {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let f = format!("--filename={}", file.display());
    let mut cmd: Vec<&str> = if tool == "fio" {
        vec!["fio"]
    } else {
        vec![vb.to_str().unwrap(), "run", "-q", "--no-store"]
    };
    cmd.extend([
        "--name=s",
        &f,
        "--rw=write",
        "--bs=4k",
        "--size=4m",
        "--ioengine=psync",
        "--sync_file_range=wait_before,write:16",
    ]);
    let (log, _) = strace(d, &["-e", "trace=sync_file_range"], &cmd);
    log.lines()
        .filter_map(|l| {
            let args = l.split("sync_file_range(").nth(1)?;
            let a: Vec<&str> = args.split(", ").collect();
            Some((
                a[1].parse().ok()?,
                a[2].parse().ok()?,
                a[3].split(')').next()?.to_string(),
            ))
        })
        .collect()
}

/// sync_file_range=FLAGS:N: after every 16 sequential 4 KiB writes (but the last 16), one call
/// over exactly the 64 KiB those writes covered, with the flags given: the same calls, in the same order, with
/// the same arguments, as fio's (strace).
#[test]
fn sync_file_range_issues_fios_calls() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("s.dat");
    let fio = sfr_calls(d.path(), "fio", &file);
    std::fs::remove_file(&file).unwrap();
    let vb = sfr_calls(d.path(), "vb", &file);
    // 63, not 64: fio decides on a sync when it picks the next I/O, and after the 1,024th
    // write the job is over.
    assert_eq!(fio.len(), 63, "fio: {fio:?}");
    assert_eq!(
        fio[1],
        (
            65536,
            65536,
            "SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE".into()
        )
    );
    assert_eq!(vb, fio);
}

/// The locked memory (VmLck, KiB) of `prog ARGS` half a second into its run.
fn locked_kib(prog: &str, args: &[&str]) -> u64 {
    let mut child = Std::new(prog)
        .args(args)
        .env("VOLBENCH_STORE", test_store())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let _ = child.wait();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmLck:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// lockmem=64m: the job holds 64 MiB locked while it runs, as fio's job does (VmLck of the
/// process, fio with --thread so its job is in the same process).
#[test]
fn lockmem_pins_memory_while_the_job_runs_as_fio_does() {
    require_root!();
    require_tool!("fio");
    let d = tmpdir();
    let f = format!("--filename={}", d.path().join("l.dat").display());
    let job = [
        "--name=l",
        &f,
        "--size=1m",
        "--rw=read",
        "--lockmem=64m",
        "--runtime=2",
        "--time_based",
    ];
    let fio = locked_kib(
        "fio",
        &[&job[..], &["--thread", "--ioengine=null"]].concat(),
    );
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let ours = locked_kib(
        vb.to_str().unwrap(),
        &[
            &["run", "-q", "--no-store", "--ioengine=null"][..],
            &job[..],
        ]
        .concat(),
    );
    assert!(fio >= 64 << 10, "fio locked {fio} KiB");
    assert!(
        (64 << 10..(64 << 10) + 8192).contains(&ours),
        "volbench locked {ours} KiB (fio {fio})"
    );
    let none = locked_kib(
        vb.to_str().unwrap(),
        &[
            "run",
            "-q",
            "--no-store",
            "--ioengine=null",
            "--name=l",
            &f,
            "--size=1m",
            "--runtime=2",
            "--time_based",
        ],
    );
    assert!(none < 8192, "without lockmem: {none} KiB locked");
}

/// The files of a job's reads in issue order (file names, from strace's openat and pread64).
fn read_order(d: &Path, tool: &str, service: &str) -> Vec<String> {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let dir = format!("--directory={}", d.display());
    let fst = format!("--file_service_type={service}");
    let mut cmd: Vec<&str> = if tool == "fio" {
        vec!["fio"]
    } else {
        vec![vb.to_str().unwrap(), "run", "-q", "--no-store"]
    };
    cmd.extend([
        "--name=j",
        &dir,
        "--nrfiles=4",
        "--size=1m",
        "--bs=4k",
        "--rw=read",
        "--ioengine=psync",
        &fst,
    ]);
    let (log, _) = strace(d, &["-e", "trace=openat,pread64"], &cmd);
    let mut fds: std::collections::HashMap<String, String> = Default::default();
    let mut order = Vec::new();
    for l in log.lines() {
        if let Some(rest) = l.split("openat(").nth(1) {
            let (Some(name), Some(fd)) = (rest.split('"').nth(1), l.rsplit("= ").next()) else {
                continue;
            };
            if name.starts_with(&d.display().to_string()) {
                let file = name.rsplit('/').next().unwrap().to_string();
                fds.insert(fd.split_whitespace().next().unwrap().to_string(), file);
            }
        } else if let Some(rest) = l.split("pread64(").nth(1) {
            if let Some(f) = fds.get(rest.split(',').next().unwrap()) {
                order.push(f.clone());
            }
        }
    }
    order
}

/// Runs of consecutive reads on one file: (file, length).
fn runs(order: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for f in order {
        match out.last_mut() {
            Some((g, n)) if g == f => *n += 1,
            _ => out.push((f.clone(), 1)),
        }
    }
    out
}

/// file_service_type over 4 files of 64 reads: `sequential` reads each file whole in turn (4
/// runs of 64); `roundrobin:8` goes 8 reads a file in order (32 runs of 8); `random:8` draws a file for every 8 reads
/// among those with reads left, every file still read whole once. The same in fio (strace).
#[test]
fn file_service_type_orders_files_as_fio_does() {
    require_tool!("fio");
    require_tool!("strace");
    for tool in ["fio", "vb"] {
        for service in ["sequential", "roundrobin:8", "random:8"] {
            let d = tmpdir();
            let order = read_order(d.path(), tool, service);
            assert_eq!(order.len(), 256, "{tool} {service}: {} reads", order.len());
            let mut per: std::collections::HashMap<&str, usize> = Default::default();
            for f in &order {
                *per.entry(f).or_default() += 1;
            }
            assert!(
                per.len() == 4 && per.values().all(|&n| n == 64),
                "{tool} {service}: {per:?}"
            );
            let r = runs(&order);
            match service {
                "sequential" => assert_eq!(r.len(), 4, "{tool}: {r:?}"),
                "roundrobin:8" => {
                    assert_eq!(r.len(), 32, "{tool}: {r:?}");
                    assert!(r.iter().all(|x| x.1 == 8));
                    assert!(r.windows(5).all(|w| w[0].0 == w[4].0 && w[0].0 != w[1].0));
                }
                _ => {
                    assert!(r.iter().all(|x| x.1 % 8 == 0), "{tool}: {r:?}");
                    let cyclic = r.windows(5).all(|w| w[0].0 == w[4].0);
                    assert!(!cyclic, "{tool}: random:8 went round robin: {r:?}");
                }
            }
        }
    }
}

/// The offsets of a job's reads (strace's pread64).
fn read_offsets(d: &Path, tool: &str, extra: &[&str]) -> Vec<u64> {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let f = format!("--filename={}", d.join("ba.dat").display());
    let mut cmd: Vec<&str> = if tool == "fio" {
        vec!["fio"]
    } else {
        vec![vb.to_str().unwrap(), "run", "-q", "--no-store"]
    };
    cmd.extend([
        "--name=b",
        &f,
        "--size=16m",
        "--rw=randread",
        "--ioengine=psync",
    ]);
    cmd.extend(extra);
    let (log, _) = strace(d, &["-e", "trace=pread64"], &cmd);
    log.lines()
        .filter(|l| l.contains("pread64(") && l.contains("65536"))
        .filter_map(|l| l.rsplit(", ").next()?.split(')').next()?.parse().ok())
        .collect()
}

/// blockalign=4k under bs=64k: random reads start on 4 KiB boundaries, most of them off the
/// 64 KiB grid, every one inside the file, as fio's do (strace); without it, all on the grid;
/// with ba=4k,64k and ba=64k,4k the reads keep to the first value in both tools.
#[test]
fn blockalign_aligns_random_offsets_as_fio_does() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    std::fs::write(d.path().join("ba.dat"), vec![3u8; 16 << 20]).unwrap();
    for tool in ["fio", "vb"] {
        let offs = read_offsets(d.path(), tool, &["--bs=64k", "--ba=4k"]);
        assert_eq!(offs.len(), 256, "{tool}");
        assert!(
            offs.iter().all(|o| o % 4096 == 0 && o + 65536 <= 16 << 20),
            "{tool}"
        );
        let off_grid = offs.iter().filter(|&&o| o % 65536 != 0).count();
        // 15 in 16 expected off the grid: 200 of 256 is far under that for any seed.
        assert!(
            off_grid > 200,
            "{tool}: only {off_grid} of 256 off the 64 KiB grid"
        );
        let plain = read_offsets(d.path(), tool, &["--bs=64k", "--number_ios=200"]);
        assert!(
            plain.iter().all(|o| o % 65536 == 0),
            "{tool} without blockalign"
        );
        // ba=R,W: the reads take R (the writes' W is not theirs).
        let apart = read_offsets(d.path(), tool, &["--bs=64k", "--ba=4k,64k"]);
        let off_grid = apart.iter().filter(|&&o| o % 65536 != 0).count();
        assert!(
            off_grid > 200,
            "{tool}: ba=4k,64k, {off_grid} of 256 off the grid"
        );
        let apart = read_offsets(d.path(), tool, &["--bs=64k", "--ba=64k,4k"]);
        let on_grid = apart.iter().all(|o| o % 65536 == 0);
        assert!(on_grid && apart.len() > 200, "{tool}: ba=64k,4k");
    }
}

/// nowait=1 (RWF_NOWAIT) on libaio and io_uring: a buffered read of a file that is not in the
/// page cache fails at once with EAGAIN and ends the job, in fio and in volbench; the same
/// read of the cached file (invalidate=0) completes in both.
#[test]
fn nowait_fails_a_blocking_read_with_eagain_as_fio_does() {
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
        for tool in ["fio", "vb"] {
            drop_caches();
            let out = by(tool, &args, &[]);
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
                let out = by(tool, &args, &[]);
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

/// fio-JSON's first job from a run's stdout (fio prints notes before the JSON).
fn first_job(stdout: &str) -> Value {
    let at = stdout
        .find('{')
        .unwrap_or_else(|| panic!("no JSON: {stdout}"));
    let v: Value = serde_json::from_str(&stdout[at..]).unwrap();
    v["jobs"][0].clone()
}

/// unlink_each_loop=1 with loops=3: fio and volbench each delete the file between loops
/// (strace's unlinks: fio 2, volbench 3, its last removing what the run made) and write
/// 3 MiB; a job that only reads reads its first loop, then ends with ENOENT in both; a file
/// that was there before the run is refused (volbench deletes only what it creates).
#[test]
fn unlink_each_loop_deletes_the_files_between_loops_as_fio_does() {
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("ul.dat");
    let job = |rw: &str, format: &str| {
        vec![
            "--name=ul".to_string(),
            format!("--filename={}", file.display()),
            "--size=1m".into(),
            "--bs=256k".into(),
            format!("--rw={rw}"),
            "--loops=3".into(),
            "--unlink_each_loop=1".into(),
            format!("--output-format={format}"),
        ]
    };
    for (tool, unlinks) in [("fio", 2), ("vb", 3)] {
        let _ = std::fs::remove_file(&file);
        let format = if tool == "fio" { "json" } else { "fio-json" };
        let writes = job("write", format);
        let writes: Vec<&str> = writes.iter().map(|s| s.as_str()).collect();
        let trace = ["-e", "trace=unlink,unlinkat"];
        let (log, stdout) = strace_job(d.path(), tool, &trace, &writes, false);
        let j = first_job(&stdout);
        assert_eq!(u(&j, "/write/io_bytes"), 3 << 20, "{tool}: {j}");
        let done = log
            .lines()
            .filter(|l| l.contains("ul.dat") && l.ends_with("= 0"));
        assert_eq!(done.count(), unlinks, "{tool}'s unlinks: {log}");
        let _ = std::fs::remove_file(&file);
        let out = by(tool, &job("read", format), &[]);
        let j = first_job(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(u(&j, "/read/io_bytes"), 1 << 20, "{tool}: {j}");
        assert_eq!(u(&j, "/error"), 2, "{tool}: ENOENT at the second loop");
    }
    std::fs::write(&file, b"not ours").unwrap();
    let f = format!("--filename={}", file.display());
    let args = [
        "--name=ul",
        &f,
        "--size=1m",
        "--rw=write",
        "--loops=2",
        "--unlink_each_loop=1",
    ];
    fails_saying(&by("vb", &args, &[]), 2, "was there before this run");
    assert_eq!(std::fs::read(&file).unwrap(), b"not ours");
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

/// thinktime_iotime=300ms thinktime=100ms at 1,000 IOPS for 2 s (null engine): 300 ms of
/// I/O then 100 ms idle (fio 3.33's first cycle is 400 ms of I/O); by default the rate
/// catches up after each think (2,000 I/Os in both tools), with rate_ignore_thinktime it
/// does not (about 1,600 in both: 1.6 s of I/O at 1,000 IOPS); within 8 %, which keeps the
/// two apart (a busy machine delays a paced job, more so one that does not catch up).
#[test]
fn thinktime_iotime_and_rate_ignore_thinktime_pace_as_fio() {
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
        for tool in ["fio", "vb"] {
            let out = fio_json_by(tool, &args);
            let ios = u(&out["jobs"][0], "/read/total_ios") as f64;
            assert!(
                (ios / want - 1.0).abs() < 0.08,
                "{tool}, rate_ignore_thinktime={ignore}: {ios} I/Os, not about {want}"
            );
        }
    }
}

/// The bytes a zram device holds (mm_stat's orig_data_size): a discard frees them.
fn zram_stored(z: &Zram) -> u64 {
    let s = std::fs::read_to_string(z.sysfs().join("mm_stat")).unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

/// rw=trim, randtrim and trimwrite over 8 MiB of written zram, by fio and volbench: the same
/// BLKDISCARD ranges (in order for trim, the same set for randtrim, strace), 512 trims in
/// fio-JSON's trim section, the device holding nothing after a trim and all 8 MiB again after
/// trimwrite (mm_stat), the trims' summed latency within the job's runtime in both. A file
/// is refused in one line (fio 3.33 fails on one
/// with ENOTTY).
#[test]
fn trim_workloads_discard_what_fios_discard() {
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let z = Zram::new("16M");
    let d = tmpdir();
    for rw in ["trim", "randtrim", "trimwrite"] {
        let mut ranges: Vec<Vec<String>> = Vec::new();
        let mut lat = Vec::new();
        for tool in ["fio", "vb"] {
            fill_random(&z.path, 8 << 20);
            assert_eq!(zram_stored(&z), 8 << 20);
            let dev = format!("--filename={}", z.p());
            let rwa = format!("--rw={rw}");
            let job = [
                "--name=t",
                &dev,
                "--size=8m",
                "--bs=16k",
                &rwa,
                "--direct=1",
            ];
            let (log, stdout) = strace_job(d.path(), tool, &["-e", "trace=ioctl"], &job, true);
            let mut r: Vec<String> = log
                .lines()
                .filter(|l| l.contains("BLKDISCARD") && l.ends_with("= 0"))
                .map(|l| l[l.find('[').unwrap()..].to_string())
                .collect();
            if rw == "randtrim" {
                r.sort();
            }
            ranges.push(r);
            let j = first_job(&stdout);
            assert_eq!(u(&j, "/trim/total_ios"), 512, "{tool} {rw}");
            assert_eq!(u(&j, "/trim/io_bytes"), 8 << 20, "{tool} {rw}");
            let written = if rw == "trimwrite" { 8 << 20 } else { 0 };
            assert_eq!(u(&j, "/write/io_bytes"), written, "{tool} {rw}");
            assert_eq!(
                zram_stored(&z),
                written,
                "{tool} {rw}: what the device holds"
            );
            // One trim at a time, in place: their latencies add up to no more than the
            // job's runtime (ms, rounded), and to a good part of it in a trim-only job.
            let busy_ms = f(&j, "/trim/lat_ns/mean") * 512.0 / 1e6;
            let ran_ms = u(&j, "/job_runtime") as f64 + 1.0;
            let share = if rw == "trimwrite" { 0.0 } else { 0.2 };
            assert!(
                busy_ms <= ran_ms && busy_ms >= share * (ran_ms - 2.0),
                "{tool} {rw}: trims took {busy_ms:.1} ms of {ran_ms} ms"
            );
            lat.push(busy_ms);
        }
        assert_eq!(ranges[0].len(), 512, "{rw}");
        assert_eq!(ranges[0], ranges[1], "{rw}: the discarded ranges");
        // Bounded by each job's own runtime above, not compared: tests run side by side, so
        // a latency ratio is noise here (alone, both time a 16 KiB zram discard at ~28 µs).
        assert!(lat.iter().all(|&l| l > 0.0), "{rw}: trim time {lat:?}");
    }
    let file = d.path().join("t.dat");
    std::fs::write(&file, vec![1u8; 1 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    let out = by("vb", &["--name=t", &f, "--size=1m", "--rw=trim"], &[]);
    fails_saying(&out, 2, "only a block device takes");
}

/// From libaio's io_submit calls under strace: (I/Os, I/Os carrying `prio` in aio_reqprio
/// with IOCB_FLAG_IOPRIO), counting only those of `len` bytes when given.
fn prio_iocbs(log: &str, prio: &str, len: Option<u64>) -> (usize, usize) {
    let iocbs = log.split("{aio_data=").skip(1);
    let of_len = |c: &&str| len.is_none_or(|n| c.contains(&format!("aio_nbytes={n},")));
    let mine: Vec<&str> = iocbs.filter(of_len).collect();
    let at = mine
        .iter()
        .filter(|c| c.contains(prio) && c.contains("IOCB_FLAG_IOPRIO"))
        .count();
    (mine.len(), at)
}

/// cmdprio_percentage=30 with cmdprio_class=2 and cmdprio=5 (libaio, strace of io_submit):
/// about 30 % of the iocbs carry IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 5) in both tools (4,096
/// reads: 30 % within 4 points, six standard deviations); cmdprio_bssplit=4k/100/1/3:64k/0
/// puts every 4 KiB read, and no 64 KiB one, at realtime level 3 in both.
#[test]
fn cmdprio_gives_a_share_of_requests_their_own_priority_as_fio() {
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let z = Zram::new("32M");
    fill_random(&z.path, 16 << 20);
    let d = tmpdir();
    let dev = format!("--filename={}", z.p());
    let base = [
        "--name=c",
        &dev,
        "--rw=randread",
        "--direct=1",
        "--ioengine=libaio",
    ];
    let share = [
        "--bs=4k",
        "--size=16m",
        "--iodepth=4",
        "--cmdprio_percentage=30",
        "--cmdprio_class=2",
        "--cmdprio=5",
    ];
    let split = [
        "--bssplit=4k/50:64k/50",
        "--size=16m",
        "--cmdprio_bssplit=4k/100/1/3:64k/0",
    ];
    for tool in ["fio", "vb"] {
        let trace = ["-e", "trace=io_submit"];
        let (log, _) = strace_job(d.path(), tool, &trace, &[&base[..], &share].concat(), false);
        let (n, at) = prio_iocbs(&log, "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 5)", None);
        assert_eq!(n, 4096, "{tool}");
        let pct = 100.0 * at as f64 / n as f64;
        assert!(
            (26.0..34.0).contains(&pct),
            "{tool}: {pct:.1} % at the priority"
        );
        let (log, _) = strace_job(d.path(), tool, &trace, &[&base[..], &split].concat(), false);
        let rt3 = "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 3)";
        let (small, small_at) = prio_iocbs(&log, rt3, Some(4096));
        let (large, large_at) = prio_iocbs(&log, rt3, Some(65536));
        assert!(
            small > 50 && large > 50,
            "{tool}: {small} and {large} reads"
        );
        assert_eq!((small_at, large_at), (small, 0), "{tool}");
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
    require_root!();
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("fa.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    let count = common::tracefs::EventCount::start("io_uring/io_uring_submit_req");
    for tool in ["fio", "vb"] {
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
            let out = by(tool, &args, &[]);
            assert!(out.status.success(), "{tool}");
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
    for tool in ["fio", "vb"] {
        let engine = if tool == "fio" {
            "--ioengine=pvsync2"
        } else {
            "--ioengine=psync"
        };
        // fio takes an engine's options only after the engine.
        let job = [&[engine], &job[..]].concat();
        let (log, _) = strace_job(d.path(), tool, &["-e", "trace=preadv2"], &job, false);
        let reads = log.matches("preadv2(").count();
        let polled = log.lines().filter(|l| l.contains("RWF_HIPRI")).count();
        assert_eq!(reads, 4096, "{tool}");
        let pct = 100.0 * polled as f64 / reads as f64;
        assert!((26.0..34.0).contains(&pct), "{tool}: {pct:.1} % polled");
    }
}

/// bs_is_seq_rand=1 with bs=4k,64k: sequential reads and writes are 4 KiB, random ones
/// 64 KiB (the random map cuts a few short at the end), and percentage_random=50 gives a
/// mean between, in fio and volbench alike (fio-JSON's bytes per I/O).
#[test]
fn bs_is_seq_rand_sizes_by_sequential_or_random_as_fio() {
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("sr.dat");
    fill_random(&file, 16 << 20);
    let f = format!("--filename={}", file.display());
    for (rw, lo, hi) in [
        ("--rw=read", 4096.0, 4096.0),
        ("--rw=write", 4096.0, 4096.0),
        ("--rw=randread", 40e3, 65536.0),
        ("--rw=randwrite", 40e3, 65536.0),
        ("--percentage_random=50", 15e3, 50e3),
    ] {
        let rw = if rw.starts_with("--perc") {
            ["--rw=randread", rw]
        } else {
            [rw, rw]
        };
        let args = [
            "--name=s",
            &f,
            rw[0],
            rw[1],
            "--direct=1",
            "--bs=4k,64k",
            "--bs_is_seq_rand=1",
            "--size=16m",
            "--io_size=4m",
        ];
        for tool in ["fio", "vb"] {
            let out = fio_json_by(tool, &args);
            let j = &out["jobs"][0];
            let dir = if rw[0].contains("read") {
                "read"
            } else {
                "write"
            };
            let bytes = u(j, &format!("/{dir}/io_bytes")) as f64;
            let per = bytes / u(j, &format!("/{dir}/total_ios")) as f64;
            assert!(
                (lo..=hi).contains(&per),
                "{tool} {rw:?}: {per:.0} bytes per I/O"
            );
        }
    }
}

/// nrfiles=200 over size=256k at bs=4k gives each file 1,310 bytes, under one block: fio
/// makes the 200 files at that size and does no I/O, without an error, time-based or not;
/// so does volbench (it refused the job before).
#[test]
fn files_under_one_block_are_made_and_get_no_io_as_fio() {
    require_tool!("fio");
    for rw in ["--rw=write", "--rw=randread"] {
        for timed in ["--time_based=0", "--time_based=1"] {
            for tool in ["fio", "vb"] {
                let d = tmpdir();
                let dir = format!("--directory={}", d.path().display());
                let args = [
                    "--name=n",
                    &dir,
                    "--nrfiles=200",
                    "--size=256k",
                    "--bs=4k",
                    rw,
                    "--runtime=1",
                    timed,
                ];
                let out = fio_json_by(tool, &args);
                let j = &out["jobs"][0];
                let ios = u(j, "/read/total_ios") + u(j, "/write/total_ios");
                assert_eq!((ios, u(j, "/error")), (0, 0), "{tool} {rw} {timed}");
                let sizes: Vec<u64> = std::fs::read_dir(d.path())
                    .unwrap()
                    .map(|e| e.unwrap().metadata().unwrap().len())
                    .collect();
                assert_eq!(sizes.len(), 200, "{tool} {rw}");
                assert!(sizes.iter().all(|&s| s == 1310), "{tool} {rw}: {sizes:?}");
            }
        }
    }
}

/// opendir over a tree of three files (1 MiB, 2 MiB in a subdirectory, 512 KiB): fio and
/// volbench read all of each (3.5 MiB), or with size=1536k a third of it from each (512 KiB
/// apiece), from the same files (strace's opens); an empty directory is refused in one line.
#[test]
fn opendir_takes_every_file_below_it_as_fio() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let tree = d.path().join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    for (name, kib) in [("a", 1024), ("sub/b", 2048), ("c", 512)] {
        fill_random(&tree.join(name), kib << 10);
    }
    let od = format!("--opendir={}", tree.display());
    for (size, want) in [(None, 3584u64 << 10), (Some("--size=1536k"), 1536 << 10)] {
        let mut job = vec!["--name=o", &od, "--rw=read", "--bs=64k"];
        job.extend(size);
        for tool in ["fio", "vb"] {
            let (log, stdout) = strace_job(d.path(), tool, &["-e", "trace=openat"], &job, true);
            let j = first_job(&stdout);
            assert_eq!(u(&j, "/read/io_bytes"), want, "{tool} {size:?}");
            for name in ["/a\"", "/sub/b\"", "/c\""] {
                assert!(log.contains(name), "{tool} did not open {name}");
            }
        }
    }
    let empty = d.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let od = format!("--opendir={}", empty.display());
    fails_saying(
        &by("vb", &["--name=o", &od, "--rw=read"], &[]),
        2,
        "holds no regular file",
    );
}

/// wait_for=a in a job file of three time-based jobs (a 1 s, b 3 s, c 1 s waiting for a, at
/// 200 IOPS each, psync, strace -y): in fio and volbench c's reads start when a's end (1 s
/// in, within 0.4 s) and end while b still runs; its 200 reads are all done, as are a's and
/// b's. A wait_for naming no earlier job is refused in one line.
#[test]
fn wait_for_starts_a_job_when_the_one_it_names_ends_as_fio() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let job = d.path().join("wf.fio");
    let text = "[global]\nioengine=psync\nrw=randread\nbs=4k\nsize=4m\nrate_iops=200\n\
                time_based\n[a]\nfilename=a.dat\nruntime=1\n[b]\nfilename=b.dat\nruntime=3\n\
                [c]\nfilename=c.dat\nwait_for=a\nruntime=1\n";
    std::fs::write(&job, text).unwrap();
    let job_s = job.to_str().unwrap();
    for tool in ["fio", "vb"] {
        for f in ["a", "b", "c"] {
            fill_random(&d.path().join(format!("{f}.dat")), 4 << 20);
        }
        let trace = ["-ttt", "-y", "-e", "trace=pread64"];
        let (log, _) = strace_job(d.path(), tool, &trace, &[job_s], false);
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
        let counts = (a.2 as f64, b.2 as f64, c.2 as f64);
        let near = |n: f64, want: f64| (n / want - 1.0).abs() < 0.1;
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

/// bs_unaligned=1 with bsrange=1k-9k (buffered psync randwrite, strace -s 0): most writes
/// are sizes off the 1 KiB grid in fio and volbench alike, each at an offset on it, and both
/// write io_size (2 MiB) and at most one write more.
#[test]
fn bs_unaligned_draws_any_size_of_the_range_as_fio() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    for tool in ["fio", "vb"] {
        let file = d.path().join(format!("bu-{tool}.dat"));
        let f = format!("--filename={}", file.display());
        let job = [
            "--name=b",
            &f,
            "--rw=randwrite",
            "--ioengine=psync",
            "--bsrange=1k-9k",
        ];
        let job = [&job[..], &["--bs_unaligned=1", "--size=4m", "--io_size=2m"]].concat();
        let (log, stdout) = strace_job(
            d.path(),
            tool,
            &["-s", "0", "-e", "trace=pwrite64"],
            &job,
            true,
        );
        // pwrite64(fd, ""..., LEN, OFFSET) = LEN
        let writes: Vec<(u64, u64)> = log
            .lines()
            .filter(|l| l.contains("pwrite64("))
            .filter_map(|l| {
                let args = l.split("\"\"...").nth(1)?;
                let mut n = args.split([',', ')']).filter_map(|x| x.trim().parse().ok());
                Some((n.next()?, n.next()?))
            })
            .collect();
        let odd = writes.iter().filter(|(len, _)| len % 1024 != 0).count();
        assert!(writes.len() > 200, "{tool}: {} writes", writes.len());
        assert!(
            odd * 2 > writes.len(),
            "{tool}: {odd} of {} off the grid",
            writes.len()
        );
        assert!(
            writes.iter().all(|(_, off)| off % 1024 == 0),
            "{tool}: an offset off it"
        );
        let bytes = u(&first_job(&stdout), "/write/io_bytes");
        assert!(
            (2 << 20..(2 << 20) + 9216).contains(&bytes),
            "{tool}: {bytes} bytes"
        );
    }
}

/// bssplit=4k/50:16k/50,64k/100 (the reads' split, then the writes'), sequential rw over
/// 16 MiB, direct: every write is 64 KiB and the reads average between 4 and 16 KiB (about
/// 10), in fio and volbench alike (fio-JSON); it was refused before.
#[test]
fn bssplit_takes_the_reads_and_the_writes_splits_apart_as_fio() {
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("bw.dat");
    fill_random(&file, 16 << 20);
    let f = format!("--filename={}", file.display());
    let args = [
        "--name=s",
        &f,
        "--rw=rw",
        "--direct=1",
        "--bssplit=4k/50:16k/50,64k/100",
        "--size=16m",
    ];
    for tool in ["fio", "vb"] {
        let out = fio_json_by(tool, &args);
        let j = &out["jobs"][0];
        let per = |d: &str| {
            u(j, &format!("/{d}/io_bytes")) as f64 / u(j, &format!("/{d}/total_ios")) as f64
        };
        assert_eq!(per("write"), 65536.0, "{tool}");
        assert!(
            (8e3..12.5e3).contains(&per("read")),
            "{tool}: reads of {}",
            per("read")
        );
    }
}

/// The share of the reads that went to the two busiest of a job's files, from strace -y.
fn top_two_share(log: &str) -> f64 {
    let mut per = std::collections::HashMap::<&str, u32>::new();
    for l in log.lines().filter(|l| l.contains(" pread64(")) {
        let Some(name) = l.split('<').nth(1).and_then(|s| s.split('>').next()) else {
            continue;
        };
        *per.entry(name).or_default() += 1;
    }
    let mut counts: Vec<u32> = per.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total: u32 = counts.iter().sum();
    (counts[0] + counts.get(1).copied().unwrap_or(0)) as f64 / total as f64
}

/// file_service_type=zipf:1.2, zipf:0.8, pareto:0.3 and normal:10 over ten files (1,500
/// random reads, strace -y): the two busiest files take the same share of the reads in fio
/// and volbench (zipf:1.2 about 94 %, pareto:0.3 about 63 %), as both draw over 1,024 ranks
/// per file; it was refused before.
#[test]
fn skewed_file_service_types_choose_files_as_fio() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let dir = format!("--directory={}", d.path().display());
    for (dist, tolerance) in [
        ("zipf:1.2", 0.05),
        ("zipf:0.8", 0.06),
        ("pareto:0.3", 0.06),
        ("normal:10", 0.1),
    ] {
        let fst = format!("--file_service_type={dist}");
        let job = [
            "--name=f",
            &dir,
            "--nrfiles=10",
            "--size=80m",
            "--rw=randread",
            "--bs=4k",
        ];
        let job = [&job[..], &["--number_ios=1500", &fst]].concat();
        let mut shares = Vec::new();
        for tool in ["fio", "vb"] {
            let trace = ["-y", "-e", "trace=pread64"];
            let (log, _) = strace_job(d.path(), tool, &trace, &job, false);
            shares.push(top_two_share(&log));
        }
        let gap = (shares[0] - shares[1]).abs();
        assert!(
            gap < tolerance,
            "{dist}: fio {:.3}, volbench {:.3}",
            shares[0],
            shares[1]
        );
    }
}

/// The space calls (fallocate, ftruncate) `tool` makes for `job` on `file`, filled with 1 MiB
/// of data first, without their descriptor; with the job's fio-JSON.
fn space_calls(dir: &Path, tool: &str, file: &Path, job: &[&str]) -> (Vec<String>, Value) {
    std::fs::write(file, vec![7u8; 1 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    let mut args = vec!["--name=t", &f, "--size=1m", "--bs=64k"];
    args.extend(job);
    let opts = ["-e", "trace=fallocate,ftruncate"];
    let (log, stdout) = strace_job(dir, tool, &opts, &args, true);
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
        for tool in ["fio", "vb"] {
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
        "vb",
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
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A read on ftruncate fails as in fio (EINVAL); a verify is refused before any I/O.
    let out = by(
        "vb",
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

/// From an strace -f -y log of pread64/pwrite64: how many times a thread's I/O on `file`
/// began while another thread's on it was still in the kernel, and how many of those pairs
/// held a write. Other files are left out: a job thread's own bookkeeping (the spill file of
/// its interval histograms) is no I/O on the job's file.
fn overlaps(log: &str, file: &str) -> (usize, usize) {
    let on_file = format!("{file}>");
    let mut open: std::collections::HashMap<&str, bool> = Default::default();
    let (mut all, mut writes) = (0, 0);
    for l in log.lines() {
        let mut w = l.split_whitespace();
        let (Some(tid), Some(call)) = (w.next(), w.next()) else {
            continue;
        };
        if call == "<..." {
            open.remove(tid);
            continue;
        }
        let write = call.starts_with("pwrite64(");
        if !write && !call.starts_with("pread64(") || !call.contains(&on_file) {
            continue;
        }
        for (_, &other) in open.iter().filter(|(t, _)| **t != tid) {
            all += 1;
            writes += usize::from(other || write);
        }
        if l.ends_with("<unfinished ...>") {
            open.insert(tid, write);
        }
    }
    (all, writes)
}

/// fio's lockfile: jobs on one file take turns per I/O. Two psync clones on one file under
/// strace: with `exclusive` no I/O of one begins while the other's is in the kernel, with
/// `readwrite` reads overlap but never with a write, in both tools; unlocked (the control)
/// they overlap. O_DIRECT, so each I/O sleeps in the kernel and the control cannot pass by
/// the two threads sharing one CPU.
#[test]
fn lockfile_serialises_the_io_of_jobs_on_one_file_as_fios() {
    require_root!();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("lk.dat");
    fill_random(&file, 16 << 20);
    let f = format!("--filename={}", file.display());
    let opts = ["-y", "-e", "trace=pread64,pwrite64"];
    for mode in ["none", "exclusive", "readwrite"] {
        // fio 3.33 locks only files named after lockfile is set: it comes first.
        let l = format!("--lockfile={mode}");
        let job = [
            "--name=t",
            &l,
            &f,
            "--size=16m",
            "--bs=4k",
            "--rw=randrw",
            "--numjobs=2",
            "--thread",
            "--number_ios=500",
            "--ioengine=psync",
            "--direct=1",
        ];
        for tool in ["fio", "vb"] {
            let (log, _) = strace_job(d.path(), tool, &opts, &job, false);
            let (all, writes) = overlaps(&log, &file.display().to_string());
            match mode {
                "none" => assert!(
                    writes > 0,
                    "{tool}: unlocked I/Os overlap ({all}, {writes})"
                ),
                "exclusive" => assert_eq!(all, 0, "{tool} {mode}"),
                _ => assert_eq!(
                    writes, 0,
                    "{tool} {mode}: a write overlapped ({all} in all)"
                ),
            }
        }
    }
}

/// `tool` (fio, or `volbench run -q --no-store`) as a command run in `dir`, with the tests'
/// store.
fn tool_in(dir: &Path, tool: &str) -> Std {
    let mut c = match tool {
        "fio" => Std::new("fio"),
        _ => {
            let mut c = Std::new(assert_cmd::cargo::cargo_bin("volbench"));
            c.args(["run", "-q", "--no-store"]);
            c
        }
    };
    c.current_dir(dir).env("VOLBENCH_STORE", test_store());
    c
}

/// `tool` run on `args`: whether it succeeded, its stdout and stderr.
fn outcome(tool: &str, args: &[&str]) -> (bool, String, String) {
    let out = by(tool, args, &[]);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    // fio prints a job's error on stdout, volbench on stderr: the message is in both.
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    (out.status.success(), o.clone(), o + &e)
}

/// fio's uid and gid: the job does its I/O as that user and group, so the file's permissions
/// apply to it. In both tools: a root-owned 0600 file is refused to uid 65534 (Permission
/// denied), a file of 65534's is written, a group-writable file is written with gid= and
/// refused without; and only the job changes user: a job after it (volbench's jobs are
/// threads of one process) still reads the root-only file.
#[test]
fn uid_and_gid_do_the_io_as_that_user_as_fios() {
    use std::os::unix::fs::{chown, PermissionsExt};
    require_root!();
    require_tool!("fio");
    let d = tmpdir();
    let dir = d.path();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mk = |name: &str, mode: u32, uid: u32, gid: u32| {
        let p = dir.join(name);
        std::fs::write(&p, vec![9u8; 1 << 20]).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        chown(&p, Some(uid), Some(gid)).unwrap();
        format!("--filename={}", p.display())
    };
    for tool in ["fio", "vb"] {
        let root = mk("root.dat", 0o600, 0, 0);
        let own = mk("own.dat", 0o600, 65534, 65534);
        let grp = mk("grp.dat", 0o660, 0, 4242);
        let job = |f: &str, rw: &str, extra: &[&str]| {
            let mut a = vec![
                "--name=a".to_string(),
                f.into(),
                "--size=1m".into(),
                "--bs=64k".into(),
            ];
            a.push(format!("--rw={rw}"));
            a.extend(extra.iter().map(|s| s.to_string()));
            a
        };
        let run = |a: Vec<String>| outcome(tool, &a.iter().map(String::as_str).collect::<Vec<_>>());
        let (ok, _, err) = run(job(&root, "read", &["--uid=65534"]));
        assert!(!ok && err.contains("Permission denied"), "{tool}: {err}");
        let (ok, _, err) = run(job(&own, "write", &["--uid=65534"]));
        assert!(ok, "{tool}: its own file: {err}");
        let (ok, _, err) = run(job(&grp, "write", &["--uid=65534", "--gid=4242"]));
        assert!(ok, "{tool}: the group's file with gid=: {err}");
        let (ok, _, err) = run(job(&grp, "write", &["--uid=65534"]));
        assert!(
            !ok && err.contains("Permission denied"),
            "{tool}: without gid=: {err}"
        );
        // Two jobs one after the other: the first as 65534, the second as root.
        let mut a = job(&own, "read", &["--uid=65534"]);
        a.extend(
            job(&root, "read", &["--stonewall", "--output-format=json"])
                .into_iter()
                .map(|s| s.replace("--name=a", "--name=b")),
        );
        if tool == "vb" {
            let i = a.iter().position(|s| s == "--output-format=json").unwrap();
            a[i] = "--output-format=fio-json".into();
        }
        let (ok, out, err) = run(a);
        assert!(ok, "{tool}: the second job is root again: {err}");
        let v: Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
        for j in 0..2 {
            assert_eq!(
                u(&v, &format!("/jobs/{j}/read/io_bytes")),
                1 << 20,
                "{tool} job {j}"
            );
        }
    }
}

/// A blkio v1 cgroup the test makes at the hierarchy's top (`volbench-cgtest-PID-N`, a name
/// `volbench clean` knows), removed when dropped.
struct TestGroup(std::path::PathBuf);

impl TestGroup {
    fn rel(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }
}

impl Drop for TestGroup {
    fn drop(&mut self) {
        for _ in 0..100 {
            if std::fs::remove_dir(&self.0).is_ok() || !self.0.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The writes the kernel's blkio throttle counted for group `g` (0 when none).
fn group_writes(g: &Path) -> u64 {
    let text = std::fs::read_to_string(g.join("blkio.throttle.io_serviced")).unwrap();
    text.lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("Write"))
        .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok())
        .sum()
}

/// fio's cgroup: the job's I/O is done from that blkio group. A group capped at 200 write
/// IOPS on a zram device: both tools' writes are held to it and counted by the group's
/// `blkio.throttle.io_serviced` (512 each), and the group, there before, is left. A group
/// the run makes is removed after it, or kept with cgroup_nodelete=1, in both tools.
#[test]
fn cgroup_runs_the_job_from_that_group_as_fios() {
    require_root!();
    require_tool!("fio");
    let blkio = Path::new("/sys/fs/cgroup/blkio");
    if !blkio.join("tasks").exists() {
        cannot_run("no cgroup v1 blkio hierarchy at /sys/fs/cgroup/blkio");
        return;
    }
    let z = Zram::new("16M");
    let mm = std::fs::read_to_string(z.sysfs().join("dev")).unwrap();
    let g = TestGroup(blkio.join(format!("volbench-cgtest-{}", std::process::id())));
    std::fs::create_dir(&g.0).unwrap();
    std::fs::write(
        g.0.join("blkio.throttle.write_iops_device"),
        format!("{} 200", mm.trim()),
    )
    .unwrap();
    let dev = format!("--filename={}", z.p());
    let cg = format!("--cgroup={}", g.rel());
    let job = [
        "--name=t",
        &dev,
        &cg,
        "--size=2m",
        "--bs=4k",
        "--rw=randwrite",
        "--direct=1",
    ];
    for tool in ["fio", "vb"] {
        let before = group_writes(&g.0);
        let j = first_job(&serde_json::to_string(&fio_json_by(tool, &job)).unwrap());
        assert_eq!(u(&j, "/write/total_ios"), 512, "{tool}");
        let iops = f(&j, "/write/iops");
        // Unthrottled, zram takes tens of thousands of writes a second.
        assert!(
            iops < 400.0,
            "{tool}: {iops:.0} IOPS under the group's 200 cap"
        );
        assert_eq!(
            group_writes(&g.0) - before,
            512,
            "{tool}: the group counted the job's writes"
        );
        assert!(g.0.is_dir(), "{tool}: a group there before the run stays");
    }
    // A group the run makes: removed after it, or left with cgroup_nodelete=1.
    for tool in ["fio", "vb"] {
        for keep in [false, true] {
            let made = TestGroup(blkio.join(format!("volbench-cgmade-{}", std::process::id())));
            let cg = format!("--cgroup={}", made.rel());
            let nd = format!("--cgroup_nodelete={}", u8::from(keep));
            let job = [
                "--name=t",
                &dev,
                &cg,
                &nd,
                "--size=64k",
                "--bs=4k",
                "--rw=write",
                "--direct=1",
            ];
            let (ok, _, err) = outcome(tool, &job);
            assert!(ok, "{tool}: {err}");
            assert_eq!(made.0.is_dir(), keep, "{tool} nodelete={keep}");
        }
    }
    // After a SIGKILL the group a run made is left; the next volbench to start removes it
    // (the name is the job file's, not volbench's pattern: the record says it was made).
    let killed = TestGroup(blkio.join(format!("vbtest-kill-{}", std::process::id())));
    let cg = format!("--cgroup={}", killed.rel());
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("volbench"))
        .env("VOLBENCH_STORE", test_store())
        .args([
            "run",
            "--name=k",
            &dev,
            &cg,
            "--rw=randread",
            "--runtime=20s",
            "--time_based",
        ])
        .args(["-q", "--no-store"])
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while std::fs::read_to_string(killed.0.join("tasks"))
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the job never joined its group"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(killed.0.is_dir(), "a SIGKILL leaves the group");
    let said = ok_stdout(volbench().arg("clean"));
    assert!(!killed.0.exists(), "clean removed it: {said}");
    assert!(said.contains("removed the cgroup"), "{said}");
    // A weight: fio 3.33 writes CFQ's blkio.weight (gone since Linux 5.0) and fails where a
    // group has none; volbench then writes BFQ's blkio.bfq.weight, read back here.
    for tool in ["fio", "vb"] {
        let made = TestGroup(blkio.join(format!("volbench-cgweight-{}", std::process::id())));
        let cg = format!("--cgroup={}", made.rel());
        let w = [
            "--name=t",
            &dev,
            &cg,
            "--cgroup_weight=300",
            "--cgroup_nodelete=1",
        ];
        let (ok, out, _) = outcome(tool, &[&w[..], &["--size=64k", "--rw=write"]].concat());
        let cfq = made.0.join("blkio.weight");
        let bfq = made.0.join("blkio.bfq.weight");
        let read = |p: &Path| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        match (tool, cfq.exists()) {
            (_, true) => assert!(ok && read(&cfq) == "300", "{tool}: {out}"),
            ("fio", false) => assert!(!ok || out.contains("err="), "fio wrote no weight"),
            _ => {
                assert!(ok, "{out}");
                // "300", or "default 300" on kernels that list per-device weights too.
                let bfq = read(&bfq);
                assert_eq!(
                    bfq.split_whitespace().last(),
                    Some("300"),
                    "BFQ's weight: {bfq}"
                );
            }
        }
    }
}

/// The offsets of a job's 64 KiB preads under strace, in order.
fn pread_offsets(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.contains("pread64(") && l.trim_end().ends_with("= 65536"))
        .filter_map(|l| Some(len_off(l)?.1))
        .collect()
}

/// fio's zonemode=strided: zonesize bytes in each zone of zonerange, then zonerange +
/// zoneskip on, wrapping past the end. Sequential jobs read the same offsets in the same order
/// as fio (zones apart, a zonesize over zonerange going round a zone twice, a zone larger than
/// its I/O); a random one reads the same blocks, zone by zone in the same order. A zonesize
/// without zonemode=strided is refused by both, as fio 3.33's zonemode defaults to none.
#[test]
fn strided_zones_read_fios_offsets() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("z.dat");
    fill_random(&file, 4 << 20);
    let f = format!("--filename={}", file.display());
    let cases: [&[&str]; 4] = [
        &[
            "--rw=read",
            "--zonesize=128k",
            "--zonerange=256k",
            "--zoneskip=768k",
        ],
        &["--rw=read", "--zonesize=512k", "--zonerange=256k"],
        &["--rw=read", "--zonesize=256k", "--zonerange=1m"],
        &["--rw=randread", "--zonesize=256k", "--zoneskip=768k"],
    ];
    let opts = ["-e", "trace=pread64"];
    for case in cases {
        let mut job = vec![
            "--name=t",
            &f,
            "--size=4m",
            "--bs=64k",
            "--zonemode=strided",
        ];
        job.extend(case);
        let mut seen = Vec::new();
        for tool in ["fio", "vb"] {
            let (log, _) = strace_job(d.path(), tool, &opts, &job, false);
            let offs = pread_offsets(&log);
            assert_eq!(offs.len(), 64, "{tool} {case:?}");
            seen.push(offs);
        }
        if case[0] == "--rw=randread" {
            let zones = |o: &[u64]| o.iter().map(|x| x >> 20).collect::<Vec<_>>();
            assert_eq!(zones(&seen[0]), zones(&seen[1]), "{case:?}: zone by zone");
            for s in &mut seen {
                s.sort();
            }
        }
        assert_eq!(seen[0], seen[1], "{case:?}");
    }
    let bare = ["--name=t", &f, "--size=4m", "--zonesize=128k", "--rw=read"];
    for tool in ["fio", "vb"] {
        let (ok, out, _) = outcome(tool, &bare);
        assert!(
            !ok || out.contains("not compatible"),
            "{tool}: zonesize alone"
        );
    }
}

/// `tool`'s fio-JSON for `args` (fio prints its cpuio line before the JSON), all jobs.
fn fio_jobs(tool: &str, args: &[&str]) -> Vec<Value> {
    let json = if tool == "fio" {
        "--output-format=json"
    } else {
        "--output-format=fio-json"
    };
    let (ok, out, err) = outcome(tool, &[args, &[json]].concat());
    assert!(ok, "{tool}: {err}");
    let v: Value = serde_json::from_str(&out[out.find("{\n").expect("JSON")..]).unwrap();
    v["jobs"].as_array().unwrap().clone()
}

/// fio's cpuio engine: a job that keeps cpuload percent of one CPU busy, in both tools (its
/// usr+sys CPU share, for 40 % and 10 %, spinning and sorting); with exit_on_io_done it
/// ends when the I/O job beside it does. Bounds wide enough for a busy machine: a spinning
/// thread can lose CPU to other tests, never gain more than it asks.
#[test]
fn cpuio_burns_the_cpu_share_fios_does() {
    require_tool!("fio");
    let cpu = |j: &Value| f(j, "/usr_cpu") + f(j, "/sys_cpu");
    for tool in ["fio", "vb"] {
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
                share.push(cpu(&fio_jobs(tool, &a)[0]));
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
        let jobs = fio_jobs(
            tool,
            &[
                "--name=io",
                "--ioengine=null",
                "--size=8m",
                "--bs=4k",
                "--rate_iops=2000",
                "--name=burn",
                "--ioengine=cpuio",
                "--cpuload=20",
                "--exit_on_io_done=1",
            ],
        );
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
    for tool in ["fio", "vb"] {
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
            let out = tool_in(dir, tool).args(job).output().unwrap();
            let took = t0.elapsed();
            assert!(
                out.status.success(),
                "{tool}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
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

/// The space calls in an strace log, without their descriptors: EXT4_IOC_MOVE_EXT (strace
/// shows it as `_IOC(..., 0x66, 0xf, 0x28)`) with its result, fallocate and ftruncate.
fn moves(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let call = if l.contains("0x66, 0xf, 0x28)") {
                "move".to_string()
            } else {
                let at = l.find("fallocate(").or_else(|| l.find("ftruncate("))?;
                let (name, rest) = l[at..].split_once('(')?;
                format!("{name} {}", rest.split_once(", ")?.1.split(')').next()?)
            };
            Some(format!("{call} = {}", l.rsplit("= ").next()?.trim()))
        })
        .collect()
}

/// fio's e4defrag engine on ext4: each write moves its blocks in from the donor file with
/// EXT4_IOC_MOVE_EXT; both tools make the same moves (strace), with the donor allocated
/// whole first (inplace=0) or per move (inplace=1), and leave the donor file as fio does.
#[test]
fn e4defrag_moves_what_fios_moves() {
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
        for tool in ["fio", "vb"] {
            fill_random(&dir.join("f1"), 1 << 20);
            let before = std::fs::read(dir.join("f1")).unwrap();
            let _ = std::fs::remove_file(dir.join("f.def"));
            let (log, stdout) = strace_job(dir, tool, &opts, &job, true);
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

/// fio's verify_state_save/verify_state_load: a verifying random-write job stopped after 500
/// of its 2,048 blocks (number_ios) writes down what it did; the verify_only run of the same
/// job with verify_state_load checks those 500 and passes, in both tools (each reading its
/// own state file), where a verify_only without the state reads blocks never written and
/// fails. The state file is fio's name in the working directory.
#[test]
fn verify_state_limits_a_later_verify_to_what_was_written() {
    require_tool!("fio");
    let d = tmpdir();
    let dir = d.path();
    let base = [
        "--name=t",
        "--filename=v.dat",
        "--size=8m",
        "--bs=4k",
        "--rw=randwrite",
        "--verify=crc32c",
        "--ioengine=libaio",
        "--iodepth=8",
    ];
    for tool in ["fio", "vb"] {
        fill_random(&dir.join("v.dat"), 8 << 20);
        let _ = std::fs::remove_file(dir.join("local-t-0-verify.state"));
        let run = |extra: &[&str]| {
            let json = match tool {
                "fio" => "--output-format=json",
                _ => "--output-format=fio-json",
            };
            let out = tool_in(dir, tool)
                .args(base)
                .args(extra)
                .arg(json)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            (
                out.status.success() && !text.contains("err= 84"),
                text,
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (ok, _, err) = run(&["--number_ios=500", "--do_verify=0", "--verify_state_save=1"]);
        assert!(ok, "{tool}: {err}");
        assert!(
            dir.join("local-t-0-verify.state").is_file(),
            "{tool}: the state file"
        );
        let (ok, out, err) = run(&["--verify_only=1", "--verify_state_load=1"]);
        assert!(ok, "{tool}: the verify of what was written: {err}");
        assert_eq!(u(&first_job(&out), "/read/total_ios"), 500, "{tool}");
        let (ok, out, _) = run(&["--verify_only=1"]);
        let failed = !ok || first_job(&out)["error"].as_u64().unwrap_or(0) != 0;
        assert!(failed, "{tool}: a whole verify reads blocks never written");
    }
}

/// fio 3.42's `verify_policy=fsynced` (fio 3.33 lacks it: fio's HOWTO is the reference): a
/// sequential write job with fsync every 100 writes, stopped after 250, saves a state that
/// covers the 200 an fsync made durable. The 50 after the last fsync are then lost, as a power
/// cut may lose them (zeroed here): the verify of the fsynced state checks 200 blocks and
/// passes; a state of every completed write checks 250 and fails on the lost ones. Without
/// any fsync the fsynced state covers nothing.
#[test]
fn verify_policy_fsynced_covers_only_what_an_fsync_made_durable() {
    let d = tmpdir();
    let dir = d.path();
    let base = [
        "--name=t",
        "--filename=v.dat",
        "--size=4m",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--ioengine=psync",
        "--output-format=fio-json",
    ];
    let run = |extra: &[&str]| -> (bool, Value) {
        let out = tool_in(dir, "vb").args(base).args(extra).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let ok = out.status.success() && v["jobs"][0]["error"].as_u64() == Some(0);
        (ok, v)
    };
    for (policy, fsync, reads, passes) in [
        ("fsynced", "100", 200, true),
        ("completed", "100", 250, false),
        ("fsynced", "0", 0, true),
    ] {
        fill_random(&dir.join("v.dat"), 4 << 20);
        let (ok, _) = run(&[
            "--number_ios=250",
            "--do_verify=0",
            "--verify_state_save=1",
            &format!("--fsync={fsync}"),
            &format!("--verify_policy={policy}"),
        ]);
        assert!(ok, "{policy} fsync={fsync}: the write job");
        // Writes 200 to 249 (after the last fsync) are lost.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("v.dat"))
            .unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, &vec![0u8; 50 * 4096], 200 * 4096).unwrap();
        let (ok, v) = run(&["--verify_only=1", "--verify_state_load=1"]);
        assert_eq!(ok, passes, "{policy} fsync={fsync}: {v}");
        if passes {
            assert_eq!(
                u(&v, "/jobs/0/read/total_ios"),
                reads,
                "{policy} fsync={fsync}"
            );
        }
    }
}

/// fio's `--profile=tiobench`: the same four stonewalled jobs (seqwrite, randwrite,
/// seqread, randread) over four files, moving the same bytes as fio's (its size, 4 KiB per
/// MiB of memory); its options as fio's HOWTO gives them (fio 3.33 ignores them); `act`
/// refused in one line.
#[test]
fn profile_tiobench_runs_fios_jobs() {
    require_tool!("fio");
    let d = tmpdir();
    let dir = d.path();
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let jobs_of = |cmd: &mut Std| -> Vec<(String, u64, u64)> {
        let out = cmd
            .current_dir(dir)
            .env("VOLBENCH_STORE", test_store())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let t = String::from_utf8_lossy(&out.stdout);
        let v: Value = serde_json::from_str(&t[t.find("{\n").unwrap()..]).unwrap();
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    u(j, "/read/io_bytes"),
                    u(j, "/write/io_bytes"),
                )
            })
            .collect()
    };
    let theirs = jobs_of(Std::new("fio").args(["--profile=tiobench", "--output-format=json"]));
    let ours = jobs_of(Std::new(&vb).args([
        "run",
        "--profile=tiobench",
        "--output-format=fio-json",
        "-q",
        "--no-store",
    ]));
    let names: Vec<&str> = theirs.iter().map(|j| j.0.as_str()).collect();
    assert_eq!(names, ["seqwrite", "randwrite", "seqread", "randread"]);
    assert!(theirs[0].2 > 0, "{theirs:?}");
    assert_eq!(ours, theirs, "the same jobs moving the same bytes");
    // The profile's own options, as documented: 8 MiB, 8 KiB blocks, two runs, two threads.
    std::fs::create_dir(dir.join("sub")).unwrap();
    let given = jobs_of(Std::new(&vb).args([
        "run",
        "--profile=tiobench",
        "--size=8",
        "--block=8192",
        "--numruns=2",
        "--threads=2",
        "--dir=sub",
        "--output-format=fio-json",
        "-q",
        "--no-store",
    ]));
    assert_eq!(
        given[0].2,
        2 * 2 * (8 << 20),
        "two threads, two runs of 8 MiB: {given:?}"
    );
    assert!(dir.join("sub/.fio.tio.1").is_file(), "the files in --dir");
    let out = Std::new(&vb)
        .args(["run", "--profile=act"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.lines().count() == 1 && err.contains("act"),
        "{err}"
    );
}

/// fio's verify-after-trim (trim_percentage, trim_backlog, trim_verify_zero) on zram: about
/// half the written blocks are discarded again, the closing verify reads them as zeros and
/// the rest as written, and the device holds exactly the writes less the trims (mm_stat);
/// with trim_verify_zero=0 the trimmed blocks are left out of the verify. fio 3.33 cannot be
/// the reference: on a write job it trims nothing and aborts (its fio_ro_check assertion:
/// a trim in a job that is not a trim job).
#[test]
fn trim_percentage_discards_written_blocks_and_verifies_them_as_zeros() {
    require_root!();
    let z = Zram::new("16M");
    let dev = format!("--filename={}", z.p());
    for zero in ["1", "0"] {
        fill_random(&z.path, 4 << 20);
        let tz = format!("--trim_verify_zero={zero}");
        let j = first_job(
            &serde_json::to_string(&fio_json_by(
                "vb",
                &[
                    "--name=t",
                    &dev,
                    "--size=4m",
                    "--bs=4k",
                    "--rw=randwrite",
                    "--direct=1",
                    "--verify=crc32c",
                    "--trim_percentage=50",
                    "--trim_backlog=16",
                    &tz,
                ],
            ))
            .unwrap(),
        );
        let trims = u(&j, "/trim/total_ios");
        assert!(
            (400..=600).contains(&trims),
            "about half of 1,024 writes trimmed: {trims}"
        );
        assert_eq!(u(&j, "/write/total_ios"), 1024);
        assert_eq!(
            zram_stored(&z),
            (1024 - trims) * 4096,
            "the device holds the writes less the trims"
        );
        let reads = if zero == "1" { 1024 } else { 1024 - trims };
        assert_eq!(
            u(&j, "/read/total_ios"),
            reads,
            "verified (trim_verify_zero={zero})"
        );
        assert_eq!(u(&j, "/error"), 0);
    }
}

/// fio's `--profile=act` (Aerospike's flash certification): on a 512-byte-sector loop device
/// for 3 s at load 1, eight threads read 1,536 bytes at 2,000 reads/s in all and one writer
/// writes 128 KiB blocks at 12/s, in both tools (the same reads and writes within pacing's
/// rounding); no device named is one line.
#[test]
fn profile_act_runs_fios_act_jobs() {
    require_root!();
    require_tool!("fio");
    let dev = Loop::new(64 << 20, 512);
    let d = format!("--device-names={}", dev.p());
    for tool in ["fio", "vb"] {
        let jobs = fio_jobs(tool, &["--profile=act", &d, "--test-duration=3"]);
        let (r, w) = jobs.iter().fold((0, 0), |(r, w), j| {
            (r + u(j, "/read/total_ios"), w + u(j, "/write/total_ios"))
        });
        assert!(
            (5900..=6100).contains(&r),
            "{tool}: {r} reads in 3 s at 2,000/s"
        );
        assert!((34..=38).contains(&w), "{tool}: {w} writes in 3 s at 12/s");
    }
    let out = by("vb", &["--profile=act", "--test-duration=1"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--device-names"),
        "{err}"
    );
}

/// `bs=R,W` in a random mixed job: fio keeps each direction's I/Os whole and on offsets
/// aligned to their own size (its blockalign defaults to each direction's block, its random
/// map counts each in its own blocks). Under strace, in both tools: every read 4k on a 4k
/// boundary, every write 16k on a 16k boundary, and the job's bytes done.
#[test]
fn reads_and_writes_of_their_own_sizes_stay_whole_and_aligned() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("rw.dat");
    fill_random(&file, 4 << 20);
    let f = format!("--filename={}", file.display());
    let job = [
        "--name=t",
        &f,
        "--size=4m",
        "--rw=randrw",
        "--bs=4k,16k",
        "--ioengine=psync",
    ];
    let trace = ["-y", "-e", "trace=pread64,pwrite64"];
    for tool in ["fio", "vb"] {
        let (log, _) = strace_job(d.path(), tool, &trace, &job, false);
        let ours = "rw.dat>";
        let mut bytes = 0;
        for (call, size) in [("pread64(", 4096u64), ("pwrite64(", 16384)] {
            let calls: Vec<(u64, u64)> = log
                .lines()
                .filter(|l| l.contains(call) && l.contains(ours))
                .filter_map(len_off)
                .collect();
            assert!(calls.len() > 50, "{tool} {call} {}", calls.len());
            let odd: Vec<_> = calls
                .iter()
                .filter(|(len, off)| *len != size || off % size != 0)
                .collect();
            assert!(
                odd.is_empty(),
                "{tool} {call}: {:?}",
                &odd[..odd.len().min(5)]
            );
            bytes += calls.iter().map(|c| c.0).sum::<u64>();
        }
        // volbench moves the job's size; fio stops a little short (2.7 % here), when its one
        // map, marked in each direction's own block units, reports no free block.
        match tool {
            "fio" => assert!(bytes <= 4 << 20 && bytes > 15 << 18, "fio: {bytes}"),
            _ => assert_eq!(bytes, 4 << 20, "{tool}"),
        }
    }
}

/// `startdelay=low-high`: each clone waits its own time drawn from the range, as fio draws one
/// per thread. Eight clones under strace, in both tools: each clone's first read comes at
/// least the low end after the program starts, and the clones start spread over the range
/// (never all together, never wider than it).
#[test]
fn a_start_delay_range_spreads_the_clones_over_it() {
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
    for tool in ["fio", "vb"] {
        let (log, _) = strace_job(d.path(), tool, &trace, &job, false);
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

/// A time-based verifying write job of one block size reads back what it wrote, as fio's
/// does (fio reads back each pass before the next, inside the runtime; volbench reads each
/// block written once, after it). Over a file of 256 blocks written many times over, each of
/// the 256 is checked; at 100 writes a second for a second (fio reads none back here: its
/// one pass used the runtime), exactly the 100 written, never the 156 unwritten blocks,
/// which hold random bytes and would fail the check.
#[test]
fn a_time_based_verify_reads_back_the_blocks_it_wrote() {
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("tv.dat");
    let f = format!("--filename={}", file.display());
    let job = |extra: &str| -> Vec<String> {
        [
            "--name=tv",
            &f,
            "--size=1m",
            "--bs=4k",
            "--rw=randwrite",
            "--verify=crc32c",
            "--ioengine=libaio",
            "--iodepth=4",
            "--direct=1",
            "--time_based",
            "--runtime=1",
            extra,
        ]
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .collect()
    };
    let counts = |v: &Value| {
        (
            u(v, "/jobs/0/write/total_ios"),
            u(v, "/jobs/0/read/total_ios"),
        )
    };
    fill_random(&file, 1 << 20);
    // In the test's directory: fio writes its verify state where it runs.
    let fio = fio_json(Std::new("fio").current_dir(d.path()).args(job("")));
    let (w, r) = counts(&fio);
    assert!(
        w > 512 && r >= 256 && fio["jobs"][0]["error"] == 0,
        "fio: {w} writes, {r} reads"
    );
    let ours = fio_json_by(
        "vb",
        &job("").iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let (w, r) = counts(&ours);
    assert!(w > 512 && ours["jobs"][0]["error"] == 0, "{ours}");
    assert_eq!(r, 256, "each block written, read back once");
    fill_random(&file, 1 << 20);
    let rated = job("--rate_iops=100");
    let ours = fio_json_by("vb", &rated.iter().map(String::as_str).collect::<Vec<_>>());
    let (w, r) = counts(&ours);
    assert!(
        (90..=110).contains(&w) && ours["jobs"][0]["error"] == 0,
        "{ours}"
    );
    assert_eq!(r, w, "the written blocks and no others");
}

/// fio 3.26's center of a skewed file choice (`file_service_type=zipf:1.2:0.75`: the hottest
/// file three quarters of the way along; normal's middle moved), over eight files of 64
/// blocks each read 512 times (strace -y): the same two files are the busiest in both tools,
/// with the same share within 0.06. A hot small file is read many times over its size, as
/// fio starts a non-uniformly chosen file's map over.
#[test]
fn file_service_centers_put_the_hot_files_where_fio_does() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let dir = format!("--directory={}", d.path().display());
    for dist in [
        "normal:10:0.25",
        "normal:10",
        "zipf:1.2:0.75",
        "zipf:1.2:0.25",
    ] {
        let fst = format!("--file_service_type={dist}");
        let job = [
            "--name=fs",
            &dir,
            "--nrfiles=8",
            "--filesize=256k",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--number_ios=4000",
            &fst,
        ];
        let mut tops = Vec::new();
        for tool in ["fio", "vb"] {
            let (log, _) = strace_job(d.path(), tool, &["-y", "-e", "trace=pread64"], &job, false);
            let mut per = [0u32; 8];
            for l in log.lines().filter(|l| l.contains("pread64(")) {
                let file = l.split('<').nth(1).and_then(|s| s.split('>').next());
                let idx = file.and_then(|f| f.rsplit('.').next()?.parse::<usize>().ok());
                if let Some(i) = idx.filter(|i| *i < 8) {
                    per[i] += 1;
                }
            }
            let total: u32 = per.iter().sum();
            let mut order: Vec<usize> = (0..8).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(per[i]));
            let mut two = [order[0], order[1]];
            two.sort();
            let share = (per[two[0]] + per[two[1]]) as f64 / total as f64;
            tops.push((two, share, per));
        }
        assert_eq!(
            tops[0].0, tops[1].0,
            "{dist}: fio {:?}, volbench {:?}",
            tops[0].2, tops[1].2
        );
        assert!(
            (tops[0].1 - tops[1].1).abs() < 0.06,
            "{dist}: {:?} vs {:?}",
            tops[0].2,
            tops[1].2
        );
    }
}

/// `random_distribution=zoned_abs` (zones in bytes: 60 % of the reads in the first 1 MiB,
/// 30 % in the next 512 KiB, 10 % in the 2.5 MiB after), a 4 MiB file's worth of reads
/// under strace: each zone's share within 0.05 of the asked in both tools. A center after a
/// zipf's theta (`zipf:1.2:0.25`) runs, as in fio (with fio's hashed ranks it turns which
/// blocks are hot, not how hot: file_service_type shows where it puts them).
#[test]
fn zoned_abs_and_a_center_draw_as_fio_does() {
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("z.dat");
    fill_random(&file, 4 << 20);
    let f = format!("--filename={}", file.display());
    for tool in ["fio", "vb"] {
        let job = [
            "--name=z",
            &f,
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--random_distribution=zoned_abs:60/1m:30/512k:10/2560k",
        ];
        let (log, _) = strace_job(d.path(), tool, &["-y", "-e", "trace=pread64"], &job, false);
        let offs: Vec<u64> = log
            .lines()
            .filter(|l| l.contains("pread64(") && l.contains("z.dat>"))
            .filter_map(|l| Some(len_off(l)?.1))
            .collect();
        assert!(offs.len() >= 1000, "{tool}: {} reads", offs.len());
        let n = offs.len() as f64;
        let share =
            |lo: u64, hi: u64| offs.iter().filter(|&&o| o >= lo && o < hi).count() as f64 / n;
        for (lo, hi, want) in [
            (0, 1 << 20, 0.6),
            (1 << 20, 3 << 19, 0.3),
            (3 << 19, 4 << 20, 0.1),
        ] {
            let got = share(lo, hi);
            assert!(
                (got - want).abs() < 0.05,
                "{tool}: {got:.3} of the reads in {lo}..{hi}"
            );
        }
        let centered = fio_json_by(
            tool,
            &[
                "--name=c",
                &f,
                "--rw=randread",
                "--bs=4k",
                "--ioengine=psync",
                "--number_ios=200",
                "--random_distribution=zipf:1.2:0.25",
                "--output-format=json",
            ][..if tool == "fio" { 8 } else { 7 }],
        );
        assert_eq!(u(&centered, "/jobs/0/read/total_ios"), 200, "{tool}");
    }
}

/// fio 3.33's value forms that volbench refused, each against fio on the same job: a whole
/// number with a unit (`nrfiles=1k` makes 1,024 files), `offset_increment=50%` (the second
/// clone starts halfway through the existing file: its reads, under strace), `verify`
/// with sha3 (written and read back clean), and `softrandommap` (accepted; nothing to do).
#[test]
fn fio_value_forms_run_as_fio_runs_them() {
    require_tool!("fio");
    require_tool!("strace");
    for tool in ["fio", "vb"] {
        let d = tmpdir();
        let dir = format!("--directory={}", d.path().display());
        let files = [
            "--name=many",
            &dir,
            "--nrfiles=1k",
            "--filesize=4k",
            "--rw=write",
        ];
        let (ok, _, err) = outcome(tool, &[&files[..], &["--softrandommap=1"]].concat());
        assert!(ok, "{tool}: {err}");
        let made = std::fs::read_dir(d.path()).unwrap().count();
        assert_eq!(made, 1024, "{tool}: files made");
        let file = d.path().join("half.dat");
        fill_random(&file, 4 << 20);
        let f = format!("--filename={}", file.display());
        let job = [
            "--name=half",
            &f,
            "--numjobs=2",
            "--offset_increment=50%",
            "--size=64k",
            "--bs=64k",
            "--rw=read",
            "--ioengine=psync",
        ];
        let (log, _) = strace_job(d.path(), tool, &["-y", "-e", "trace=pread64"], &job, false);
        // Each clone's lowest read (its region's start). Two clones' calls interleave, so a
        // call may be split into `<unfinished ...>` and `<... pread64 resumed>` lines: the
        // length and offset are read from the end of the line that ends the call (the data
        // before them may hold anything).
        let mut start = std::collections::HashMap::<&str, u64>::new();
        for l in log
            .lines()
            .filter(|l| l.contains("pread64") && l.contains(") = 65536"))
        {
            let pid = l.split_whitespace().next().unwrap();
            if let Some((65536, o)) = len_off(l) {
                let e = start.entry(pid).or_insert(o);
                *e = (*e).min(o);
            }
        }
        let mut firsts: Vec<u64> = start.into_values().collect();
        firsts.sort();
        assert_eq!(firsts, [0, 2 << 20], "{tool}: each clone's region start");
        let sha3 = [
            "--name=s3",
            &f,
            "--size=1m",
            "--bs=4k",
            "--rw=write",
            "--verify=sha3-256",
        ];
        // In the test's directory: fio writes its verify state where it runs.
        let out = tool_in(d.path(), tool).args(sha3).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{tool}: {err}");
    }
}
