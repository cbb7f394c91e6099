//! One job's hot loop, factored as fio's do_io: a [`Job`] holds the clock (ramp, deadline,
//! cut), the budget, the queue, the sync and think state and the figures; [`drive`] turns it
//! until it ends: a sync step when one is due, else fill the queue and submit
//! ([`Job::fill`], fio's io_queue_event side), wait when nothing is in flight
//! ([`Job::idle`]), reap and account ([`Job::reap`], fio's io_completed), then
//! [`Job::finish`].
//!
//! The loop's features each have a room beside it, which this file does not import: the job
//! built and started ([`crate::begin`]), its passes ([`crate::passes`]), what completions
//! steer ([`crate::steer`]), an I/O's result judged ([`crate::outcome`]) and the end
//! ([`crate::finish`]) are `impl Job` blocks there; the state the loop holds (clock, budget,
//! queue, syncs, thinking, figures) is in its own files, which import nothing of the loop.
//! The thread's set-up, and the jobs that are not I/O, are [`crate::start`]'s.
//!
//! Rules of this loop: no allocation, no locks, no formatting (except on the error path that
//! ends it), no syscalls beyond the I/O and the vDSO clock. One clock read per batch stamps every
//! request pushed in it; counters are published to the sampler with relaxed stores once per
//! batch, never per I/O.

use crate::budget::{Budget, Passes};
use crate::clock::Clock;
use crate::data;
use crate::issuelog::{log_issue, Iolog};
use crate::lat_search::Search;
use crate::live::{JobInput, JobOutput};
use crate::pace::{hold_back, think_for, wait_ns};
use crate::pick::{Next, Pick, Picker};
use crate::queue::{overlaps, Meta, Queue};
use crate::syncs::Syncs;
use crate::tally::{count, publish};
use crate::think::Thinking;
use engine::{Completion, Engine, Op, Request};
use rand::rngs::SmallRng;
use stats::{JobStats, WindowLog};
use std::sync::atomic::Ordering::Relaxed;
use workload::{EngineKind, Trim};

/// fio's lockfile: file `file`'s lock taken for an I/O of `op` (shared by reads under
/// `readwrite`, else exclusive); neither when the job locks nothing. A lock left poisoned by
/// a panicked job still serialises.
type Held<'a> = (
    Option<std::sync::RwLockReadGuard<'a, ()>>,
    Option<std::sync::RwLockWriteGuard<'a, ()>>,
);
fn file_lock(inp: &JobInput, file: u32, op: Op) -> Held<'_> {
    let Some(lock) = inp.locks.get(file as usize) else {
        return (None, None);
    };
    if op == Op::Read && inp.spec.files.lockfile == workload::LockFile::ReadWrite {
        (Some(lock.read().unwrap_or_else(|e| e.into_inner())), None)
    } else {
        (None, Some(lock.write().unwrap_or_else(|e| e.into_inner())))
    }
}

/// fio's do_io: turn until the job ends, then finish it.
pub(crate) fn drive<E: Engine>(eng: E, inp: &JobInput, out: &mut JobOutput) {
    out.huge_page_buffers = eng.huge_page_buffers();
    let mut job = Job::new(eng, inp);
    job.start();
    loop {
        let turn = job.turn();
        if job.syncs.need && job.q.in_flight == 0 {
            // fio decides on a sync when it picks the next I/O, and picks none once the
            // job's bytes (or number_ios) are all issued: the sync due after that last write
            // is not issued (fsync=16 over 1,024 writes: 63 syncs in both tools). A remainder
            // under one block still sends fio round once more, and that sync is issued.
            if job.budget.spent_as_fio(&inp.spec) {
                job.syncs.since = 0;
                job.syncs.need = false;
            } else {
                job.sync_step();
            }
            continue;
        }
        if job.q.in_flight == 0 && job.pass_due() {
            job.new_pass();
            continue;
        }
        let filled = job.fill(&turn);
        if job.error.is_some() && job.q.in_flight == 0 {
            break;
        }
        if filled.pushed > 0 {
            inp.live.issued.store(job.budget.issued, Relaxed);
        }
        if job.q.in_flight == 0 {
            if job.idle(&turn, &filled) {
                continue;
            }
            break;
        }
        if !job.reap(&turn, filled.rate_wait) {
            break;
        }
        job.steer();
    }
    job.finish(out);
}

/// Where one turn stands, read once at its start.
pub(crate) struct Turn {
    pub(crate) t: u64,
    /// The budget is issued: only reads back of the verify backlog remain.
    pub(crate) writes_done: bool,
    pub(crate) stopping: bool,
}

