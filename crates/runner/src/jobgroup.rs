//! fio's `cgroup`, `cgroup_weight` and `cgroup_nodelete`: a job's thread does its I/O from a
//! blkio cgroup of its own (named by the job file, or after the job), so the group's limits
//! and counters (`blkio.throttle.io_serviced`) cover exactly the job's I/O.
//!
//! As fio: the first hierarchy in /proc/mounts that is cgroup v1 with blkio or cgroup2 is
//! used; a group that does not exist is made, and removed after the run unless
//! `cgroup_nodelete`; one that exists is joined and left as it was. fio writes its job's pid
//! into the v1 group's `tasks`; volbench's jobs are threads, and `tasks` takes a thread id,
//! so the job thread alone moves (cgroup v2 moves whole processes: refused). A group made is
//! written down first (`leftovers`), so a volbench killed with SIGKILL has it removed by the
//! next one to start.

use crate::error::RunError;
use engine::EngineError;
use std::path::{Path, PathBuf};
use workload::JobSpec;

/// A group a job of the run uses; one volbench made is removed when it drops (after the run
/// or its failure), its job threads gone by then.
pub(crate) struct Group {
    dir: PathBuf,
    made: bool,
    nodelete: bool,
    _held: Option<leftovers::Hold>,
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.made && !self.nodelete {
            // The kernel refuses the rmdir while a task is inside; the jobs' threads have
            // ended, so a short retry covers a thread still on its way out.
            for _ in 0..50 {
                if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

/// The blkio hierarchy fio would use: (mount point, cgroup2?), from /proc/mounts.
fn hierarchy() -> Option<(PathBuf, bool)> {
    let text = std::fs::read_to_string("/proc/mounts").ok()?;
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (dir, fs, opts) = (f.get(1)?, f.get(2)?, f.get(3)?);
        match *fs {
            "cgroup" if opts.split(',').any(|o| o == "blkio") => Some((PathBuf::from(dir), false)),
            "cgroup2" => Some((PathBuf::from(dir), true)),
            _ => None,
        }
    })
}

/// Where a job's thread goes: its group, and the group it comes back to after the job (the
/// process's own in that hierarchy, where every job thread starts).
#[derive(Clone, Debug)]
pub struct Member {
    dir: PathBuf,
    back: PathBuf,
}

/// The process's own group in the v1 hierarchy mounted at `mount` for blkio.
fn own_group(mount: &Path) -> PathBuf {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = own.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctls, path) = (f.next()?, f.next()?, f.next()?);
        ctls.split(',').any(|c| c == "blkio").then_some(path)
    });
    mount.join(rel.unwrap_or("/").trim_start_matches('/'))
}

/// Makes or finds job `spec`'s group (none when it names none and sets no weight) and sets
/// its weight; returns where the job's thread goes.
pub(crate) fn prepare(spec: &JobSpec, groups: &mut Vec<Group>) -> Result<Option<Member>, RunError> {
    if spec.process.cgroup.is_none() && spec.process.cgroup_weight == 0 {
        return Ok(None);
    }
    let name = spec.process.cgroup.as_deref().unwrap_or(&spec.name);
    let fail = |why: String| RunError::Cgroup {
        name: name.to_string(),
        why,
    };
    let Some((mount, v2)) = hierarchy() else {
        return Err(fail(
            "no blkio cgroup hierarchy is mounted (mount -t cgroup -o blkio none /sys/fs/cgroup/blkio)".into(),
        ));
    };
    if v2 {
        return Err(fail(format!(
            "the I/O hierarchy is cgroup v2 ({}), which moves whole processes, and volbench's jobs \
             are threads of one: run volbench inside the group instead (systemd-run --scope -p \
             IOWeight=... volbench ...)",
            mount.display()
        )));
    }
    if name.split('/').any(|c| c == "..") || name.starts_with('/') {
        return Err(fail(
            "a group's name is a path below the hierarchy, without '..'".into(),
        ));
    }
    let dir = mount.join(name);
    if !groups.iter().any(|g| g.dir == dir) {
        let held = leftovers::hold(leftovers::Kind::JobGroup, &dir);
        let made = match std::fs::create_dir(&dir) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(fail(format!("cannot make {}: {e}", dir.display()))),
        };
        let keep = made && !spec.process.cgroup_nodelete;
        groups.push(Group {
            dir: dir.clone(),
            made,
            nodelete: spec.process.cgroup_nodelete,
            _held: keep.then_some(held),
        });
    }
    if spec.process.cgroup_weight > 0 {
        weigh(&dir, spec.process.cgroup_weight).map_err(fail)?;
    }
    Ok(Some(Member {
        back: own_group(&mount),
        dir,
    }))
}

/// fio writes `blkio.weight` (CFQ's, gone since Linux 5.0); BFQ's `blkio.bfq.weight` is
/// today's same setting, used where the first is missing.
fn weigh(dir: &Path, weight: u32) -> Result<(), String> {
    // A missing file cannot be written (cgroupfs refuses to create one: EACCES), so look.
    for file in ["blkio.weight", "blkio.bfq.weight"].map(|f| dir.join(f)) {
        if file.exists() {
            return std::fs::write(&file, weight.to_string())
                .map_err(|e| format!("cannot write {}: {e}", file.display()));
        }
    }
    Err(
        "this kernel's blkio has no weight (blkio.weight went with CFQ; blkio.bfq.weight needs \
         the BFQ scheduler built with group scheduling): drop cgroup_weight, or cap the job \
         with a throttle (volbench emulate)"
            .into(),
    )
}

/// A job thread inside its group; dropping it moves the thread back where it was.
pub(crate) struct Joined {
    back: PathBuf,
    tid: libc::pid_t,
}

impl Drop for Joined {
    fn drop(&mut self) {
        let _ = std::fs::write(self.back.join("tasks"), self.tid.to_string());
    }
}

/// Moves this thread into its group (its `tasks`), back out when the result drops.
pub(crate) fn join(m: &Member) -> Result<Joined, EngineError> {
    // SAFETY: gettid takes no arguments and cannot fail.
    let tid = unsafe { libc::gettid() };
    std::fs::write(m.dir.join("tasks"), tid.to_string()).map_err(|source| EngineError::Io {
        engine: "cgroup",
        what: "the job's thread could not join its cgroup (writing its tasks)",
        source,
    })?;
    Ok(Joined {
        back: m.back.clone(),
        tid,
    })
}
