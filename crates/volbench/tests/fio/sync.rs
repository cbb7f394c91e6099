//! How writes are made durable (fsync, dsync, fsync_on_close, sync_file_range, end_syncfs),
//! counted against fio's calls and the device's flushes.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;

/// The sync_file_range calls of one tool's run: (offset, length, flags) each, from strace.
fn sfr_calls(d: &Path, tool: Tool, file: &Path) -> Vec<(u64, u64, String)> {
    let f = format!("--filename={}", file.display());
    let argv = tool.argv();
    let mut cmd: Vec<&str> = argv.iter().map(String::as_str).collect();
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
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("s.dat");
    let fio = sfr_calls(d.path(), Tool::Fio, &file);
    std::fs::remove_file(&file).unwrap();
    let vb = sfr_calls(d.path(), Tool::Volbench, &file);
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

/// fsync=1 and sync=dsync reach the device as cache flushes: the kernel's flush counter rises
/// with them on a device with a volatile write cache.
#[test]
fn fsync_and_dsync_reach_the_device_as_flushes() {
    let _disk = shared_disk();
    let d = tmpdir();
    let f = d.path().join("sync");
    // The probe must see a file: the null engine creates none, and without one there is no
    // device to read the write cache of (this test then skipped everywhere, unnoticed).
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let probe = job(
        d.path(),
        &format!("[p]\nioengine=null\nfilename={}\nsize=1m\n", f.display()),
    );
    let cache = probe["environment"]["targets"][0]["device"]["write_cache"]
        .as_str()
        .unwrap_or("")
        .to_string();
    if cache != "write back" {
        cannot_run!(
            "{} has no volatile write cache ({cache:?}), so no flushes to count",
            f.display()
        );
    }
    for (opt, label) in [("fsync=1", "fsync"), ("sync=dsync", "O_DSYNC")] {
        let v = job(d.path(), &format!("[j]\nfilename={}\nsize=1m\nrw=randwrite\nbs=4k\nioengine=psync\ndirect=1\n{opt}\nruntime=1\ntime_based\n", f.display()));
        let writes = u(&v, "/group/write/total_ios");
        let flushes = u(&v, "/environment/targets/0/kernel_counters/flush_ios");
        assert!(writes > 10);
        assert!(
            flushes as f64 >= 0.9 * writes as f64,
            "{label}: {writes} writes but only {flushes} flushes reached the device"
        );
        if label == "fsync" {
            assert_eq!(
                u(&v, "/group/sync/total_ios"),
                writes,
                "one fsync per write"
            );
        }
    }
}

#[test]
fn fsync_on_close_syncs_once_like_fio() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("c.fio");
    std::fs::write(&job, "[j]\nrw=write\nbs=64k\nsize=4m\nfsync_on_close=1\n").unwrap();
    let count = |prog: &str, args: &[&str]| -> u64 {
        syscall_counts(d.path(), &["fsync", "fdatasync"], prog, args)
            .iter()
            .sum()
    };
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let j = job.to_str().unwrap();
    let fio = count("fio", &[j]);
    // volbench syncs the file it lays out once more, before the run; the job's own is one.
    let ours = count(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
    assert_eq!(fio, 1, "fio's fsync on close");
    assert_eq!(ours, fio, "one fsync, at the end");
}

/// The etcd project's disk check as its guides write it (sync engine, fdatasync after every
/// 2300-byte buffered write, an inline comment, `threads=1`): it parses, and moves exactly
/// what fio moves.
#[test]
fn etcd_fdatasync_check_runs_as_in_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = write_job(
        d.path(),
        "etcd.fio",
        &format!(
            "[mytest]\nioengine=sync\nfdatasync=1\nrw=write\nbs=2300\nsize=4m\ndirectory={} # the disk under test\nthreads=1\n",
            d.path().display()
        ),
    );
    let (code, ours, err) = run_json(&[job.to_str().unwrap(), "--no-store"]);
    assert_eq!(code, 0, "{err}");
    let theirs: Value = serde_json::from_slice(
        &std::process::Command::new("fio")
            .arg(&job)
            .arg("--output-format=json")
            .current_dir(d.path())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let t = &theirs["jobs"][0];
    assert_eq!(ours["group"]["write"]["total_ios"], t["write"]["total_ios"]);
    assert_eq!(ours["group"]["write"]["io_bytes"], t["write"]["io_bytes"]);
    assert_eq!(
        ours["group"]["sync"]["total_ios"], t["write"]["total_ios"],
        "one fdatasync per write"
    );
}

/// end_syncfs (newer fio's; fio 3.33 does not know it, so the kernel is the reference): a
/// write job over two files of one file system ends with one syncfs(2), as fio's fio_syncfs
/// does once per mount, and no fsync of its own.
#[test]
fn end_syncfs_syncs_the_file_system_once_as_fio() {
    let _disk = shared_disk();
    require_tool!("strace");
    let d = tmpdir();
    let job = d.path().join("s.fio");
    std::fs::write(
        &job,
        "[j]\nrw=write\nbs=64k\nsize=4m\nnrfiles=2\nend_syncfs=1\n",
    )
    .unwrap();
    let count = |prog: &str, args: &[&str]| -> (u64, u64) {
        let n = syscall_counts(d.path(), &["syncfs", "fsync", "fdatasync"], prog, args);
        (n[0], n[1] + n[2])
    };
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let j = job.to_str().unwrap();
    let (ours, our_fsyncs) = count(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
    assert_eq!(ours, 1, "one syncfs for the one file system");
    // A write-only fio job lays nothing out: the only syncs would be the job's own.
    assert_eq!(our_fsyncs, 0, "no fsync in place of the syncfs");
}
