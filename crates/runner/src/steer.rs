//! What a job's completions steer: fio's latency-target search (the depth it tries next),
//! max_latency's end, and the rate_min floors.

use crate::job::Job;
use crate::lat_search::Step;
use crate::queue::Meta;
use crate::tally::{fresh_counts, publish};
use engine::{Engine, Op};
use std::sync::atomic::Ordering::Relaxed;

impl<'a, E: Engine> Job<'a, E> {
    /// fio's lat_target_check, once per turn of a job with a latency search: judge the
    /// window (past the ramp), or start the next once the queue has drained.
    pub(crate) fn steer(&mut self) {
        if let Some(m) = self.minrate.as_mut().filter(|_| self.clock.measuring) {
            if let Some(e) = m.check(self.clock.now(), &self.stats) {
                self.error.get_or_insert(e);
            }
        }
        let Some(s) = &mut self.search else {
            return;
        };
        let now = self.clock.now();
        if s.quiescing {
            if self.q.in_flight == 0 && s.new_window(now) && self.clock.cut.is_none() {
                self.restart_counts(now);
            }
            return;
        }
        if self.clock.measuring {
            let step = s.check(now);
            self.act(step, 0);
        }
    }

    /// fio's lat_fatal for `max_latency`: the job ends with ETIMEDOUT, said with the I/O.
    #[cold]
    pub(crate) fn over_max_latency(&mut self, m: &Meta, lat: u64, max: u64) {
        self.error.get_or_insert(format!(
            "a {} of {} at offset {} took {}, over max_latency={}: Connection timed out (os error 110), as fio ends such a job; raise max_latency or leave it out",
            if m.op == Op::Write { "write" } else { "read" },
            workload::format_bytes(m.len as f64),
            m.offset,
            figures::fmt_ns(lat as f64),
            figures::fmt_ns(max as f64)
        ));
    }

    /// What the search asked for: the end of the job, or fio's error for a miss at depth 1
    /// (a drain needs nothing here: `room` and `reap` see the search's `quiescing`).
    pub(crate) fn act(&mut self, step: Step, lat: u64) {
        match step {
            Step::Keep | Step::Quiesce => {}
            Step::Done => self.inp.live.halt.store(true, Relaxed),
            Step::Fatal => {
                let target = self.inp.spec.latency.lat_target.target_ns;
                self.error.get_or_insert(format!(
                    "an I/O took {} at depth 1, over latency_target={} (with \
                     latency_percentile=100 one such I/O ends the job, as in fio): raise the \
                     target or lower the percentile",
                    figures::fmt_ns(lat as f64),
                    figures::fmt_ns(target as f64)
                ));
            }
        }
    }

    /// fio's reset_all_stats when the depth is found: the last window is the job's
    /// measurement, and its runtime starts now.
    #[cold]
    pub(crate) fn restart_counts(&mut self, now: u64) {
        let c = &mut self.clock;
        c.measure_from(now, &self.inp.live);
        c.deadline = self.inp.spec.runtime.map(|r| now + r.as_nanos() as u64);
        (self.stats, self.windows) =
            fresh_counts(&self.inp.spec, self.sync_engine, self.inp.interval_ns);
        self.feed_live();
        publish(&self.inp.live, &self.stats);
        self.inp.live.restarted.store(true, Relaxed);
    }
}
