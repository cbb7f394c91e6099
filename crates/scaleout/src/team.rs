//! The MPI side (feature `mpi`): ranks start together, end together, and rank 0 merges.
//!
//! Every call here is made by every rank in the same order, from the thread that runs the
//! runner, so MPI's single-threaded level is enough. The stonewall uses two one-byte messages
//! per rank and run: each rank sends rank 0 `DONE` once its jobs end, and rank 0 answers the
//! first `DONE` (or its own end) with `STOP` to everyone. Both are always sent and always
//! received before the run's last barrier, so nothing is left in flight for the next run of a
//! sweep.

use crate::merge::{merge, Part, Setup};
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, Rank, SimpleCommunicator};
use mpi::traits::*;
use report::RunReport;
use std::cell::{Cell, RefCell};
use std::time::{SystemTime, UNIX_EPOCH};

const TAG_DONE: i32 = 41;
const TAG_STOP: i32 = 42;
const TAG_CLOCK: i32 = 43;
/// A rank's live figures for rank 0's board (`--metrics-listen` and the live view), ten times
/// a second while its jobs run: once a second lagged a scrape by up to a second, 2.4 % of a
/// 5 s window's rate. Its `DONE` says how many it sent, so rank 0 takes them all before the
/// run's last barrier and none is left in flight.
const TAG_FIGURES: i32 = 44;
const FIGURES_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// This process's place in the MPI world, alive from `MPI_Init` to `MPI_Finalize`.
pub struct Team {
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
    rank: Rank,
    size: Rank,
    host: String,
    library: String,
    /// Each rank's clock minus rank 0's (rank 0 only; zeros elsewhere).
    offsets: Vec<i64>,
    run: RunState,
}

