//! Why the tps is what it is: the directory's flush latency (a short QD1 8 KiB write +
//! fdatasync probe, the WAL's own pattern, run by `volbench fsync`'s code), the commit ceiling
//! it implies, and whether the run was bound by flushes, by CPU, or by waiting on locks.
//!
//! - flush-bound: the WAL was flushing for at least [`FLUSH_BOUND`] of the run (PostgreSQL's
//!   measured WAL sync time where `track_wal_io_timing` gives it, else flushes x the probe's
//!   mean);
//! - CPU-bound: client and server used at least [`CPU_BOUND`] of the CPU the workload could use
//!   (one core for SQLite's single writer; min(clients, cores) for PostgreSQL);
//! - for a single writer (SQLite), flush + CPU at least [`SERIAL_BUSY`]: the larger of the
//!   two;
//! - lock-bound: neither, so transactions waited on each other (row locks on the few branch
//!   rows at small scales, SQLite's one writer).

use report::Explanation;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

pub const FLUSH_BOUND: f64 = 0.5;
pub const CPU_BOUND: f64 = 0.8;
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
    let rep = durability::fsync::run(
        &o,
        stop,
        &mut |_, _, _| Box::new(runner::Silent),
        &mut |_| {},
    )?;
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
}

fn ms(ns: f64) -> String {
    figures::fmt_ns(ns)
}

pub fn explain(f: &Facts) -> Explanation {
    let secs = f.elapsed.as_secs_f64().max(1e-9);
    let ceiling = f.probe.map(|p| 1e9 / p.mean_ns.max(1.0));
    let flush_busy = f.wal_flushes.and_then(|(n, t)| match (t, f.probe) {
        (Some(t), _) => Some(t as f64 / 1e9 / secs),
        (None, Some(p)) => Some(n as f64 * p.mean_ns / 1e9 / secs),
        (None, None) => None,
    });
    let cpu_busy = f.cpu_ns as f64 / 1e9 / (secs * f.parallelism.max(1) as f64);
    let bound = match (flush_busy, cpu_busy) {
        (Some(b), _) if b >= FLUSH_BOUND => "flush",
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
        (Some(_), _) => "lock",
        _ => "unknown",
    };
    let mut parts = Vec::new();
    if let (Some(p), Some(c)) = (f.probe, ceiling) {
        parts.push(format!(
            "a QD1 8 KiB write+fdatasync takes {} (p50 {}), so one stream of commits tops out near {c:.0} tps",
            ms(p.mean_ns),
            ms(p.p50_ns as f64)
        ));
    }
    if let Some((n, _)) = f.wal_flushes {
        if f.committed > 0 {
            let per = n as f64 / f.committed as f64;
            let group = if per < 0.95 && f.clients > 1 {
                format!(
                    " (group commit: {:.1} commits per flush)",
                    1.0 / per.max(1e-9)
                )
            } else {
                String::new()
            };
            parts.push(format!(
                "{n} WAL flushes for {} commits{group}",
                f.committed
            ));
        }
    }
    if let Some(b) = flush_busy {
        parts.push(format!(
            "flushing {:.0}% of the time",
            (b * 100.0).min(100.0)
        ));
    }
    parts.push(format!(
        "CPU {:.0}% of what the workload could use",
        (cpu_busy * 100.0).min(999.0)
    ));
    let lock_words = format!(
        "lock-bound: transactions waited on each other's row locks ({} clients share {} branch row{}; pgbench advises a scale of at least the clients), not on the device",
        f.clients,
        f.scale,
        if f.scale == 1 { "" } else { "s" }
    );
    let verdict = match bound {
        "flush" => {
            "flush-bound: a device with faster flushes (or power-loss protection) raises tps"
        }
        "cpu" => "CPU-bound: the device is not the limit here",
        "lock" if f.parallelism == 1 => {
            "lock-bound: clients waited for SQLite's single writer, not for the device"
        }
        "lock" => &lock_words,
        _ => "bound unknown: no flush count or probe",
    };
    Explanation {
        flush_p50_ns: f.probe.map(|p| p.p50_ns),
        flush_mean_ns: f.probe.map(|p| p.mean_ns),
        commit_ceiling_tps: ceiling,
        wal_flushes: f.wal_flushes.map(|w| w.0),
        flush_busy,
        cpu_busy: Some(cpu_busy),
        bound: bound.into(),
        summary: format!("{:.0} tps; {}; {verdict}", f.tps, parts.join("; ")),
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
        }
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

    #[test]
    fn measured_sync_time_wins_over_the_probes_estimate() {
        let e = explain(&facts(Some((4500, Some(1_000_000_000))), 1.0));
        assert!((e.flush_busy.unwrap() - 0.1).abs() < 1e-9);
    }
}