/// Why a turn stopped filling the queue.
#[derive(Default)]
pub(crate) struct Filled {
    pub(crate) pushed: u64,
    /// The rate cap's wait before the next I/O may go (ns).
    pub(crate) rate_wait: u64,
    /// The flow held the job back.
    pub(crate) held: bool,
}

/// One job while it runs.
pub(crate) struct Job<'a, E: Engine> {
    pub(crate) eng: E,
    pub(crate) inp: &'a JobInput,
    pub(crate) picker: Picker,
    pub(crate) clock: Clock,
    pub(crate) budget: Budget,
    pub(crate) q: Queue,
    pub(crate) syncs: Syncs,
    pub(crate) think: Thinking,
    pub(crate) stats: JobStats,
    pub(crate) windows: Option<WindowLog>,
    pub(crate) passes: Option<Passes>,
    /// The writes are all issued and the backlog's read-back is next: sync and drop the
    /// files' cached pages once the queue is empty (fio's do_verify).
    pub(crate) settle: bool,
    pub(crate) sync_engine: bool,
    /// What each write carries (see [`data`]).
    pub(crate) data: data::Data,
    pub(crate) seq: u64,
    pub(crate) error: Option<String>,
    /// `fill_fs` met ENOSPC or EDQUOT: the job's end, not its failure.
    pub(crate) full: bool,
    /// fio's latency-target search, for a job that asks for one.
    pub(crate) search: Option<Search>,
    /// fio's rate_min/rate_iops_min floors, when the job has them.
    pub(crate) minrate: Option<crate::minrate::MinRate>,
    /// fio's write_iolog: every I/O issued, with its time.
    pub(crate) iolog: Option<Iolog>,
    /// fio's cmdprio options, with their own random stream (the offsets' is untouched).
    pub(crate) cmdprio: Option<(workload::CmdPrio, SmallRng)>,
    /// fio's verify_state_save: the writes issued and the last ones completed.
    pub(crate) vsave: Option<crate::vstate::Recorder>,
    /// fio's verify_state_load: which reads of a verify_only job check a completed write.
    pub(crate) vlimit: Option<crate::vstate::Limit>,
    /// fio's verify-after-trim (trim_percentage with trim_backlog).
    pub(crate) trimback: Option<crate::trimback::TrimBack>,
    /// Loops whose writes were read back before the next loop (fio's do_verify per loop).
    pub(crate) loops_read_back: u32,
}

impl<'a, E: Engine> Job<'a, E> {
    /// The measured intervals' latencies reach the live board too (the ramp's do not).
    pub(crate) fn feed_live(&mut self) {
        for (d, l) in self.stats.dirs.iter_mut().zip(&self.inp.live.hist) {
            d.lat.feed(l.clone());
        }
    }

    /// fio's ramp_size: the job has done that much I/O (reads and writes), so its ramp ends.
    #[inline]
    fn ramp_bytes_done(&self) -> bool {
        let size = self.inp.spec.timing.ramp_size;
        size > 0 && self.stats.dirs.iter().map(|d| d.bytes).sum::<u64>() >= size
    }

    /// Reads the clock once for the turn: the ramp's end, the cut, and whether to stop.
    #[inline]
    fn turn(&mut self) -> Turn {
        let t = self.clock.now();
        if !self.clock.measuring && self.ramp_bytes_done() {
            let c = &mut self.clock;
            c.ramp_ns = t;
            c.deadline = self.inp.spec.runtime.map(|r| t + r.as_nanos() as u64);
        }
        if !self.clock.measuring && t >= self.clock.ramp_ns {
            self.end_ramp();
        }
        let c = &mut self.clock;
        let timed_out = c.deadline.is_some_and(|d| t >= d);
        let stop_asked = self.inp.stop.load(Relaxed) || self.inp.live.halt.load(Relaxed);
        if c.cut.is_none() && (timed_out || stop_asked) {
            c.cut = Some(c.deadline.map_or(t, |d| d.min(t)));
            self.inp.live.closed.store(true, Relaxed);
        }
        // With verify_backlog, the written blocks not yet read back are read once the writes
        // are all issued (fio's closing verify), unless time ran out.
        let writes_done = self.budget.spent() || self.picker.ended;
        let backlog = self.picker.backlog.as_ref();
        let draining = writes_done && backlog.is_some_and(|b| !b.is_empty());
        if writes_done && self.clock.drain_at.is_none() && backlog.is_some() {
            self.clock.drain_at = Some(t);
            self.settle = self.inp.spec.ioengine != EngineKind::Null;
        }
        let stopping =
            self.error.is_some() || stop_asked || timed_out || (writes_done && !draining);
        Turn {
            t,
            writes_done,
            stopping,
        }
    }

