//! The host's CPU time over a span (`/proc/stat`'s first line), so a result can say when
//! other processes or the hypervisor took the CPUs it needed: a database benchmark beside a
//! busy neighbour is CPU-starved, not lock- or device-bound.
//!
//! Time at a positive nice value is kept apart: a neighbour at low priority yields at once to
//! anything that wants its CPU, so it does not take CPU from the measured work, unless the
//! work is niced itself.

use std::path::Path;
use std::time::Instant;

/// CPU seconds summed over all CPUs, by kind, since boot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    /// user + system + irq + softirq at normal or raised priority.
    pub busy_s: f64,
    /// user time of niced processes.
    pub nice_s: f64,
    /// Time the hypervisor ran someone else while this guest wanted to run.
    pub steal_s: f64,
}

/// `/proc/stat`'s aggregate `cpu` line, read as [`CpuTimes`] (the kernel counts in USER_HZ,
/// 100 a second on every architecture Linux exports it on).
pub fn parse_stat(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse::<f64>().map(|t| t / 100.0))
        .collect::<Result<_, _>>()
        .ok()?;
    let at = |i: usize| f.get(i).copied().unwrap_or(0.0);
    // user nice system idle iowait irq softirq steal
    Some(CpuTimes {
        busy_s: at(0) + at(2) + at(5) + at(6),
        nice_s: at(1),
        steal_s: at(7),
    })
}

fn now() -> Option<CpuTimes> {
    parse_stat(&crate::read(Path::new("/proc/stat"), 1 << 20)?)
}

/// The host's CPUs over a span: what all of it used (normal priority), what the hypervisor
/// stole, out of how many CPU-seconds there were.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSpan {
    /// CPU time that competed with this process: at normal priority, niced time included
    /// when this process is niced too.
    pub busy_s: f64,
    pub steal_s: f64,
    /// CPUs online x the span's seconds.
    pub capacity_s: f64,
}

/// Started before the work, finished after it.
pub struct CpuWatch {
    t0: Instant,
    at0: CpuTimes,
}

impl CpuWatch {
    /// None where /proc/stat cannot be read (then nothing is said about the host's CPUs).
    pub fn start() -> Option<CpuWatch> {
        Some(CpuWatch {
            t0: Instant::now(),
            at0: now()?,
        })
    }

    pub fn finish(self) -> Option<CpuSpan> {
        let at1 = now()?;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let nice = (at1.nice_s - self.at0.nice_s).max(0.0);
        Some(CpuSpan {
            busy_s: competing((at1.busy_s - self.at0.busy_s).max(0.0), nice, own_nice()),
            steal_s: (at1.steal_s - self.at0.steal_s).max(0.0),
            capacity_s: cpus * self.t0.elapsed().as_secs_f64(),
        })
    }
}

/// This process's nice value (0 where it cannot be read).
fn own_nice() -> i32 {
    // SAFETY: getpriority reads this process's priority and touches no memory of ours.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

/// The CPU time that competed with this process: normal-priority time, and niced time too
/// when this process is niced itself, as a neighbour at its own nice value does not yield to
/// it (a trial's `nice -n 19 volbench db` beside a hog read 'lock-bound' with the host full).
/// Its own time is then in the niced time, which is why [`CpuSpan::busy_s`] holds it.
fn competing(busy_s: f64, nice_s: f64, own_nice: i32) -> f64 {
    match own_nice > 0 {
        true => busy_s + nice_s,
        false => busy_s,
    }
}

/// At or above this share of the host's CPUs busy with other work, doctor warns: latency
/// figures then hold time spent waiting for a CPU (two busy threads on two CPUs made a
/// curve's p99 rise that no device did).
const BUSY_WARN: f64 = 0.5;

/// Doctor's line on what else the host's CPUs did over its watch.
pub fn finding(span: CpuSpan) -> crate::Finding {
    let share = span.busy_s / span.capacity_s.max(1e-9);
    let steal = span.steal_s / span.capacity_s.max(1e-9);
    let what = format!(
        "the host's CPUs were {:.0}% busy with other work over the watch ({:.0}% stolen by the hypervisor)",
        (share * 100.0).min(100.0),
        steal * 100.0
    );
    match share >= BUSY_WARN || steal >= BUSY_WARN / 5.0 {
        true => crate::Finding {
            area: "cpu",
            code: "cpu_busy",
            level: crate::Level::Warn,
            what,
            consequence: "latencies then hold time waiting for a CPU, and a rate-capped job falls behind its schedule".into(),
            fix: "measure on a quiet host (see what runs: top), or read the results as this host's".into(),
        },
        false => crate::Finding::ok("cpu", "cpu_busy", what),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_host_is_a_warning_and_a_quiet_one_is_ok() {
        let span = |busy_s, steal_s| CpuSpan {
            busy_s,
            steal_s,
            capacity_s: 2.0,
        };
        let busy = finding(span(1.9, 0.0));
        assert_eq!(busy.level, crate::Level::Warn);
        assert!(busy.what.contains("95% busy"), "{}", busy.what);
        assert_eq!(finding(span(0.1, 0.0)).level, crate::Level::Ok);
        assert_eq!(finding(span(0.1, 0.3)).level, crate::Level::Warn);
    }

    #[test]
    fn niced_time_competes_only_with_a_niced_process() {
        assert_eq!(competing(3.0, 2.0, 0), 3.0);
        assert_eq!(competing(3.0, 2.0, -5), 3.0);
        assert_eq!(competing(3.0, 2.0, 19), 5.0);
    }

    #[test]
    fn the_aggregate_line_splits_into_busy_nice_and_steal() {
        let t = parse_stat(
            "cpu  1000 200 300 5000 40 5 5 60 0 0\ncpu0 500 100 150 2500 20 2 3 30 0 0\n",
        )
        .unwrap();
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            near(t.busy_s, 13.1) && near(t.nice_s, 2.0) && near(t.steal_s, 0.6),
            "{t:?}"
        );
        assert_eq!(parse_stat("intr 1 2 3\n"), None);
    }

    /// A thread spinning for 300 ms shows in the span's busy time (the kernel's own count).
    #[test]
    fn a_spinning_thread_shows_as_busy() {
        let w = CpuWatch::start().unwrap();
        let t = Instant::now();
        while t.elapsed().as_millis() < 300 {
            std::hint::black_box(0u64.wrapping_add(1));
        }
        let s = w.finish().unwrap();
        assert!(s.busy_s >= 0.2, "{s:?}");
        assert!(s.capacity_s >= 0.3, "{s:?}");
    }
}
