//! Safety: never destroy data without being told, keep partial results on errors and Ctrl-C,
//! remove only what volbench created.

mod common;
use common::*;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

fn refused(dev: &str, needle: &str) {
    let out = volbench()
        .args(["run", "--rw=randwrite", "--runtime=1s"])
        .arg(format!("--filename={dev}"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("refusing to write to {dev}")),
        "{stderr}"
    );
    assert!(stderr.contains(needle), "{stderr}");
    assert!(stderr.contains("--allow-destructive"), "{stderr}");
}

#[test]
fn device_with_a_filesystem_is_refused_then_allowed() {
    require_root!();
    let l = Loop::new(32 << 20, 512);
    let st = Std::new("mkfs.ext4")
        .args(["-q", "-F", l.p()])
        .status()
        .unwrap();
    assert!(st.success());
    let before = std::fs::read(&l.path).unwrap()[1024..2048].to_vec();
    refused(l.p(), "holds a filesystem signature: ext4");
    assert_eq!(
        std::fs::read(&l.path).unwrap()[1024..2048],
        before[..],
        "superblock untouched"
    );
    // Reads are harmless and allowed.
    let (code, _, err) = run_json(&[
        &format!("--filename={}", l.p()),
        "--rw=randread",
        "--runtime=1s",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, v, err) = run_json(&[
        &format!("--filename={}", l.p()),
        "--rw=randwrite",
        "--runtime=1s",
        "--allow-destructive",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(u(&v, "/group/write/total_ios") > 0);
}

/// Regression (issue 7): minix, bfs and cramfs were overwritten because the check knew only a
/// hand-written list; libblkid (through `blkid -p`) knows them all.
#[test]
fn every_signature_blkid_knows_is_refused() {
    require_root!();
    let src = tmpdir();
    std::fs::write(src.path().join("f"), b"data").unwrap();
    for (mkfs, extra) in [
        ("mkfs.minix", None),
        ("mkfs.bfs", None),
        ("mkfs.cramfs", Some(src.path())),
    ] {
        let l = Loop::new(16 << 20, 512);
        let mut c = Std::new(mkfs);
        if let Some(dir) = extra {
            c.arg(dir);
        }
        let Ok(st) = c
            .arg(l.p())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        else {
            common::cannot_run(&format!("{mkfs} is not installed"));
            continue;
        };
        assert!(st.success(), "{mkfs}");
        let fs = mkfs.trim_start_matches("mkfs.");
        let before = std::fs::read(&l.path).unwrap()[..8192].to_vec();
        refused(l.p(), &format!("signature: {fs}"));
        assert_eq!(
            std::fs::read(&l.path).unwrap()[..8192],
            before[..],
            "{fs} untouched"
        );
    }
}

#[test]
fn mounted_device_is_refused() {
    require_root!();
    let l = Loop::new(32 << 20, 512);
    assert!(Std::new("mkfs.ext4")
        .args(["-q", "-F", l.p()])
        .status()
        .unwrap()
        .success());
    let mnt = tempfile::tempdir().unwrap();
    assert!(Std::new("mount")
        .arg(l.p())
        .arg(mnt.path())
        .status()
        .unwrap()
        .success());
    refused(l.p(), "is mounted at");
    // No consent writes a mounted device (issue 65: the refusal offered --allow-destructive
    // as the way past it, and the flag was one): not run, fsync nor purge.
    // (No check of the device's bytes: ext4's lazy init writes a mounted file system's own
    // tables in the background. The refusal comes before volbench opens the device.)
    for args in [
        &[
            "run",
            "--rw=randwrite",
            "--runtime=1s",
            "--allow-destructive",
        ][..],
        &["fsync", "--runtime=1s", "--allow-destructive"][..],
        &[
            "run",
            "--rw=randwrite",
            "--runtime=1s",
            "--allow-destructive",
            "--allow_mounted_write=1",
        ][..],
    ] {
        let mut c = volbench();
        c.args(args);
        if args[0] == "run" {
            c.arg(format!("--filename={}", l.p()));
        } else {
            c.arg(l.p());
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is mounted at") && err.contains("unmount it"),
            "{args:?}: {err}"
        );
    }
    assert!(Std::new("umount")
        .arg(mnt.path())
        .status()
        .unwrap()
        .success());
}

#[test]
fn partition_table_is_refused() {
    require_root!();
    let l = Loop::new(32 << 20, 512);
    // A minimal MBR with one Linux partition entry.
    let mut mbr = vec![0u8; 512];
    mbr[446 + 4] = 0x83;
    mbr[446 + 8] = 2048u32.to_le_bytes()[0];
    mbr[446 + 9] = 2048u32.to_le_bytes()[1];
    mbr[446 + 12..446 + 16].copy_from_slice(&1000u32.to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&l.path)
        .unwrap();
    f.write_all(&mbr).unwrap();
    f.sync_all().unwrap();
    drop(f);
    refused(l.p(), "partition table");
}

#[test]
fn bs_below_the_logical_block_size_is_refused() {
    require_root!();
    let l = Loop::new(16 << 20, 4096);
    let out = volbench()
        .args(["run", "--rw=randread", "--bs=512", "--runtime=1s"])
        .arg(format!("--filename={}", l.p()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("--bs=512 is not a multiple of the logical block size 4096"),
        "{stderr}"
    );
    assert!(stderr.contains("use --bs=4096"), "{stderr}");
}

#[test]
fn size_beyond_the_device_is_refused() {
    require_root!();
    let z = Zram::new("16M");
    let out = volbench()
        .args(["run", "--rw=randread", "--size=1g", "--runtime=1s"])
        .arg(format!("--filename={}", z.p()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("does not fit on"), "{stderr}");
}

#[test]
fn device_error_mid_run_keeps_partial_results() {
    require_root!();
    // zram refuses to store more than mem_limit: writes past 8 MiB of data fail with EIO.
    let z = Zram::with_mem_limit("256M", "8M");
    let (code, v, err) = run_json(&[
        &format!("--filename={}", z.p()),
        "--rw=write",
        "--bs=64k",
        "--iodepth=4",
        "--runtime=10s",
    ]);
    assert_eq!(code, 1, "a device error fails the run: {err}");
    assert_eq!(v["status"], "partial");
    let e = v["error"].as_str().unwrap();
    assert!(e.contains("write of 65536 bytes at offset"), "{e}");
    assert!(
        e.contains("Input/output error") || e.contains("Cannot allocate memory"),
        "{e}"
    );
    let done = u(&v, "/group/write/total_ios");
    assert!(
        done > 0 && done * 65536 <= 16 << 20,
        "what was written before the error is kept: {done}"
    );
    assert!(err.contains("error: job volbench:"), "{err}");
}

#[test]
fn ctrl_c_keeps_partial_results_and_removes_only_created_files() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let existing = d.path().join("mine.test");
    std::fs::write(&existing, vec![7u8; 1 << 20]).unwrap();
    let out_json = d.path().join("r.json");
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    // Two jobs: one on the user's existing file, one on a file volbench creates.
    let run = |filename: Option<&std::path::Path>| {
        let mut c = Std::new(&bin);
        c.current_dir(d.path())
            .env("VOLBENCH_STORE", test_store())
            .args([
                "run",
                "--ioengine=psync",
                "--direct=0",
                "--rw=randwrite",
                "--size=1m",
                "--runtime=30s",
                "--output-format=json",
            ])
            .arg(format!("--output={}", out_json.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(f) = filename {
            c.arg(format!("--filename={}", f.display()));
        }
        c.spawn().unwrap()
    };
    for target in [None, Some(existing.as_path())] {
        let child = run(target);
        std::thread::sleep(Duration::from_millis(1500));
        common::interrupt(&child);
        let t = Instant::now();
        let out = child.wait_with_output().unwrap();
        assert!(t.elapsed() < Duration::from_secs(5), "stops promptly");
        assert_eq!(out.status.code(), Some(130));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("stopping"), "{stderr}");
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out_json).unwrap()).unwrap();
        assert_eq!(v["status"], "interrupted");
        assert!(
            u(&v, "/group/write/total_ios") > 0,
            "partial results are kept"
        );
        let secs = u(&v, "/group/runtime_ns") as f64 / 1e9;
        assert!(secs < 5.0, "runtime reflects the interruption: {secs}");
    }
    assert!(
        !d.path().join("volbench.test").exists(),
        "the file volbench created is removed"
    );
    assert!(existing.exists(), "the user's file is never removed");
    assert_eq!(std::fs::metadata(&existing).unwrap().len(), 1 << 20);
}
