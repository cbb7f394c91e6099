//! What volbench writes, read back from the files (issue 43): by default every write's bytes
//! are fresh (nothing compresses under zlib or zstd over 4 KiB to 1 MiB, no 512-byte sector
//! repeats in a run or across runs, and `randseed` makes them repeat on purpose); fio's data
//! options give files with fio's share of duplicate blocks and fio's compressibility, against
//! fio's own files; and storage that stores flushed writes smaller (btrfs `compress-force`)
//! is said to, with the bytes compsize sees, and never said of one that does not.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// What a file's bytes are like: compressed size over size, per chunk size, for zlib (level 1)
/// and zstd (level 1); the share of 4 KiB blocks that repeat an earlier one; the share of
/// 512-byte sectors that are unique.
struct Bytes {
    zlib: [f64; 3],
    zstd: [f64; 3],
    dup_blocks: f64,
    unique_sectors: f64,
}

const CHUNKS: [usize; 3] = [4096, 128 << 10, 1 << 20];

fn ratio(d: &[u8], chunk: usize, compress: impl Fn(&[u8]) -> usize) -> f64 {
    let (mut all, mut packed) = (0, 0);
    for c in d.chunks_exact(chunk) {
        all += c.len();
        packed += compress(c);
    }
    packed as f64 / all.max(1) as f64
}

fn zlib(c: &[u8]) -> usize {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(1));
    e.write_all(c).unwrap();
    e.finish().unwrap().len()
}

fn zstd1(c: &[u8]) -> usize {
    zstd::bulk::compress(c, 1).unwrap().len()
}

/// Occurrences of each distinct `n`-byte piece of `d`.
fn pieces(d: &[u8], n: usize) -> HashMap<&[u8], u32> {
    let mut m = HashMap::new();
    for c in d.chunks_exact(n) {
        *m.entry(c).or_insert(0) += 1;
    }
    m
}

fn bytes_of(p: &Path) -> Bytes {
    let d = std::fs::read(p).unwrap();
    let blocks = d.len() / 4096;
    let sectors = d.len() / 512;
    Bytes {
        zlib: CHUNKS.map(|c| ratio(&d, c, zlib)),
        zstd: CHUNKS.map(|c| ratio(&d, c, zstd1)),
        dup_blocks: (blocks - pieces(&d, 4096).len()) as f64 / blocks as f64,
        unique_sectors: pieces(&d, 512).len() as f64 / sectors as f64,
    }
}

fn vb(dir: &Path, args: &[&str]) -> Value {
    ok_json(volbench().current_dir(dir).arg("run").args(args).args([
        "--output-format=volbench-json",
        "-q",
        "--no-store",
    ]))
}

/// The README's promise, for the three kinds of job issue 43 measured (sequential small blocks
/// at QD1, random small blocks at QD32, large blocks): nothing compresses, no sector repeats.
#[test]
fn default_data_never_compresses_or_repeats() {
    let d = tmpdir();
    for (name, args) in [
        (
            "seq",
            &["--rw=write", "--bs=4k", "--ioengine=psync", "--iodepth=1"][..],
        ),
        ("rand", &["--rw=randwrite", "--bs=4k", "--iodepth=32"]),
        (
            "big",
            &["--rw=write", "--bs=1m", "--ioengine=libaio", "--iodepth=8"],
        ),
    ] {
        let f = d.path().join(format!("{name}.dat"));
        let mut a = vec![format!("--filename={}", f.display()), "--size=24m".into()];
        a.extend(args.iter().map(|s| s.to_string()));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        vb(d.path(), &a);
        let b = bytes_of(&f);
        for (i, c) in CHUNKS.iter().enumerate() {
            assert!(b.zlib[i] >= 0.99, "{name}: zlib over {c}: {}", b.zlib[i]);
            assert!(b.zstd[i] >= 0.99, "{name}: zstd over {c}: {}", b.zstd[i]);
        }
        assert_eq!(b.unique_sectors, 1.0, "{name}: a 512-byte sector repeats");
    }
}

