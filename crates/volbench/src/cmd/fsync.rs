//! `volbench fsync`: the durable-write cost suite (crate `durability`) with its progress,
//! output and history.

use crate::cli::FsyncArgs;
use crate::output::Output;
use crate::usage::usage;
use anyhow::Result;
use durability::fsync::{Method, Options};
use report::Document;
use std::process::ExitCode;
use workload::{parse_duration, parse_size};

fn list<T>(opt: &str, s: &str, f: impl Fn(&str) -> Option<T>) -> Result<Vec<T>> {
    let v = s
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| f(x).ok_or_else(|| usage(format!("--{opt}: '{x}' is not valid"))))
        .collect::<Result<Vec<T>>>()?;
    if v.is_empty() {
        return Err(usage(format!("--{opt} has no values")));
    }
    Ok(v)
}

fn options(a: &FsyncArgs) -> Result<Options> {
    let methods = match &a.methods {
        None => Method::ALL.to_vec(),
        Some(m) => list("methods", m, Method::parse).map_err(|_| {
            usage(format!(
                "--methods {m}: choose from none, direct, fsync, fdatasync, odsync, direct-fdatasync, rwf-dsync"
            ))
        })?,
    };
    let bs = list("bs", &a.bs, |x| {
        parse_size(x).ok().filter(|b| (512..=64 << 20).contains(b))
    })?;
    let threads = list("threads", &a.threads, |x| {
        x.parse::<u32>().ok().filter(|&t| (1..=256).contains(&t))
    })?;
    let runtime = parse_duration(&a.runtime).map_err(|e| usage(format!("--runtime: {e}")))?;
    let size = parse_size(&a.size).map_err(|e| usage(format!("--size: {e}")))?;
    if size < *bs.iter().max().unwrap_or(&4096) * 4 {
        return Err(usage("--size must hold at least four of the largest --bs"));
    }
    let targets = if a.targets.is_empty() {
        vec![crate::cli::here()]
    } else {
        a.targets.clone()
    };
    if let Some(t) = targets.iter().find(|t| !t.exists()) {
        return Err(usage(format!(
            "{}: no such directory or device: give an existing directory (volbench makes its \
             own file in it) or a block device",
            t.display()
        )));
    }
    Ok(Options {
        targets,
        methods,
        bs,
        threads,
        runtime,
        size,
        cases: !a.penalty_only,
        penalty: !a.no_penalty,
        allow_destructive: a.allow_destructive,
        command_line: report::secrets::command_line(),
    })
}

/// A step's place in the plan, in runs (the summary counts cases, and a penalty is four runs,
/// so "15/36" alone could not be read against it): "run 3 of 36", "runs 5-8 of 36".
fn runs_of(r: durability::fsync::Runs) -> String {
    match r.count {
        1 => format!("run {} of {}", r.first, r.total),
        n => format!("runs {}-{} of {}", r.first, r.first + n - 1, r.total),
    }
}

pub fn main(a: FsyncArgs) -> Result<ExitCode> {
    let o = options(&a)?;
    let mut out = Output::open(&a.out, false)?;
    let mut recorder = crate::recording::recorder(&a.store, out.quiet)?;
    let mut observer = |r: durability::fsync::Runs, label: &str| -> Box<dyn runner::Observer> {
        let mut bar = out.progress();
        bar.set_prefix(format!("{} {label} ", runs_of(r)));
        Box::new(bar)
    };
    // Other I/O on the targets' devices moves every flush time and can flip the verdict
    // (a trial on a disk the test suite shared): looked for before anything of ours runs.
    let dirs: Vec<&std::path::Path> = o.targets.iter().map(|t| t.as_path()).collect();
    let found = host::cheap(&dirs, experiment::hostcheck::WATCH);
    // Saved after every case (status `running`), so a killed suite keeps what it measured.
    let mut rep = durability::fsync::run(&o, crate::stop::stop_flag(), &mut observer, &mut |r| {
        recorder.record(&Document::Fsync(Box::new(r.clone())));
    })
    .map_err(|e| match e.downcast::<durability::fsync::NoSpace>() {
        Ok(no_space) => usage(no_space.to_string()),
        Err(e) => e,
    })?;
    rep.warnings.extend(experiment::hostcheck::records(&found));
    let doc = Document::Fsync(Box::new(rep));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}
