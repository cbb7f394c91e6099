//! A job's clock, in ns from its start: the ramp, the deadline, the cut where a time-based
//! window closes, and the thread's CPU when measuring began.

use crate::live::{rusage, Live};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use workload::JobSpec;

/// The job's clock, in ns from its start: the ramp, the deadline, and the cut.
pub(crate) struct Clock {
    pub(crate) base: Instant,
    pub(crate) ramp_ns: u64,
    pub(crate) deadline: Option<u64>,
    /// Where a time-based window ends (the deadline, or the moment a stop was asked for). I/Os
    /// completing after it are reaped but not counted, and the runtime ends there, as fio
    /// does: counting the I/Os submitted in the window over the time to the last completion
    /// left one tail latency out of the rate (3 % low in a 2 s run on a throttled volume,
    /// whose last I/O waited 70 ms for the throttle's next slice).
    pub(crate) cut: Option<u64>,
    /// Past the ramp. Until then completions are counted too and dropped at the ramp's end,
    /// as fio resets its stats there: a job that ends inside its ramp keeps its whole run.
    pub(crate) measuring: bool,
    /// Where the measured interval starts: 0 until the ramp ends.
    pub(crate) measure_start: u64,
    /// The thread's CPU (user, system, switches) when measuring began (or the job started).
    pub(crate) cpu0: (u64, u64, u64),
    /// When a write job's writes were all issued and its verify backlog began to drain: fio
    /// ends the writes' runtime there and counts the reads' from there.
    pub(crate) drain_at: Option<u64>,
}

impl Clock {
    pub(crate) fn new(spec: &JobSpec) -> Clock {
        // fio's ramp_size ends the ramp after that much I/O, whenever it is: the clock's ramp
        // then ends where the bytes say, and the runtime counts from there.
        let ramp_ns = if spec.timing.ramp_size > 0 {
            u64::MAX
        } else {
            spec.timing.ramp_time.as_nanos() as u64
        };
        Clock {
            base: Instant::now(),
            ramp_ns,
            deadline: spec
                .runtime
                .map(|r| ramp_ns.saturating_add(r.as_nanos() as u64)),
            cut: None,
            measuring: false,
            measure_start: 0,
            cpu0: (0, 0, 0),
            drain_at: None,
        }
    }

    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }

    /// Starts the measured interval at `at` (ns); what was counted before it is the caller's
    /// to drop.
    pub(crate) fn measure_from(&mut self, at: u64, live: &Live) {
        self.measuring = true;
        self.measure_start = at;
        self.cpu0 = rusage(libc::RUSAGE_THREAD);
        live.measuring.store(true, Relaxed);
    }

    /// Where the counted window ends: the cut, or the deadline before the loop has seen it
    /// pass (a batch reaped just after the deadline is not part of the run either).
    #[inline]
    pub(crate) fn window_end(&self) -> u64 {
        self.cut.or(self.deadline).unwrap_or(u64::MAX)
    }
}
