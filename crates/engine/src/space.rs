//! fio's falloc and ftruncate engines: each I/O changes how much space a file holds rather
//! than moving data, one system call at a time, done inside `push` ([`Calls`]).
//!
//! They measure a file system's allocator (extent trees, preallocation, truncation) by the
//! same offsets and block sizes a data job would use, so a job file written for them runs
//! with fio's meaning.

use crate::calls::{Call, Calls};
use crate::{Op, Request};
use std::os::fd::RawFd;

/// Which of fio's two space engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpaceOp {
    /// `falloc`: a write allocates its range (the file grows), a read allocates it with
    /// FALLOC_FL_KEEP_SIZE (the size stays), a trim punches a hole.
    Falloc,
    /// `ftruncate`: a write truncates the file to its offset; a read or trim is EINVAL.
    Ftruncate,
}

/// fio's falloc or ftruncate engine.
pub type Space = Calls<SpaceOp>;

impl Call for SpaceOp {
    fn name(&self) -> &'static str {
        match self {
            SpaceOp::Falloc => "falloc",
            SpaceOp::Ftruncate => "ftruncate",
        }
    }

    /// The request's call: its length when it succeeded, else a negative errno.
    fn call(&self, fd: RawFd, req: &Request) -> i64 {
        let r = match (self, req.op) {
            (SpaceOp::Falloc, Op::Write) => falloc(fd, 0, req.offset, req.len),
            (SpaceOp::Falloc, Op::Read) => {
                falloc(fd, libc::FALLOC_FL_KEEP_SIZE, req.offset, req.len)
            }
            (SpaceOp::Falloc, Op::Trim) => return punch(fd, req.offset, req.len),
            (SpaceOp::Ftruncate, Op::Write) => {
                // SAFETY: ftruncate takes a descriptor and a length; the descriptor is the
                // caller's, open for writing.
                match unsafe { libc::ftruncate(fd, req.offset as i64) } {
                    0 => 0,
                    _ => -errno(),
                }
            }
            (SpaceOp::Ftruncate, _) => -(libc::EINVAL as i64),
        };
        match r {
            0 => req.len as i64,
            e => e,
        }
    }
}

fn errno() -> i64 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO) as i64
}

/// fallocate(2) of `len` bytes at `offset` with `mode`: 0, or a negative errno.
fn falloc(fd: RawFd, mode: i32, offset: u64, len: u32) -> i64 {
    loop {
        // SAFETY: fallocate takes plain integers; the descriptor is the caller's, open.
        let r = unsafe { libc::fallocate(fd, mode, offset as i64, len as i64) };
        if r == 0 {
            return 0;
        }
        let e = errno();
        if e != libc::EINTR as i64 {
            return -e;
        }
    }
}

/// fio's trim on the falloc engine: a hole punched in `len` bytes at `offset` (the file's
/// size kept): `len`, or a negative errno, as [`crate::discard`].
pub fn punch(fd: RawFd, offset: u64, len: u32) -> i64 {
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    match falloc(fd, mode, offset, len) {
        0 => len as i64,
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Engine, EngineConfig};
    use std::os::fd::AsRawFd;

    fn engine(op: SpaceOp, fd: RawFd) -> Space {
        let cfg = EngineConfig {
            fds: vec![fd],
            depth: 1,
            slot_size: 4096,
            align: 4096,
            write_dsync: false,
            hipri: false,
            random: false,
            sqpoll: None,
            uncached: false,
            atomic: false,
            nowait: false,
            force_async: 0,
            hipri_percent: 100,
            direct: false,
        };
        Calls::new(&cfg, op)
    }

    fn run(e: &mut Space, op: Op, offset: u64, len: u32) -> i64 {
        let req = Request {
            op,
            file: 0,
            offset,
            len,
            slot: 0,
            ioprio: 0,
        };
        e.push(req).unwrap();
        let mut out = Vec::new();
        e.reap(1, &mut out).unwrap();
        out[0].result
    }

    #[test]
    fn falloc_grows_the_file_keeps_its_size_for_reads_and_punches_for_trims() {
        let f = tempfile::tempfile().unwrap();
        let mut e = engine(SpaceOp::Falloc, f.as_raw_fd());
        assert_eq!(run(&mut e, Op::Write, 65536, 4096), 4096);
        assert_eq!(
            f.metadata().unwrap().len(),
            69632,
            "a write extends the file"
        );
        assert_eq!(run(&mut e, Op::Read, 1 << 20, 4096), 4096);
        assert_eq!(f.metadata().unwrap().len(), 69632, "a read keeps the size");
        use std::os::unix::fs::MetadataExt;
        let allocated = f.metadata().unwrap().blocks();
        assert_eq!(run(&mut e, Op::Trim, 65536, 4096), 4096);
        assert!(
            f.metadata().unwrap().blocks() < allocated,
            "the punched hole frees its blocks"
        );
    }

    #[test]
    fn ftruncate_sets_the_size_to_the_offset_and_refuses_reads() {
        let f = tempfile::tempfile().unwrap();
        let mut e = engine(SpaceOp::Ftruncate, f.as_raw_fd());
        assert_eq!(run(&mut e, Op::Write, 12288, 4096), 4096);
        assert_eq!(f.metadata().unwrap().len(), 12288);
        assert_eq!(run(&mut e, Op::Write, 4096, 4096), 4096);
        assert_eq!(
            f.metadata().unwrap().len(),
            4096,
            "a lower offset shrinks it"
        );
        assert_eq!(run(&mut e, Op::Read, 0, 4096), -(libc::EINVAL as i64));
    }
}
