//! mmap: fio's mmap engine, as psync's with another transfer. Each file is mapped shared,
//! whole, on its first I/O; a read copies from the mapping into the slot and a write copies
//! the slot into it, so the page faults do the device I/O, as an application that maps its
//! files does. A sync is msync, then fsync.

use crate::{sync_fd, EngineConfig, Op, Request};
use std::os::fd::RawFd;

/// One file's mapping: its address and length, made on first use.
struct Map {
    fd: RawFd,
    at: *mut u8,
    len: usize,
}

// SAFETY: the mapping is owned by the engine, which one thread uses at a time.
unsafe impl Send for Map {}

/// The mappings of a job's files: psync's engine does the I/O through them for
/// `ioengine=mmap` (the queue, slots and completions are the same).
pub(crate) struct Maps {
    maps: Vec<Map>,
    /// madvise's hint for the whole mapping: MADV_RANDOM for a random job, as fio gives it,
    /// so a fault reads the page it needs and not a readahead window.
    advice: i32,
    /// msync each I/O's pages as it completes (fio's mmap engine with `direct=1`).
    flush: bool,
    /// The page size msync's address is aligned to.
    page: usize,
}

impl Maps {
    pub(crate) fn new(cfg: &EngineConfig) -> Maps {
        let maps = cfg.fds.iter().map(|&fd| Map {
            fd,
            at: std::ptr::null_mut(),
            len: 0,
        });
        Maps {
            maps: maps.collect(),
            advice: if cfg.random {
                libc::MADV_RANDOM
            } else {
                libc::MADV_SEQUENTIAL
            },
            flush: cfg.direct,
            // SAFETY: sysconf only reads a system constant.
            page: unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(512) as usize,
        }
    }

    /// The file's mapping, made now if it is not yet: the whole file or device, writable when
    /// the descriptor is. A negative errno when it cannot be mapped.
    #[cold]
    fn map(&mut self, file: u32) -> Result<(), i64> {
        let m = &mut self.maps[file as usize];
        let errno = || {
            -(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64)
        };
        // SAFETY: lseek and fcntl only query the descriptor; mmap creates a new mapping that
        // this engine owns until Drop, over a length the descriptor reports.
        unsafe {
            let len = libc::lseek(m.fd, 0, libc::SEEK_END);
            if len <= 0 {
                return Err(if len == 0 {
                    -(libc::EINVAL as i64)
                } else {
                    errno()
                });
            }
            let writable = libc::fcntl(m.fd, libc::F_GETFL) & libc::O_ACCMODE != libc::O_RDONLY;
            let prot = libc::PROT_READ | if writable { libc::PROT_WRITE } else { 0 };
            let at = libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                prot,
                libc::MAP_SHARED,
                m.fd,
                0,
            );
            if at == libc::MAP_FAILED {
                return Err(errno());
            }
            libc::madvise(at, len as usize, self.advice);
            (m.at, m.len) = (at.cast(), len as usize);
        }
        Ok(())
    }

    /// Copies between `slot` (at least `req.len` bytes) and the mapping: bytes moved, or a
    /// negative errno.
    pub(crate) fn copy(&mut self, req: &Request, slot: *mut u8) -> i64 {
        if self.maps[req.file as usize].at.is_null() {
            if let Err(e) = self.map(req.file) {
                return e;
            }
        }
        let m = &self.maps[req.file as usize];
        let (off, len) = (req.offset as usize, req.len as usize);
        if off.checked_add(len).is_none_or(|end| end > m.len) {
            return -(libc::EINVAL as i64);
        }
        // SAFETY: [off, off + len) lies inside the mapping (checked above) and the caller's
        // slot holds at least len bytes; the two never overlap, nothing else borrows them.
        unsafe {
            match req.op {
                Op::Read => std::ptr::copy_nonoverlapping(m.at.add(off), slot, len),
                Op::Write => std::ptr::copy_nonoverlapping(slot, m.at.add(off), len),
                Op::Trim => return -(libc::EOPNOTSUPP as i64),
            }
        }
        if self.flush {
            return self.flush(req.file, off, len);
        }
        len as i64
    }

    /// `direct=1`: mmap has no O_DIRECT, so fio msyncs each I/O's pages (MS_SYNC) before
    /// completing it: a write reaches the device within its latency, as a direct write does.
    /// (fio's posix_madvise DONTNEED after it is a no-op in glibc, so a read stays cached.)
    /// Bytes moved, or a negative errno.
    #[cold]
    fn flush(&self, file: u32, off: usize, len: usize) -> i64 {
        let m = &self.maps[file as usize];
        // msync takes a page-aligned address: from the I/O's first page to its end.
        let start = off / self.page * self.page;
        // SAFETY: [start, off + len) lies inside the mapping (copy checked the end; start is
        // at most off), a mapping this engine made and holds.
        let r = unsafe { libc::msync(m.at.add(start).cast(), off + len - start, libc::MS_SYNC) };
        if r != 0 {
            return -(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64);
        }
        len as i64
    }

    /// msync of the file's mapping (if made), then its fsync or fdatasync.
    pub(crate) fn sync(&self, file: u32, datasync: bool) -> std::io::Result<()> {
        let m = &self.maps[file as usize];
        // SAFETY: msync over a mapping this engine made and still holds.
        if !m.at.is_null() && unsafe { libc::msync(m.at.cast(), m.len, libc::MS_SYNC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        sync_fd(m.fd, datasync)
    }
}

impl Maps {
    /// File `file` was replaced under its descriptor: unmap the old one; the next I/O maps
    /// the new one.
    pub(crate) fn forget(&mut self, file: u32) {
        let m = &mut self.maps[file as usize];
        if !m.at.is_null() {
            // SAFETY: unmaps a mapping this engine made; nothing is in flight, and no slice
            // into it outlives this call.
            unsafe { libc::munmap(m.at.cast(), m.len) };
            m.at = std::ptr::null_mut();
            m.len = 0;
        }
    }
}

impl Drop for Maps {
    fn drop(&mut self) {
        for m in self.maps.iter().filter(|m| !m.at.is_null()) {
            // SAFETY: unmaps a mapping this engine made; no slice into it outlives the engine.
            unsafe { libc::munmap(m.at.cast(), m.len) };
        }
    }
}
