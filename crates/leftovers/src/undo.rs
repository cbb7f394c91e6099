//! Undoing one dead volbench's items, after checking each name is volbench's own pattern
//! for that pid; and the process facts (start time, boot, name) that say who is dead.

use crate::{Item, Kind, Record};
use std::path::Path;
use std::time::{Duration, Instant};

/// Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count after its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

pub fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Whether the record's owner still runs: same boot, and a process of that pid that started
/// when the owner did (a reused pid started later).
pub fn alive(r: &Record) -> bool {
    r.boot == boot_id() && start_time(r.pid).is_some_and(|s| s == r.start)
}

/// Whether `pid` is a running volbench (for names that carry only a pid).
pub fn is_volbench(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|c| c.trim_end().starts_with("volbench"))
}

/// Whether any process has `pid`.
pub fn exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The pid of a name in volbench's pattern, `volbench-WORD-PID` followed by nothing or by
/// `.`/`-` and more (`.sqlite`, `-wal`); None for any other name.
pub fn pid_of(name: &str) -> Option<u32> {
    let (word, tail) = name.strip_prefix("volbench-")?.split_once('-')?;
    let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after = &tail[digits..];
    let ok = !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_lowercase())
        && (after.is_empty() || after.starts_with('.') || after.starts_with('-'));
    ok.then(|| tail[..digits].parse().ok()).flatten()
}

pub fn named_for(name: &str, pid: u32) -> bool {
    pid_of(name) == Some(pid)
}

/// A path volbench makes for `pid`: a dot file or directory named for it.
pub fn ours(path: &Path, pid: u32) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix('.'))
        .is_some_and(|n| named_for(n, pid))
}

/// Undoes a dead owner's items; a line saying what was done, or None when nothing was left.
pub fn record(r: &Record) -> Option<String> {
    // Servers first: a data directory is removed only once nothing runs in it.
    let mut items = r.items.clone();
    items.sort_by_key(|i| i.kind != Kind::Postgres);
    let done: Vec<String> = items.iter().filter_map(|i| item(i, r.pid)).collect();
    (!done.is_empty()).then(|| {
        format!(
            "removed what a killed volbench (pid {}) left: {}",
            r.pid,
            done.join("; ")
        )
    })
}

fn item(i: &Item, pid: u32) -> Option<String> {
    match i.kind {
        Kind::Path if ours(&i.path, pid) && still_made(&i.path, i.made) => path(&i.path),
        Kind::Postgres if server_dir_made(i, pid) => postgres(&i.path),
        Kind::Journal => fold(&i.path),
        Kind::Setting => setting(&i.path, i.value.as_deref()?),
        Kind::JobGroup => job_group(&i.path),
        Kind::Cgroup
            if i.path.starts_with("/sys/fs/cgroup")
                && i.path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| named_for(n, pid)) =>
        {
            cgroup(&i.path)
        }
        _ => None,
    }
}

/// Whether `p` is still what volbench made: the identity taken when it was made, or, when it
/// was killed before it could take one, an entry of the invoking user's (never a link).
fn still_made(p: &Path, made: Option<(u64, u64)>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(md) = std::fs::symlink_metadata(p) else {
        // Gone already: only its side files may be left to remove.
        return true;
    };
    match made {
        Some(id) => (md.dev(), md.ino()) == id,
        None => !md.file_type().is_symlink() && md.uid() == outfile::euid(),
    }
}

/// A PostgreSQL data directory is stopped and removed only inside the `.volbench-pg-PID`
/// directory volbench made (its identity, taken then), and only when it is a directory
/// itself, not a link to another server's.
fn server_dir_made(i: &Item, pid: u32) -> bool {
    let Some(parent) = i.path.parent().filter(|p| ours(p, pid)) else {
        return false;
    };
    let real_dir = std::fs::symlink_metadata(&i.path).is_ok_and(|m| m.is_dir());
    real_dir && i.made.is_some() && outfile::identity(parent) == i.made
}

/// Removes an empty cgroup a job file named (fio's `cgroup=`): rmdir only, which the kernel
/// refuses while a task or a group is inside, and only a cgroup directory below
/// /sys/fs/cgroup.
pub fn job_group(dir: &Path) -> Option<String> {
    let s = dir.to_str()?;
    let ok = s.starts_with("/sys/fs/cgroup/") && !s.contains("..") && dir.join("tasks").is_file();
    if !ok {
        return None;
    }
    std::fs::remove_dir(dir).ok()?;
    Some(format!("removed the cgroup {}", dir.display()))
}

/// Writes a setting's old value back: only a disk's I/O scheduler, the one setting volbench
/// changes this way (a hand-edited record cannot make it write anywhere else).
pub fn setting(path: &Path, old: &str) -> Option<String> {
    let s = path.to_str()?;
    let ok = s.starts_with("/sys/") && s.ends_with("/queue/scheduler") && !s.contains("..");
    if !ok || old.is_empty() || !old.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return None;
    }
    std::fs::write(path, old).ok()?;
    Some(format!("set {} back to {old}", path.display()))
}

