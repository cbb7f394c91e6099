//! What the clients measure, whichever engine they drive: each client's latencies, commits
//! per second, failures and retries ([`Measured`]), how long each runs ([`Size`]), and the
//! thread-per-client way of driving them ([`threads`], SQLite's). Both engines' client loops
//! use these, and `run` merges what they return into a report.

use crate::tpcb::Tx;
use crate::Session;
use rand::SeedableRng;
use runner::board::Tally;
use stats::LatHist;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a run asks of the clients: how many, on how many threads, over how many branches,
/// for how long.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    pub clients: u32,
    /// Threads the clients are spread over (pgbench -j; PostgreSQL's loop only, SQLite runs a
    /// thread per client).
    pub jobs: u32,
    pub scale: u32,
    pub size: Size,
}

/// How long each client runs: a number of transactions (pgbench -t) or a time (-T).
#[derive(Clone, Copy, Debug)]
pub enum Size {
    Transactions(u64),
    Time(Duration),
}

/// What the clients measured; one per client, merged into one for the run.
pub struct Measured {
    pub hist: LatHist,
    pub per_sec: Vec<u64>,
    pub committed: u64,
    pub failed: u64,
    pub retried: u64,
    pub elapsed: Duration,
    pub client_cpu_ns: u64,
    pub error: Option<String>,
    /// Where a client counts its transactions for live watchers (`--metrics-listen`, `--live`).
    tally: Option<Arc<Tally>>,
}

/// The current run's tally, when the live board is on: each client takes it as it starts.
static TALLY: Mutex<Option<Arc<Tally>>> = Mutex::new(None);

/// Puts the run of `job` on the live board (if a command turned it on) while the guard lives:
/// it is taken off when the clients have ended, whether they succeeded or not.
pub fn watch(job: &str) -> Watched {
    *TALLY.lock().unwrap_or_else(|p| p.into_inner()) =
        runner::board::tally(job, runner::board::Unit::Tx).map(Arc::new);
    Watched
}

pub struct Watched;

impl Drop for Watched {
    fn drop(&mut self) {
        TALLY.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// Most attempts of one transaction before it counts as failed.
pub const MAX_TRIES: u32 = 10;

/// Transactions committed so far in the current run, for a live progress display (reset as
/// each target's clients start). One relaxed add per transaction: nothing next to a commit.
pub static LIVE_COMMITS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Measured {
    pub fn new() -> Measured {
        let mut hist = LatHist::new();
        hist.prepare();
        Measured {
            hist,
            per_sec: Vec::new(),
            committed: 0,
            failed: 0,
            retried: 0,
            elapsed: Duration::ZERO,
            client_cpu_ns: 0,
            error: None,
            tally: None,
        }
    }

    /// A client's: it counts on the live board too, if the run is on it.
    pub fn for_client() -> Measured {
        Measured {
            tally: TALLY.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            ..Measured::new()
        }
    }

    /// True when this client has done its share (or the run was stopped).
    pub fn finished(&self, size: Size, start: Instant, stop: &AtomicBool) -> bool {
        stop.load(Relaxed)
            || match size {
                Size::Transactions(n) => self.committed + self.failed >= n,
                Size::Time(d) => start.elapsed() >= d,
            }
    }

    /// Accounts one transaction's outcome (after its retries); false when the client must
    /// stop, as pgbench stops a client at an error it cannot retry.
    pub fn outcome(
        &mut self,
        client: u64,
        r: Result<(), crate::TxError>,
        t0: Instant,
        start: Instant,
    ) -> bool {
        match r {
            Ok(()) => {
                let ns = t0.elapsed().as_nanos() as u64;
                self.hist.record(ns);
                if let Some(t) = &self.tally {
                    t.count(0, 0, ns);
                }
                self.committed += 1;
                LIVE_COMMITS.fetch_add(1, Relaxed);
                let sec = start.elapsed().as_secs() as usize;
                if self.per_sec.len() <= sec {
                    self.per_sec.resize(sec + 1, 0);
                }
                self.per_sec[sec] += 1;
                true
            }
            Err(e) => {
                self.failed += 1;
                if let Some(t) = &self.tally {
                    t.fail();
                }
                if e.retryable {
                    return true;
                }
                self.error = Some(format!("client {client}: {}", e.message));
                false
            }
        }
    }

    pub fn merge(&mut self, m: Measured) {
        self.hist.merge(&m.hist);
        if self.per_sec.len() < m.per_sec.len() {
            self.per_sec.resize(m.per_sec.len(), 0);
        }
        for (a, b) in self.per_sec.iter_mut().zip(&m.per_sec) {
            *a += b;
        }
        self.committed += m.committed;
        self.failed += m.failed;
        self.retried += m.retried;
        if self.error.is_none() {
            self.error = m.error;
        }
    }
}

impl Default for Measured {
    fn default() -> Self {
        Measured::new()
    }
}

/// One thread per client, each with its own session from `session`: connects them all, then
/// starts the clock and sets `elapsed`.
pub fn threads(
    clients: u32,
    scale: u32,
    size: Size,
    stop: &AtomicBool,
    session: impl Fn() -> anyhow::Result<Box<dyn Session>>,
) -> anyhow::Result<Measured> {
    let sessions = (0..clients)
        .map(|_| session())
        .collect::<anyhow::Result<Vec<_>>>()?;
    let start = Instant::now();
    let total = Mutex::new(Measured::new());
    std::thread::scope(|s| {
        for (i, sess) in sessions.into_iter().enumerate() {
            let total = &total;
            s.spawn(move || {
                let m = client(sess, size, scale, i as u64, start, stop);
                total.lock().unwrap_or_else(|p| p.into_inner()).merge(m);
            });
        }
    });
    let mut t = total.into_inner().unwrap_or_else(|p| p.into_inner());
    t.elapsed = start.elapsed();
    Ok(t)
}

fn client(
    mut s: Box<dyn Session>,
    size: Size,
    scale: u32,
    i: u64,
    start: Instant,
    stop: &AtomicBool,
) -> Measured {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x7bcb_0000 + i);
    let mut m = Measured::for_client();
    while !m.finished(size, start, stop) {
        let tx = Tx::random(scale, &mut rng);
        let t0 = Instant::now();
        let mut tries = 0;
        let r = loop {
            tries += 1;
            match s.transaction(&tx) {
                Err(e) if e.retryable && tries < MAX_TRIES => m.retried += 1,
                r => break r.map(|_| ()),
            }
        };
        if !m.outcome(i, r, t0, start) {
            break;
        }
    }
    m
}
