//! The run's results as one serializable model ([`RunReport`]) and the exporters that turn it
//! into bytes. Exporters are pure functions of the report, so each format is tested as one.

pub mod export;
pub mod model;
pub mod suite;

pub use export::{exporter, fmt_count, fmt_ns, Exporter, Format};
pub use model::*;
pub use suite::{SuiteReport, SuiteRun};
