//! The live board: what a scraper (`--metrics-listen`), the live view (`--live`,
//! `--status-interval`) and the interval log (`--interval-log`) read while runs go on.
//!
//! One per process, off until a command asks for it, so a run nobody watches pays nothing.
//! The runner puts each phase's jobs on the board when they start and folds their final
//! figures in when they end: counters only grow over a whole sweep or curve, as a scraper's
//! `rate()` needs. A scrape reads the jobs' own live counters, so it is as fresh as the
//! jobs' last turn, not the sampler's last tick.

use crate::live::Live;
use serde::{Deserialize, Serialize};
use stats::live::BUCKETS;
use stats::Sample;
use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

static BOARD: OnceLock<Board> = OnceLock::new();
/// Interval records kept for a logger that has fallen behind; older ones are dropped (and
/// counted) rather than letting a day-long run grow.
const MAX_RECORDS: usize = 100_000;

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Started, before its first I/O: laying out, opening, waiting at the start line.
    Start,
    Ramp,
    Measure,
    Drain,
    Verify,
    #[default]
    Idle,
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::Start,
        Stage::Ramp,
        Stage::Measure,
        Stage::Drain,
        Stage::Verify,
        Stage::Idle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Start => "start",
            Stage::Ramp => "ramp",
            Stage::Measure => "measure",
            Stage::Drain => "drain",
            Stage::Verify => "verify",
            Stage::Idle => "idle",
        }
    }

    fn of(l: &Live) -> Stage {
        if l.done.load(Relaxed) {
            Stage::Idle
        } else if l.ended.load(Relaxed) {
            Stage::Verify
        } else if l.closed.load(Relaxed) {
            Stage::Drain
        } else if l.measuring.load(Relaxed) {
            Stage::Measure
        } else if l.ramping.load(Relaxed) {
            Stage::Ramp
        } else {
            Stage::Start
        }
    }
}

/// What a job on the board counts: I/Os, or a database run's transactions (`ios[0]` then
/// counts commits, `errors` failed transactions, and the latency is the transaction's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Io,
    Tx,
}

/// One job's figures since the process started (all its clones, every run of it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub ios: [u64; 2],
    pub bytes: [u64; 2],
    pub errors: u64,
    /// I/Os in flight now.
    pub inflight: u64,
    /// Latency counts per bucket (`stats::live`), reads then writes; empty: none yet.
    pub buckets: [Vec<u64>; 2],
    pub lat_sum_ns: [u64; 2],
    pub stage: Stage,
}

impl Figures {
    fn add_live(&mut self, l: &Live) {
        for d in 0..2 {
            self.ios[d] += l.ios[d].load(Relaxed);
            self.bytes[d] += l.bytes[d].load(Relaxed);
            let (counts, sum) = l.hist[d].snapshot();
            if counts.iter().any(|&c| c > 0) {
                let b = &mut self.buckets[d];
                b.resize(BUCKETS + 1, 0);
                b.iter_mut().zip(counts).for_each(|(a, c)| *a += c);
            }
            self.lat_sum_ns[d] += sum;
        }
        self.errors += l.errors.load(Relaxed);
    }
}

/// One job's figures on one host.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobFigures {
    pub host: String,
    pub job: String,
    #[serde(default)]
    pub unit: Unit,
    pub figures: Figures,
}

/// One job's interval, as the interval log writes it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub host: String,
    pub job: String,
    pub clone: u32,
    /// Unix time of the interval's end, ms.
    pub unix_ms: u64,
    pub sample: Sample,
}

/// A job on the board: what its finished runs did, and its running clones.
struct Entry {
    job: String,
    unit: Unit,
    done: Figures,
    lives: Vec<Arc<Live>>,
}

#[derive(Default)]
struct State {
    host: String,
    /// The run's identity: (label, value) pairs for the info metric.
    info: Vec<(String, String)>,
    jobs: Vec<Entry>,
    /// Other hosts' figures (an MPI run's ranks), as rank 0 last heard them.
    remote: Vec<JobFigures>,
    records: Option<VecDeque<Record>>,
    dropped: u64,
}

pub struct Board {
    state: Mutex<State>,
}

/// Turns the board on (once per process); commands that serve or show it call this first.
pub fn enable() -> &'static Board {
    BOARD.get_or_init(|| Board {
        state: Mutex::new(State {
            host: crate::probe::hostname(),
            ..State::default()
        }),
    })
}

/// The board, if a command turned it on.
pub fn get() -> Option<&'static Board> {
    BOARD.get()
}

impl Board {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps interval records for a logger to take (off by default: nobody reads them).
    pub fn keep_records(&self) {
        self.lock().records.get_or_insert_with(VecDeque::new);
    }

    /// Sets one label of the run's identity (workload, label, store id, command).
    pub fn set_info(&self, key: &str, value: &str) {
        let mut s = self.lock();
        s.info.retain(|(k, _)| k != key);
        s.info.push((key.to_string(), value.to_string()));
    }

    /// Names this process's host on the board (an MPI rank's name for itself).
    pub fn set_host(&self, host: &str) {
        self.lock().host = host.to_string();
    }

