//! Why the tps is what it is: the directory's flush latency (a short QD1 8 KiB write +
//! fdatasync probe, the WAL's own pattern, run by `volbench fsync`'s code), the commit ceiling
//! it implies, what the device's own counters saw, and whether the run was bound by the
//! device's cap, by flushes, by CPU, by a device busy all the time, or by waiting on locks.
//!
//! - IOPS- or bandwidth-bound: the device did at least [`AT_CAP`] of the write cap this
//!   process runs under on it (a cgroup's: `volbench emulate`, a container's limit). Its
//!   flushes are slow because of the cap, so this comes before flush-bound;
//! - flush-bound: the WAL was flushing for at least [`FLUSH_BOUND`] of the run (PostgreSQL's
//!   measured WAL sync time where `track_wal_io_timing` gives it, else flushes x the probe's
//!   mean);
//! - CPU-bound: client and server used at least [`CPU_BOUND`] of the CPU the workload could use
//!   (one core for SQLite's single writer; min(clients, cores) for PostgreSQL);
//! - for a single writer (SQLite), flush + CPU at least [`SERIAL_BUSY`]: the larger of the
//!   two;
//! - device-bound: the device had I/O in flight at least [`DEVICE_BUSY`] of the run;
//! - lock-bound: none of these, so transactions waited on each other (row locks on the few
//!   branch rows at small scales, SQLite's one writer).

pub use crate::device::DeviceUse;
use figures::{fmt_bytes, fmt_count};
use report::Explanation;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

pub const FLUSH_BOUND: f64 = 0.5;
/// A device doing this share of its cap is at the cap (a throttle's rate wobbles a little).
pub const AT_CAP: f64 = 0.85;
/// A device with I/O in flight this share of the run is the limit.
pub const DEVICE_BUSY: f64 = 0.9;
pub const CPU_BOUND: f64 = 0.8;
/// Other processes (and the hypervisor) taking this share of the host's CPUs, on a host busy
/// at least [`CPU_BOUND`] of its CPUs, starve the run.
pub const TAKEN: f64 = 0.25;
/// A single writer flushing and computing at least this share of the run is saturated.
pub const SERIAL_BUSY: f64 = 0.9;

/// The probe's result: median and mean of a QD1 8 KiB write + fdatasync.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub p50_ns: u64,
    pub mean_ns: f64,
}

/// One second of 8 KiB writes, each followed by fdatasync, in `dir`.
pub fn probe(dir: &Path, stop: Arc<AtomicBool>) -> anyhow::Result<Probe> {
    use durability::fsync::{Method, Options};
    let o = Options {
        targets: vec![dir.to_path_buf()],
        methods: vec![Method::Fdatasync],
        bs: vec![8192],
        threads: vec![1],
        runtime: Duration::from_secs(1),
        size: 16 << 20,
        cases: true,
        penalty: false,
        allow_destructive: false,
        command_line: Vec::new(),
    };
    let rep = durability::fsync::run(&o, stop, &mut |_, _| Box::new(runner::Silent), &mut |_| {})?;
    let c = rep
        .cases
        .first()
        .filter(|c| c.writes > 0)
        .ok_or_else(|| anyhow::anyhow!("the flush probe measured nothing"))?;
    Ok(Probe {
        p50_ns: c.lat_ns.percentile(50.0).unwrap_or(0),
        mean_ns: c.lat_ns.mean_ns,
    })
}

pub struct Facts {
    pub probe: Option<Probe>,
    pub tps: f64,
    pub committed: u64,
    pub elapsed: Duration,
    /// WAL flushes in the run, and their total time where the engine measured it.
    pub wal_flushes: Option<(u64, Option<u64>)>,
    pub cpu_ns: u64,
    pub parallelism: u32,
    pub clients: u32,
    pub scale: u32,
    /// What the device's counters saw during the run (none on tmpfs or a server's URL).
    pub device: Option<DeviceUse>,
    /// The host's CPU time over the run, where `cpu_ns` holds all of the workload's own (so
    /// the rest is other processes'): none for a server volbench did not start.
    pub host: Option<host::cpu::CpuSpan>,
}

/// Other processes' share of the host's CPUs over the run, and the hypervisor's.
#[derive(Clone, Copy, Debug)]
struct Taken {
    others: f64,
    steal: f64,
    /// The host's CPUs in use by anyone at normal priority, or stolen.
    host_busy: f64,
}

