//! `volbench sweep`: one workload over lists of values, a point per combination, with the knee
//! and the IOPS/bandwidth crossover flagged. Results are written after every point.

use crate::cli::{RunArgs, SweepArgs};
use crate::output::Output;
use crate::usage::usage;
use anyhow::Result;
use report::{Document, Status, SuiteReport};
use std::process::ExitCode;
use workload::fio::{self, cmdline::Given, table::Kind};
use workload::JobSpec;
use workload::{parse_size, short_size};

/// Expands `1,2,4..256` (a..b doubles from a to b) into its values. `sizes` parses units.
pub fn expand(opt: &str, list: &str, sizes: bool) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((a, b)) = item.split_once("..") else {
            out.push(item.to_string());
            continue;
        };
        let num = |s: &str| -> Result<u64> {
            if sizes {
                parse_size(s).map_err(|e| usage(format!("--{opt}: {e}")))
            } else {
                s.parse()
                    .map_err(|_| usage(format!("--{opt}: '{s}' in '{item}' is not a whole number")))
            }
        };
        let (lo, hi) = (num(a)?, num(b)?);
        if lo == 0 || hi < lo {
            return Err(usage(format!(
                "--{opt}={item}: a range goes up from a positive start, e.g. 1..256"
            )));
        }
        let mut v = lo;
        while v <= hi {
            out.push(if sizes { short_size(v) } else { v.to_string() });
            v *= 2;
        }
    }
    if out.is_empty() {
        return Err(usage(format!("--{opt} has no values")));
    }
    Ok(out)
}

/// One point of a sweep: the swept options' values, in axis order.
type Point = Vec<(String, String)>;
/// A swept option and its values.
type Axis = (&'static str, Vec<String>);

/// The swept options and their values, outermost first, from the options given: an axis
/// option's last value is its list (one value is no axis); `fixed` keeps every other option in
/// the order given.
fn axes(given: &[Given]) -> Result<(Vec<Axis>, Vec<Given>)> {
    let mut axes = Vec::new();
    let mut fixed: Vec<Given> = given.to_vec();
    for opt in fio::table::sweep_axes() {
        let Some((_, Some(v))) = given
            .iter()
            .rev()
            .find(|(k, _)| fio::canonical(k) == opt.name)
        else {
            continue;
        };
        let values = match opt.kind {
            Kind::Size => expand(opt.name, v, true)?,
            Kind::Int { .. } => expand(opt.name, v, false)?,
            _ => v
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        };
        if values.len() > 1 {
            fixed.retain(|(k, _)| fio::canonical(k) != opt.name);
            axes.push((opt.name, values));
        }
    }
    if axes.is_empty() {
        let names: Vec<String> = fio::table::sweep_axes()
            .iter()
            .map(|o| format!("--{}", o.name))
            .collect();
        return Err(usage(format!(
            "nothing to sweep: give a list to {}, e.g. --{}=1,2,4..64",
            names.join(", "),
            names.last().map_or("", |n| n.trim_start_matches('-'))
        )));
    }
    Ok((axes, fixed))
}

/// Every combination of the axes' values, the first axis outermost.
fn points(axes: &[Axis]) -> Vec<Point> {
    let mut points: Vec<Point> = vec![Vec::new()];
    for (opt, values) in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((opt.to_string(), v.clone()));
                    q
                })
            })
            .collect();
    }
    points
}

/// Every point's job, checked before anything runs. A point runs 10 s unless a runtime is given.
fn specs(base: &RunArgs, fixed: &[Given], points: &[Point]) -> Result<Vec<JobSpec>> {
    let runtime = fio::table::names::RUNTIME;
    let mut defaults: Vec<Given> = Vec::new();
    if !fixed.iter().any(|(k, _)| fio::canonical(k) == runtime) {
        defaults.push((runtime.to_string(), Some("10s".into())));
    }
    points
        .iter()
        .map(|p| {
            let mut args = base.clone();
            args.fio = defaults.iter().chain(fixed).cloned().collect();
            args.fio
                .extend(p.iter().map(|(k, v)| (k.clone(), Some(v.clone()))));
            args.spec()
        })
        .collect()
}

pub fn main(a: SweepArgs) -> Result<ExitCode> {
    let base = a.run;
    if base.jobfile.is_some() {
        return Err(usage(
            "sweep takes options, not a job file: give --rw, --bs, ... with lists",
        ));
    }
    let (axes, fixed) = axes(&base.fio)?;
    let points = points(&axes);
    let specs = specs(&base, &fixed, &points)?;

    let _cleanup = RemoveOnDrop::new(&specs);
    let out = Output::open(&base.out, false)?;
    let opts = runner::RunOptions {
        stop: crate::stop::stop_flag(),
        ..Default::default()
    };
    let recorder = crate::recording::recorder(&base.store, out.quiet)?;
    let sweep = SuiteReport::started("sweep", "");
    let layout = if base.shared_file {
        scaleout::world::Layout::Shared
    } else {
        scaleout::world::Layout::FilePerProcess
    };
    let mut list = runner::Points::new(opts.stop.clone(), Some(points.len()));
    let mut state = (sweep, out, recorder);
    let driver = experiment::Driver {
        layout,
        repeat: base.repeat.plan()?,
        ..experiment::Driver::new(&opts)
    };
    list.each(
        &mut state,
        points.iter().zip(specs),
        |(sweep, out, _), step, (p, spec)| {
            let label = p
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            let prefix = format!("point {} {label} ", step.position());
            let st = crate::points::run_test(sweep, out, &driver, label, p.clone(), spec, prefix)?;
            Ok(st == Status::Complete)
        },
        crate::points::checkpoint,
    )?;
    let (mut sweep, mut out, mut recorder) = state;
    sweep.finish();
    let doc = Document::Suite(Box::new(sweep));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}

/// Removes the listed files when the sweep ends, however it ends.
struct RemoveOnDrop(Vec<std::path::PathBuf>);

impl RemoveOnDrop {
    /// The files the sweep's points will create: they go when it ends; files that were
    /// there before always stay.
    fn new(specs: &[JobSpec]) -> RemoveOnDrop {
        let mut created = Vec::new();
        let paths = specs
            .iter()
            .flat_map(|s| (0..s.numjobs).flat_map(move |c| runner::resolve_paths(s, c)));
        for p in paths.filter(|p| !p.exists()) {
            if !created.contains(&p) {
                created.push(p);
            }
        }
        RemoveOnDrop(created)
    }
}

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_doubling_ranges() {
        assert_eq!(
            expand("numjobs", "1,2,4..32", false).unwrap(),
            ["1", "2", "4", "8", "16", "32"]
        );
        assert_eq!(
            expand("bs", "4k..64k", true).unwrap(),
            ["4k", "8k", "16k", "32k", "64k"]
        );
        assert_eq!(expand("bs", "512,1m", true).unwrap(), ["512", "1m"]);
        assert_eq!(
            expand("iodepth", "1..100", false).unwrap().last().unwrap(),
            "64"
        );
        assert!(expand("numjobs", "4..2", false).is_err());
        assert!(expand("numjobs", "x..4", false).is_err());
        assert!(expand("numjobs", ",", false).is_err());
    }
}
