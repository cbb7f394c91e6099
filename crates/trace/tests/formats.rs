//! Every format written and read back gives the same I/Os, to the format's own precision;
//! hostile input is one error, never a panic.

use proptest::prelude::*;
use std::io::Write;
use trace::{Header, Io, IologWriter, Op, TraceWriter};

fn ios() -> impl Strategy<Value = Vec<Io>> {
    prop::collection::vec(
        (
            1u64..5_000_000,
            0u8..4,
            any::<bool>(),
            0u64..1 << 20,
            1u64..64,
            0u64..3_000_000,
            any::<bool>(),
        ),
        1..200,
    )
    .prop_map(|v| {
        let mut at = 0;
        // Each I/O its own range: two in flight at one offset complete in an order no
        // reader can know (the kernel's events do not say which is which).
        v.into_iter()
            .enumerate()
            .map(|(i, (gap, op, fua, sector, n, lat, done))| {
                let sector = i as u64 * 128 + sector % 64;
                at += gap;
                let op = Op::ALL[op as usize];
                let flush = op == Op::Flush;
                Io {
                    at_ns: at,
                    op,
                    fua: fua && op == Op::Write,
                    file: 0,
                    offset: if flush { 0 } else { sector * 512 },
                    len: if flush { 0 } else { n * 512 },
                    done_ns: (done && !flush).then_some(at + lat),
                }
            })
            .collect()
    })
}

fn read_all(p: &std::path::Path) -> Vec<Io> {
    let mut r = trace::open(p).unwrap();
    let mut v = Vec::new();
    while let Some(io) = r.next_io().unwrap() {
        v.push(io);
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn volbench_format_round_trips_exactly(v in ios()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.trace");
        let h = Header { method: "test".into(), files: vec![("/dev/x".into(), Some(1 << 30))] };
        let mut w = TraceWriter::new(std::fs::File::create(&p).unwrap(), &h).unwrap();
        for io in &v { w.write(io).unwrap(); }
        w.finish().unwrap();
        let back = read_all(&p);
        prop_assert_eq!(back, v);
    }

    #[test]
    fn fio_iolog_v3_keeps_order_offsets_sizes_and_microseconds(v in ios()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.iolog");
        let mut w = IologWriter::new(std::fs::File::create(&p).unwrap(), &["/dev/x".to_string()]).unwrap();
        for io in &v { w.write(io).unwrap(); }
        w.finish().unwrap();
        let back = read_all(&p);
        prop_assert_eq!(back.len(), v.len());
        for (a, b) in back.iter().zip(&v) {
            prop_assert_eq!((a.op, a.offset, a.len), (b.op, b.offset, b.len));
            prop_assert_eq!(a.at_ns, (b.at_ns / 1000 + 1) * 1000);
        }
    }

    #[test]
    fn blktrace_per_cpu_files_merge_back_in_time_order(v in ios(), cpus in 1usize..5) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("dev");
        let mut w = trace::BlktraceWriter::create(&base, cpus, &[(253 << 20) | 7]).unwrap();
        for io in &v { w.write(io).unwrap(); }
        w.finish().unwrap();
        let back = read_all(&base);
        let t0 = v[0].at_ns;
        let want: Vec<Io> = v.iter().map(|io| Io {
            at_ns: io.at_ns - t0,
            done_ns: io.done_ns.map(|d| d - t0),
            ..*io
        }).collect();
        prop_assert_eq!(back, want);
        let mut r = trace::open(&dir.path().join("dev.blktrace.0")).unwrap();
        while r.next_io().unwrap().is_some() {}
        prop_assert_eq!(r.files(), &["253,7".to_string()][..]);
    }

    #[test]
    fn any_bytes_are_a_trace_or_one_error(bytes in prop::collection::vec(any::<u8>(), 0..600), head in 0usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        let mut f = std::fs::File::create(&p).unwrap();
        let heads = ["# volbench trace v1\n# file 0 /dev/x\n", "fio version 2 iolog\n", "fio version 3 iolog\n", ""];
        f.write_all(heads[head].as_bytes()).unwrap();
        f.write_all(&bytes).unwrap();
        drop(f);
        if let Ok(mut r) = trace::open(&p) {
            for _ in 0..1000 {
                match r.next_io() {
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => break,
                }
            }
        }
    }
}

#[test]
fn iolog_v2_waits_add_up_and_fio_actions_map() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("v2");
    std::fs::write(
        &p,
        "fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n/f wait 2000 0\n/f write 8192 512\n\
         /f wait 50 0\n/f sync 0 0\n/f trim 4096 4096\n/f close\n",
    )
    .unwrap();
    let v = read_all(&p);
    let got: Vec<(u64, Op, u64, u64)> =
        v.iter().map(|i| (i.at_ns, i.op, i.offset, i.len)).collect();
    assert_eq!(
        got,
        vec![
            (0, Op::Read, 0, 4096),
            (2_000_000, Op::Write, 8192, 512),
            (2_000_000, Op::Flush, 0, 0),
            (2_000_000, Op::Trim, 4096, 4096),
        ]
    );
}

#[test]
fn a_bad_line_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("v3");
    std::fs::write(&p, "fio version 3 iolog\n1 /f add\nabc /f read 0 1\n").unwrap();
    let mut r = trace::open(&p).unwrap();
    let e = r.next_io().unwrap_err().to_string();
    assert!(e.contains("v3:3:") && e.contains("`abc`"), "{e}");
    std::fs::write(&p, "something else\n").unwrap();
    let e = trace::open(&p).err().unwrap().to_string();
    assert!(e.contains("not a trace volbench reads"), "{e}");
}

/// Writes a small blktrace for the peer tools (used by the CLI's tests through the binary).
#[test]
fn blktrace_writer_output_reads_in_blkparse_when_installed() {
    if std::process::Command::new("blkparse")
        .arg("-h")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "blkparse is missing: apt-get install blktrace"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("d");
    let mut w = trace::BlktraceWriter::create(&base, 2, &[(7 << 20) | 3]).unwrap();
    for i in 0..10u64 {
        w.write(&Io {
            at_ns: 1000 + i * 1000,
            op: if i % 2 == 0 { Op::Read } else { Op::Write },
            fua: false,
            file: 0,
            offset: i * 4096,
            len: 4096,
            done_ns: Some(1500 + i * 1000),
        })
        .unwrap();
    }
    w.finish().unwrap();
    let out = std::process::Command::new("blkparse")
        .arg("-i")
        .arg(&base)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let q = text
        .lines()
        .filter(|l| l.split_whitespace().nth(5) == Some("Q"))
        .count();
    let c = text
        .lines()
        .filter(|l| l.split_whitespace().nth(5) == Some("C"))
        .count();
    assert_eq!((q, c), (10, 10), "{text}");
}
