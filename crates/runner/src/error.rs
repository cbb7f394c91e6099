//! Why a run could not start or had to stop, each with the fix in the message.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(
        "{path} does not exist and allow_file_create=0 forbids creating it: name an existing \
         file or device, or drop allow_file_create=0"
    )]
    NoCreate { path: PathBuf },
    #[error("another rank could not start, so none did (its error is reported with it)")]
    PeerFailed,
    #[error(transparent)]
    Spec(#[from] workload::validate::SpecError),
    #[error("job {job}: wait_for={waitee} names no job before it: name an earlier job's section (fio waits only for one defined earlier)")]
    WaitFor { job: String, waitee: String },
    #[error("opendir={0} holds no regular file (or cannot be read): name a directory with the files to use, or give filename=")]
    EmptyOpendir(PathBuf),
    #[error("directory {0} does not exist: create it or choose another with --directory")]
    MissingDirectory(PathBuf),
    #[error(
        "atomic=1: {path} is on {disk}, which has no atomic write unit (queue/\
         atomic_write_unit_max_bytes is 0), so the kernel would refuse every RWF_ATOMIC write; \
         drop atomic, or run on a device that offers atomic writes"
    )]
    NoAtomic { path: PathBuf, disk: String },
    #[error("cgroup={name}: {why}")]
    Cgroup { name: String, why: String },
    #[error("ioscheduler={want}: cannot switch {disk} to it: {why}; drop ioscheduler or name one it offers")]
    Scheduler {
        disk: String,
        want: String,
        why: String,
    },
    #[error("cannot create directory {0}: {1}: create it yourself or choose another directory=")]
    MakeDirectory(PathBuf, #[source] io::Error),
    #[error(
        "not enough free space in {dir}: the test file needs {need} more but only {free} is free; \
         lower --size or choose another --directory"
    )]
    NoSpace {
        dir: PathBuf,
        need: String,
        free: String,
    },
    #[error("the disk filled up while laying out {path}: lower --size or free space")]
    DiskFull { path: PathBuf },
    #[error(
        "O_DIRECT is not supported on {path} ({fs}): pass --direct=0 (results then include the page \
         cache) or choose a directory on a block device"
    )]
    DirectUnsupported { path: PathBuf, fs: String },
    #[error(
        "--bs={bs} is not a multiple of the logical block size {lbs} of {path}: direct I/O needs \
         whole blocks{}; use --bs={lbs} or a multiple",
        si_note(*.bs)
    )]
    BlockSizeMismatch { bs: u64, lbs: u32, path: PathBuf },
    #[error(
        "--offset={offset} is not a multiple of the logical block size {lbs} of {path}: direct \
         I/O needs whole blocks; align the offset to {lbs}"
    )]
    OffsetMismatch {
        offset: u64,
        lbs: u32,
        path: PathBuf,
    },
    #[error(
        "refusing to write to {path}: {why}. Writing would destroy that data; pass \
         --allow-destructive if you mean it, or choose another target"
    )]
    Destructive { path: PathBuf, why: String },
    #[error(
        "refusing to write to {path}: {why}. volbench never writes to a device the running \
         system uses, --allow-destructive or fio's allow_mounted_write=1 notwithstanding: \
         unmount it (or swapoff, or release it) first, or choose another target"
    )]
    InUse { path: PathBuf, why: String },
    #[error(
        "refusing to {verb} {path}: it was there before this run, and volbench removes only \
         what it created; pass --allow-destructive if you mean it, or name files the job \
         creates"
    )]
    NotOurs { verb: &'static str, path: PathBuf },
    #[error(
        "--size={} at --offset={} does not fit on {path} ({}): lower --size",
        workload::short_size(*.size),
        workload::short_size(*.offset),
        workload::format_bytes(*.capacity as f64)
    )]
    TooBig {
        path: PathBuf,
        size: u64,
        offset: u64,
        capacity: u64,
    },
    #[error("size as a percentage needs an existing file or a device, and {path} has nothing to take a share of: give size in bytes")]
    SizePercent { path: PathBuf },
    #[error(
        "{path} gets {}, less than one block of {}: raise size or lower nrfiles",
        workload::format_bytes(*.len as f64),
        workload::short_size(*.bs)
    )]
    TooSmall { path: PathBuf, len: u64, bs: u64 },
    #[error(
        "hipri: {path} is on {dev}, which has no polled queues (its queue/io_poll is 0; NVMe \
         gets them with the nvme module's poll_queues=N), so every polled I/O would fail with \
         'Operation not supported', as fio's do: drop hipri, or use ioengine=pvsync2, where \
         the kernel falls back to interrupts"
    )]
    NoPoll { path: PathBuf, dev: String },
    #[error(
        "rw=trim/randtrim/trimwrite discards with BLKDISCARD, which only a block device takes \
         ({path} is a file; fio 3.33 fails on one with ENOTTY): name a device with \
         --allow-destructive, or use ioengine=null to time the pattern alone"
    )]
    TrimFile { path: PathBuf },
    #[error("{path} is neither a regular file nor a block device: choose a file or a device")]
    BadTarget { path: PathBuf },
    #[error(
        "{path} does not exist, and /dev holds devices, not test files: check the device's name \
         (lsblk lists them), or give a directory on the device under test"
    )]
    NoDevice { path: PathBuf },
    #[error(
        "{path} is on {fs}, a kernel interface rather than storage: choose a file or directory \
         on the device under test"
    )]
    PseudoFs { path: PathBuf, fs: String },
    #[error(
        "{path} is {} but the job reads {}: volbench does not grow a file it did not create; give \
         --size={} or less, or name a new file (volbench lays it out with data)",
        workload::format_bytes(*have as f64), workload::format_bytes(*want as f64), workload::short_size(*have)
    )]
    UserFileTooSmall { path: PathBuf, have: u64, want: u64 },
    #[error(
        "{path} has {holes} of holes or unwritten (fallocated) extents in the {region} to be read: \
         they read as zeros without touching the device, so the result would be fiction; write \
         the file first (volbench run --filename={path} --rw=write --bs=1m --size=...) or name a \
         new file, which volbench lays out with data"
    )]
    Holes {
        path: PathBuf,
        holes: String,
        region: String,
    },
    #[error(
        "the I/O buffers need {need} (bs x iodepth x numjobs) but only {avail} of memory is \
         available: lower --bs, --iodepth or --numjobs"
    )]
    Memory { need: String, avail: String },
    /// A path the rules for user-named files refuse (outfile's one line).
    #[error("{0}")]
    Refused(String),
    #[error("cannot open {path}: {source}{}", emfile_hint(source))]
    Open {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("pre_read of {path} failed: {source}: check the file, or drop pre_read")]
    PreRead {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("laying out {path} failed: {source}")]
    Layout {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("interrupted while laying out {path}; the partial file was removed")]
    InterruptedLayout { path: PathBuf },
    #[error(transparent)]
    Engine(#[from] engine::EngineError),
    #[error("{0}")]
    Replay(String),
}

