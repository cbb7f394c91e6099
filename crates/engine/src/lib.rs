//! How I/O is done: one small trait and its back ends (io_uring, libaio, psync, mmap, null,
//! and fio's falloc, ftruncate and e4defrag).
//!
//! The protocol is fio's queue/commit/getevents idea in three calls: [`Engine::push`] queues a
//! request, [`Engine::submit`] hands the queue to the kernel, [`Engine::reap`] collects
//! completions. A synchronous engine does the I/O inside `push`, so the runner drives every engine
//! with the same loop. Engines own the data buffers as fixed slots; a request names its slot and
//! the completion carries the slot back. All `unsafe` of the project sits in this crate.
//!
//! The engine knows nothing of workloads or reports: it moves bytes between slots and files.

mod buf;
mod calls;
mod defrag;
mod libaio;
mod mmap;
mod null;
mod psync;
mod space;
mod uring;

pub use buf::SlotBuffers;
pub use calls::{Call, Calls};
pub use defrag::{Defrag, Donor};
pub use libaio::Libaio;
pub use null::Null;
pub use psync::Psync;
pub use space::{punch, Space, SpaceOp};
pub use uring::IoUring;

use std::io;
use std::os::fd::RawFd;

/// Direction of one data transfer. A trim moves no data: the runner issues it itself with
/// [`discard`], synchronously on every engine, as fio does; engines refuse to queue one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    Trim,
}

/// The ioctl that discards a range of a block device (`_IO(0x12, 119)`).
const BLKDISCARD: libc::c_ulong = 0x1277;

/// fio's trim: BLKDISCARD of `len` bytes at `offset` on block device `fd`, synchronous: `len`
/// once the device has dropped the range, or a negative errno (ENOTTY for a regular file).
pub fn discard(fd: RawFd, offset: u64, len: u32) -> i64 {
    let range = [offset, len as u64];
    // SAFETY: BLKDISCARD reads two u64s (start, length) from the pointer, which is valid
    // for the call; the descriptor is the caller's, open.
    let r = unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) };
    if r < 0 {
        let errno = io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        return -(errno as i64);
    }
    len as i64
}

/// Queueing a trim is the runner's mistake: engines only move data.
fn trim_queued(engine: &'static str) -> EngineError {
    EngineError::Setup(format!(
        "{engine}: a trim is issued with engine::discard, not queued"
    ))
}

/// One I/O: move `len` bytes between buffer `slot` and file `file` at `offset`.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub op: Op,
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub slot: u32,
    /// The request's own I/O priority (`class << 13 | level`, fio's cmdprio), 0 for the
    /// thread's; io_uring and libaio carry it, psync cannot.
    pub ioprio: u16,
}

/// The outcome of one request: bytes moved, or a negative errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i64,
}

/// What every engine is built from.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Open file descriptors; requests name them by index. The caller keeps them open.
    pub fds: Vec<RawFd>,
    /// Maximum requests in flight, which is also the number of buffer slots.
    pub depth: u32,
    /// Bytes per slot (the largest block size the job uses).
    pub slot_size: usize,
    /// Buffer alignment: at least the device's logical block size, for O_DIRECT.
    pub align: usize,
    /// Make every write durable on its own (RWF_DSYNC: pwritev2, io_uring, libaio), as if the
    /// file were opened O_DSYNC but chosen per write, the way a database's log writer can.
    pub write_dsync: bool,
    /// Polled completions (fio's `hipri`): io_uring sets up the ring with IOPOLL, psync passes
    /// RWF_HIPRI to preadv2/pwritev2.
    pub hipri: bool,
    /// The offsets are random: mmap tells the kernel so (MADV_RANDOM), as fio does, so a
    /// fault does not read ahead.
    pub random: bool,
    /// io_uring: a kernel thread polls the submission queue (fio's `sqthread_poll`), on this
    /// CPU when given (`sqthread_poll_cpu`); the job thread then submits without a syscall.
    pub sqpoll: Option<Option<u32>>,
    /// Per-I/O flags fio's newer options set (psync, libaio, io_uring): `uncached`
    /// (RWF_DONTCACHE, reads and writes) and `atomic` (RWF_ATOMIC, writes).
    pub uncached: bool,
    pub atomic: bool,
    /// fio's `nowait`: RWF_NOWAIT on every read and write, so one that would block (a page
    /// cache miss, a busy queue) fails with EAGAIN instead of waiting.
    pub nowait: bool,
    /// io_uring: every Nth request with IOSQE_ASYNC (fio's `force_async`); 0 never.
    pub force_async: u32,
    /// psync with `hipri`: the share of I/Os that are polled (fio's `hipri_percentage`).
    pub hipri_percent: u8,
    /// The job asked for direct I/O: mmap cannot bypass the page cache, so, as fio's mmap
    /// engine, it msyncs each read and write's pages before the I/O completes.
    pub direct: bool,
}

