//! Where a job's thread runs and at what I/O priority: fio's `cpus_allowed`,
//! `cpus_allowed_policy` and `prioclass`/`prio`, applied by the thread itself before it
//! builds its engine.

use engine::EngineError;
use workload::JobSpec;

/// fio's `prioclass`/`prio`: the I/O priority of this thread (ioprio_set with
/// IOPRIO_WHO_PROCESS and 0, which names the calling thread).
fn set_ioprio(class: u8, level: u8) -> Result<(), EngineError> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    let value = ((class as libc::c_long) << 13) | level as libc::c_long;
    // SAFETY: a plain syscall with integer arguments.
    let rc = unsafe { libc::syscall(libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value) };
    if rc != 0 {
        return Err(EngineError::Io {
            engine: workload::fio::table::names::PRIOCLASS,
            what: "the kernel refused the I/O priority (the realtime class needs root)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Puts this job's thread on its CPUs (fio's `cpus_allowed`): all of them, or with
/// `cpus_allowed_policy=split` one per clone in turn.
pub(crate) fn pin(spec: &JobSpec, clone: u32) -> Result<(), EngineError> {
    if let Some((class, level)) = spec.ioprio {
        set_ioprio(class, level)?;
    }
    // SAFETY: setpriority on this thread's id (a thread is a process to it on Linux).
    if spec.nice != 0
        && unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as u32, spec.nice) } != 0
    {
        return Err(EngineError::Io {
            engine: "nice",
            what: "the nice value was refused (a negative one needs root)",
            source: std::io::Error::last_os_error(),
        });
    }
    // A rate-capped job sleeps until each I/O is due: with the default 50 µs of timer slack
    // every wake-up comes late by that much, which its latency from the due time would show.
    if spec.rate_capped(0) || spec.rate_capped(1) {
        // SAFETY: prctl with integer arguments, on this thread only.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    }
    let Some(cpus) = &spec.cpus else {
        return Ok(());
    };
    let chosen: Vec<u32> = if spec.cpus_split {
        vec![cpus[clone as usize % cpus.len()]]
    } else {
        cpus.clone()
    };
    // SAFETY: a zeroed cpu_set_t is empty; CPU_SET writes inside it for CPUs below 1024.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in &chosen {
            libc::CPU_SET(c as usize, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(EngineError::Io {
            engine: workload::fio::table::names::CPUS_ALLOWED,
            what: "no CPU of the list is online here (see nproc)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}
