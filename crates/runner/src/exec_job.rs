//! fio's exec engine: a job that runs a program for its runtime (a monitor, a load
//! generator, a tool of the user's beside the I/O jobs), with fio's handling: arguments split
//! at spaces with `%r` (runtime in seconds) and `%n` (job name) expanded, output into
//! `NAME.stdout`/`NAME.stderr`, SIGTERM at the end and SIGKILL `grace_time` later. The
//! program dies with the job's thread (PR_SET_PDEATHSIG), so a killed volbench leaves no
//! program running.

use crate::live::{rusage, JobInput, JobOutput};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// The command fio would run: program and arguments split at spaces, variables expanded.
fn command(spec: &workload::JobSpec) -> Vec<String> {
    let e = &spec.engine.exec;
    let secs = spec.runtime.map_or(0, |d| d.as_secs()).to_string();
    let args = e.arguments.as_deref().unwrap_or("");
    let args = args.replace("%r", &secs).replace("%n", &spec.name);
    let line = format!("{} {args}", e.program.as_deref().unwrap_or(""));
    line.split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn start(spec: &workload::JobSpec) -> std::io::Result<Child> {
    let argv = command(spec);
    let (prog, args) = argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("no program"))?;
    let mut c = Command::new(prog);
    c.args(args).stdin(Stdio::null());
    if spec.engine.exec.std_redirect {
        let log = |ext: &str| {
            let p = std::path::PathBuf::from(format!("{}.{ext}", spec.name));
            outfile::Opener::log("std_redirect's output").open(&p)
        };
        let (out, err) = (log("stdout")?, log("stderr")?);
        c.stdout(out).stderr(err);
    }
    // SAFETY: prctl is async-signal-safe; it only sets this child's parent-death signal.
    unsafe {
        c.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            Ok(())
        });
    }
    c.spawn()
}

/// SIGTERM, up to `grace` for the program to go, then SIGKILL; reaped either way.
fn stop(child: &mut Child, grace: Duration) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    // SAFETY: kill(2) on our own child's pid, not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let t = Instant::now();
    while t.elapsed() < grace {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs the job: the program from the start line to the runtime's end (or a stop).
pub fn drive(inp: &JobInput, out: &mut JobOutput) {
    let spec = &inp.spec;
    let begin = inp.start.arrive() + crate::live::start_delay(spec, inp.clone);
    crate::pace::sleep_unless_stopped(begin.saturating_duration_since(Instant::now()), &inp.stop);
    inp.live.measuring.store(true, Relaxed);
    let (cpu0, t0) = (rusage(libc::RUSAGE_THREAD), Instant::now());
    match start(spec) {
        Ok(mut child) => {
            let end = spec.runtime.unwrap_or_default();
            while !inp.stop.load(Relaxed) && t0.elapsed() < end {
                std::thread::sleep(Duration::from_millis(50).min(end.saturating_sub(t0.elapsed())));
            }
            stop(
                &mut child,
                Duration::from_secs(u64::from(spec.engine.exec.grace_s)),
            );
        }
        Err(e) => {
            let prog = spec.engine.exec.program.as_deref().unwrap_or("");
            out.error = Some(format!("exec: cannot run {prog}: {e}"));
        }
    }
    let cpu1 = rusage(libc::RUSAGE_THREAD);
    let st = &mut out.stats;
    st.runtime_ns = t0.elapsed().as_nanos() as u64;
    (st.usr_ns, st.sys_ns) = (cpu1.0 - cpu0.0.min(cpu1.0), cpu1.1 - cpu0.1.min(cpu1.1));
    inp.live.end(std::time::Instant::now());
    out.ended_by = Some(match out.error {
        Some(_) => report::Ended::Error,
        None => report::Ended::Runtime,
    });
}