    pub fn info(&self) -> Vec<(String, String)> {
        self.lock().info.clone()
    }

    /// A phase's jobs start: `jobs` are (name, live) in start order.
    pub(crate) fn join(&self, jobs: &[(&str, Arc<Live>)]) {
        for (name, live) in jobs {
            self.join_as(name, Unit::Io, live.clone());
        }
    }

    fn join_as(&self, name: &str, unit: Unit, live: Arc<Live>) {
        let mut s = self.lock();
        let e = match s.jobs.iter().position(|e| e.job == name && e.unit == unit) {
            Some(i) => &mut s.jobs[i],
            None => {
                s.jobs.push(Entry {
                    job: name.to_string(),
                    unit,
                    done: Figures::default(),
                    lives: Vec::new(),
                });
                s.jobs.last_mut().expect("just pushed")
            }
        };
        e.lives.push(live);
    }

    /// A phase's jobs have ended: their last figures join what the board keeps.
    pub(crate) fn leave(&self, lives: &[Arc<Live>]) {
        let mut s = self.lock();
        for e in s.jobs.iter_mut() {
            let (gone, stay): (Vec<_>, Vec<_>) = std::mem::take(&mut e.lives)
                .into_iter()
                .partition(|l| lives.iter().any(|x| Arc::ptr_eq(x, l)));
            gone.iter().for_each(|l| e.done.add_live(l));
            e.lives = stay;
        }
    }

    /// Every job's figures now: this host's, then the other hosts' last heard.
    pub fn snapshot(&self) -> Vec<JobFigures> {
        let mut out = self.local();
        out.extend(self.lock().remote.iter().cloned());
        out
    }

    /// This host's jobs' figures now.
    pub fn local(&self) -> Vec<JobFigures> {
        let s = self.lock();
        let figures = |e: &Entry| {
            let mut f = e.done.clone();
            e.lives.iter().for_each(|l| f.add_live(l));
            f.inflight = e.lives.iter().map(|l| l.inflight.load(Relaxed)).sum();
            // The least advanced clone's stage: a job is measuring while any clone is.
            f.stage = e
                .lives
                .iter()
                .map(|l| Stage::of(l))
                .min_by_key(|st| *st as u8)
                .unwrap_or(Stage::Idle);
            f
        };
        s.jobs
            .iter()
            .map(|e| JobFigures {
                host: s.host.clone(),
                job: e.job.clone(),
                unit: e.unit,
                figures: figures(e),
            })
            .collect()
    }

    /// Other hosts' figures, as rank 0 hears them.
    pub fn set_remote(&self, host_figures: Vec<JobFigures>) {
        let mut s = self.lock();
        let hosts: Vec<String> = host_figures.iter().map(|j| j.host.clone()).collect();
        s.remote.retain(|j| !hosts.contains(&j.host));
        s.remote.extend(host_figures);
    }

    /// An interval of a job's clone, for the interval log (if one is kept).
    pub(crate) fn record(&self, mut r: Record) {
        let mut s = self.lock();
        if r.host.is_empty() {
            r.host = s.host.clone();
        }
        let Some(q) = s.records.as_mut() else { return };
        q.push_back(r);
        if q.len() > MAX_RECORDS {
            q.pop_front();
            s.dropped += 1;
        }
    }

    /// The records made since the last call, and how many were dropped unread.
    pub fn take_records(&self) -> (Vec<Record>, u64) {
        let mut s = self.lock();
        let dropped = std::mem::take(&mut s.dropped);
        let recs = s.records.as_mut().map(|q| q.drain(..).collect());
        (recs.unwrap_or_default(), dropped)
    }
}

/// Work counted on the board by a command that does its own I/O or transactions (`db`'s
/// clients, `durability create`'s writers) as each ends; it leaves the board when the last
/// holder drops it.
pub struct Tally {
    live: Arc<Live>,
}

/// A tally for `job`, counted in `unit`s, if a command turned the board on (None: nobody
/// watches, and the callers count nothing more).
pub fn tally(job: &str, unit: Unit) -> Option<Tally> {
    let board = get()?;
    let live = Arc::new(Live::default());
    live.measuring.store(true, Relaxed);
    board.join_as(job, unit, live.clone());
    Some(Tally { live })
}

impl Tally {
    /// One I/O of direction `dir` (0 read, 1 write; a transaction is a read's place) of
    /// `bytes`, done in `ns`.
    pub fn count(&self, dir: usize, bytes: u64, ns: u64) {
        self.live.ios[dir].fetch_add(1, Relaxed);
        self.live.bytes[dir].fetch_add(bytes, Relaxed);
        self.live.hist[dir].record(ns);
    }

    /// One I/O of direction `dir` done elsewhere and told of (a witness's acknowledged
    /// record): counted, with no bytes or latency of its own.
    pub fn acked(&self, dir: usize) {
        self.live.ios[dir].fetch_add(1, Relaxed);
    }

    /// One failed (after its retries).
    pub fn fail(&self) {
        self.live.errors.fetch_add(1, Relaxed);
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        self.live.done.store(true, Relaxed);
        if let Some(b) = get() {
            b.leave(std::slice::from_ref(&self.live));
        }
    }
}
