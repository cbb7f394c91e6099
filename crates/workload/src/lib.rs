//! What to do, as pure data: job specifications, fio's units, and validation.
//!
//! Nothing here performs a syscall. The CLI, fio job files and suites all build a [`Workload`];
//! the runner executes it. Checks that need the target (logical block size, free space) live in
//! the runner, because only it knows the device.

pub mod distribution;
pub mod family;
pub mod fio;
pub mod input;
pub mod jobfile;
pub mod lat_target;
pub mod replay;
pub mod spec;
pub mod steady;
pub mod units;
pub mod validate;
pub mod values;

pub use distribution::Distribution;
pub use family::{
    Buffers, Checking, EngineOptions, Files, LatencyLimits, OnError, Pattern, ProcessOptions,
    Rates, Region, Reporting, SyncOptions, Timing,
};
pub use spec::{
    BsSplit, BufferMode, CmdPrio, CpuIo, Dedupe, EngineKind, ExecJob, Fallocate, FileOp,
    FileService, FileServiceKind, JobSpec, LockFile, Rw, SyncIo, SyncMode, Think, Trim, TrimBack,
    Verify, Workload, WriteSizes,
};
pub use units::{format_bytes, parse_bool, parse_duration, parse_size, short_size, UnitError};

/// User text as it may be echoed in a message: control characters escaped (a job file cannot
/// drive the terminal) and anything past 60 characters cut, so a megabyte of garbage is
/// named, not printed.
pub fn shown(s: &str) -> String {
    const MAX: usize = 60;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push_str(&format!("... ({} characters)", s.chars().count()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
