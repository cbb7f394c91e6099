//! The job specification: fio's knobs as typed, validated data.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The access pattern (fio's `rw=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mixed reads and writes (fio's `rw`/`readwrite`).
    Rw,
    RandRw,
}

impl Rw {
    pub fn parse(s: &str) -> Option<Rw> {
        Some(match s {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "randread" => Rw::RandRead,
            "randwrite" => Rw::RandWrite,
            "rw" | "readwrite" => Rw::Rw,
            "randrw" => Rw::RandRw,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::RandRead => "randread",
            Rw::RandWrite => "randwrite",
            Rw::Rw => "rw",
            Rw::RandRw => "randrw",
        }
    }
    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw)
    }
    /// The same pattern reading only (fio's verify_only pass over a writing job).
    pub fn reading(self) -> Rw {
        if self.is_random() {
            Rw::RandRead
        } else {
            Rw::Read
        }
    }
    pub fn reads(self) -> bool {
        !matches!(self, Rw::Write | Rw::RandWrite)
    }
    pub fn writes(self) -> bool {
        !matches!(self, Rw::Read | Rw::RandRead)
    }
    /// Percentage of operations that are reads.
    pub fn read_percent(self, rwmixread: u8) -> u8 {
        match self {
            Rw::Read | Rw::RandRead => 100,
            Rw::Write | Rw::RandWrite => 0,
            Rw::Rw | Rw::RandRw => rwmixread,
        }
    }
}

/// fio's discard workloads, on top of the write pattern they follow: `trim` and `randtrim`
/// discard where `write`/`randwrite` would write; `trimwrite` discards each block, then
/// writes it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trim {
    #[default]
    None,
    Only,
    ThenWrite,
}

impl Trim {
    pub fn is_none(&self) -> bool {
        *self == Trim::None
    }
}

/// The I/O back end (fio's `ioengine=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    IoUring,
    Libaio,
    Psync,
    /// fio's mmap: the file mapped, the data copied to and from it.
    Mmap,
    Null,
    /// fio's falloc: each I/O is a fallocate(2) of its range (a write allocates, a read
    /// allocates without growing the file, a trim punches a hole); no data moves.
    Falloc,
    /// fio's ftruncate: each write truncates the file to its offset; reads fail (EINVAL).
    Ftruncate,
    /// fio's cpuio: no I/O; the job burns `cpuload` percent of one CPU (see [`CpuIo`]).
    CpuIo,
    /// fio's exec: no I/O; the job runs a program for its runtime (see [`ExecJob`]).
    Exec,
    /// fio's e4defrag: each write moves its blocks in from a donor file (ext4's
    /// EXT4_IOC_MOVE_EXT), `donorname` and `inplace` in [`JobSpec::e4defrag`].
    E4Defrag,
    /// fio's file and directory engines: each "I/O" is an operation on a file or
    /// directory (create, stat, delete), timed as one completion.
    FileOp(FileOp),
}

/// What fio's file and directory engines do to each of a job's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileOp {
    /// open(O_CREAT|O_RDWR, 0600) (`filecreate`).
    Create,
    /// stat(2), lstat(2) or statx(2) (`filestat`, fio's `stat_type`).
    Stat,
    /// unlink(2) (`filedelete`).
    Delete,
    /// mkdir(2) (`dircreate`).
    DirCreate,
    /// stat(2) of a directory (`dirstat`).
    DirStat,
    /// rmdir(2) (`dirdelete`).
    DirDelete,
}

impl FileOp {
    /// fio's engine names, in the order of the variants.
    pub const NAMES: [&'static str; 6] = [
        "filecreate",
        "filestat",
        "filedelete",
        "dircreate",
        "dirstat",
        "dirdelete",
    ];
    const ALL: [FileOp; 6] = [
        FileOp::Create,
        FileOp::Stat,
        FileOp::Delete,
        FileOp::DirCreate,
        FileOp::DirStat,
        FileOp::DirDelete,
    ];
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    fn parse(s: &str) -> Option<FileOp> {
        let i = Self::NAMES.iter().position(|n| *n == s)?;
        Some(Self::ALL[i])
    }
    /// The files exist before the operation (fio lays them out first), as for I/O.
    pub fn needs_files(self) -> bool {
        matches!(self, FileOp::Stat | FileOp::Delete)
    }
    /// It works on directories, which it makes first where they are missing (all but
    /// `dircreate`, which makes them itself).
    pub fn on_dirs(self) -> bool {
        matches!(
            self,
            FileOp::DirCreate | FileOp::DirStat | FileOp::DirDelete
        )
    }
}

