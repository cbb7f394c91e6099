//! fio's own clients on volbench's fio-JSON and fio logs (issue 44): fio-plot (PyPI, installed
//! by scripts/test.sh in a venv) draws every one of its graph types from volbench's files
//! named as its bench-fio names fio's, and Debian's fio package's tools read them: its
//! `fio_jsonplus_clat2csv` the json+ output, `fio2gnuplot` the logs.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

/// fio-plot's executable: `VOLBENCH_FIO_PLOT`, as scripts/test.sh exports it.
fn fio_plot() -> Option<PathBuf> {
    std::env::var_os("VOLBENCH_FIO_PLOT")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

/// One short libaio randread on `file` at `qd` x `nj`, as bench-fio names its output
/// (`randread-QD-NJ.json`) and its logs (`randread-iodepth-QD-numjobs-NJ_TYPE.1.log`).
fn run_point(dir: &Path, file: &Path, qd: u32, nj: u32) {
    let logs = format!("randread-iodepth-{qd}-numjobs-{nj}");
    ok_stdout(
        volbench()
            .current_dir(dir)
            .args(["run", "--name=randread", "--rw=randread", "--bs=4k"])
            .arg(format!("--filename={}", file.display()))
            .args([
                "--size=16m",
                "--ioengine=libaio",
                "--direct=1",
                "--runtime=1",
            ])
            .args(["--time_based", "--group_reporting"])
            .arg(format!("--iodepth={qd}"))
            .arg(format!("--numjobs={nj}"))
            .arg(format!("--write_bw_log={logs}"))
            .arg(format!("--write_iops_log={logs}"))
            .arg(format!("--write_lat_log={logs}"))
            .args([
                "--log_avg_msec=100",
                "--output-format=json+",
                "-q",
                "--no-store",
            ])
            .arg(format!(
                "--output={}",
                dir.join(format!("randread-{qd}-{nj}.json")).display()
            )),
    );
}

/// fio-plot with `args` on `dirs`: it must succeed and write its PNG.
fn plots(dirs: &[&Path], args: &[&str], out: &Path) {
    let exe = fio_plot().unwrap();
    let mut c = Std::new(exe);
    c.arg("-i")
        .args(dirs)
        .args(["-T", "volbench", "-r", "randread"]);
    c.args(args).arg("-o").arg(out);
    let o = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "fio-plot {args:?}: {text}");
    assert!(
        out.is_file(),
        "fio-plot {args:?} wrote no {}: {text}",
        out.display()
    );
}

#[test]
fn fio_plot_draws_every_graph_from_volbench_files() {
    if fio_plot().is_none() {
        cannot_run!("fio-plot is not installed (scripts/test.sh puts it in a venv)");
    }
    let (a, b) = (tmpdir(), tmpdir());
    let file = a.path().join("data.dat");
    // The 3D graph needs every depth at every job count: a full 4 x 2 matrix.
    for qd in [1, 2, 4, 8] {
        for nj in [1, 2] {
            run_point(a.path(), &file, qd, nj);
        }
    }
    run_point(b.path(), &file, 1, 1);
    let out = |n: &str| a.path().join(format!("{n}.png"));
    plots(
        &[a.path()],
        &["-l", "-d", "1", "2", "4", "8", "-n", "1"],
        &out("l"),
    );
    plots(&[a.path()], &["-N", "-d", "1", "-n", "1", "2"], &out("nj"));
    plots(
        &[a.path()],
        &["-L", "-t", "iops", "-J", "2", "-M", "8"],
        &out("3d"),
    );
    plots(&[a.path()], &["-H", "-d", "1", "-n", "1"], &out("hist"));
    plots(
        &[a.path(), b.path()],
        &["-C", "-d", "1", "-n", "1"],
        &out("cmp"),
    );
    plots(
        &[a.path()],
        &["-g", "-d", "1", "-n", "1", "-t", "bw", "iops", "lat"],
        &out("log"),
    );
}

/// Debian's fio package ships fio_jsonplus_clat2csv: it turns a json+ file's completion
/// latency bins into CSV, which it does for volbench's as for fio's.
#[test]
fn fios_own_tools_read_volbench_output() {
    require_tool!("fio_jsonplus_clat2csv");
    let d = tmpdir();
    let file = d.path().join("data.dat");
    run_point(d.path(), &file, 4, 1);
    let json = d.path().join("randread-4-1.json");
    let csv = d.path().join("clat.csv");
    let o = Std::new("fio_jsonplus_clat2csv")
        .arg(&json)
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // It writes one CSV per job: its rows are the latency bins' percentiles.
    let made: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("clat"))
        .collect();
    assert!(!made.is_empty(), "no CSV from fio_jsonplus_clat2csv");
    let text = std::fs::read_to_string(made[0].path()).unwrap();
    assert!(text.lines().count() > 10, "{text}");
    // Its own check: the bins rebuilt from the CSV equal the file's bins.
    let o = Std::new("fio_jsonplus_clat2csv")
        .arg(&json)
        .arg(&csv)
        .arg("--validate")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // And the bins hold every I/O the figures count.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let clat = &doc["jobs"][0]["read"]["clat_ns"];
    let binned: u64 = clat["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(binned, clat["N"].as_u64().unwrap());
}

/// fio_generate_plots (Debian's fio package; gnuplot draws) plots volbench's bw, iops and
/// latency logs as it plots fio's: one SVG per log type, each with its data line.
#[test]
fn fio_generate_plots_draws_volbench_logs() {
    require_tool!("fio_generate_plots");
    require_tool!("gnuplot");
    let d = tmpdir();
    let file = d.path().join("data.dat");
    run_point(d.path(), &file, 2, 1);
    let o = Std::new("fio_generate_plots")
        .arg("volbench")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for kind in ["bw", "iops", "lat", "clat"] {
        let svg = d.path().join(format!("volbench-{kind}.svg"));
        let text =
            std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()));
        // gnuplot draws a series as a coloured path through the log's samples (10 here);
        // frames and ticks are black.
        let longest = text
            .split("<path")
            .filter(|p| !p.starts_with(" stroke='black'"))
            .map(|p| p.split("/>").next().unwrap_or("").matches(" L").count())
            .max()
            .unwrap_or(0);
        assert!(longest >= 5, "{kind}: no data line in {}", svg.display());
    }
}