    /// The sync due after `fsync=N` writes, once they have all completed. A write that
    /// completed after the window is not counted, nor is a sync issued for it: every sync
    /// issued is one reported, and as many as the counted writes with fsync=1.
    fn sync_step(&mut self) {
        if self.error.is_none() && !self.syncs.late {
            let t0 = self.clock.now();
            let r = match self.syncs.range {
                Some(flags) => {
                    let fd = self.inp.fds[self.syncs.file as usize];
                    self.syncs.sync_range(fd, flags)
                }
                None => self.eng.sync(self.syncs.file, self.syncs.datasync),
            };
            let t1 = self.clock.now();
            match r {
                Err(e) if self.syncs.range.is_some() => {
                    self.error = Some(format!("sync_file_range failed: {e}"))
                }
                Err(e) => self.error = Some(format!("fsync failed: {e}")),
                Ok(()) => {
                    if self.clock.measuring {
                        self.stats.sync.record(t1 - t0);
                        self.stats.durable.record(t1 - self.syncs.from);
                        self.window_holds(t1);
                    }
                    if let Some(r) = &mut self.vsave {
                        r.synced();
                    }
                }
            }
        }
        self.syncs.since = 0;
        self.syncs.need = false;
    }

    /// A sync is counted whole when it was issued in the window (every sync issued is one
    /// reported), so a window whose deadline passed during it ends where it returned: its
    /// time is in the runtime, and no drain "not counted" is said of it (a QD1 fsync run
    /// said it waited 96 ms for I/Os not counted, and had counted that sync).
    fn window_holds(&mut self, t: u64) {
        let c = &mut self.clock;
        if c.cut.is_none() && c.deadline.is_some_and(|d| t > d) {
            c.cut = Some(t);
            self.inp.live.closed.store(true, Relaxed);
        }
    }

    /// Pushes I/Os into free slots until the queue is full, the picker waits, or a sync, a
    /// think or the end of the budget is due; submits each `iodepth_batch_submit` group and
    /// what remains at the end.
    #[inline]
    fn fill(&mut self, turn: &Turn) -> Filled {
        let mut filled = Filled::default();
        // When the next I/O's preparation starts: the turn's clock for the first, then the
        // return of the submission before it (no clock read of its own per I/O).
        let mut prep_at = turn.t;
        let pass_over = self.pass_due();
        if !turn.stopping && !self.syncs.need && !pass_over && self.think.due.is_none() {
            while let Some(&slot) = self.q.free.last() {
                if !self.room() {
                    break;
                }
                // fio's verify-after-trim: a due trim of a written block goes first.
                if let Some(t) = self.trimback.as_mut().and_then(|t| t.next()) {
                    if !self.push_trim(slot, &t, &mut prep_at, false) {
                        break;
                    }
                    continue;
                }
                let Some(mut n) = self.pick(turn, &mut filled) else {
                    break;
                };
                // verify_state_load: the verify ends at the first write that had not
                // completed (fio's verify_state_should_stop): nothing more is issued.
                if let Some(l) = self.vlimit.as_mut().filter(|_| n.op == Op::Read) {
                    if !l.allows(n.file, n.offset) {
                        self.budget.bytes = self.budget.issued;
                        break;
                    }
                }
                // rw=trim/randtrim: the write pattern's I/Os are discards.
                if self.inp.spec.pattern.trim == Trim::Only && n.op == Op::Write && !n.back {
                    n.op = Op::Trim;
                }
                if !self.push(slot, &n, &mut prep_at) {
                    break;
                }
                filled.pushed += 1;
                // A trim is done in place and frees its slot at once: back to the turn, which
                // reads the clock, or a time-based trim job never sees its end.
                if self.think_due() || n.op == Op::Trim {
                    break;
                }
                if self.q.batch.len() >= self.q.batch_submit && !self.submit(&mut prep_at) {
                    break;
                }
                let sync_due = n.op == Op::Write && self.syncs.wrote(turn.t);
                if sync_due || self.budget.spent() {
                    break;
                }
            }
        }
        if !self.q.batch.is_empty() && self.error.is_none() {
            self.submit(&mut prep_at);
        }
        filled
    }

