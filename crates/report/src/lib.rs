//! The run's results as one serializable model ([`RunReport`]) and the exporters that turn it
//! into bytes. Exporters are pure functions of the report, so each format is tested as one.

pub mod export;
pub mod model;

pub use export::{exporter, Exporter, Format};
pub use model::*;
