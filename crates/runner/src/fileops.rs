//! fio's file and directory engines (`filecreate`, `filestat`, `filedelete`, `dircreate`,
//! `dirstat`, `dirdelete`): the rate at which a file system creates, looks up and removes
//! files, by which FUSE object stores and network file systems are judged. As in fio, each
//! operation on one of the job's files is one completion latency (clat, and lat: there is no
//! submission), in the job's direction (reads unless the job only writes), and each file
//! counts its region's blocks as done (fio's "fake" I/O), so IOPS and bandwidth read as fio's.

use crate::live::{rusage, JobInput, JobOutput};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use workload::{FileOp, JobSpec};

/// One operation on `p`, timed: its latency in ns. A created file is closed after the
/// clock stops, as fio closes it apart from the timed open.
fn once(op: FileOp, p: &Path, stat_type: u8) -> std::io::Result<u64> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let t = Instant::now();
    let took = |r: std::io::Result<()>| r.map(|()| t.elapsed().as_nanos() as u64);
    match op {
        FileOp::Create => {
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(p);
            let ns = t.elapsed().as_nanos() as u64;
            f.map(|_| ns)
        }
        FileOp::Stat | FileOp::DirStat => took(stat(p, stat_type)),
        FileOp::Delete => took(std::fs::remove_file(p)),
        FileOp::DirCreate => took(std::fs::DirBuilder::new().mode(0o700).create(p)),
        FileOp::DirDelete => took(std::fs::remove_dir(p)),
    }
}

/// fio's `stat_type`: stat(2), lstat(2) or statx(2).
fn stat(p: &Path, stat_type: u8) -> std::io::Result<()> {
    match stat_type {
        1 => std::fs::symlink_metadata(p).map(drop),
        2 => {
            let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())?;
            // SAFETY: a NUL-terminated path and a zeroed statx buffer the call fills.
            let rc = unsafe {
                let mut buf: libc::statx = std::mem::zeroed();
                libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_ALL, &mut buf)
            };
            if rc == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        }
        _ => std::fs::metadata(p).map(drop),
    }
}

/// The directories `dirstat` and `dirdelete` work on, made first where missing, as fio's
/// setup does; the ones made here are this run's (only those may be removed).
pub fn make_dirs(spec: &JobSpec, paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    use std::os::unix::fs::DirBuilderExt;
    let mut made = Vec::new();
    match spec.ioengine {
        workload::EngineKind::FileOp(op) if op.on_dirs() && op != FileOp::DirCreate => {}
        _ => return Ok(made),
    }
    for p in paths {
        match std::fs::DirBuilder::new().mode(0o700).create(p) {
            Ok(()) => made.push(p.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(made)
}

/// Runs the job: its files in turn (`loops` times, or until `runtime` with `time_based`),
/// each operation timed. Meets the other jobs at the start line first.
pub fn drive(op: FileOp, inp: &JobInput, out: &mut JobOutput) {
    let spec = &inp.spec;
    let paths = crate::target::resolve_paths(spec, inp.clone);
    let dir = usize::from(!spec.rw.reads());
    let mut stats = stats::JobStats::default();
    stats.dirs[dir].clat.prepare();
    stats.dirs[dir].lat.prepare();
    let start = inp.start.arrive() + crate::live::start_delay(spec, inp.clone);
    crate::pace::sleep_unless_stopped(start.saturating_duration_since(Instant::now()), &inp.stop);
    inp.live.measuring.store(true, Relaxed);
    let (cpu0, t0) = (rusage(libc::RUSAGE_THREAD), Instant::now());
    let deadline = spec.runtime.filter(|_| spec.time_based);
    let blocks: Vec<u64> = inp
        .regions
        .iter()
        .map(|r| (r.1 / spec.bs.max(1)).max(1))
        .collect();
    let mut pass = 0;
    'run: while pass < spec.region.loops.max(1) || deadline.is_some_and(|d| t0.elapsed() < d) {
        for (p, n) in paths.iter().zip(blocks.iter().cycle()) {
            if inp.stop.load(Relaxed) || deadline.is_some_and(|d| t0.elapsed() >= d) {
                break 'run;
            }
            let ns = match once(op, p, spec.reporting.stat_type) {
                Ok(ns) => ns,
                Err(e) => {
                    out.error = Some(format!("{}({}): {e}", op.name(), p.display()));
                    break 'run;
                }
            };
            let d = &mut stats.dirs[dir];
            d.clat.record(ns);
            d.lat.record(ns);
            d.ios += n;
            d.bytes += n * spec.bs;
            inp.live.ios[dir].store(d.ios, Relaxed);
            inp.live.bytes[dir].store(d.bytes, Relaxed);
        }
        pass += 1;
    }
    let cpu1 = rusage(libc::RUSAGE_THREAD);
    stats.runtime_ns = t0.elapsed().as_nanos() as u64;
    (stats.usr_ns, stats.sys_ns) = (cpu1.0 - cpu0.0.min(cpu1.0), cpu1.1 - cpu0.1.min(cpu1.1));
    stats.ctx = cpu1.2.saturating_sub(cpu0.2);
    inp.live.end(std::time::Instant::now());
    out.ended_by = Some(match (&out.error, deadline) {
        (Some(_), _) => report::Ended::Error,
        (None, Some(_)) => report::Ended::Runtime,
        (None, None) => report::Ended::Size,
    });
    out.stats = stats;
}
