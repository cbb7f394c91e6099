//! fio's `uid` and `gid`: a job does its I/O as another user and group.
//!
//! fio switches its job process with setgid/setuid. volbench's jobs are threads of one
//! process, and glibc's setuid changes every thread; the kernel keeps credentials per thread,
//! so the raw system calls change this job's thread alone. The files were opened before, by
//! the runner (as root): each is opened again by the thread as the new user, onto the same
//! descriptor, so the file's permissions apply to the job as they do to fio's.

use engine::EngineError;
use std::os::fd::RawFd;
use workload::JobSpec;

/// Becomes the job's group, then its user (a new group needs the privilege the user change
/// gives up), and reopens `fds` (named by `paths`) as that user. Nothing when neither is set.
pub(crate) fn become_user(
    spec: &JobSpec,
    fds: &[RawFd],
    paths: &[String],
) -> Result<(), EngineError> {
    if spec.process.uid.is_none() && spec.process.gid.is_none() {
        return Ok(());
    }
    if let Some(g) = spec.process.gid {
        // SAFETY: a plain syscall with integer arguments, for this thread only.
        let rc = unsafe { libc::syscall(libc::SYS_setresgid, g, g, g) };
        check(
            rc,
            "gid",
            "the kernel refused the group (changing it needs root)",
        )?;
    }
    if let Some(u) = spec.process.uid {
        // SAFETY: as above.
        let rc = unsafe { libc::syscall(libc::SYS_setresuid, u, u, u) };
        check(
            rc,
            "uid",
            "the kernel refused the user (changing it needs root)",
        )?;
    }
    if !spec.ioengine.opens_files() {
        return Ok(());
    }
    for (&fd, path) in fds.iter().zip(paths) {
        crate::target::reopen_onto(fd, path, false).map_err(|e| {
            EngineError::Setup(format!(
                "open {path} as uid {} gid {}: {e} (the job's user cannot use the file: \
                 change its owner or mode, or drop uid=/gid=)",
                show(spec.process.uid),
                show(spec.process.gid)
            ))
        })?;
    }
    Ok(())
}

fn show(id: Option<u32>) -> String {
    id.map_or_else(|| "unchanged".into(), |i| i.to_string())
}

fn check(rc: libc::c_long, opt: &'static str, what: &'static str) -> Result<(), EngineError> {
    match rc {
        0 => Ok(()),
        _ => Err(EngineError::Io {
            engine: opt,
            what,
            source: std::io::Error::last_os_error(),
        }),
    }
}
