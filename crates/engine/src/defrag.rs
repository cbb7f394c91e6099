//! fio's e4defrag engine: each write moves its range's blocks into the file from a donor file
//! (EXT4_IOC_MOVE_EXT, what e4defrag does to defragment a file), timing online
//! defragmentation on ext4. With `inplace` the donor's space is allocated for each move and
//! freed after it; without, the donor is allocated whole once, before the job.

use crate::calls::{Call, Calls};
use crate::{EngineConfig, EngineError, Op, Request};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// `_IOWR('f', 15, struct move_extent)`.
const EXT4_IOC_MOVE_EXT: libc::c_ulong = 0xc028_660f;

#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// fio's e4defrag engine.
pub type Defrag = Calls<Donor>;

/// The donor file the moves take their blocks from.
pub struct Donor {
    fd: OwnedFd,
    /// The donor's block size (st_blksize), the unit of the moves.
    bsz: u64,
    inplace: bool,
}

fn errno() -> i64 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO) as i64
}

impl Donor {
    /// The engine over `cfg`'s files with the donor file `donor` (open for writing). Without
    /// `inplace`, the donor gets `[start, start + len)` allocated now, as fio's init does.
    pub fn engine(
        cfg: &EngineConfig,
        donor: OwnedFd,
        inplace: bool,
        (start, len): (u64, u64),
    ) -> Result<Defrag, EngineError> {
        let fail = |what, source| EngineError::Io {
            engine: "e4defrag",
            what,
            source,
        };
        let fd = donor.as_raw_fd();
        // SAFETY: fallocate and fstat on a descriptor we own; `st` is written by fstat.
        let st = unsafe {
            if !inplace && libc::fallocate(fd, 0, start as i64, len as i64) != 0 {
                return Err(fail(
                    "allocating the donor file",
                    std::io::Error::last_os_error(),
                ));
            }
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 {
                return Err(fail(
                    "reading the donor file's block size",
                    std::io::Error::last_os_error(),
                ));
            }
            st
        };
        let d = Donor {
            fd: donor,
            bsz: (st.st_blksize as u64).max(1),
            inplace,
        };
        Ok(Calls::new(cfg, d))
    }
}

impl Call for Donor {
    fn name(&self) -> &'static str {
        "e4defrag"
    }

    /// One move of the request's blocks: bytes moved (at most its length), or a negative errno.
    fn call(&self, fd: RawFd, req: &Request) -> i64 {
        if req.op != Op::Write {
            // fio's engine changes layout only on writes, so a read job stays read-only.
            return -(libc::EINVAL as i64);
        }
        let donor = self.fd.as_raw_fd();
        // SAFETY: fallocate/ftruncate on our donor descriptor; the ioctl reads and writes `me`,
        // which lives across the call.
        unsafe {
            if self.inplace && libc::fallocate(donor, 0, req.offset as i64, req.len as i64) != 0 {
                return -errno();
            }
            let first = req.offset / self.bsz;
            let mut me = MoveExtent {
                donor_fd: donor as u32,
                orig_start: first,
                donor_start: first,
                len: (req.offset + req.len as u64).div_ceil(self.bsz) - first,
                ..MoveExtent::default()
            };
            let rc = libc::ioctl(fd, EXT4_IOC_MOVE_EXT, &mut me as *mut MoveExtent);
            let err = if rc != 0 { -errno() } else { 0 };
            if self.inplace && libc::ftruncate(donor, 0) != 0 && err == 0 {
                return -errno();
            }
            let moved = (me.moved_len * self.bsz).min(req.len as u64);
            match (err, moved) {
                (0, 0) => -(libc::EINVAL as i64),
                (0, m) => m as i64,
                (e, _) => e,
            }
        }
    }
}