/// No sector of one run repeats in the next (each run has its own data seed), and a given
/// randseed makes the data repeat exactly, on purpose.
#[test]
fn runs_write_data_of_their_own_unless_randseed_is_given() {
    let d = tmpdir();
    let run = |name: &str, seed: Option<&str>| {
        let f = d.path().join(name);
        let mut a = vec![
            format!("--filename={}", f.display()),
            "--rw=write".to_string(),
            "--bs=4k".into(),
            "--ioengine=psync".into(),
            "--size=4m".into(),
        ];
        a.extend(seed.map(|s| format!("--randseed={s}")));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        vb(d.path(), &a);
        std::fs::read(&f).unwrap()
    };
    let (a, b) = (run("a", None), run("b", None));
    let first = pieces(&a, 512);
    assert!(
        b.chunks_exact(512).all(|s| !first.contains_key(s)),
        "a sector of one run repeats in the next"
    );
    assert_eq!(run("c", Some("7")), run("d", Some("7")), "randseed=7 twice");
}

/// A mixed job reads before it writes from the same buffers: a read of never-written space
/// (zeros, on a fresh zram device) must not leave the next write periodic.
#[test]
fn writes_after_reads_stay_incompressible() {
    require_root!();
    let z = Zram::new("64M");
    vb(
        Path::new("."),
        &[
            &format!("--filename={}", z.p()),
            "--rw=randrw",
            "--bs=4k",
            "--iodepth=16",
            "--number_ios=8000",
            "--allow-destructive",
        ],
    );
    let d = std::fs::read(&z.path).unwrap();
    let written: Vec<&[u8]> = d
        .chunks_exact(4096)
        .filter(|b| b.iter().any(|&x| x != 0))
        .collect();
    assert!(written.len() > 1000, "{} blocks written", written.len());
    for b in &written {
        assert!(
            zlib(b) as f64 >= 0.99 * 4096.0,
            "a written block compresses"
        );
    }
    let all: Vec<u8> = written.concat();
    assert_eq!(
        pieces(&all, 512).len(),
        all.len() / 512,
        "a written sector repeats"
    );
}

/// fio's data options, the same job written by both tools: the files hold the same share of
/// duplicate 4 KiB blocks (within 2 points) and compress alike (within 0.02 per chunk size).
#[test]
fn data_options_shape_the_bytes_as_fios() {
    require_tool!("fio");
    let d = tmpdir();
    let cases: [&[&str]; 7] = [
        &["--buffer_compress_percentage=60"],
        &[
            "--buffer_compress_percentage=60",
            "--buffer_compress_chunk=4096",
        ],
        &[
            "--buffer_compress_percentage=30",
            "--buffer_pattern=0xdeadbeef",
        ],
        &["--dedupe_percentage=30"],
        &[
            "--dedupe_percentage=30",
            "--dedupe_mode=working_set",
            "--dedupe_working_set_percentage=5",
        ],
        &["--buffer_compress_percentage=50", "--dedupe_percentage=20"],
        &["--scramble_buffers=0"],
    ];
    for opts in cases {
        let job = |file: &Path| {
            let mut v = vec![
                "--name=x".to_string(),
                format!("--filename={}", file.display()),
                "--rw=write".into(),
                "--bs=4k".into(),
                "--size=24m".into(),
                "--ioengine=psync".into(),
            ];
            v.extend(opts.iter().map(|s| s.to_string()));
            v
        };
        let (ff, vf) = (d.path().join("fio.dat"), d.path().join("vb.dat"));
        let _ = std::fs::remove_file(&ff);
        let _ = std::fs::remove_file(&vf);
        fio_json(std::process::Command::new("fio").args(job(&ff)));
        let a: Vec<String> = job(&vf);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        vb(d.path(), &a);
        let (f, v) = (bytes_of(&ff), bytes_of(&vf));
        assert!(
            (f.dup_blocks - v.dup_blocks).abs() <= 0.02,
            "{opts:?}: duplicate blocks fio {:.3}, volbench {:.3}",
            f.dup_blocks,
            v.dup_blocks
        );
        for (i, chunk) in CHUNKS.iter().enumerate().take(2) {
            for (what, a, b) in [
                ("zlib", f.zlib[i], v.zlib[i]),
                ("zstd", f.zstd[i], v.zstd[i]),
            ] {
                assert!(
                    (a - b).abs() <= 0.02,
                    "{opts:?}: {what} over {chunk}: fio {a:.3}, volbench {b:.3}"
                );
            }
        }
    }
}

