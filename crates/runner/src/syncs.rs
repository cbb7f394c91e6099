//! fio's `fsync`/`fdatasync`/`sync_file_range` every N writes, and end_syncfs's syncfs once
//! per file system.

use workload::{JobSpec, SyncMode};

/// fio's `fsync`/`fdatasync` every N writes.
pub(crate) struct Syncs {
    pub(crate) every: u64,
    pub(crate) datasync: bool,
    pub(crate) since: u64,
    pub(crate) need: bool,
    /// When the first write of the current sync batch was issued (for `stats.durable`).
    pub(crate) from: u64,
    /// The file of the last write, which the sync flushes.
    pub(crate) file: u32,
    /// The last write completed after the window: no sync is issued for it.
    pub(crate) late: bool,
    /// `sync_file_range`'s flags, and each file's range written since its last call (fio's
    /// first_write and last_write), empty as (u64::MAX, 0).
    pub(crate) range: Option<u32>,
    pub(crate) spans: Vec<(u64, u64)>,
}

impl Syncs {
    pub(crate) fn new(spec: &JobSpec, files: usize) -> Syncs {
        let range = match spec.sync.sync_mode {
            SyncMode::FileRange(f) => Some(f),
            _ => None,
        };
        Syncs {
            every: spec.sync.sync_every as u64,
            datasync: spec.sync.sync_mode == SyncMode::Fdatasync,
            since: 0,
            need: false,
            from: 0,
            file: 0,
            late: false,
            range,
            spans: if range.is_some() {
                vec![(u64::MAX, 0); files]
            } else {
                Vec::new()
            },
        }
    }

    /// A completed write widens its file's range for the next sync_file_range.
    #[inline]
    pub(crate) fn covered(&mut self, file: u32, offset: u64, len: u64) {
        if let Some(s) = self.spans.get_mut(file as usize) {
            s.0 = s.0.min(offset);
            s.1 = s.1.max(offset + len);
        }
    }

    /// fio's do_sync_file_range on `fd`: the range written since the last call, if any.
    pub(crate) fn sync_range(&mut self, fd: i32, flags: u32) -> std::io::Result<()> {
        let Some(s) = self.spans.get_mut(self.file as usize) else {
            return Ok(());
        };
        let (lo, hi) = std::mem::replace(s, (u64::MAX, 0));
        if hi <= lo {
            return Ok(());
        }
        // SAFETY: a descriptor the job holds open; the call only reads its arguments.
        let r = unsafe { libc::sync_file_range(fd, lo as i64, (hi - lo) as i64, flags) };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Counts a write issued at `t` toward the next sync; true once that sync is due.
    #[inline]
    pub(crate) fn wrote(&mut self, t: u64) -> bool {
        if self.every == 0 {
            return false;
        }
        if self.since == 0 {
            self.from = t;
        }
        self.since += 1;
        self.need = self.since >= self.every;
        self.need
    }
}

/// fio's fio_syncfs: syncfs(2) once per file system among `fds` (by device number).
pub(crate) fn syncfs_each(fds: &[i32]) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut done = Vec::new();
    for &fd in fds {
        let dev = std::fs::metadata(format!("/proc/self/fd/{fd}"))?.dev();
        if done.contains(&dev) {
            continue;
        }
        done.push(dev);
        // SAFETY: syncfs on a descriptor this job holds open.
        if unsafe { libc::syncfs(fd) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
