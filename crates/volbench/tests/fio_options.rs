//! Each fio option volbench implements, checked for the behaviour fio documents.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// Runs a job file and returns the native report.
fn job(dir: &Path, text: &str) -> Value {
    let p = dir.join("t.fio");
    std::fs::write(&p, text).unwrap();
    vb_json(dir, &p, &[])
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
    // number_ios stops a job early but never extends it past size, as fio: 1m of 4k is 256.
    let d0 = tmpdir();
    let f0 = d0.path().join("n");
    assert_eq!(
        job(
            d0.path(),
            &format!(
                "[j]\nioengine=null\nfilename={}\nsize=1m\nbs=4k\nnumber_ios=1000\n",
                f0.display()
            )
        )["group"]["read"]["total_ios"],
        256
    );
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
        &format!("[j]\nioengine=null\nfilename={}\nsize=1g\nrw=randread\nbssplit=4k/75:64k/25\nnumber_ios=20000\nnorandommap\n", d.path().join("b").display()),
    );
    let ios = u(&v, "/group/read/total_ios");
    let bytes = u(&v, "/group/read/io_bytes") as f64;
    assert_eq!(ios, 20000);
    // Expected mean size: 0.75 * 4k + 0.25 * 64k = 19 KiB (without the random map, which
    // cuts I/Os short as fio's does: tests/fio_parity.rs).
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

/// `volbench run JOB --parse-only`, which must fail: its error text.
fn refusal(job: &Path) -> String {
    let (ok, err) = parse_only(job);
    assert!(!ok, "{} was accepted", job.display());
    err
}