    /// The picker's next I/O, or None when it waits for the rate cap, the flow holds the job
    /// back, the work is done, or the I/O overlaps one in flight (`serialize_overlap`: given
    /// back, to go first once that one completes).
    #[inline]
    fn pick(&mut self, turn: &Turn, filled: &mut Filled) -> Option<Next> {
        match self.picker.next(turn.t, turn.writes_done) {
            Pick::Io(n) if self.q.serialize && overlaps(&self.q.meta, &n) => {
                self.picker.hold(n);
                None
            }
            Pick::Io(n) => Some(n),
            Pick::Wait(ns) => {
                filled.rate_wait = ns;
                None
            }
            Pick::Held => {
                filled.held = true;
                None
            }
            Pick::Sync(file) => {
                let s = &mut self.syncs;
                (s.need, s.file, s.from, s.late) = (true, file, turn.t, false);
                None
            }
            Pick::Fail(e) => {
                self.error.get_or_insert(e);
                None
            }
            Pick::Done => None,
        }
    }

    /// Prepares `n` in `slot` (a write's buffer marked) and pushes it to the engine; false,
    /// with the error kept, when the engine refused it.
    #[inline]
    fn push(&mut self, slot: u32, n: &Next, prep_at: &mut u64) -> bool {
        // fio's lockfile, held to the end of this call (a synchronous engine's whole I/O);
        // the I/O's clock starts once it is held, as fio's starts after its prep.
        let held = file_lock(self.inp, n.file, n.op);
        if held.0.is_some() || held.1.is_some() {
            *prep_at = self.clock.now();
        }
        if n.op == Op::Trim {
            return self.push_trim(slot, n, prep_at, true);
        }
        if n.op == Op::Write && self.inp.spec.pattern.trim == Trim::ThenWrite && !n.back {
            // trimwrite: the block is discarded, then written (fio's pair, in that order).
            let trim = Next { op: Op::Trim, ..*n };
            if !self.push_trim(slot, &trim, prep_at, false) {
                return false;
            }
        }
        let prep_at = *prep_at;
        if n.op == Op::Write {
            self.fill_write(slot, n);
            if let Some(r) = self.vsave.as_mut().filter(|_| !n.back) {
                r.issued();
            }
            if let Some(t) = self.trimback.as_mut().filter(|_| !n.back) {
                t.wrote();
            }
        }
        // fio's split: slat runs from this I/O's preparation to the return of the submission
        // carrying it, clat from there to its completion. A turn that refills many slots must
        // not charge the earlier submissions to later I/Os.
        let verify = n.op == Op::Read && (n.back || !self.inp.spec.rw.writes());
        let room = self.q.room_at.max(self.q.sub_end);
        self.q.meta[slot as usize] = Meta::pushed(n, prep_at, verify, room);
        let req = Request {
            op: n.op,
            file: n.file,
            offset: n.offset,
            len: n.len,
            slot,
            ioprio: self
                .cmdprio
                .as_mut()
                .map_or(0, |(p, rng)| cmdprio_of(p, rng, n)),
        };
        if let Err(e) = self.eng.push(req) {
            self.error = Some(e.to_string());
            return false;
        }
        self.q.free.pop();
        self.q.batch.push(slot);
        if !n.back {
            self.issued(n.len);
        }
        if let Some(w) = &mut self.iolog {
            log_issue(w, n, prep_at, &mut self.error);
        }
        true
    }

    /// A write's data in `slot`: fresh bytes, stamped with its verify header.
    #[inline]
    fn fill_write(&mut self, slot: u32, n: &Next) {
        self.syncs.file = n.file;
        // A read filled this slot last (its meta is still that read's).
        let m = &self.q.meta[slot as usize];
        let after_read = m.op == Op::Read && m.len > 0;
        let buf = &mut self.eng.slot(slot)[..n.len as usize];
        self.data.prepare(buf, after_read);
        let spec = &self.inp.spec;
        data::stamp(
            buf,
            n.offset,
            self.seq,
            spec.checking.verify,
            spec.checking.verify_pattern.as_deref(),
        );
        self.seq += 1;
    }