impl EngineKind {
    pub const ALL: [EngineKind; 5] = [
        EngineKind::IoUring,
        EngineKind::Libaio,
        EngineKind::Psync,
        EngineKind::Mmap,
        EngineKind::Null,
    ];
    pub fn parse(s: &str) -> Option<EngineKind> {
        Some(match s {
            "io_uring" | "uring" => EngineKind::IoUring,
            "libaio" => EngineKind::Libaio,
            // fio's synchronous engines differ only in the system call (read/write after
            // lseek, readv/writev, preadv2/pwritev2): the device sees the same I/O.
            // splice moves the same bytes through a pipe (splice/vmsplice): the same I/O.
            "psync" | "sync" | "pvsync" | "vsync" | "pvsync2" | "splice" => EngineKind::Psync,
            "mmap" => EngineKind::Mmap,
            // POSIX AIO keeps iodepth requests in flight (glibc runs them from threads): the
            // device sees what io_uring at the same depth gives it.
            "posixaio" => EngineKind::IoUring,
            "null" => EngineKind::Null,
            "falloc" => EngineKind::Falloc,
            "ftruncate" => EngineKind::Ftruncate,
            "cpuio" => EngineKind::CpuIo,
            "exec" => EngineKind::Exec,
            "e4defrag" => EngineKind::E4Defrag,
            other => EngineKind::FileOp(FileOp::parse(other)?),
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Psync => "psync",
            EngineKind::Mmap => "mmap",
            EngineKind::Null => "null",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
            EngineKind::CpuIo => "cpuio",
            EngineKind::Exec => "exec",
            EngineKind::E4Defrag => "e4defrag",
            EngineKind::FileOp(op) => op.name(),
        }
    }
    /// Whether the engine moves data to and from the target (not `null`, `falloc`,
    /// `ftruncate`, nor fio's file and directory engines): the checks about data, caches and
    /// devices apply to it.
    pub fn moves_data(self) -> bool {
        !matches!(
            self,
            EngineKind::Null
                | EngineKind::FileOp(_)
                | EngineKind::Falloc
                | EngineKind::Ftruncate
                | EngineKind::CpuIo
                | EngineKind::Exec
                | EngineKind::E4Defrag
        )
    }
    /// Whether the job's files are opened for it (not `null`, nor fio's file and directory
    /// engines, which work on paths).
    pub fn opens_files(self) -> bool {
        !matches!(
            self,
            EngineKind::Null | EngineKind::FileOp(_) | EngineKind::CpuIo | EngineKind::Exec
        )
    }
    /// Synchronous engines complete each I/O inside the submit call, so their depth is 1.
    pub fn is_sync(self) -> bool {
        matches!(
            self,
            EngineKind::Psync
                | EngineKind::Mmap
                | EngineKind::FileOp(_)
                | EngineKind::Falloc
                | EngineKind::Ftruncate
                | EngineKind::CpuIo
                | EngineKind::Exec
                | EngineKind::E4Defrag
        )
    }
}

/// What write buffers hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "bytes")]
pub enum BufferMode {
    /// Pseudo-random bytes, fresh for every write (unless `refill_buffers` and
    /// `scramble_buffers` are both off, fio's filled-once buffers): nothing compresses and no
    /// 512-byte sector repeats.
    Random,
    /// All zeros: compresses and dedupes to nothing on smart storage.
    Zero,
    /// A repeated byte pattern (fio's `buffer_pattern`).
    Pattern(Vec<u8>),
    /// fio's `buffer_compress_percentage`/`buffer_compress_chunk`: in every `chunk` bytes, the
    /// first (100 - `percent`) % random (fresh for every write) and the rest `filler` (fio's
    /// `buffer_pattern`, zeros when empty), so the data compresses by about `percent` %.
    Compressible {
        percent: u8,
        chunk: u32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        filler: Vec<u8>,
    },
}

/// fio's `dedupe_percentage` and its companions: that share of the written buffers repeats
/// one written before (`working_set`) or the one written next (`repeat`), whole. Each option
/// sets its own field, so they read in any order, as fio's do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dedupe {
    /// Percent of writes whose buffer is a duplicate (0: off).
    pub percent: u8,
    /// `dedupe_mode=working_set`: duplicates repeat pages of a working set (the first
    /// unique buffers written); else `repeat`.
    #[serde(default)]
    pub working_set: bool,
    /// `dedupe_working_set_percentage`: the working set's share of the job's size.
    #[serde(default = "five")]
    pub working_set_percent: u8,
    /// `dedupe_global`: the working set's pages are the same in every job of the run.
    #[serde(default)]
    pub global: bool,
}

fn five() -> u8 {
    5
}

impl Default for Dedupe {
    fn default() -> Self {
        Dedupe {
            percent: 0,
            working_set: false,
            working_set_percent: 5,
            global: false,
        }
    }
}

impl Dedupe {
    pub fn on(&self) -> bool {
        self.percent > 0
    }
}

fn dedupe_off(d: &Dedupe) -> bool {
    *d == Dedupe::default()
}

