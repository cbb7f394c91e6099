//! `volbench clean`, and the reclaiming every command does first: what a killed volbench
//! left (its server, scratch files, cgroup) is stopped and removed, and said.

use crate::cli::CleanArgs;
use std::process::ExitCode;

/// Where each running volbench writes down what it holds: beside the default store (so a
/// test's `VOLBENCH_STORE` keeps its records apart from the user's).
fn registry() -> std::path::PathBuf {
    store::Store::local_path().with_file_name("running")
}

/// Starts recording this process's leftovers and removes those of dead volbenches, with a
/// note for each (once, by whichever volbench starts first).
pub fn at_start() {
    let refused = leftovers::init(&registry());
    let traced = trace::record::sweep_stale();
    if scaleout::world::speaks() {
        for line in refused
            .into_iter()
            .chain(leftovers::reclaim())
            .chain(traced)
        {
            eprintln!("note: {line}");
        }
    }
}

pub fn main(a: CleanArgs) -> anyhow::Result<ExitCode> {
    if let Some(line) = leftovers::init(&registry()) {
        eprintln!("note: {line}");
    }
    for d in &a.dirs {
        if !d.is_dir() {
            return Err(crate::usage::usage(format!(
                "{}: not a directory: give the directories volbench ran db, fsync or infer in",
                d.display()
            )));
        }
    }
    let mut said = leftovers::reclaim();
    said.extend(leftovers::scan_dirs(&a.dirs));
    if said.is_empty() {
        println!("nothing to clean: no leftovers of a killed volbench");
    }
    for l in said {
        println!("{l}");
    }
    Ok(ExitCode::SUCCESS)
}
