//! `volbench quick [DIR]`: the five standard tests on a temporary file, one table.

use super::usage;
use crate::cli::QuickArgs;
use crate::output::{exit_code, Output};
use anyhow::{Context, Result};
use report::{exporter, Format, Status, SuiteReport, SuiteRun, SCHEMA_VERSION};
use std::io::Write;
use std::process::ExitCode;
use std::time::SystemTime;
use workload::{parse_bool, parse_duration, parse_size, EngineKind, JobSpec, Rw, Workload};

/// (label, pattern, block size, queue depth): bandwidth, random IOPS, and QD1 latency.
pub const TESTS: [(&str, Rw, u64, u32); 5] = [
    ("seq write 1M QD32", Rw::Write, 1 << 20, 32),
    ("rand read 4k QD128", Rw::RandRead, 4096, 128),
    ("rand write 4k QD128", Rw::RandWrite, 4096, 128),
    ("read latency 4k QD1", Rw::RandRead, 4096, 1),
    ("write latency 4k QD1", Rw::RandWrite, 4096, 1),
];

pub fn main(a: QuickArgs) -> Result<ExitCode> {
    let runtime = parse_duration(&a.runtime).map_err(|e| usage(format!("--runtime: {e}")))?;
    let size = parse_size(&a.size).map_err(|e| usage(format!("--size: {e}")))?;
    let direct = parse_bool(&a.direct).map_err(|e| usage(format!("--direct: {e}")))?;
    let ioengine = EngineKind::parse(&a.ioengine).ok_or_else(|| {
        usage(format!(
            "--ioengine={} is not available: use io_uring, libaio, psync or null",
            a.ioengine
        ))
    })?;
    if !a.dir.is_dir() {
        return Err(usage(format!(
            "directory {} does not exist: create it or name another",
            a.dir.display()
        )));
    }
    let mut out = Output::open(&a.out, false)?;
    // A private directory: everything quick creates is inside it and goes with it.
    let tmp = tempfile::Builder::new()
        .prefix(".volbench-quick-")
        .tempdir_in(&a.dir)
        .with_context(|| format!("cannot create a temporary directory in {}", a.dir.display()))?;
    let file = tmp.path().join("quick.test");
    let stop = super::stop_flag();
    let opts = runner::RunOptions {
        stop: stop.clone(),
        ..Default::default()
    };
    let started_at = humantime_now();
    let mut runs = Vec::new();
    let mut status = Status::Complete;
    for (i, (label, rw, bs, depth)) in TESTS.iter().enumerate() {
        let spec = JobSpec {
            name: "quick".into(),
            rw: *rw,
            bs: *bs,
            iodepth: *depth,
            size: Some(size),
            runtime: Some(runtime),
            time_based: true,
            direct,
            ioengine,
            filename: vec![file.clone()],
            ..JobSpec::default()
        };
        let mut bar = out.progress();
        bar.set_prefix(format!("{}/{} {label} ", i + 1, TESTS.len()));
        let report = runner::run(
            &Workload {
                jobs: vec![spec],
                ..Default::default()
            },
            &opts,
            &mut bar,
        )?;
        drop(bar);
        let st = report.status;
        runs.push(SuiteRun {
            label: label.to_string(),
            report,
        });
        if st != Status::Complete {
            status = st;
            break;
        }
    }
    let suite = SuiteReport {
        schema_version: SCHEMA_VERSION,
        suite: "quick".into(),
        started_at,
        status,
        runs,
    };
    let bytes = exporter(out.format).export_suite(&suite)?;
    out.write(&bytes)?;
    if out.file_path().is_some() && !out.quiet {
        std::io::stdout().write_all(&exporter(Format::Normal).export_suite(&suite)?)?;
    }
    drop(tmp);
    Ok(exit_code(status))
}

fn humantime_now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