/// fio's `file_service_type`: which of a job's files the next I/O goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileService {
    pub kind: FileServiceKind,
    /// I/Os issued to a file before the next is chosen (fio's `:N`).
    pub every: u32,
    /// The skewed kinds' parameter in thousandths (zipf's theta, pareto's h, normal's
    /// deviation in percent): fio's defaults 1.1, 0.2 and 0.
    #[serde(default)]
    pub skew_milli: u32,
    /// fio's center of the skewed kinds (`zipf:1.1:0.25`), in millionths of the files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center_micro: Option<u32>,
}

impl FileService {
    /// fio's center as a share of the files, if given.
    pub fn center(&self) -> Option<f64> {
        self.center_micro.map(|c| c as f64 / 1e6)
    }

    /// The skewed kinds' distribution over the files (None for the others).
    pub fn distribution(&self) -> Option<crate::Distribution> {
        let p = self.skew_milli as f64 / 1000.0;
        match self.kind {
            FileServiceKind::Zipf => Some(crate::Distribution::Zipf(p)),
            FileServiceKind::Pareto => Some(crate::Distribution::Pareto(p)),
            FileServiceKind::Normal => Some(crate::Distribution::Normal(p)),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileServiceKind {
    RoundRobin,
    /// Each file's share done before the next file starts.
    Sequential,
    /// A file drawn at random among those with work left.
    Random,
    /// fio's skewed choices: the file drawn by zipf, pareto or normal (gauss) over the files'
    /// ranks, among those with work left.
    Zipf,
    Pareto,
    Normal,
}

impl Default for FileService {
    fn default() -> FileService {
        FileService {
            kind: FileServiceKind::RoundRobin,
            every: 1,
            skew_milli: 0,
            center_micro: None,
        }
    }
}

impl FileService {
    pub fn is_default(&self) -> bool {
        *self == FileService::default()
    }
}

/// Which sync call `fsync=N`-style options issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    Fsync,
    Fdatasync,
    /// fio's `sync_file_range=FLAGS:N`: sync_file_range(2) over the range the file's writes
    /// covered since the last one, with these SYNC_FILE_RANGE_* flags.
    FileRange(u32),
}

/// Data verification (fio's `verify=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verify {
    Crc32c,
    Md5,
    Sha1,
    Sha256,
    Sha512,
    /// fio's `verify=pattern`: no header; every byte of a block must hold `verify_pattern`,
    /// repeated from the block's start.
    Pattern,
}

/// Synchronous-write open flags (fio's `sync=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncIo {
    None,
    /// O_SYNC: every write waits for data and metadata.
    Sync,
    /// O_DSYNC: every write waits for data.
    Dsync,
}

/// The block size (and range) of a job's writes when they differ from its reads'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteSizes {
    pub bs: u64,
    pub range: Option<(u64, u64)>,
}

/// One entry of fio's `bssplit`: `percent` of I/Os use block size `bs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsSplit {
    pub bs: u64,
    pub percent: u8,
}

/// fio's log files: each a prefix (`write_bw_log=NAME` writes `NAME_bw.N.log`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Logs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops: Option<String>,
    /// `NAME_lat`, `NAME_clat` and `NAME_slat` logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<String>,
    /// Averaging window, ms (fio's `log_avg_msec`; 0: fio logs every I/O, volbench each second).
    #[serde(default)]
    pub avg_msec: u32,
    /// The latency logs give each window's largest value, not its mean (`log_max_value=1`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub max_value: bool,
    /// Newer fio's `log_window_value=both`: the latency logs give each window's mean and its
    /// largest value, in two columns (`max_value` is on too).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub both_values: bool,
    /// `NAME_clat_hist` log of completion-latency histograms (`write_hist_log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hist: Option<String>,
    /// Its window, ms (`log_hist_msec`; 0: fio writes no lines, nor does volbench).
    #[serde(default)]
    pub hist_msec: u32,
    /// Adjacent bins summed in 2^N (`log_hist_coarseness`, 0 to 6).
    #[serde(default)]
    pub hist_coarseness: u8,
}

impl Logs {
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some() || self.hist.is_some()
    }

    /// The windows (ms) of the per-completion records the job must keep for these logs: the
    /// latency logs' maxima and the histograms (0: not kept).
    pub fn window_ms(&self) -> (u64, u64) {
        let max = if self.lat.is_some() && self.max_value {
            match self.avg_msec {
                0 => 1000,
                m => m as u64,
            }
        } else {
            0
        };
        let hist = if self.hist.is_some() {
            self.hist_msec as u64
        } else {
            0
        };
        (max, hist)
    }

    fn is_none(&self) -> bool {
        *self == Logs::default()
    }
}

/// fio's per-I/O priority (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`,
/// `cmdprio_bssplit`), per direction (reads, writes): a share of the I/Os carries the class and
/// level in its own request (io_uring's and libaio's ioprio), the rest the job's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdPrio {
    pub percent: [u8; 2],
    /// Class 1 realtime (fio's default: the highest), 2 best effort, 3 idle.
    pub class: [u8; 2],
    /// Level 0 (highest, the default) to 7.
    pub level: [u8; 2],
    /// `cmdprio_bssplit`: per block size, the share and its own class and level (in place of
    /// `percent`).
    #[serde(default)]
    pub bssplit: [Vec<PrioSplit>; 2],
}

