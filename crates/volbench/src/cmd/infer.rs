//! `volbench infer TARGET|RESULT`: a volume's limits from a probe of TARGET (crate `cloud`),
//! or from a stored result without new I/O; stored in history like any result.

use crate::cli::InferArgs;
use crate::output::Output;
use crate::usage::usage;
use ::cloud::catalog::Catalog;
use anyhow::Result;
use experiment::infer::{self, Options};
use report::Document;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use workload::{parse_duration, parse_size, EngineKind};

fn options(a: &InferArgs) -> Result<Options> {
    let dur = |opt: &str, v: &str| parse_duration(v).map_err(|e| usage(format!("--{opt}: {e}")));
    let engine = match a.ioengine.as_str() {
        "io_uring" => EngineKind::IoUring,
        "libaio" => EngineKind::Libaio,
        "psync" => EngineKind::Psync,
        e => {
            return Err(usage(format!(
                "--ioengine {e}: choose io_uring, libaio or psync"
            )))
        }
    };
    if !(1..=4096).contains(&a.max_depth) || !(1..=4096).contains(&a.burst_depth) {
        return Err(usage("--max-depth and --burst-depth must be 1 to 4096"));
    }
    Ok(Options {
        target: a.target.clone().into(),
        write: a.write,
        allow_destructive: a.allow_destructive,
        point_time: dur("point-time", &a.point_time)?.max(std::time::Duration::from_millis(500)),
        burst_time: dur("burst-time", &a.burst_time)?,
        burst_depth: a.burst_depth,
        burst_bs: parse_size(&a.burst_bs).map_err(|e| usage(format!("--burst-bs: {e}")))?,
        refill_wait: dur("refill-wait", &a.refill_wait)?,
        max_depth: a.max_depth,
        size: parse_size(&a.size).map_err(|e| usage(format!("--size: {e}")))?,
        engine,
        stop: crate::stop::stop_flag(),
    })
}

pub fn main(a: InferArgs) -> Result<ExitCode> {
    let cat = Catalog::load(a.catalog.as_deref()).map_err(|e| usage(format!("{e:#}")))?;
    let mut out = Output::open(&a.out, false)?;
    let p = Path::new(&a.target);
    let probe = p.is_dir()
        || std::fs::metadata(p).is_ok_and(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_block_device()
        });
    let rep = if probe {
        let o = options(&a)?;
        let loud = !out.quiet && std::io::stderr().is_terminal();
        infer::probe(&o, Some(&cat), &mut |msg| {
            if loud {
                eprintln!("infer: {msg}");
            }
        })?
    } else {
        let mut store = None;
        let doc = crate::inputs::input(&mut store, &a.store.store, &a.target)?;
        infer::from_document(&doc, &a.target, Some(&cat)).map_err(|e| usage(format!("{e:#}")))?
    };
    let doc = Document::Infer(Box::new(rep));
    let mut recorder = crate::recording::recorder(&a.store, out.quiet)?;
    if probe {
        recorder.record(&doc);
    }
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}
