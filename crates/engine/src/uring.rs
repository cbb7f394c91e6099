//! io_uring through the `io-uring` crate.
//!
//! Files and buffers are registered with the ring when the kernel allows it, so each I/O skips
//! the per-call file lookup and page pinning; that is most of the CPU an engine can save on a
//! fast device. Setup flags (single issuer, cooperative and deferred task work) are tried from
//! the newest down, so older kernels still get a working ring.

use crate::{sync_fd, Completion, Engine, EngineConfig, EngineError, Op, Request, SlotBuffers};
use io_uring::{opcode, squeue, types};
use std::io;
use std::os::fd::RawFd;

/// `IORING_ENTER_GETEVENTS` from <linux/io_uring.h>.
const IORING_ENTER_GETEVENTS: u32 = 1;

pub struct IoUring {
    // Field order matters: the ring drops (and the kernel lets go of the buffers) before `bufs`.
    ring: io_uring::IoUring,
    bufs: SlotBuffers,
    fds: Vec<RawFd>,
    fixed_files: bool,
    fixed_bufs: bool,
    /// RWF_* flags for writes (RWF_DSYNC for per-write durability).
    write_flags: i32,
    /// RWF_* flags for reads (RWF_DONTCACHE with `uncached`).
    read_flags: i32,
    in_flight: usize,
    queued: usize,
    /// fio's force_async: every Nth request goes straight to an io-wq worker (IOSQE_ASYNC)
    /// instead of being tried inline first; 0 never. `pushed` counts the requests.
    force_async: u32,
    pushed: u32,
}

fn err(what: &'static str, source: io::Error) -> EngineError {
    EngineError::Io {
        engine: "io_uring",
        what,
        source,
    }
}

/// How long the kernel's submission thread spins without work before it sleeps (its wake-up
/// then costs a syscall): fio leaves the kernel's default, one second.
const SQPOLL_IDLE_MS: u32 = 1000;

fn build_ring(
    entries: u32,
    poll: bool,
    sqpoll: Option<Option<u32>>,
) -> io::Result<io_uring::IoUring> {
    let mut last = None;
    // A polled submission queue cannot defer task work to its submitter (DEFER_TASKRUN
    // needs one issuing task, SQPOLL is another): start from the plainer levels.
    let first = if sqpoll.is_some() { 1 } else { 0 };
    for level in first..3 {
        let mut b = io_uring::IoUring::builder();
        if poll {
            b.setup_iopoll();
        }
        if let Some(cpu) = sqpoll {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(c) = cpu {
                b.setup_sqpoll_cpu(c);
            }
        }
        if level == 0 {
            b.setup_single_issuer()
                .setup_defer_taskrun()
                .setup_coop_taskrun();
        } else if level == 1 {
            b.setup_coop_taskrun();
        }
        match b.setup_cqsize(entries * 2).build(entries) {
            Ok(r) => return Ok(r),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::ENOSYS)))
}

impl IoUring {
    /// Appends the completions the ring holds now.
    #[inline]
    fn drain(&mut self, out: &mut Vec<Completion>) {
        for cqe in self.ring.completion() {
            out.push(Completion {
                slot: cqe.user_data() as u32,
                result: cqe.result() as i64,
            });
        }
    }

    /// Builds the ring. Call it on the thread that will drive it: single-issuer rings belong to
    /// the task that created them.
    pub fn new(cfg: &EngineConfig) -> Result<IoUring, EngineError> {
        let entries = cfg.depth.max(1).next_power_of_two();
        // The kernel's IORING_MAX_ENTRIES: a deeper ring fails with EINVAL, which is the
        // depth's fault, not the kernel's (fio 3.33 fails there too).
        if entries > 32_768 {
            return Err(EngineError::Setup(format!(
                "iodepth={} is more than io_uring's ring takes (32768): give --iodepth=32768 \
                 or less, or use --ioengine=libaio",
                cfg.depth
            )));
        }
        let ring = build_ring(entries, cfg.hipri, cfg.sqpoll).map_err(|source| {
            EngineError::Unavailable {
                engine: "io_uring",
                source,
            }
        })?;
        let bufs = SlotBuffers::new(cfg.depth as usize, cfg.slot_size, cfg.align);
        let fixed_files = ring.submitter().register_files(&cfg.fds).is_ok();
        let iovecs: Vec<libc::iovec> = (0..bufs.count() as u32)
            .map(|i| libc::iovec {
                iov_base: bufs.slot_ptr(i).cast(),
                iov_len: bufs.slot_size(),
            })
            .collect();
        // SAFETY: the iovecs point into `bufs`, which lives as long as the ring (it is declared
        // after `ring`, so it drops after the ring has released the registration).
        let fixed_bufs = bufs.registrable()
            && bufs.count() <= u16::MAX as usize
            && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(IoUring {
            ring,
            bufs,
            fds: cfg.fds.clone(),
            fixed_files,
            fixed_bufs,
            write_flags: cfg.write_flags(),
            read_flags: cfg.read_flags(),
            in_flight: 0,
            queued: 0,
            force_async: cfg.force_async,
            pushed: 0,
        })
    }