/// RWF_DONTCACHE (Linux 6.14): buffered I/O whose pages leave the page cache once done.
pub const RWF_DONTCACHE: i32 = 0x80;
/// RWF_ATOMIC (Linux 6.11): a write stored whole or not at all (torn-write protection).
pub const RWF_ATOMIC: i32 = 0x40;

impl EngineConfig {
    /// The RWF_* flags of every read.
    pub fn read_flags(&self) -> i32 {
        let uncached = if self.uncached { RWF_DONTCACHE } else { 0 };
        let nowait = if self.nowait { libc::RWF_NOWAIT } else { 0 };
        uncached | nowait
    }
    /// The RWF_* flags of every write: per-write durability, uncached, atomic, nowait.
    pub fn write_flags(&self) -> i32 {
        let dsync = if self.write_dsync { libc::RWF_DSYNC } else { 0 };
        let atomic = if self.atomic { RWF_ATOMIC } else { 0 };
        dsync | atomic | self.read_flags()
    }
}

/// Everything an engine can fail with, with the errno kept for the report.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{engine} is not available on this kernel ({source}): use --ioengine=psync or another engine")]
    Unavailable {
        engine: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("{engine}: {what}: {source}")]
    Io {
        engine: &'static str,
        what: &'static str,
        #[source]
        source: io::Error,
    },
    /// The job's own setup failed before any engine was built (fio's exec_prerun).
    #[error("{0}")]
    Setup(String),
}

/// The back-end contract. Calls come from one thread; an engine is moved into that thread.
pub trait Engine: Send {
    fn name(&self) -> &'static str;

    /// Queues one request. The slot must not be in flight. A synchronous engine performs the I/O
    /// here. The runner never pushes more than `depth` requests without reaping.
    fn push(&mut self, req: Request) -> Result<(), EngineError>;

    /// Hands queued requests to the kernel.
    fn submit(&mut self) -> Result<(), EngineError>;

    /// Appends at least `min` completions to `out` (fewer only if fewer are in flight), waiting if
    /// needed. `out` is cleared first; its capacity is kept so the hot loop never allocates.
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), EngineError>;

    /// Appends the completions that arrive within `wait_ns` (at least one unless the time
    /// runs out first): a replay waits for its next I/O's due time and for completions at
    /// once, and must not sleep past the one while waiting for the other. The default polls
    /// once (synchronous engines have nothing in flight).
    fn reap_within(&mut self, wait_ns: u64, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let _ = wait_ns;
        self.reap(0, out)
    }

    /// The bytes of one slot, to fill before a write or read after a read completes.
    fn slot(&mut self, slot: u32) -> &mut [u8];

    /// For large-block slots (over 64 KiB), whether they sit on huge pages; None otherwise.
    fn huge_page_buffers(&self) -> Option<bool> {
        None
    }

    /// Flushes file `file` to stable storage (fdatasync when `datasync`). The runner calls it
    /// with nothing in flight, so the sync covers every write completed before it.
    fn sync(&mut self, file: u32, datasync: bool) -> io::Result<()>;

    /// True when `push` completes the I/O itself (no separate submission latency exists).
    fn is_sync(&self) -> bool {
        false
    }

    /// File `file`'s descriptor now names another file (the runner replaced it with dup2,
    /// nothing in flight): drop what the engine keeps of the old one (a registration, a
    /// mapping). The default keeps nothing.
    fn reopened(&mut self, file: u32) -> io::Result<()> {
        let _ = file;
        Ok(())
    }
}

/// Calls fsync or fdatasync on a descriptor.
pub(crate) fn sync_fd(fd: RawFd, datasync: bool) -> io::Result<()> {
    loop {
        // SAFETY: fsync/fdatasync only read the descriptor number; an invalid one gives EBADF.
        let r = unsafe {
            if datasync {
                libc::fdatasync(fd)
            } else {
                libc::fsync(fd)
            }
        };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
