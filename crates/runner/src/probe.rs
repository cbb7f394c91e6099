//! What the machine and the target are: sysfs, procfs and mountinfo, read once per run.

use report::{DeviceInfo, Environment, FilesystemInfo, KernelCounters};
use std::fs;
use std::path::{Path, PathBuf};

fn read_trim(p: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

/// The machine, without targets.
pub fn environment() -> Environment {
    let cpu_model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_default();
    let memory_bytes = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024);
    Environment {
        hostname: hostname(),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        cpu_model,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        memory_bytes,
        machine: Some(report::machine::this_machine()).filter(|m| !m.dmi.is_empty()),
        targets: Vec::new(),
    }
}

/// A block device as the kernel names it: `major:minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DevId {
    pub major: u32,
    pub minor: u32,
}

impl DevId {
    pub fn from_raw(dev: u64) -> DevId {
        DevId {
            major: libc::major(dev),
            minor: libc::minor(dev),
        }
    }
    /// The sysfs directory of this device (a disk or a partition), if it is a block device.
    pub fn sysfs(&self) -> Option<PathBuf> {
        fs::canonicalize(format!("/sys/dev/block/{}:{}", self.major, self.minor)).ok()
    }
}

/// The whole-disk sysfs directory for a device or partition directory.
pub fn disk_dir(dev_dir: &Path) -> PathBuf {
    if dev_dir.join("partition").exists() {
        dev_dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dev_dir.to_path_buf())
    } else {
        dev_dir.to_path_buf()
    }
}

/// Whether the disk under `dev` has polled queues (`queue/io_poll` is 1), which io_uring's
/// IOPOLL needs; also the disk's name (or `major:minor`) for messages.
pub fn polls(dev: DevId) -> (bool, String) {
    let Some(dir) = dev.sysfs().map(|d| disk_dir(&d)) else {
        return (false, format!("{}:{}", dev.major, dev.minor));
    };
    let on = fs::read_to_string(dir.join("queue/io_poll")).is_ok_and(|s| s.trim() == "1");
    let name = dir.file_name().map_or_else(
        || format!("{}:{}", dev.major, dev.minor),
        |n| n.to_string_lossy().into_owned(),
    );
    (on, name)
}

pub fn device_info(dev: DevId) -> Option<DeviceInfo> {
    device_info_at(&dev.sysfs()?, 0)
}

