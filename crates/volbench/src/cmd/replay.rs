//! `volbench replay`: a trace replayed on a target, as a run of one job whose pattern is the
//! trace (fio's `read_iolog`), so its report, history, compare and HTML are a run's.

use crate::cli::{ReplayArgs, RunArgs};
use crate::usage::usage;
use anyhow::Result;
use workload::fio::table::names;

/// The replay as `volbench run`'s arguments (the dispatch runs them).
pub fn args(a: ReplayArgs) -> Result<RunArgs> {
    let fio = options(&a)?;
    Ok(RunArgs::of_fio(fio, a.out, a.store))
}

/// The replay's fio options: the trace, the targets (--filename and --map's), the speed, and
/// the engine, depth and O_DIRECT a replay needs to issue the trace's I/O as traced.
/// The targets to replay on: --filename's, then --map's destinations (each once).
fn targets(a: &ReplayArgs) -> Result<Vec<String>> {
    let mut targets: Vec<String> = a
        .filename
        .iter()
        .flat_map(|f| f.split(':'))
        .filter(|f| !f.is_empty())
        .map(String::from)
        .collect();
    for m in &a.map {
        let Some((_, dst)) = m
            .split_once('=')
            .filter(|(s, d)| !s.is_empty() && !d.is_empty())
        else {
            return Err(usage(format!(
                "--map {m}: give SRC=DST (SRC as the trace names it)"
            )));
        };
        if !targets.iter().any(|t| t == dst) {
            targets.push(dst.to_string());
        }
    }
    if targets.is_empty() {
        return Err(usage(
            "give the target to replay on: --filename FILE_OR_DEVICE (or --map SRC=DST)",
        ));
    }
    Ok(targets)
}

/// --speed as fio's replay option: max issues without waiting, a factor scales the times.
fn speed(s: &str) -> Result<(&'static str, Option<String>)> {
    if s == "max" {
        return Ok((names::REPLAY_NO_STALL, Some("1".into())));
    }
    let x: f64 = s
        .parse()
        .ok()
        .filter(|x: &f64| *x > 0.0 && x.is_finite())
        .ok_or_else(|| usage(format!("--speed {s}: give a factor (1, 2, 0.5) or max")))?;
    let pct = (x * 100.0).round().max(1.0) as u64;
    Ok((names::REPLAY_TIME_SCALE, Some(pct.to_string())))
}

fn options(a: &ReplayArgs) -> Result<Vec<(String, Option<String>)>> {
    let targets = targets(a)?;
    let o = |k: &str, v: Option<String>| (k.to_string(), v);
    let mut fio = vec![
        o(names::NAME, Some("replay".into())),
        o(names::READ_IOLOG, Some(a.trace.display().to_string())),
        o(names::FILENAME, Some(targets.join(":"))),
        o(names::IOENGINE, Some(a.ioengine.clone())),
        o(names::DIRECT, Some(a.direct.clone())),
        o(names::LOOPS, Some(a.loops.to_string())),
    ];
    // The trace's own depth where it holds completions (the runner reads it in its pass over
    // the trace); else room for the I/Os its times overlap.
    match a.iodepth {
        Some(d) => fio.push(o(names::IODEPTH, Some(d.to_string()))),
        None => {
            fio.push(o(names::IODEPTH, Some("32".into())));
            fio.push(o(names::REPLAY_TRACE_DEPTH, None));
        }
    }
    let (k, v) = speed(&a.speed)?;
    fio.push(o(k, v));
    if !a.map.is_empty() {
        fio.push(o(names::REPLAY_MAP, Some(a.map.join(","))));
    }
    for (flag, key) in [
        (a.wrap, names::REPLAY_WRAP),
        (a.allow_destructive, names::ALLOW_DESTRUCTIVE),
    ] {
        if flag {
            fio.push(o(key, None));
        }
    }
    if let Some(s) = &a.skip {
        fio.push(o(names::REPLAY_SKIP, Some(s.clone())));
    }
    if let Some(p) = &a.write_iolog {
        fio.push(o(names::WRITE_IOLOG, Some(p.display().to_string())));
    }
    Ok(fio)
}
