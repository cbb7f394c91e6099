//! Several named runs reported together: `quick` and, later, the suites and sweeps.

use crate::{RunReport, Status};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    pub schema_version: u32,
    pub suite: String,
    pub started_at: String,
    /// Complete only if every run completed.
    pub status: Status,
    pub runs: Vec<SuiteRun>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SuiteRun {
    /// What the run measures, e.g. "rand read 4k QD128".
    pub label: String,
    pub report: RunReport,
}