/// The facts of the device whose sysfs directory is `dir`, with its members (md, dm) down to
/// `MAX_DEPTH` levels: a stack deeper than that is reported without its lowest layers.
fn device_info_at(dir: &Path, depth: u32) -> Option<DeviceInfo> {
    const MAX_DEPTH: u32 = 4;
    let dir = dir.to_path_buf();
    let disk = disk_dir(&dir);
    let name = disk.file_name()?.to_string_lossy().into_owned();
    let q = disk.join("queue");
    let num = |p: PathBuf| {
        read_trim(p)
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let scheduler = read_trim(q.join("scheduler"))
        .map(|s| {
            // The active scheduler is the bracketed one: "mq-deadline [none]".
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .unwrap_or(s)
        })
        .unwrap_or_default();
    let model = read_trim(disk.join("device/model"))
        .or_else(|| read_trim(disk.join("device/name")))
        .unwrap_or_default();
    let firmware = read_trim(disk.join("device/firmware_rev"))
        .or_else(|| read_trim(disk.join("device/rev")))
        .unwrap_or_default();
    Some(DeviceInfo {
        partition: (dir != disk).then(|| dir.file_name().unwrap().to_string_lossy().into_owned()),
        name,
        model,
        firmware,
        size_bytes: num(dir.join("size")) * 512,
        logical_block_size: num(q.join("logical_block_size")) as u32,
        physical_block_size: num(q.join("physical_block_size")) as u32,
        rotational: num(q.join("rotational")) == 1,
        scheduler,
        write_cache: read_trim(q.join("write_cache")).unwrap_or_default(),
        fua: read_trim(q.join("fua")).map(|s| s == "1"),
        members: if depth < MAX_DEPTH {
            members(&disk)
                .iter()
                .filter_map(|m| device_info_at(m, depth + 1))
                .collect()
        } else {
            Vec::new()
        },
    })
}

/// The sysfs directories of the devices under a stacked device (`slaves/`), sorted by name.
pub fn members(disk: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(disk.join("slaves"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| fs::canonicalize(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `MemAvailable` from /proc/meminfo, in bytes.
pub fn mem_available() -> Option<u64> {
    let s = fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A snapshot of `/sys/dev/block/M:m/stat` for the exact device or partition.
pub fn kernel_counters(dev: DevId) -> Option<KernelCounters> {
    let s = read_trim(dev.sysfs()?.join("stat"))?;
    let f: Vec<u64> = s
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if f.len() < 11 {
        return None;
    }
    Some(KernelCounters {
        read_ios: f[0],
        read_merges: f[1],
        read_bytes: f[2] * 512,
        write_ios: f[4],
        write_merges: f[5],
        write_bytes: f[6] * 512,
        flush_ios: f.get(15).copied().unwrap_or(0),
        read_ticks_ms: f[3],
        write_ticks_ms: f[7],
        io_ticks_ms: f[9],
        time_in_queue_ms: f[10],
        interval_ns: 0,
    })
}

pub fn counters_delta(a: KernelCounters, b: KernelCounters) -> KernelCounters {
    KernelCounters {
        read_ios: b.read_ios.saturating_sub(a.read_ios),
        read_merges: b.read_merges.saturating_sub(a.read_merges),
        write_merges: b.write_merges.saturating_sub(a.write_merges),
        read_bytes: b.read_bytes.saturating_sub(a.read_bytes),
        write_ios: b.write_ios.saturating_sub(a.write_ios),
        write_bytes: b.write_bytes.saturating_sub(a.write_bytes),
        flush_ios: b.flush_ios.saturating_sub(a.flush_ios),
        read_ticks_ms: b.read_ticks_ms.saturating_sub(a.read_ticks_ms),
        write_ticks_ms: b.write_ticks_ms.saturating_sub(a.write_ticks_ms),
        io_ticks_ms: b.io_ticks_ms.saturating_sub(a.io_ticks_ms),
        time_in_queue_ms: b.time_in_queue_ms.saturating_sub(a.time_in_queue_ms),
        interval_ns: 0,
    }
}

/// A block device's capacity in bytes; None for anything else.
pub fn device_bytes(meta: &std::fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    if !meta.file_type().is_block_device() {
        return None;
    }
    device_info(DevId::from_raw(meta.rdev())).map(|d| d.size_bytes)
}

/// One line of /proc/self/mountinfo.
#[derive(Clone, Debug)]
pub struct Mount {
    pub dev: DevId,
    pub mount_point: String,
    pub options: String,
    pub fs_type: String,
    pub source: String,
}

/// Mountinfo escapes spaces and such as octal (`\040`).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 4], 8) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A mount's options: its own (`rw,relatime`), then its file system's (`compress-force=zstd:1`,
/// `nobarrier`, `errors=remount-ro`), each once: what a file system does with the data is in
/// the latter.
fn options(mount: &str, sb: &str) -> String {
    let mut all: Vec<&str> = mount.split(',').collect();
    for o in sb.split(',').filter(|o| !o.is_empty()) {
        if !all.contains(&o) {
            all.push(o);
        }
    }
    all.join(",")
}

pub fn mounts() -> Vec<Mount> {
    let Ok(text) = fs::read_to_string("/proc/self/mountinfo") else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (pre, post) = line.split_once(" - ")?;
            let pre: Vec<&str> = pre.split(' ').collect();
            let post: Vec<&str> = post.split(' ').collect();
            let (maj, min) = pre.get(2)?.split_once(':')?;
            Some(Mount {
                dev: DevId {
                    major: maj.parse().ok()?,
                    minor: min.parse().ok()?,
                },
                mount_point: unescape(pre.get(4)?),
                options: options(pre.get(5)?, post.get(2).unwrap_or(&"")),
                fs_type: post.first()?.to_string(),
                source: unescape(post.get(1).unwrap_or(&"")),
            })
        })
        .collect()
}

/// The block device holding a file whose file system reports another device number: btrfs
/// (and overlay-like mounts) give files an anonymous `0:N` device, so the disk is found
/// through the mount's source. `dev` itself where it is a block device already.
pub fn backing(path: &Path, dev: DevId) -> DevId {
    if dev.sysfs().is_some() {
        return dev;
    }
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    filesystem_of(path, dev)
        .and_then(|f| fs::metadata(f.source).ok())
        .filter(|m| m.file_type().is_block_device())
        .map_or(dev, |m| DevId::from_raw(m.rdev()))
}

/// The filesystem a path lives on: the mount with its device whose mount point is the longest
/// prefix of the path.
///
/// btrfs gives each subvolume's files an anonymous device of its own, which its mount line
/// does not show: where no mount of that device holds the path, the mount that does (the
/// longest prefix) is the file system.
pub fn filesystem_of(path: &Path, dev: DevId) -> Option<FilesystemInfo> {
    let canon = fs::canonicalize(path).ok()?;
    let holding: Vec<Mount> = mounts()
        .into_iter()
        .filter(|m| canon.starts_with(&m.mount_point))
        .collect();
    let same_dev = holding.iter().any(|m| m.dev == dev);
    holding
        .into_iter()
        .filter(|m| !same_dev || m.dev == dev)
        .max_by_key(|m| m.mount_point.len())
        .map(|m| FilesystemInfo {
            fs_type: m.fs_type,
            mount_point: m.mount_point,
            mount_options: m.options,
            source: m.source,
        })
}

/// This machine's host name (empty if the kernel does not say).
pub fn hostname() -> String {
    read_trim("/proc/sys/kernel/hostname").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes_decode() {
        assert_eq!(unescape("/mnt/a\\040b"), "/mnt/a b");
        assert_eq!(unescape("/plain"), "/plain");
    }

    #[test]
    fn root_filesystem_is_found() {
        let md = fs::metadata("/").unwrap();
        use std::os::unix::fs::MetadataExt;
        let fs = filesystem_of(Path::new("/"), DevId::from_raw(md.dev())).unwrap();
        assert_eq!(fs.mount_point, "/");
        assert!(!fs.fs_type.is_empty());
    }

    #[test]
    fn environment_names_the_kernel() {
        let e = environment();
        assert!(!e.kernel.is_empty());
        assert!(e.cpus >= 1);
        assert!(e.memory_bytes > 0);
    }
}
