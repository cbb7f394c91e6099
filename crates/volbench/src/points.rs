//! The points of a suite, sweep or curve: each one job, measured through the experiment
//! driver, appended to the running report with its swept values, and the report written
//! (store and `--output`) after every point so an interrupted run keeps what it measured.

use crate::output::Output;
use anyhow::Result;
use report::{Document, Status, SuiteReport, SuiteRun};
use workload::{JobSpec, Workload};

/// What a suite or sweep keeps while its points run: the report, the output and the store.
pub type Running = (SuiteReport, Output, store::Recorder);

/// Written after every point (store and `--output`), so an interrupted suite or sweep keeps
/// what it measured.
pub fn checkpoint((suite, out, recorder): &mut Running) -> Result<()> {
    let doc = Document::Suite(Box::new(suite.clone()));
    recorder.record(&doc);
    out.checkpoint(&doc)
}

/// Runs one test of a suite or sweep (a single job), appends it with its swept values, and
/// redoes the analysis over everything so far. Returns how the test ended.
pub fn run_test(
    suite: &mut SuiteReport,
    out: &Output,
    driver: &experiment::Driver,
    label: String,
    params: Vec<(String, String)>,
    spec: JobSpec,
    prefix: String,
) -> Result<Status> {
    let w = Workload {
        jobs: vec![spec],
        ..Default::default()
    };
    let report = driver.measure(&w, &mut || {
        let mut bar = out.progress();
        bar.set_prefix(prefix.clone());
        Box::new(bar)
    })?;
    let st = report.status;
    suite.runs.push(SuiteRun {
        label,
        params,
        report,
    });
    suite.findings = report::analysis::analyze(suite);
    if st != Status::Complete {
        suite.status = st;
    }
    Ok(st)
}
