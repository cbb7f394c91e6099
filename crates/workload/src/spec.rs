//! The job specification: fio's knobs as typed, validated data.

pub use crate::values::*;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// One job: what one thread does, before `numjobs` cloning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    /// Free text shown with the job (fio's `description`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub rw: Rw,
    pub rwmixread: u8,
    pub bs: u64,
    pub iodepth: u32,
    /// Submit I/Os to the kernel in groups of this many (fio's `iodepth_batch_submit`); 1
    /// submits each as soon as it is ready, which keeps batches out of the block layer's plug.
    #[serde(default = "one")]
    pub iodepth_batch_submit: u32,
    /// fio's `iodepth_low`: once the queue is full, let it drain to this many before filling
    /// it again (0, or iodepth or more: keep it full).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub iodepth_low: u32,
    pub numjobs: u32,
    /// Bytes of the region each job works on; `None` means 1 GiB for files, the whole device
    /// for block devices.
    pub size: Option<u64>,
    /// `size=N%`: that share of the file or device (after `offset`).
    pub size_percent: Option<u8>,
    /// Bytes of I/O to do before stopping (fio's `io_size`); `None`: one pass over `size`.
    pub io_size: Option<u64>,
    /// Stop after this many I/Os (fio's `number_ios`).
    pub number_ios: Option<u64>,
    /// Repeat the job's I/O this many times (fio's `loops`).
    pub loops: u32,
    /// Added to `offset` for each clone of `numjobs` (fio's `offset_increment`).
    pub offset_increment: u64,
    /// fio's `offset_align`: a percentage offset is rounded up to a multiple of this (0: of
    /// the smallest block size).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub offset_align: u64,
    /// Mixed block sizes (fio's `bssplit`); empty: every I/O is `bs`.
    pub bssplit: Vec<BsSplit>,
    /// fio's `bssplit=READS,WRITES`: the writes' own split (empty: `bssplit`'s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bssplit_write: Vec<BsSplit>,
    /// Random offsets with replacement instead of every block once per pass.
    pub norandommap: bool,
    /// Which blocks a random job favours (fio's `random_distribution`); skewed ones draw
    /// with replacement.
    #[serde(default)]
    pub random_distribution: crate::Distribution,
    /// fio's center of a zipf, pareto or normal draw (`zipf:1.2:0.25`): where the hottest
    /// rank lands, as a share of the region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_center: Option<f64>,
    /// Cap in bytes/s for [reads, writes]; 0: none (fio's `rate`).
    pub rate: [u64; 2],
    /// Cap in I/Os per second for [reads, writes]; 0: none (fio's `rate_iops`).
    pub rate_iops: [u64; 2],
    /// Floors for [reads, writes] in bytes/s (fio's `rate_min`) and I/Os per second
    /// (`rate_iops_min`): a direction under its floor over a `rate_cycle` ends the job with
    /// fio's error (EIO), after fio's 2 s settling.
    #[serde(default, skip_serializing_if = "is_zero_pair")]
    pub rate_min: [u64; 2],
    #[serde(default, skip_serializing_if = "is_zero_pair")]
    pub rate_iops_min: [u64; 2],
    /// The span over which the floors are judged (fio's `rate_cycle`, 1 s by default).
    #[serde(default = "one_second_ms")]
    pub rate_cycle_ms: u64,
    /// Wait this long before starting (fio's `startdelay`).
    pub startdelay: Duration,
    /// fio's `startdelay=low-high`: each clone waits a time drawn from `startdelay` to this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startdelay_high: Option<Duration>,
    /// Start only after every earlier job has finished; also starts a new reporting group.
    pub stonewall: bool,
    /// Start a new reporting group here.
    pub new_group: bool,
    /// Report the jobs of this group as one (fio's `group_reporting`).
    pub group_reporting: bool,
    /// fio's `uid` and `gid`: the job's thread does its I/O as this user and group, its
    /// files opened again as them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gid: Option<u32>,
    /// fio's `cgroup`: the blkio cgroup (a path below the hierarchy) the job's thread does
    /// its I/O from; made when missing, and removed after the run unless `cgroup_nodelete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    /// fio's `cgroup_weight` (100 to 1000; 0: unset): the group's blkio weight. With no
    /// `cgroup`, the group is named after the job, as fio's.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub cgroup_weight: u32,
    /// fio's `cgroup_nodelete`: a group the run made is left after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cgroup_nodelete: bool,
    /// The job thread's nice value (fio's `nice`), -20 to 19; 0 leaves it.
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub nice: i32,
    /// When this job ends, stop the jobs running beside it (fio's `exitall`); with
    /// `exitall_on_error`, only when it ends in an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exitall: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exitall_on_error: bool,
    /// Number of files per job when the job names no `filename` (fio's `nrfiles`).
    pub nrfiles: u32,
    /// fio's `blockalign`: random offsets are multiples of this, not of the block size (and,
    /// as in fio, drawn with replacement: the random map is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blockalign: Option<u64>,
    /// fio's `blockalign=R,W`: the writes' own alignment (None: `blockalign`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blockalign_write: Option<u64>,
    /// How the job goes from file to file (fio's `file_service_type`).
    #[serde(default, skip_serializing_if = "FileService::is_default")]
    pub file_service: FileService,
    /// Files the job works on at once (fio's `openfiles`); 0: all of them. Below the job's
    /// file count, I/O goes round robin to this many files until each has done its share,
    /// then to the next ones, in fio's order.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub openfiles: u32,
    /// O_SYNC/O_DSYNC on open (fio's `sync=`).
    pub sync_io: SyncIo,
    /// Drop the file's pages from the page cache before starting (fio's `invalidate`).
    /// Use [`JobSpec::drops_cache`], which `pre_read` turns off.
    pub invalidate: bool,
    /// fio's `lockmem`: bytes the job pins in memory (mlock) while it runs, so less is left
    /// for the page cache, as on a host with that much less RAM.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub lockmem: u64,
    /// Read the job's region once before it starts, so it begins in the page cache (fio's
    /// `pre_read`, which also turns `invalidate` off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pre_read: bool,
    /// After a write phase with `verify`, read everything back and check it (fio's `do_verify`).
    pub do_verify: bool,
    /// Read back and check every this many written blocks while writing (fio's
    /// `verify_backlog`; 0: only after the writes).
    #[serde(default)]
    pub verify_backlog: u64,
    /// How many of them each time (fio's `verify_backlog_batch`; 0: all).
    #[serde(default)]
    pub verify_backlog_batch: u64,
    /// Remove the job's files when it ends (fio's `unlink`), if volbench created them.
    pub unlink: bool,
    /// fio's `wait_for`: the job starts when the I/O of the job of this name (an earlier
    /// one) has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<String>,
    /// fio's `opendir`: every regular file below this directory is one of the job's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opendir: Option<PathBuf>,
    /// fio's `unlink_each_loop`: the job's files are deleted after each loop and the next
    /// loop creates them afresh (a job that only reads then fails, as fio's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlink_each_loop: bool,
    /// fio's e4defrag engine's options: `donorname` (the donor file, in `directory` when
    /// given) and `inplace` (the donor's space allocated per move, not once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e4defrag_donor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub e4defrag_inplace: bool,
    /// fio's exec engine's options.
    #[serde(default, skip_serializing_if = "ExecJob::is_unset")]
    pub exec: ExecJob,
    /// fio's cpuio engine's options.
    #[serde(default, skip_serializing_if = "CpuIo::is_unset")]
    pub cpuio: CpuIo,
    /// fio's `zonemode=strided` with `zonesize`, `zonerange` and `zoneskip`.
    #[serde(default, skip_serializing_if = "Zones::is_unset")]
    pub zones: Zones,
    /// fio's `lockfile`: jobs that name the same file take turns for each I/O's submission.
    #[serde(default, skip_serializing_if = "LockFile::is_none")]
    pub lockfile: LockFile,
    /// Byte offset where the region starts.
    pub offset: u64,
    /// `offset=N%`: the region starts at that share of the existing file or device (rounded
    /// down to `bs`), as in fio; a new file has no length yet, so it starts at 0.
    #[serde(default)]
    pub offset_percent: Option<u8>,
    /// `offset_increment=N%`: each clone's region starts that share of the existing file or
    /// device after the previous clone's, rounded up as `offset=N%` is (fio's
    /// get_start_offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_increment_percent: Option<u8>,
    /// Stop after this long. With `time_based`, loop over the region until then.
    pub runtime: Option<Duration>,
    pub time_based: bool,
    pub ramp_time: Duration,
    /// fio's `ramp_size`: the warm-up is this many bytes of I/O instead of a time.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub ramp_size: u64,
    pub direct: bool,
    pub ioengine: EngineKind,
    /// Files or devices; several make the job spread its I/O round-robin over them.
    pub filename: Vec<PathBuf>,
    pub directory: Option<PathBuf>,
    /// How files are named when the job names none (fio's `filename_format`): `$jobname`,
    /// `$jobnum` (the clone), `$filenum` and `$clientuid` (the MPI rank; 0 alone) are replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename_format: Option<String>,
    /// Fill a new (or short) file with data before a write-only job (fio's `overwrite`); reads
    /// always get data. volbench's own default is to fill, fio's is not to.
    #[serde(default = "yes")]
    pub overwrite: bool,
    /// How a file that is not filled first gets its space (fio's `fallocate`).
    #[serde(default)]
    pub fallocate: Fallocate,
    /// Whether the job may create files (fio's `allow_file_create`): 0 guards against creating
    /// a file where a device was meant.
    #[serde(default = "yes")]
    pub allow_file_create: bool,
    /// The job is fio's (a job file or fio's command line), so fio's rules apply where they
    /// differ from volbench's own command line: the missing directories of a file's path are
    /// created (`filename=run1/logs/f`; a `directory=` that does not exist is refused, in fio
    /// too), and O_DIRECT's block alignment is judged on the target's device when it is
    /// opened (a FUSE mount takes `bs=1` with `direct=1`), not refused on parsing. volbench's
    /// own command line refuses both early, so a typo neither makes a directory nor starts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fio_job: bool,
    /// posix_fadvise advice on each file's region at open (fio's `fadvise_hint`).
    #[serde(default)]
    pub fadvise: Fadvise,
    /// Write-lifetime hint (`RWH_WRITE_LIFE_*`: 1 none .. 5 extreme) set on each file (fio's
    /// `write_hint`); `None`: left as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_hint: Option<u64>,
    /// The I/O scheduler the job's disk runs during the run (fio's `ioscheduler`), switched
    /// back afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioscheduler: Option<String>,
    /// `filestat`/`dirstat`: 0 stat(2), 1 lstat(2), 2 statx(2) (fio's `stat_type`).
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub stat_type: u8,
    /// io_uring with a kernel thread polling the submission queue (fio's `sqthread_poll`),
    /// pinned to `sqthread_poll_cpu` when given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sqthread_poll: bool,
    /// fio's `uncached`: buffered I/O with RWF_DONTCACHE, its pages dropped once done.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncached: bool,
    /// fio's `atomic`: writes with RWF_ATOMIC (torn-write protection).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub atomic: bool,
    /// fio's `rw=trim`, `randtrim`, `trimwrite` (with `rw` the write pattern they follow).
    #[serde(default, skip_serializing_if = "Trim::is_none")]
    pub trim: Trim,
    /// fio's `nowait`: every read and write with RWF_NOWAIT, so one that would block fails
    /// with EAGAIN instead (and ends the job, as in fio, unless carried past).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nowait: bool,
    /// fio's io_uring `force_async`: every Nth request is handed to an io-wq worker.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub force_async: u32,
    /// fio's `bs_is_seq_rand`: `bs=A,B` sizes sequential I/Os (A) and random ones (B)
    /// instead of reads and writes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bs_is_seq_rand: bool,
    /// fio's `bs_unaligned`: bsrange's sizes are any byte count in the range.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bs_unaligned: bool,
    /// fio's pvsync2 `hipri_percentage`: with `hipri`, the share of I/Os that are polled.
    #[serde(default = "hundred", skip_serializing_if = "is_hundred")]
    pub hipri_percent: u8,
    /// fio's `continue_on_error`: the errors a job carries on past, as fio's bits (1 reads,
    /// 2 writes, 4 verify); only EIO and EILSEQ (a verify mismatch), as in fio.
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub continue_on_error: u8,
    /// fio's `ignore_error`: the errnos carried past for reads, writes and verifies, in place
    /// of EIO and EILSEQ where a list is given.
    #[serde(default, skip_serializing_if = "no_lists")]
    pub ignore_error: [Vec<i32>; 3],
    /// fio's `fill_fs`/`fill_device`: a file's size is the file system's free space, and
    /// ENOSPC or EDQUOT ends the job instead of failing it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fill_fs: bool,
    /// fio's `file_append`: a regular file's region starts at its end (as `offset` set to
    /// the file's size).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub file_append: bool,
    /// fio's `experimental_verify`: fio 3.33 counts its verify pass as one of the `loops`
    /// and verifies once, at the end (see [`JobSpec::io_loops`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub experimental_verify: bool,
    /// fio's `exec_prerun` and `exec_postrun`: shell commands run by the job's thread before
    /// its I/O and after it, their output in `NAME.prerun.txt` / `NAME.postrun.txt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_prerun: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_postrun: Option<String>,
    /// fio's `create_only`: lay the files out as the job would, then do no I/O.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub create_only: bool,
    /// fio's `end_syncfs`: at the end of a writing job, syncfs(2) on each file system its
    /// files are on, in place of end_fsync's fsync per file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end_syncfs: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqthread_poll_cpu: Option<u32>,
    /// Sequential jobs: bytes skipped after each I/O (fio's `rw=read:8k`); negative steps
    /// back (`read:-8k` with bs=4k reads backwards).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq_skip: i64,
    /// Random jobs: a new random offset only every this many I/Os (fio's `rw=randread:8`);
    /// in between each I/O follows the last, or with `rand_identical` repeats it (fio's
    /// `rw_sequencer=identical`). 0 or 1: every I/O draws.
    #[serde(default)]
    pub rand_run: u32,
    #[serde(default)]
    pub rand_identical: bool,
    /// A random job's share of random I/Os per direction (fio's `percentage_random`; the rest
    /// follow the last I/O, sequentially). 100: all random.
    #[serde(default = "all_random", skip_serializing_if = "is_all_random")]
    pub percentage_random: [u8; 2],
    /// Block sizes drawn uniformly from the multiples of the low end (fio's `bsrange`, or
    /// `bs=4k-64k`); `bs` is then the low end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_range: Option<(u64, u64)>,
    /// The writes' side of fio's `bs=R,W` or `bsrange=R,W` when it differs from the reads'
    /// (`bs` and `bs_range` hold the reads'): a job that only writes takes it in their place
    /// ([`JobSpec::settle_sizes`]), as fio's writes do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_sizes: Option<WriteSizes>,
    /// Each file's size (fio's `filesize`), a range picks one per file; `size` is then the
    /// I/O to do over all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesize: Option<(u64, u64)>,
    /// Percentiles reported instead of fio's default set (fio's `percentile_list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentile_list: Option<Vec<f64>>,
    /// Which latencies fio-json prints percentiles for: completion (fio's default), total,
    /// submission (`clat_percentiles`, `lat_percentiles`, `slat_percentiles`).
    #[serde(default = "percentiles_default")]
    pub percentiles_for: [bool; 3],
    /// CPUs the job's thread may run on (fio's `cpus_allowed`/`cpumask`); with `cpus_split`
    /// (fio's `cpus_allowed_policy=split`) each clone gets one of them in turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cpus_split: bool,
    /// Run on the CPUs of these NUMA nodes (fio's `numa_cpu_nodes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_cpu_nodes: Option<Vec<u32>>,
    /// The job thread's memory policy (fio's `numa_mem_policy`), its buffers included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_mem: Option<NumaMem>,
    /// fio's `rate_process=poisson`: rate-limited I/Os arrive as a Poisson process (random
    /// exponential gaps with the rate's mean) instead of evenly spaced.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_poisson: bool,
    /// fio's `rate_ignore_thinktime`: the rate's schedule moves on by each think instead of
    /// catching up on it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_ignore_thinktime: bool,
    /// fio's steady-state stop (`steadystate`, `ss_dur`, `ss_ramp`, `ss_interval`).
    #[serde(default, skip_serializing_if = "steady_off")]
    pub steadystate: crate::steady::SteadyState,
    /// fio's `max_latency` (reads, writes; 0: none): an I/O whose latency (issue to
    /// completion) exceeds it ends the job with ETIMEDOUT.
    #[serde(default, skip_serializing_if = "is_zero_pair")]
    pub max_latency_ns: [u64; 2],
    /// fio's latency-target search (`latency_target`, `latency_window`,
    /// `latency_percentile`, `latency_run`).
    #[serde(default, skip_serializing_if = "lat_target_off")]
    pub lat_target: crate::lat_target::LatTarget,
    /// fio's trace replay (`read_iolog`, `replay_*`).
    #[serde(default, skip_serializing_if = "replay_off")]
    pub replay: crate::replay::Replay,
    /// fio's `write_iolog`: an iolog (v3) of every I/O the job issued, with its time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iolog: Option<PathBuf>,
    /// fio's log files (`write_bw_log` and friends), written after the run.
    #[serde(default, skip_serializing_if = "Logs::is_none")]
    pub logs: Logs,
    /// fio's `kb_base`: 1000 makes `4k` mean 4000 bytes (SI), 1024 (the default) 4096.
    #[serde(default = "kb_1024", skip_serializing_if = "is_1024")]
    pub kb_base: u32,
    /// Issue a sync every N writes (0: never), with `sync_mode` choosing fsync or fdatasync.
    pub sync_every: u32,
    pub sync_mode: SyncMode,
    pub end_fsync: bool,
    /// Every write durable on its own with RWF_DSYNC (pwritev2/io_uring/libaio), the per-write
    /// form of O_DSYNC. No fio option does this; volbench's `rwf_dsync`.
    #[serde(default)]
    pub rwf_dsync: bool,
    /// Polled completions (fio's `hipri`): io_uring with IORING_SETUP_IOPOLL, which needs
    /// O_DIRECT and a device with polled queues; psync (fio's pvsync2) with RWF_HIPRI, which
    /// the kernel ignores on devices without them.
    #[serde(default)]
    pub hipri: bool,
    /// fio's `thinktime`: after every `think.blocks` I/Os (completed, or with `on_issue`
    /// issued), wait for those in flight, then spin `spin_us` and sleep the rest of `us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    /// The job thread's I/O priority (fio's `prioclass`, `prio`): class 1 realtime, 2 best
    /// effort, 3 idle, with a level 0 (highest) to 7. `None`: the process's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioprio: Option<(u8, u8)>,
    /// fio's cmdprio options: a share of the I/Os at their own priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdprio: Option<CmdPrio>,
    /// Never have two I/Os in flight on the same bytes: one that would overlap waits for the
    /// other to complete (fio's `serialize_overlap`).
    #[serde(default)]
    pub serialize_overlap: bool,
    /// Weight among the jobs of the same `flow_id` (fio's `flow`, 1 to 1000; 0: none): they
    /// issue I/Os in proportion to their weights.
    #[serde(default)]
    pub flow: u32,
    #[serde(default)]
    pub flow_id: u32,
    /// Sleep this many µs when held back with nothing in flight (fio's `flow_sleep`).
    #[serde(default)]
    pub flow_sleep: u64,
    pub randseed: u64,
    /// `randseed` was given: the written data repeats from run to run too (else each run
    /// writes data of its own, so no sector of one run repeats in the next).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub randseed_set: bool,
    pub buffer: BufferMode,
    /// fio's `refill_buffers` and `scramble_buffers`: with both off, each buffer is filled
    /// once and written as it is, as fio does; otherwise every write's data is fresh.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refill_buffers: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub scramble_buffers: bool,
    #[serde(default, skip_serializing_if = "dedupe_off")]
    pub dedupe: Dedupe,
    pub verify: Option<Verify>,
    /// fio's `verify_pattern`: written into every block (under the header, with a checksum
    /// method), and what `verify=pattern` checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_pattern: Option<Vec<u8>>,
    /// fio's `verify_only`: the job writes nothing; it reads its region and checks what an
    /// earlier run of it wrote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_only: bool,
    /// fio's `verify_state_save`: a verifying write job writes down which of its writes
    /// completed (volbench: only when the job asks; fio's default is on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_state_save: bool,
    /// fio's `verify_policy=fsynced`: the saved state covers only the writes issued before
    /// the last fsync that completed, those a crash cannot lose.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_fsynced: bool,
    /// fio's verify-after-trim: `trim_percentage`, `trim_backlog`, `trim_backlog_batch`,
    /// `trim_verify_zero`.
    #[serde(default, skip_serializing_if = "TrimBack::is_unset")]
    pub trim_back: TrimBack,
    /// fio's `verify_state_load`: a verify_only job checks only the writes that state says
    /// completed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_state_load: bool,
    pub allow_destructive: bool,
}

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            name: "volbench".into(),
            description: None,
            rw: Rw::RandRead,
            rwmixread: 50,
            bs: 4096,
            iodepth: 32,
            iodepth_batch_submit: 1,
            iodepth_low: 0,
            numjobs: 1,
            size: None,
            size_percent: None,
            io_size: None,
            number_ios: None,
            loops: 1,
            offset_increment: 0,
            offset_align: 0,
            bssplit: Vec::new(),
            bssplit_write: Vec::new(),
            norandommap: false,
            rate: [0, 0],
            rate_iops: [0, 0],
            rate_min: [0, 0],
            rate_iops_min: [0, 0],
            rate_cycle_ms: 1000,
            startdelay: Duration::ZERO,
            startdelay_high: None,
            stonewall: false,
            new_group: false,
            group_reporting: false,
            nrfiles: 1,
            openfiles: 0,
            file_service: FileService::default(),
            blockalign: None,
            blockalign_write: None,
            nice: 0,
            exitall: false,
            exitall_on_error: false,
            sync_io: SyncIo::None,
            invalidate: true,
            pre_read: false,
            lockmem: 0,
            do_verify: true,
            verify_backlog: 0,
            verify_backlog_batch: 0,
            unlink: false,
            unlink_each_loop: false,
            lockfile: LockFile::None,
            zones: Zones::default(),
            cpuio: CpuIo::default(),
            exec: ExecJob::default(),
            e4defrag_donor: None,
            e4defrag_inplace: false,
            uid: None,
            gid: None,
            cgroup: None,
            cgroup_weight: 0,
            cgroup_nodelete: false,
            opendir: None,
            wait_for: None,
            offset: 0,
            offset_percent: None,
            offset_increment_percent: None,
            runtime: Some(Duration::from_secs(30)),
            time_based: true,
            ramp_time: Duration::ZERO,
            ramp_size: 0,
            direct: true,
            ioengine: EngineKind::IoUring,
            filename: Vec::new(),
            directory: None,
            filename_format: None,
            seq_skip: 0,
            cpus: None,
            cpus_split: false,
            numa_cpu_nodes: None,
            numa_mem: None,
            rate_poisson: false,
            rate_ignore_thinktime: false,
            steadystate: Default::default(),
            max_latency_ns: [0, 0],
            lat_target: Default::default(),
            replay: Default::default(),
            write_iolog: None,
            logs: Logs::default(),
            percentile_list: None,
            percentiles_for: percentiles_default(),
            bs_range: None,
            write_sizes: None,
            filesize: None,
            overwrite: true,
            fallocate: Fallocate::Native,
            allow_file_create: true,
            fio_job: false,
            fadvise: Fadvise::Pattern,
            write_hint: None,
            ioscheduler: None,
            stat_type: 0,
            sqthread_poll: false,
            uncached: false,
            continue_on_error: 0,
            ignore_error: Default::default(),
            fill_fs: false,
            file_append: false,
            experimental_verify: false,
            exec_prerun: None,
            exec_postrun: None,
            create_only: false,
            end_syncfs: false,
            atomic: false,
            nowait: false,
            force_async: 0,
            bs_is_seq_rand: false,
            bs_unaligned: false,
            hipri_percent: 100,
            trim: Trim::None,
            sqthread_poll_cpu: None,
            kb_base: 1024,
            sync_every: 0,
            sync_mode: SyncMode::Fsync,
            end_fsync: false,
            rwf_dsync: false,
            hipri: false,
            think: None,
            ioprio: None,
            cmdprio: None,
            rand_run: 0,
            rand_identical: false,
            percentage_random: [100, 100],
            random_distribution: crate::Distribution::Random,
            random_center: None,
            serialize_overlap: false,
            flow: 0,
            flow_id: 0,
            flow_sleep: 0,
            randseed: 0x5eed_f00d,
            randseed_set: false,
            refill_buffers: false,
            scramble_buffers: true,
            dedupe: Dedupe::default(),
            buffer: BufferMode::Random,
            verify: None,
            verify_pattern: None,
            verify_only: false,
            verify_state_save: false,
            verify_fsynced: false,
            verify_state_load: false,
            trim_back: TrimBack::default(),
            allow_destructive: false,
        }
    }
}

