//! The values fio's options take, as types: the access pattern, the engines, the verify
//! methods, sync modes, buffers and logs, and the small structs a group of options fills
//! (cmdprio, thinktime, zones, trim backlog ...). [`crate::spec::JobSpec`] holds them.

use serde::{Deserialize, Serialize};

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

pub(crate) fn five() -> u8 {
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

pub(crate) fn dedupe_off(d: &Dedupe) -> bool {
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

    pub(crate) fn is_none(&self) -> bool {
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

pub(crate) fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

pub(crate) fn no_lists(l: &[Vec<i32>; 3]) -> bool {
    l.iter().all(Vec::is_empty)
}

pub(crate) fn is_zero_u8(v: &u8) -> bool {
    *v == 0
}

pub(crate) fn all_random() -> [u8; 2] {
    [100, 100]
}

pub(crate) fn is_all_random(v: &[u8; 2]) -> bool {
    *v == [100, 100]
}

pub(crate) fn is_zero_pair(v: &[u64; 2]) -> bool {
    *v == [0, 0]
}

pub(crate) fn one_second_ms() -> u64 {
    1000
}

pub(crate) fn yes() -> bool {
    true
}

pub(crate) fn is_true(v: &bool) -> bool {
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

pub(crate) fn percentiles_default() -> [bool; 3] {
    [true, false, false]
}

pub(crate) fn is_zero(v: &i64) -> bool {
    *v == 0
}

pub(crate) fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

pub(crate) fn hundred() -> u8 {
    100
}

pub(crate) fn is_hundred(v: &u8) -> bool {
    *v == 100
}

pub(crate) fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

pub(crate) fn steady_off(s: &crate::steady::SteadyState) -> bool {
    !s.on()
}

pub(crate) fn lat_target_off(l: &crate::lat_target::LatTarget) -> bool {
    !l.on()
}

pub(crate) fn replay_off(r: &crate::replay::Replay) -> bool {
    !r.on() && *r == crate::replay::Replay::default()
}

pub(crate) fn kb_1024() -> u32 {
    1024
}

pub(crate) fn is_1024(v: &u32) -> bool {
    *v == 1024
}
