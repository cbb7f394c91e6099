//! What volbench leaves behind while it runs (a throwaway PostgreSQL server and its
//! directories, scratch files, a cgroup), written down before it is made, so that a volbench
//! killed with SIGKILL has its leftovers stopped and removed by the next one to start.
//!
//! Each process keeps one record, `<registry>/<pid>`: its start time and boot (so a reused
//! pid is not taken for the owner) and what it holds now. A [`Hold`] adds an item and drops
//! it when the holder has cleaned up. [`reclaim`] takes the records of dead owners (by
//! renaming them, so two starting volbenches never reclaim one record twice) and undoes what
//! they list. Nothing is touched whose name is not volbench's own pattern for that pid: a
//! hand-edited record cannot make volbench delete anything else. The one exception is a
//! cgroup a job file named: an empty one is removed, as an rmdir the kernel refuses for a
//! group in use.
//!
//! Another user on the machine may have prepared the registry (issue 63): it is used only
//! when it is a directory of the invoking user's that no one else can write
//! ([`outfile::trusted_dir`]), a record only when it is a regular file of the user's, opened
//! without following a link, and a path is undone only when it is still what volbench made:
//! the device and inode taken when it was made ([`Hold::made`]), else owned by the user.
//!
//! Libraries call [`hold`] unconditionally; until the binary calls [`init`] it records
//! nothing, so the crates stay usable (and testable) on their own.

mod scan;
mod undo;

use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use scan::scan_dirs;
/// The undoing itself, for holders cleaning up after themselves (one way to remove a file
/// with its SQLite side files, or a cgroup with what is left inside): a line saying what was
/// done, None when there was nothing.
pub use undo::{cgroup as remove_cgroup, path as remove_path};

/// What an item is, which says how to undo it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A file or directory volbench created (`.volbench-…-PID…`), removed whole, with the
    /// SQLite side files (`-wal`, `-shm`, `-journal`) of a file.
    Path,
    /// A PostgreSQL data directory whose server may still run: stopped, then removed.
    Postgres,
    /// A cgroup directory (`volbench-…-PID`): what is inside moves to the parent, then it
    /// is removed.
    Cgroup,
    /// A cgroup a job file named (fio's `cgroup=`) that volbench made: its name is the
    /// user's, so it is only rmdir'ed, which the kernel refuses while any task or group is
    /// inside, and only below /sys/fs/cgroup.
    JobGroup,
    /// An SQLite database volbench keeps (the witness's journal): never removed; a killed
    /// owner's write-ahead log is folded into it, so no `-wal`/`-shm` stays beside it.
    Journal,
    /// A kernel setting volbench changed (a disk's `queue/scheduler`): its old value is
    /// written back.
    Setting,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Item {
    kind: Kind,
    path: PathBuf,
    /// A setting's value before volbench changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    /// The (device, inode) of the path once volbench made it: only that is undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    made: Option<(u64, u64)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Record {
    pid: u32,
    /// Clock ticks after boot at which the owner started (field 22 of /proc/PID/stat).
    start: u64,
    boot: String,
    items: Vec<Item>,
}

struct State {
    dir: Option<PathBuf>,
    items: Vec<(u64, Item)>,
    next: u64,
}