/// One entry of `cmdprio_bssplit`: I/Os of `bs` bytes, `percent` of them at `class`/`level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrioSplit {
    pub bs: u64,
    pub percent: u8,
    /// The entry's own class and level, else `cmdprio_class`'s and `cmdprio`'s.
    pub own: Option<(u8, u8)>,
}

impl CmdPrio {
    /// fio's defaults once any cmdprio option is given: the highest class and level.
    pub fn new() -> CmdPrio {
        CmdPrio {
            class: [1, 1],
            ..Default::default()
        }
    }

    /// The share (percent) and ioprio value (`class << 13 | level`) for an I/O of `len`
    /// bytes in direction `dir` (0 reads, 1 writes).
    pub fn for_io(&self, dir: usize, len: u64) -> (u8, u16) {
        let value = |class: u8, level: u8| (class as u16) << 13 | level as u16;
        match self.bssplit[dir].iter().find(|s| s.bs == len) {
            Some(s) => {
                let (class, level) = s.own.unwrap_or((self.class[dir], self.level[dir]));
                (s.percent, value(class, level))
            }
            None if self.bssplit[dir].is_empty() => {
                (self.percent[dir], value(self.class[dir], self.level[dir]))
            }
            None => (0, 0),
        }
    }
}

/// fio's `thinktime`, `thinktime_spin`, `thinktime_blocks`, `thinktime_blocks_type`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Think {
    pub us: u64,
    pub spin_us: u64,
    pub blocks: u64,
    pub on_issue: bool,
    /// fio's `thinktime_iotime`: think also after this long doing I/O since the last think
    /// (µs; 0: no time trigger).
    #[serde(default)]
    pub iotime_us: u64,
    /// `thinktime_blocks` was given: with `thinktime_iotime` alone, as in fio, only the time
    /// triggers a think (the default of one block would think after every I/O).
    #[serde(default)]
    pub blocks_set: bool,
}

impl Think {
    /// Whether the I/O count triggers a think (see `blocks_set`).
    pub fn counts_blocks(&self) -> bool {
        self.iotime_us == 0 || self.blocks_set
    }
}

/// fio's default `filename_format`.
pub const FIO_FILENAME_FORMAT: &str = "$jobname.$jobnum.$filenum";

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

fn no_lists(l: &[Vec<i32>; 3]) -> bool {
    l.iter().all(Vec::is_empty)
}

fn is_zero_u8(v: &u8) -> bool {
    *v == 0
}

fn all_random() -> [u8; 2] {
    [100, 100]
}

fn is_all_random(v: &[u8; 2]) -> bool {
    *v == [100, 100]
}

fn is_zero_pair(v: &[u64; 2]) -> bool {
    *v == [0, 0]
}

fn one_second_ms() -> u64 {
    1000
}

fn yes() -> bool {
    true
}

fn is_true(v: &bool) -> bool {
    *v
}

/// fio's `fadvise_hint`: the posix_fadvise(2) advice given on each file's region when it is
/// opened. fio's default advises by the job's pattern: random jobs get `POSIX_FADV_RANDOM`,
/// which turns readahead off for buffered reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fadvise {
    /// No advice (fio's `0`).
    None,
    /// Random or sequential, by the job's pattern (fio's `1`, its default).
    #[default]
    Pattern,
    Random,
    Sequential,
    Noreuse,
}

impl Fadvise {
    /// fio's values, in the order of its option's choices.
    pub const WORDS: [&'static str; 5] = ["0", "1", "random", "sequential", "noreuse"];
    pub fn as_str(self) -> &'static str {
        Self::WORDS[self as usize]
    }
    pub fn from_index(i: usize) -> Fadvise {
        [
            Fadvise::None,
            Fadvise::Pattern,
            Fadvise::Random,
            Fadvise::Sequential,
            Fadvise::Noreuse,
        ][i.min(4)]
    }
}

/// fio's `numa_mem_policy`: a set_mempolicy(2) mode (`MPOL_*`: 0 default, 1 prefer, 2 bind,
/// 3 interleave, 4 local) and its nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumaMem {
    pub mode: u8,
    pub nodes: Vec<u32>,
}

