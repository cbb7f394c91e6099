//! Verification (hashes, patterns, backlog, saved state, loops, trims read back as zeros),
//! against fio on the same job, a flipped byte failing both.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Std;

/// One verify=pattern job on `file` by `tool` (`verify_only` to check only): its exit status
/// and stderr.
fn pattern_job(tool: Tool, file: &Path, only: bool) -> (bool, String) {
    let args = [
        "--name=t".to_string(),
        format!("--filename={}", file.display()),
        "--size=4m".into(),
        "--bs=8k".into(),
        "--rw=randwrite".into(),
        "--direct=1".into(),
        "--ioengine=psync".into(),
        "--verify=pattern".into(),
        "--verify_pattern=0xAA".into(),
        format!("--verify_only={}", u8::from(only)),
        // fio would leave its verify state file in the working directory.
        "--verify_state_save=0".into(),
    ];
    let out = tool.run(&args, &[]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// verify=pattern writes nothing but the pattern, so each tool's verify_only checks the
/// other's file; a byte changed on disk fails both, and volbench names where.
#[test]
fn verify_pattern_files_check_across_tools_and_a_flipped_byte_fails_both() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    for writer in Tool::BOTH {
        for checker in Tool::BOTH {
            let file = d.path().join(format!("{writer}-{checker}.dat"));
            let (ok, err) = pattern_job(writer, &file, false);
            assert!(ok, "{writer} writing: {err}");
            let (ok, err) = pattern_job(checker, &file, true);
            assert!(ok, "{checker} checking {writer}'s file: {err}");
        }
    }
    let file = d.path().join("volbench-volbench.dat");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[(1 << 20) + 100] = 0x55;
    std::fs::write(&file, bytes).unwrap();
    for checker in Tool::BOTH {
        let (ok, err) = pattern_job(checker, &file, true);
        assert!(!ok, "{checker} missed a changed byte");
        if checker == Tool::Volbench {
            assert!(err.contains("offset 1048676"), "{err}");
        }
    }
}

/// fio's verify_state_save/verify_state_load: a verifying random-write job stopped after 500
/// of its 2,048 blocks (number_ios) writes down what it did; the verify_only run of the same
/// job with verify_state_load checks those 500 and passes, in both tools (each reading its
/// own state file), where a verify_only without the state reads blocks never written and
/// fails. The state file is fio's name in the working directory.
#[test]
fn verify_state_limits_a_later_verify_to_what_was_written() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let dir = d.path();
    let base = [
        "--name=t",
        "--filename=v.dat",
        "--size=8m",
        "--bs=4k",
        "--rw=randwrite",
        "--verify=crc32c",
        "--ioengine=libaio",
        "--iodepth=8",
    ];
    for tool in Tool::BOTH {
        fill_random(&dir.join("v.dat"), 8 << 20);
        let _ = std::fs::remove_file(dir.join("local-t-0-verify.state"));
        let run = |extra: &[&str]| {
            let json = tool.json_flag();
            let out = tool
                .command_in(dir)
                .args(base)
                .args(extra)
                .arg(json)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            (
                out.status.success() && !text.contains("err= 84"),
                text,
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (ok, _, err) = run(&["--number_ios=500", "--do_verify=0", "--verify_state_save=1"]);
        assert!(ok, "{tool}: {err}");
        assert!(
            dir.join("local-t-0-verify.state").is_file(),
            "{tool}: the state file"
        );
        let (ok, out, err) = run(&["--verify_only=1", "--verify_state_load=1"]);
        assert!(ok, "{tool}: the verify of what was written: {err}");
        assert_eq!(u(&first_job(&out), "/read/total_ios"), 500, "{tool}");
        let (ok, out, _) = run(&["--verify_only=1"]);
        let failed = !ok || first_job(&out)["error"].as_u64().unwrap_or(0) != 0;
        assert!(failed, "{tool}: a whole verify reads blocks never written");
    }
}

/// fio 3.42's `verify_policy=fsynced` (fio 3.33 lacks it: fio's HOWTO is the reference): a
/// sequential write job with fsync every 100 writes, stopped after 250, saves a state that
/// covers the 200 an fsync made durable. The 50 after the last fsync are then lost, as a power
/// cut may lose them (zeroed here): the verify of the fsynced state checks 200 blocks and
/// passes; a state of every completed write checks 250 and fails on the lost ones. Without
/// any fsync the fsynced state covers nothing.
#[test]
fn verify_policy_fsynced_covers_only_what_an_fsync_made_durable() {
    let _disk = shared_disk();
    let d = tmpdir();
    let dir = d.path();
    let base = [
        "--name=t",
        "--filename=v.dat",
        "--size=4m",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--ioengine=psync",
        "--output-format=fio-json",
    ];
    let run = |extra: &[&str]| -> (bool, Value) {
        let out = Tool::Volbench
            .command_in(dir)
            .args(base)
            .args(extra)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let ok = out.status.success() && v["jobs"][0]["error"].as_u64() == Some(0);
        (ok, v)
    };
    for (policy, fsync, reads, passes) in [
        ("fsynced", "100", 200, true),
        ("completed", "100", 250, false),
        ("fsynced", "0", 0, true),
    ] {
        fill_random(&dir.join("v.dat"), 4 << 20);
        let (ok, _) = run(&[
            "--number_ios=250",
            "--do_verify=0",
            "--verify_state_save=1",
            &format!("--fsync={fsync}"),
            &format!("--verify_policy={policy}"),
        ]);
        assert!(ok, "{policy} fsync={fsync}: the write job");
        // Writes 200 to 249 (after the last fsync) are lost.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("v.dat"))
            .unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, &vec![0u8; 50 * 4096], 200 * 4096).unwrap();
        let (ok, v) = run(&["--verify_only=1", "--verify_state_load=1"]);
        assert_eq!(ok, passes, "{policy} fsync={fsync}: {v}");
        if passes {
            assert_eq!(
                u(&v, "/jobs/0/read/total_ios"),
                reads,
                "{policy} fsync={fsync}"
            );
        }
    }
}

/// fio's verify-after-trim (trim_percentage, trim_backlog, trim_verify_zero) on zram: about
/// half the written blocks are discarded again, the closing verify reads them as zeros and
/// the rest as written, and the device holds exactly the writes less the trims (mm_stat);
/// with trim_verify_zero=0 the trimmed blocks are left out of the verify. fio 3.33 cannot be
/// the reference: on a write job it trims nothing and aborts (its fio_ro_check assertion:
/// a trim in a job that is not a trim job).
#[test]
fn trim_percentage_discards_written_blocks_and_verifies_them_as_zeros() {
    let _disk = shared_disk();
    require_root!();
    let z = Zram::new("16M");
    let dev = format!("--filename={}", z.p());
    for zero in ["1", "0"] {
        fill_random(&z.path, 4 << 20);
        let tz = format!("--trim_verify_zero={zero}");
        let j = first_job(
            &serde_json::to_string(&Tool::Volbench.fio_json(&[
                "--name=t",
                &dev,
                "--size=4m",
                "--bs=4k",
                "--rw=randwrite",
                "--direct=1",
                "--verify=crc32c",
                "--trim_percentage=50",
                "--trim_backlog=16",
                &tz,
            ]))
            .unwrap(),
        );
        let trims = u(&j, "/trim/total_ios");
        assert!(
            (400..=600).contains(&trims),
            "about half of 1,024 writes trimmed: {trims}"
        );
        assert_eq!(u(&j, "/write/total_ios"), 1024);
        assert_eq!(
            zram_stored(&z),
            (1024 - trims) * 4096,
            "the device holds the writes less the trims"
        );
        let reads = if zero == "1" { 1024 } else { 1024 - trims };
        assert_eq!(
            u(&j, "/read/total_ios"),
            reads,
            "verified (trim_verify_zero={zero})"
        );
        assert_eq!(u(&j, "/error"), 0);
    }
}

/// A time-based verifying write job of one block size reads back what it wrote, as fio's
/// does (fio reads back each pass before the next, inside the runtime; volbench reads each
/// block written once, after it). Over a file of 256 blocks written many times over, each of
/// the 256 is checked; at 100 writes a second for a second (fio reads none back here: its
/// one pass used the runtime), exactly the (at most 100) written, never the unwritten blocks,
/// which hold random bytes and would fail the check.
#[test]
fn a_time_based_verify_reads_back_the_blocks_it_wrote() {
    let _disk = shared_disk();
    require_root!();
    require_tool!("fio");
    // On a device of its own: the shared disk stalls for 250 ms while the suite writes, and
    // a 1 s job then writes too few blocks to make a pass (fresh-clone runs failed so).
    let fs = Ext4::new("64M");
    let d = &fs.dir;
    let file = d.path().join("tv.dat");
    let f = format!("--filename={}", file.display());
    let job = |extra: &str| -> Vec<String> {
        [
            "--name=tv",
            &f,
            "--size=1m",
            "--bs=4k",
            "--rw=randwrite",
            "--verify=crc32c",
            "--ioengine=libaio",
            "--iodepth=4",
            "--direct=1",
            "--time_based",
            "--runtime=1",
            extra,
        ]
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .collect()
    };
    let counts = |v: &Value| {
        (
            u(v, "/jobs/0/write/total_ios"),
            u(v, "/jobs/0/read/total_ios"),
        )
    };
    fill_random(&file, 1 << 20);
    // In the test's directory: fio writes its verify state where it runs.
    let fio = fio_json(Std::new("fio").current_dir(d.path()).args(job("")));
    let (w, r) = counts(&fio);
    assert!(
        w > 512 && r >= 256 && fio["jobs"][0]["error"] == 0,
        "fio: {w} writes, {r} reads"
    );
    let ours = Tool::Volbench.fio_json(&job("").iter().map(String::as_str).collect::<Vec<_>>());
    let (w, r) = counts(&ours);
    assert!(w > 512 && ours["jobs"][0]["error"] == 0, "{ours}");
    assert_eq!(r, 256, "each block written, read back once");
    fill_random(&file, 1 << 20);
    let rated = job("--rate_iops=100");
    let ours = Tool::Volbench.fio_json(&rated.iter().map(String::as_str).collect::<Vec<_>>());
    let (w, r) = counts(&ours);
    // The cap is never exceeded; below it, a stall costs writes (a loaded host's run wrote
    // 85 around a 242 ms write), so the floor only says the job ran.
    assert!(
        (20..=110).contains(&w) && ours["jobs"][0]["error"] == 0,
        "{ours}"
    );
    // The written blocks and no others: those counted, and those still in flight at the
    // window's end (written, so checked, but counted after it as fio counts them: at most
    // the queue of 4; a loaded host's run read back 88 for 85 counted).
    assert!(
        (w..=w + 4).contains(&r),
        "{r} read back for {w} writes counted"
    );
}

#[test]
fn verify_hashes_write_check_and_catch_corruption() {
    let _disk = shared_disk();
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
fn verify_backlog_reads_back_while_writing_as_fio() {
    let _disk = shared_disk();
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
    // A job that also reads runs too (this module compares its counts with fio's).
}

/// fio verifies after each loop the writes of that loop, inside the job's runtime: a 2-loop
/// verified write job whose runtime ends during the first read-back writes one loop and reads
/// part of it back, in both tools (volbench wrote both loops, then read both back whole after
/// the runtime: 1.6 GiB written and 2 GiB read where fio wrote 1 GiB and read 18 MiB).
#[test]
fn loops_with_verify_read_each_loop_back_inside_the_runtime_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("l.fio");
    let text =
        "[l]\nfilename=lf\nsize=256m\nbs=4k\nrw=randwrite\nloops=2\nverify=crc32c\nruntime=2\n";
    std::fs::write(&job, text).unwrap();
    for tool in Tool::BOTH {
        let _ = std::fs::remove_file(d.path().join("lf"));
        let v = match tool {
            Tool::Fio => fio_on(d.path(), &job, &[]),
            _ => vb_fio_json(d.path(), &job),
        };
        let (w, r) = (
            u(&v, "/jobs/0/write/io_bytes"),
            u(&v, "/jobs/0/read/io_bytes"),
        );
        assert_eq!(w, 256 << 20, "{tool}: one loop written, read {r}");
        assert!(r > 0 && r < 256 << 20, "{tool}: read back {r} of the loop");
    }
}

/// (io_kbytes, total_ios, runtime ms) of `dir` and the job's runtime, from fio-shaped JSON.
fn fio_dir_of(v: &Value, dir: &str) -> (u64, u64, u64, u64) {
    let j = &v["jobs"][0];
    let d = &j[dir];
    let n = |k: &str| d[k].as_u64().unwrap();
    (
        n("io_kbytes"),
        n("total_ios"),
        n("runtime"),
        j["job_runtime"].as_u64().unwrap(),
    )
}

#[test]
fn verify_reads_count_as_reads_over_their_own_time_as_in_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // fio's t0025: a verified 128 KiB write job reads its 128 KiB back, and fio counts them.
    let t25 = "[job]\nfilename=t0025file\nsize=128k\nreadwrite=write\ndo_verify=1\nverify=md5\n";
    // A verify backlog on a sequential write job: fio's writes end where the read-back of
    // the rest starts and its reads are timed over that read-back alone.
    let backlog = "[job]\nfilename=vb\nsize=16m\nrw=write\nbs=4k\nverify=md5\nverify_backlog=32\n";
    for (text, file) in [(t25, "t0025file"), (backlog, "vb")] {
        let job = d.path().join("v.fio");
        std::fs::write(&job, text).unwrap();
        let _ = std::fs::remove_file(d.path().join(file));
        let theirs = fio_on(d.path(), &job, &[]);
        let _ = std::fs::remove_file(d.path().join(file));
        let ours = ok_json(volbench().current_dir(d.path()).args([
            "run",
            "v.fio",
            "--output-format=json",
            "-q",
            "--no-store",
        ]));
        let (f, o) = (fio_dir_of(&theirs, "read"), fio_dir_of(&ours, "read"));
        assert_eq!(
            (o.0, o.1),
            (f.0, f.1),
            "reads of {file}: ours {o:?}, fio {f:?}"
        );
        let (fw, ow) = (fio_dir_of(&theirs, "write"), fio_dir_of(&ours, "write"));
        assert_eq!((ow.0, ow.1), (fw.0, fw.1), "writes of {file}");
        if file == "vb" {
            // Each direction over its own part of the run, in both tools: the reads over the
            // read-back only, never the whole run (thousands of writes take more than the
            // millisecond of rounding), the writes at most the run. In volbench the two parts
            // add up to the run, ms rounding aside. (Dividing both by the run, as before,
            // gives reads the whole run.)
            for (who, r, w) in [(Tool::Fio, f, fw), (Tool::Volbench, o, ow)] {
                assert!(r.2 < w.3 && w.2 <= w.3, "{who}: read {r:?} write {w:?}");
            }
            assert!(o.2 + ow.2 <= ow.3 + 2, "read {o:?} write {ow:?}");
        }
    }
}

