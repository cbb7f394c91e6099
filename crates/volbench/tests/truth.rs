//! Truth checks: counts that must be exact, data that must read back, and volbench's I/O counts
//! against the kernel's own counters on devices the test creates.

mod common;
use common::*;
use serde_json::Value;

fn series_sum(job: &Value, dir: usize) -> u64 {
    job["series"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ios"][dir].as_u64().unwrap())
        .sum()
}

fn check_latency_shape(l: &Value) {
    let min = l["min_ns"].as_u64().unwrap();
    let max = l["max_ns"].as_u64().unwrap();
    let mean = l["mean_ns"].as_f64().unwrap();
    assert!(
        min as f64 <= mean && mean <= max as f64,
        "min {min} <= mean {mean} <= max {max}"
    );
    let p: Vec<u64> = l["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["ns"].as_u64().unwrap())
        .collect();
    assert_eq!(p.len(), 17);
    assert!(
        p.windows(2).all(|w| w[0] <= w[1]),
        "percentiles ordered: {p:?}"
    );
    assert!(p[0] >= min && p[16] <= max);
}

#[test]
fn null_engine_counts_are_exact() {
    let d = tmpdir();
    // 40 MiB at 4k per job, 4 jobs, size-based: exactly 10240 I/Os each.
    let (code, v, err) = run_json(&[
        "--ioengine=null",
        "--rw=randrw",
        "--rwmixread=70",
        "--bs=4k",
        "--size=40m",
        "--numjobs=4",
        "--iodepth=16",
        &format!("--directory={}", d.path().display()),
    ]);
    assert_eq!(code, 0, "{err}");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4);
    let mut sum = [0u64; 2];
    for j in jobs {
        let r = u(j, "/read/total_ios");
        let w = u(j, "/write/total_ios");
        assert_eq!(r + w, 10240, "every block of the region once");
        assert_eq!(u(j, "/read/io_bytes"), r * 4096);
        assert_eq!(series_sum(j, 0), r, "series sums to the total");
        assert_eq!(series_sum(j, 1), w);
        // 70/30 mix within a few percent on 10k draws.
        let share = r as f64 / 10240.0;
        assert!((0.67..0.73).contains(&share), "read share {share}");
        assert_eq!(u(j, "/read/clat_ns/n"), r, "one latency sample per I/O");
        assert_eq!(u(j, "/read/slat_ns/n"), r);
        assert_eq!(u(j, "/iodepth/max"), 16);
        sum[0] += r;
        sum[1] += w;
    }
    assert_eq!(u(&v, "/group/read/total_ios"), sum[0]);
    assert_eq!(u(&v, "/group/write/total_ios"), sum[1]);
    assert_eq!(
        u(&v, "/group/read/lat_ns/n"),
        sum[0],
        "group histogram is the merge"
    );
    check_latency_shape(&v["group"]["read"]["lat_ns"]);
    check_latency_shape(&v["group"]["write"]["clat_ns"]);
}

#[test]
fn null_engine_fsync_every_n_writes() {
    let d = tmpdir();
    let (code, v, err) = run_json(&[
        "--ioengine=null",
        "--rw=write",
        "--size=4m",
        "--fsync=8",
        &format!("--directory={}", d.path().display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(u(&v, "/group/write/total_ios"), 1024);
    assert_eq!(u(&v, "/group/sync/total_ios"), 1024 / 8);
}

#[test]
fn time_based_run_lasts_its_runtime() {
    let (code, v, err) = run_json(&[
        "--ioengine=null",
        "--runtime=2s",
        "--size=4m",
        "--directory=/tmp",
    ]);
    assert_eq!(code, 0, "{err}");
    let secs = u(&v, "/group/runtime_ns") as f64 / 1e9;
    assert!((1.99..2.2).contains(&secs), "runtime {secs}");
    let samples = v["group"]["series"]["samples"].as_array().unwrap().len();
    assert!((2..=3).contains(&samples), "one sample a second: {samples}");
    let _ = std::fs::remove_file("/tmp/volbench.test");
}

/// Reads the file and checks every block's verify header with an independent crc32c.
fn check_file_headers(path: &std::path::Path, bs: usize) {
    let data = std::fs::read(path).unwrap();
    assert_eq!(data.len() % bs, 0);
    for (i, block) in data.chunks(bs).enumerate() {
        assert_eq!(&block[0..4], b"VBv1", "block {i} has a header");
        let off = u64::from_le_bytes(block[8..16].try_into().unwrap());
        assert_eq!(off, (i * bs) as u64, "block {i} landed where it was aimed");
        let crc = u32::from_le_bytes(block[4..8].try_into().unwrap());
        assert_eq!(crc, crc32c::crc32c(&block[8..]), "block {i} checksum");
        assert!(
            block[32..].iter().any(|&b| b != 0),
            "random payload, not zeros"
        );
    }
}

#[test]
fn data_written_by_each_engine_reads_back_through_every_engine() {
    let d = tmpdir();
    for writer in ENGINES {
        let f = d.path().join(format!("{writer}.dat"));
        let fname = format!("--filename={}", f.display());
        let (code, v, err) = run_json(&[
            &fname,
            "--rw=write",
            "--bs=8k",
            "--size=2m",
            "--iodepth=8",
            "--verify=crc32c",
            &format!("--ioengine={writer}"),
        ]);
        assert_eq!(code, 0, "{writer} write: {err}");
        assert_eq!(u(&v, "/group/write/total_ios"), 256);
        check_file_headers(&f, 8192);
        for reader in ENGINES {
            for rw in ["read", "randread"] {
                let (code, v, err) = run_json(&[
                    &fname,
                    &format!("--rw={rw}"),
                    "--bs=8k",
                    "--size=2m",
                    "--iodepth=8",
                    "--verify=crc32c",
                    &format!("--ioengine={reader}"),
                ]);
                assert_eq!(code, 0, "{writer} -> {reader} {rw}: {err}");
                assert_eq!(
                    u(&v, "/group/read/total_ios"),
                    256,
                    "{writer} -> {reader} {rw}"
                );
            }
        }
    }
}

#[test]
fn corrupted_block_fails_verification() {
    let d = tmpdir();
    let f = d.path().join("c.dat");
    let fname = format!("--filename={}", f.display());
    let base = [
        fname.as_str(),
        "--bs=4k",
        "--size=1m",
        "--verify=crc32c",
        "--iodepth=4",
    ];
    let (code, _, err) = run_json(&[&base[..], &["--rw=write"]].concat());
    assert_eq!(code, 0, "{err}");
    let mut data = std::fs::read(&f).unwrap();
    data[4096 * 100 + 2000] ^= 0xff;
    std::fs::write(&f, &data).unwrap();
    let (code, v, err) = run_json(&[&base[..], &["--rw=read"]].concat());
    assert_eq!(code, 1, "verification failure is a failed run");
    assert_eq!(v["status"], "partial");
    let e = v["error"].as_str().unwrap();
    assert!(e.contains("checksum mismatch at offset 409600"), "{e}");
    assert!(err.contains("checksum mismatch"), "{err}");
}

#[test]
fn random_write_data_is_incompressible_and_unique() {
    let d = tmpdir();
    let f = d.path().join("r.dat");
    let (code, _, err) = run_json(&[
        &format!("--filename={}", f.display()),
        "--rw=write",
        "--bs=64k",
        "--size=4m",
        "--iodepth=1",
    ]);
    assert_eq!(code, 0, "{err}");
    let data = std::fs::read(&f).unwrap();
    let blocks: std::collections::HashSet<&[u8]> = data.chunks(4096).collect();
    assert_eq!(
        blocks.len(),
        data.len() / 4096,
        "no two 4k blocks alike (no dedupe)"
    );
    let zeros = data.iter().filter(|&&b| b == 0).count() as f64 / data.len() as f64;
    assert!(zeros < 0.01, "random bytes, not zeros: {zeros}");
}

/// volbench's I/O counts against /sys/block/<dev>/stat, read by the test itself.
fn kernel_agrees(dev: &str, name: &str, engine: &str, rw: &str, dir: usize) {
    let before = block_stat(name);
    let (code, v, err) = run_json(&[
        &format!("--filename={dev}"),
        &format!("--rw={rw}"),
        "--bs=4k",
        "--iodepth=16",
        "--runtime=1s",
        "--time_based",
        &format!("--ioengine={engine}"),
    ]);
    let after = block_stat(name);
    assert_eq!(code, 0, "{engine} {rw}: {err}");
    let key = if dir == 0 { "read" } else { "write" };
    let ours = u(&v, &format!("/group/{key}/total_ios"));
    let kernel = after[dir * 2] - before[dir * 2];
    let kbytes = (after[dir * 2 + 1] - before[dir * 2 + 1]) * 512;
    let diff = (ours as f64 - kernel as f64).abs() / kernel.max(1) as f64;
    assert!(ours > 100, "{engine} {rw}: too few I/Os to compare: {ours}");
    assert!(
        diff <= 0.005,
        "{engine} {rw} on {name}: volbench {ours} vs kernel {kernel}"
    );
    assert!(
        (kbytes as f64 - ours as f64 * 4096.0).abs() / kbytes as f64 <= 0.005,
        "bytes: kernel {kbytes} vs {}",
        ours * 4096
    );
    // volbench's own copy of the counters agrees with the test's reading.
    let kc = &v["environment"]["targets"][0]["kernel_counters"];
    let theirs = kc[if dir == 0 { "read_ios" } else { "write_ios" }]
        .as_u64()
        .unwrap()
        + kc[if dir == 0 {
            "read_merges"
        } else {
            "write_merges"
        }]
        .as_u64()
        .unwrap();
    assert!((theirs as f64 - kernel as f64).abs() / kernel as f64 <= 0.005);
}

#[test]
fn sequential_merges_are_flagged() {
    require_root!();
    let l = Loop::new(64 << 20, 512);
    let (code, v, err) = run_json(&[
        &format!("--filename={}", l.p()),
        "--rw=read",
        "--bs=4k",
        "--iodepth=32",
        "--runtime=1s",
    ]);
    assert_eq!(code, 0, "{err}");
    let k = &v["environment"]["targets"][0]["kernel_counters"];
    let merges = k["read_merges"].as_u64().unwrap();
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    // Batched sequential 4k reads are merged by the block layer; when they are, say so.
    if merges * 10 > k["read_ios"].as_u64().unwrap() + merges {
        assert!(codes.contains(&"merged_io"), "{codes:?}");
    } else {
        assert!(!codes.contains(&"merged_io"), "{codes:?}");
    }
    // Random 4k reads are not merged, and not flagged.
    let (_, v, _) = run_json(&[
        &format!("--filename={}", l.p()),
        "--rw=randread",
        "--runtime=1s",
    ]);
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(!codes.contains(&"merged_io"), "{codes:?}");
}

#[test]
fn io_counts_match_the_kernel_on_zram() {
    require_root!();
    let z = Zram::new("128M");
    fill_random(&z.path, 128 << 20);
    for engine in ENGINES {
        kernel_agrees(z.p(), &z.name(), engine, "randread", 0);
        kernel_agrees(z.p(), &z.name(), engine, "randwrite", 1);
    }
}

#[test]
fn io_counts_match_the_kernel_on_a_loop_device() {
    require_root!();
    let l = Loop::new(64 << 20, 512);
    for engine in ENGINES {
        kernel_agrees(l.p(), &l.name(), engine, "randwrite", 1);
        kernel_agrees(l.p(), &l.name(), engine, "read", 0);
    }
}

#[test]
fn latency_is_ordered_on_a_real_device() {
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let (code, v, err) = run_json(&[
        &format!("--filename={}", z.p()),
        "--rw=randrw",
        "--iodepth=4",
        "--runtime=1s",
    ]);
    assert_eq!(code, 0, "{err}");
    for dir in ["read", "write"] {
        for l in ["slat_ns", "clat_ns", "lat_ns"] {
            check_latency_shape(&v["group"][dir][l]);
        }
        let lat = f(&v, &format!("/group/{dir}/lat_ns/mean_ns"));
        let parts = f(&v, &format!("/group/{dir}/slat_ns/mean_ns"))
            + f(&v, &format!("/group/{dir}/clat_ns/mean_ns"));
        assert!(
            (lat - parts).abs() <= 1.0,
            "lat = slat + clat: {lat} vs {parts}"
        );
    }
}
