//! Several named runs reported together: `quick` and, later, the suites and sweeps.

use crate::{RunReport, Status};

impl SuiteReport {
    /// A suite or sweep starting now, with no run yet.
    pub fn started(suite: &str, version: &str) -> SuiteReport {
        SuiteReport {
            schema_version: crate::SCHEMA_VERSION,
            suite: suite.to_string(),
            version: version.to_string(),
            started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            status: Status::Running,
            runs: Vec::new(),
            findings: Vec::new(),
            pts: None,
            curve: None,
        }
    }

    /// Every target its points ran on, once each, in order: a sweep over `filename` runs on
    /// several (the first point's alone would name one of them).
    pub fn targets(&self) -> Vec<crate::TargetInfo> {
        let mut all: Vec<crate::TargetInfo> = Vec::new();
        for t in self.runs.iter().flat_map(|r| &r.report.environment.targets) {
            if !all.iter().any(|x| x.path == t.path) {
                all.push(t.clone());
            }
        }
        all
    }

    /// The final status of a sweep or suite whose last point is done: complete unless a point
    /// ended otherwise (checkpoints before this said `running`).
    pub fn finish(&mut self) {
        if self.status == Status::Running {
            self.status = Status::Complete;
        }
    }
}

impl SuiteRun {
    pub fn param(&self, k: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }
}
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuiteReport {
    pub schema_version: u32,
    pub suite: String,
    /// The suite file's `; version:` (empty for sweeps).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    pub started_at: String,
    /// Complete only if every run completed.
    pub status: Status,
    pub runs: Vec<SuiteRun>,
    /// What the analysis found: knees, ceilings, crossovers (sweeps).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
    /// A SNIA PTS test's rounds, steady-state verdict and table (the `pts-*` suites).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pts: Option<Box<crate::PtsReport>>,
    /// A latency-under-load curve's maximum, points and SLO answers (`volbench curve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<Box<crate::curve::CurveReport>>,
}

/// One conclusion drawn from a sweep, with the point it is about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// `knee`, `bandwidth_ceiling`, `iops_ceiling` or `crossover`.
    pub kind: String,
    pub message: String,
    /// Label of the point it marks, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    /// The number found: IOPS, bytes/s, or a block size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuiteRun {
    /// What the run measures, e.g. "rand read 4k QD128".
    pub label: String,
    /// The swept values of this point, e.g. [("numjobs", "4")] (sweeps only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<(String, String)>,
    pub report: RunReport,
}