/// (error, read I/Os, read bytes, write I/Os, write bytes) of the one job in fio-shaped JSON.
fn rw_counts(v: &Value) -> (u64, u64, u64, u64, u64) {
    let j = &v["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
    (
        j["error"].as_u64().unwrap(),
        n("read", "total_ios"),
        n("read", "io_bytes"),
        n("write", "total_ios"),
        n("write", "io_bytes"),
    )
}

#[test]
fn verify_reads_back_blocks_of_any_size_and_mixed_jobs_as_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // Each written block is read back whole and checked, 512-byte ones too: as many reads
    // as writes, the same bytes. A job that also reads checks only what it wrote (fio
    // checks a mixed job's own reads only when it reads back), so its reads are its own
    // plus one per write: with one size, the size's 1,024 blocks in both tools.
    let split = "bssplit=512/20:4k/40:64k/40";
    for (rw, extra) in [
        ("randwrite", split),
        ("write", split),
        ("randrw", split),
        ("randrw", "bs=4k"),
        ("randrw", "bs=4k\nverify_backlog=16"),
    ] {
        let text = format!("[j]\nfilename=rv\nsize=4m\nverify=crc32c\nrw={rw}\n{extra}\n");
        let job = d.path().join("rv.fio");
        std::fs::write(&job, &text).unwrap();
        let _ = std::fs::remove_file(d.path().join("rv"));
        let theirs = rw_counts(&fio_on(d.path(), &job, &[]));
        let _ = std::fs::remove_file(d.path().join("rv"));
        let ours = rw_counts(&ok_json(volbench().current_dir(d.path()).args([
            "run",
            "rv.fio",
            "--output-format=json",
            "-q",
            "--no-store",
        ])));
        for (who, (err, r, rb, w, wb)) in [(Tool::Fio, theirs), (Tool::Volbench, ours)] {
            assert_eq!(err, 0, "{who} {rw} {extra}");
            if rw.ends_with("write") {
                assert_eq!((r, rb, wb), (w, wb, 4 << 20), "{who} {rw}");
            } else if extra.starts_with("bs=") {
                assert_eq!(r, 1024, "{who} {rw} {extra}");
            } else {
                assert!(r > w, "{who} {rw}: {r} reads, {w} writes");
            }
        }
    }
    // With a backlog in a job that also reads, fio times the writes until the read-back and
    // the reads over the whole run; so does volbench (its native report, in ns).
    let job = d.path().join("rv.fio");
    let text = "[j]\nfilename=rv\nsize=16m\nverify=crc32c\nrw=randrw\nbs=4k\nverify_backlog=16\n";
    std::fs::write(&job, text).unwrap();
    let theirs = fio_on(d.path(), &job, &[]);
    let (fr, fw) = (fio_dir_of(&theirs, "read"), fio_dir_of(&theirs, "write"));
    assert!(
        fr.2 + 1 >= fr.3 && fw.2 <= fr.2,
        "fio: read {fr:?} write {fw:?}"
    );
    let ours = vb_json(d.path(), &job, &[]);
    let j = &ours["jobs"][0];
    let w = j["write"]["runtime_ns"]
        .as_u64()
        .expect("the writes' own time");
    assert!(
        j["read"]["runtime_ns"].is_null(),
        "reads over the whole run"
    );
    assert!(w < j["runtime_ns"].as_u64().unwrap());
}

/// fio verifies after every loop of a write job (each loop's blocks read back), and with
/// experimental_verify counts its one closing verify as one of the loops (loops=3 writes two
/// passes): the bytes each tool writes and reads back are fio's in every case (fio's t0026).
#[test]
fn loops_with_verify_write_and_read_back_as_fio_counts_them() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let file = d.path().join("f");
    let job = d.path().join("v.fio");
    for (exp, loops) in [(0, 1), (0, 3), (1, 1), (1, 2), (1, 3)] {
        std::fs::write(
            &job,
            format!(
                "[j]\nfilename={}\nsize=1m\nrw=randwrite\nloops={loops}\ndo_verify=1\nverify=md5\nexperimental_verify={exp}\n",
                file.display()
            ),
        )
        .unwrap();
        let _ = std::fs::remove_file(&file);
        let theirs = fio_on(d.path(), &job, &[]);
        let _ = std::fs::remove_file(&file);
        let ours = vb_fio_json(d.path(), &job);
        for dir in ["write", "read"] {
            let ptr = format!("/jobs/0/{dir}/io_bytes");
            assert_eq!(
                u(&ours, &ptr),
                u(&theirs, &ptr),
                "experimental_verify={exp} loops={loops}: {dir}"
            );
        }
    }
}
