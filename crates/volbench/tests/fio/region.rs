//! How much of its files a job covers (sizes, io_size, number_ios, loops, offsets and their
//! increments, zones), against fio on the same job.

use crate::common;
use crate::common::*;
use crate::shared::*;
use std::path::Path;

/// The offsets of a job's 64 KiB preads under strace, in order.
fn pread_offsets(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.contains("pread64(") && l.trim_end().ends_with("= 65536"))
        .filter_map(|l| Some(len_off(l)?.1))
        .collect()
}

/// fio's zonemode=strided: zonesize bytes in each zone of zonerange, then zonerange +
/// zoneskip on, wrapping past the end. Sequential jobs read the same offsets in the same order
/// as fio (zones apart, a zonesize over zonerange going round a zone twice, a zone larger than
/// its I/O); a random one reads the same blocks, zone by zone in the same order. A zonesize
/// without zonemode=strided is refused by both, as fio 3.33's zonemode defaults to none.
#[test]
fn strided_zones_read_fios_offsets() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    let d = tmpdir();
    let file = d.path().join("z.dat");
    fill_random(&file, 4 << 20);
    let f = format!("--filename={}", file.display());
    let cases: [&[&str]; 4] = [
        &[
            "--rw=read",
            "--zonesize=128k",
            "--zonerange=256k",
            "--zoneskip=768k",
        ],
        &["--rw=read", "--zonesize=512k", "--zonerange=256k"],
        &["--rw=read", "--zonesize=256k", "--zonerange=1m"],
        &["--rw=randread", "--zonesize=256k", "--zoneskip=768k"],
    ];
    let opts = ["-e", "trace=pread64"];
    for case in cases {
        let mut job = vec![
            "--name=t",
            &f,
            "--size=4m",
            "--bs=64k",
            "--zonemode=strided",
        ];
        job.extend(case);
        let mut seen = Vec::new();
        for tool in Tool::BOTH {
            let (log, _) = tool.strace(d.path(), &opts, &job, false);
            let offs = pread_offsets(&log);
            assert_eq!(offs.len(), 64, "{tool} {case:?}");
            seen.push(offs);
        }
        if case[0] == "--rw=randread" {
            let zones = |o: &[u64]| o.iter().map(|x| x >> 20).collect::<Vec<_>>();
            assert_eq!(zones(&seen[0]), zones(&seen[1]), "{case:?}: zone by zone");
            for s in &mut seen {
                s.sort();
            }
        }
        assert_eq!(seen[0], seen[1], "{case:?}");
    }
    let bare = ["--name=t", &f, "--size=4m", "--zonesize=128k", "--rw=read"];
    for tool in Tool::BOTH {
        let (ok, out, _) = tool.outcome(&bare);
        assert!(
            !ok || out.contains("not compatible"),
            "{tool}: zonesize alone"
        );
    }
}

#[test]
fn number_ios_io_size_and_loops_bound_the_work() {
    let _disk = shared_disk();
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
fn filename_lists_offset_increment_and_size_percent() {
    let _disk = shared_disk();
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
fn offset_percent_starts_at_that_share_of_the_file_as_fio() {
    let _disk = shared_disk();
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
fn filesize_sizes_each_file_and_size_is_the_io_to_do() {
    let _disk = shared_disk();
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
fn a_file_written_then_read_back_and_jobs_laid_out_by_offset_increment_agree_with_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // fio's t0029: a write job, then a verifying read job with loops=2 on the file it wrote.
    // fio's own test asserts 8 KiB read (fio 3.37 and later); Debian's fio 3.33 reads 4.
    let t0029 = "[global]\nfilename=t0029file\nsize=4k\nverify=md5\n\
                 [write]\nrw=write\ndo_verify=0\n[read]\nstonewall=1\nrw=read\nloops=2\ndo_verify=1\n";
    let [fio, ours] = both_fresh(d.path(), t0029, "t0029file");
    assert_eq!(ours.0[0], ("write".into(), 0, 4, 0));
    assert_eq!(ours.0[1], ("read".into(), 8, 0, 0));
    assert!(fio.0[1].1 == 4 || fio.0[1].1 == 8, "{fio:?}");
    // Random writes, verified random reads of them, then a verified rewrite: every job runs,
    // none fails its verify, and each writes what fio writes.
    let wr = "[global]\nfilename=wr\nsize=16m\nverify=crc32c\n[w]\nrw=randwrite\ndo_verify=0\n\
              [r]\nstonewall\nrw=randread\n[v]\nstonewall\nrw=write\nbs=64k\n";
    let [fio, ours] = both_fresh(d.path(), wr, "wr");
    assert_eq!(ours, fio);
    // Four clones 1 MiB and 8 MiB apart over a new file: fio lays out the file the last
    // clone reaches (35 MiB, 56 MiB), and so does volbench; each clone does its 32 MiB.
    for inc in ["1m", "8m"] {
        let text = format!(
            "[j]\nfilename=fiotest\nrw=read\nbs=64k\nsize=32m\nnumjobs=4\noffset_increment={inc}\n"
        );
        let [fio, ours] = both_fresh(d.path(), &text, "fiotest");
        assert_eq!(ours, fio, "offset_increment={inc}");
    }
}

/// fio rounds a percentage offset UP to the smallest block (or offset_align): on a file of
/// 10,000,000 bytes, offset=33% starts at 3,301,376 (806 blocks of 4k in), and with
/// offset_align=64k at 3,342,336; each tool then writes the whole blocks left to the end.
#[test]
fn a_percentage_offset_is_rounded_up_as_fio_rounds_it() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let f = d.path().join("odd");
    for (align, start) in [("", 3_301_376u64), ("offset_align=64k\n", 3_342_336)] {
        let text = format!("[o]\nfilename=odd\nrw=write\nbs=4k\noffset=33%\n{align}");
        let mut got = Vec::new();
        for tool in Tool::BOTH {
            std::fs::write(&f, vec![7u8; 10_000_000]).unwrap();
            let job = d.path().join("o.fio");
            std::fs::write(&job, &text).unwrap();
            let v = match tool {
                Tool::Fio => fio_on(d.path(), &job, &[]),
                _ => vb_fio_json(d.path(), &job),
            };
            got.push(u(&v, "/jobs/0/write/io_bytes"));
        }
        assert_eq!(got[0], (10_000_000 - start) / 4096 * 4096, "fio, {align}");
        assert_eq!(got[1], got[0], "volbench, {align}");
    }
}
