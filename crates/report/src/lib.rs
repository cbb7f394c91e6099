//! The run's results as one serializable model ([`RunReport`]) and the exporters that turn it
//! into bytes. Exporters are pure functions of the report, so each format is tested as one.

pub mod export;
pub mod model;
pub mod suite;

pub use export::{exporter, fmt_count, fmt_ns, Exporter, Format};
pub use model::*;
pub use suite::{SuiteReport, SuiteRun};

/// A job as fio options, for fio-json's "job options".
pub fn fio_options(spec: &workload::JobSpec) -> serde_json::Map<String, serde_json::Value> {
    workload::fio::options(spec)
        .into_iter()
        .map(|(k, v)| (k, serde_json::Value::String(v)))
        .collect()
}
