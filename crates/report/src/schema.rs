//! `RunReport`: everything a run produced, with units in the key names.
//!
//! The JSON form of this model is the native, versioned schema documented in
//! `docs/json-schema.md`. Add fields freely; renaming or removing one bumps
//! [`SCHEMA_VERSION`].

use serde::{Deserialize, Serialize};
use stats::{JobStats, LatencySummary, Series, SeriesSummary, Warning, DEPTH_BUCKETS};

/// A warning as stored: its stable code and the sentence with the fix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WarningRecord {
    pub code: String,
    pub message: String,
}

impl From<&Warning> for WarningRecord {
    fn from(w: &Warning) -> Self {
        WarningRecord {
            code: w.code().to_string(),
            message: w.to_string(),
        }
    }
}

impl std::fmt::Display for WarningRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
use workload::Workload;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every job ran to its end.
    Complete,
    /// A job stopped on an error; what it measured until then is kept.
    Partial,
    /// The user stopped the run (Ctrl-C); what was measured until then is kept.
    Interrupted,
    /// A sweep or suite still under way: its checkpoints say so until the last point is done,
    /// so one that was killed (SIGKILL, power loss) is never mistaken for a complete one.
    Running,
}

impl Status {
    /// The status as the JSON writes it (`complete`, `interrupted`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Partial => "partial",
            Status::Interrupted => "interrupted",
            Status::Running => "running",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunReport {
    pub schema_version: u32,
    pub tool: Tool,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// The same instant in seconds since the Unix epoch.
    pub started_unix: u64,
    pub command_line: Vec<String>,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The workload as it ran, every default filled in.
    pub workload: Workload,
    pub environment: Environment,
    pub jobs: Vec<JobReport>,
    /// All jobs merged: counts added, histograms merged, runtime of the longest job.
    pub group: JobReport,
    /// One merged report per reporting group (fio's `new_group`/`stonewall` boundaries).
    pub groups: Vec<GroupReport>,
    /// Options of the job file's `[global]` sections, as written (fio-json's "global options").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_options: Vec<(String, String)>,
    pub warnings: Vec<WarningRecord>,
    /// Under MPI: the run as several processes (ranks) did it, one row each, rank 0 first;
    /// `jobs`, `groups` and `group` are then the ranks' figures merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<RankReport>,
    /// Under MPI: how the ranks were laid out and how closely they ran together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaleout: Option<ScaleOut>,
    /// `--repeat`: the runs this result is the mean of, and the spread of its figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Box<crate::repeats::Repeats>>,
}

/// One MPI rank's own figures: what it moved over its own measured interval.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankReport {
    pub rank: u32,
    pub host: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub targets: Vec<String>,
    pub runtime_ns: u64,
    /// When this rank's measured interval began, after the earliest rank's (clock offsets
    /// between hosts removed).
    pub start_offset_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<DirReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<DirReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncReport>,
}

impl RankReport {
    pub fn total_iops(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |d| d.iops) + self.write.as_ref().map_or(0.0, |d| d.iops)
    }

    pub fn total_bw_bytes(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |d| d.bw_bytes)
            + self.write.as_ref().map_or(0.0, |d| d.bw_bytes)
    }
}