/// What to do when the descriptors ran out: volbench holds every file of every job open.
fn emfile_hint(e: &io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(libc::EMFILE) | Some(libc::ENFILE) => {
            ": volbench keeps every file of every job open; raise the hard limit (ulimit -Hn, \
             or LimitNOFILE= for a service) or give fewer files (nrfiles)"
        }
        _ => "",
    }
}

impl RunError {
    /// A refusal of what was asked, found before any measured I/O (a missing directory, a
    /// device holding data, a size that does not fit): bad input, exit code 2, where a run
    /// that failed on the way (an engine, a layout write, a peer) is exit code 1.
    pub fn is_input(&self) -> bool {
        !matches!(
            self,
            RunError::PeerFailed
                | RunError::DiskFull { .. }
                | RunError::Layout { .. }
                | RunError::InterruptedLayout { .. }
                | RunError::Engine(_)
        )
    }
}

/// Why a block size the user wrote as `1GiB` reads as 1000000000: said where the size is a
/// whole number of SI units, which an IEC prefix gives under fio's rule (a trial read the
/// bare number back and could not tell where it came from).
fn si_note(bs: u64) -> String {
    let si = [
        (1_000_000_000, "GiB", "g"),
        (1_000_000, "MiB", "m"),
        (1_000, "KiB", "k"),
    ];
    match si.iter().find(|(unit, _, _)| bs.is_multiple_of(*unit)) {
        Some((unit, iec, short)) => format!(
            " ({bs} is {}{iec} as fio reads it: KiB, MiB and GiB are powers of 1000 under its \
             default kb_base=1024; write {}{short} for powers of 1024)",
            bs / unit,
            bs / unit
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::RunError;

    #[test]
    fn a_block_size_from_an_iec_prefix_names_fio_s_rule() {
        let e = RunError::BlockSizeMismatch {
            bs: 1_000_000_000,
            lbs: 4096,
            path: "/dev/zram3".into(),
        };
        let m = e.to_string();
        assert!(
            m.contains("1000000000 is 1GiB as fio reads it") && m.contains("write 1g"),
            "{m}"
        );
        let e = RunError::BlockSizeMismatch {
            bs: 4100,
            lbs: 4096,
            path: "/dev/zram3".into(),
        };
        assert!(!e.to_string().contains("fio reads it"), "{e}");
    }
}
