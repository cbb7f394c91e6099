//! Writes the throttle never saw. cgroup v1 throttles a bio where it is submitted, and the
//! write-back of buffered writes is submitted by the kernel's flusher threads, outside the
//! command's cgroup: a buffered writer (`dd` without `oflag=direct`) is not throttled at all,
//! and its rate is the page cache's. After the command, its own count of bytes written (its
//! rusage: pages dirtied and direct writes alike), the device's counters and the throttle's
//! own tell whether that happened.

use std::fs;
use std::path::Path;

/// The counters before the command ran.
#[derive(Clone, Copy, Debug)]
pub struct Before {
    /// Bytes the reaped children of this process have written (`ru_oublock` x 512).
    children_written: u64,
    /// Bytes the device has taken in writes (its `stat` file).
    device_written: u64,
}

/// Below this, a difference is metadata and logs, not a workload.
const MIN_BYTES: u64 = 4 << 20;

/// The bytes written by this process's reaped children so far.
fn children_written() -> u64 {
    // SAFETY: an all-zero rusage is valid, and getrusage only writes into it.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
        ru
    };
    ru.ru_oublock.max(0) as u64 * 512
}

/// The bytes device `(major, minor)` has taken in writes: sectors written, field 7 of its
/// `stat` file, in the kernel's 512-byte sectors.
fn device_written((ma, mi): (u32, u32)) -> u64 {
    let text = fs::read_to_string(format!("/sys/dev/block/{ma}:{mi}/stat")).unwrap_or_default();
    text.split_whitespace()
        .nth(6)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        * 512
}

pub fn before(dev: (u32, u32)) -> Before {
    Before {
        children_written: children_written(),
        device_written: device_written(dev),
    }
}

/// Flushes what is still dirty on the device to it: the file system mounted from it
/// (syncfs), or the device's own cache. The bytes were going there anyway; this only makes
/// them land before the counters are read.
fn flush(dev: (u32, u32)) {
    let key = format!("{}:{}", dev.0, dev.1);
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let point = mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split(' ').collect();
        (f.get(2) == Some(&key.as_str())).then(|| f.get(4).map(|p| p.to_string()))?
    });
    let path = point.unwrap_or_else(|| format!("/dev/block/{key}"));
    if let Ok(f) = fs::File::open(Path::new(&path)) {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs on a descriptor we own; an error leaves the counters as they are.
        unsafe { libc::syncfs(f.as_raw_fd()) };
        let _ = f.sync_all();
    }
}

/// After the command has been reaped: one line when it wrote clearly more than the throttle
/// passed and the device took the difference, with the fix. `throttled` is the cgroup's own
/// count of bytes written to the device.
pub fn check(b: Before, dev: (u32, u32), name: &str, throttled: u64) -> Option<String> {
    let wrote = children_written().saturating_sub(b.children_written);
    if wrote < MIN_BYTES || throttled >= wrote / 2 {
        return None;
    }
    flush(dev);
    let took = device_written(dev).saturating_sub(b.device_written);
    let unthrottled = took.saturating_sub(throttled);
    (unthrottled >= MIN_BYTES && unthrottled >= wrote / 2).then(|| {
        format!(
            "the command wrote {}, but only {} of it went through the throttle to {name}, which \
             took {} in writes: cgroup v1 does not throttle the write-back of buffered writes, so \
             the command's own rate was the page cache's; write with O_DIRECT (dd oflag=direct) \
             or flush before the end (dd conv=fsync), or use a kernel with cgroup v2's io \
             controller",
            workload::format_bytes(wrote as f64),
            workload::format_bytes(throttled as f64),
            workload::format_bytes(took as f64)
        )
    })
}