fn one() -> u32 {
    1
}

impl JobSpec {
    /// Whether the job ends with fio's do_verify read-back (a verifying job that writes, with no
    /// backlog), as fio reads back its log of writes after the writes, time-based or not. With
    /// one size every write covers whole blocks of it, so each block holds its last write and
    /// the read-back reads those written (the runner marks them unless the job writes every
    /// block). With mixed sizes a later write may cut into an earlier one, so only one pass that
    /// writes every block once is read back (its blocks' bounds are that pass's).
    pub fn reads_back_at_end(&self) -> bool {
        let known = match self.mixed_sizes() {
            true => {
                self.writes_every_block()
                    && self.loops <= 1
                    && self.rand_run <= 1
                    && self.seq_skip == 0
            }
            // Offsets off the block size's grid (blockalign below it) overlap earlier writes.
            false => self.blockalign.is_none_or(|a| a.is_multiple_of(self.bs)),
        };
        self.verify.is_some()
            && self.do_verify
            && self.rw.writes()
            && known
            && self.verify_backlog == 0
    }

    /// Whether each pass of the job writes every block of its region once: size-based, with
    /// the random map and its uniform draw, over the whole size.
    pub fn writes_every_block(&self) -> bool {
        !self.time_based
            && !self.norandommap
            && self.blockalign.is_none()
            && self.random_distribution == crate::Distribution::Random
            && self.number_ios.is_none()
            && self.io_size.is_none()
    }

