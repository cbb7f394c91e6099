//! What the write buffers hold (compressible data, barriers), against fio's data.

use crate::common;
use crate::common::*;
use crate::shared::*;

/// zram's own account of what it stored: (original bytes, compressed bytes).
fn zram_mm(z: &Zram) -> (u64, u64) {
    let s = std::fs::read_to_string(z.sysfs().join("mm_stat")).unwrap();
    let v: Vec<u64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    (v[0], v[1])
}

#[test]
fn buffer_compress_percentage_compresses_as_fios_data_does_and_is_flagged() {
    let _disk = shared_disk();
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
        succeeded(&out, "");
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

/// Options that change only fio's buffers (`mem`, `iomem`, `iomem_align`, `hugepage-size`) or
/// act only on an engine volbench does not have (`write_barrier`: libpmem's) run, each named
/// in the note.
#[test]
fn buffer_and_barrier_options_run_with_a_note() {
    let _disk = shared_disk();
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