impl NumaMem {
    /// fio's words for the modes, in `MPOL_*` order.
    pub const MODES: [&'static str; 5] = ["default", "prefer", "bind", "interleave", "local"];
    /// fio's form: `bind:0-1`, `local`.
    pub fn fio_form(&self) -> String {
        let word = Self::MODES[self.mode as usize % 5];
        if self.nodes.is_empty() {
            return word.into();
        }
        let n: Vec<String> = self.nodes.iter().map(u32::to_string).collect();
        format!("{word}:{}", n.join(","))
    }
}

/// fio's `write_hint`: the write-lifetime hint set on each file (fcntl F_SET_RW_HINT), as
/// the kernel's `RWH_WRITE_LIFE_*` numbers.
pub const WRITE_HINTS: [&str; 5] = ["none", "short", "medium", "long", "extreme"];

/// fio's `fallocate`: how space is reserved for a file that is not written before the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallocate {
    /// fallocate(2): blocks reserved, unwritten (fio's default).
    #[default]
    Native,
    /// posix_fallocate(3).
    Posix,
    /// fallocate(2) with FALLOC_FL_KEEP_SIZE, then the size set.
    Keep,
    /// Only the size set (ftruncate): a sparse file.
    Truncate,
    /// Nothing reserved: the file grows as the job writes (fio's `none`).
    None,
}

impl Fallocate {
    pub fn parse(s: &str) -> Option<Fallocate> {
        Some(match s.trim() {
            "native" => Fallocate::Native,
            "posix" | "1" => Fallocate::Posix,
            "keep" => Fallocate::Keep,
            "truncate" => Fallocate::Truncate,
            "none" | "0" => Fallocate::None,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Fallocate::Native => "native",
            Fallocate::Posix => "posix",
            Fallocate::Keep => "keep",
            Fallocate::Truncate => "truncate",
            Fallocate::None => "none",
        }
    }
}

/// fio's cpuio engine: cycles of `chunk_us` of work (a spin, or with `qsort` fio's sorts,
/// whose time becomes the chunk) each followed by a sleep of `chunk_us · (100 − load) / load`,
/// so the job keeps `load` percent of one CPU busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuIo {
    /// `cpuload`: percent of a CPU, 1 to 100 (0: not given).
    pub load: u8,
    /// `cpuchunks`: microseconds of work per cycle.
    pub chunk_us: u32,
    /// `cpumode=qsort` (else `noop`, a spin).
    pub qsort: bool,
    /// `exit_on_io_done`: end once the phase's I/O jobs have.
    pub exit_on_io_done: bool,
}

impl Default for CpuIo {
    fn default() -> Self {
        CpuIo {
            load: 0,
            chunk_us: 50_000,
            qsort: false,
            exit_on_io_done: false,
        }
    }
}

impl CpuIo {
    pub fn is_unset(&self) -> bool {
        *self == CpuIo::default()
    }
}

/// fio's exec engine: `program` run with `arguments` (split at spaces, `%r` the runtime in
/// seconds, `%n` the job's name), its output in `NAME.stdout` and `NAME.stderr` unless
/// `std_redirect=0`; at the runtime's end SIGTERM, and SIGKILL `grace_time` seconds later.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecJob {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    pub grace_s: u32,
    pub std_redirect: bool,
}

impl Default for ExecJob {
    fn default() -> Self {
        ExecJob {
            program: None,
            arguments: None,
            grace_s: 1,
            std_redirect: true,
        }
    }
}

impl ExecJob {
    pub fn is_unset(&self) -> bool {
        *self == ExecJob::default()
    }
}

/// fio's verify-after-trim: the share of written blocks discarded again (`percent`), after
/// every `backlog` writes, `batch` at a time (0: `backlog`); the closing verify reads them as
/// zeros when `verify_zero` (fio's default), else skips them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrimBack {
    pub percent: u8,
    pub backlog: u64,
    pub batch: u64,
    pub verify_zero: bool,
}

impl Default for TrimBack {
    fn default() -> Self {
        TrimBack {
            percent: 0,
            backlog: 0,
            batch: 0,
            verify_zero: true,
        }
    }
}

impl TrimBack {
    pub fn is_unset(&self) -> bool {
        *self == TrimBack::default()
    }
}

/// fio's zone options as given: `zonemode` (None: unset; Some(true): strided; Some(false):
/// none) and the sizes. [`Zones::strided`] resolves them as fio does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zones {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strided: Option<bool>,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub size: u64,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub range: u64,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub skip: u64,
}

impl Zones {
    pub fn is_unset(&self) -> bool {
        *self == Zones::default()
    }
    /// fio's rules: `zonerange` defaults to `zonesize`; a job of several files runs without
    /// zones. `(size, range, skip)` when the job is strided.
    pub fn strided(&self, nrfiles: u32) -> Option<(u64, u64, u64)> {
        let on = self.strided == Some(true) && self.size > 0 && nrfiles <= 1;
        let range = if self.range == 0 {
            self.size
        } else {
            self.range
        };
        on.then_some((self.size, range, self.skip))
    }
}

/// fio's `lockfile`: a lock per file, shared by every job that names it, held from an I/O's
/// preparation to the return of its submission (for a synchronous engine, the whole I/O).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LockFile {
    #[default]
    None,
    /// One I/O at a time, whatever its direction.
    Exclusive,
    /// Reads together, each write alone.
    ReadWrite,
}

