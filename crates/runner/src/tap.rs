//! The sampler's tap on the live board: a phase's jobs join it when they start and leave it
//! with their last figures, and each sample becomes an interval record for the log.
//!
//! A record waits one sample for its latency percentiles: the job closes an interval at its
//! first completion past the interval's end, a moment after the sampler's tick.

use crate::board::{self, Board, Record};
use crate::live::Live;
use stats::Sample;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) struct Tap {
    board: &'static Board,
    lives: Vec<Arc<Live>>,
    /// Each job's name and clone number.
    who: Vec<(String, u32)>,
    sample_ms: u64,
    /// Each job's last sample, waiting for its interval's percentiles: (unix ms, sample).
    pending: Vec<Option<(u64, Sample)>>,
}

impl Tap {
    /// Puts the phase's jobs on the board, if a command turned it on.
    pub fn open(who: Vec<(String, u32)>, lives: &[Arc<Live>], sample_ms: u64) -> Option<Tap> {
        let board = board::get()?;
        let named: Vec<(&str, Arc<Live>)> = who
            .iter()
            .zip(lives)
            .map(|((n, _), l)| (n.as_str(), l.clone()))
            .collect();
        board.join(&named);
        Some(Tap {
            board,
            lives: lives.to_vec(),
            pending: vec![None; who.len()],
            who,
            sample_ms: sample_ms.max(1),
        })
    }

    /// Job `k` was sampled: its previous sample goes to the log, this one waits.
    pub fn sampled(&mut self, k: usize, s: &Sample) {
        let unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_millis() as u64;
        if let Some(prev) = self.pending[k].replace((unix_ms, *s)) {
            self.emit(k, prev);
        }
    }

    fn emit(&self, k: usize, (unix_ms, mut sample): (u64, Sample)) {
        // The interval a sample covers, on the job's own interval count: the one holding
        // its middle (the sampler's ticks are a millisecond or two off the boundaries).
        let idx = sample.t_ms.saturating_sub(sample.dt_ms / 2) / self.sample_ms;
        let l = &self.lives[k];
        sample.lat_pct.read = (sample.ios[0] > 0).then(|| l.hist[0].pct(idx)).flatten();
        sample.lat_pct.write = (sample.ios[1] > 0).then(|| l.hist[1].pct(idx)).flatten();
        self.board.record(Record {
            host: String::new(),
            job: self.who[k].0.clone(),
            clone: self.who[k].1,
            unix_ms,
            sample,
        });
    }

    /// The phase is over (its jobs joined, their last intervals closed).
    pub fn close(mut self) {
        for k in 0..self.pending.len() {
            if let Some(p) = self.pending[k].take() {
                self.emit(k, p);
            }
        }
        self.board.leave(&self.lives);
    }
}