    /// A trim, done at once as fio does on every engine (BLKDISCARD; the null engine only
    /// counts it) and completed in place: its latency is all completion. `budget`: it counts
    /// against the job's bytes (trimwrite's trims ride on their writes). The next I/O is
    /// prepared from its end. False when it ended the job.
    #[cold]
    fn push_trim(&mut self, slot: u32, n: &Next, prep_at: &mut u64, budget: bool) -> bool {
        self.q.meta[slot as usize] = Meta {
            op: Op::Trim,
            len: n.len,
            file: n.file,
            busy: true,
            verify: false,
            offset: n.offset,
            start: *prep_at,
            sub: *prep_at,
            due: n.due,
            room: self.q.room_at.max(self.q.sub_end),
        };
        self.q.free.pop();
        let result = match self.inp.spec.ioengine {
            EngineKind::Null => n.len as i64,
            // fio's falloc trims by punching a hole, in a file as on a device.
            EngineKind::Falloc => engine::punch(self.inp.fds[n.file as usize], n.offset, n.len),
            EngineKind::Ftruncate => -(libc::EINVAL as i64),
            _ => engine::discard(self.inp.fds[n.file as usize], n.offset, n.len),
        };
        let tc = self.clock.now();
        let window_end = self.clock.window_end();
        self.complete(Completion { slot, result }, tc, window_end);
        *prep_at = tc;
        if budget {
            self.issued(n.len);
        }
        if let Some(w) = &mut self.iolog {
            log_issue(w, n, tc, &mut self.error);
        }
        self.error.is_none()
    }

    /// Counts an issued I/O against the budget and the pass: a pass is over when its bytes
    /// are issued, and after the last there is no next to drop the cache for.
    #[inline]
    fn issued(&mut self, len: u32) {
        let b = &mut self.budget;
        b.issued += len as u64;
        b.issued_ios += 1;
        if let Some(p) = self.passes.as_mut().filter(|p| b.issued >= p.next) {
            p.next += p.bytes;
            p.due = !b.spent();
        }
    }

    /// True once a think is due ([`Thinking::due_at`]).
    #[inline]
    fn think_due(&mut self) -> bool {
        let at_once = self.sync_engine || self.q.depth == 1;
        let clock = &self.clock;
        self.think
            .due_at(at_once, self.budget.issued_ios, || clock.now())
    }

    /// Submits the pushed requests and stamps their submission time, which becomes the next
    /// I/O's preparation time (async engines: a synchronous engine's I/O is all completion).
    /// False, with the error kept, when the engine failed.
    #[inline]
    fn submit(&mut self, prep_at: &mut u64) -> bool {
        if let Err(e) = self.eng.submit() {
            self.error = Some(e.to_string());
            return false;
        }
        let q = &mut self.q;
        q.in_flight += q.batch.len();
        self.stats
            .mark_depth(q.in_flight as u32, q.batch.len() as u64);
        if !self.sync_engine {
            let t = self.clock.now();
            for &s in &q.batch {
                q.meta[s as usize].sub = t;
            }
            *prep_at = t;
            q.sub_end = t;
        }
        q.batch.clear();
        true
    }

    /// Nothing in flight: end the job (false), or wait as a due think, the rate cap or the
    /// flow asks before the next turn (true).
    fn idle(&mut self, turn: &Turn, filled: &Filled) -> bool {
        if self.syncs.need {
            return true;
        }
        if turn.stopping || self.error.is_some() {
            return false;
        }
        let stop = &self.inp.stop;
        let deadline = self.clock.deadline;
        if let (Some(b), Some(tk)) = (self.think.due.take(), self.think.spec) {
            let t0 = self.clock.now();
            think_for(tk, deadline.map(|d| d.saturating_sub(t0)), stop);
            self.think.last = b;
            self.think.last_t = self.clock.now();
            if self.inp.spec.rates.rate_ignore_thinktime {
                self.picker.skip_schedule(self.think.last_t - t0);
            }
        } else if filled.rate_wait > 0 {
            let wait = filled.rate_wait;
            let until = deadline.map_or(wait, |d| wait.min(d.saturating_sub(turn.t)));
            wait_ns(0, until, stop);
        } else if filled.held {
            hold_back(self.inp.spec.rates.flow_sleep, stop);
        }
        true
    }

