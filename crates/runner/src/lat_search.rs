//! fio's latency-target search (io_u.c's lat_target_*), as one job's state: the depth the job
//! may use now, the last depth that met the target and the first that missed, and the
//! current window's I/Os and misses. The loop asks [`Search::missed`] on each completion over
//! the target and [`Search::check`] once per turn, and acts on the [`Step`] it gets back;
//! once the queue has drained after a change, [`Search::new_window`] says whether the job's
//! counts restart there (the depth was found).

use workload::lat_target::LatTarget;

/// What the loop must do after a completion or a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Keep,
    /// The depth changed, or was found: let the I/Os in flight complete, then start a new
    /// window ([`Search::new_window`]).
    Quiesce,
    /// The last window at the depth found is over: end the job.
    Done,
    /// An I/O at depth 1 was over the target with `latency_percentile=100`: fio ends the job
    /// with an error.
    Fatal,
}

/// One job's search.
pub struct Search {
    cfg: LatTarget,
    iodepth: u32,
    /// The depth the job may use now.
    pub qd: u32,
    low: u32,
    high: u32,
    /// Windows in a row that met the target one below `high`.
    stable: u32,
    /// The current window: its start (ns on the job's clock), completions and misses.
    since: u64,
    ios: u64,
    failed: u64,
    /// Waiting for the queue to drain after a change; completions meanwhile are not judged.
    pub quiescing: bool,
    /// The last window, at the depth found, is running.
    pub end_run: bool,
    /// The depth was just found: the window after the drain restarts the job's counts.
    restart: bool,
}

impl Search {
    pub fn new(cfg: LatTarget, iodepth: u32) -> Search {
        Search {
            cfg,
            iodepth: iodepth.max(1),
            qd: 1,
            low: 1,
            high: iodepth.max(1),
            stable: 0,
            since: 0,
            ios: 0,
            failed: 0,
            quiescing: false,
            end_run: false,
            restart: false,
        }
    }

    /// The target in ns: a completion over it is a miss.
    #[inline]
    pub fn target_ns(&self) -> u64 {
        self.cfg.target_ns
    }

    /// One completion inside a window.
    #[inline]
    pub fn completed(&mut self) {
        if !self.quiescing {
            self.ios += 1;
        }
    }

    /// A completion over the target. Below 100 % it counts against the window; at 100 % it
    /// lowers the depth at once, or at depth 1 is fatal.
    pub fn missed(&mut self) -> Step {
        if self.quiescing {
            return Step::Keep;
        }
        if self.cfg.percentile < 100.0 {
            self.failed += 1;
            return Step::Keep;
        }
        self.lower()
    }

    /// Once per turn: when the window is over, judge it (fio's lat_target_check).
    pub fn check(&mut self, now: u64) -> Step {
        if self.quiescing || now.saturating_sub(self.since) < self.cfg.window_ns || self.ios == 0 {
            return Step::Keep;
        }
        let met = (self.ios - self.failed.min(self.ios)) as f64 / self.ios as f64 * 100.0;
        if met >= self.cfg.percentile {
            self.raise(now)
        } else {
            self.lower()
        }
    }

    /// The queue has drained: a new window starts now. True when the depth was just found,
    /// and the job's counts restart here (fio's reset_all_stats).
    pub fn new_window(&mut self, now: u64) -> bool {
        self.quiescing = false;
        self.since = now;
        self.ios = 0;
        self.failed = 0;
        std::mem::take(&mut self.restart)
    }

    /// The window missed: halve toward the last good depth (fio's __lat_target_failed).
    fn lower(&mut self) -> Step {
        if self.qd == 1 {
            return Step::Fatal;
        }
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = (self.qd + self.low) / 2;
        self.stable = 0;
        self.quiescing = true;
        Step::Quiesce
    }

    /// The window met the target: double until a depth misses, then bisect; the same depth
    /// twice is the answer (fio's lat_target_success). One below `high` three times in a
    /// row lets `high` rise by one, so a depth that only just missed is tried again. A
    /// deeper queue needs no drain: the next window starts at once.
    fn raise(&mut self, now: u64) -> Step {
        let was = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.qd = match self.high != self.iodepth {
            true => (self.qd + self.high) / 2,
            false => self.qd * 2,
        }
        .min(self.iodepth);
        if self.cfg.run || self.qd != was {
            self.new_window(now);
            return Step::Keep;
        }
        if self.end_run {
            return Step::Done;
        }
        self.end_run = true;
        self.restart = true;
        self.quiescing = true;
        Step::Quiesce
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(percentile: f64, iodepth: u32) -> Search {
        let cfg = LatTarget {
            target_ns: 1_000_000,
            window_ns: 10,
            percentile,
            run: false,
        };
        Search::new(cfg, iodepth)
    }

    /// Runs windows where a depth meets the target when `good(qd)`, as fio would judge them,
    /// until the search ends; the depths tried, and the last step.
    fn walk(s: &mut Search, good: impl Fn(u32) -> bool) -> (Vec<u32>, Step) {
        let mut tried = vec![s.qd];
        let mut now = 0;
        for _ in 0..200 {
            for _ in 0..100 {
                s.completed();
            }
            if !good(s.qd) {
                s.failed = 50;
            }
            now += 10;
            match s.check(now) {
                Step::Keep => {}
                Step::Quiesce => {
                    s.new_window(now);
                }
                end => return (tried, end),
            }
            if tried.last() != Some(&s.qd) {
                tried.push(s.qd);
            }
        }
        (tried, Step::Keep)
    }

    #[test]
    fn doubles_then_bisects_to_the_deepest_good_depth_as_fio_does() {
        let mut s = search(90.0, 32);
        let (tried, end) = walk(&mut s, |qd| qd <= 20);
        assert_eq!(end, Step::Done);
        assert_eq!(s.qd, 20, "{tried:?}");
        // fio's own trace on a throttled zram with this boundary: 1 2 4 8 16 32 24 20 22 21.
        assert_eq!(&tried[..10], &[1, 2, 4, 8, 16, 32, 24, 20, 22, 21]);
    }

    #[test]
    fn a_device_that_always_meets_it_ends_at_iodepth() {
        let mut s = search(99.0, 16);
        let (_, end) = walk(&mut s, |_| true);
        assert_eq!((end, s.qd), (Step::Done, 16));
    }

    #[test]
    fn at_100_percent_one_miss_lowers_at_once_and_at_depth_1_is_fatal() {
        let mut s = search(100.0, 8);
        assert_eq!(s.missed(), Step::Fatal);
        s.qd = 8;
        assert_eq!(s.missed(), Step::Quiesce);
        assert_eq!(s.qd, 4);
        assert_eq!(
            s.missed(),
            Step::Keep,
            "completions while draining are not judged"
        );
    }

    #[test]
    fn latency_run_never_ends() {
        let mut s = search(90.0, 8);
        s.cfg.run = true;
        let (tried, end) = walk(&mut s, |qd| qd <= 4);
        assert_eq!(end, Step::Keep, "{tried:?}");
        // It settles at 4 and, as fio does, tries 5 again every third window.
        assert!(tried.len() > 20, "{tried:?}");
        assert!(tried[10..].iter().all(|&q| q == 4 || q == 5), "{tried:?}");
    }
}
