//! `DbReport`: a TPC-B-like database benchmark on one or more directories, with the
//! explanation of each result by the device's flush latency.
//!
//! For one target the report carries that run's figures at top level (`tps`, `transactions`,
//! `failed`, `latency_ns`) as well as in `runs`; for several, `runs` holds one object each.

use crate::{Environment, Status, Tool, WarningRecord};
use serde::{Deserialize, Serialize};
use stats::LatencySummary;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DbReport {
    pub schema_version: u32,
    pub tool: Tool,
    pub started_at: String,
    pub started_unix: u64,
    pub command_line: Vec<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `sqlite` or `postgres`.
    pub engine: String,
    pub scale: u32,
    pub clients: u32,
    /// Threads PostgreSQL's clients ran on (pgbench -j); absent for SQLite (a thread each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u32>,
    /// Transactions per client, when the run was sized by count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions_per_client: Option<u64>,
    /// Seconds, when the run was sized by time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    pub environment: Environment,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<LatencySummary>,
    pub runs: Vec<DbRun>,
    #[serde(default)]
    pub warnings: Vec<WarningRecord>,
}

/// The workload on one directory (or one server given by URL).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DbRun {
    /// The directory, or the server URL without its password.
    pub target: String,
    pub engine: String,
    /// The server's version, or SQLite's.
    pub engine_version: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Committed transactions.
    pub transactions: u64,
    /// Transactions that failed for good (a client stops at its first such failure).
    pub failed: u64,
    /// Attempts retried after a serialization failure, deadlock or busy database.
    pub retried: u64,
    pub tps: f64,
    /// Latency of each committed transaction, retries and waits included.
    pub latency_ns: LatencySummary,
    /// Committed transactions in each second of the run.
    pub tps_per_sec: Vec<f64>,
    /// When the clients' clock started (Unix ms): second k of `tps_per_sec` is the k-th after.
    #[serde(default)]
    pub started_unix_ms: u64,
    pub elapsed_ns: u64,
    /// Creating and filling the tables (pgbench -i's work), in nanoseconds.
    pub load_ns: u64,
    pub explanation: Explanation,
}

/// Why the tps is what it is.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Explanation {
    /// Median and mean of a QD1 8 KiB write + fdatasync in the directory (the probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_p50_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_mean_ns: Option<f64>,
    /// The mean WAL flush during the run itself, where the server measured it: the figure
    /// the ceiling then rests on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_run_mean_ns: Option<f64>,
    /// Commits per second one flush stream allows: 1 s / the mean flush (the run's own where
    /// measured, else the probe's; absent where the run contradicts the probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_ceiling_tps: Option<f64>,
    /// WAL flushes during the run (PostgreSQL's pg_stat_wal; SQLite: one per commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_flushes: Option<u64>,
    /// Share of the run the WAL spent flushing (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_busy: Option<f64>,
    /// CPU of client and server over the CPU the workload could use (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_busy: Option<f64>,
    /// The file system's device during the run, from its own counters: writes completed
    /// per second, and the share of the run it had I/O in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_writes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_busy: Option<f64>,
    /// The write IOPS cap this process ran under on that device (a cgroup's), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_write_iops_cap: Option<u64>,
    /// Other processes' share of the host's CPUs over the run (0..1), where the workload's own
    /// CPU time is all known (SQLite, a throwaway cluster).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu_others: Option<f64>,
    /// The hypervisor's steal over the run, as a share of the host's CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu_steal: Option<f64>,
    /// `iops` or `bandwidth` (the device at its cap), `flush`, `cpu`, `device` (busy all
    /// the run), `lock` or `unknown`.
    pub bound: String,
    pub summary: String,
}