/// How a multi-rank run was spread and synchronised.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ScaleOut {
    /// Number of ranks (MPI's world size).
    pub size: u32,
    /// The MPI library, as it names itself.
    pub library: String,
    /// `file-per-process` (one file per rank in a directory) or `shared-file` (one file, a
    /// region per rank).
    pub layout: String,
    /// Spread of the ranks' starts of the measured interval (latest minus earliest).
    pub start_skew_ns: u64,
    /// Spread of the ranks' ends of the measured interval.
    pub end_skew_ns: u64,
    /// The interval every rank was measuring (latest start to earliest end).
    pub common_ns: u64,
    /// Largest clock offset between a host and rank 0's, estimated by ping-pong and removed
    /// from the skews above (0 on one host).
    pub max_clock_offset_ns: u64,
    pub hosts: Vec<HostReport>,
    /// Slowest and fastest rank by IOPS: the slowest rank is often the story.
    pub spread: Option<RankSpread>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct HostReport {
    pub host: String,
    pub ranks: Vec<u32>,
    pub iops: f64,
    pub bw_bytes: f64,
    /// The I/Os and bytes this host's ranks completed in the measured interval (reads and
    /// writes): what the host's own device counted, when each host has its own.
    #[serde(default)]
    pub ios: u64,
    #[serde(default)]
    pub bytes: u64,
    pub environment: Environment,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RankSpread {
    pub slowest_rank: u32,
    pub slowest_iops: f64,
    pub fastest_rank: u32,
    pub fastest_iops: f64,
    pub mean_iops: f64,
    /// Standard deviation over ranks, percent of the mean.
    pub cv_percent: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    /// This build of volbench, as every report names it.
    pub fn volbench() -> Tool {
        Tool {
            name: "volbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// A report's start: RFC 3339 (UTC, seconds) and seconds since the Unix epoch.
pub fn started(t: std::time::SystemTime) -> (String, u64) {
    (
        humantime::format_rfc3339_seconds(t).to_string(),
        t.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Environment {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: u32,
    pub memory_bytes: u64,
    /// The cloud and instance type, from DMI, where the machine has DMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::machine::Machine>,
    pub targets: Vec<TargetInfo>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TargetInfo {
    pub path: String,
    /// Under MPI with several hosts: the host this target was seen from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// A file's state when the run began: `existing` (there already, full size), `filled`
    /// (volbench wrote data into it first), `allocated` (space reserved, never written: a
    /// write-only fio job's file, as fio lays it out) or `sparse` (size set only). Writes to an
    /// allocated or sparse file pay for allocation; overwrites of a filled one do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// `file` or `block_device`.
    pub kind: String,
    pub size_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<FilesystemInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceInfo>,
    /// What the kernel counted on the device during the measured run (`/sys/block/*/stat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_counters: Option<KernelCounters>,
    /// What volbench read of the device before the run to check that writing it destroys
    /// nothing (`blkid -p`): said, and outside `kernel_counters`. Absent where no check ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_reads: Option<CheckedReads>,
}

/// The reads of the safety check before a run that writes a block device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedReads {
    pub ios: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FilesystemInfo {
    pub fs_type: String,
    pub mount_point: String,
    pub mount_options: String,
    pub source: String,
}

impl FilesystemInfo {
    /// What in this file system stores written data smaller than it was written, as its
    /// mount shows it: btrfs's `compress`/`compress-force`, or ZFS (whose datasets compress
    /// with lz4 by default). None for a file system that stores what it is given.
    pub fn compresses(&self) -> Option<String> {
        let opt = self
            .mount_options
            .split(',')
            .find(|o| o.starts_with("compress"));
        match (self.fs_type.as_str(), opt) {
            ("btrfs", Some(o)) => Some(format!("btrfs mounted with {o} at {}", self.mount_point)),
            ("zfs", _) => Some(format!(
                "a ZFS dataset ({}: `zfs get compression,dedup {}` says how it stores data)",
                self.mount_point, self.source
            )),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Kernel name of the whole disk, e.g. `nvme0n1`, `vda`, `zram0`.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    pub model: String,
    pub firmware: String,
    pub size_bytes: u64,
    pub logical_block_size: u32,
    pub physical_block_size: u32,
    pub rotational: bool,
    pub scheduler: String,
    /// `write back` or `write through`, as the kernel reports the volatile cache.
    pub write_cache: String,
    /// Whether the device takes FUA (force unit access) writes (`queue/fua`); without FUA the
    /// kernel turns an O_DSYNC/RWF_DSYNC write into a write plus a flush.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fua: Option<bool>,
    /// For md/dm/loop-style devices: the devices underneath (`slaves/`), with their own facts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<DeviceInfo>,
}

/// Deltas of `/sys/block/<dev>/stat` over the measured run. `*_ios` count requests the device
/// completed; the block layer merges adjacent I/Os first, so `*_ios + *_merges` is what was
/// submitted and is what compares with volbench's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelCounters {
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_bytes: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_bytes: u64,
    pub flush_ios: u64,
    /// Milliseconds requests spent in the device, reads and writes.
    pub read_ticks_ms: u64,
    pub write_ticks_ms: u64,
    /// Milliseconds the device had I/O in flight (utilisation = this / runtime).
    pub io_ticks_ms: u64,
    /// Weighted milliseconds in queue (fio's `in_queue`).
    pub time_in_queue_ms: u64,
    /// Wall time between the two snapshots these counts are the difference of: the kernel's
    /// rate over the run is `ios / interval`.
    #[serde(default)]
    pub interval_ns: u64,
}

impl KernelCounters {
    /// The counters of two devices read over the same run, added up (a striped target's
    /// members); the interval is the longer of the two.
    pub fn plus(self, b: KernelCounters) -> KernelCounters {
        let a = self;
        KernelCounters {
            read_ios: a.read_ios + b.read_ios,
            read_merges: a.read_merges + b.read_merges,
            write_merges: a.write_merges + b.write_merges,
            read_bytes: a.read_bytes + b.read_bytes,
            write_ios: a.write_ios + b.write_ios,
            write_bytes: a.write_bytes + b.write_bytes,
            flush_ios: a.flush_ios + b.flush_ios,
            read_ticks_ms: a.read_ticks_ms + b.read_ticks_ms,
            write_ticks_ms: a.write_ticks_ms + b.write_ticks_ms,
            io_ticks_ms: a.io_ticks_ms + b.io_ticks_ms,
            time_in_queue_ms: a.time_in_queue_ms + b.time_in_queue_ms,
            interval_ns: a.interval_ns.max(b.interval_ns),
        }
    }
}

/// The jobs of one reporting group, merged.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GroupReport {
    /// True when the group's jobs asked for `group_reporting` (fio then reports only the group).
    pub group_reporting: bool,
    /// Index into `workload.jobs` of the group's first job.
    pub spec_index: usize,
    pub report: JobReport,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobReport {
    pub name: String,
    /// Reporting group (fio's `groupid`).
    #[serde(default)]
    pub groupid: u32,
    /// Index into `workload.jobs` of the spec this job was cloned from.
    #[serde(default)]
    pub spec_index: usize,
    /// Files or devices this job used.
    pub targets: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<DirReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<DirReport>,
    /// Discards (fio's rw=trim, randtrim, trimwrite), done in place as fio does them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncReport>,
    pub runtime_ns: u64,
    pub cpu: CpuReport,
    pub iodepth: DepthReport,
    pub series: Series,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Blocks read back and checked by the `do_verify` pass after a verified write job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified_blocks: Option<u64>,
    /// That pass's reads, outside the measured figures, with rates over its own time
    /// (`runtime_ns`). fio counts them as the job's reads; fio-JSON does too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<DirReport>,
    /// The job ended inside its ramp_time, so its whole run was counted (fio's rule).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ramp_swallowed: bool,
    /// Window maxima and latency histograms kept for fio's `log_max_value` and
    /// `write_hist_log`, when the job asked for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fio_windows: Option<stats::WindowLog>,
    /// fio's steady-state stop, when the job asked for one (`ss_dur`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<SteadyReport>,
    /// fio's latency-target search, when the job asked for one (`latency_target`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_target: Option<LatTargetReport>,
    /// A replayed trace's fidelity and its latency beside the trace's (`read_iolog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Box<crate::ReplayReport>>,
    /// What ended the job's measured I/O (a job's own report; absent in merged reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<Ended>,
    /// How long the I/Os in flight when the window closed took to complete afterwards: not
    /// counted in any figure, but the run waited for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain_ns: Option<u64>,
    /// Whether the job's large-block buffers sit on huge pages (only slots over 64 KiB are
    /// put there): on small pages a 1 MiB direct I/O can become two requests on a virtio disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_page_buffers: Option<bool>,
    /// I/Os that failed and were carried past (`continue_on_error`): per errno, left out of
    /// every figure above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<stats::Errors>,
}

/// What ended a job's measured I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// Its `--runtime` ran out.
    Runtime,
    /// It issued all of its `--size` (times `loops`), or its `io_size`.
    Size,
    /// It issued its `number_ios`.
    NumberIos,
    /// A replayed trace ended.
    Trace,
    /// Its steady-state criterion held (`ss`).
    Steady,
    /// Ctrl-C, a peer's end, or another job's `exitall`.
    Stopped,
    /// An error ended it.
    Error,
    /// The file system filled up (`fill_fs`: ENOSPC or EDQUOT is its end, as in fio).
    Full,
}

impl Ended {
    /// The words for a report: "its --runtime ran out".
    pub fn describe(self) -> &'static str {
        match self {
            Ended::Runtime => "its --runtime ran out",
            Ended::Size => "it did all of its --size",
            Ended::NumberIos => "it issued its number_ios",
            Ended::Trace => "its trace ended",
            Ended::Steady => "it reached steady state",
            Ended::Stopped => "it was stopped",
            Ended::Full => "the file system filled up (fill_fs)",
            Ended::Error => "an error ended it",
        }
    }
}

/// Where a job's latency-target search ended: the settings and the depth it found. The
/// job's figures are those of the windows run at that depth (fio's reset of its stats).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatTargetReport {
    pub target_ns: u64,
    pub window_ns: u64,
    pub percentile: f64,
    /// The depth in use when the job ended.
    pub depth: u32,
    /// The search settled on `depth` before the job ended; false when the run ended first,
    /// and the figures then mix the depths tried.
    pub settled: bool,
}

/// How a job's steady-state stop went: the criterion, whether and when it held, and the
/// last window judged (fio's `steadystate` block).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyReport {
    pub criterion: workload::steady::Criterion,
    pub duration_ns: u64,
    pub ramp_ns: u64,
    pub interval_ns: u64,
    pub attained: bool,
    /// When it held, in ns from the job's start (ramp_time included, as fio's clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attained_at_ns: Option<u64>,
    /// The last window's judgement: the criterion's value, deviation and slope.
    pub judged: stats::steady::Judged,
    /// The last window's samples, oldest first: IOPS, bytes/s, mean completion latency (ns).
    pub iops: Vec<u64>,
    pub bw: Vec<u64>,
    pub lat_ns: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DirReport {
    pub total_ios: u64,
    pub io_bytes: u64,
    pub iops: f64,
    pub bw_bytes: f64,
    /// Absent for synchronous engines, where submission and completion are one call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slat_ns: Option<LatencySummary>,
    pub clat_ns: LatencySummary,
    pub lat_ns: LatencySummary,
    /// Spread of the per-second samples.
    pub iops_per_sec: SeriesSummary,
    pub bw_bytes_per_sec: SeriesSummary,
    /// fio's runtime for this direction, where it is not the job's: a write job with a verify
    /// backlog ends its writes' time when the read-back starts, and its reads' time is that
    /// read-back's. `iops` and `bw_bytes` stay over the job's measured runtime; fio-JSON
    /// divides by this, as fio does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_ns: Option<u64>,
    /// With a rate cap: latency from the time each I/O was due on the rate's schedule, which
    /// holds the wait before issue that `lat_ns` leaves out when the device falls behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_due_ns: Option<LatencySummary>,
    /// With a rate cap: how late volbench itself issued each I/O once it was due and the
    /// queue had room (a busy host's share of `lat_due_ns`, not the device's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_late_ns: Option<LatencySummary>,
    /// With a rate cap: how far, and how long, the issues fell behind the schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<stats::Lateness>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SyncReport {
    pub total_ios: u64,
    pub lat_ns: LatencySummary,
    /// The write(s) and their sync together, from the first write after the previous sync to
    /// this sync's return: the latency of a durable write as its caller sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable_lat_ns: Option<LatencySummary>,
}

/// CPU time over the measured window. For a job: its own thread. For the group: the whole
/// process, including kernel io_uring worker threads that do I/O on the jobs' behalf.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct CpuReport {
    /// Percent of one CPU over the runtime (fio's convention: 2 busy cores show 200 %).
    pub usr_percent: f64,
    pub sys_percent: f64,
    pub usr_ns: u64,
    pub sys_ns: u64,
    pub ctx_switches: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DepthReport {
    pub max: u32,
    /// Share of I/Os submitted at each depth bucket: `{depth, percent}` where depth 64 means 64+.
    pub levels: Vec<DepthLevel>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct DepthLevel {
    pub depth: u32,
    pub percent: f64,
}

/// The closing read-back's reads, at the rate of their own time.
fn verify_reads(s: &JobStats) -> Option<DirReport> {
    let v = &s.verify;
    let secs = s.verify_ns.max(1) as f64 / 1e9;
    (v.ios > 0).then(|| DirReport {
        total_ios: v.ios,
        io_bytes: v.bytes,
        iops: v.ios as f64 / secs,
        bw_bytes: v.bytes as f64 / secs,
        slat_ns: None,
        clat_ns: v.clat.summary(),
        lat_ns: v.lat.summary(),
        iops_per_sec: SeriesSummary::default(),
        bw_bytes_per_sec: SeriesSummary::default(),
        runtime_ns: Some(s.verify_ns.max(1)),
        lat_due_ns: None,
        issue_late_ns: None,
        late: None,
    })
}

/// One direction's figures over the job's measured runtime, None where it did no I/O.
fn dir_report(s: &JobStats, i: usize, sync_engine: bool) -> Option<DirReport> {
    let d = &s.dirs[i];
    if d.ios == 0 && d.lat.count() == 0 {
        return None;
    }
    let secs = s.runtime_ns as f64 / 1e9;
    let per = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
    let paced = d.lat_due.count() > 0;
    Some(DirReport {
        total_ios: d.ios,
        io_bytes: d.bytes,
        iops: per(d.ios),
        bw_bytes: per(d.bytes),
        slat_ns: (!sync_engine).then(|| d.slat.summary()),
        clat_ns: d.clat.summary(),
        lat_ns: d.lat.summary(),
        // The series and the per-direction runtimes are of reads and writes; a trim's rate
        // is over the job's runtime.
        iops_per_sec: if i < 2 {
            s.series.summarize(|x| x.iops(i))
        } else {
            SeriesSummary::default()
        },
        bw_bytes_per_sec: if i < 2 {
            s.series.summarize(|x| x.bw_bytes(i))
        } else {
            SeriesSummary::default()
        },
        runtime_ns: s.dir_runtime_ns.get(i).copied().filter(|&r| r != 0),
        lat_due_ns: paced.then(|| d.lat_due.summary()),
        issue_late_ns: paced.then(|| d.issue_late.summary()),
        late: paced.then_some(d.late),
    })
}

impl CpuReport {
    /// The job's CPU, as shares of its runtime.
    fn of(s: &JobStats) -> CpuReport {
        let pct = |v: u64| match s.runtime_ns {
            0 => 0.0,
            t => 100.0 * v as f64 / t as f64,
        };
        CpuReport {
            usr_percent: pct(s.usr_ns),
            sys_percent: pct(s.sys_ns),
            usr_ns: s.usr_ns,
            sys_ns: s.sys_ns,
            ctx_switches: s.ctx,
        }
    }
}

impl DepthReport {
    /// The share of the I/Os issued at each depth bucket, and the deepest queue.
    fn of(s: &JobStats) -> DepthReport {
        let total: u64 = s.depth.iter().sum();
        let level = |(&depth, n): (&u32, u64)| DepthLevel {
            depth,
            percent: match total {
                0 => 0.0,
                t => 100.0 * n as f64 / t as f64,
            },
        };
        DepthReport {
            max: s.max_depth,
            levels: DEPTH_BUCKETS.iter().zip(s.depth).map(level).collect(),
        }
    }
}

impl JobReport {
    /// Summarises raw statistics. `sync_engine` drops slat, which such engines cannot measure.
    pub fn from_stats(name: &str, targets: Vec<String>, s: &JobStats, sync_engine: bool) -> Self {
        JobReport {
            name: name.to_string(),
            groupid: 0,
            spec_index: 0,
            targets,
            read: dir_report(s, 0, sync_engine),
            write: dir_report(s, 1, sync_engine),
            trim: dir_report(s, 2, true),
            sync: (s.sync.count() > 0).then(|| SyncReport {
                total_ios: s.sync.count(),
                lat_ns: s.sync.summary(),
                durable_lat_ns: Some(s.durable.summary()),
            }),
            runtime_ns: s.runtime_ns,
            cpu: CpuReport::of(s),
            iodepth: DepthReport::of(s),
            series: {
                let mut series = s.series.clone();
                series.attach_percentiles(&s.dirs[0].lat, &s.dirs[1].lat);
                series
            },
            error: None,
            verified_blocks: None,
            verify: verify_reads(s),
            ramp_swallowed: false,
            fio_windows: None,
            steadystate: None,
            lat_target: None,
            replay: None,
            ended_by: None,
            drain_ns: None,
            huge_page_buffers: None,
            errors: (s.errors.total > 0).then(|| s.errors.clone()),
        }
    }

    pub fn total_iops(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |d| d.iops) + self.write.as_ref().map_or(0.0, |d| d.iops)
    }

    pub fn total_bw_bytes(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |d| d.bw_bytes)
            + self.write.as_ref().map_or(0.0, |d| d.bw_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::Status;

    #[test]
    fn a_status_is_named_as_the_json_writes_it() {
        for s in [
            Status::Complete,
            Status::Partial,
            Status::Interrupted,
            Status::Running,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
    }
}
