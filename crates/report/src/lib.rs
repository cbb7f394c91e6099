//! The run's results as one serializable model ([`RunReport`]) and the exporters that turn it
//! into bytes. Exporters are pure functions of the report, so each format is tested as one.

pub mod analysis;
pub mod compare;
pub mod export;
pub mod model;
pub mod suite;

pub use export::{exporter, fmt_count, fmt_ns, Exporter, Format};
pub use model::*;
pub use suite::{Finding, SuiteReport, SuiteRun};

/// A stored or exported result: one run, or a suite or sweep of runs.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Document {
    Run(Box<RunReport>),
    Suite(Box<SuiteReport>),
}

impl Document {
    /// `run`, `sweep` or `suite`.
    pub fn kind(&self) -> &'static str {
        match self {
            Document::Run(_) => "run",
            Document::Suite(s) if s.suite == "sweep" => "sweep",
            Document::Suite(_) => "suite",
        }
    }
    pub fn started_at(&self) -> &str {
        match self {
            Document::Run(r) => &r.started_at,
            Document::Suite(s) => &s.started_at,
        }
    }
    pub fn first_run(&self) -> Option<&RunReport> {
        match self {
            Document::Run(r) => Some(r),
            Document::Suite(s) => s.runs.first().map(|r| &r.report),
        }
    }
    pub fn suite_name(&self) -> Option<&str> {
        match self {
            Document::Run(_) => None,
            Document::Suite(s) => Some(&s.suite),
        }
    }
    pub fn status(&self) -> Status {
        match self {
            Document::Run(r) => r.status,
            Document::Suite(s) => s.status,
        }
    }
    /// Exports through one format's exporter.
    pub fn export(&self, e: &dyn Exporter) -> anyhow::Result<Vec<u8>> {
        match self {
            Document::Run(r) => e.export(r),
            Document::Suite(s) => e.export_suite(s),
        }
    }
}

/// A job as fio options, for fio-json's "job options".
pub fn fio_options(spec: &workload::JobSpec) -> serde_json::Map<String, serde_json::Value> {
    workload::fio::options(spec)
        .into_iter()
        .map(|(k, v)| (k, serde_json::Value::String(v)))
        .collect()
}
