//! Statistics: latency histograms, per-second series, per-job counters, and the warnings that
//! judge whether a number can be trusted.
//!
//! Everything here merges exactly: histograms add bucket by bucket, counters add, so a group's
//! percentiles come from the merged histogram of its jobs (and later, hosts), never from averaging
//! percentiles. Nothing here formats output but the warnings' own sentences, whose figures
//! go through `figures` as every report's do.

pub mod fold;
pub mod hist;
pub mod interval;
pub mod job;
pub mod live;
pub mod pct;
pub mod series;
pub mod spill;
pub mod spread;
pub mod steady;
pub mod warnings;
pub mod winlog;

pub use hist::{LatHist, LatencySummary, Percentile, FIO_PERCENTILES};
pub use job::{DirStats, Errors, JobStats, Lateness, ReplayStats, DEPTH_BUCKETS};
pub use live::LiveHist;
pub use series::{LatPct, Sample, Series, SeriesSummary};
pub use spread::{welch, Spread, Verdict, Welch};
pub use warnings::Warning;
pub use winlog::{HistWindow, WindowLog};
