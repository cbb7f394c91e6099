//! Each fio option volbench implements, checked for the behaviour fio documents.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// Runs a job file and returns the native report.
fn job(dir: &Path, text: &str) -> Value {
    let p = dir.join("t.fio");
    std::fs::write(&p, text).unwrap();
    let out = volbench()
        .args([
            "run",
            p.to_str().unwrap(),
            "--output-format=volbench-json",
            "-q",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn headers(path: &Path, bs: usize) -> Vec<u64> {
    std::fs::read(path)
        .unwrap()
        .chunks(bs)
        .map(|b| {
            assert_eq!(&b[..4], b"VBv1", "every block written with a header");
            u64::from_le_bytes(b[8..16].try_into().unwrap())
        })
        .collect()
}

#[test]
fn number_ios_io_size_and_loops_bound_the_work() {
    let d = tmpdir();
    let f = d.path().join("n");
    let base = format!(
        "[j]\nioengine=null\nfilename={}\nsize=1m\nbs=4k\n",
        f.display()
    );
    assert_eq!(
        job(d.path(), &format!("{base}number_ios=100\n"))["group"]["read"]["total_ios"],
        100
    );
    assert_eq!(
        job(d.path(), &format!("{base}io_size=8m\n"))["group"]["read"]["total_ios"],
        2048
    );
    assert_eq!(
        job(d.path(), &format!("{base}loops=3\n"))["group"]["read"]["total_ios"],
        768
    );
}

#[test]
fn bssplit_mixes_block_sizes_by_weight() {
    let d = tmpdir();
    let v = job(
        d.path(),
        &format!("[j]\nioengine=null\nfilename={}\nsize=64m\nrw=randread\nbssplit=4k/75:64k/25\nnumber_ios=20000\n", d.path().join("b").display()),
    );
    let ios = u(&v, "/group/read/total_ios");
    let bytes = u(&v, "/group/read/io_bytes") as f64;
    assert_eq!(ios, 20000);
    // Expected mean size: 0.75 * 4k + 0.25 * 64k = 19 KiB.
    let mean = bytes / ios as f64;
    assert!(
        (mean - 19.0 * 1024.0).abs() / (19.0 * 1024.0) < 0.05,
        "mean I/O size {mean}"
    );
}

#[test]
fn rate_iops_and_rate_cap_the_load() {
    let d = tmpdir();
    let f = d.path().join("r");
    let v = job(
        d.path(),
        &format!(
            "[j]\nioengine=null\nfilename={}\nsize=1m\nrate_iops=500\nruntime=2\ntime_based\n",
            f.display()
        ),
    );
    let iops = f64::from(v["group"]["read"]["iops"].as_f64().unwrap() as f32);
    assert!(
        (iops - 500.0).abs() / 500.0 < 0.05,
        "rate_iops=500 gave {iops}"
    );
    let v = job(d.path(), &format!("[j]\nioengine=null\nfilename={}\nsize=1m\nrw=write\nbs=64k\nrate=2m\nruntime=2\ntime_based\n", f.display()));
    let bw = v["group"]["write"]["bw_bytes"].as_f64().unwrap();
    assert!(
        (bw - 2.0 * 1048576.0).abs() / (2.0 * 1048576.0) < 0.05,
        "rate=2m gave {bw} B/s"
    );
}

#[test]
fn nrfiles_spreads_io_and_do_verify_reads_it_back() {
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
fn filename_lists_offset_increment_and_size_percent() {
    let d = tmpdir();
    let (a, b) = (d.path().join("a"), d.path().join("b:c"));
    // Two files named with fio's ':' list and '\:' escape.
    let v = job(
        d.path(),
        &format!(
            "[j]\nfilename={}:{}\nsize=2m\nrw=write\nbs=4k\nverify=crc32c\ndo_verify=0\n",
            a.display(),
            b.display().to_string().replace(':', "\\:")
        ),
    );
    assert_eq!(u(&v, "/group/write/total_ios"), 512);
    assert_eq!(headers(&a, 4096).len(), 256);
    assert_eq!(headers(&b, 4096).len(), 256);
    // offset_increment: clone k writes the region starting at k MiB.
    let f = d.path().join("inc");
    std::fs::write(&f, vec![0u8; 3 << 20]).unwrap();
    job(
        d.path(),
        &format!("[j]\nfilename={}\nsize=1m\noffset_increment=1m\nnumjobs=3\nrw=write\nbs=4k\nverify=crc32c\ndo_verify=0\n", f.display()),
    );
    assert_eq!(
        headers(&f, 4096),
        (0..768).map(|b| b * 4096).collect::<Vec<_>>()
    );
    // size=25% of an existing 3 MiB file.
    let v = job(
        d.path(),
        &format!(
            "[j]\nioengine=null\nfilename={}\nsize=25%\nbs=4k\n",
            f.display()
        ),
    );
    assert_eq!(u(&v, "/group/read/total_ios"), 192);
}

#[test]
fn startdelay_and_ramp_time_stay_out_of_the_measurement() {
    let d = tmpdir();
    let f = d.path().join("s");
    let t = std::time::Instant::now();
    let v = job(d.path(), &format!("[j]\nioengine=null\nfilename={}\nsize=1m\nstartdelay=1\nramp_time=1\nruntime=1\ntime_based\n", f.display()));
    assert!(t.elapsed().as_secs_f64() >= 3.0, "delay + ramp + runtime");
    // The measured interval starts at the common ramp end and ends at or after the deadline:
    // at least the runtime exactly, and far below the 2 s that counting the delay or the ramp
    // would give, whatever the machine's load.
    let secs = u(&v, "/group/runtime_ns") as f64 / 1e9;
    assert!(
        (1.0..2.0).contains(&secs),
        "only the runtime is measured: {secs}"
    );
}

#[test]
fn unlink_removes_only_what_volbench_created() {
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

/// fsync=1 and sync=dsync reach the device as cache flushes: the kernel's flush counter rises
/// with them on a device with a volatile write cache.
#[test]
fn fsync_and_dsync_reach_the_device_as_flushes() {
    let d = tmpdir();
    let f = d.path().join("sync");
    let probe = job(
        d.path(),
        &format!("[p]\nioengine=null\nfilename={}\nsize=1m\n", f.display()),
    );
    let cache = probe["environment"]["targets"][0]["device"]["write_cache"]
        .as_str()
        .unwrap_or("")
        .to_string();
    if cache != "write back" {
        eprintln!(
            "skipping: {} has no volatile write cache ({cache:?}), so no flushes to count",
            f.display()
        );
        return;
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
