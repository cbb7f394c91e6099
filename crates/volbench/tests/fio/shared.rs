//! Helpers more than one family's tests use: running either tool, reading the kernel's counters
//! and the page cache's lock.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

/// Tests in this binary run in parallel, and one test's drop_caches evicts another's pages
/// mid-measurement (a CI run saw pre_read's file 109 pages short). A drop takes this lock
/// for writing; a test that counts what stays cached holds it for reading (`cache_held`).
pub(crate) static PAGE_CACHE: std::sync::RwLock<()> = std::sync::RwLock::new(());

pub(crate) fn drop_caches() {
    let _only_us = PAGE_CACHE.write().unwrap_or_else(|e| e.into_inner());
    std::fs::write("/proc/sys/vm/drop_caches", "3").unwrap();
}

/// Holds off every other test's drop_caches until the guard is dropped.
pub(crate) fn cache_held() -> std::sync::RwLockReadGuard<'static, ()> {
    PAGE_CACHE.read().unwrap_or_else(|e| e.into_inner())
}

/// A pread64 or pwrite64 line's length and offset, read from the end of the line that ends the
/// call: the data strace prints before them may hold ", " (random bytes do, now and then).
pub(crate) fn len_off(l: &str) -> Option<(u64, u64)> {
    let args = l.rsplit_once(") = ")?.0;
    let mut it = args.rsplit(", ");
    let off = it.next()?.parse().ok()?;
    Some((it.next()?.parse().ok()?, off))
}

/// A time-based randread job on the throttled device with `options`, run by `tool` (fio or
/// volbench, fio-JSON either way): its first job's JSON, the seconds it ran, its stderr.
pub(crate) fn capped_job(
    cap: &Throttle,
    tool: Tool,
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
    let prog = if tool == Tool::Fio {
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
pub(crate) fn on_cap(
    cap: &Throttle,
    tool: Tool,
    dev: &str,
    secs: u32,
    option: &str,
) -> (i64, f64, String) {
    let (job, secs, err) = capped_job(cap, tool, dev, secs, &["--iodepth=4", option]);
    (job["error"].as_i64().unwrap(), secs, err)
}

/// Runs of consecutive reads on one file: (file, length).
pub(crate) fn runs(order: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for f in order {
        match out.last_mut() {
            Some((g, n)) if g == f => *n += 1,
            _ => out.push((f.clone(), 1)),
        }
    }
    out
}

/// fio-JSON's first job from a run's stdout (fio prints notes before the JSON).
pub(crate) fn first_job(stdout: &str) -> Value {
    let at = stdout
        .find('{')
        .unwrap_or_else(|| panic!("no JSON: {stdout}"));
    let v: Value = serde_json::from_str(&stdout[at..]).unwrap();
    v["jobs"][0].clone()
}

/// The bytes a zram device holds (mm_stat's orig_data_size): a discard frees them.
pub(crate) fn zram_stored(z: &Zram) -> u64 {
    let s = std::fs::read_to_string(z.sysfs().join("mm_stat")).unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

/// The space calls in an strace log, without their descriptors: EXT4_IOC_MOVE_EXT (strace
/// shows it as `_IOC(..., 0x66, 0xf, 0x28)`) with its result, fallocate and ftruncate.
pub(crate) fn moves(log: &str) -> Vec<String> {
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

/// Runs a job file and returns the native report.
pub(crate) fn job(dir: &Path, text: &str) -> Value {
    let p = dir.join("t.fio");
    std::fs::write(&p, text).unwrap();
    vb_json(dir, &p, &[])
}

pub(crate) fn headers(path: &Path, bs: usize) -> Vec<u64> {
    std::fs::read(path)
        .unwrap()
        .chunks(bs)
        .map(|b| {
            assert_eq!(&b[..4], b"VBv1", "every block written with a header");
            u64::from_le_bytes(b[8..16].try_into().unwrap())
        })
        .collect()
}

/// `volbench run JOB --parse-only`, which must fail: its error text.
pub(crate) fn refusal(job: &Path) -> String {
    let (ok, err) = parse_only(job);
    assert!(!ok, "{} was accepted", job.display());
    err
}

/// (name, size, allocated bytes) of every file in `dir`, sorted.
pub(crate) fn files(dir: &Path) -> Vec<(String, u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.blocks() * 512,
            )
        })
        .collect();
    v.sort();
    v
}

/// Tests here run two at a time, each holding the shared disk (`shared_disk`) for its whole
/// run; a test that counts the shared disk's requests runs alone (`alone`), since another
/// test's I/O would add to its count. Taken first, before any other lock of this binary.
static DISK: RwLock<()> = RwLock::new(());

/// Every test but those that run `alone` holds this while it runs.
pub(crate) fn shared_disk() -> RwLockReadGuard<'static, ()> {
    DISK.read().unwrap_or_else(|e| e.into_inner())
}

