//! Errors and latency limits (continue_on_error, ignore_error, max_latency, a job that cannot
//! start, slat and clat), against fio on the same job.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;

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
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
        let z = Zram::with_mem_limit("32M", "8M");
        let before = failed_writes(&z);
        let out = tool.run(&job(z.p()), &["--allow-destructive"]);
        succeeded(&out, format_args!("{tool}"));
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
    let out = Tool::Volbench.run(&plain, &["--allow-destructive"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("Input/output error"), "{err}");
}

/// ignore_error=,ENOSPC: 32 MiB of writes into a 16 MiB ext4 carry on past "no space", the
/// failures counted as fio counts them; without it volbench stops at the first and says so.
#[test]
fn ignore_error_carries_past_the_errnos_listed_as_fio() {
    let _disk = shared_disk();
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
    for tool in Tool::BOTH {
        let fs = Ext4::new("16M");
        let out = tool.run(&args(fs.dir.path().to_str().unwrap(), true), &[]);
        succeeded(&out, format_args!("{tool}"));
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
    let out = Tool::Volbench.run(&args(fs.dir.path().to_str().unwrap(), false), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

/// max_latency: on a 100-IOPS volume at depth 4 every read waits tens of milliseconds, so a
/// 5 ms limit ends the job at once with ETIMEDOUT in both tools; a 2 s limit lets both run.
#[test]
fn max_latency_ends_a_job_with_etimedout_as_fio_does() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), 100, 64 << 20) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    for tool in Tool::BOTH {
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

#[test]
fn slat_and_clat_are_split_as_fio_splits_them() {
    let _disk = shared_disk();
    require_root!();
    // QD16 libaio refills many slots per turn: slat is each I/O's own preparation to the
    // return of its submission (fio's definition), not the turn's.
    let z = Zram::new("512M");
    fill_random(&z.path, 512 << 20);
    let dev = z.p().to_string();
    let fio = std::process::Command::new("fio")
        .args([
            "--name=x",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=16",
            "--ioengine=libaio",
        ])
        .args([
            "--direct=1",
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ])
        .arg(format!("--filename={dev}"))
        .output()
        .unwrap();
    let theirs: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let ours = ok_json(volbench().args([
        "run",
        "--filename",
        &dev,
        "--rw=randread",
        "--bs=4k",
        "--iodepth=16",
        "--ioengine=libaio",
        "--runtime=2s",
        "--output-format=volbench-json",
        "-q",
        "--no-store",
    ]));
    let fio_slat = theirs["jobs"][0]["read"]["slat_ns"]["mean"]
        .as_f64()
        .unwrap();
    let r = &ours["group"]["read"];
    let slat = r["slat_ns"]["mean_ns"].as_f64().unwrap();
    // Both are a few microseconds of CPU; before the fix volbench's was 5x fio's.
    assert!(
        slat < 3.0 * fio_slat && slat > fio_slat / 3.0,
        "slat {slat} ns vs fio's {fio_slat} ns"
    );
    // Per I/O, lat = slat + clat exactly, so the means add up.
    let (clat, lat) = (
        r["clat_ns"]["mean_ns"].as_f64().unwrap(),
        r["lat_ns"]["mean_ns"].as_f64().unwrap(),
    );
    assert!(
        (slat + clat - lat).abs() <= 0.01 * lat,
        "{slat} + {clat} vs {lat}"
    );
}

/// A job fio cannot start (an io_uring ring deeper than the kernel's 32,768 entries) gets
/// fio's document with the job's errno, EINVAL, in both tools, and a failing exit; so does a
/// job volbench refuses, where fio would run it (the rbd engine): a harness reading fio's JSON
/// finds the job and its error instead of nothing.
#[test]
fn a_job_that_cannot_start_gets_fios_document_with_its_error() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("e.fio");
    let deep = "[deep]\nioengine=io_uring\nsize=1m\niodepth=65536\nfilename=f\nrw=read\n";
    let rbd = "[img]\nioengine=rbd\nclientname=admin\npool=rbd\nrbdname=img\nsize=1m\n";
    for (text, name, fio_too) in [(deep, "deep", true), (rbd, "img", false)] {
        std::fs::write(&job, text).unwrap();
        let mut docs = Vec::new();
        if fio_too {
            let out = std::process::Command::new("fio")
                .current_dir(d.path())
                .args(["--output-format=json", "e.fio"])
                .output()
                .unwrap();
            assert!(!out.status.success());
            docs.push(("fio", out.stdout));
        }
        let out = volbench()
            .current_dir(d.path())
            .args(["run", "e.fio", "--output-format=json", "--no-store"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
        docs.push(("volbench", out.stdout));
        for (tool, stdout) in docs {
            let text = String::from_utf8_lossy(&stdout);
            let at = text
                .find('{')
                .unwrap_or_else(|| panic!("{tool} wrote no JSON"));
            let v: Value = serde_json::from_str(&text[at..]).unwrap();
            assert_eq!(v["jobs"][0]["jobname"], name, "{tool}");
            assert_eq!(v["jobs"][0]["error"], 22, "{tool}");
            assert_eq!(v["jobs"][0]["read"]["io_bytes"], 0, "{tool}");
        }
    }
}
