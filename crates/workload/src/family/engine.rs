//! The I/O engine's own options and the jobs that are not block I/O (exec, cpuio).

use crate::spec::one;
use crate::values::*;
use serde::{Deserialize, Serialize};

/// The I/O engine's own options and the jobs that are not block I/O (exec, cpuio).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineOptions {
    /// Submit I/Os to the kernel in groups of this many (fio's `iodepth_batch_submit`); 1
    /// submits each as soon as it is ready, which keeps batches out of the block layer's plug.
    #[serde(default = "one")]
    pub iodepth_batch_submit: u32,
    /// fio's `iodepth_low`: once the queue is full, let it drain to this many before filling
    /// it again (0, or iodepth or more: keep it full).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub iodepth_low: u32,
    /// io_uring with a kernel thread polling the submission queue (fio's `sqthread_poll`),
    /// pinned to `sqthread_poll_cpu` when given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sqthread_poll: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqthread_poll_cpu: Option<u32>,
    /// fio's `uncached`: buffered I/O with RWF_DONTCACHE, its pages dropped once done.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncached: bool,
    /// fio's `atomic`: writes with RWF_ATOMIC (torn-write protection).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub atomic: bool,
    /// fio's `nowait`: every read and write with RWF_NOWAIT, so one that would block fails
    /// with EAGAIN instead (and ends the job, as in fio, unless carried past).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nowait: bool,
    /// fio's io_uring `force_async`: every Nth request is handed to an io-wq worker.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub force_async: u32,
    /// Polled completions (fio's `hipri`): io_uring with IORING_SETUP_IOPOLL, which needs
    /// O_DIRECT and a device with polled queues; psync (fio's pvsync2) with RWF_HIPRI, which
    /// the kernel ignores on devices without them.
    #[serde(default)]
    pub hipri: bool,
    /// fio's pvsync2 `hipri_percentage`: with `hipri`, the share of I/Os that are polled.
    #[serde(default = "hundred", skip_serializing_if = "is_hundred")]
    pub hipri_percent: u8,
    /// Write-lifetime hint (`RWH_WRITE_LIFE_*`: 1 none .. 5 extreme) set on each file (fio's
    /// `write_hint`); `None`: left as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_hint: Option<u64>,
    /// Every write durable on its own with RWF_DSYNC (pwritev2/io_uring/libaio), the per-write
    /// form of O_DSYNC. No fio option does this; volbench's `rwf_dsync`.
    #[serde(default)]
    pub rwf_dsync: bool,
    /// The I/O scheduler the job's disk runs during the run (fio's `ioscheduler`), switched
    /// back afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioscheduler: Option<String>,
    /// fio's exec engine's options.
    #[serde(default, skip_serializing_if = "ExecJob::is_unset")]
    pub exec: ExecJob,
    /// fio's cpuio engine's options.
    #[serde(default, skip_serializing_if = "CpuIo::is_unset")]
    pub cpuio: CpuIo,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            iodepth_batch_submit: 1,
            iodepth_low: 0,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            uncached: false,
            atomic: false,
            nowait: false,
            force_async: 0,
            hipri: false,
            hipri_percent: 100,
            write_hint: None,
            rwf_dsync: false,
            ioscheduler: None,
            exec: ExecJob::default(),
            cpuio: CpuIo::default(),
        }
    }
}