    fn entry(&self, req: &Request) -> squeue::Entry {
        let ptr = self.bufs.slot_ptr(req.slot);
        let idx = req.slot as u16;
        macro_rules! build {
            ($fd:expr) => {
                match (req.op, self.fixed_bufs) {
                    (Op::Read, true) => opcode::ReadFixed::new($fd, ptr, req.len, idx)
                        .offset(req.offset)
                        .rw_flags(self.read_flags)
                        .ioprio(req.ioprio)
                        .build(),
                    (Op::Write | Op::Trim, true) => opcode::WriteFixed::new($fd, ptr, req.len, idx)
                        .offset(req.offset)
                        .rw_flags(self.write_flags)
                        .ioprio(req.ioprio)
                        .build(),
                    (Op::Read, false) => opcode::Read::new($fd, ptr, req.len)
                        .offset(req.offset)
                        .rw_flags(self.read_flags)
                        .ioprio(req.ioprio)
                        .build(),
                    (Op::Write | Op::Trim, false) => opcode::Write::new($fd, ptr, req.len)
                        .offset(req.offset)
                        .rw_flags(self.write_flags)
                        .ioprio(req.ioprio)
                        .build(),
                }
            };
        }
        let e = if self.fixed_files {
            build!(types::Fixed(req.file))
        } else {
            build!(types::Fd(self.fds[req.file as usize]))
        };
        e.user_data(req.slot as u64)
    }

    /// IOSQE_ASYNC on every `force_async`th request.
    fn forced(&mut self, e: squeue::Entry) -> squeue::Entry {
        if self.force_async == 0 {
            return e;
        }
        self.pushed = self.pushed.wrapping_add(1);
        match self.pushed % self.force_async {
            0 => e.flags(squeue::Flags::ASYNC),
            _ => e,
        }
    }
}

impl Engine for IoUring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    /// A registered file stays the old file until its slot is updated.
    fn reopened(&mut self, file: u32) -> io::Result<()> {
        if self.fixed_files {
            let fd = [self.fds[file as usize]];
            self.ring.submitter().register_files_update(file, &fd)?;
        }
        Ok(())
    }

    fn push(&mut self, req: Request) -> Result<(), EngineError> {
        assert!(req.len as usize <= self.bufs.slot_size());
        if req.op == Op::Trim {
            return Err(crate::trim_queued("io_uring"));
        }
        let e = self.entry(&req);
        let e = self.forced(e);
        // SAFETY: the entry points at a slot buffer owned by self that stays untouched until its
        // completion is reaped (the runner does not reuse a slot in flight), and at a registered
        // or open descriptor.
        unsafe { self.ring.submission().push(&e) }.map_err(|_| {
            err(
                "submission queue full",
                io::Error::from_raw_os_error(libc::EBUSY),
            )
        })?;
        self.queued += 1;
        Ok(())
    }

    fn submit(&mut self) -> Result<(), EngineError> {
        if self.ring.params().is_setup_sqpoll() {
            // The kernel's thread takes every entry in the ring (they cannot overflow it: no
            // more than the depth are out); a syscall only wakes the thread when it slept.
            self.ring.submit().map_err(|e| err("submit", e))?;
            self.in_flight += std::mem::take(&mut self.queued);
            return Ok(());
        }
        while self.queued > 0 {
            // GETEVENTS with min_complete 0 (as fio's commit does): the same call also posts
            // completions that finished meanwhile, so the next reap usually needs no syscall.
            // SAFETY: no signal mask or extended argument is passed (None).
            let r = unsafe {
                self.ring.submitter().enter::<libc::sigset_t>(
                    self.queued as u32,
                    0,
                    IORING_ENTER_GETEVENTS,
                    None,
                )
            };
            match r {
                Ok(n) => {
                    self.queued -= n.min(self.queued);
                    self.in_flight += n;
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(err("submit", e)),
            }
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        out.clear();
        let min = min.min(self.in_flight);
        loop {
            self.drain(out);
            if out.len() >= min {
                break;
            }
            match self.ring.submitter().submit_and_wait(min - out.len()) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(err("wait for completions", e)),
            }
        }
        self.in_flight -= out.len();
        Ok(())
    }

    fn reap_within(&mut self, wait_ns: u64, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        out.clear();
        let ts = io_uring::types::Timespec::new()
            .sec(wait_ns / 1_000_000_000)
            .nsec((wait_ns % 1_000_000_000) as u32);
        let args = io_uring::types::SubmitArgs::new().timespec(&ts);
        if self.ring.completion().is_empty() && self.in_flight > 0 {
            match self.ring.submitter().submit_with_args(1, &args) {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME | libc::EINTR)) => {}
                Err(e) => return Err(err("wait for completions", e)),
            }
        }
        self.drain(out);
        self.in_flight -= out.len();
        Ok(())
    }

    fn slot(&mut self, slot: u32) -> &mut [u8] {
        self.bufs.slot(slot)
    }

    fn huge_page_buffers(&self) -> Option<bool> {
        self.bufs.huge_page_state()
    }

    fn sync(&mut self, file: u32, datasync: bool) -> io::Result<()> {
        sync_fd(self.fds[file as usize], datasync)
    }
}

impl Drop for IoUring {
    fn drop(&mut self) {
        // Wait for everything in flight so the kernel never writes into freed buffers.
        while self.in_flight > 0 {
            let _ = self.ring.submitter().submit_and_wait(1);
            let n = self.ring.completion().count();
            self.in_flight -= n.min(self.in_flight);
        }
    }
}
