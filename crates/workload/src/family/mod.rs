//! JobSpec's option families: one struct per family, flattened into `JobSpec` so its JSON
//! (stored reports, the options echoed in fio-JSON) reads as one flat map, as before.
//! A new fio option goes into its family's file here, beside its table entry.

mod buffers;
mod checking;
mod engine;
mod errors;
mod files;
mod latency;
mod pattern;
mod process;
mod rates;
mod region;
mod reporting;
mod sync;
mod timing;

pub use buffers::Buffers;
pub use checking::Checking;
pub use engine::EngineOptions;
pub use errors::OnError;
pub use files::Files;
pub use latency::LatencyLimits;
pub use pattern::Pattern;
pub use process::ProcessOptions;
pub use rates::Rates;
pub use region::Region;
pub use reporting::Reporting;
pub use sync::SyncOptions;
pub use timing::Timing;
