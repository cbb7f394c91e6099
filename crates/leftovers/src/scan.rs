//! Finding leftovers by name alone, for `volbench clean DIR...`: what a volbench made before
//! records existed, or where its record was lost. A `.volbench-WORD-PID` entry (or a
//! `volbench-WORD-PID` cgroup) is taken only when no process at all runs as PID: a name
//! carries no start time, so a live pid, volbench or not (a program using the cloud crate's
//! cgroups as a library), keeps what is named for it.

use crate::undo::{self, pid_of};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Stops and removes the leftovers of dead volbenches found in `dirs` (not below them), in
/// the socket directory's place (`/tmp`) and among the cgroups; one line per dead pid.
pub fn scan_dirs(dirs: &[PathBuf]) -> Vec<String> {
    let mut by_pid: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut all: Vec<PathBuf> = dirs.to_vec();
    all.push(PathBuf::from("/tmp"));
    for d in &all {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix('.').and_then(pid_of) else {
                continue;
            };
            let p = e.path();
            if undo::exists(pid) || !users_own(&p) {
                continue;
            }
            let said = by_pid.entry(pid).or_default();
            let data = p.join("data");
            let real = std::fs::symlink_metadata(&data).is_ok_and(|m| m.is_dir());
            if real && data.join("postmaster.pid").is_file() {
                said.extend(undo::postgres(&p.join("data")));
            }
            said.extend(undo::path(&p));
        }
    }
    for cg in cgroups() {
        let pid = cg.file_name().and_then(|n| n.to_str()).and_then(pid_of);
        if let Some(pid) = pid.filter(|p| !undo::exists(*p)) {
            by_pid.entry(pid).or_default().extend(undo::cgroup(&cg));
        }
    }
    by_pid
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(pid, v)| {
            format!(
                "removed what a killed volbench (pid {pid}) left: {}",
                v.join("; ")
            )
        })
        .collect()
}

/// Whether `p` is an entry (not a link) of the invoking user's.
fn users_own(p: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(p)
        .is_ok_and(|m| !m.file_type().is_symlink() && m.uid() == outfile::euid())
}

/// `volbench-…` cgroup directories up to four levels below each hierarchy's root.
fn cgroups() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for root in ["/sys/fs/cgroup/blkio", "/sys/fs/cgroup"] {
        walk(Path::new(root), 4, &mut found);
    }
    found.sort();
    found.dedup();
    found
}

fn walk(dir: &Path, depth: u32, found: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with("volbench-") {
            found.push(p);
        } else if depth > 1 {
            walk(&p, depth - 1, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_come_only_from_volbenchs_names() {
        assert_eq!(pid_of("volbench-pg-77"), Some(77));
        assert_eq!(pid_of("volbench-db-77.sqlite-wal"), Some(77));
        assert_eq!(pid_of("volbench-emulate-9"), Some(9));
        assert_eq!(pid_of("volbench-pg-77x"), None);
        assert_eq!(pid_of("volbench-pg-"), None);
        assert_eq!(pid_of("xvolbench-pg-77"), None);
    }

    #[test]
    fn a_dead_pids_file_in_a_given_directory_is_removed_and_others_are_not() {
        let d = tempfile::tempdir().unwrap();
        // A pid above pid_max: no process has it.
        let dead = d.path().join(".volbench-db-4999999.sqlite");
        let other = d.path().join("volbench-db-4999999.sqlite");
        for p in [&dead, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        let said = scan_dirs(&[d.path().to_path_buf()]);
        assert!(!dead.exists());
        assert!(other.exists(), "a name without the dot is not ours");
        assert!(said.iter().any(|l| l.contains("4999999")), "{said:?}");
    }
}
