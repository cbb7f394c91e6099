//! What a job's thread is (uid/gid, cgroup, nice, priorities, CPUs, NUMA, lockmem, pre/postrun),
//! against fio on the same job.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Std;
use std::time::{Duration, Instant};

/// The job thread's set_mempolicy and sched_setaffinity calls under strace, by `tool`.
fn placement_calls(d: &Path, tool: Tool) -> (bool, bool) {
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
    let trace = ["-e", "trace=set_mempolicy,sched_setaffinity"];
    let (log, _) = tool.strace(d, &trace, &opts, false);
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
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    for tool in Tool::BOTH {
        let (bound, placed) = placement_calls(d.path(), tool);
        assert!(bound, "{tool}: no set_mempolicy(MPOL_BIND, node 0)");
        assert!(placed, "{tool}: no sched_setaffinity to node 0's CPUs");
    }
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
    let _disk = shared_disk();
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
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
        let trace = ["-e", "trace=io_submit"];
        let (log, _) = tool.strace(d.path(), &trace, &[&base[..], &share].concat(), false);
        let (n, at) = prio_iocbs(&log, "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 5)", None);
        assert_eq!(n, 4096, "{tool}");
        let pct = 100.0 * at as f64 / n as f64;
        assert!(
            (26.0..34.0).contains(&pct),
            "{tool}: {pct:.1} % at the priority"
        );
        let (log, _) = tool.strace(d.path(), &trace, &[&base[..], &split].concat(), false);
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

/// fio's uid and gid: the job does its I/O as that user and group, so the file's permissions
/// apply to it. In both tools: a root-owned 0600 file is refused to uid 65534 (Permission
/// denied), a file of 65534's is written, a group-writable file is written with gid= and
/// refused without; and only the job changes user: a job after it (volbench's jobs are
/// threads of one process) still reads the root-only file.
#[test]
fn uid_and_gid_do_the_io_as_that_user_as_fios() {
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
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
        let run = |a: Vec<String>| tool.outcome(&a.iter().map(String::as_str).collect::<Vec<_>>());
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
        if tool == Tool::Volbench {
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
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
        let before = group_writes(&g.0);
        let j = first_job(&serde_json::to_string(&tool.fio_json(&job)).unwrap());
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
    for tool in Tool::BOTH {
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
            let (ok, _, err) = tool.outcome(&job);
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
    for tool in Tool::BOTH {
        let made = TestGroup(blkio.join(format!("volbench-cgweight-{}", std::process::id())));
        let cg = format!("--cgroup={}", made.rel());
        let w = [
            "--name=t",
            &dev,
            &cg,
            "--cgroup_weight=300",
            "--cgroup_nodelete=1",
        ];
        let (ok, out, _) = tool.outcome(&[&w[..], &["--size=64k", "--rw=write"]].concat());
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
            (Tool::Fio, false) => assert!(!ok || out.contains("err="), "fio wrote no weight"),
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

/// Each job thread's allowed CPUs, read from /proc while the run is under way.
fn job_cpus(pid: u32) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("job-") {
            continue;
        }
        let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
        if let Some(l) = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")) {
            out.push((
                comm.trim().to_string(),
                l.split_whitespace().nth(1).unwrap().to_string(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn cpus_allowed_and_split_policy_pin_job_threads() {
    let _disk = shared_disk();
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        cannot_run!("needs two CPUs");
    }
    let d = tmpdir();
    let job = d.path().join("a.fio");
    for (policy, want) in [("split", ["0", "1"]), ("shared", ["0-1", "0-1"])] {
        std::fs::write(
            &job,
            format!(
                "[p]\nioengine=null\nsize=1m\nruntime=2\ntime_based\nnumjobs=2\n\
                 cpus_allowed=0-1\ncpus_allowed_policy={policy}\n"
            ),
        )
        .unwrap();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("volbench"))
            .current_dir(d.path())
            .arg("run")
            .arg(&job)
            .args(["-q", "--no-store"])
            .spawn()
            .unwrap();
        // Watched for as long as the run lasts: on a busy host a thread can start after any
        // fixed wait, and is named before it has run to pin itself (the job's 2 s are
        // counted from there), so the test waits for its pinning, not for its name.
        let mut seen = Vec::new();
        let pinned = |seen: &[(String, String)]| seen.iter().map(|x| x.1.as_str()).eq(want);
        while child.try_wait().unwrap().is_none() && !pinned(&seen) {
            std::thread::sleep(std::time::Duration::from_millis(20));
            seen = job_cpus(child.id());
        }
        assert!(child.wait().unwrap().success());
        let cpus: Vec<&str> = seen.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(cpus, want, "{policy}: {seen:?}");
    }
    // A CPU the machine lacks is one clear error.
    std::fs::write(&job, "[p]\nioengine=null\nsize=1m\ncpus_allowed=1000\n").unwrap();
    let out = volbench()
        .current_dir(d.path())
        .arg("run")
        .arg(&job)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cpus_allowed") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn prio_and_prioclass_set_each_jobs_io_priority_as_fio() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("p.fio");
    std::fs::write(
        &job,
        "[global]\nfilename=pp\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=10\n\
         [idle]\nprioclass=3\n[be6]\nprio=6\n[rt]\nprioclass=1\nprio=2\n[plain]\n",
    )
    .unwrap();
    // The ioprio_set calls each tool makes, as strace prints their values, sorted.
    let calls = |prog: &str, args: &[&str]| -> Vec<String> {
        let out = std::process::Command::new("strace")
            .current_dir(d.path())
            .args(["-f", "-e", "trace=ioprio_set"])
            .arg(prog)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{prog}");
        let mut v: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter_map(|l| {
                // strace may split a call ("<unfinished ...>"): keep the value only.
                let v = l.split_once("IOPRIO_PRIO_VALUE(")?.1;
                Some(v.split_once(')')?.0.to_string())
            })
            .collect();
        v.sort();
        v
    };
    let j = job.to_str().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let theirs = calls("fio", &[j]);
    assert_eq!(theirs.len(), 3, "{theirs:?}");
    assert_eq!(
        calls(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]),
        theirs
    );
    std::fs::write(&job, "[x]\nsize=1m\nprio=8\n").unwrap();
    let err = refusal(&job);
    assert!(
        err.contains("p.fio:3") && err.contains("prio=8: use 0 to 7"),
        "{err}"
    );
}

#[test]
fn exitall_ends_the_jobs_beside_it_and_nice_is_set_on_the_job_thread() {
    let _disk = shared_disk();
    require_tool!("strace");
    let d = tmpdir();
    // A job of 16 I/Os with exitall beside one paced at 200 IOPS for 60 s: the paced job stops
    // when the short one ends, far short of its 12,000.
    let text = "[slow]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nrate_iops=200\ntime_based\n\
                runtime=60\n[quick]\nioengine=null\nrw=read\nbs=4k\nsize=64k\nexitall\nnice=5\n";
    let job = d.path().join("x.fio");
    std::fs::write(&job, text).unwrap();
    let vb = env!("CARGO_BIN_EXE_volbench");
    let trace = ["-e", "trace=setpriority"];
    let (log, out) = strace(
        d.path(),
        &trace,
        &[
            vb,
            "run",
            "x.fio",
            "--output-format=json",
            "-q",
            "--no-store",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let ios = |i: usize| v["jobs"][i]["read"]["total_ios"].as_u64().unwrap();
    assert_eq!(ios(1), 16);
    assert!(ios(0) < 1_000, "the paced job ran on: {} I/Os", ios(0));
    assert!(
        log.contains("setpriority(PRIO_PROCESS, ") && log.contains(", 5) = 0"),
        "{log}"
    );
}

/// exec_prerun and exec_postrun run as fio runs them: `sh -c` in the job's thread, their
/// output in JOBNAME.prerun.txt and JOBNAME.postrun.txt in the working directory, with the
/// same contents in both tools. A prerun that fails ends fio's job silently with no I/O;
/// volbench ends it with one line naming the command, before any I/O.
#[test]
fn exec_prerun_and_postrun_run_as_fio_runs_them() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("j.fio");
    std::fs::write(
        &job,
        "[j]\nfilename=f\nsize=64k\nrw=write\nexec_prerun=echo prerun-$((1+1))\nexec_postrun=ls -l f | cut -d' ' -f5\n",
    )
    .unwrap();
    let mut outputs = Vec::new();
    for tool in Tool::BOTH {
        let here = d.path().join(tool.to_string());
        std::fs::create_dir(&here).unwrap();
        match tool {
            Tool::Fio => drop(fio_on(&here, &job, &[])),
            _ => drop(vb_json(&here, &job, &[])),
        }
        let read = |m: &str| std::fs::read_to_string(here.join(format!("j.{m}.txt"))).unwrap();
        outputs.push((read("prerun"), read("postrun")));
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(
        outputs[1].0, "prerun-2\n",
        "the prerun ran before the file was written"
    );
    assert_eq!(outputs[1].1, "65536\n", "the postrun ran after the writes");
    std::fs::write(
        &job,
        "[j]\nfilename=f\nsize=64k\nrw=write\nexec_prerun=exit 3\n",
    )
    .unwrap();
    let out = volbench()
        .current_dir(d.path())
        .args(["run", "j.fio", "-q", "--no-store"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("exec_prerun 'exit 3'") && err.contains("exit status: 3"),
        "{err}"
    );
}