fn taken(f: &Facts) -> Option<Taken> {
    let h = f.host?;
    let cap = h.capacity_s.max(1e-9);
    Some(Taken {
        others: ((h.busy_s - f.cpu_ns as f64 / 1e9) / cap).clamp(0.0, 1.0),
        steal: (h.steal_s / cap).clamp(0.0, 1.0),
        host_busy: ((h.busy_s + h.steal_s) / cap).min(1.0),
    })
}

/// The run waited for CPUs others held: they took a large share of a host that was full.
fn starved(t: Option<Taken>) -> bool {
    t.is_some_and(|t| t.others + t.steal >= TAKEN && t.host_busy >= CPU_BOUND)
}

fn ms(ns: f64) -> String {
    figures::fmt_ns(ns)
}

/// A probe that disagrees with the run's own flushes by more than this factor was measured in
/// other conditions (other I/O on the device, or none): said, and not used for the ceiling.
const PROBE_DRIFT: f64 = 2.0;
/// With a flush per commit, a run this much over the probe's single-stream ceiling shows the
/// probe does not hold for the run.
const OVER_CEILING: f64 = 1.25;

/// What one flush took, and where that figure comes from.
enum FlushCost {
    /// The run's own: the server's WAL sync time over its syncs, measured during the run.
    Run {
        mean_ns: f64,
    },
    /// The probe before the run, which the run's own figures do not contradict.
    Probe(Probe),
    /// The probe before the run, contradicted by the run: no ceiling rests on it.
    Contradicted {
        probe: Probe,
        at_most_ns: f64,
    },
    Unknown,
}

/// The flush cost the ceiling rests on: the run's own where the server measured it, else the
/// probe's unless the run did more flushes one after another than the probe allows.
fn flush_cost(f: &Facts, secs: f64) -> FlushCost {
    match (f.wal_flushes, f.probe) {
        (Some((n, Some(t))), _) if n > 0 => FlushCost::Run {
            mean_ns: t as f64 / n as f64,
        },
        (Some((n, None)), Some(p)) if n > 0 && n as f64 >= 0.95 * f.committed as f64 => {
            // One flush per commit, serial: the run did n of them in `secs`.
            let at_most_ns = secs * 1e9 / n as f64;
            if p.mean_ns > OVER_CEILING * at_most_ns {
                FlushCost::Contradicted {
                    probe: p,
                    at_most_ns,
                }
            } else {
                FlushCost::Probe(p)
            }
        }
        (_, Some(p)) => FlushCost::Probe(p),
        _ => FlushCost::Unknown,
    }
}

/// The sentence about the flush cost and the commit ceiling it implies, with the probe's
/// figure where it differs from the run's.
fn ceiling_words(cost: &FlushCost, probe: Option<Probe>, flushes: u64) -> Option<String> {
    let ceiling = |ns: f64| 1e9 / ns.max(1.0);
    Some(match cost {
        FlushCost::Run { mean_ns } => {
            let mut s = format!(
                "the WAL's {flushes} flushes took {} each during the run, so one stream of commits tops out near {:.0} tps",
                ms(*mean_ns),
                ceiling(*mean_ns)
            );
            if let Some(p) = probe.filter(|p| {
                let r = p.mean_ns / mean_ns.max(1.0);
                !(1.0 / PROBE_DRIFT..=PROBE_DRIFT).contains(&r)
            }) {
                s += &format!(
                    " (a QD1 8 KiB write+fdatasync before the run took {}: the device's flushes changed between the two, so other I/O may have shared it)",
                    ms(p.mean_ns)
                );
            }
            s
        }
        FlushCost::Probe(p) => format!(
            "a QD1 8 KiB write+fdatasync takes {} (p50 {}), so one stream of commits tops out near {:.0} tps",
            ms(p.mean_ns),
            ms(p.p50_ns as f64),
            ceiling(p.mean_ns)
        ),
        FlushCost::Contradicted { probe, at_most_ns } => format!(
            "a QD1 8 KiB write+fdatasync took {} before the run, but the run did a flush per commit at most {} apart: the device was faster during the run than during the probe (other I/O on it then?), so no commit ceiling is given",
            ms(probe.mean_ns),
            ms(*at_most_ns)
        ),
        FlushCost::Unknown => return None,
    })
}

