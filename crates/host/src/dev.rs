//! A target's block devices: the device itself, the whole disk of a partition, and the members
//! of a stacked device (md, dm), each with its sysfs directory. Limits and settings can sit on
//! any of them.

use runner::probe::{self, DevId};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// One block device of a target.
#[derive(Clone, Debug, PartialEq)]
pub struct Dev {
    pub id: DevId,
    /// The kernel's name (`vda`, `vda1`, `zram0`).
    pub name: String,
    pub sysfs: PathBuf,
    /// `target`, `disk` (the disk of a partition) or `member` (under a stacked device).
    pub role: &'static str,
}

impl Dev {
    fn at(sysfs: PathBuf, role: &'static str) -> Option<Dev> {
        let text = std::fs::read_to_string(sysfs.join("dev")).ok()?;
        let (maj, min) = text.trim().split_once(':')?;
        Some(Dev {
            id: DevId {
                major: maj.parse().ok()?,
                minor: min.parse().ok()?,
            },
            name: sysfs.file_name()?.to_string_lossy().into_owned(),
            sysfs,
            role,
        })
    }

    /// The `queue/` directory of the disk this device is or sits on.
    pub fn queue(&self) -> PathBuf {
        probe::disk_dir(&self.sysfs).join("queue")
    }
}

/// The devices of `target`: a block device is itself; a file or directory (or a path not yet
/// created, by its nearest existing parent) is the device of its file system. Empty for a
/// file system on no block device (tmpfs, overlay, NFS).
pub fn of_target(target: &Path) -> Result<Vec<Dev>, String> {
    let (_, meta) = nearest(target)
        .ok_or_else(|| format!("{}: no such file or directory", target.display()))?;
    let raw = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    Ok(DevId::from_raw(raw).sysfs().map(stack).unwrap_or_default())
}

/// `target`, or its nearest existing parent (a file the run has yet to create), or the
/// current directory, with its metadata.
pub fn nearest(target: &Path) -> Option<(PathBuf, std::fs::Metadata)> {
    target
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .chain([Path::new(".")])
        .find_map(|a| std::fs::metadata(a).ok().map(|m| (a.to_path_buf(), m)))
}

/// The device at `dir`, its disk when it is a partition, and the members below, four levels
/// at most.
fn stack(dir: PathBuf) -> Vec<Dev> {
    let disk = probe::disk_dir(&dir);
    let mut out: Vec<Dev> = Dev::at(dir.clone(), "target").into_iter().collect();
    if disk != dir {
        out.extend(Dev::at(disk.clone(), "disk"));
    }
    let mut level = vec![disk];
    for _ in 0..4 {
        let next: Vec<PathBuf> = level.iter().flat_map(|d| probe::members(d)).collect();
        out.extend(next.iter().filter_map(|m| Dev::at(m.clone(), "member")));
        level = next;
    }
    out
}