/// Where the current run is in the protocol.
#[derive(Default)]
struct RunState {
    started: Cell<bool>,
    ended: Cell<bool>,
    start_ns: Cell<u64>,
    done_sent: Cell<bool>,
    stop_seen: Cell<bool>,
    stop_sent: Cell<bool>,
    dones: RefCell<Vec<bool>>,
    /// Figures messages sent (other ranks), and when last; received per rank (rank 0).
    figures_sent: Cell<u32>,
    figures_at: Cell<Option<std::time::Instant>>,
    figures_got: RefCell<Vec<u32>>,
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

impl Team {
    /// Initialises MPI. `None` when it cannot (already finalised); the caller decides whether
    /// a world of one is acceptable (see [`crate::launcher`]).
    pub fn init() -> Option<Team> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        let mut t = Team {
            rank: world.rank(),
            size: world.size(),
            host: mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into()),
            library: mpi::environment::library_version()
                .unwrap_or_default()
                .split([',', '\n'])
                .next()
                .unwrap_or("")
                .trim()
                .to_string(),
            offsets: Vec::new(),
            run: RunState::default(),
            world,
            _universe: universe,
        };
        t.offsets = t.clock_offsets();
        Some(t)
    }

    pub fn rank(&self) -> u32 {
        self.rank as u32
    }

    pub fn size(&self) -> u32 {
        self.size as u32
    }

    pub fn library(&self) -> &str {
        &self.library
    }

    /// Cristian's method: rank 0 asks each rank for its clock eight times and keeps the answer
    /// with the shortest round trip, whose midpoint is when the rank read its clock.
    fn clock_offsets(&self) -> Vec<i64> {
        const ROUNDS: usize = 8;
        if self.rank != 0 {
            let root = self.world.process_at_rank(0);
            for _ in 0..ROUNDS {
                let _: (u8, _) = root.receive_with_tag(TAG_CLOCK);
                root.send_with_tag(&now_ns(), TAG_CLOCK);
            }
            return Vec::new();
        }
        let mut offsets = vec![0i64; self.size as usize];
        for (r, off) in offsets.iter_mut().enumerate().skip(1) {
            let p = self.world.process_at_rank(r as Rank);
            let mut best = u64::MAX;
            for _ in 0..ROUNDS {
                let t0 = now_ns();
                p.send_with_tag(&1u8, TAG_CLOCK);
                let (tr, _): (u64, _) = p.receive_with_tag(TAG_CLOCK);
                let t1 = now_ns();
                if t1 - t0 < best {
                    best = t1 - t0;
                    *off = tr as i64 - ((t0 + t1) / 2) as i64;
                }
            }
        }
        offsets
    }

    /// True on every rank when the whole world agrees (`ok` on all of them).
    pub fn all(&self, ok: bool) -> bool {
        let mut out = 0i32;
        self.world
            .all_reduce_into(&(ok as i32), &mut out, SystemOperation::min());
        out == 1
    }

    /// Ends this run's protocol whatever state the runner left it in (a rank that failed
    /// before the start line still takes part, so no other waits for it), then gathers every
    /// rank's outcome to rank 0, merges it there, and hands the same result to every rank, so
    /// all of them take the same next step (a sweep's next point, or stopping).
    pub fn finish(
        &self,
        outcome: Result<RunReport, String>,
        setup: &Setup,
    ) -> Result<RunReport, String> {
        if !self.run.started.get() {
            self.start(false);
        }
        if !self.run.ended.get() {
            self.end();
        }
        let ramp = outcome
            .as_ref()
            .ok()
            .and_then(|r| {
                r.workload
                    .jobs
                    .iter()
                    .map(|j| j.timing.ramp_time + j.startdelay_longest())
                    .max()
            })
            .unwrap_or_default();
        let (report, error) = match outcome {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e)),
        };
        let part = Part {
            rank: self.rank(),
            host: self.host.clone(),
            report,
            error,
            start_ns: self.run.start_ns.get() + ramp.as_nanos() as u64,
            clock_offset_ns: 0,
        };
        self.run.reset();
        let bytes = serde_json::to_vec(&part).map_err(|e| e.to_string())?;
        let merged = self.gather(&bytes).map(|parts| {
            let r = parts.and_then(|mut parts| {
                for p in &mut parts {
                    p.clock_offset_ns = self.offsets.get(p.rank as usize).copied().unwrap_or(0);
                }
                merge(parts, setup)
            });
            serde_json::to_vec(&r).unwrap_or_default()
        });
        let answer = self.broadcast(merged.unwrap_or_default());
        serde_json::from_slice::<Result<RunReport, String>>(&answer)
            .map_err(|e| format!("rank 0's merged report could not be read: {e}"))?
    }

    /// Every rank's bytes at rank 0 (`Some` there, `None` elsewhere).
    fn gather(&self, bytes: &[u8]) -> Option<Result<Vec<Part>, String>> {
        let root = self.world.process_at_rank(0);
        let len = bytes.len() as i32;
        if self.rank != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(bytes);
            return None;
        }
        let mut lens = vec![0i32; self.size as usize];
        root.gather_into_root(&len, &mut lens[..]);
        let displs: Vec<i32> = lens
            .iter()
            .scan(0, |at, &n| {
                let d = *at;
                *at += n;
                Some(d)
            })
            .collect();
        let mut buf = vec![0u8; lens.iter().map(|&n| n as usize).sum()];
        {
            let mut part = PartitionMut::new(&mut buf[..], &lens[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut part);
        }
        Some(
            lens.iter()
                .zip(&displs)
                .map(|(&n, &d)| {
                    serde_json::from_slice(&buf[d as usize..(d + n) as usize])
                        .map_err(|e| format!("a rank's report could not be read: {e}"))
                })
                .collect(),
        )
    }

    /// Rank 0's bytes on every rank.
    fn broadcast(&self, mut bytes: Vec<u8>) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        root.broadcast_into(&mut bytes[..]);
        bytes
    }

    fn start(&self, ok: bool) -> bool {
        let all = self.all(ok);
        self.run.start_ns.set(now_ns());
        self.run.started.set(true);
        all
    }

    fn end(&self) {
        let root = self.world.process_at_rank(0);
        if self.rank == 0 {
            self.send_stop();
            self.world.barrier();
            let mut dones = self.run.dones.borrow_mut();
            dones.resize(self.size as usize, false);
            for r in 1..self.size {
                if !dones[r as usize] {
                    let (n, _): (u32, _) = self.world.process_at_rank(r).receive_with_tag(TAG_DONE);
                    dones[r as usize] = true;
                    self.figures_until(r, n);
                }
            }
        } else {
            if !self.run.done_sent.replace(true) {
                root.send_with_tag(&self.run.figures_sent.get(), TAG_DONE);
            }
            self.world.barrier();
            if !self.run.stop_seen.replace(true) {
                let _: (u8, _) = root.receive_with_tag(TAG_STOP);
            }
        }
        self.run.ended.set(true);
    }

    fn send_stop(&self) {
        if !self.run.stop_sent.replace(true) {
            for r in 1..self.size {
                self.world.process_at_rank(r).send_with_tag(&1u8, TAG_STOP);
            }
        }
    }

    /// Rank 0: takes any `DONE` that has arrived; true if one did.
    fn take_dones(&self) -> bool {
        let mut any = false;
        let mut dones = self.run.dones.borrow_mut();
        dones.resize(self.size as usize, false);
        while let Some((msg, status)) = self
            .world
            .any_process()
            .immediate_matched_probe_with_tag(TAG_DONE)
        {
            let (n, _): (u32, _) = msg.matched_receive();
            dones[status.source_rank() as usize] = true;
            self.figures_until(status.source_rank(), n);
            any = true;
        }
        any
    }
}

