//! Where a job's thread runs and at what I/O priority: fio's `cpus_allowed`,
//! `cpus_allowed_policy` and `prioclass`/`prio`, applied by the thread itself before it
//! builds its engine.

use engine::EngineError;
use workload::fio::table::names;
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
    if let Some((class, level)) = spec.process.ioprio {
        set_ioprio(class, level)?;
    }
    // SAFETY: setpriority on this thread's id (a thread is a process to it on Linux).
    if spec.process.nice != 0
        && unsafe {
            libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as u32, spec.process.nice)
        } != 0
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
    if let Some(m) = &spec.process.numa_mem {
        set_mempolicy(m)?;
    }
    if let Some(nodes) = &spec.process.numa_cpu_nodes {
        let cpus = node_cpus(nodes)?;
        return set_affinity(&cpus, "the NUMA nodes' CPUs were refused");
    }
    let Some(cpus) = &spec.process.cpus else {
        return Ok(());
    };
    let chosen: Vec<u32> = if spec.process.cpus_split {
        vec![cpus[clone as usize % cpus.len()]]
    } else {
        cpus.clone()
    };
    set_affinity(&chosen, "no CPU of the list is online here (see nproc)")
}

/// Runs this thread on `cpus` only.
fn set_affinity(cpus: &[u32], what: &'static str) -> Result<(), EngineError> {
    // SAFETY: a zeroed cpu_set_t is empty; CPU_SET writes inside it for CPUs below 1024.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|c| **c < 1024) {
            libc::CPU_SET(c as usize, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(EngineError::Io {
            engine: workload::fio::table::names::CPUS_ALLOWED,
            what,
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// The CPUs of NUMA nodes `nodes` (all online nodes when empty), from sysfs.
fn node_cpus(nodes: &[u32]) -> Result<Vec<u32>, EngineError> {
    let root = std::path::Path::new("/sys/devices/system/node");
    let online = std::fs::read_to_string(root.join("online")).unwrap_or_else(|_| "0".into());
    let wanted = if nodes.is_empty() {
        ranges(&online)
    } else {
        nodes.to_vec()
    };
    let mut cpus = Vec::new();
    for n in wanted {
        let list = std::fs::read_to_string(root.join(format!("node{n}/cpulist")));
        let Ok(list) = list else {
            return Err(EngineError::Io {
                engine: names::NUMA_CPU_NODES,
                what: "no such NUMA node here (see /sys/devices/system/node/online)",
                source: std::io::Error::from_raw_os_error(libc::ENOENT),
            });
        };
        cpus.extend(ranges(&list));
    }
    Ok(cpus)
}

/// A kernel list (`0-3,8`) as numbers.
fn ranges(list: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
            out.extend(a..=b);
        }
    }
    out
}

/// set_mempolicy(2) for this thread: the mode and a node mask of 1024 bits.
fn set_mempolicy(m: &workload::spec::NumaMem) -> Result<(), EngineError> {
    let mut mask = [0u64; 16];
    for &n in m.nodes.iter().filter(|n| **n < 1024) {
        mask[n as usize / 64] |= 1 << (n % 64);
    }
    let (ptr, maxnode) = if m.nodes.is_empty() {
        (std::ptr::null(), 0)
    } else {
        (mask.as_ptr(), 1024 + 1)
    };
    // SAFETY: the mask outlives the call and holds maxnode - 1 bits.
    let rc = unsafe { libc::syscall(libc::SYS_set_mempolicy, m.mode as i64, ptr, maxnode as u64) };
    if rc != 0 {
        return Err(EngineError::Io {
            engine: names::NUMA_MEM_POLICY,
            what: "the memory policy was refused (a node that is not online?)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}
