//! Faults around a run (issue 21): a results store on a full file system costs the store
//! only, and what a SIGKILL leaves behind is reclaimed on the next start.

mod common;
use common::*;
use std::io::Write;
use std::path::Path;
use std::process::Command as Std;

/// Fills the file system holding `dir` until it refuses a byte, then frees `free` bytes, so
/// the next writer there gets at most that much.
fn leave_free(dir: &Path, free: u64) {
    let path = dir.join("fill");
    let _ = std::fs::remove_file(&path);
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![0x5au8; 4096];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.sync_all();
    let len = f.metadata().unwrap().len();
    f.set_len(len.saturating_sub(free)).unwrap();
}

/// The commands that store a result, each writing its report to `out` as well.
fn storing_commands(scratch: &Path, out: &Path) -> Vec<(&'static str, Vec<String>)> {
    let o = out.to_str().unwrap().to_string();
    let json = ["--output-format", "json", "--output"].map(String::from);
    let with = |mut v: Vec<String>| {
        v.extend(json.iter().cloned());
        v.push(o.clone());
        v
    };
    let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        (
            "run",
            with(s(&["run", "--ioengine=null", "--runtime=200ms"])),
        ),
        // 24 points, the report rewritten after each: the WAL grows point by point.
        (
            "sweep",
            with(s(&[
                "sweep",
                "--ioengine=null",
                "--runtime=30ms",
                "--iodepth=1,2,4,8,16,32,64,128",
                "--bs=4k,8k,16k",
            ])),
        ),
        (
            "db",
            with(s(&[
                "db",
                scratch.to_str().unwrap(),
                "--transactions",
                "20",
                "--no-probe",
            ])),
        ),
    ]
}

/// One file system, nearly full at several levels: every storing command still exits 0
/// with its report on stdout's side (the `--output` file) and at most one warning, never a
/// signal; `history` still reads the store; the store passes SQLite's integrity check
/// once there is room again.
fn a_full_store_costs_the_store_only(fs: &Path) {
    let store = fs.join("results.db");
    let store_s = store.to_str().unwrap();
    let (scratch, outdir) = (tmpdir(), tmpdir());
    let out = outdir.path().join("r.json");
    // A store with one entry, made while there was room.
    ok_stdout(volbench().args([
        "run",
        "--ioengine=null",
        "--runtime=100ms",
        "--store",
        store_s,
    ]));
    for free in [0u64, 8 << 10, 40 << 10, 160 << 10] {
        for (name, args) in storing_commands(scratch.path(), &out) {
            leave_free(fs, free);
            let _ = std::fs::remove_file(&out);
            let o = volbench()
                .args(&args)
                .args(["--store", store_s])
                .env_remove("VOLBENCH_STORE")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            let what = format!("{name} with {free} bytes free: {:?}\n{err}", o.status);
            assert_eq!(o.status.code(), Some(0), "{what}");
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(&text).expect(&what);
            assert!(v.is_object(), "{what}");
            let warned = err.lines().filter(|l| l.contains("store")).count();
            assert!(warned <= 1, "{what}");
            let h = volbench()
                .args(["history", "--store", store_s])
                .output()
                .unwrap();
            let listed = String::from_utf8_lossy(&h.stdout);
            assert_eq!(h.status.code(), Some(0), "history after {what}");
            assert!(
                listed.contains("randread") || listed.contains("read"),
                "{listed}"
            );
        }
    }
    std::fs::remove_file(fs.join("fill")).unwrap();
    let c = rusqlite::Connection::open(&store).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn a_store_on_a_full_tmpfs_costs_the_store_only() {
    require_root!();
    let d = tmpdir();
    let ok = Std::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(d.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "mount tmpfs");
    let r = std::panic::catch_unwind(|| a_full_store_costs_the_store_only(d.path()));
    let _ = Std::new("umount").arg(d.path()).status();
    r.unwrap();
}

#[test]
fn a_store_on_a_full_ext4_costs_the_store_only() {
    require_root!();
    let fs = Ext4::new("32M");
    a_full_store_costs_the_store_only(fs.dir.path());
}
