//! fio's thinktime: after `blocks` I/Os (or `thinktime_iotime` at I/O), drain the queue, then
//! think (spin, then sleep) before the next.

use workload::{JobSpec, Think};

/// A job's thinking: when the next think is due, and where the last ended.
pub(crate) struct Thinking {
    pub(crate) spec: Option<Think>,
    /// The I/O count at the last think, and the one at which the next is due.
    pub(crate) last: u64,
    pub(crate) due: Option<u64>,
    pub(crate) completed: u64,
    /// When the last think ended (the job's clock, ns): thinktime_iotime counts from it.
    /// It starts one think after the start, as fio's.
    pub(crate) last_t: u64,
}

impl Thinking {
    pub(crate) fn new(spec: &JobSpec) -> Thinking {
        Thinking {
            spec: spec.timing.think.filter(|t| t.us > 0),
            last: 0,
            due: None,
            completed: 0,
            // fio 3.33's first interval of thinktime_iotime lasts iotime + thinktime
            // (strace: 400 ms then 300 ms cycles at iotime=300ms thinktime=100ms).
            last_t: spec.timing.think.map_or(0, |t| t.us * 1000),
        }
    }

    /// True once a think is due, `issued` I/Os issued and the job's clock at `now()`. fio
    /// checks after each issue; with `at_once` (an I/O at depth 1 or on a synchronous
    /// engine) it has completed by then, so there the issues are the completions.
    #[inline]
    pub(crate) fn due_at(&mut self, at_once: bool, issued: u64, now: impl Fn() -> u64) -> bool {
        let Some(tk) = self.spec else {
            return false;
        };
        let b = if at_once || tk.on_issue {
            issued
        } else {
            self.completed
        };
        // fio's thinktime_iotime: long enough at I/O since the last think.
        let timed = tk.iotime_us > 0 && now().saturating_sub(self.last_t) >= tk.iotime_us * 1000;
        if timed || (tk.counts_blocks() && b >= self.last + tk.blocks) {
            self.due = Some(b);
        }
        self.due.is_some()
    }
}
