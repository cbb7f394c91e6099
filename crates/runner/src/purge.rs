//! Purging a device before a SNIA PTS test: every block discarded (BLKDISCARD), so the device
//! starts as fresh as the kernel can make it. Checked by the same safety rules as any write.

use crate::error::RunError;
use crate::probe::DevId;
use crate::safety;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// `_IO(0x12, 119)`: discard a byte range of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;
/// Bytes of `path`: a block device's size (as a run sees it), or a file's length; 0 for a
/// path that is not there.
pub fn capacity(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| crate::probe::device_bytes(&m).unwrap_or(m.len()))
}

/// The logical block size under `path` (512 where it cannot be read): direct I/O needs
/// whole blocks, so a PTS point smaller than it cannot run.
pub fn logical_block(path: &Path) -> u64 {
    let Ok(m) = std::fs::metadata(path) else {
        return 512;
    };
    let raw = if m.file_type().is_block_device() {
        m.rdev()
    } else {
        m.dev()
    };
    crate::probe::device_info(DevId::from_raw(raw))
        .map_or(512, |d| d.logical_block_size.max(512) as u64)
}

/// Discards the first `len` bytes of a block device and says what was done; a file, or a
/// device that cannot discard, is left as it is and the answer says so. A device holding
/// data is refused without `allow_destructive`, as a write to it would be.
pub fn purge(path: &Path, len: u64, allow_destructive: bool) -> Result<String, RunError> {
    let open = |e: std::io::Error| RunError::Open {
        path: path.to_path_buf(),
        source: e,
    };
    let m = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok("not purged: a new file, which the preconditioning writes".into());
        }
        m => m.map_err(open)?,
    };
    if !m.file_type().is_block_device() {
        return Ok("not purged: a file cannot be; the preconditioning writes it over".into());
    }
    let dev = DevId::from_raw(m.rdev());
    if let Some(why) = safety::live_use(dev) {
        let path = path.to_path_buf();
        return Err(RunError::InUse { path, why });
    }
    if !allow_destructive {
        if let Some(why) = safety::in_use(path, dev) {
            let path = path.to_path_buf();
            return Err(RunError::Destructive { path, why });
        }
    }
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(open)?;
    let range: [u64; 2] = [0, len];
    // SAFETY: BLKDISCARD reads two u64 (start, length) through the pointer.
    let rc = unsafe { libc::ioctl(f.as_raw_fd(), BLKDISCARD, range.as_ptr()) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        return Ok(format!(
            "not purged: {} refused BLKDISCARD ({e}); a secure erase (nvme format, hdparm \
             --security-erase) is the device's own and volbench does not run it",
            path.display()
        ));
    }
    Ok(format!(
        "purged: BLKDISCARD over {} of {}",
        workload::format_bytes(len as f64),
        path.display()
    ))
}