    /// The job's blocks vary in size (`bssplit`, `bsrange`, or writes of their own size: bs=R,W).
    pub fn mixed_sizes(&self) -> bool {
        !self.bssplit.is_empty() || self.bs_range.is_some() || self.write_sizes.is_some()
    }

    /// The longest start delay a clone of the job may draw.
    pub fn startdelay_longest(&self) -> Duration {
        self.startdelay_high
            .unwrap_or_default()
            .max(self.startdelay)
    }

    /// The writes' blockalign: their own (`ba=R,W`) or the reads'.
    pub fn write_blockalign(&self) -> Option<u64> {
        self.blockalign_write.or(self.blockalign)
    }

    /// The job's `rw` as fio names it (`trim`, `randtrim`, `trimwrite` included).
    pub fn rw_name(&self) -> &'static str {
        match (self.trim, self.rw.is_random()) {
            (Trim::None, _) => self.rw.as_str(),
            (Trim::Only, false) => "trim",
            (Trim::Only, true) => "randtrim",
            (Trim::ThenWrite, _) => "trimwrite",
        }
    }

    /// Whether the job drops its region's cached pages (fio's `invalidate`, off under
    /// `pre_read`, as fio's init turns it off).
    pub fn drops_cache(&self) -> bool {
        self.invalidate && !self.pre_read
    }

    /// fio's own defaults, for job files and fio's multi-job command line: a fio user's file
    /// must mean what it means to fio (buffered psync reads at QD1, size-based).
    pub fn fio_default(name: &str) -> JobSpec {
        JobSpec {
            name: name.to_string(),
            rw: Rw::Read,
            iodepth: 1,
            runtime: None,
            time_based: false,
            direct: false,
            ioengine: EngineKind::Psync,
            overwrite: false,
            // fio names a job's files `NAME.JOB.FILE` even when it has one.
            filename_format: Some(FIO_FILENAME_FORMAT.into()),
            fio_job: true,
            ..JobSpec::default()
        }
    }

    /// Whether a rate cap (`rate` or `rate_iops`) paces direction `dir` (0 reads, 1 writes):
    /// its I/Os then have due times.
    pub fn rate_capped(&self, dir: usize) -> bool {
        self.rate[dir] > 0 || self.rate_iops[dir] > 0
    }

    /// The largest block size any I/O of this job uses (buffer slots are this big).
    pub fn max_bs(&self) -> u64 {
        self.bssplit
            .iter()
            .chain(&self.bssplit_write)
            .map(|b| b.bs)
            .max()
            .unwrap_or(self.bs)
            .max(self.bs)
            .max(self.bs_range.map_or(0, |r| r.1))
            .max(
                self.write_sizes
                    .map_or(0, |w| w.range.map_or(w.bs, |r| r.1)),
            )
    }

    /// Checks everything that does not depend on the target.
    /// A job that only writes takes the writes' sizes of `bs=R,W` in place of the reads', one
    /// that only reads drops them: the sizes it runs are then in `bs`/`bs_range` alone.
    /// With bs_is_seq_rand the two sides are a sequential and a random I/O's, kept both.
    pub fn settle_sizes(&mut self) {
        // bssplit=R,W: a job that only writes runs W's split, one that only reads R's.
        if !self.bssplit_write.is_empty() && !self.bs_is_seq_rand {
            if !self.rw.reads() {
                self.bssplit = std::mem::take(&mut self.bssplit_write);
                self.bs = self.bssplit.iter().map(|b| b.bs).min().unwrap_or(self.bs);
            } else if !self.rw.writes() {
                self.bssplit_write.clear();
            }
        }
        let Some(w) = self.write_sizes else { return };
        if self.bs_is_seq_rand {
            return;
        }
        if !self.rw.writes() {
            self.write_sizes = None;
        } else if !self.rw.reads() {
            (self.bs, self.bs_range, self.write_sizes) = (w.bs, w.range, None);
        }
    }

    /// The smallest block either direction uses: the unit offsets are aligned to and the
    /// random map counts in.
    /// How many times the job's I/O goes over its size (`loops`): fio 3.33 with
    /// `experimental_verify` counts the closing verify as one of them, so a verified write
    /// job writes one pass fewer (never none).
    pub fn io_loops(&self) -> u32 {
        let verifies = self.verify.is_some() && self.do_verify && self.rw.writes();
        match self.experimental_verify && verifies {
            true => self.loops.saturating_sub(1).max(1),
            false => self.loops.max(1),
        }
    }

    /// How many times the closing verify reads the written blocks back: fio verifies after
    /// every loop of the writes, or once with `experimental_verify`.
    pub fn verify_passes(&self) -> u32 {
        match self.experimental_verify {
            true => 1,
            false => self.loops.max(1),
        }
    }

    pub fn unit(&self) -> u64 {
        let w = self
            .write_sizes
            .map_or(u64::MAX, |w| w.range.map_or(w.bs, |r| r.0));
        self.bs.min(self.bs_range.map_or(u64::MAX, |r| r.0)).min(w)
    }

    /// The depth the engine really runs at: synchronous engines cannot have more than one in flight.
    pub fn effective_iodepth(&self) -> u32 {
        if self.ioengine.is_sync() {
            1
        } else {
            self.iodepth
        }
    }
}

/// Everything one invocation runs: jobs in parallel, phases separated by `stonewall`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Workload {
    pub jobs: Vec<JobSpec>,
    /// `[global]` options as written in a job file, kept for fio-json's "global options".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_options: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_engines_run_at_depth_one() {
        let j = JobSpec {
            ioengine: EngineKind::Psync,
            ..JobSpec::default()
        };
        assert_eq!(j.effective_iodepth(), 1);
    }
}
