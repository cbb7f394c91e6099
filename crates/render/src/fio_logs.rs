//! fio's log files from a run's series: `write_bw_log`, `write_iops_log` and `write_lat_log`
//! (`NAME_bw.N.log`, `NAME_iops.N.log`, `NAME_lat.N.log`, `NAME_clat.N.log`, `NAME_slat.N.log`,
//! N the job's number from 1), in fio's averaged form: one line per window and direction,
//! `msec, value, ddir, bs, offset`, with bandwidth in KiB/s, IOPS per second and latencies as
//! the window's mean in ns (its largest with `log_max_value=1`). fio writes one line per I/O
//! when `log_avg_msec` is 0; volbench has no per-I/O record, so it then writes one line per
//! second. `write_hist_log` gives `NAME_clat_hist.N.log`: per `log_hist_msec` window and
//! direction, `msec, ddir, bs, ` and the counts of fio's 1856 completion-latency bins.

use report::{JobReport, RunReport};
use stats::winlog::PLAT_NR;
use stats::{Sample, WindowLog};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A window's value for one direction, if it has one.
type Value = fn(&Window, usize) -> Option<u64>;

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
    // One refused log does not keep the others from being written; each refusal is said.
    let mut failed: Vec<String> = Vec::new();
    let mut tried = 0;
    for (k, j) in r.jobs.iter().enumerate() {
        let Some(spec) = r.workload.jobs.get(j.spec_index) else {
            continue;
        };
        let logs = &spec.reporting.logs;
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
            // Synchronous engines have no submission latency: fio leaves that log empty.
            let slat_dirs = if spec.ioengine.is_sync() {
                &[][..]
            } else {
                &dirs[..]
            };
            let kinds = [
                ("lat", &dirs[..], lat as Value),
                ("clat", &dirs, clat),
                ("slat", slat_dirs, slat),
            ];
            for (i, (kind, ds, mean)) in kinds.into_iter().enumerate() {
                let text = match (&j.fio_windows, logs.max_value) {
                    (Some(w), true) => {
                        let means = logs.both_values.then_some((&wins[..], mean));
                        max_lines(w, j.runtime_ns, ds, i, means)
                    }
                    _ => lines(&wins, ds, mean),
                };
                files.push((format!("{p}_{kind}.{n}.log"), text));
            }
        }
        if let Some(p) = &logs.hist {
            let text = j.fio_windows.as_ref().map_or(String::new(), |w| {
                hist_lines(w, spec.bs, logs.hist_coarseness)
            });
            files.push((format!("{p}_clat_hist.{n}.log"), text));
        }
        for (name, text) in files {
            let path = dir.join(name);
            tried += 1;
            match write_one(&path, &text) {
                Ok(()) => out.push(path),
                Err(e) => failed.push(e.to_string()),
            }
        }
    }
    if failed.is_empty() {
        return Ok(out);
    }
    Err(std::io::Error::other(format!(
        "{} of {tried} fio logs not written: {}",
        failed.len(),
        failed.join("; ")
    )))
}

fn write_one(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = outfile::Opener::log("the fio log").open(path)?;
    std::io::Write::write_all(&mut f, text.as_bytes())
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
            // A folded sample (a long run's later records) is longer than the window: the
            // window it closes ends where it ends.
            if s.dt_ms > width + step / 2 {
                cur.end_ms = (s.t_ms + width / 2) / width * width;
            }
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
fn lines(wins: &[Window], dirs: &[usize], value: Value) -> String {
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

/// A latency log of window maxima: one line per window and direction that had I/O, the last
/// window only if it is at least half as long as the others (the rule of the averaged logs).
/// `kind` is 0 for total latency, 1 completion, 2 submission. With `means` (fio's
/// `log_window_value=both`) each line gives the same window's mean before its maximum.
fn max_lines(
    w: &WindowLog,
    runtime_ns: u64,
    dirs: &[usize],
    kind: usize,
    means: Option<(&[Window], Value)>,
) -> String {
    let mut s = String::new();
    let run_ms = runtime_ns / 1_000_000;
    for (k, m) in w.max.iter().enumerate() {
        let end = (k as u64 + 1) * w.max_ms;
        if end > run_ms && (run_ms + w.max_ms).saturating_sub(end) * 2 < w.max_ms {
            break;
        }
        for &d in dirs {
            let max = m[2 * kind + d];
            if max == 0 {
                continue;
            }
            match means {
                None => _ = writeln!(s, "{end}, {max}, {d}, 0, 0"),
                Some((wins, mean)) => {
                    let win = wins.iter().find(|x| x.end_ms == end);
                    if let Some(avg) = win.and_then(|x| mean(x, d)) {
                        let _ = writeln!(s, "{end}, {avg}, {max}, {d}, 0, 0");
                    }
                }
            }
        }
    }
    s
}

/// The histogram log: `msec, ddir, bs, ` then fio's bins, 2^coarseness of them summed per
/// column, one line per closed window and direction with I/O.
fn hist_lines(w: &WindowLog, bs: u64, coarseness: u8) -> String {
    let cols = PLAT_NR >> coarseness;
    let mut s = String::new();
    let mut row = vec![0u64; cols];
    for h in &w.hist {
        for (d, bins) in h.bins.iter().enumerate() {
            if bins.is_empty() {
                continue;
            }
            row.iter_mut().for_each(|c| *c = 0);
            for &(b, n) in bins {
                row[(b as usize) >> coarseness] += n as u64;
            }
            let _ = write!(s, "{}, {d}, {bs}", h.end_ms);
            for c in &row {
                let _ = write!(s, ", {c}");
            }
            s.push('\n');
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
