//! A job's end: verify state saved, end_fsync, the runtime and CPU taken off the clock (fio's
//! per-direction runtimes with a verify backlog or per-loop verify), the closing read-back,
//! the write_iolog closed, and what ended the I/O.

use crate::job::Job;
use crate::live::{rusage, JobOutput};
use crate::syncs::syncfs_each;
use crate::tally::publish;
use engine::Engine;
use std::sync::atomic::Ordering::Relaxed;

impl<'a, E: Engine> Job<'a, E> {
    /// The job's end: fio's end_fsync, the measured runtime and CPU, then the closing verify
    /// (outside the measured figures) before the engine's teardown.
    pub(crate) fn finish(mut self, out: &mut JobOutput) {
        if let Some(r) = &self.vsave {
            if let Err(e) = r.save(&self.inp.spec.name, self.inp.clone) {
                self.error.get_or_insert(e);
            }
        }
        // The queue has just drained: how long that took after the window closed.
        let drained = self
            .clock
            .cut
            .map(|cut| self.clock.now().saturating_sub(cut));
        out.drain_ns = drained.filter(|&d| d > 0);
        out.ended_by = Some(self.ended_by());
        self.end_fsync();
        let t_end = self.clock.now();
        let c = &self.clock;
        let end = c.cut.map_or(t_end, |cut| cut.min(t_end));
        // A thread descheduled across its deadline ends late but does no I/O meanwhile.
        self.inp
            .live
            .end(c.base + std::time::Duration::from_nanos(end));
        // Ended inside the ramp: fio never reset its stats, so the whole run is the figure.
        if !self.clock.measuring {
            out.ramp_swallowed = self.stats.dirs.iter().any(|d| d.ios > 0);
            publish(&self.inp.live, &self.stats);
        }
        self.take_times(end);
        let c = &self.clock;
        if self.error.is_none() {
            // A size-based job's runtime bounds its read-back, as fio's; a time-based job's
            // has run out by now, and its written blocks are read back once after it.
            let deadline = c.deadline.filter(|_| !self.inp.spec.time_based);
            let left = self.inp.spec.verify_passes() - self.loops_read_back;
            match self.read_back(Some(left), deadline) {
                Ok(n) => out.verified = n,
                Err(e) => self.error = Some(format!("verify failed: {e}")),
            }
        }
        drop(self.eng);
        if let Some(w) = self.iolog.take() {
            if let Err(e) = w.finish() {
                self.error.get_or_insert(format!("write_iolog: {e}"));
            }
        }
        for d in self.stats.dirs.iter_mut() {
            d.lat.close_intervals();
        }
        out.replay = self.picker.replay.as_ref().map(|f| f.counts);
        out.lat_depth = self.search.map(|s| (s.qd, s.end_run));
        out.stats = self.stats;
        out.windows = self.windows;
        out.error = self.error;
    }

    /// The runtime, each direction's (fio's, with a verify backlog or per-loop verify), the
    /// rate's lateness and the thread's CPU, read off the clock at the job's `end`.
    fn take_times(&mut self, end: u64) {
        let (c, cpu1) = (&self.clock, rusage(libc::RUSAGE_THREAD));
        self.stats.runtime_ns = end - c.measure_start;
        // fio's per-direction time with a verify backlog: the writes end where the read-back
        // starts; the reads are the read-back, or in a job that also reads, the whole run.
        if let Some(d) = c.drain_at {
            let d = d.clamp(c.measure_start, end);
            let reads = if self.inp.spec.rw.reads() {
                0
            } else {
                (end - d).max(1)
            };
            self.stats.dir_runtime_ns = [reads, (d - c.measure_start).max(1)];
        }
        // fio's write runtime leaves out the read-back between loops; the reads' is its own.
        // (Before the closing read-back, the verify time is the loops' read-backs alone.)
        if self.loops_read_back > 0 {
            let ran = end - c.measure_start;
            self.stats.dir_runtime_ns = [0, ran.saturating_sub(self.stats.verify_ns).max(1)];
        }
        let late = self.picker.lateness(end);
        for (d, l) in self.stats.dirs.iter_mut().zip(late) {
            d.late = l;
        }
        self.stats.usr_ns = cpu1.0.saturating_sub(c.cpu0.0);
        self.stats.sys_ns = cpu1.1.saturating_sub(c.cpu0.1);
        self.stats.ctx = cpu1.2.saturating_sub(c.cpu0.2);
    }

    /// What ended the measured I/O, read off the clock and the budget.
    pub(crate) fn ended_by(&self) -> report::Ended {
        use report::Ended;
        let c = &self.clock;
        match c.cut {
            _ if self.error.is_some() => Ended::Error,
            _ if self.full => Ended::Full,
            Some(cut) if c.deadline.is_some_and(|d| cut >= d) => Ended::Runtime,
            Some(_) if self.inp.live.halt.load(Relaxed) && self.inp.spec.steadystate.on() => {
                Ended::Steady
            }
            Some(_) => Ended::Stopped,
            None if self.picker.ended => Ended::Trace,
            None if self.budget.issued_ios >= self.budget.ios => Ended::NumberIos,
            None => Ended::Size,
        }
    }

    /// fio's end_fsync: every file flushed once the writes have all completed.
    pub(crate) fn end_fsync(&mut self) {
        let spec = &self.inp.spec;
        let wanted = spec.sync.end_fsync || spec.sync.end_syncfs;
        if !(wanted && spec.rw.writes() && self.error.is_none() && self.q.in_flight == 0) {
            return;
        }
        if spec.sync.end_syncfs {
            if let Err(e) = syncfs_each(&self.inp.fds) {
                self.error = Some(format!("final syncfs failed: {e}"));
            }
            return;
        }
        for f in 0..self.inp.fds.len() as u32 {
            if let Err(e) = self.eng.sync(f, false) {
                self.error = Some(format!("final fsync failed: {e}"));
                break;
            }
        }
    }
}
