//! psync: pread/pwrite, one I/O at a time, done inside `push`; also fio's mmap engine, the
//! same with the data copied through the files' mappings.

use crate::mmap::Maps;
use crate::{sync_fd, Completion, Engine, EngineConfig, EngineError, Op, Request, SlotBuffers};
use std::os::fd::RawFd;

pub struct Psync {
    fds: Vec<RawFd>,
    bufs: SlotBuffers,
    done: Vec<Completion>,
    /// RWF_DSYNC per write and RWF_HIPRI: then writes go through pwritev2, not pwrite.
    write_flags: i32,
    /// RWF_HIPRI: then reads go through preadv2, not pread.
    read_flags: i32,
    /// `ioengine=mmap`: the data goes through the files' mappings instead.
    maps: Option<Maps>,
    /// fio's hipri_percentage: the share of I/Os that keep RWF_HIPRI (100: all), drawn from
    /// `draws` (xorshift; the offsets' random stream is the runner's).
    hipri_percent: u8,
    draws: u64,
}

impl Psync {
    pub fn new(cfg: &EngineConfig) -> Psync {
        let hipri = if cfg.hipri { libc::RWF_HIPRI } else { 0 };
        Psync {
            fds: cfg.fds.clone(),
            bufs: SlotBuffers::new(cfg.depth as usize, cfg.slot_size, cfg.align),
            done: Vec::with_capacity(cfg.depth as usize),
            write_flags: hipri | cfg.write_flags(),
            read_flags: hipri | cfg.read_flags(),
            maps: None,
            hipri_percent: if cfg.hipri { cfg.hipri_percent } else { 100 },
            draws: 0x9e37_79b9_7f4a_7c15 ^ cfg.fds.len() as u64,
        }
    }

    /// fio's mmap engine: every transfer a copy to or from the file's shared mapping.
    pub fn mmap(cfg: &EngineConfig) -> Psync {
        Psync {
            maps: Some(Maps::new(cfg)),
            ..Psync::new(cfg)
        }
    }

    /// The flags to take off this I/O's: RWF_HIPRI unless it is drawn into
    /// hipri_percentage's share.
    #[inline]
    fn unflag(&mut self) -> i32 {
        if self.hipri_percent >= 100 {
            return 0;
        }
        let x = &mut self.draws;
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        match *x % 100 < self.hipri_percent as u64 {
            true => 0,
            false => libc::RWF_HIPRI,
        }
    }

    /// One transfer by pread/pwrite (or their v2 forms): bytes moved, or a negative errno.
    /// `off`: flags this I/O goes without.
    #[inline]
    fn transfer(&self, req: &Request, ptr: *mut u8, off: i32) -> i64 {
        let fd = self.fds[req.file as usize];
        let (read_flags, write_flags) = (self.read_flags & !off, self.write_flags & !off);
        loop {
            // SAFETY: ptr points at a slot of at least req.len bytes owned by self.bufs, and
            // no other reference to it is alive during the call.
            let r = unsafe {
                let iov = libc::iovec {
                    iov_base: ptr.cast(),
                    iov_len: req.len as usize,
                };
                match req.op {
                    Op::Read if self.read_flags == 0 => {
                        libc::pread(fd, ptr.cast(), req.len as usize, req.offset as i64)
                    }
                    Op::Read => libc::preadv2(fd, &iov, 1, req.offset as i64, read_flags),
                    Op::Write if self.write_flags == 0 => {
                        libc::pwrite(fd, ptr.cast(), req.len as usize, req.offset as i64)
                    }
                    Op::Write => libc::pwritev2(fd, &iov, 1, req.offset as i64, write_flags),
                    // The runner discards in place (crate::discard); none is queued.
                    Op::Trim => return -(libc::EOPNOTSUPP as i64),
                }
            };
            if r >= 0 {
                return r as i64;
            }
            let errno = std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            if errno != libc::EINTR {
                return -(errno as i64);
            }
        }
    }
}

impl Engine for Psync {
    fn name(&self) -> &'static str {
        if self.maps.is_some() {
            "mmap"
        } else {
            "psync"
        }
    }

    fn push(&mut self, req: Request) -> Result<(), EngineError> {
        let ptr = self.bufs.slot_ptr(req.slot);
        assert!(req.len as usize <= self.bufs.slot_size());
        let result = match &mut self.maps {
            Some(m) => m.copy(&req, ptr),
            None => {
                let off = self.unflag();
                self.transfer(&req, ptr, off)
            }
        };
        self.done.push(Completion {
            slot: req.slot,
            result,
        });
        Ok(())
    }

    fn submit(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    fn reap(&mut self, _min: usize, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        out.clear();
        out.append(&mut self.done);
        Ok(())
    }

    fn slot(&mut self, slot: u32) -> &mut [u8] {
        self.bufs.slot(slot)
    }

    fn huge_page_buffers(&self) -> Option<bool> {
        self.bufs.huge_page_state()
    }

    fn sync(&mut self, file: u32, datasync: bool) -> std::io::Result<()> {
        match &self.maps {
            Some(m) => m.sync(file, datasync),
            None => sync_fd(self.fds[file as usize], datasync),
        }
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn reopened(&mut self, file: u32) -> std::io::Result<()> {
        if let Some(m) = &mut self.maps {
            m.forget(file);
        }
        Ok(())
    }
}
