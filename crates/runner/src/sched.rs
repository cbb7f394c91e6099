//! fio's `ioscheduler`: the I/O scheduler of a job's disk switched for the run and switched
//! back after it, after an error or Ctrl-C (the guard's drop), and after a SIGKILL (the old
//! value is written down with `leftovers` first, so the next volbench to start restores it).

use crate::error::RunError;
use crate::probe::{self, DevId};
use std::path::PathBuf;

/// A disk's scheduler while volbench has it switched; dropping it switches it back.
pub struct Switched {
    file: PathBuf,
    old: String,
    _held: leftovers::Hold,
}

impl Drop for Switched {
    fn drop(&mut self) {
        // Best effort: the run is over either way, and a failure leaves the record for
        // `volbench clean`, which tries again.
        let _ = std::fs::write(&self.file, &self.old);
    }
}

/// The scheduler in use and those offered, from `queue/scheduler` (`none [mq-deadline] bfq`).
fn read(file: &std::path::Path) -> Option<(String, Vec<String>)> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut current = None;
    let offered = text
        .split_whitespace()
        .map(|w| {
            let name = w.trim_matches(|c| c == '[' || c == ']').to_string();
            if w.starts_with('[') {
                current = Some(name.clone());
            }
            name
        })
        .collect();
    Some((current?, offered))
}

/// Switches the disk under `dev` to `want`, as fio does, and checks, as fio does, that the
/// kernel took it. The first switch of a disk keeps its old value in `held`; a later job's
/// switch of the same disk is written over it, so the drop restores what was there before the
/// run. A disk without `queue/scheduler` (a virtual device) is left alone, as fio leaves it.
pub fn switch(dev: DevId, want: &str, held: &mut Vec<Switched>) -> Result<(), RunError> {
    let Some(disk) = dev.sysfs().map(|d| probe::disk_dir(&d)) else {
        return Ok(());
    };
    let name = disk.file_name().map_or_else(
        || format!("{}:{}", dev.major, dev.minor),
        |n| n.to_string_lossy().into_owned(),
    );
    let file = disk.join("queue/scheduler");
    let Some((old, offered)) = read(&file) else {
        return Ok(());
    };
    let fail = |why: String| RunError::Scheduler {
        disk: name.clone(),
        want: want.into(),
        why,
    };
    if old == want {
        return Ok(());
    }
    if !offered.iter().any(|o| o == want) {
        return Err(fail(format!("it offers {}", offered.join(", "))));
    }
    if !held.iter().any(|s| s.file == file) {
        let _held = leftovers::hold_setting(&file, &old);
        held.push(Switched {
            file: file.clone(),
            old,
            _held,
        });
    }
    std::fs::write(&file, want)
        .map_err(|e| fail(format!("writing {} failed: {e}", file.display())))?;
    match read(&file) {
        Some((now, _)) if now == want => Ok(()),
        _ => Err(fail("the kernel kept its scheduler".into())),
    }
}
