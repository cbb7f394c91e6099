//! Scale-out: one workload run by many processes (MPI ranks) on shared storage.
//!
//! - [`launcher`] reads a launcher's environment, so a binary started by the wrong MPI (each
//!   rank alone, each measuring the device as if it had it to itself) is refused, not believed.
//! - [`merge`] turns every rank's report into one: counts added, latency histograms added
//!   (percentiles of the sum, never averages), series summed on the common clock, a row per
//!   rank and per host. It needs no MPI, so it is tested in the ordinary build.
//! - `team` (feature `mpi`) is the MPI side: the start barrier, the stonewall, clock offsets,
//!   and gathering the reports to rank 0.
//! - [`world`] is what a command calls: join the world (or refuse a launch that cannot run),
//!   this rank's files or region, and a run in step with the other ranks.

pub mod launcher;
pub mod merge;
#[cfg(feature = "mpi")]
pub mod team;
pub mod world;

pub use launcher::Launch;
pub use merge::{merge, Part};