    /// Reaps at least one I/O (all in flight when a sync, a think or the end waits for the
    /// queue to drain), then checks and accounts each; false when the engine failed. A replay
    /// whose next I/O is due in `wait` ns waits no longer than that for a completion.
    #[inline]
    fn reap(&mut self, turn: &Turn, wait: u64) -> bool {
        let quiescing = self.search.as_ref().is_some_and(|s| s.quiescing);
        let drain = self.syncs.need || turn.stopping || self.think.due.is_some() || quiescing;
        let q = &self.q;
        // The depth the job waits at (a scraper's `volbench_inflight`): with the queue full,
        // the iodepth, not the one fewer left after a reap.
        if self.clock.measuring {
            self.inp.live.inflight.store(q.in_flight as u64, Relaxed);
        }
        let min = match drain {
            true => q.in_flight,
            false if q.in_flight >= q.depth => q.in_flight - q.low.min(q.in_flight - 1),
            false => 1,
        };
        let mut comps = std::mem::take(&mut self.q.comps);
        let due_first = !drain && wait > 0 && self.picker.replay.is_some();
        let r = match due_first {
            true => self.eng.reap_within(wait, &mut comps),
            false => self.eng.reap(min, &mut comps),
        };
        let ok = match r {
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
            Ok(()) => {
                let tc = self.clock.now();
                let window_end = self.clock.window_end();
                if self.q.in_flight >= self.q.depth && !comps.is_empty() {
                    self.q.room_at = tc;
                }
                for &c in &comps {
                    self.complete(c, tc, window_end);
                }
                self.q.in_flight -= comps.len();
                true
            }
        };
        self.q.comps = comps;
        if ok && self.clock.measuring {
            publish(&self.inp.live, &self.stats);
        }
        ok
    }

    /// One completion: frees its slot, checks it (the whole length moved, a read's verify
    /// header), feeds the verify backlog, and counts it when it completed inside the window:
    /// during the ramp (dropped at its end, kept if the job ends inside it, as in fio) or
    /// after it (an I/O submitted during the ramp counts if it completes after it), and before
    /// the cut.
    #[inline]
    fn complete(&mut self, c: Completion, tc: u64, window_end: u64) {
        let m = self.q.meta[c.slot as usize];
        self.q.meta[c.slot as usize].busy = false;
        self.q.free.push(c.slot);
        self.think.completed += 1;
        if let Err(e) = self.check(&m, c) {
            return self.failed(&m, c, e);
        }
        if let (Some(b), Op::Write) = (&mut self.picker.backlog, m.op) {
            b.written((m.file, m.offset, m.len));
        }
        // What the closing read-back reads: writes that completed (a pick held back when
        // the job ended was never written).
        if let (Some(s), Op::Write) = (&mut self.picker.starts, m.op) {
            s.mark(m.file, m.offset, m.len as u64);
        }
        if m.op == Op::Write {
            self.syncs.covered(m.file, m.offset, m.len as u64);
            if let Some(r) = &mut self.vsave {
                r.completed(m.file, m.offset);
            }
            if let Some(t) = &mut self.trimback {
                t.completed(m.file, m.offset, m.len);
            }
        }
        if m.op == Op::Write {
            self.syncs.late = tc > window_end;
        }
        // The first completion past the ramp ends it, if the turn has not: one reaped in a
        // turn that began inside the ramp is the measurement's, not the warm-up's.
        if !self.clock.measuring && tc >= self.clock.ramp_ns {
            self.end_ramp();
        }
        let from = self.clock.measure_start;
        if tc >= from && tc <= window_end {
            let t = tc - from;
            let idx = t / self.inp.interval_ns.max(1);
            count(
                &mut self.stats,
                &mut self.windows,
                &m,
                (tc, t, idx),
                self.sync_engine,
            );
        }
        let dir = usize::from(m.op == Op::Write);
        let max = self.inp.spec.latency.max_latency_ns[dir];
        if max > 0 && tc - m.start > max && matches!(m.op, Op::Read | Op::Write) {
            self.over_max_latency(&m, tc - m.start, max);
        }
        if let Some(s) = &mut self.search {
            s.completed();
            let lat = tc - m.start;
            if lat > s.target_ns() {
                let step = s.missed();
                self.act(step, lat);
            }
        }
    }

    /// Room in the queue under the latency search's depth (always, without a search).
    #[inline]
    fn room(&self) -> bool {
        let used = self.q.in_flight + self.q.batch.len();
        self.search
            .as_ref()
            .is_none_or(|s| !s.quiescing && used < s.qd as usize)
    }
}

/// fio's cmdprio: this I/O's own priority, drawn at its share (0: the thread's).
#[inline]
fn cmdprio_of(p: &workload::CmdPrio, rng: &mut SmallRng, n: &Next) -> u16 {
    let (percent, value) = p.for_io(n.op as usize & 1, n.len as u64);
    match percent {
        0 => 0,
        p if rand::Rng::gen_range(rng, 0..100u8) < p => value,
        _ => 0,
    }
}