/// The share of the run the WAL spent flushing: the server's measured time, else the flushes
/// times the probe's mean where the probe holds.
fn flush_busy(f: &Facts, cost: &FlushCost, secs: f64) -> Option<f64> {
    let (n, t) = f.wal_flushes?;
    match (t, cost) {
        (Some(t), _) => Some(t as f64 / 1e9 / secs),
        (None, FlushCost::Probe(p)) => Some(n as f64 * p.mean_ns / 1e9 / secs),
        _ => None,
    }
}

/// The device at its write cap, by what the capped cgroup itself did: `iops` or `bandwidth`.
fn at_cap(d: &DeviceUse) -> Option<&'static str> {
    let reached = |c: &Option<crate::device::Capped>| {
        c.as_ref().is_some_and(|c| c.rate >= AT_CAP * c.cap as f64)
    };
    if reached(&d.iops_cap) {
        Some("iops")
    } else if reached(&d.bw_cap) {
        Some("bandwidth")
    } else {
        None
    }
}

fn bound(f: &Facts, flush_busy: Option<f64>, cpu_busy: f64) -> &'static str {
    if let Some(cap) = f.device.as_ref().and_then(at_cap) {
        return cap;
    }
    let busy_device = f.device.as_ref().is_some_and(|d| d.busy >= DEVICE_BUSY);
    match (flush_busy, cpu_busy) {
        (Some(b), _) if b >= FLUSH_BOUND => "flush",
        _ if starved(taken(f)) => "cpu",
        (_, c) if c >= CPU_BOUND => "cpu",
        // One writer at a time (SQLite): flushing and computing take turns, so a writer busy
        // nearly all the time is bound by whichever takes the larger share.
        (Some(b), c) if f.parallelism == 1 && b + c >= SERIAL_BUSY => {
            if b >= c {
                "flush"
            } else {
                "cpu"
            }
        }
        _ if busy_device => "device",
        (Some(_), _) => "lock",
        _ => "unknown",
    }
}

/// "2001 WAL flushes for 2000 commits (group commit: 1.5 commits per flush)".
fn flush_count_words(f: &Facts) -> Option<String> {
    let (n, _) = f.wal_flushes?;
    (f.committed > 0).then(|| {
        let per = n as f64 / f.committed as f64;
        let group = if per < 0.95 && f.clients > 1 {
            format!(
                " (group commit: {:.1} commits per flush)",
                1.0 / per.max(1e-9)
            )
        } else {
            String::new()
        };
        format!("{n} WAL flushes for {} commits{group}", f.committed)
    })
}

/// The device's side of the verdict: what its counters saw.
fn device_words(d: &DeviceUse) -> String {
    format!(
        "{} did {} writes/s in all ({}/s, its file system's journal included), I/O in flight {:.0}% of the run",
        d.name,
        fmt_count(d.writes_per_s),
        fmt_bytes(d.write_bytes_per_s),
        d.busy * 100.0
    )
}

/// Why a cgroup's own rate reads over its cap (a trial saw 341 against 300 beside a warning
/// that called any such figure impossible): a v1 throttle lends the time the cgroup sat
/// idle, here the table load's quiet moments, and a 10 s run spends it.
fn credit_words(c: &crate::device::Capped) -> &'static str {
    match c.rate > c.cap as f64 * 1.02 {
        true => "; over it on credit: the throttle lends a cgroup the time it sat idle",
        false => "",
    }
}

