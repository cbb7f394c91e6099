//! The driver: for each target, set up the engine, load, probe the flush latency, run the
//! clients the engine's way (`measure`), check the TPC-B invariant, explain.

use crate::measure::{Measured, Size, LIVE_COMMITS};
use crate::{explain, pg, sqlite, Backend};
use report::{DbReport, DbRun, Explanation, Status, Tool, SCHEMA_VERSION};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
pub struct DbOptions {
    pub targets: Vec<PathBuf>,
    pub engine: EngineKind,
    pub postgres_url: Option<String>,
    pub scale: u32,
    pub clients: u32,
    /// Threads for PostgreSQL's clients (pgbench -j), 1..=clients.
    pub jobs: u32,
    pub size: Size,
    /// SQLite's `PRAGMA synchronous` (FULL by default).
    pub sqlite_synchronous: String,
    /// Measure each directory's flush latency first (the explanation needs it).
    pub probe: bool,
    pub command_line: Vec<String>,
}

/// Called as each phase of a target starts: (target, "load" | "probe" | "run").
pub type Phase<'a> = dyn FnMut(&str, &str) + 'a;

pub fn run(
    o: &DbOptions,
    stop: Arc<AtomicBool>,
    phase: &mut Phase<'_>,
) -> anyhow::Result<DbReport> {
    let mut rep = empty_report(o);
    let targets: Vec<Option<PathBuf>> = match &o.postgres_url {
        Some(_) => vec![None],
        None => o.targets.iter().cloned().map(Some).collect(),
    };
    for t in targets {
        if stop.load(Relaxed) {
            break;
        }
        let run = one_target(o, t.as_ref(), &stop, phase, &mut rep)?;
        if run.status != Status::Complete && rep.status == Status::Complete {
            rep.status = run.status;
            rep.error = run.error.clone();
        }
        rep.runs.push(run);
    }
    if stop.load(Relaxed) {
        rep.status = Status::Interrupted;
    }
    if let [r] = rep.runs.as_slice() {
        rep.tps = Some(r.tps);
        rep.transactions = Some(r.transactions);
        rep.failed = Some(r.failed);
        rep.latency_ns = Some(r.latency_ns.clone());
    }
    Ok(rep)
}

/// The report before any target has run: what was asked, where.
fn empty_report(o: &DbOptions) -> DbReport {
    let (started_at, started_unix) = report::started(SystemTime::now());
    DbReport {
        schema_version: SCHEMA_VERSION,
        tool: Tool::volbench(),
        started_at,
        started_unix,
        command_line: o.command_line.clone(),
        status: Status::Complete,
        error: None,
        engine: match o.engine {
            EngineKind::Sqlite => "sqlite".into(),
            EngineKind::Postgres => "postgres".into(),
        },
        scale: o.scale,
        clients: o.clients,
        jobs: (o.engine == EngineKind::Postgres).then_some(o.jobs),
        transactions_per_client: match o.size {
            Size::Transactions(n) => Some(n),
            Size::Time(_) => None,
        },
        time_s: match o.size {
            Size::Time(d) => Some(d.as_secs_f64()),
            Size::Transactions(_) => None,
        },
        environment: runner::probe::environment(),
        tps: None,
        transactions: None,
        failed: None,
        latency_ns: None,
        runs: Vec::new(),
        warnings: Vec::new(),
    }
}

fn one_target(
    o: &DbOptions,
    dir: Option<&PathBuf>,
    stop: &Arc<AtomicBool>,
    phase: &mut Phase<'_>,
    rep: &mut DbReport,
) -> anyhow::Result<DbRun> {
    let name = target_name(o, dir)?;
    phase(&name, "load");
    let t0 = Instant::now();
    let (backend, scale) = open_backend(o, dir, stop, rep)?;
    // Stopped while loading: nothing was measured, and a run of nothing is not a result.
    anyhow::ensure!(!stop.load(Relaxed), "stopped during set-up");
    let load_ns = t0.elapsed().as_nanos() as u64;
    let probe = match (o.probe, dir) {
        (true, Some(d)) if !stop.load(Relaxed) => {
            phase(&name, "probe");
            explain::probe(d, stop.clone()).ok()
        }
        _ => None,
    };
    let sums_before = backend.check()?;
    // The load, the flush probe and the check just did I/O: a throttle's slice or a cloud
    // volume's bucket remembers it and would grant the run credit it never earned (issue 53).
    // The run starts after the idle every runner window starts after.
    std::thread::sleep(runner::settle::SETTLE);
    phase(&name, "run");
    let before = (backend.wal_flushes(), backend.server_cpu_ns());
    let device = dir.and_then(|d| crate::device::watch(d));
    let watched = crate::measure::watch(&format!("db {name}"));
    let cpu = host::cpu::CpuWatch::start();
    let m = drive(backend.as_ref(), o, scale, stop);
    let cpu = cpu.and_then(host::cpu::CpuWatch::finish);
    // Read before the check below, whose reads are not the run's.
    let device = device.and_then(crate::device::Watch::finish);
    drop(watched);
    let m = m?;
    let started = SystemTime::now() - m.elapsed;
    let after = (backend.wal_flushes(), backend.server_cpu_ns());
    // The invariant and the row count are checked on every run: a wrong number is worse than none.
    crate::tpcb::check_run(sums_before, backend.check()?, m.committed)?;
    let mut run = db_run(name, backend.as_ref(), &m, (started, load_ns));
    let server_cpu = before.1.zip(after.1).map(|(a, b)| b.saturating_sub(a));
    run.explanation = explain::explain(&explain::Facts {
        probe,
        tps: run.tps,
        committed: m.committed,
        elapsed: m.elapsed,
        wal_flushes: wal_flushes(backend.as_ref(), o, before.0, after.0, m.committed),
        cpu_ns: m.client_cpu_ns + server_cpu.unwrap_or(0),
        parallelism: if backend.name() == "sqlite" {
            1
        } else {
            o.clients.min(cpus())
        },
        clients: o.clients,
        scale,
        device,
        // The rest of the host's CPU time is other processes' only where all of the
        // workload's own is counted: in this process, or in a cluster volbench started.
        host: cpu.filter(|_| backend.name() == "sqlite" || server_cpu.is_some()),
    });
    Ok(run)
}