/// (name, size, allocated bytes) of every file in `dir`, sorted.
fn files(dir: &Path) -> Vec<(String, u64, u64)> {
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

#[test]
fn write_only_jobs_are_laid_out_as_fio_lays_them_out() {
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

#[test]
fn kb_base_1000_makes_k_a_thousand_as_in_fio() {
    let d = tmpdir();
    let job = d.path().join("k.fio");
    // kb_base sets the units of every size in its own section, wherever it is written there;
    // sizes [global] set before it keep fio's default units.
    std::fs::write(
        &job,
        "[global]\nrw=write\n[si]\nkb_base=1000\nbs=4k\nsize=400k\n\
         [late]\nbs=4k\nsize=400k\nkb_base=1000\n\
         [global]\nbs=4k\nsize=400k\n[inherited]\nkb_base=1000\n",
    )
    .unwrap();
    let theirs = fio_on(d.path(), &job, &[]);
    let ours = vb_json(d.path(), &job, &[]);
    let bytes = |v: &Value, i: usize| v["jobs"][i]["write"]["io_bytes"].clone();
    assert_eq!(
        [bytes(&theirs, 0), bytes(&theirs, 1), bytes(&theirs, 2)],
        [400_000, 400_000, 409_600]
    );
    for i in 0..3 {
        let (t, o) = (&theirs["jobs"][i]["write"], &ours["jobs"][i]["write"]);
        assert_eq!(o["io_bytes"], t["io_bytes"]);
        assert_eq!(o["total_ios"], t["total_ios"]);
    }
}

#[test]
fn fsync_on_close_syncs_once_like_fio() {
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

#[test]
fn synchronous_engines_run_as_psync_and_say_so() {
    let d = tmpdir();
    for engine in ["sync", "vsync", "pvsync", "pvsync2"] {
        let job = d.path().join(format!("{engine}.fio"));
        std::fs::write(
            &job,
            format!("[j]\nioengine={engine}\nrw=write\nbs=4k\nsize=1m\n"),
        )
        .unwrap();
        let out = volbench()
            .current_dir(d.path())
            .arg("run")
            .arg(&job)
            .args(["--output-format=volbench-json", "-q", "--no-store"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("ioengine={engine} runs as psync")),
            "{err}"
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        assert_eq!(
            v["group"]["write"]["total_ios"],
            theirs["jobs"][0]["write"]["total_ios"]
        );
    }
}

#[test]
fn command_line_options_are_defaults_the_job_file_overrides() {
    let d = tmpdir();
    let job = d.path().join("p.fio");
    std::fs::write(&job, "[global]\nbs=4k\n[j]\nrw=write\nsize=1m\n").unwrap();
    // bs=8k from the command line loses to the file's bs=4k; size... the file's; the command
    // line's direct=0 and ioengine apply (the file says nothing).
    let extra = ["--bs=8k", "--ioengine=psync"];
    let theirs = fio_on(d.path(), &job, &extra);
    let ours = vb_json(d.path(), &job, &extra);
    assert_eq!(theirs["jobs"][0]["write"]["total_ios"], 256);
    assert_eq!(ours["group"]["write"]["total_ios"], 256);
    // An option the file does not set comes from the command line: 2 jobs, as fio.
    let ours = vb_json(d.path(), &job, &["--numjobs=2"]);
    let theirs = fio_on(d.path(), &job, &["--numjobs=2"]);
    assert_eq!(
        ours["jobs"].as_array().unwrap().len(),
        theirs["jobs"].as_array().unwrap().len()
    );
}

#[test]
fn a_pasted_fio_command_line_means_what_it_means_to_fio() {
    // etcd's disk check: buffered synchronous 2300-byte writes, fdatasync after each.
    let d = tmpdir();
    let args = [
        "--name=etcd",
        "--rw=write",
        "--ioengine=sync",
        "--fdatasync=1",
        "--size=2m",
        "--bs=2300",
    ];
    let dir = format!("--directory={}", d.path().display());
    let fio = std::process::Command::new("fio")
        .args(args)
        .arg(&dir)
        .arg("--output-format=json")
        .output()
        .unwrap();
    let theirs: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let ours = ok_json(volbench().arg("run").args(args).arg(&dir).args([
        "--output-format=volbench-json",
        "-q",
        "--no-store",
    ]));
    let spec = &ours["workload"]["jobs"][0];
    assert_eq!(spec["iodepth"], 1);
    assert_eq!(spec["direct"], false);
    assert_eq!(spec["ioengine"], "psync");
    let t = &theirs["jobs"][0];
    assert_eq!(ours["group"]["write"]["total_ios"], t["write"]["total_ios"]);
    // fio counts its syncs in sync.lat_ns.N (its sync.total_ios stays 0).
    assert_eq!(ours["group"]["sync"]["total_ios"], t["sync"]["lat_ns"]["N"]);
}

#[test]
fn a_job_error_names_the_option_and_its_line() {
    let d = tmpdir();
    let job = d.path().join("e.fio");
    std::fs::write(
        &job,
        "[global]\ndirect=1\n[mytest]\nrw=write\nbs=2300\nsize=23000\n",
    )
    .unwrap();
    // fio parses O_DIRECT with 2300-byte blocks (a FUSE mount may take them) and fails at
    // the first I/O on a block device; volbench refuses before any I/O, naming the block.
    ok_stdout(volbench().arg("run").arg(&job).arg("--parse-only"));
    let out = volbench()
        .current_dir(d.path())
        .arg("run")
        .arg(&job)
        .args(["-q", "--no-store"])
        .output()
        .unwrap();
    let err = fails_saying(&out, 2, "2300");
    assert!(err.contains("512"), "{err}");
    assert!(!d.path().join("mytest.0.0").exists(), "a file was laid out");
    let err = refusal(&{
        std::fs::write(&job, "[global]\nrw=bogus\n[mytest]\nbs=4k\n").unwrap();
        job.clone()
    });
    assert!(err.contains("e.fio:2:") && err.contains("bogus"), "{err}");
    // The same job buffered is fine, as in fio (the 512-byte rule is O_DIRECT's).
    std::fs::write(&job, "[mytest]\nrw=write\nbs=2300\nsize=23000\n").unwrap();
    ok_stdout(volbench().arg("run").arg(&job).arg("--parse-only"));
}

#[test]
fn rw_offset_modifiers_skip_and_step_back_as_fio() {
    let d = tmpdir();
    for (rw, name) in [("write:4k", "hole"), ("read:-8k", "back")] {
        let job = d.path().join(format!("{name}.fio"));
        std::fs::write(&job, format!("[{name}]\nrw={rw}\nbs=4k\nsize=64k\n")).unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        let ours = vb_json(d.path(), &job, &[]);
        let dir = if rw.starts_with("write") {
            "write"
        } else {
            "read"
        };
        let t = &theirs["jobs"][0][dir];
        assert_eq!(ours["group"][dir]["total_ios"], t["total_ios"], "{rw}");
        assert_eq!(ours["group"][dir]["io_bytes"], t["io_bytes"], "{rw}");
    }
    // A write with 4k holes leaves every other block unwritten, as fio's does.
    let blocks = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).unwrap().blocks() * 512
    };
    let f = d.path().join("hole.0.0");
    std::fs::remove_file(&f).unwrap();
    vb_json(d.path(), &d.path().join("hole.fio"), &[]);
    let ours = blocks(&f);
    std::fs::remove_file(&f).unwrap();
    fio_on(d.path(), &d.path().join("hole.fio"), &[]);
    assert_eq!(ours, blocks(&f));
}

#[test]
fn offset_percent_starts_at_that_share_of_the_file_as_fio() {
    let d = tmpdir();
    let f = d.path().join("ex");
    fill_random(&f, 8 << 20);
    // Of an existing 8 MiB file: 25 % is 2 MiB in, to the end or for `size`; of a new file
    // (no length yet) fio starts at 0.
    for (extra, file) in [
        ("", "ex"),
        ("size=2m\n", "ex"),
        ("size=8m\noffset=50%\n", "new"),
    ] {
        let job = d.path().join("o.fio");
        std::fs::write(
            &job,
            format!("[o]\nfilename={file}\nrw=write\nbs=4k\noffset=25%\n{extra}"),
        )
        .unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        let fio_len = std::fs::metadata(d.path().join(file)).unwrap().len();
        std::fs::remove_file(d.path().join("new")).ok();
        let ours = vb_json(d.path(), &job, &[]);
        let t = &theirs["jobs"][0]["write"];
        assert_eq!(ours["group"]["write"]["io_bytes"], t["io_bytes"], "{extra}");
        let len = std::fs::metadata(d.path().join(file)).unwrap().len();
        assert_eq!(len, fio_len, "{extra}");
    }
    // Where volbench wrote: its stamped blocks start 2 MiB in.
    let job = d.path().join("o.fio");
    std::fs::write(
        &job,
        "[o]\nfilename=ex\nrw=write\nbs=4k\noffset=25%\nsize=1m\nverify=crc32c\ndo_verify=0\n",
    )
    .unwrap();
    fill_random(&f, 8 << 20);
    vb_json(d.path(), &job, &[]);
    let stamped: Vec<u64> = std::fs::read(&f)
        .unwrap()
        .chunks(4096)
        .filter(|b| &b[..4] == b"VBv1")
        .map(|b| u64::from_le_bytes(b[8..16].try_into().unwrap()))
        .collect();
    assert_eq!(
        stamped,
        (0..256).map(|b| (2 << 20) + b * 4096).collect::<Vec<_>>()
    );
}

#[test]
fn bsrange_draws_sizes_across_the_range_as_fio() {
    let d = tmpdir();
    let job = d.path().join("r.fio");
    std::fs::write(
        &job,
        "[r]\nioengine=null\nrw=randread\nbsrange=4k-16k\nsize=1g\nnumber_ios=20000\n",
    )
    .unwrap();
    let theirs = fio_on(d.path(), &job, &[]);
    let ours = vb_json(d.path(), &job, &[]);
    let mean = |ios: &Value, bytes: &Value| bytes.as_f64().unwrap() / ios.as_f64().unwrap();
    let t = &theirs["jobs"][0]["read"];
    let o = &ours["group"]["read"];
    assert_eq!(o["total_ios"], t["total_ios"]);
    let (a, b) = (
        mean(&o["total_ios"], &o["io_bytes"]),
        mean(&t["total_ios"], &t["io_bytes"]),
    );
    // 20,000 draws: the means differ by far less than 5 % unless the distributions differ.
    assert!((a - b).abs() / b < 0.05, "mean I/O size {a} vs fio's {b}");
    assert!(a > 4096.0 * 2.0 && a < 4096.0 * 3.5, "{a}");
}

#[test]
fn filesize_sizes_each_file_and_size_is_the_io_to_do() {
    let d = tmpdir();
    let (f, v) = (d.path().join("fio"), d.path().join("vb"));
    std::fs::create_dir_all(&f).unwrap();
    std::fs::create_dir_all(&v).unwrap();
    let job = d.path().join("s.fio");
    std::fs::write(
        &job,
        "[s]\nrw=write\nbs=4k\nnrfiles=3\nfilesize=256k\nsize=384k\n",
    )
    .unwrap();
    let theirs = fio_on(&f, &job, &[]);
    let ours = vb_json(&v, &job, &[]);
    assert_eq!(
        ours["group"]["write"]["io_bytes"],
        theirs["jobs"][0]["write"]["io_bytes"]
    );
    let sizes =
        |p: &Path| -> Vec<(String, u64)> { files(p).into_iter().map(|(n, s, _)| (n, s)).collect() };
    assert_eq!(sizes(&v), sizes(&f));
}

#[test]
fn slat_and_clat_are_split_as_fio_splits_them() {
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

#[test]
fn percentile_list_and_lat_percentiles_print_what_fio_prints() {
    let d = tmpdir();
    let job = d.path().join("p.fio");
    std::fs::write(
        &job,
        "[p]\nioengine=null\nrw=randrw\nsize=64m\npercentile_list=50:99.5:99.999\nlat_percentiles=1\n",
    )
    .unwrap();
    let theirs = fio_on(d.path(), &job, &[]);
    let out = volbench()
        .current_dir(d.path())
        .arg("run")
        .arg(&job)
        .args(["--output-format=fio-json", "-q", "--no-store"])
        .output()
        .unwrap();
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = |v: &Value, dir: &str, lat: &str| -> Vec<String> {
        v["jobs"][0][dir][lat]["percentile"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    for dir in ["read", "write"] {
        for lat in ["clat_ns", "lat_ns", "slat_ns"] {
            assert_eq!(
                keys(&ours, dir, lat),
                keys(&theirs, dir, lat),
                "{dir} {lat}"
            );
        }
        assert_eq!(
            keys(&ours, dir, "lat_ns"),
            ["50.000000", "99.500000", "99.999000"]
        );
    }
    // The native report keeps fio's default set too, plus the list.
    let native = vb_json(d.path(), &job, &[]);
    let ps: Vec<f64> = native["group"]["read"]["lat_ns"]["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["p"].as_f64().unwrap())
        .collect();
    assert!(
        ps.contains(&99.5) && ps.contains(&99.999) && ps.contains(&99.9),
        "{ps:?}"
    );
}

#[test]
fn bw_iops_and_lat_logs_are_written_in_fios_format() {
    let d = tmpdir();
    let (f, v) = (d.path().join("fio"), d.path().join("vb"));
    std::fs::create_dir_all(&f).unwrap();
    std::fs::create_dir_all(&v).unwrap();
    let job = d.path().join("l.fio");
    std::fs::write(
        &job,
        "[l]\nioengine=psync\nrw=randrw\nbs=4k\nsize=8m\nruntime=3\ntime_based\n\
         write_bw_log=b\nwrite_iops_log=i\nwrite_lat_log=l\nlog_avg_msec=1000\n",
    )
    .unwrap();
    fio_on(&f, &job, &[]);
    vb_json(&v, &job, &["--directory=."]);
    let names = |p: &Path| -> Vec<String> {
        files(p)
            .into_iter()
            .map(|x| x.0)
            .filter(|n| n.ends_with(".log"))
            .collect()
    };
    assert_eq!(names(&v), names(&f));
    assert_eq!(
        names(&v),
        [
            "b_bw.1.log",
            "i_iops.1.log",
            "l_clat.1.log",
            "l_lat.1.log",
            "l_slat.1.log"
        ]
    );
    let parse = |p: &Path| -> Vec<[u64; 5]> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Vec<u64> = l.split(", ").map(|x| x.trim().parse().unwrap()).collect();
                v.try_into()
                    .unwrap_or_else(|v: Vec<u64>| panic!("5 fields: {v:?}"))
            })
            .collect()
    };
    for name in names(&v) {
        let (ours, theirs) = (parse(&v.join(&name)), parse(&f.join(&name)));
        for dir in 0..2 {
            let n = |x: &[[u64; 5]]| x.iter().filter(|l| l[2] == dir).count() as i64;
            // One line per second and direction; the tools may differ by the last partial
            // second, which fio writes for some logs and not others.
            assert!(
                (n(&ours) - n(&theirs)).abs() <= 1,
                "{name} dir {dir}: {ours:?} vs {theirs:?}"
            );
        }
        for l in &ours {
            assert_eq!(l[0] % 1000, 0, "{name}: window ends on the second");
            assert!(l[2] <= 1 && l[3] == 0 && l[4] == 0, "{name}: {l:?}");
        }
    }
    // The bandwidth log is the IOPS log times 4 KiB, line by line.
    let (b, i) = (parse(&v.join("b_bw.1.log")), parse(&v.join("i_iops.1.log")));
    for (x, y) in b.iter().zip(&i) {
        assert!(x[1].abs_diff(y[1] * 4) <= 4, "{x:?} vs {y:?}");
    }
    // psync has no submission latency: fio's slat log is empty, and so is volbench's.
    assert!(parse(&v.join("l_slat.1.log")).is_empty());
}

/// zram's own account of what it stored: (original bytes, compressed bytes).
fn zram_mm(z: &Zram) -> (u64, u64) {
    let s = std::fs::read_to_string(z.sysfs().join("mm_stat")).unwrap();
    let v: Vec<u64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (v[0], v[1])
}

#[test]
fn buffer_compress_percentage_compresses_as_fios_data_does_and_is_flagged() {
    require_root!();
    let d = tmpdir();
    let job = d.path().join("c.fio");
    let ratio = |prog: &str| -> (f64, String) {
        let z = Zram::new("256M");
        std::fs::write(
            &job,
            format!(
                "[c]\nfilename={}\nrw=write\nbs=64k\nsize=128m\ndirect=1\nioengine=libaio\n\
                 buffer_compress_percentage=60\nbuffer_compress_chunk=4k\n",
                z.p()
            ),
        )
        .unwrap();
        let out = if prog == "fio" {
            std::process::Command::new("fio")
                .arg(&job)
                .output()
                .unwrap()
        } else {
            let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("volbench"));
            c.arg("run")
                .arg(&job)
                .args(["-q", "--no-store", "--allow-destructive"]);
            c.output().unwrap()
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (orig, compr) = zram_mm(&z);
        (
            compr as f64 / orig as f64,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (theirs, _) = ratio("fio");
    let (ours, stderr) = ratio("volbench");
    eprintln!("compressed to: fio {theirs:.3}, volbench {ours:.3}");
    // 60 % zeros in every 4 KiB: both land near 0.4 of the original; random data would be ~1.
    assert!(theirs < 0.6, "fio's data compressed to {theirs}");
    assert!(
        (ours - theirs).abs() < 0.1,
        "volbench {ours} vs fio {theirs}"
    );
    assert!(stderr.contains("60% compressible"), "flagged: {stderr}");
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
        let mut seen = Vec::new();
        for _ in 0..100 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            seen = job_cpus(child.id());
            if seen.len() == 2 {
                break;
            }
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

/// Gaps between a program's pread64 calls (strace's timestamps), as the ratio of their 90th
/// percentile to their median: ln 10 / ln 2 = 3.3 for Poisson arrivals (exponential gaps), 1
/// for evenly paced ones. Robust to the one long gap either tool has while starting.
fn pread_gap_spread(dir: &Path, prog: &Path, args: &[&str]) -> (usize, f64) {
    let cmd = [&[prog.to_str().unwrap()][..], args].concat();
    let (text, _) = strace(dir, &["-ttt", "-e", "trace=pread64"], &cmd);
    let ts: Vec<f64> = text
        .lines()
        .filter(|l| l.contains("pread64(") && !l.contains("resumed"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .collect();
    let mut gaps: Vec<f64> = ts.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_by(f64::total_cmp);
    let q = |p: f64| gaps[((gaps.len() - 1) as f64 * p) as usize];
    (ts.len(), q(0.9) / q(0.5))
}

#[test]
fn rate_process_poisson_spaces_ios_at_random_as_fio() {
    let d = tmpdir();
    let job = d.path().join("p.fio");
    let fio = std::path::PathBuf::from("fio");
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    // 1,000 gaps: the p90/median of exponential gaps is 3.3, of even ones 1. A busy machine
    // (the CI's own builds) delays some wake-ups and widens both, fio's as much as ours
    // (fio's poisson read 8.3 once): the bands allow that, and each tool's poisson spread
    // must stay well above its own linear one.
    let mut spread = Vec::new();
    for (process, lo, hi) in [("poisson", 2.0, 15.0), ("linear", 0.7, 2.0)] {
        std::fs::write(
            &job,
            format!("[p]\nrw=randread\nbs=4k\nsize=4m\nrate_iops=1000\nrate_process={process}\nnumber_ios=1000\n"),
        )
        .unwrap();
        let j = job.to_str().unwrap();
        let (n_f, s_f) = pread_gap_spread(d.path(), &fio, &[j]);
        let (n_v, s_v) = pread_gap_spread(d.path(), &vb, &["run", j, "-q", "--no-store"]);
        assert!(n_f >= 1000 && n_v >= 1000, "{n_f} {n_v}");
        assert!(s_f > lo && s_f < hi, "fio {process}: p90/median {s_f}");
        assert!(
            s_v > lo && s_v < hi,
            "volbench {process}: p90/median {s_v} (fio {s_f})"
        );
        spread.push((s_f, s_v));
    }
    let (p, l) = (spread[0], spread[1]);
    assert!(
        p.0 > 1.5 * l.0 && p.1 > 1.5 * l.1,
        "poisson {p:?} against linear {l:?}"
    );
}

#[test]
fn verify_hashes_write_check_and_catch_corruption() {
    let d = tmpdir();
    for algo in ["sha1", "sha256", "sha512", "crc64"] {
        let f = d.path().join(format!("v-{algo}"));
        let job = d.path().join("v.fio");
        std::fs::write(
            &job,
            format!(
                "[v]\nfilename={}\nrw=write\nbs=4k\nsize=1m\nverify={algo}\n",
                f.display()
            ),
        )
        .unwrap();
        // fio accepts the same job and verifies it.
        let theirs = fio_on(d.path(), &job, &[]);
        assert_eq!(theirs["jobs"][0]["error"], 0, "{algo}");
        std::fs::remove_file(&f).unwrap();
        let ours = vb_json(d.path(), &job, &[]);
        assert_eq!(
            ours["jobs"][0]["verified_blocks"], 256,
            "{algo}: every block read back"
        );
        // A flipped byte in the data is caught by a read job verifying the file.
        let mut bytes = std::fs::read(&f).unwrap();
        bytes[5 * 4096 + 1000] ^= 0x40;
        std::fs::write(&f, &bytes).unwrap();
        std::fs::write(
            &job,
            format!(
                "[v]\nfilename={}\nrw=read\nbs=4k\nsize=1m\nverify={algo}\n",
                f.display()
            ),
        )
        .unwrap();
        let out = volbench()
            .current_dir(d.path())
            .arg("run")
            .arg(&job)
            .args(["--output-format=volbench-json", "-q", "--no-store"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let e = v["error"].as_str().unwrap_or_default();
        assert!(
            e.contains("offset 20480") && e.contains("corrupt"),
            "{algo}: {e}"
        );
    }
}

#[test]
fn hist_logs_and_window_maxima_are_written_in_fios_format() {
    let d = tmpdir();
    let (f, v) = (d.path().join("fio"), d.path().join("vb"));
    std::fs::create_dir_all(&f).unwrap();
    std::fs::create_dir_all(&v).unwrap();
    let job = d.path().join("h.fio");
    std::fs::write(
        &job,
        "[h]\nioengine=libaio\niodepth=4\nrw=randrw\nbs=4k\nsize=8m\nruntime=2\ntime_based\n\
         write_hist_log=h\nlog_hist_msec=500\nwrite_lat_log=l\nlog_avg_msec=500\n\
         log_max_value=1\n[c]\nioengine=psync\nrw=randread\nbs=4k\nsize=4m\nruntime=2\n\
         time_based\nwrite_hist_log=c\nlog_hist_msec=1000\nlog_hist_coarseness=2\n",
    )
    .unwrap();
    fio_on(&f, &job, &[]);
    let ours = vb_json(&v, &job, &["--directory=."]);
    let rows = |p: &Path| -> Vec<Vec<u64>> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| l.split(", ").map(|x| x.trim().parse().unwrap()).collect())
            .collect()
    };
    // The same files; per direction the same lines (window, block size), but for the last:
    // a window is written when a later completion closes it, and fio counts completions
    // after the deadline (it drains the queue) where volbench's window ends there. The same
    // number of bins: 1856, a quarter of that at coarseness 2.
    for (name, width, cols) in [
        ("h_clat_hist.1.log", 500, 1859),
        ("c_clat_hist.2.log", 1000, 467),
    ] {
        let (o, t) = (rows(&v.join(name)), rows(&f.join(name)));
        for dir in 0..2 {
            let lines = |x: &[Vec<u64>]| -> Vec<(u64, u64)> {
                x.iter()
                    .filter(|r| r[1] == dir)
                    .map(|r| ((r[0] + width / 2) / width, r[2]))
                    .collect()
            };
            let (lo, lt) = (lines(&o), lines(&t));
            let common = lo.len().min(lt.len());
            assert!(
                lo.len().abs_diff(lt.len()) <= 1 && lo[..common] == lt[..common],
                "{name} dir {dir}: {lo:?} vs fio {lt:?}"
            );
        }
        assert!(
            !o.is_empty() && o.iter().chain(&t).all(|r| r.len() == cols),
            "{name}"
        );
    }
    // The histograms hold the counted I/Os of every window but the open last one, in bins
    // that agree with the report's completion latencies: the median bin's lower edge is at
    // most the median and within one bin (1/64) below it, give or take the windows' spread.
    let o = rows(&v.join("h_clat_hist.1.log"));
    let job0 = &ours["jobs"][0];
    for (dir, key) in [(0, "read"), (1, "write")] {
        let mut bins = vec![0u64; 1856];
        for r in o.iter().filter(|r| r[1] == dir) {
            for (b, n) in r[3..].iter().enumerate() {
                bins[b] += n;
            }
        }
        let total: u64 = bins.iter().sum();
        let ios = job0[key]["total_ios"].as_u64().unwrap();
        assert!(total <= ios && total * 2 >= ios, "{key}: {total} of {ios}");
        let mut seen = 0;
        let median = bins
            .iter()
            .position(|&n| {
                seen += n;
                seen * 2 >= total
            })
            .unwrap();
        let edge = stats::winlog::plat_value(median) as f64;
        let p50 = job0[key]["clat_ns"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["p"] == 50.0)
            .unwrap()["ns"]
            .as_f64()
            .unwrap();
        assert!(
            (0.5..=2.0).contains(&(p50 / edge)),
            "{key}: median bin {median} starts at {edge} ns, the report's p50 is {p50}"
        );
    }
    // log_max_value=1: each line is a window's largest latency; the largest of them is the
    // job's (every counted I/O falls in a written window), and none is below the job's least.
    for (kind, field) in [("lat", "lat_ns"), ("clat", "clat_ns"), ("slat", "slat_ns")] {
        let name = format!("l_{kind}.1.log");
        let (o, t) = (rows(&v.join(&name)), rows(&f.join(&name)));
        for (dir, key) in [(0, "read"), (1, "write")] {
            // fio may add a line at the end for the I/Os it drains after the deadline.
            let n = |x: &[Vec<u64>]| x.iter().filter(|r| r[2] == dir).count();
            assert!(n(&o).abs_diff(n(&t)) <= 1, "{name}: {o:?} vs {t:?}");
            let vals: Vec<u64> = o.iter().filter(|r| r[2] == dir).map(|r| r[1]).collect();
            let s = &job0[key][field];
            let (min, max) = (s["min_ns"].as_u64().unwrap(), s["max_ns"].as_u64().unwrap());
            assert_eq!(vals.iter().max(), Some(&max), "{name} {key}");
            assert!(vals.iter().all(|&x| x >= min), "{name} {key}");
        }
    }
}

/// Newer fio's `log_window_value=both` (fio 3.33 lacks it; fio's HOWTO gives the form):
/// each latency log line is `msec, mean, max, ddir, 0, 0`, the window's mean never above its
/// maximum, the largest maximum the job's, and every mean within the job's least and largest.
#[test]
fn log_window_value_both_gives_each_windows_mean_and_maximum() {
    let d = tmpdir();
    let job = d.path().join("b.fio");
    std::fs::write(
        &job,
        "[b]\nioengine=libaio\niodepth=4\nrw=randrw\nbs=4k\nsize=8m\nruntime=2\ntime_based\n\
         write_lat_log=l\nlog_avg_msec=500\nlog_window_value=both\n",
    )
    .unwrap();
    let ours = vb_json(d.path(), &job, &[]);
    for (kind, field) in [("lat", "lat_ns"), ("clat", "clat_ns"), ("slat", "slat_ns")] {
        let text = std::fs::read_to_string(d.path().join(format!("l_{kind}.1.log"))).unwrap();
        let rows: Vec<Vec<u64>> = text
            .lines()
            .map(|l| l.split(", ").map(|x| x.parse().unwrap()).collect())
            .collect();
        assert!(
            rows.len() >= 4 && rows.iter().all(|r| r.len() == 6),
            "{kind}: {text}"
        );
        for (dir, key) in [(0, "read"), (1, "write")] {
            let s = &ours["jobs"][0][key][field];
            let (min, max) = (s["min_ns"].as_u64().unwrap(), s["max_ns"].as_u64().unwrap());
            let mine: Vec<&Vec<u64>> = rows.iter().filter(|r| r[3] == dir).collect();
            assert!(mine.iter().all(|r| r[1] <= r[2]), "{kind} {key}: {mine:?}");
            assert!(
                mine.iter().all(|r| r[1] >= min && r[1] <= max),
                "{kind} {key}"
            );
            assert_eq!(mine.iter().map(|r| r[2]).max(), Some(max), "{kind} {key}");
        }
    }
}

#[test]
fn hipri_polls_as_fio_does_or_says_why_it_cannot() {
    let d = tmpdir();
    let strace = |prog: &str, args: &[&str]| -> (bool, String) {
        let log = d.path().join("strace.txt");
        let out = std::process::Command::new("strace")
            .current_dir(d.path())
            .args(["-f", "-e", "trace=preadv2", "-o"])
            .arg(&log)
            .arg(prog)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            std::fs::read_to_string(&log).unwrap_or_default(),
        )
    };
    // pvsync2: RWF_HIPRI on every read, as fio passes it (the kernel falls back to
    // interrupts on a disk without polled queues).
    let job = d.path().join("p.fio");
    std::fs::write(
        &job,
        "[p]\nioengine=pvsync2\nhipri=1\ndirect=1\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=50\n",
    )
    .unwrap();
    let j = job.to_str().unwrap();
    let hipri = |log: &str| log.lines().filter(|l| l.contains("RWF_HIPRI")).count();
    let (ok, theirs) = strace("fio", &[j]);
    assert!(ok && hipri(&theirs) == 50, "fio: {theirs}");
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let (ok, ours) = strace(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
    assert!(ok && hipri(&ours) == 50, "volbench: {ours}");
    // io_uring: polled completions need a disk with polled queues. Without them (zram, loop,
    // virtio here) every I/O fails in fio; volbench says so before laying anything out.
    std::fs::write(
        &job,
        "[u]\nioengine=io_uring\nhipri=1\ndirect=1\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=50\n",
    )
    .unwrap();
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(d.path()).unwrap().dev();
    let sys = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
    let sys = std::fs::canonicalize(sys).ok();
    let polls = sys.is_some_and(|s| {
        let disk = if s.join("partition").exists() {
            s.parent().unwrap().to_path_buf()
        } else {
            s
        };
        std::fs::read_to_string(disk.join("queue/io_poll")).is_ok_and(|v| v.trim() == "1")
    });
    let out = volbench()
        .current_dir(d.path())
        .args(["run", j, "-q", "--no-store"])
        .output()
        .unwrap();
    let laid_out = d.path().join("u.0.0").exists();
    let fio = std::process::Command::new("fio")
        .current_dir(d.path())
        .arg(&job)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if polls {
        assert!(fio.status.success() && out.status.success(), "{err}");
    } else {
        assert!(String::from_utf8_lossy(&fio.stderr).contains("Operation not supported"));
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.lines().count() == 1 && err.contains("hipri") && err.contains("io_poll"),
            "{err}"
        );
        assert!(!laid_out, "nothing laid out");
    }
    // Where hipri means nothing, one line says what to do.
    for (engine, extra, says) in [
        ("libaio", "direct=1", "io_uring and pvsync2"),
        ("io_uring", "direct=0", "add direct=1"),
    ] {
        std::fs::write(
            &job,
            format!("[x]\nioengine={engine}\nhipri=1\n{extra}\nsize=1m\n"),
        )
        .unwrap();
        let err = refusal(&job);
        assert!(err.contains(says) && err.contains("p.fio:3"), "{err}");
    }
}

#[test]
fn verify_backlog_reads_back_while_writing_as_fio() {
    let d = tmpdir();
    let job = d.path().join("b.fio");
    let j = job.to_str().unwrap();
    // Every written block is read back and counted as a read, as fio counts it; with
    // do_verify=0 nothing is.
    for extra in [
        "",
        "do_verify=0",
        "verify_backlog_batch=4",
        "rw=randwrite\nioengine=libaio\niodepth=8\ndirect=1",
    ] {
        std::fs::write(
            &job,
            format!("[b]\nrw=write\nbs=4k\nsize=1m\nverify=crc32c\nverify_backlog=16\n{extra}\n"),
        )
        .unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        std::fs::remove_file(d.path().join("b.0.0")).unwrap();
        let ours = vb_json(d.path(), &job, &[]);
        std::fs::remove_file(d.path().join("b.0.0")).unwrap();
        for dir in ["read", "write"] {
            let t = theirs["jobs"][0][dir]["total_ios"].as_u64().unwrap();
            let o = ours["group"][dir]["total_ios"].as_u64().unwrap_or(0);
            assert_eq!(o, t, "{extra}: {dir}");
        }
        assert!(ours["jobs"][0]["error"].is_null(), "{extra}: {ours}");
    }
    // The order of the calls: 16 writes, then 4 reads back and 4 writes in turn.
    std::fs::write(
        &job,
        "[b]\nrw=write\nbs=4k\nsize=256k\nverify=crc32c\nverify_backlog=16\nverify_backlog_batch=4\n",
    )
    .unwrap();
    let calls = |prog: &str, args: &[&str]| -> String {
        let log = d.path().join("st.txt");
        let ok = std::process::Command::new("strace")
            .current_dir(d.path())
            .args(["-f", "-e", "trace=pread64,pwrite64", "-o"])
            .arg(&log)
            .arg(prog)
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok);
        std::fs::remove_file(d.path().join("b.0.0")).unwrap();
        // One letter per call on the job's file, layout aside: the job's calls are the 4k ones.
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter(|l| l.contains(", 4096, ") && l.ends_with("= 4096"))
            .map(|l| if l.contains("pwrite64") { 'w' } else { 'r' })
            .collect()
    };
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let theirs = calls("fio", &[j]);
    let ours = calls(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
    assert_eq!(ours, theirs);
    assert!(
        ours.starts_with(&format!("{}rrrrwwww", "w".repeat(16))),
        "{ours}"
    );
    // A job that also reads runs too (tests/fio_parity.rs compares its counts with fio's).
}

#[test]
fn flow_weights_share_the_ios_as_fio() {
    let d = tmpdir();
    let job = d.path().join("f.fio");
    // Two jobs of one flow at 3:1 and a third in a flow of its own, on the null engine (no
    // device to share, so only the flow sets the ratio).
    std::fs::write(
        &job,
        "[global]\nioengine=null\nsize=1g\nbs=4k\nruntime=2\ntime_based\n\
         [a]\nflow_id=1\nflow=3\n[b]\nflow_id=1\nflow=1\n[c]\nflow_id=2\nflow=1\n",
    )
    .unwrap();
    let ios = |v: &Value| -> Vec<f64> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["read"]["total_ios"].as_f64().unwrap())
            .collect()
    };
    let theirs = ios(&fio_on(d.path(), &job, &[]));
    let out = volbench()
        .args([
            "run",
            job.to_str().unwrap(),
            "-q",
            "--no-store",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let ours = ios(&serde_json::from_slice(&out.stdout).unwrap());
    // volbench's job takes its I/Os 32 at a time and never runs ahead of its share by more
    // than that, so with s I/Os for the lighter job the ratio is within 128 / (s - 32) of 3:
    // at 2,000 or more, within 0.065 (0.09 allowed). A debug build with the other tests of
    // this file beside it on 2 cores did 4,096 in 1 s once (it failed the 5,000 asked before
    // for no fault of the flow): 2 s and the bound the arithmetic needs leave room for that.
    // The reference is the weights, not fio's figures: fio gives 3:1 on an idle machine, but
    // its balance is erratic under load (3.35 in one CI run, 844 against 25,799 in another),
    // so fio is only required to run the same file.
    assert!(
        theirs.len() == 3 && theirs.iter().all(|&n| n > 0.0),
        "fio: {theirs:?}"
    );
    assert!(ours[1] >= 2000.0, "volbench: {ours:?}");
    assert!((ours[0] / ours[1] - 3.0).abs() < 0.09, "volbench: {ours:?}");
    // A weight out of fio's range is refused where it is written.
    std::fs::write(&job, "[a]\nioengine=null\nflow=1001\n").unwrap();
    let err = refusal(&job);
    assert!(
        err.contains("f.fio:3") && err.contains("0 to 1000"),
        "{err}"
    );
}

#[test]
fn serialize_overlap_keeps_overlapping_ios_out_of_flight_as_fio() {
    let d = tmpdir();
    let job = d.path().join("s.fio");
    // 16 blocks drawn with replacement at QD16: without serializing, the queue stays full of
    // I/Os on the same few blocks; with it, one that would overlap waits, so the depth almost
    // never reaches 16 (that needs all 16 blocks in flight at once).
    let depth16 = |v: &Value| v["jobs"][0]["iodepth_level"]["16"].as_f64().unwrap();
    for so in [0, 1] {
        std::fs::write(
            &job,
            format!(
                "[s]\nrw=randwrite\nnorandommap\nbs=4k\nsize=64k\niodepth=16\nioengine=libaio\n\
                 direct=1\nruntime=1\ntime_based\nserialize_overlap={so}\n"
            ),
        )
        .unwrap();
        let theirs = fio_on(d.path(), &job, &[]);
        let out = volbench()
            .current_dir(d.path())
            .args([
                "run",
                job.to_str().unwrap(),
                "-q",
                "--no-store",
                "--output-format=json",
            ])
            .output()
            .unwrap();
        let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
        for (who, v) in [("fio", &theirs), ("volbench", &ours)] {
            assert!(
                v["jobs"][0]["write"]["total_ios"].as_u64().unwrap() > 1000,
                "{who}"
            );
            // Serialized, a depth of 16 needs all 16 blocks in flight at once: rare, not
            // impossible over ~50,000 submissions (0.002 % was seen once). Unserialized, 8-60 %
            // of submissions see it. Bounds chance cannot cross: under 0.5 %, over 2 %.
            if so == 1 {
                assert!(
                    depth16(v) < 0.5,
                    "{who} serialized: {}",
                    v["jobs"][0]["iodepth_level"]
                );
            } else {
                assert!(depth16(v) > 2.0, "{who}: {}", v["jobs"][0]["iodepth_level"]);
            }
        }
    }
}

#[test]
fn random_distributions_favour_the_blocks_fio_favours() {
    let d = tmpdir();
    let job = d.path().join("z.fio");
    // The share of 20,000 reads that land on the hottest 1 % and 10 % of 4,096 blocks, from
    // the offsets each tool passes to pread (strace). Chance moves a share by about 0.004.
    let shares = |prog: &str, args: &[&str]| -> (f64, f64) {
        let log = d.path().join("st.txt");
        let ok = std::process::Command::new("strace")
            .current_dir(d.path())
            .args(["-f", "-e", "trace=pread64", "-o"])
            .arg(&log)
            .arg(prog)
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "{prog}");
        let mut hits = vec![0u32; 4096];
        for l in std::fs::read_to_string(&log).unwrap().lines() {
            if let Some(off) = l
                .strip_suffix(") = 4096")
                .and_then(|x| x.rsplit(", ").next())
                .and_then(|o| o.parse::<u64>().ok())
            {
                hits[(off / 4096) as usize] += 1;
            }
        }
        let n: u32 = hits.iter().sum();
        assert!(n >= 20_000, "{prog}: {n} reads seen");
        hits.sort_unstable_by(|a, b| b.cmp(a));
        let top = |k: usize| hits[..k].iter().sum::<u32>() as f64 / n as f64;
        (top(41), top(410))
    };
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    for dist in [
        "zipf:1.2",
        "pareto:0.8",
        "normal:5",
        "zoned:60/10:30/20:10/70",
    ] {
        std::fs::write(
            &job,
            format!(
                "[z]\nfilename=zf\nrw=randread\nbs=4k\nsize=16m\nio_size=1g\nnumber_ios=20000\n\
                 random_distribution={dist}\n"
            ),
        )
        .unwrap();
        let j = job.to_str().unwrap();
        let theirs = shares("fio", &[j]);
        let ours = shares(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
        assert!(
            (ours.0 - theirs.0).abs() < 0.04 && (ours.1 - theirs.1).abs() < 0.04,
            "{dist}: volbench {ours:?} vs fio {theirs:?}"
        );
    }
    // What fio does not accept is refused where it is written.
    std::fs::write(
        &job,
        "[z]\nrw=randread\nsize=1m\nrandom_distribution=zipf:1\n",
    )
    .unwrap();
    let err = refusal(&job);
    assert!(err.contains("z.fio:4") && err.contains("not 1"), "{err}");
}

#[test]
fn a_random_jobs_modifier_runs_n_ios_from_each_random_start_as_fio() {
    let d = tmpdir();
    let job = d.path().join("r.fio");
    // The offsets each tool passes to pread: how many follow the one before, or repeat it.
    let pattern = |prog: &str, args: &[&str]| -> (f64, f64) {
        let log = d.path().join("st.txt");
        std::process::Command::new("strace")
            .current_dir(d.path())
            .args(["-f", "-e", "trace=pread64", "-o"])
            .arg(&log)
            .arg(prog)
            .args(args)
            .output()
            .unwrap();
        let offs: Vec<u64> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter_map(|l| {
                l.strip_suffix(") = 4096")?
                    .rsplit(", ")
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        let offs = &offs[offs.len().saturating_sub(4000)..];
        assert_eq!(offs.len(), 4000, "{prog}");
        let pairs = |f: &dyn Fn(u64, u64) -> bool| {
            offs.windows(2).filter(|w| f(w[0], w[1])).count() as f64 / 4000.0
        };
        (pairs(&|a, b| b == a + 4096), pairs(&|a, b| b == a))
    };
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    // 8 I/Os per random start: 7 in 8 follow the last (or, identical, repeat it).
    for (extra, want) in [
        ("", (0.875, 0.0)),
        ("rw_sequencer=identical\n", (0.0, 0.875)),
    ] {
        std::fs::write(
            &job,
            format!("[r]\nfilename=rr\nrw=randread:8\nbs=4k\nsize=16m\nio_size=1g\nnumber_ios=4000\n{extra}"),
        )
        .unwrap();
        let j = job.to_str().unwrap();
        let theirs = pattern("fio", &[j]);
        let ours = pattern(bin.to_str().unwrap(), &["run", j, "-q", "--no-store"]);
        for (who, got) in [("fio", theirs), ("volbench", ours)] {
            assert!(
                (got.0 - want.0).abs() < 0.01 && (got.1 - want.1).abs() < 0.01,
                "{extra}{who}: {got:?}"
            );
        }
    }
}

#[test]
fn prio_and_prioclass_set_each_jobs_io_priority_as_fio() {
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
fn thinktime_pauses_after_every_n_ios_as_fio() {
    let d = tmpdir();
    let job = d.path().join("t.fio");
    let iops = |v: &Value| v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    // 4 I/Os, then 1 ms of thought: never more than 4,000 IOPS (a think is at least its
    // time), and well above a third of that (an I/O on the null engine or a page-cache read
    // takes microseconds; a loaded CI machine wakes a 1 ms sleep late, which read 1,684 once
    // where an idle one reads 2,900). Counted at completion at depth 1, and at issue at
    // depth 16.
    for extra in [
        "ioengine=null",
        "ioengine=psync",
        "ioengine=libaio\niodepth=16\ndirect=1\nthinktime_blocks_type=issue",
    ] {
        std::fs::write(
            &job,
            format!(
                "[t]\nfilename=tf\nrw=randread\nbs=4k\nsize=8m\nruntime=1\ntime_based\n\
                 thinktime=1000\nthinktime_blocks=4\n{extra}\n"
            ),
        )
        .unwrap();
        let theirs = iops(&fio_on(d.path(), &job, &[]));
        let out = volbench()
            .current_dir(d.path())
            .args([
                "run",
                job.to_str().unwrap(),
                "-q",
                "--no-store",
                "--output-format=json",
            ])
            .output()
            .unwrap();
        let ours = iops(&serde_json::from_slice(&out.stdout).unwrap());
        for (who, v) in [("fio", theirs), ("volbench", ours)] {
            assert!((1400.0..=4040.0).contains(&v), "{extra}: {who} {v:.0} IOPS");
        }
    }
    // The spin part is CPU time: 1 ms of 1 ms spun is a busy thread.
    std::fs::write(
        &job,
        "[t]\nioengine=null\nfilename=tf\nsize=8m\nruntime=1\ntime_based\nthinktime=1000\n\
         thinktime_spin=1000\n",
    )
    .unwrap();
    let v = vb_json(d.path(), &job, &[]);
    let cpu = v["jobs"][0]["cpu"]["usr_percent"].as_f64().unwrap()
        + v["jobs"][0]["cpu"]["sys_percent"].as_f64().unwrap();
    assert!(cpu > 60.0, "spinning shows as CPU: {cpu}");
    // Counted at completion with several in flight, the count depends on when each tool
    // reaps: refused, naming the forms that match fio.
    std::fs::write(
        &job,
        "[t]\nioengine=libaio\niodepth=16\nsize=1m\nthinktime=1000\nthinktime_blocks=8\n",
    )
    .unwrap();
    let err = refusal(&job);
    assert!(err.contains("thinktime_blocks_type=issue"), "{err}");
}

/// Options that change only fio's buffers (`mem`, `iomem`, `iomem_align`, `hugepage-size`) or
/// act only on an engine volbench does not have (`write_barrier`: libpmem's) run, each named
/// in the note.
#[test]
fn buffer_and_barrier_options_run_with_a_note() {
    let d = tmpdir();
    let job = d.path().join("mem.fio");
    std::fs::write(
        &job,
        format!(
            "[m]\nfilename={}\nsize=1m\nrw=write\nioengine=null\niomem=mmaphuge\nmem_align=4k\nhugepage-size=2m\nwrite_barrier=8\n",
            d.path().join("m.dat").display()
        ),
    )
    .unwrap();
    let (ok, err) = parse_only(&job);
    assert!(ok, "{err}");
    for name in ["iomem", "iomem_align", "hugepage-size", "write_barrier"] {
        assert!(err.contains(name), "{name} not named: {err}");
    }
}
