//! `--repeat N`, `--repeat-delay` and `--until-stable`: a measurement made several times and
//! reported as one result with the spread of its figures (report::repeats says how).

use crate::cli::RepeatArgs;
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

/// The options' bounds, said before anything runs.
fn check(a: &RepeatArgs) -> Result<()> {
    if let Some(pct) = a.until_stable {
        if !(pct.is_finite() && pct > 0.0 && pct <= 100.0) {
            return Err(crate::cmd::usage(format!(
                "--until-stable={pct}: give a percentage above 0 and at most 100 (5: until the interval is within ±5 % of the mean)"
            )));
        }
        if let Some(n) = a.repeat.filter(|n| (*n as usize) < STABLE_MIN) {
            return Err(crate::cmd::usage(format!(
                "--until-stable with --repeat {n}: an interval needs at least {STABLE_MIN} runs; give --repeat {STABLE_MIN} or more, or leave it out (at most {STABLE_MAX})"
            )));
        }
    }
    Ok(())
}

/// Runs `measure` as `a` asks and combines the runs; stops early on Ctrl-C with the runs
/// done so far (marked in the result as fewer than asked).
pub fn runs(
    a: &RepeatArgs,
    stop: &AtomicBool,
    measure: &mut dyn FnMut() -> Result<RunReport>,
) -> Result<RunReport> {
    check(a)?;
    let max = a.repeat.unwrap_or(if a.until_stable.is_some() {
        STABLE_MAX
    } else {
        1
    }) as usize;
    let mut done: Vec<RunReport> = Vec::new();
    let mut stable = None;
    for i in 0..max {
        if i > 0 {
            if let Some(d) = a.repeat_delay {
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
    let delay_ms = a.repeat_delay.map_or(0, |d| d.as_millis() as u64);
    Ok(repeats::combine(done, delay_ms, stable))
}
