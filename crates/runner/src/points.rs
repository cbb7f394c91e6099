//! Running a list of points (a sweep's combinations, a suite's tests, fsync's cases, infer's
//! probes): numbered with an ETA once the count is known, a checkpoint after each, so an
//! interrupted list keeps what it measured, and no new point once Ctrl-C has raised the stop
//! flag. One API for every command that runs more than one workload.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The points of one list, as they are run.
pub struct Points {
    stop: Arc<AtomicBool>,
    total: Option<usize>,
    done: usize,
    began: Instant,
}

/// One point about to run.
#[derive(Clone, Debug)]
pub struct Step {
    /// 1 for the first point.
    pub number: usize,
    pub total: Option<usize>,
    /// The time the rest of the list should take, at the pace so far (none before the first
    /// point has run).
    pub eta: Option<Duration>,
}

impl Step {
    /// `3/12, eta 1m 30s`: where the list stands, for a progress line.
    pub fn position(&self) -> String {
        let mut s = match self.total {
            Some(n) => format!("{}/{n}", self.number),
            None => self.number.to_string(),
        };
        if let Some(eta) = self.eta {
            let secs = Duration::from_secs(eta.as_secs());
            s.push_str(&format!(", eta {}", humantime::format_duration(secs)));
        }
        s
    }
}

impl Points {
    /// A list of `total` points (`None` when the list decides as it goes), stopped by `stop`.
    pub fn new(stop: Arc<AtomicBool>, total: Option<usize>) -> Points {
        Points {
            stop,
            total,
            done: 0,
            began: Instant::now(),
        }
    }

    /// The next point, or `None` once the stop flag is up (the list ends there) or every point
    /// has run.
    pub fn step(&mut self) -> Option<Step> {
        self.step_of(1)
    }

    /// The next point when it counts for `weight` points of the list (fsync's penalty is four
    /// runs in a row): numbered as the next one, the rest of the list after all of them.
    pub fn step_of(&mut self, weight: usize) -> Option<Step> {
        if self.interrupted() || self.total.is_some_and(|n| self.done >= n) {
            return None;
        }
        let eta = match (self.total, self.done) {
            (Some(n), d) if d > 0 => {
                let per = self.began.elapsed().as_secs_f64() / d as f64;
                Some(Duration::from_secs_f64(per * (n - d) as f64))
            }
            _ => None,
        };
        let number = self.done + 1;
        self.done += weight.max(1);
        Some(Step {
            number,
            total: self.total,
            eta,
        })
    }

    /// Whether Ctrl-C (or the caller) has stopped the list.
    pub fn interrupted(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Runs `point` on each item in turn, `checkpoint` after each, until the items run out, the
    /// stop flag is up, or `point` returns false (a point that failed or was cut short). The
    /// state both closures share is passed to each, so that they can both hold on to it.
    pub fn each<S, T, E>(
        &mut self,
        state: &mut S,
        items: impl IntoIterator<Item = T>,
        mut point: impl FnMut(&mut S, &Step, T) -> Result<bool, E>,
        mut checkpoint: impl FnMut(&mut S) -> Result<(), E>,
    ) -> Result<(), E> {
        for item in items {
            let Some(step) = self.step() else { break };
            let go_on = point(state, &step, item)?;
            checkpoint(state)?;
            if !go_on {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_numbers_checkpoints_and_stops_on_the_flag() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut p = Points::new(stop.clone(), Some(5));
        let mut state = (Vec::new(), 0);
        p.each(
            &mut state,
            1..=5,
            |s, step, i| {
                s.0.push((step.number, step.total, i));
                if i == 3 {
                    stop.store(true, Relaxed);
                }
                Ok::<_, ()>(true)
            },
            |s| {
                s.1 += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(state.0, [(1, Some(5), 1), (2, Some(5), 2), (3, Some(5), 3)]);
        assert_eq!(
            state.1, 3,
            "a checkpoint after every point, the interrupted one too"
        );
        assert!(p.interrupted() && p.step().is_none());
    }

    #[test]
    fn a_point_that_fails_ends_the_list_after_its_checkpoint() {
        let mut p = Points::new(Arc::new(AtomicBool::new(false)), None);
        let mut ran = Vec::new();
        let mut checks = 0;
        p.each(
            &mut ran,
            1..10,
            |r, _, i| {
                Ok::<_, ()>({
                    r.push(i);
                    i < 2
                })
            },
            |_| {
                checks += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!((ran, checks), (vec![1, 2], 2));
        let first = p.step().unwrap();
        assert_eq!((first.number, first.position()), (3, "3".to_string()));
        assert_eq!(p.step_of(4).unwrap().number, 4);
        assert_eq!(
            p.step().unwrap().number,
            8,
            "a point of weight 4 counts for four"
        );
    }
}