static STATE: Mutex<State> = Mutex::new(State {
    dir: None,
    items: Vec::new(),
    next: 0,
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records go to `dir` from now on (created 0700 with the first record). A directory that
/// is not the user's own and closed to others is not used: the one line saying so is
/// returned, and nothing is recorded or reclaimed there.
pub fn init(dir: &Path) -> Option<String> {
    // A registry not there yet is made (0700) with the first record, and checked then.
    let there = std::fs::symlink_metadata(dir).is_ok();
    match if there {
        outfile::trusted_dir(dir)
    } else {
        Ok(())
    } {
        Ok(()) => {
            state().dir = Some(dir.to_path_buf());
            None
        }
        Err(e) => {
            state().dir = None;
            Some(format!(
                "{e}: a killed volbench's leftovers are not reclaimed here"
            ))
        }
    }
}

/// One held item: dropped once its holder has undone it itself.
#[must_use = "the item is forgotten when the Hold drops"]
pub struct Hold(Option<u64>);

/// Writes down `path` of `kind` as this process's, before it is created.
pub fn hold(kind: Kind, path: &Path) -> Hold {
    held(kind, path, None)
}

/// Writes down the kernel setting at `path` and its value now, before volbench changes it.
pub fn hold_setting(path: &Path, old: &str) -> Hold {
    held(Kind::Setting, path, Some(old.to_string()))
}

fn held(kind: Kind, path: &Path, value: Option<String>) -> Hold {
    let mut s = state();
    if s.dir.is_none() {
        return Hold(None);
    }
    let id = s.next;
    s.next += 1;
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let made = None;
    s.items.push((
        id,
        Item {
            kind,
            path,
            value,
            made,
        },
    ));
    write(&s);
    Hold(Some(id))
}

impl Hold {
    /// Notes that the held path now exists as volbench made it (its device and inode), so
    /// that only this, never something put at its name later, is undone. For a
    /// [`Kind::Postgres`] item, call it once the directory holding the data directory is made.
    pub fn made(&self) {
        let Some(id) = self.0 else { return };
        let mut s = state();
        if let Some((_, i)) = s.items.iter_mut().find(|(i, _)| *i == id) {
            // A server's data directory is made by initdb, as the server's user: what
            // volbench itself made is the directory it sits in.
            let made = match i.kind {
                Kind::Postgres => i.path.parent().unwrap_or(&i.path),
                _ => &i.path,
            };
            i.made = outfile::identity(made);
        }
        write(&s);
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Some(id) = self.0 {
            let mut s = state();
            s.items.retain(|(i, _)| *i != id);
            write(&s);
        }
    }
}

/// Rewrites this process's record (temp file and rename, so a kill mid-write leaves the old
/// one whole), or removes it when nothing is held. Best effort: a registry that cannot be
/// written only loses the reclaiming, never the run.
fn write(s: &State) {
    let Some(dir) = &s.dir else { return };
    let me = std::process::id();
    let path = dir.join(me.to_string());
    if s.items.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    if outfile::private_dir(dir).is_err() {
        return;
    }
    let rec = Record {
        pid: me,
        start: undo::start_time(me).unwrap_or(0),
        boot: undo::boot_id(),
        items: s.items.iter().map(|(_, i)| i.clone()).collect(),
    };
    let tmp = dir.join(format!(".{me}.tmp"));
    let body = serde_json::to_vec(&rec).unwrap_or_default();
    // A new file each time (never through a link left at the name), then renamed over.
    let _ = std::fs::remove_file(&tmp);
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(&body));
    if made.is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
}

/// Stops and removes what every dead volbench's record lists; one line per record saying
/// what was found and done. Records of live processes are left alone.
pub fn reclaim() -> Vec<String> {
    let Some(dir) = state().dir.clone() else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut said = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((owner, holder)) = parse_name(&name) else {
            continue;
        };
        if owner == me || holder.is_some_and(|h| h != me && undo::is_volbench(h)) {
            continue;
        }
        let Some(rec) = read_record(&e.path()) else {
            continue;
        };
        if rec.pid != owner || undo::alive(&rec) {
            continue;
        }
        // Taken by renaming: a second volbench starting now finds it gone or held by us.
        let taken = dir.join(format!("{owner}-{me}"));
        if std::fs::rename(e.path(), &taken).is_err() {
            continue;
        }
        if let Some(line) = undo::record(&rec) {
            said.push(line);
        }
        let _ = std::fs::remove_file(&taken);
    }
    said
}

/// `OWNER` or `OWNER-RECLAIMER`.
fn parse_name(name: &str) -> Option<(u32, Option<u32>)> {
    match name.split_once('-') {
        None => Some((name.parse().ok()?, None)),
        Some((a, b)) => Some((a.parse().ok()?, Some(b.parse().ok()?))),
    }
}

/// A record is a few hundred bytes; anything larger than this is not one of ours.
const MAX_RECORD: u64 = 1 << 20;

/// A record as volbench wrote it: a regular file of the user's, not a link, bounded.
fn read_record(path: &Path) -> Option<Record> {
    let (f, md) = outfile::open_own(path)?;
    if md.len() > MAX_RECORD {
        return None;
    }
    let mut body = Vec::new();
    f.take(MAX_RECORD).read_to_end(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_owner_and_optional_reclaimer() {
        assert_eq!(parse_name("123"), Some((123, None)));
        assert_eq!(parse_name("123-45"), Some((123, Some(45))));
        assert_eq!(parse_name(".123.tmp"), None);
        assert_eq!(parse_name("x-1"), None);
    }
}
