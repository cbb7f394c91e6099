//! What a job does to the page cache (invalidate, fadvise_hint, uncached, pre_read, the layout's
//! drop), counted by the kernel: the device's reads, the pages resident.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Std;

/// Reads the device completed since boot (field 1 of /sys/block/NAME/stat).
fn reads_done(name: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

/// The device reads of one buffered sequential 4 KiB read of 8 MiB under `hint`, by `tool`.
fn reads_under(tool: Tool, dev: &Zram, hint: &str) -> u64 {
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
    let out = tool.run(&args, &[]);
    succeeded(&out, format_args!("{tool}"));
    reads_done(&dev.name()) - before
}

/// fadvise_hint=random turns readahead off: one device read per 4 KiB read (2,048), where
/// `sequential` lets the kernel read ahead in large requests. volbench's counts equal fio's.
#[test]
fn fadvise_hint_advises_the_kernel_as_fio_does() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    for hint in ["random", "sequential"] {
        let (f, v) = (
            reads_under(Tool::Fio, &z, hint),
            reads_under(Tool::Volbench, &z, hint),
        );
        if hint == "random" {
            assert!(v >= 2000, "random: {v} device reads, fio {f}");
        } else {
            assert!(v <= 2048 / 8, "sequential: {v} device reads, fio {f}");
        }
        let diff = f.abs_diff(v) as f64 / f.max(1) as f64;
        assert!(diff <= 0.1, "{hint}: volbench {v} device reads, fio {f}");
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
    let _disk = shared_disk();
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
        // Buffered reads leave the file cached, less what the host's DAMON pageout takes back
        // (see pre_read's test below); uncached ones leave none of it.
        let ok = if want_all { res >= 12 << 20 } else { res == 0 };
        assert!(ok, "{flag}: {res} bytes resident");
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

/// pre_read: the job's file is read into the page cache before the job starts, in both tools
/// (fincore finds (nearly) all of it cached after 2,000 random reads, where without pre_read only
/// what those reads touched is), and volbench's measured reads then reach the device almost
/// never (the kernel's counter for the run, in its report).
#[test]
fn pre_read_starts_the_job_with_its_file_cached_as_fio_does() {
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
        for pre in [0u8, 1] {
            // Cold first: a job without pre_read drops the cache itself (invalidate=1).
            let _held = cache_held();
            let mut c = if tool == Tool::Fio {
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
            succeeded(&out, format_args!("{tool} pre_read={pre}"));
            let res = resident(&file);
            // This machine's host runs a DAMON pageout scheme (kdamond, paddr): it reclaims
            // page-cache pages that land in a physical region it has found cold, so a freshly
            // read file can lose a few percent of its pages at once. All of the file against
            // at most half is what tells pre_read from none; 3/4 leaves that room.
            if pre == 1 {
                assert!(
                    res >= 48 << 20,
                    "{tool}: pre_read left only {res} bytes cached"
                );
            } else {
                assert!(
                    res < 32 << 20,
                    "{tool}: {res} bytes cached without pre_read"
                );
            }
            if tool == Tool::Volbench {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                let k = v["environment"]["targets"][0]["kernel_counters"]["read_ios"]
                    .as_u64()
                    .unwrap();
                // 2,000 reads of a cached file reach the device only where a page was
                // reclaimed (above): a tenth of them, against at least half without pre_read.
                if pre == 1 {
                    assert!(
                        k <= 200,
                        "pre_read: the device saw {k} reads during the job"
                    );
                } else {
                    assert!(k >= 1000, "without pre_read the device saw only {k} reads");
                }
            }
        }
    }
}

/// fio drops what its layout wrote from the cache whatever `invalidate` says: a buffered read
/// of a new 64 MiB file with `invalidate=0` reads all of it from the disk in both tools (the
/// disk's own counters; volbench read it from the pages its layout left: 0 bytes).
#[test]
fn a_new_files_layout_is_dropped_from_the_cache_as_fio() {
    let _disk = alone();
    require_tool!("fio");
    let d = tmpdir();
    let text = "[c]\nfilename=cf\nbs=1m\nsize=64m\nrw=read\ninvalidate=0\n";
    let job = d.path().join("c.fio");
    std::fs::write(&job, text).unwrap();
    let mut disk = String::new();
    for tool in [Tool::Volbench, Tool::Fio, Tool::Volbench] {
        let _ = std::fs::remove_file(d.path().join("cf"));
        let before = (!disk.is_empty()).then(|| block_stat(&disk));
        let v = match tool {
            Tool::Fio => fio_on(d.path(), &job, &[]),
            _ => vb_json(d.path(), &job, &[]),
        };
        if disk.is_empty() {
            let name = &v["environment"]["targets"][0]["device"]["name"];
            disk = name.as_str().unwrap().to_string();
            continue;
        }
        // Other reads on the shared disk only add; a cached file reads none of it.
        let read = (block_stat(&disk)[1] - before.unwrap()[1]) * 512;
        assert!(
            read >= 48 << 20,
            "{tool}: the disk read {read} bytes of the 64 MiB file"
        );
    }
}

/// The `POSIX_FADV_DONTNEED` calls a command makes under strace, and its output.
fn cache_drops(d: &Path, cmd: &[&str]) -> (usize, String) {
    let (log, out) = strace(d, &["-e", "trace=fadvise64"], cmd);
    let drops = log
        .lines()
        .filter(|l| l.contains("POSIX_FADV_DONTNEED"))
        .count();
    (drops, out)
}

#[test]
fn buffered_jobs_drop_the_cache_at_every_pass_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let vb = env!("CARGO_BIN_EXE_volbench");
    // loops=5: fio drops the file's cached pages as each pass opens it, five in all (on a
    // file that exists: laying one out adds a drop of its own).
    std::fs::write(d.path().join("f"), vec![9u8; 4 << 20]).unwrap();
    let job = d.path().join("l.fio");
    std::fs::write(&job, "[l]\nfilename=f\nrw=read\nbs=64k\nsize=4m\nloops=5\n").unwrap();
    let (theirs, _) = cache_drops(d.path(), &["fio", "l.fio"]);
    let (ours, _) = cache_drops(d.path(), &[vb, "run", "l.fio", "-q", "--no-store"]);
    assert_eq!((ours, theirs), (5, 5));
    // Time-based: one drop at the start and one for each pass over the file begun after it
    // (the run may end inside a pass whose start was issued but not yet reaped).
    std::fs::write(
        &job,
        "[t]\nfilename=f\nrw=write\nbs=64k\nsize=4m\ntime_based\nruntime=1\n",
    )
    .unwrap();
    let json = ["--output-format=volbench-json", "-q", "--no-store"];
    let (ours, out) = cache_drops(d.path(), &[&[vb, "run", "l.fio"][..], &json].concat());
    let report: Value = serde_json::from_str(&out).unwrap();
    let passes = report["group"]["write"]["io_bytes"].as_u64().unwrap() / (4 << 20);
    assert!(
        passes >= 2,
        "{passes} passes: too slow a disk for this check"
    );
    assert!(
        ours.abs_diff(passes as usize + 1) <= 1,
        "{ours} drops for {passes} passes"
    );
}
