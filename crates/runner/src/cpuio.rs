//! fio's cpuio engine: a job that does no I/O and keeps `cpuload` percent of one CPU busy,
//! the load beside I/O jobs that shows how a busy host changes their figures. Each cycle
//! works `cpuchunks` µs (a spin, or fio's four sorts of 256 Ki integers, whose own time then
//! becomes the chunk) and sleeps `chunk · (100 − load) / load` µs, as fio's engine and
//! thinktime do.

use crate::live::{rusage, JobInput, JobOutput};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// fio's qsort mode: 256 Ki 32-bit integers from its multiply-with-carry generator.
fn qsort_data() -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..256 * 1024)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

/// One cycle's work: fio's four sorts (up, down, by byte, down again).
fn sorts(data: &mut [i32]) {
    data.sort_unstable();
    data.sort_unstable_by(|a, b| b.cmp(a));
    // SAFETY: the same memory viewed as bytes; i32 has no invalid bit patterns.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), data.len() * 4) };
    bytes.sort_unstable();
    data.sort_unstable_by(|a, b| b.cmp(a));
}

/// Runs the job until its runtime, a stop, or (exit_on_io_done) the end of the phase's I/O
/// jobs; its CPU time is the job's figure.
pub fn drive(inp: &JobInput, out: &mut JobOutput) {
    let spec = &inp.spec;
    let c = spec.engine.cpuio;
    let load = u64::from(c.load.clamp(1, 100));
    let mut data = if c.qsort { qsort_data() } else { Vec::new() };
    let start = inp.start.arrive() + crate::live::start_delay(spec, inp.clone);
    crate::pace::sleep_unless_stopped(start.saturating_duration_since(Instant::now()), &inp.stop);
    inp.live.measuring.store(true, Relaxed);
    let (cpu0, t0) = (rusage(libc::RUSAGE_THREAD), Instant::now());
    let deadline = spec.runtime;
    let io_done = || c.exit_on_io_done && inp.waitees.iter().all(|l| l.done.load(Relaxed));
    let mut chunk = Duration::from_micros(u64::from(c.chunk_us));
    while !inp.stop.load(Relaxed) && deadline.is_none_or(|d| t0.elapsed() < d) && !io_done() {
        let w = Instant::now();
        if c.qsort {
            sorts(&mut data);
            chunk = w.elapsed();
        } else {
            while w.elapsed() < chunk {
                std::hint::spin_loop();
            }
        }
        let rest = chunk * (100 - load) as u32 / load as u32;
        let rest = deadline.map_or(rest, |d| rest.min(d.saturating_sub(t0.elapsed())));
        crate::pace::sleep_unless_stopped(rest, &inp.stop);
    }
    let cpu1 = rusage(libc::RUSAGE_THREAD);
    let st = &mut out.stats;
    st.runtime_ns = t0.elapsed().as_nanos() as u64;
    (st.usr_ns, st.sys_ns) = (cpu1.0 - cpu0.0.min(cpu1.0), cpu1.1 - cpu0.1.min(cpu1.1));
    st.ctx = cpu1.2.saturating_sub(cpu0.2);
    inp.live.end(std::time::Instant::now());
    out.ended_by = Some(report::Ended::Runtime);
}
