//! The job's files (fio's file options: names, directories, layout, services, locks, unlink, the
//! file engines), each against fio on the same job.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Std;

/// A job file whose file names a path that does not exist yet: fio creates the missing
/// directories (mode 0700), so volbench does. A `directory=` that does not exist is refused by
/// both (fio when it runs the job; its --parse-only does not look), and volbench's own
/// command line refuses a missing directory (tests/cli.rs).
#[test]
fn a_job_files_missing_directories_are_created_as_fio_creates_them() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let run = |tool: Tool, job: &Path| tool.run(&[job], &[]);
    for tool in Tool::BOTH {
        let job = d.path().join(format!("{tool}.fio"));
        let body = format!(
            "[t]\ndirectory={}\nfilename={tool}/new/f\nsize=1m\nrw=write\n",
            d.path().display()
        );
        std::fs::write(&job, body).unwrap();
        let out = run(tool, &job);
        succeeded(&out, format_args!("{tool}"));
        let dir = d.path().join(tool.to_string()).join("new");
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

/// allow_mounted_write=1 is fio's consent in the job file; volbench reads the file (with a
/// note) and keeps its own rule: a mounted device is never written, --allow-destructive
/// included (issue 65: the refusal had offered that flag as the way past it).
#[test]
fn allow_mounted_write_is_read_and_the_safety_rule_holds() {
    let _disk = shared_disk();
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
    succeeded(&out, "");
    let out = volbench()
        .arg("run")
        .arg(&job)
        .args(["-q", "--no-store"])
        .output()
        .unwrap();
    let said = fails_saying(&out, 2, "is mounted at");
    assert!(said.contains("allow_mounted_write"), "{said}");
    assert!(said.contains("unmount it"), "{said}");
    let out = volbench()
        .arg("run")
        .arg(&job)
        .args(["-q", "--no-store", "--allow-destructive"])
        .output()
        .unwrap();
    let said = fails_saying(&out, 2, "is mounted at");
    assert!(said.contains("never writes to a device"), "{said}");
}

/// One file-engine job (`[t]` with 50 files of 4 KiB in `dir`) by `tool`: (total_ios, clat
/// samples) of its reads.
fn file_engine(tool: Tool, dir: &Path, engine: &str) -> (u64, u64) {
    let job = dir.join(format!("{engine}.fio"));
    std::fs::write(
        &job,
        format!("[t]\ndirectory={}\nioengine={engine}\nnrfiles=50\nfilesize=4k\nfallocate=none\nopenfiles=1\n", dir.display()),
    )
    .unwrap();
    // The files an earlier run made are not this run's: removing them takes consent.
    let consent = if tool != Tool::Fio && engine.ends_with("delete") {
        &["--allow-destructive"][..]
    } else {
        &[]
    };
    let args = [job.as_os_str(), "--output-format=json".as_ref()];
    let out = tool.run(&args, consent);
    succeeded(&out, format_args!("{tool} {engine}"));
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
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
        let dir = d.path().join(tool.to_string());
        std::fs::create_dir(&dir).unwrap();
        for (engine, after) in steps {
            if tool == Tool::Fio && engine.starts_with("dir") {
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
    let _disk = shared_disk();
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
    succeeded(&out, "");
    assert!(!keep.exists());
}

/// fill_fs on a fresh 64 MiB ext4: each tool writes until ENOSPC (root's reserved blocks
/// included) and ends without an error; both write the same bytes, the file system is full
/// afterwards, and volbench says what ended the job.
#[test]
fn fill_fs_writes_until_the_file_system_is_full_as_fio() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    let mut written = Vec::new();
    for tool in Tool::BOTH {
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
        let out = tool.run(&args, &[]);
        succeeded(&out, format_args!("{tool}"));
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
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let old: Vec<u8> = (0..4u32 << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    for tool in Tool::BOTH {
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
        let out = tool.run(&args, &[]);
        succeeded(&out, format_args!("{tool}"));
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

/// The files of a job's reads in issue order (file names, from strace's openat and pread64).
fn read_order(d: &Path, tool: Tool, service: &str) -> Vec<String> {
    let dir = format!("--directory={}", d.display());
    let fst = format!("--file_service_type={service}");
    let argv = tool.argv();
    let mut cmd: Vec<&str> = argv.iter().map(String::as_str).collect();
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

/// file_service_type over 4 files of 64 reads: `sequential` reads each file whole in turn (4
/// runs of 64); `roundrobin:8` goes 8 reads a file in order (32 runs of 8); `random:8` draws a file for every 8 reads
/// among those with reads left, every file still read whole once. The same in fio (strace).
#[test]
fn file_service_type_orders_files_as_fio_does() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    for tool in Tool::BOTH {
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

/// unlink_each_loop=1 with loops=3: fio and volbench each delete the file between loops
/// (strace's unlinks: fio 2, volbench 3, its last removing what the run made) and write
/// 3 MiB; a job that only reads reads its first loop, then ends with ENOENT in both; a file
/// that was there before the run is refused (volbench deletes only what it creates).
#[test]
fn unlink_each_loop_deletes_the_files_between_loops_as_fio_does() {
    let _disk = shared_disk();
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
    for (tool, unlinks) in [(Tool::Fio, 2), (Tool::Volbench, 3)] {
        let _ = std::fs::remove_file(&file);
        let format = &tool.json_flag()["--output-format=".len()..];
        let writes = job("write", format);
        let writes: Vec<&str> = writes.iter().map(|s| s.as_str()).collect();
        let trace = ["-e", "trace=unlink,unlinkat"];
        let (log, stdout) = tool.strace(d.path(), &trace, &writes, false);
        let j = first_job(&stdout);
        assert_eq!(u(&j, "/write/io_bytes"), 3 << 20, "{tool}: {j}");
        let done = log
            .lines()
            .filter(|l| l.contains("ul.dat") && l.ends_with("= 0"));
        assert_eq!(done.count(), unlinks, "{tool}'s unlinks: {log}");
        let _ = std::fs::remove_file(&file);
        let out = tool.run(&job("read", format), &[]);
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
    fails_saying(
        &Tool::Volbench.run(&args, &[]),
        2,
        "was there before this run",
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"not ours");
}

/// nrfiles=200 over size=256k at bs=4k gives each file 1,310 bytes, under one block: fio
/// makes the 200 files at that size and does no I/O, without an error, time-based or not;
/// so does volbench (it refused the job before).
#[test]
fn files_under_one_block_are_made_and_get_no_io_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    for rw in ["--rw=write", "--rw=randread"] {
        for timed in ["--time_based=0", "--time_based=1"] {
            for tool in Tool::BOTH {
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
                let out = tool.fio_json(&args);
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
    let _disk = shared_disk();
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
        for tool in Tool::BOTH {
            let (log, stdout) = tool.strace(d.path(), &["-e", "trace=openat"], &job, true);
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
        &Tool::Volbench.run(&["--name=o", &od, "--rw=read"], &[]),
        2,
        "holds no regular file",
    );
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
    let _disk = shared_disk();
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
        for tool in Tool::BOTH {
            let trace = ["-y", "-e", "trace=pread64"];
            let (log, _) = tool.strace(d.path(), &trace, &job, false);
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
    let _disk = shared_disk();
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
        for tool in Tool::BOTH {
            let (log, _) = tool.strace(d.path(), &opts, &job, false);
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

/// fio 3.26's center of a skewed file choice (`file_service_type=zipf:1.2:0.75`: the hottest
/// file three quarters of the way along; normal's middle moved), over eight files of 64
/// blocks each read 512 times (strace -y): the same two files are the busiest in both tools,
/// with the same share within 0.06. A hot small file is read many times over its size, as
/// fio starts a non-uniformly chosen file's map over.
#[test]
fn file_service_centers_put_the_hot_files_where_fio_does() {
    let _disk = shared_disk();
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
        for tool in Tool::BOTH {
            let (log, _) = tool.strace(d.path(), &["-y", "-e", "trace=pread64"], &job, false);
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

#[test]
fn nrfiles_spreads_io_and_do_verify_reads_it_back() {
    let _disk = shared_disk();
    let d = tmpdir();
    let v = job(
        d.path(),
        &format!("[w]\ndirectory={}\nnrfiles=3\nsize=3m\nbs=4k\nrw=write\nioengine=libaio\ndirect=1\niodepth=4\nverify=md5\n", d.path().display()),
    );
    assert_eq!(u(&v, "/group/write/total_ios"), 768);
    assert_eq!(
        u(&v, "/jobs/0/verified_blocks"),
        768,
        "do_verify=1 (fio's default) checks every block"
    );
    for i in 0..3 {
        let f = d.path().join(format!("w.0.{i}"));
        assert_eq!(
            std::fs::metadata(&f).unwrap().len(),
            1 << 20,
            "size is split over the files"
        );
        let offs = headers(&f, 4096);
        assert_eq!(offs, (0..256).map(|b| b * 4096).collect::<Vec<_>>());
    }
}

#[test]
fn unlink_removes_only_what_volbench_created() {
    let _disk = shared_disk();
    let d = tmpdir();
    let mine = d.path().join("mine");
    std::fs::write(&mine, vec![1u8; 1 << 20]).unwrap();
    job(d.path(), &format!("[a]\nioengine=null\nfilename={}\nsize=1m\nunlink=1\n[b]\nioengine=null\ndirectory={}\nsize=1m\nunlink=1\n", mine.display(), d.path().display()));
    assert!(
        mine.exists(),
        "a file volbench did not create survives unlink=1"
    );
    assert!(
        !d.path().join("b.test").exists(),
        "the file volbench created is gone"
    );
}

#[test]
fn write_only_jobs_are_laid_out_as_fio_lays_them_out() {
    let _disk = shared_disk();
    let d = tmpdir();
    let (f, v) = (d.path().join("fio"), d.path().join("vb"));
    std::fs::create_dir_all(&f).unwrap();
    std::fs::create_dir_all(&v).unwrap();
    let job = d.path().join("w.fio");
    // name= in [global] does not rename the jobs; each file is fio's NAME.0.0.
    std::fs::write(
        &job,
        "[global]\nname=4kwrite-test ; fio names jobs by section\nioengine=libaio\ndirect=1\n\
         bs=4k\nsize=64m\nrw=randwrite\nnumber_ios=10\n\
         [native]\n[posix]\nfallocate=posix\n[keep]\nfallocate=keep\nrw=write\n[truncate]\nfallocate=truncate\n\
         [none]\nfallocate=none\nrw=write\n[filled]\noverwrite=1\n",
    )
    .unwrap();
    let theirs = fio_on(&f, &job, &[]);
    let ours = vb_json(&v, &job, &[]);
    let names = |x: &Value, k: &str| -> Vec<String> {
        x["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j[k].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&ours, "name"), names(&theirs, "jobname"));
    // As fio: 64 MiB reserved but never written for native, posix and keep (keep leaves the size
    // to the writes); sparse for truncate; only what was written for none; filled for overwrite.
    // Sizes and names exactly; allocation within a block or two of filesystem metadata (an
    // extent block the filesystem may add for the same writes).
    let (a, b) = (files(&v), files(&f));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((&x.0, x.1), (&y.0, y.1), "name and size");
        assert!(x.2.abs_diff(y.2) <= 8192, "{x:?} vs fio's {y:?}");
    }
    let layouts: Vec<&str> = ours["environment"]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["layout"].as_str().unwrap())
        .collect();
    assert_eq!(
        layouts,
        [
            "allocated",
            "allocated",
            "allocated",
            "sparse",
            "sparse",
            "filled"
        ]
    );
}

#[test]
fn allow_file_create_0_refuses_a_missing_file() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("a.fio");
    std::fs::write(
        &job,
        "[j]\nfilename=nothere\nallow_file_create=0\nrw=write\nsize=1m\n",
    )
    .unwrap();
    let out = volbench()
        .current_dir(d.path())
        .arg("run")
        .arg(&job)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("allow_file_create=0") && err.contains("nothere"),
        "{err}"
    );
    assert!(!d.path().join("nothere").exists());
    // fio refuses too.
    let fio = std::process::Command::new("fio")
        .current_dir(d.path())
        .arg(&job)
        .output()
        .unwrap();
    assert!(!fio.status.success() || !String::from_utf8_lossy(&fio.stdout).contains("io="));
}

/// mmap cannot extend a file, so fio writes a write job's new file before the job (its
/// FIO_NOEXTEND engines), and the mapping's writes replace data. After 4 writes of 4 KiB into
/// a new 1 MiB file, no block of it reads as zeros in either tool (volbench only allocated
/// it: 252 blocks of zeros).
#[test]
fn an_mmap_write_job_lays_its_new_file_out_first_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let text = "[m]\nfilename=mf\nioengine=mmap\nrw=randwrite\nbs=4k\nsize=1m\nnumber_ios=4\n";
    let job = d.path().join("m.fio");
    std::fs::write(&job, text).unwrap();
    for tool in Tool::BOTH {
        let file = d.path().join("mf");
        let _ = std::fs::remove_file(&file);
        match tool {
            Tool::Fio => drop(fio_on(d.path(), &job, &[])),
            _ => drop(vb_json(d.path(), &job, &[])),
        }
        let data = std::fs::read(&file).unwrap();
        assert_eq!(data.len(), 1 << 20, "{tool}");
        let zeros = data
            .chunks(4096)
            .filter(|b| b.iter().all(|&x| x == 0))
            .count();
        assert_eq!(zeros, 0, "{tool}: {zeros} blocks of zeros");
    }
}

/// The files a traced run read, in order: each pread64's descriptor named by the openat that
/// last returned it (fio closes and reopens files; descriptors are reused).
fn openfiles_order(log: &str) -> String {
    let mut names = std::collections::HashMap::new();
    let mut order = String::new();
    for l in log.lines() {
        if let (Some(a), Some(eq)) = (l.find("openat("), l.rfind("= ")) {
            let file = l[a..].split('"').nth(1).unwrap_or("");
            let name = file.rsplit('/').next().unwrap_or("");
            if let Some(n) = name.strip_prefix("j.0.") {
                names.insert(l[eq + 2..].trim().to_string(), n.to_string());
            }
        } else if let Some(p) = l.find("pread64(") {
            let fd = l[p + 8..].split(',').next().unwrap_or("");
            if let Some(n) = names.get(fd) {
                order.push_str(n);
            }
        }
    }
    order
}

#[test]
fn openfiles_works_through_the_files_a_few_at_a_time_in_fios_order() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    // 8 files, 2 at a time: fio reads 0 and 1 in turn until both have done their share,
    // then 2 and 3, and so on (under strace: 0101...2323...).
    let dir = d.path().display();
    let text =
        format!("[j]\nrw=randread\nbs=4k\nsize=256k\nnrfiles=8\nopenfiles=2\ndirectory={dir}\n");
    std::fs::write(d.path().join("o.fio"), text).unwrap();
    let trace = ["-e", "trace=openat,pread64"];
    // Lay the files out first, so both traces are of reads alone.
    fio_on(d.path(), &d.path().join("o.fio"), &[]);
    let (theirs, _) = strace(d.path(), &trace, &["fio", "o.fio"]);
    let vb = env!("CARGO_BIN_EXE_volbench");
    let (ours, _) = strace(d.path(), &trace, &[vb, "run", "o.fio", "-q", "--no-store"]);
    let want: String = (0..4)
        .map(|p| format!("{}{}", 2 * p, 2 * p + 1).repeat(8))
        .collect();
    assert_eq!(openfiles_order(&theirs), want);
    assert_eq!(openfiles_order(&ours), want);
}

/// create_only: each tool lays the file out as the job would (written for a read job, given
/// its length for a write job) and does no I/O, even time-based.
#[test]
fn create_only_lays_the_files_out_and_does_no_io_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    for rw in ["read", "write"] {
        let text = format!(
            "[j]\nfilename=f\nsize=4m\nrw={rw}\nbs=4k\ncreate_only=1\ntime_based\nruntime=2\n"
        );
        let mut lens = Vec::new();
        for tool in Tool::BOTH {
            let here = d.path().join(format!("{rw}-{tool}"));
            std::fs::create_dir(&here).unwrap();
            let job = here.join("j.fio");
            std::fs::write(&job, &text).unwrap();
            let v = match tool {
                Tool::Fio => fio_on(&here, &job, &[]),
                _ => vb_fio_json(&here, &job),
            };
            assert_eq!(u(&v, &format!("/jobs/0/{rw}/io_bytes")), 0, "{tool} {rw}");
            let data = std::fs::read(here.join("f")).unwrap();
            if rw == "read" {
                assert!(
                    data.iter().any(|&b| b != 0),
                    "{tool}: a read job's file is written"
                );
            }
            lens.push(data.len());
        }
        assert_eq!(lens, [4 << 20, 4 << 20], "{rw}");
    }
}
