//! The device under a db run, as the kernel counts it: the file system's block device's own
//! counters (`/sys/block/.../stat`) before and after the run, and the cgroup cap this process
//! runs under for it (`volbench emulate`, a container's blkio limit) with the I/O that cgroup
//! itself did, which is what its cap binds. The verdict then says a run did its capped I/O
//! rate instead of guessing from flush times: at a 300 IOPS cap a commit's WAL writes and
//! flushes are the limit, whatever the flush probe's figure.
//!
//! The device's counters hold everyone's I/O, the file system's journal thread's included
//! (on ext4 a commit's journal writes are the kernel's, outside any cgroup): they say how
//! busy the device was, never whether the cap was reached.

use host::cgroup::IoLimit;
use host::dev::Dev;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What the device did over the run and what it may do.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceUse {
    /// The kernel's name (`zram0`, `nvme0n1p2`).
    pub name: String,
    /// Writes completed per second by the device (anyone's) and their bytes.
    pub writes_per_s: f64,
    pub write_bytes_per_s: f64,
    /// The share of the run the device had I/O in flight (`io_ticks`), 0..1.
    pub busy: f64,
    /// The tightest write IOPS and write bandwidth caps on it for this process.
    pub iops_cap: Option<Capped>,
    pub bw_cap: Option<Capped>,
}

/// A cap and what the cgroup it is set on did against it over the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Capped {
    /// IOPS or bytes per second.
    pub cap: u64,
    /// The cgroup's own writes (or bytes written) per second on the device.
    pub rate: f64,
    /// The file that sets it.
    pub file: String,
}

/// The device's counters at one moment (fields of the kernel's `block/stat.rst`).
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    writes: u64,
    sectors_written: u64,
    io_ticks_ms: u64,
}

fn counters(dev: &Dev) -> Option<Counters> {
    let text = std::fs::read_to_string(dev.sysfs.join("stat")).ok()?;
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    Some(Counters {
        writes: *f.get(4)?,
        sectors_written: *f.get(6)?,
        io_ticks_ms: *f.get(9)?,
    })
}

/// What a cgroup directory counts for `key` (MAJ:MIN): its writes, or its bytes written.
/// cgroup v2's `io.stat` ("MAJ:MIN rbytes=.. wbytes=.. rios=.. wios=.."), else v1's
/// recursive throttle counters ("MAJ:MIN Write N"), which count what the throttle passed.
fn cgroup_writes(dir: &Path, key: &str, bytes: bool) -> Option<u64> {
    if let Ok(text) = std::fs::read_to_string(dir.join("io.stat")) {
        let want = if bytes { "wbytes=" } else { "wios=" };
        let line = text.lines().find(|l| l.starts_with(&format!("{key} ")))?;
        return line
            .split_whitespace()
            .find_map(|f| f.strip_prefix(want))
            .and_then(|v| v.parse().ok());
    }
    let file = if bytes {
        "blkio.throttle.io_service_bytes_recursive"
    } else {
        "blkio.throttle.io_serviced_recursive"
    };
    let text = std::fs::read_to_string(dir.join(file)).ok()?;
    text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some(key) && w.next() == Some("Write"))
            .then(|| w.next()?.parse().ok())
            .flatten()
    })
}

/// One cap being watched: the limit and its cgroup's count when the run began.
struct CapWatch {
    limit: IoLimit,
    dir: PathBuf,
    key: String,
    bytes: bool,
    before: u64,
}

impl CapWatch {
    /// The tightest limit of kind `what` on `devs`, if its cgroup counts its I/O.
    fn tightest(limits: &[IoLimit], devs: &[Dev], what: &str) -> Option<CapWatch> {
        let limit = limits
            .iter()
            .filter(|l| l.what == what)
            .min_by_key(|l| l.value)?
            .clone();
        let d = devs.iter().find(|d| d.name == limit.device)?;
        let key = format!("{}:{}", d.id.major, d.id.minor);
        let dir = limit.file.parent()?.to_path_buf();
        let bytes = what.ends_with("bandwidth");
        let before = cgroup_writes(&dir, &key, bytes).unwrap_or(0);
        Some(CapWatch {
            limit,
            dir,
            key,
            bytes,
            before,
        })
    }

    fn finish(&self, secs: f64) -> Capped {
        let after = cgroup_writes(&self.dir, &self.key, self.bytes).unwrap_or(self.before);
        Capped {
            cap: self.limit.value,
            rate: after.saturating_sub(self.before) as f64 / secs,
            file: self.limit.file.display().to_string(),
        }
    }
}

/// A run's device being watched from the moment [`watch`] was called.
pub struct Watch {
    dev: Dev,
    before: Counters,
    iops: Option<CapWatch>,
    bw: Option<CapWatch>,
    /// The counters' own span: rates are over the time they counted, not the run's.
    since: Instant,
}

/// Starts watching the device `dir` is on; `None` where it has none (tmpfs) or no counters.
pub fn watch(dir: &Path) -> Option<Watch> {
    let devs = host::dev::of_target(dir).ok()?;
    let dev = devs.iter().find(|d| d.role == "target")?.clone();
    let limits = host::cgroup::io_limits(&devs);
    Some(Watch {
        before: counters(&dev)?,
        iops: CapWatch::tightest(&limits, &devs, "write IOPS"),
        bw: CapWatch::tightest(&limits, &devs, "write bandwidth"),
        dev,
        since: Instant::now(),
    })
}

impl Watch {
    /// What the device did since [`watch`].
    pub fn finish(self) -> Option<DeviceUse> {
        let after = counters(&self.dev)?;
        let secs = self.since.elapsed().as_secs_f64().max(1e-9);
        let d = |a: u64, b: u64| a.saturating_sub(b) as f64;
        Some(DeviceUse {
            name: self.dev.name.clone(),
            writes_per_s: d(after.writes, self.before.writes) / secs,
            write_bytes_per_s: d(after.sectors_written, self.before.sectors_written) * 512.0 / secs,
            busy: (d(after.io_ticks_ms, self.before.io_ticks_ms) / 1e3 / secs).min(1.0),
            iops_cap: self.iops.as_ref().map(|c| c.finish(secs)),
            bw_cap: self.bw.as_ref().map(|c| c.finish(secs)),
        })
    }
}
