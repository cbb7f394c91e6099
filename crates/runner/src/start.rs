//! A job's thread from set-up to its end: fio's order of identity (user, cgroup), prerun,
//! placement and locked memory; then the engine built on this thread and the job run (the
//! I/O loop in [`crate::job`], or a job that is not I/O: file operations, cpuio, exec); then
//! postrun and exitall. The loop never sees any of this.

use crate::job::drive;
use crate::live::{JobInput, JobOutput};
use crate::placement::pin;
use engine::{EngineConfig, EngineError, SpaceOp};
use std::sync::atomic::Ordering::Relaxed;
use workload::EngineKind;

/// Runs one job on this thread: builds the engine here (io_uring rings belong to the thread that
/// made them), meets the others at the start barrier, then drives I/O to the end.
pub fn run(inp: JobInput) -> JobOutput {
    let mut out = JobOutput::default();
    let (joined, _locked) = match set_up(&inp) {
        Ok(held) => held,
        Err(e) => {
            fail(&inp, &mut out, e);
            inp.live.done.store(true, Relaxed);
            return out;
        }
    };
    run_job(&inp, &mut out);
    // fio ignores how the postrun command ends.
    if let Some(c) = inp.spec.process.exec_postrun.as_deref() {
        let _ = exec(&inp.spec.name, "postrun", c);
    }
    // fio's exitall: this job's end (or with exitall_on_error, its error) ends the others.
    let spec = &inp.spec;
    if spec.errors.exitall || (spec.errors.exitall_on_error && out.error.is_some()) {
        inp.stop.store(true, Relaxed);
    }
    // Out of the job's cgroup before the run removes it (fio moves its job out too); the
    // locked memory is held until the job's thread ends, as fio unpins at its thread's end.
    drop(joined);
    inp.live.done.store(true, Relaxed);
    out
}

/// The thread made the job's, in fio's order: the user first (its prerun runs as that
/// user), then the job's cgroup, the prerun command, the CPU placement and the locked
/// memory. What it holds is released when the job ends.
type Held = (
    Option<crate::jobgroup::Joined>,
    Option<crate::lockmem::Pinned>,
);
fn set_up(inp: &JobInput) -> Result<Held, EngineError> {
    crate::identity::become_user(&inp.spec, &inp.fds, &inp.paths)?;
    let joined = inp.cgroup.as_ref().map(crate::jobgroup::join).transpose()?;
    if let Some(c) = inp.spec.process.exec_prerun.as_deref() {
        exec(&inp.spec.name, "prerun", c)?;
    }
    pin(&inp.spec, inp.clone)?;
    let locked = crate::lockmem::Pinned::new(&inp.spec.name, inp.spec.process.lockmem)?;
    Ok((joined, locked))
}

/// The job itself: its engine built and the I/O loop driven, or a job that is not I/O run
/// beside the loop.
fn run_job(inp: &JobInput, out: &mut JobOutput) {
    let cfg = engine_config(inp);
    match inp.spec.ioengine {
        EngineKind::IoUring => match engine::IoUring::new(&cfg) {
            Ok(e) => drive(e, inp, out),
            Err(e) => fail(inp, out, e),
        },
        EngineKind::Libaio => match engine::Libaio::new(&cfg) {
            Ok(e) => drive(e, inp, out),
            Err(e) => fail(inp, out, e),
        },
        EngineKind::Psync => drive(engine::Psync::new(&cfg), inp, out),
        EngineKind::Mmap => drive(engine::Psync::mmap(&cfg), inp, out),
        EngineKind::Null => drive(engine::Null::new(&cfg), inp, out),
        EngineKind::Falloc => drive(engine::Calls::new(&cfg, SpaceOp::Falloc), inp, out),
        EngineKind::Ftruncate => drive(engine::Calls::new(&cfg, SpaceOp::Ftruncate), inp, out),
        EngineKind::E4Defrag => match defrag(inp, &cfg) {
            Ok(e) => drive(e, inp, out),
            Err(e) => fail(inp, out, e),
        },
        EngineKind::FileOp(op) => crate::fileops::drive(op, inp, out),
        EngineKind::CpuIo => crate::cpuio::drive(inp, out),
        EngineKind::Exec => crate::exec_job::drive(inp, out),
    }
}

/// What the engine is built from: the job's descriptors, depth and buffers, and its flags.
fn engine_config(inp: &JobInput) -> EngineConfig {
    let spec = &inp.spec;
    EngineConfig {
        fds: inp.fds.clone(),
        depth: spec.effective_iodepth(),
        slot_size: spec.max_bs() as usize,
        align: inp.lbs as usize,
        write_dsync: spec.engine.rwf_dsync,
        hipri: spec.engine.hipri,
        random: spec.rw.is_random(),
        sqpoll: spec
            .engine
            .sqthread_poll
            .then_some(spec.engine.sqthread_poll_cpu),
        uncached: spec.engine.uncached,
        atomic: spec.engine.atomic,
        nowait: spec.engine.nowait,
        force_async: spec.engine.force_async,
        hipri_percent: spec.engine.hipri_percent,
        direct: spec.direct,
    }
}

/// fio's exec_string: `sh -c COMMAND` with its output in `NAME.MODE.txt` in the working
/// directory; a command that cannot run or fails is the job's error.
pub(crate) fn exec(name: &str, mode: &str, cmd: &str) -> Result<(), EngineError> {
    let fail = |why: String| EngineError::Setup(format!("exec_{mode} '{cmd}': {why}"));
    let path = format!("{name}.{mode}.txt");
    let log = outfile::Opener::log(&format!("exec_{mode}'s output"))
        .open(std::path::Path::new(&path))
        .map_err(|e| fail(e.to_string()))?;
    let err = log.try_clone().map_err(|e| fail(e.to_string()))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdout(log)
        .stderr(err)
        .status()
        .map_err(|e| fail(e.to_string()))?;
    match status.success() {
        true => Ok(()),
        false => Err(fail(format!(
            "it failed ({status}); its output is in {name}.{mode}.txt"
        ))),
    }
}

/// fio's e4defrag engine over the job's file, its donor (`donorname`, in `directory` when
/// given) opened, made where missing, as fio's init does.
pub(crate) fn defrag(inp: &JobInput, cfg: &EngineConfig) -> Result<engine::Defrag, EngineError> {
    use std::os::unix::fs::OpenOptionsExt;
    let spec = &inp.spec;
    let name = spec.files.e4defrag_donor.as_deref().unwrap_or_default();
    let path = spec
        .files
        .directory
        .as_deref()
        .map_or_else(|| name.into(), |d| d.join(name));
    let donor = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .open(&path)
        .map_err(|e| {
            EngineError::Setup(format!(
                "e4defrag: cannot open the donor {}: {e}",
                path.display()
            ))
        })?;
    let region = inp.regions.first().copied().unwrap_or_default();
    engine::Donor::engine(cfg, donor.into(), spec.files.e4defrag_inplace, region)
}

/// The engine could not be built: stop the phase, but still meet the others at the start
/// line, which waits for every job.
pub(crate) fn fail(inp: &JobInput, out: &mut JobOutput, e: EngineError) {
    inp.stop.store(true, Relaxed);
    inp.start.arrive();
    out.setup_error = Some(e);
}