/// No other test of this binary runs until the guard is dropped.
pub(crate) fn alone() -> RwLockWriteGuard<'static, ()> {
    DISK.write().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn volbench_fio_json(args: &[&str]) -> Value {
    let out = volbench()
        .arg("run")
        .args(args)
        .args(["--output-format=fio-json", "-q"])
        .output()
        .unwrap();
    succeeded(&out, "volbench failed");
    serde_json::from_slice(&out.stdout).expect("volbench's fio-json")
}

pub(crate) fn write_job(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// (I/Os, bytes) of one direction, from fio's JSON and from volbench's report.
pub(crate) fn fio_io(v: &Value, dir: &str) -> (u64, u64) {
    let d = &v["jobs"][0][dir];
    (
        d["total_ios"].as_u64().unwrap(),
        d["io_bytes"].as_u64().unwrap(),
    )
}

pub(crate) fn vb_io(v: &Value, dir: &str) -> (u64, u64) {
    let d = &v["group"][dir];
    (
        d["total_ios"].as_u64().unwrap(),
        d["io_bytes"].as_u64().unwrap(),
    )
}

/// Both tools on one job text: (fio's, volbench's) I/O in `dir`.
pub(crate) fn both(d: &Path, text: &str, dir: &str) -> ((u64, u64), (u64, u64)) {
    let job = d.join("j.fio");
    std::fs::write(&job, text).unwrap();
    let theirs = fio_io(&fio_on(d, &job, &[]), dir);
    (theirs, vb_io(&vb_json(d, &job, &[]), dir))
}

/// `volbench run --parse-only` on a job text: (accepted, stderr).
pub(crate) fn parse_text(d: &Path, text: &str) -> (bool, String) {
    let job = d.join("p.fio");
    std::fs::write(&job, text).unwrap();
    parse_only(&job)
}

/// Each job's (name, read KiB, write KiB, error) from fio-shaped JSON.
pub(crate) type Jobs = Vec<(String, u64, u64, u64)>;

pub(crate) fn per_job(v: &Value) -> Jobs {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let kib = |d: &str| j[d]["io_kbytes"].as_u64().unwrap();
            let name = j["jobname"].as_str().unwrap().to_string();
            (
                name,
                kib("read"),
                kib("write"),
                j["error"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// fio and volbench on one job text from a clean directory: their per-job figures and the
/// size of the file `file` each left.
pub(crate) fn both_fresh(d: &Path, text: &str, file: &str) -> [(Jobs, u64); 2] {
    let job = d.join("f.fio");
    std::fs::write(&job, text).unwrap();
    let size = || std::fs::metadata(d.join(file)).unwrap().len();
    let _ = std::fs::remove_file(d.join(file));
    let theirs = (per_job(&fio_on(d, &job, &[])), size());
    let _ = std::fs::remove_file(d.join(file));
    let ours = ok_json(volbench().current_dir(d).args([
        "run",
        "f.fio",
        "--output-format=json",
        "-q",
        "--no-store",
    ]));
    [theirs, (per_job(&ours), size())]
}