impl RunState {
    fn reset(&self) {
        self.started.set(false);
        self.ended.set(false);
        self.start_ns.set(0);
        self.done_sent.set(false);
        self.stop_seen.set(false);
        self.stop_sent.set(false);
        self.dones.borrow_mut().clear();
        self.figures_sent.set(0);
        self.figures_at.set(None);
        self.figures_got.borrow_mut().clear();
    }
}

/// Live figures across ranks: every rank names itself on its board, the others send theirs to
/// rank 0 once a second, rank 0 puts what arrives on its own (what it serves and shows).
impl Team {
    fn share_figures(&self, done: bool) {
        let Some(board) = runner::board::get() else {
            return;
        };
        board.set_host(&format!("{} rank {}", self.host, self.rank));
        if self.rank == 0 {
            while let Some((msg, st)) = self
                .world
                .any_process()
                .immediate_matched_probe_with_tag(TAG_FIGURES)
            {
                let mut bytes = vec![0u8; st.count(u8::equivalent_datatype()) as usize];
                msg.matched_receive_into(&mut bytes[..]);
                self.took_figures(board, st.source_rank(), &bytes);
            }
            return;
        }
        let due = self
            .run
            .figures_at
            .get()
            .is_none_or(|t| t.elapsed() >= FIGURES_EVERY);
        if done || self.run.done_sent.get() || !due {
            return;
        }
        let bytes = serde_json::to_vec(&board.local()).unwrap_or_default();
        self.world
            .process_at_rank(0)
            .send_with_tag(&bytes[..], TAG_FIGURES);
        self.run.figures_sent.set(self.run.figures_sent.get() + 1);
        self.run.figures_at.set(Some(std::time::Instant::now()));
    }

    fn took_figures(&self, board: &runner::board::Board, from: Rank, bytes: &[u8]) {
        if let Ok(figures) = serde_json::from_slice(bytes) {
            board.set_remote(figures);
        }
        let mut got = self.run.figures_got.borrow_mut();
        got.resize(self.size as usize, 0);
        got[from as usize] += 1;
    }

    /// Rank `r` said it sent `n` figures messages: the rest of them are taken now.
    fn figures_until(&self, r: Rank, n: u32) {
        let got = {
            let mut g = self.run.figures_got.borrow_mut();
            g.resize(self.size as usize, 0);
            g[r as usize]
        };
        for _ in got..n {
            let (bytes, _) = self
                .world
                .process_at_rank(r)
                .receive_vec_with_tag::<u8>(TAG_FIGURES);
            match runner::board::get() {
                Some(b) => self.took_figures(b, r, &bytes),
                None => self.run.figures_got.borrow_mut()[r as usize] += 1,
            }
        }
    }
}

impl runner::Peers for Team {
    fn start_line(&self, ok: bool) -> bool {
        self.start(ok)
    }

    fn poll_end(&self, done: bool) -> bool {
        self.share_figures(done);
        if self.rank == 0 {
            if !self.run.stop_sent.get() && (self.take_dones() || done) {
                self.send_stop();
            }
            return self.run.stop_sent.get();
        }
        if done && !self.run.done_sent.replace(true) {
            let sent = self.run.figures_sent.get();
            self.world.process_at_rank(0).send_with_tag(&sent, TAG_DONE);
        }
        if !self.run.stop_seen.get() {
            if let Some((msg, _)) = self
                .world
                .process_at_rank(0)
                .immediate_matched_probe_with_tag(TAG_STOP)
            {
                let _: (u8, _) = msg.matched_receive();
                self.run.stop_seen.set(true);
            }
        }
        self.run.stop_seen.get()
    }

    fn ended(&self) {
        self.end();
    }
}
