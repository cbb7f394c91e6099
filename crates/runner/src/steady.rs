//! fio's steady-state stop, judged by the sampler: every `ss_interval` a job (or a
//! `group_reporting` group, judged as one) gives one sample of its IOPS, bandwidth and mean
//! completion latency; once `ss_ramp` and one interval have passed the samples fill a window
//! of `ss_dur`, and when the criterion holds over a full window the jobs are stopped, as fio's
//! steadystate_check does.

use crate::live::Live;
use report::SteadyReport;
use stats::steady::{judge, Judged};
use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use workload::steady::{Metric, SteadyState};

/// One job's, or one group's, steady-state check.
pub(crate) struct Judge {
    /// Indices into the phase's jobs.
    pub members: Vec<usize>,
    ss: SteadyState,
    /// The jobs' clock: the phase's start and their start delay.
    epoch: Instant,
    next: Instant,
    prev: (Instant, [u64; 3]),
    window: VecDeque<[u64; 3]>,
    judged: Judged,
    attained_at: Option<Duration>,
}

impl Judge {
    pub fn new(members: Vec<usize>, ss: SteadyState, epoch: Instant) -> Judge {
        Judge {
            members,
            ss,
            epoch,
            next: epoch + ss.interval,
            prev: (epoch, [0; 3]),
            window: VecDeque::with_capacity(ss.samples()),
            judged: Judged::default(),
            attained_at: None,
        }
    }

    /// Takes a sample when an interval is due and judges a full window; stops the members
    /// once the criterion holds.
    pub fn tick(&mut self, now: Instant, lives: &[Arc<Live>]) {
        if self.attained_at.is_some() || now < self.next {
            return;
        }
        while self.next <= now {
            self.next += self.ss.interval;
        }
        let cur = self.totals(lives);
        let (at, prev) = std::mem::replace(&mut self.prev, (now, cur));
        // fio records from the first check at least one interval past ss_ramp.
        if now.duration_since(self.epoch) < self.ss.ramp + self.ss.interval {
            return;
        }
        let secs = now.duration_since(at).as_secs_f64().max(1e-3);
        let d = |k: usize| cur[k].saturating_sub(prev[k]);
        let lat = d(2).checked_div(d(0)).unwrap_or(0);
        let sample = [
            (d(0) as f64 / secs) as u64,
            (d(1) as f64 / secs) as u64,
            lat,
        ];
        if self.window.len() == self.ss.samples() {
            self.window.pop_front();
        }
        self.window.push_back(sample);
        if self.window.len() < self.ss.samples() {
            return;
        }
        let k = match self.ss.criterion.metric {
            Metric::Iops => 0,
            Metric::Bw => 1,
            Metric::Lat => 2,
        };
        let ys: Vec<f64> = self.window.iter().map(|s| s[k] as f64).collect();
        let c = self.ss.criterion;
        self.judged = judge(c.slope, c.limit, c.percent, &ys);
        if self.judged.attained {
            self.attained_at = Some(now.duration_since(self.epoch));
            for &m in &self.members {
                lives[m].halt.store(true, Relaxed);
            }
        }
    }

    /// The members' I/Os, bytes and completion latency sum, both directions (the sum is over
    /// the same I/Os, so its mean divides by their count).
    fn totals(&self, lives: &[Arc<Live>]) -> [u64; 3] {
        let mut t = [0u64; 3];
        for &m in &self.members {
            let l = &lives[m];
            for d in 0..2 {
                t[0] += l.ios[d].load(Relaxed);
                t[1] += l.bytes[d].load(Relaxed);
                t[2] += l.lat_sums[2 + d].load(Relaxed);
            }
        }
        t
    }

    pub fn report(&self) -> SteadyReport {
        let col = |k: usize| self.window.iter().map(|s| s[k]).collect();
        SteadyReport {
            criterion: self.ss.criterion,
            duration_ns: self.ss.dur.as_nanos() as u64,
            ramp_ns: self.ss.ramp.as_nanos() as u64,
            interval_ns: self.ss.interval.as_nanos() as u64,
            attained: self.attained_at.is_some(),
            attained_at_ns: self.attained_at.map(|d| d.as_nanos() as u64),
            judged: self.judged,
            iops: col(0),
            bw: col(1),
            lat_ns: col(2),
        }
    }
}
