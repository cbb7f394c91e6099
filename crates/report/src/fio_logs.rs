//! fio's log files from a run's series: `write_bw_log`, `write_iops_log` and `write_lat_log`
//! (`NAME_bw.N.log`, `NAME_iops.N.log`, `NAME_lat.N.log`, `NAME_clat.N.log`, `NAME_slat.N.log`,
//! N the job's number from 1), in fio's averaged form: one line per window and direction,
//! `msec, value, ddir, bs, offset`, with bandwidth in KiB/s, IOPS per second and latencies as
//! the window's mean in ns. fio writes one line per I/O when `log_avg_msec` is 0; volbench has
//! no per-I/O record, so it then writes one line per second.

use crate::{JobReport, RunReport};
use stats::Sample;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One averaging window: the samples that closed inside it, added up.
#[derive(Default)]
struct Window {
    end_ms: u64,
    ms: u64,
    sum: Sample,
}

/// Writes every log the run's jobs asked for into `dir`; returns the files written.
pub fn write(r: &RunReport, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for (k, j) in r.jobs.iter().enumerate() {
        let Some(spec) = r.workload.jobs.get(j.spec_index) else {
            continue;
        };
        let logs = &spec.logs;
        if !logs.any() {
            continue;
        }
        let wins = windows(j, logs.avg_msec as u64);
        let dirs: Vec<usize> = [(0, spec.rw.reads()), (1, spec.rw.writes())]
            .into_iter()
            .filter_map(|(d, on)| on.then_some(d))
            .collect();
        let n = k + 1;
        let mut files: Vec<(String, String)> = Vec::new();
        if let Some(p) = &logs.bw {
            files.push((format!("{p}_bw.{n}.log"), lines(&wins, &dirs, bw)));
        }
        if let Some(p) = &logs.iops {
            files.push((format!("{p}_iops.{n}.log"), lines(&wins, &dirs, iops)));
        }
        if let Some(p) = &logs.lat {
            files.push((format!("{p}_lat.{n}.log"), lines(&wins, &dirs, lat)));
            files.push((format!("{p}_clat.{n}.log"), lines(&wins, &dirs, clat)));
            // Synchronous engines have no submission latency: fio leaves that log empty.
            let slat_dirs = if spec.ioengine.is_sync() {
                &[][..]
            } else {
                &dirs[..]
            };
            files.push((format!("{p}_slat.{n}.log"), lines(&wins, slat_dirs, slat)));
        }
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::write(&path, text)?;
            out.push(path);
        }
    }
    Ok(out)
}

/// The job's samples gathered into windows of `avg_ms` (at least one sample each). A last
/// window shorter than half the others is left out, as fio leaves out its partial one.
fn windows(j: &JobReport, avg_ms: u64) -> Vec<Window> {
    let step = j.series.interval_ms.max(1);
    let width = if avg_ms == 0 { step } else { avg_ms.max(step) };
    let mut out: Vec<Window> = Vec::new();
    let mut cur = Window {
        end_ms: width,
        ..Default::default()
    };
    for s in &j.series.samples {
        cur.sum.add(s);
        cur.ms += s.dt_ms;
        if s.t_ms + step / 2 >= cur.end_ms {
            let next = cur.end_ms + width;
            out.push(std::mem::replace(
                &mut cur,
                Window {
                    end_ms: next,
                    ..Default::default()
                },
            ));
        }
    }
    if cur.ms * 2 >= width {
        out.push(cur);
    }
    out
}

/// One line per window and direction, `msec, value, ddir, 0, 0`; a latency log skips windows
/// without I/O in that direction (there is no mean to give), as fio's does.
fn lines(wins: &[Window], dirs: &[usize], value: fn(&Window, usize) -> Option<u64>) -> String {
    let mut s = String::new();
    for w in wins {
        for &d in dirs {
            if let Some(v) = value(w, d) {
                let _ = writeln!(s, "{}, {v}, {d}, 0, 0", w.end_ms);
            }
        }
    }
    s
}

fn secs(w: &Window) -> f64 {
    (w.ms.max(1)) as f64 / 1000.0
}

fn bw(w: &Window, d: usize) -> Option<u64> {
    Some((w.sum.bytes[d] as f64 / 1024.0 / secs(w)).round() as u64)
}

fn iops(w: &Window, d: usize) -> Option<u64> {
    Some((w.sum.ios[d] as f64 / secs(w)).round() as u64)
}

fn mean(sum: u64, n: u64) -> Option<u64> {
    (n > 0).then(|| (sum as f64 / n as f64).round() as u64)
}

fn lat(w: &Window, d: usize) -> Option<u64> {
    mean(w.sum.lat_sum_ns[d], w.sum.ios[d])
}

fn clat(w: &Window, d: usize) -> Option<u64> {
    mean(w.sum.clat_sum_ns[d], w.sum.ios[d])
}

fn slat(w: &Window, d: usize) -> Option<u64> {
    mean(w.sum.slat_sum_ns[d], w.sum.ios[d])
}