/// The target as the report names it: its directory, or its URL without the password.
fn target_name(o: &DbOptions, dir: Option<&PathBuf>) -> anyhow::Result<String> {
    match (dir, &o.postgres_url) {
        (Some(d), _) => {
            anyhow::ensure!(
                d.is_dir(),
                "{}: not a directory: give existing directories (volbench makes its database inside)",
                d.display()
            );
            Ok(d.display().to_string())
        }
        (None, Some(u)) => Ok(pg::redact(u)),
        (None, None) => unreachable!("a target is a directory or a URL"),
    }
}

/// The run's figures, before its explanation.
fn db_run(
    target: String,
    backend: &dyn Backend,
    m: &Measured,
    (started, load_ns): (SystemTime, u64),
) -> DbRun {
    DbRun {
        target,
        engine: backend.name().into(),
        engine_version: backend.version(),
        status: if m.error.is_some() {
            Status::Partial
        } else {
            Status::Complete
        },
        error: m.error.clone(),
        transactions: m.committed,
        failed: m.failed,
        retried: m.retried,
        tps: m.committed as f64 / m.elapsed.as_secs_f64().max(1e-9),
        latency_ns: m.hist.summary(),
        tps_per_sec: m.per_sec.iter().map(|&n| n as f64).collect(),
        started_unix_ms: started
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        elapsed_ns: m.elapsed.as_nanos() as u64,
        load_ns,
        explanation: Explanation::default(),
    }
}

/// The database to run on, loaded: SQLite in the directory, a throwaway PostgreSQL there, or
/// the server of `--postgres-url` (whose tables' scale wins over `--scale`, with a warning).
fn open_backend(
    o: &DbOptions,
    dir: Option<&PathBuf>,
    stop: &Arc<AtomicBool>,
    rep: &mut DbReport,
) -> anyhow::Result<(Box<dyn Backend>, u32)> {
    let (backend, scale): (Box<dyn Backend>, u32) = match (o.engine, dir, &o.postgres_url) {
        (EngineKind::Sqlite, Some(d), _) => (
            Box::new(sqlite::Sqlite::create(
                d,
                o.scale,
                &o.sqlite_synchronous,
                stop,
            )?),
            o.scale,
        ),
        (EngineKind::Postgres, _, Some(u)) => {
            let (p, s) = pg::Postgres::existing(u, o.scale)?;
            (Box::new(p), s)
        }
        (EngineKind::Postgres, Some(d), None) => {
            (Box::new(pg::Postgres::throwaway(d, o.scale)?), o.scale)
        }
        _ => anyhow::bail!("--postgres-url names a PostgreSQL server: drop --engine sqlite"),
    };
    if scale != o.scale {
        rep.scale = scale;
        rep.warnings.push(report::WarningRecord {
            code: "scale_from_server".into(),
            message: format!("the server's pgbench tables are at scale {scale}; --scale {} was not applied (volbench never drops tables it did not create)", o.scale),
        });
    }
    Ok((backend, scale))
}

/// The WAL flushes of the run (and their time, where the server says), from the server's
/// counters; SQLite in WAL mode syncs the WAL once per commit at synchronous=FULL or EXTRA.
fn wal_flushes(
    backend: &dyn Backend,
    o: &DbOptions,
    before: Option<(u64, Option<u64>)>,
    after: Option<(u64, Option<u64>)>,
    committed: u64,
) -> Option<(u64, Option<u64>)> {
    match (before, after) {
        (Some((a, at)), Some((b, bt))) => {
            Some((b - a, at.zip(bt).map(|(x, y)| y.saturating_sub(x))))
        }
        _ if backend.name() == "sqlite"
            && matches!(
                o.sqlite_synchronous.to_uppercase().as_str(),
                "FULL" | "EXTRA" | "2" | "3"
            ) =>
        {
            Some((committed, None))
        }
        _ => None,
    }
}

fn cpus() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// Runs the clients the back end's way, then fixes the run's CPU and whole seconds.
fn drive(
    b: &dyn Backend,
    o: &DbOptions,
    scale: u32,
    stop: &AtomicBool,
) -> anyhow::Result<Measured> {
    LIVE_COMMITS.store(0, Relaxed);
    let cpu0 = process_cpu_ns();
    // Each way of driving the clients connects them all first, then starts the clock and
    // sets `elapsed` (pgbench's tps "without initial connection time").
    let load = crate::measure::Load {
        clients: o.clients,
        jobs: o.jobs,
        scale,
        size: o.size,
    };
    let mut t = b.drive(load, stop)?;
    t.client_cpu_ns = process_cpu_ns().saturating_sub(cpu0);
    // A last, partial second would read as a drop in tps: keep whole seconds only.
    let whole = t.elapsed.as_secs() as usize;
    t.per_sec.truncate(whole.max(1).min(t.per_sec.len()));
    Ok(t)
}

fn process_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into `ts`, a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