/// Folds a killed owner's SQLite write-ahead log into its database (what SQLite does when the
/// last connection closes): the records stay, the side files go. None when there were none.
pub fn fold(db: &Path) -> Option<String> {
    let side = |ext: &str| {
        let mut s = db.as_os_str().to_owned();
        s.push(ext);
        std::path::PathBuf::from(s)
    };
    if !db.is_file() || !(side("-wal").exists() || side("-shm").exists()) {
        return None;
    }
    let c = rusqlite::Connection::open(db).ok()?;
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .ok()?;
    drop(c);
    Some(format!(
        "folded the write-ahead log of {} into it",
        db.display()
    ))
}

/// Removes a file or directory and a file's SQLite side files; None when none existed.
pub fn path(p: &Path) -> Option<String> {
    let md = std::fs::symlink_metadata(p).ok();
    let mut removed = match &md {
        Some(m) if m.is_dir() => std::fs::remove_dir_all(p).is_ok(),
        Some(_) => std::fs::remove_file(p).is_ok(),
        None => false,
    };
    for side in ["-wal", "-shm", "-journal"] {
        let mut s = p.as_os_str().to_owned();
        s.push(side);
        removed |= std::fs::remove_file(&s).is_ok();
    }
    removed.then(|| format!("removed {}", p.display()))
}

/// Stops what runs in the PostgreSQL data directory `data`: the server (SIGQUIT, its
/// immediate shutdown; SIGKILL after 10 s), found by `postmaster.pid` and confirmed by its
/// working directory, and whatever else names the directory on its command line (an initdb
/// and its runuser, killed with the volbench that started them). None when nothing ran.
pub fn postgres(data: &Path) -> Option<String> {
    let mut said = Vec::new();
    if let Some(spid) = server(data) {
        // SAFETY: kill(2) on a pid checked to be the server running in our directory.
        unsafe { libc::kill(spid, libc::SIGQUIT) };
        if !gone(spid, Duration::from_secs(10)) {
            // SAFETY: the same pid, still the server: it did not stop on SIGQUIT.
            unsafe { libc::kill(spid, libc::SIGKILL) };
            gone(spid, Duration::from_secs(5));
        }
        said.push(format!(
            "stopped PostgreSQL (pid {spid}) in {}",
            data.display()
        ));
    }
    for pid in naming(data) {
        // SAFETY: as above; the process names our own `.volbench-pg-PID` directory.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        gone(pid, Duration::from_secs(5));
        said.push(format!(
            "killed pid {pid} still working in {}",
            data.display()
        ));
    }
    (!said.is_empty()).then(|| said.join("; "))
}

/// The server's pid from its `postmaster.pid`, when a process of that pid runs in `data`.
fn server(data: &Path) -> Option<i32> {
    let pidfile = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let spid: i32 = pidfile.lines().next()?.trim().parse().ok()?;
    let cwd = std::fs::read_link(format!("/proc/{spid}/cwd")).ok()?;
    (std::fs::canonicalize(data).ok()? == cwd).then_some(spid)
}

/// Processes with an argument that is `dir` or a path below it.
fn naming(dir: &Path) -> Vec<i32> {
    let want = dir.as_os_str().as_encoded_bytes();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            cmd.split(|b| *b == 0).any(|arg| {
                arg.strip_prefix(want)
                    .is_some_and(|rest| rest.is_empty() || rest[0] == b'/')
            })
        })
        .collect()
}

/// Waits up to `t` for `pid` to end.
fn gone(pid: i32, t: Duration) -> bool {
    let end = Instant::now() + t;
    while Instant::now() < end {
        if std::fs::metadata(format!("/proc/{pid}")).is_err() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Moves anything left inside to the parent and removes the cgroup (its limits go with it).
pub fn cgroup(dir: &Path) -> Option<String> {
    if !dir.is_dir() {
        return None;
    }
    let parent = dir.parent()?;
    for _ in 0..50 {
        let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
        if procs.trim().is_empty() {
            break;
        }
        for p in procs.lines() {
            let _ = std::fs::write(parent.join("cgroup.procs"), p);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::remove_dir(dir)
        .is_ok()
        .then(|| format!("removed cgroup {}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_volbenchs_own_names_for_that_pid_match() {
        for ok in [
            ".volbench-pg-42",
            ".volbench-db-42.sqlite",
            ".volbench-db-42.sqlite-wal",
            ".volbench-fsync-42.dat",
        ] {
            assert!(ours(Path::new(ok), 42), "{ok}");
        }
        for no in [
            ".volbench-pg-421",
            ".volbench-pg-4",
            "volbench-pg-42",
            ".volbench--42",
            ".volbench-PG-42",
            ".volbench-pg-42x",
            "..",
            "/",
        ] {
            assert!(!ours(Path::new(no), 42), "{no}");
        }
        assert!(named_for("volbench-emulate-42", 42));
        assert!(!named_for("volbench-emulate-42", 4));
    }

    #[test]
    fn this_process_is_alive_and_a_changed_start_is_not() {
        let me = std::process::id();
        let mut r = Record {
            pid: me,
            start: start_time(me).unwrap(),
            boot: boot_id(),
            items: vec![],
        };
        assert!(alive(&r));
        r.start += 1;
        assert!(!alive(&r));
    }
}