impl LockFile {
    pub fn parse(s: &str) -> Option<LockFile> {
        Some(match s.trim() {
            "none" => LockFile::None,
            "exclusive" => LockFile::Exclusive,
            "readwrite" => LockFile::ReadWrite,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            LockFile::None => "none",
            LockFile::Exclusive => "exclusive",
            LockFile::ReadWrite => "readwrite",
        }
    }
    pub fn is_none(&self) -> bool {
        *self == LockFile::None
    }
}

fn percentiles_default() -> [bool; 3] {
    [true, false, false]
}

fn is_zero(v: &i64) -> bool {
    *v == 0
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

fn hundred() -> u8 {
    100
}

fn is_hundred(v: &u8) -> bool {
    *v == 100
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

fn steady_off(s: &crate::steady::SteadyState) -> bool {
    !s.on()
}

fn lat_target_off(l: &crate::lat_target::LatTarget) -> bool {
    !l.on()
}

fn replay_off(r: &crate::replay::Replay) -> bool {
    !r.on() && *r == crate::replay::Replay::default()
}

fn kb_1024() -> u32 {
    1024
}

fn is_1024(v: &u32) -> bool {
    *v == 1024
}

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

/// Limits chosen so a typo fails fast instead of exhausting memory or kernel resources.
pub const MAX_IODEPTH: u32 = 65_536;
pub const MAX_NUMJOBS: u32 = 1024;
/// fio accepts block sizes up to its 2 GiB I/O limit; dd's `bs=1G` must run.
pub const MAX_BS: u64 = 1 << 30;

/// A workload that cannot run, whatever the target.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("--iodepth={0} is out of range: use 1 to {MAX_IODEPTH}")]
    IoDepth(u32),
    #[error("--numjobs={0} is out of range: use 1 to {MAX_NUMJOBS}")]
    NumJobs(u32),
    #[error(
        "--bs={} is out of range: use 1 byte to 1g (512 bytes or more with O_DIRECT, or \
         --direct=0)",
        crate::short_size(*.0)
    )]
    BlockSize(u64),
    #[error(
        "--bs={0} is not a multiple of 512 bytes, which O_DIRECT needs: use e.g. 4k, or --direct=0"
    )]
    BlockAlign(u64),
    #[error("--rwmixread={0} is out of range: use 0 to 100")]
    RwMix(u8),
    #[error(
        "--size={} is smaller than --bs={}: the job could not issue one I/O; raise --size",
        crate::short_size(*.size),
        crate::short_size(*.bs)
    )]
    SizeBelowBs { size: u64, bs: u64 },
    #[error(
        "--offset={} is not a multiple of 512 bytes, which O_DIRECT needs: align it, or --direct=0",
        crate::short_size(*.0)
    )]
    Offset(u64),
    #[error("--runtime=0 with --time_based would run forever: give a --runtime")]
    NoRuntime,
    #[error("--verify needs blocks of at least 512 bytes (its header and checksum take up to 96): raise --bs")]
    VerifyBs,
    #[error("--buffer_pattern is empty: give bytes, e.g. 0xdeadbeef")]
    EmptyPattern,
    #[error("verify=pattern checks verify_pattern, which is not set: give verify_pattern=0xAA (or another pattern)")]
    NoVerifyPattern,
    #[error("verify_only checks what the job wrote before, so it needs verify=: add verify=crc32c (or the method of the run that wrote)")]
    VerifyOnlyNoVerify,
    #[error("bssplit percentages add up to {0}, not 100: fix the split")]
    BsSplit(u32),
    #[error("size={0}% is out of range: use 1% to 100%")]
    SizePercent(u8),
    #[error("nrfiles=0 would give the job nothing to do: use 1 or more")]
    NrFiles,
    #[error(
        "thinktime_blocks={0} counted at completion with iodepth={1} on an asynchronous \
         engine: how many I/Os fall between thinks then depends on when each tool reaps, and \
         fio's count differs from volbench's; use thinktime_blocks_type=issue, iodepth=1 or \
         thinktime_blocks=1 (which match fio)"
    )]
    ThinkBlocks(u64, u32),
    #[error(
        "the minimum rate exceeds the rate cap for {0}s (as fio refuses it): lower rate_min or \
         rate_iops_min under rate or rate_iops"
    )]
    MinOverRate(&'static str),
    #[error("hipri is an option of io_uring and pvsync2 (psync here), not of {0}: drop hipri or change ioengine")]
    HipriEngine(&'static str),
    #[error(
        "hipri with io_uring polls for completions, which only O_DIRECT I/O can do: add direct=1"
    )]
    HipriBuffered,
    #[error(
        "verify with ioengine={0}: the engine moves no data, so there is nothing to read back; \
         verify with psync, libaio or io_uring"
    )]
    VerifyEngine(&'static str),
    #[error(
        "{0}, as fio says: give zonesize with zonemode=strided (zonerange and zoneskip optional)"
    )]
    Zones(&'static str),
    #[error("{0}")]
    NoIo(&'static str),
}

impl SpecError {
    /// The options that set what this error is about, most direct first: a job file's error
    /// line names where the first of them was written (under any alias: the caller compares
    /// canonical names). The names come from the option table.
    pub fn keys(&self) -> &'static [&'static str] {
        use crate::fio::table::names::*;
        match self {
            SpecError::IoDepth(_) => &[IODEPTH],
            SpecError::NumJobs(_) => &[NUMJOBS],
            SpecError::BlockSize(_) => &[BS],
            SpecError::BlockAlign(_) => &[BS, DIRECT, BUFFERED],
            SpecError::RwMix(_) => &[RWMIXREAD, RWMIXWRITE],
            SpecError::SizeBelowBs { .. } => &[SIZE, BS],
            SpecError::Offset(_) => &[OFFSET, DIRECT, BUFFERED],
            SpecError::NoRuntime => &[RUNTIME, TIME_BASED],
            SpecError::VerifyBs => &[VERIFY, BS],
            SpecError::NoVerifyPattern => &[VERIFY],
            SpecError::VerifyOnlyNoVerify => &[VERIFY],
            SpecError::EmptyPattern => &[BUFFER_PATTERN],
            SpecError::BsSplit(_) => &[BSSPLIT],
            SpecError::SizePercent(_) => &[SIZE],
            SpecError::NrFiles => &[NRFILES],
            SpecError::HipriEngine(_) => &[HIPRI, IOENGINE],
            SpecError::HipriBuffered => &[HIPRI, DIRECT, BUFFERED],
            SpecError::VerifyEngine(_) => &[VERIFY, IOENGINE],
            SpecError::Zones(_) => &["zonemode", "zonesize"],
            SpecError::NoIo(_) => &["cpuload", "program", "runtime", "exit_on_io_done"],
            SpecError::ThinkBlocks(..) => &[THINKTIME_BLOCKS, THINKTIME_BLOCKS_TYPE, IODEPTH],
            SpecError::MinOverRate(_) => &[RATE_MIN, RATE_IOPS_MIN],
        }
    }
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

    pub fn validate(&self) -> Result<(), SpecError> {
        if let Some(w) = self.write_sizes {
            let (lo, hi) = w.range.unwrap_or((w.bs, w.bs));
            for b in [lo, hi] {
                let aligned = !self.direct || self.fio_job || b.is_multiple_of(512);
                if b == 0 || b > MAX_BS || !aligned {
                    return Err(SpecError::BlockSize(b));
                }
            }
        }
        if self.iodepth == 0 || self.iodepth > MAX_IODEPTH {
            return Err(SpecError::IoDepth(self.iodepth));
        }
        if self.numjobs == 0 || self.numjobs > MAX_NUMJOBS {
            return Err(SpecError::NumJobs(self.numjobs));
        }
        // Buffered I/O takes blocks of any size, down to a byte (fio's bs=1 reads a file
        // byte by byte through the page cache: a FUSE object store's time to first byte);
        // O_DIRECT needs whole sectors on a block device, which BlockAlign says below (for
        // fio's jobs, the target's check says it, where the target has a block device).
        let sectors = !self.direct || self.fio_job;
        if self.bs == 0 || self.bs > MAX_BS || (!sectors && self.bs < 512) {
            return Err(SpecError::BlockSize(self.bs));
        }
        // Only O_DIRECT needs whole sectors; buffered I/O takes any size (etcd's well-known
        // fdatasync check writes 2300-byte blocks).
        if !sectors && !self.bs.is_multiple_of(512) {
            return Err(SpecError::BlockAlign(self.bs));
        }
        if self.rwmixread > 100 {
            return Err(SpecError::RwMix(self.rwmixread));
        }
        if let Some(size) = self.size {
            if size < self.bs {
                return Err(SpecError::SizeBelowBs { size, bs: self.bs });
            }
        }
        // fio starts the region anywhere (cross-stripe-verify.fio writes 16k blocks from
        // 120k); only O_DIRECT needs it on a sector boundary.
        if self.direct && !self.offset.is_multiple_of(512) {
            return Err(SpecError::Offset(self.offset));
        }
        if self.time_based && self.runtime.is_none_or(|r| r.is_zero()) {
            return Err(SpecError::NoRuntime);
        }
        let header = self.verify.is_some_and(|v| v != Verify::Pattern);
        if header && self.bs < 512 {
            return Err(SpecError::VerifyBs);
        }
        if self.verify == Some(Verify::Pattern) && self.verify_pattern.is_none() {
            return Err(SpecError::NoVerifyPattern);
        }
        if self.verify_only && self.verify.is_none() {
            return Err(SpecError::VerifyOnlyNoVerify);
        }
        if matches!(&self.buffer, BufferMode::Pattern(p) if p.is_empty()) {
            return Err(SpecError::EmptyPattern);
        }
        for split in [&self.bssplit, &self.bssplit_write] {
            if split.is_empty() {
                continue;
            }
            let total: u32 = split.iter().map(|b| b.percent as u32).sum();
            if total != 100 {
                return Err(SpecError::BsSplit(total));
            }
            for b in split {
                let sectors = b.bs >= 512 && b.bs.is_multiple_of(512);
                if b.bs == 0 || b.bs > MAX_BS || (self.direct && !self.fio_job && !sectors) {
                    return Err(SpecError::BlockSize(b.bs));
                }
            }
        }
        if self.size_percent.is_some_and(|p| p == 0 || p > 100) {
            return Err(SpecError::SizePercent(self.size_percent.unwrap()));
        }
        if self.nrfiles == 0 {
            return Err(SpecError::NrFiles);
        }
        for (d, dir) in ["read", "write"].into_iter().enumerate() {
            let over = |cap: u64, floor: u64| cap > 0 && floor > cap;
            if over(self.rate[d], self.rate_min[d])
                || over(self.rate_iops[d], self.rate_iops_min[d])
            {
                return Err(SpecError::MinOverRate(dir));
            }
        }
        if self.ioengine == EngineKind::CpuIo {
            if self.cpuio.load == 0 {
                return Err(SpecError::NoIo(
                    "a cpuio job needs cpuload= (1 to 100), as fio's",
                ));
            }
            if self.runtime.is_none() && !self.cpuio.exit_on_io_done {
                return Err(SpecError::NoIo(
                    "a cpuio job does no I/O, so only a runtime= (or exit_on_io_done=1 beside \
                     I/O jobs) ends it",
                ));
            }
        }
        if self.ioengine == EngineKind::E4Defrag && self.e4defrag_donor.is_none() {
            return Err(SpecError::NoIo(
                "an e4defrag job needs donorname=, as fio's",
            ));
        }
        if self.ioengine == EngineKind::Exec {
            if self.exec.program.is_none() {
                return Err(SpecError::NoIo("an exec job needs program=, as fio's"));
            }
            if self.runtime.is_none() {
                return Err(SpecError::NoIo(
                    "an exec job runs its program until its runtime=, as fio's: give one",
                ));
            }
        }
        match (self.zones.strided, self.zones.size) {
            (Some(true), 0) => return Err(SpecError::Zones("zonemode=strided needs zonesize")),
            (None | Some(false), n) if n > 0 => {
                return Err(SpecError::Zones(
                    "zonemode=none and zonesize do not go together",
                ))
            }
            _ => {}
        }
        if let Some(t) = self
            .think
            .filter(|t| t.us > 0 && !t.on_issue && t.blocks > 1 && t.counts_blocks())
        {
            let depth = self.effective_iodepth();
            if depth > 1 {
                return Err(SpecError::ThinkBlocks(t.blocks, depth));
            }
        }
        self.check_hipri()
    }

    fn check_hipri(&self) -> Result<(), SpecError> {
        // fio's falloc reads return no data and ftruncate fakes its verify: neither checks
        // anything, so a verify on them would be a promise with nothing behind it.
        if self.verify.is_some()
            && matches!(self.ioengine, EngineKind::Falloc | EngineKind::Ftruncate)
        {
            return Err(SpecError::VerifyEngine(self.ioengine.as_str()));
        }
        match (self.hipri, self.ioengine) {
            (true, EngineKind::Libaio) => Err(SpecError::HipriEngine("libaio")),
            (true, EngineKind::IoUring) if !self.direct => Err(SpecError::HipriBuffered),
            _ => Ok(()),
        }
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
    fn defaults_are_valid() {
        JobSpec::default().validate().unwrap();
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        let bad = |f: fn(&mut JobSpec)| {
            let mut j = JobSpec::default();
            f(&mut j);
            j.validate().unwrap_err()
        };
        assert_eq!(bad(|j| j.iodepth = 0), SpecError::IoDepth(0));
        assert_eq!(bad(|j| j.iodepth = 100_000), SpecError::IoDepth(100_000));
        assert_eq!(bad(|j| j.numjobs = 0), SpecError::NumJobs(0));
        assert_eq!(bad(|j| j.bs = 1000), SpecError::BlockAlign(1000));
        let buffered = JobSpec {
            direct: false,
            bs: 2300,
            ..JobSpec::default()
        };
        assert_eq!(
            buffered.validate(),
            Ok(()),
            "only O_DIRECT needs whole sectors"
        );
        assert_eq!(
            bad(|j| j.size = Some(1024)),
            SpecError::SizeBelowBs {
                size: 1024,
                bs: 4096
            }
        );
        assert_eq!(bad(|j| j.runtime = None), SpecError::NoRuntime);
    }

    #[test]
    fn sync_engines_run_at_depth_one() {
        let j = JobSpec {
            ioengine: EngineKind::Psync,
            ..JobSpec::default()
        };
        assert_eq!(j.effective_iodepth(), 1);
    }
}