fn verdict_words(f: &Facts, bound: &str) -> String {
    let none = crate::device::Capped {
        cap: 0,
        rate: 0.0,
        file: String::new(),
    };
    match (bound, &f.device) {
        ("iops", Some(d)) => {
            let c = d.iops_cap.as_ref().unwrap_or(&none);
            return format!(
                "IOPS-bound: this run's writes to {} went at {} a second against its cap of {} write IOPS (set in {}{}); more IOPS raise tps, not fewer locks",
                d.name,
                fmt_count(c.rate),
                c.cap,
                c.file,
                credit_words(c)
            );
        }
        ("bandwidth", Some(d)) => {
            let c = d.bw_cap.as_ref().unwrap_or(&none);
            return format!(
                "bandwidth-bound: this run wrote {}/s to {} against its cap of {}/s (set in {}{}); more bandwidth raises tps",
                fmt_bytes(c.rate),
                d.name,
                fmt_bytes(c.cap as f64),
                c.file,
                credit_words(c)
            );
        }
        ("device", Some(d)) => {
            return format!(
                "device-bound: {} had I/O in flight all the run; a faster device raises tps",
                d.name
            )
        }
        _ => {}
    }
    match bound {
        "flush" => {
            "flush-bound: a device with faster flushes (or power-loss protection) raises tps".into()
        }
        "cpu" => match taken(f).filter(|t| starved(Some(*t))) {
            Some(t) => format!(
                "CPU-bound: other processes took {:.0}% of the host's CPUs{} during the run, not the device; on a quiet host tps would be higher",
                t.others * 100.0,
                if t.steal >= 0.01 {
                    format!(" and the hypervisor {:.0}%", t.steal * 100.0)
                } else {
                    String::new()
                }
            ),
            None => "CPU-bound: the device is not the limit here".into(),
        },
        "lock" if f.parallelism == 1 => {
            "lock-bound: clients waited for SQLite's single writer, not for the device".into()
        }
        "lock" => format!(
            "lock-bound: transactions waited on each other's row locks ({} clients share {} branch row{}; pgbench advises a scale of at least the clients), not on the device",
            f.clients,
            f.scale,
            if f.scale == 1 { "" } else { "s" }
        ),
        _ => unknown_words(f),
    }
}

/// No verdict, and why: a probe the run contradicted is not "no probe" (a new user read
/// "bound unknown: no flush count or probe" after the probe and the flush count it printed).
fn unknown_words(f: &Facts) -> String {
    match (f.probe.is_some(), f.wal_flushes.is_some()) {
        (true, true) => "bound unknown: the run's flushes were faster than the probe before it, and their own time was not measured".into(),
        (false, true) => "bound unknown: the flushes were counted but not timed, and no probe ran (--no-probe)".into(),
        _ => "bound unknown: no flush count or probe".into(),
    }
}

