//! `volbench run`: one workload from fio-style options.

use super::usage;
use crate::cli::RunArgs;
use crate::output::Output;
use anyhow::Result;
use std::process::ExitCode;
use workload::{
    parse_bool, parse_duration, parse_size, BufferMode, EngineKind, JobSpec, Rw, SyncMode, Verify,
    Workload,
};

fn flag(v: &Option<String>) -> Result<Option<bool>> {
    v.as_deref()
        .map(parse_bool)
        .transpose()
        .map_err(|e| usage(e.to_string()))
}

fn size(v: &Option<String>, opt: &str) -> Result<Option<u64>> {
    v.as_deref()
        .map(|s| parse_size(s).map_err(|e| usage(format!("--{opt}: {e}"))))
        .transpose()
}

fn pattern(s: &str) -> Result<Vec<u8>> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() % 2 != 0 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(usage(format!(
                "--buffer_pattern={s} is not whole hex bytes: use e.g. 0xdeadbeef"
            )));
        }
        return Ok((0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect());
    }
    let s = s.trim_matches(|c| c == '"' || c == '\'');
    Ok(s.as_bytes().to_vec())
}

/// Turns options into a job: defaults first, then every option given.
pub fn spec_from_args(a: &RunArgs) -> Result<JobSpec> {
    let mut j = JobSpec::default();
    if let Some(n) = &a.name {
        j.name = n.clone();
    }
    if let Some(rw) = &a.rw {
        j.rw = Rw::parse(rw).ok_or_else(|| {
            usage(format!(
                "--rw={rw} is not a pattern: use read, write, randread, randwrite, rw or randrw"
            ))
        })?;
    }
    if let Some(m) = a.rwmixread {
        j.rwmixread = m;
    }
    if let Some(bs) = size(&a.bs, "bs")? {
        j.bs = bs;
    }
    if let Some(d) = a.iodepth {
        j.iodepth = d;
    }
    if let Some(n) = a.numjobs {
        j.numjobs = n;
    }
    j.size = size(&a.size, "size")?;
    if let Some(o) = size(&a.offset, "offset")? {
        j.offset = o;
    }
    let runtime = a
        .runtime
        .as_deref()
        .map(|s| parse_duration(s).map_err(|e| usage(format!("--runtime: {e}"))))
        .transpose()?;
    // fio's rule is "time-based only if asked"; volbench's default run is 30 s time-based, but a
    // bare --size means "do this much I/O once", as a fio user expects.
    j.time_based = match flag(&a.time_based)? {
        Some(t) => t,
        None => runtime.is_some() || j.size.is_none(),
    };
    if runtime.is_some() || j.time_based {
        j.runtime = runtime.or(j.runtime);
    } else {
        j.runtime = None;
    }
    if let Some(r) = &a.ramp_time {
        j.ramp_time = parse_duration(r).map_err(|e| usage(format!("--ramp_time: {e}")))?;
    }
    if let Some(d) = flag(&a.direct)? {
        j.direct = d;
    }
    if let Some(e) = &a.ioengine {
        j.ioengine = EngineKind::parse(e).ok_or_else(|| {
            usage(format!(
                "--ioengine={e} is not available: use io_uring, libaio, psync or null"
            ))
        })?;
    }
    j.filename = a.filename.iter().cloned().collect();
    j.directory = a.directory.clone();
    match (a.fsync, a.fdatasync) {
        (Some(_), Some(_)) => {
            return Err(usage(
                "--fsync and --fdatasync exclude each other: pick one",
            ))
        }
        (Some(n), None) => j.sync_every = n,
        (None, Some(n)) => {
            j.sync_every = n;
            j.sync_mode = SyncMode::Fdatasync;
        }
        (None, None) => {}
    }
    if let Some(e) = flag(&a.end_fsync)? {
        j.end_fsync = e;
    }
    if let Some(s) = a.randseed {
        j.randseed = s;
    }
    if flag(&a.zero_buffers)? == Some(true) {
        j.buffer = BufferMode::Zero;
    }
    if let Some(p) = &a.buffer_pattern {
        j.buffer = BufferMode::Pattern(pattern(p)?);
    }
    if let Some(v) = &a.verify {
        j.verify = match v.as_str() {
            "crc32c" | "crc32c-intel" => Some(Verify::Crc32c),
            "md5" => Some(Verify::Md5),
            "0" | "none" => None,
            _ => return Err(usage(format!("--verify={v} is not supported: use crc32c"))),
        };
    }
    j.allow_destructive = a.allow_destructive;
    j.validate().map_err(|e| usage(e.to_string()))?;
    Ok(j)
}

pub fn main(a: RunArgs) -> Result<ExitCode> {
    let spec = spec_from_args(&a)?;
    let mut out = Output::open(&a.out)?;
    let opts = runner::RunOptions {
        stop: super::stop_flag(),
        unlink: flag(&a.unlink)?.unwrap_or(false),
        ..Default::default()
    };
    let workload = Workload { jobs: vec![spec] };
    let mut progress = out.progress();
    let report = runner::run(&workload, &opts, &mut progress)?;
    drop(progress);
    out.emit(&report)
}
