//! `volbench quick [DIR]`: the `quick` suite (five standard tests) on a temporary file.

use super::overrides::Overrides;
use super::suite::run_suite;
use crate::cli::QuickArgs;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use workload::{format_bytes, short_size};

/// Below this a file is too small to leave the device's caches, so the numbers mean little.
const MIN_SIZE: u64 = 64 << 20;

/// The default 1 GiB, or, on a small filesystem, the largest multiple of 64 MiB that leaves a
/// fifth of the free space free (said on stderr). A newcomer's first command should run.
fn fitting_size(dir: &Path) -> Result<String> {
    let want = runner::DEFAULT_FILE_SIZE;
    let Some(free) = runner::free_bytes(dir) else {
        return Ok(short_size(want));
    };
    if free >= want + want / 4 {
        return Ok(short_size(want));
    }
    let fits = free / 5 * 4 / MIN_SIZE * MIN_SIZE;
    if fits < MIN_SIZE {
        return Err(super::usage(format!(
            "only {} is free in {}: quick needs at least {} for its test file; free space or name \
             another directory",
            format_bytes(free as f64),
            dir.display(),
            format_bytes((MIN_SIZE + MIN_SIZE / 4) as f64)
        )));
    }
    eprintln!(
        "note: only {} is free in {}, so quick uses a {} test file instead of {} (--size to choose)",
        format_bytes(free as f64),
        dir.display(),
        format_bytes(fits as f64),
        format_bytes(want as f64)
    );
    Ok(short_size(fits))
}

pub fn main(a: QuickArgs) -> Result<ExitCode> {
    if !a.dir.is_dir() {
        return Err(super::usage(format!(
            "directory {} does not exist: create it or name another",
            a.dir.display()
        )));
    }
    let size = match &a.size {
        Some(s) => s.clone(),
        None => fitting_size(&a.dir)?,
    };
    let o = Overrides {
        runtime: Some(a.runtime.clone()),
        size: Some(size),
        ioengine: Some(a.ioengine.clone()),
        direct: Some(a.direct.clone()),
        allow_destructive: false,
        repeat: a.repeat.clone(),
    };
    run_suite("quick", &a.dir, &o, &a.out, &a.store)
}
