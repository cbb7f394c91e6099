//! libaio: the kernel's native AIO syscalls (io_setup/io_submit/io_getevents), called directly.
//!
//! The ABI structs are declared here rather than linking libaio.so: they are four syscalls and
//! two fixed kernel structs, and this keeps the build free of a C dependency.

use crate::{sync_fd, Completion, Engine, EngineConfig, EngineError, Op, Request, SlotBuffers};
use std::io;
use std::os::fd::RawFd;

/// The iocb carries its own priority in aio_reqprio (linux/aio_abi.h).
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct iocb` from <linux/aio_abi.h> (little-endian field order).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event` from <linux/aio_abi.h>.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

pub struct Libaio {
    ctx: libc::c_ulong,
    iocbs: Vec<Iocb>,
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    fds: Vec<RawFd>,
    in_flight: usize,
    bufs: SlotBuffers,
    /// RWF_* flags for writes (RWF_DSYNC for per-write durability, kernel 4.13+).
    write_flags: i32,
    /// RWF_* flags for reads (RWF_DONTCACHE with `uncached`).
    read_flags: i32,
}

// SAFETY: the raw pointers in `pending` point into `iocbs`, owned by the same value.
unsafe impl Send for Libaio {}

fn err(what: &'static str, source: io::Error) -> EngineError {
    EngineError::Io {
        engine: "libaio",
        what,
        source,
    }
}

impl Libaio {
    pub fn new(cfg: &EngineConfig) -> Result<Libaio, EngineError> {
        let depth = cfg.depth.max(1) as usize;
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context id into `ctx`, a valid, writable location.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        if r != 0 {
            return Err(EngineError::Unavailable {
                engine: "libaio",
                source: io::Error::last_os_error(),
            });
        }
        Ok(Libaio {
            ctx,
            iocbs: vec![Iocb::default(); depth],
            pending: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            fds: cfg.fds.clone(),
            in_flight: 0,
            bufs: SlotBuffers::new(depth, cfg.slot_size, cfg.align),
            write_flags: cfg.write_flags(),
            read_flags: cfg.read_flags(),
        })
    }

    fn getevents(&mut self, min: usize) -> io::Result<usize> {
        self.getevents_within(min, None)
    }

    /// The `n` events just got, as completions.
    fn take(&mut self, n: usize, out: &mut Vec<Completion>) {
        for ev in &self.events[..n] {
            out.push(Completion {
                slot: ev.data as u32,
                result: ev.res,
            });
        }
        self.in_flight -= n;
    }

    /// io_getevents, waiting at most `wait_ns` when given (then fewer than `min` may come).
    fn getevents_within(&mut self, min: usize, wait_ns: Option<u64>) -> io::Result<usize> {
        let mut ts = wait_ns.map(|ns| libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        });
        let tsp = ts
            .as_mut()
            .map_or(std::ptr::null_mut(), |t| t as *mut libc::timespec);
        loop {
            // SAFETY: `events` has room for `events.len()` entries; a null timeout means wait,
            // else `tsp` points at `ts`, alive for the call.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    self.events.len() as libc::c_long,
                    self.events.as_mut_ptr(),
                    tsp,
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }
}

impl Engine for Libaio {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn push(&mut self, req: Request) -> Result<(), EngineError> {
        assert!(req.len as usize <= self.bufs.slot_size());
        if req.op == Op::Trim {
            return Err(crate::trim_queued("libaio"));
        }
        let cb = &mut self.iocbs[req.slot as usize];
        *cb = Iocb {
            aio_data: req.slot as u64,
            aio_lio_opcode: match req.op {
                Op::Read => IOCB_CMD_PREAD,
                Op::Write | Op::Trim => IOCB_CMD_PWRITE,
            },
            aio_fildes: self.fds[req.file as usize] as u32,
            aio_buf: self.bufs.slot_ptr(req.slot) as u64,
            aio_nbytes: req.len as u64,
            aio_offset: req.offset as i64,
            aio_rw_flags: if req.op == Op::Write {
                self.write_flags
            } else {
                self.read_flags
            },
            aio_reqprio: req.ioprio as i16,
            aio_flags: if req.ioprio != 0 { IOCB_FLAG_IOPRIO } else { 0 },
            ..Iocb::default()
        };
        self.pending.push(cb as *mut Iocb);
        Ok(())
    }

    fn submit(&mut self) -> Result<(), EngineError> {
        let mut done = 0;
        while done < self.pending.len() {
            let rest = &mut self.pending[done..];
            // SAFETY: every pointer in `rest` points at an iocb in self.iocbs describing a slot
            // buffer owned by self, untouched until its event is reaped.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    rest.len() as libc::c_long,
                    rest.as_mut_ptr(),
                )
            };
            if r > 0 {
                done += r as usize;
                self.in_flight += r as usize;
                continue;
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => {}
                // The kernel's queue is full: make room by completing something.
                Some(libc::EAGAIN) if self.in_flight > 0 => {
                    return Err(err("submit (queue full)", e))
                }
                _ => {
                    self.pending.clear();
                    return Err(err("submit", e));
                }
            }
        }
        self.pending.clear();
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        out.clear();
        let min = min.min(self.in_flight);
        if min == 0 && self.in_flight == 0 {
            return Ok(());
        }
        let n = self.getevents(min).map_err(|e| err("getevents", e))?;
        self.take(n, out);
        Ok(())
    }

    fn reap_within(&mut self, wait_ns: u64, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        out.clear();
        if self.in_flight == 0 {
            return Ok(());
        }
        let n = self
            .getevents_within(1, Some(wait_ns))
            .map_err(|e| err("getevents", e))?;
        self.take(n, out);
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

impl Drop for Libaio {
    fn drop(&mut self) {
        while self.in_flight > 0 {
            match self.getevents(1) {
                Ok(n) => self.in_flight -= n.min(self.in_flight),
                Err(_) => break,
            }
        }
        // SAFETY: ctx came from io_setup and is destroyed once; nothing is in flight.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}
