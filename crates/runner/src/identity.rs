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
    if spec.uid.is_none() && spec.gid.is_none() {
        return Ok(());
    }
    if let Some(g) = spec.gid {
        // SAFETY: a plain syscall with integer arguments, for this thread only.
        let rc = unsafe { libc::syscall(libc::SYS_setresgid, g, g, g) };
        check(
            rc,
            "gid",
            "the kernel refused the group (changing it needs root)",
        )?;
    }
    if let Some(u) = spec.uid {
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
        reopen(fd, path).map_err(|e| {
            EngineError::Setup(format!(
                "open {path} as uid {} gid {}: {e} (the job's user cannot use the file: \
                 change its owner or mode, or drop uid=/gid=)",
                show(spec.uid),
                show(spec.gid)
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

/// `path` opened as `fd` was (access mode and flags kept), onto `fd`.
fn reopen(fd: RawFd, path: &str) -> std::io::Result<()> {
    let c = std::ffi::CString::new(path).map_err(std::io::Error::other)?;
    // SAFETY: fcntl only reads the status flags of a descriptor the job holds open.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let keep = flags & (libc::O_ACCMODE | libc::O_DIRECT | libc::O_SYNC | libc::O_DSYNC);
    // SAFETY: open with a valid C string; the new descriptor is closed below.
    let new = unsafe { libc::open(c.as_ptr(), keep | libc::O_CLOEXEC) };
    if new < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: dup3 onto a descriptor the job owns, before any I/O on it (close-on-exec
    // kept, so exec_prerun's command inherits nothing); then the spare is closed.
    let rc = unsafe { libc::dup3(new, fd, libc::O_CLOEXEC) };
    let err = std::io::Error::last_os_error();
    // SAFETY: `new` is ours and no longer needed.
    unsafe { libc::close(new) };
    match rc < 0 {
        true => Err(err),
        false => Ok(()),
    }
}