/// The on-disk bytes of `file` by compsize ("TOTAL ... Disk Usage"), in bytes.
fn compsize_disk(file: &Path) -> f64 {
    let out = std::process::Command::new("compsize")
        .args(["-b"])
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let total = text
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .unwrap_or_else(|| panic!("compsize: {text}"));
    total.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// Flushed writes that a compressing file system stores smaller are said to be
/// (`data_shrunk`, with the bytes and the mount option), by the devices' own counters, which
/// agree with compsize; ext4, xfs and btrfs without compression never raise it, with
/// incompressible or compressible data; and volbench's default data does not shrink even on
/// the compressing one.
#[test]
fn storage_that_shrinks_flushed_writes_is_said_to_and_no_other_is() {
    require_root!();
    for tool in ["mkfs.btrfs", "mkfs.xfs", "compsize"] {
        require_tool!(tool);
    }
    let compressible = ["--buffer_compress_percentage=80"];
    for (fs, opts) in [
        ("ext4", "defaults"),
        ("xfs", "defaults"),
        ("btrfs", "defaults"),
        ("btrfs", "compress-force=zstd:1"),
    ] {
        let m = Ext4::of(fs, "512M", opts);
        // doctor names the compressing file system before any run, and only that one.
        let doc = ok_stdout(volbench().args(["doctor"]).arg(m.dir.path()));
        let named = doc.contains("stores data that compresses smaller");
        assert_eq!(named, opts.starts_with("compress"), "{fs} {opts}: {doc}");
        for extra in [&[][..], &compressible[..]] {
            let f = m.dir.path().join("f.dat");
            let _ = std::fs::remove_file(&f);
            let mut a = vec![
                format!("--filename={}", f.display()),
                "--rw=write".to_string(),
                "--bs=4k".into(),
                "--size=64m".into(),
                "--ioengine=psync".into(),
                "--direct=0".into(),
                "--end_fsync=1".into(),
            ];
            a.extend(extra.iter().map(|s| s.to_string()));
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let v = vb(m.dir.path(), &a);
            let shrunk = v["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|w| w["code"] == "data_shrunk");
            let shrinks = opts.starts_with("compress") && !extra.is_empty();
            let label = format!("{fs} {opts} {extra:?}");
            assert_eq!(shrunk.is_some(), shrinks, "{label}: {}", v["warnings"]);
            if fs == "btrfs" && opts.starts_with("compress") {
                let disk = compsize_disk(&f);
                let k = &v["environment"]["targets"][0]["kernel_counters"];
                let took = k["write_bytes"].as_f64().unwrap();
                // The device took what compsize says is on disk, and btrfs's metadata.
                assert!(
                    took >= disk && took <= disk + (16 << 20) as f64,
                    "{label}: the device took {took}, compsize says {disk} on disk"
                );
                if !shrinks {
                    assert!(disk >= 0.99 * (64 << 20) as f64, "{label}: {disk} on disk");
                }
            }
            if let Some(w) = shrunk {
                let m = w["message"].as_str().unwrap();
                assert!(m.contains("compress-force=zstd:1"), "{label}: {m}");
            }
        }
    }
}
