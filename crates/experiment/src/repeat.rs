//! `--repeat N`, `--repeat-delay` and `--until-stable`: a measurement made several times and
//! reported as one result with the spread of its figures (report::repeats says how). The
//! driver (`driver.rs`) repeats every measurement through here.

use anyhow::Result;
use report::repeats::{self, Stable};
use report::RunReport;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// `--until-stable`'s runs at most, unless --repeat says.
const STABLE_MAX: u32 = 10;
/// And at least: no interval can be had from fewer.
const STABLE_MIN: usize = 3;

/// The figure `--until-stable` watches: total IOPS, or bandwidth for a run of large blocks
/// (both move together; IOPS is what most users compare).
fn watched(runs: &[RunReport]) -> stats::Spread {
    repeats::stats_of(runs).iops
}

/// How often a measurement is made: `--repeat N`, `--repeat-delay`, `--until-stable`. Made
/// by `Repeat::new`, which checks the bounds, so a `Repeat` is always one that can run (the
/// default: once).
#[derive(Debug, Clone, Default)]
pub struct Repeat {
    repeat: Option<u32>,
    delay: Option<std::time::Duration>,
    until_stable: Option<f64>,
}

/// Options that cannot be run as given: the message says which and what to give instead.
#[derive(Debug)]
pub struct BadRepeat(pub String);

impl std::fmt::Display for BadRepeat {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadRepeat {}

impl Repeat {
    /// The repeats asked for, with their bounds checked before anything runs.
    pub fn new(
        repeat: Option<u32>,
        delay: Option<std::time::Duration>,
        until_stable: Option<f64>,
    ) -> std::result::Result<Repeat, BadRepeat> {
        let r = Repeat {
            repeat,
            delay,
            until_stable,
        };
        r.check()?;
        Ok(r)
    }

    /// Whether more than one run may be made (a repeat or until-stable was asked for).
    pub fn repeats(&self) -> bool {
        self.repeat.is_some() || self.until_stable.is_some()
    }

    /// The options' bounds.
    fn check(&self) -> std::result::Result<(), BadRepeat> {
        let Some(pct) = self.until_stable else {
            return Ok(());
        };
        if !(pct.is_finite() && pct > 0.0 && pct <= 100.0) {
            return Err(BadRepeat(format!(
                "--until-stable={pct}: give a percentage above 0 and at most 100 (5: until the interval is within ±5 % of the mean)"
            )));
        }
        if let Some(n) = self.repeat.filter(|n| (*n as usize) < STABLE_MIN) {
            return Err(BadRepeat(format!(
                "--until-stable with --repeat {n}: an interval needs at least {STABLE_MIN} runs; give --repeat {STABLE_MIN} or more, or leave it out (at most {STABLE_MAX})"
            )));
        }
        Ok(())
    }
}

/// Runs `measure` as `a` asks and combines the runs; stops early on Ctrl-C with the runs
/// done so far (marked in the result as fewer than asked).
pub fn runs(
    a: &Repeat,
    stop: &AtomicBool,
    measure: &mut dyn FnMut() -> Result<RunReport>,
) -> Result<RunReport> {
    let max = a.repeat.unwrap_or(if a.until_stable.is_some() {
        STABLE_MAX
    } else {
        1
    }) as usize;
    let mut done: Vec<RunReport> = Vec::new();
    let mut stable = None;
    for i in 0..max {
        if i > 0 {
            if let Some(d) = a.delay {
                std::thread::sleep(d);
            }
        }
        if stop.load(Relaxed) {
            break;
        }
        if scaleout::world::speaks() && max > 1 {
            eprintln!(
                "run {} of {}{}",
                i + 1,
                max,
                if a.until_stable.is_some() {
                    " at most"
                } else {
                    ""
                }
            );
        }
        let r = measure()?;
        let failed = r.error.is_some();
        done.push(r);
        if failed || stop.load(Relaxed) {
            break;
        }
        if let Some(pct) = a.until_stable {
            let s = watched(&done);
            let share = s.half_width_share() * 100.0;
            let reached = done.len() >= STABLE_MIN && share <= pct;
            stable = Some(Stable {
                target_pct: pct,
                max_runs: max,
                reached,
                half_width_pct: share,
            });
            if reached {
                break;
            }
        }
    }
    let delay_ms = a.delay.map_or(0, |d| d.as_millis() as u64);
    Ok(repeats::combine(done, delay_ms, stable))
}