/// Why the run's tps is what it is. Every figure in the sentence comes from the run's own
/// conditions, or is marked as not (a probe before the run that the run contradicts).
pub fn explain(f: &Facts) -> Explanation {
    let secs = f.elapsed.as_secs_f64().max(1e-9);
    let cost = flush_cost(f, secs);
    let busy = flush_busy(f, &cost, secs);
    let cpu_busy = f.cpu_ns as f64 / 1e9 / (secs * f.parallelism.max(1) as f64);
    let bound = bound(f, busy, cpu_busy);
    let flushes = f.wal_flushes.map_or(0, |w| w.0);
    let mut parts: Vec<String> = ceiling_words(&cost, f.probe, flushes).into_iter().collect();
    parts.extend(flush_count_words(f));
    if let Some(b) = busy {
        parts.push(format!(
            "flushing {:.0}% of the time",
            (b * 100.0).min(100.0)
        ));
    }
    parts.push(format!(
        "CPU {:.0}% of what the workload could use",
        (cpu_busy * 100.0).min(999.0)
    ));
    parts.extend(taken(f).filter(|t| t.others + t.steal >= 0.05).map(|t| {
        format!(
            "other processes {:.0}% of the host's CPUs, stolen {:.0}%",
            t.others * 100.0,
            t.steal * 100.0
        )
    }));
    parts.extend(f.device.as_ref().map(device_words));
    let ceiling = match cost {
        FlushCost::Run { mean_ns } => Some(1e9 / mean_ns.max(1.0)),
        FlushCost::Probe(p) => Some(1e9 / p.mean_ns.max(1.0)),
        _ => None,
    };
    Explanation {
        flush_p50_ns: f.probe.map(|p| p.p50_ns),
        flush_mean_ns: f.probe.map(|p| p.mean_ns),
        flush_run_mean_ns: match cost {
            FlushCost::Run { mean_ns } => Some(mean_ns),
            _ => None,
        },
        commit_ceiling_tps: ceiling,
        wal_flushes: f.wal_flushes.map(|w| w.0),
        flush_busy: busy,
        cpu_busy: Some(cpu_busy),
        device_writes_per_s: f.device.as_ref().map(|d| d.writes_per_s),
        device_busy: f.device.as_ref().map(|d| d.busy),
        device_write_iops_cap: f
            .device
            .as_ref()
            .and_then(|d| d.iops_cap.as_ref().map(|c| c.cap)),
        host_cpu_others: taken(f).map(|t| t.others),
        host_cpu_steal: taken(f).map(|t| t.steal),
        bound: bound.into(),
        summary: format!(
            "{:.0} tps; {}; {}",
            f.tps,
            parts.join("; "),
            verdict_words(f, bound)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(flushes: Option<(u64, Option<u64>)>, cpu_s: f64) -> Facts {
        Facts {
            probe: Some(Probe {
                p50_ns: 2_000_000,
                mean_ns: 2_000_000.0,
            }),
            tps: 450.0,
            committed: 4500,
            elapsed: Duration::from_secs(10),
            wal_flushes: flushes,
            cpu_ns: (cpu_s * 1e9) as u64,
            parallelism: 2,
            clients: 10,
            scale: 1,
            device: None,
            host: None,
        }
    }

    /// A device doing `writes` a second, `busy` of the time, under a write cap of `cap` IOPS.
    fn device(writes: f64, busy: f64, cap: Option<u64>) -> Option<DeviceUse> {
        Some(DeviceUse {
            name: "zram0".into(),
            // The device also does the journal's writes, outside the cgroup and its cap.
            writes_per_s: writes * 2.0,
            write_bytes_per_s: writes * 8192.0,
            busy,
            iops_cap: cap.map(|c| crate::device::Capped {
                cap: c,
                rate: writes,
                file: "/sys/fs/cgroup/blkio/x/blkio.throttle.write_iops_device".into(),
            }),
            bw_cap: None,
        })
    }

    /// Regression (issue 65): SQLite at a 300 IOPS cap, its flush probe quick, its CPU idle,
    /// was judged lock-bound while the device did 289 writes a second. At the cap it is
    /// IOPS-bound, whatever the flush estimate; well under the cap the cap says nothing.
    #[test]
    fn a_device_at_its_write_cap_is_iops_bound_before_anything_else() {
        let mut f = facts(Some((660, None)), 0.3);
        f.parallelism = 1;
        f.tps = 124.0;
        f.committed = 660;
        f.probe = Some(Probe {
            p50_ns: 3_000_000,
            mean_ns: 3_300_000.0,
        });
        f.device = device(289.0, 0.2, Some(300));
        let e = explain(&f);
        assert_eq!(e.bound, "iops", "{}", e.summary);
        assert!(
            e.summary
                .contains("at 289 a second against its cap of 300 write IOPS"),
            "{}",
            e.summary
        );
        assert!(!e.summary.contains("lock-bound"), "{}", e.summary);
        assert_eq!(e.device_write_iops_cap, Some(300));
        assert!(!e.summary.contains("credit"), "{}", e.summary);
        // Over the cap is said to be the throttle's credit, not left beside "impossible".
        f.device = device(341.0, 0.2, Some(300));
        let e = explain(&f);
        assert!(
            e.summary
                .contains("at 341 a second against its cap of 300 write IOPS (set in"),
            "{}",
            e.summary
        );
        assert!(e.summary.contains("over it on credit"), "{}", e.summary);
        f.device = device(100.0, 0.2, Some(300));
        assert_eq!(explain(&f).bound, "lock");
    }

    /// No cap, but a device with I/O in flight all the time, and neither flushes nor CPU
    /// the limit: the device is.
    #[test]
    fn a_device_busy_all_the_run_is_device_bound_not_lock_bound() {
        let mut f = facts(Some((100, None)), 2.0);
        f.device = device(5000.0, 0.97, None);
        let e = explain(&f);
        assert_eq!(e.bound, "device", "{}", e.summary);
        f.device = device(5000.0, 0.3, None);
        assert_eq!(explain(&f).bound, "lock");
    }

    #[test]
    fn many_flushes_of_a_slow_device_are_flush_bound_and_the_ceiling_follows_the_probe() {
        let e = explain(&facts(Some((4500, None)), 1.0));
        assert_eq!(e.bound, "flush");
        assert!((e.commit_ceiling_tps.unwrap() - 500.0).abs() < 1e-6);
        assert!((e.flush_busy.unwrap() - 0.9).abs() < 1e-9);
    }

    #[test]
    fn busy_cpus_with_few_flushes_are_cpu_bound_and_idle_ones_lock_bound() {
        assert_eq!(explain(&facts(Some((100, None)), 18.0)).bound, "cpu");
        assert_eq!(explain(&facts(Some((100, None)), 2.0)).bound, "lock");
    }

    /// Issue 65: a neighbour at normal priority holding the CPUs makes the run CPU-bound
    /// (said with the neighbour's share), though the workload's own CPU is low and its
    /// flushes few; the same host with the CPUs free is lock-bound as before; a host whose
    /// other work was small is not called starved.
    #[test]
    fn cpus_other_processes_took_make_the_run_cpu_bound_and_say_whose() {
        let on = |busy_s: f64, steal_s: f64| {
            let mut f = facts(Some((100, None)), 2.0);
            f.host = Some(host::cpu::CpuSpan {
                busy_s,
                steal_s,
                capacity_s: 20.0,
            });
            explain(&f)
        };
        let e = on(17.0, 1.0);
        assert_eq!(e.bound, "cpu", "{}", e.summary);
        assert!(
            e.summary
                .contains("other processes took 75% of the host's CPUs and the hypervisor 5%"),
            "{}",
            e.summary
        );
        assert!((e.host_cpu_others.unwrap() - 0.75).abs() < 1e-9);
        let quiet = on(2.5, 0.0);
        assert_eq!(quiet.bound, "lock", "{}", quiet.summary);
        assert!(
            !quiet.summary.contains("other processes"),
            "{}",
            quiet.summary
        );
        // Others took a third, but half the host stood idle: not starved.
        assert_eq!(on(9.0, 0.0).bound, "lock");
    }

    /// A contradicted probe and a flush count give "unknown" with the reason, never "no
    /// flush count or probe" beside the two.
    #[test]
    fn an_unknown_bound_says_which_fact_was_missing() {
        let mut f = facts(Some((100, None)), 2.0);
        assert!(unknown_words(&f).contains("faster than the probe"));
        let probe = f.probe.take();
        assert!(unknown_words(&f).contains("not timed, and no probe ran"));
        f.probe = probe;
        f.wal_flushes = None;
        assert!(unknown_words(&f).contains("no flush count or probe"));
    }

    /// Regression (issue 41): "488 tps ... one stream of commits tops out near 249 tps ...
    /// 2001 WAL flushes for 2000 commits": a probe taken while the disk was busy. With a flush
    /// per commit, the run's own pace bounds each flush, and a probe slower than that is not
    /// the run's ceiling.
    #[test]
    fn a_probe_the_run_outpaced_gives_no_ceiling() {
        let mut f = facts(Some((2001, None)), 1.0);
        f.committed = 2000;
        f.tps = 488.0;
        f.elapsed = Duration::from_secs_f64(2000.0 / 488.0);
        f.probe = Some(Probe {
            p50_ns: 4_000_000,
            mean_ns: 4_016_000.0,
        });
        let e = explain(&f);
        assert_eq!(e.commit_ceiling_tps, None, "{}", e.summary);
        assert!(!e.summary.contains("tops out"), "{}", e.summary);
        assert!(e.summary.contains("faster during the run"), "{}", e.summary);
    }

    /// Regression (issue 41): "241 tps ... tops out near 1934 tps ... flush-bound": the
    /// server timed its own flushes during the run, and the ceiling rests on those.
    #[test]
    fn the_runs_own_flush_time_sets_the_ceiling() {
        let mut f = facts(Some((2410, Some(9_600_000_000))), 1.0);
        f.tps = 241.0;
        f.committed = 2410;
        f.probe = Some(Probe {
            p50_ns: 500_000,
            mean_ns: 517_000.0,
        });
        let e = explain(&f);
        let c = e.commit_ceiling_tps.unwrap();
        assert!((c - 2410.0 / 9.6).abs() < 1.0, "{c}: {}", e.summary);
        assert!(
            c >= f.tps,
            "a ceiling below the run's own tps: {}",
            e.summary
        );
        assert_eq!(e.bound, "flush");
        assert!(e.summary.contains("before the run took"), "{}", e.summary);
    }

    #[test]
    fn measured_sync_time_wins_over_the_probes_estimate() {
        let e = explain(&facts(Some((4500, Some(1_000_000_000))), 1.0));
        assert!((e.flush_busy.unwrap() - 0.1).abs() < 1e-9);
    }
}
