//! What to do, as pure data: job specifications, fio's units, and validation.
//!
//! Nothing here performs a syscall. The CLI, fio job files and suites all build a [`Workload`];
//! the runner executes it. Checks that need the target (logical block size, free space) live in
//! the runner, because only it knows the device.

pub mod fio;
pub mod jobfile;
pub mod spec;
pub mod units;

pub use spec::{BsSplit, BufferMode, EngineKind, JobSpec, Rw, SyncIo, SyncMode, Verify, Workload};
pub use units::{format_bytes, parse_bool, parse_duration, parse_size, short_size, UnitError};
