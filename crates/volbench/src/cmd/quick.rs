//! `volbench quick [DIR]`: the `quick` suite (five standard tests) on a temporary file.

use super::suite::{run_suite, Overrides};
use crate::cli::QuickArgs;
use anyhow::Result;
use std::process::ExitCode;

pub fn main(a: QuickArgs) -> Result<ExitCode> {
    if !a.dir.is_dir() {
        return Err(super::usage(format!(
            "directory {} does not exist: create it or name another",
            a.dir.display()
        )));
    }
    let o = Overrides {
        runtime: Some(a.runtime.clone()),
        size: Some(a.size.clone()),
        ioengine: Some(a.ioengine.clone()),
        direct: Some(a.direct.clone()),
        allow_destructive: false,
    };
    run_suite("quick", &a.dir, &o, &a.out, &a.store)
}
