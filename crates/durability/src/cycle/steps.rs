//! One cycle's steps: create, the wait while records are acknowledged, the cut, the check
//! that writing really stopped, the boot, the wait for the machine, and verify. Each step has
//! a limit and one line saying why it failed; a cycle that fails to cut or to come back is
//! reported as such, never as a pass.

use super::shell::{self, Ended, Running};
use super::state::{Pending, State};
use super::tested::{self, Verified, Witness};
use super::{new_cycle, Plan};
use crate::protocol::now_ms;
use rand::Rng;
use report::{Cycle, FsyncCost};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Writing has stopped once the witness's count held this long.
const SETTLED: Duration = Duration::from_secs(2);
/// How often the machine is asked whether it is up.
const UP_EVERY: Duration = Duration::from_secs(2);
/// The longest one `--up` attempt may take.
const UP_ATTEMPT: Duration = Duration::from_secs(30);

/// Why a step did not finish: a failure to report, or Ctrl-C.
enum Halt {
    Failed(String),
    Stopped,
}

/// The flush cost on the target; `None` (and a line saying why) when it cannot be measured
/// or Ctrl-C stopped it: the cycles still run (or the loop stops).
pub fn fsync(p: &Plan, stop: &AtomicBool, say: &mut dyn FnMut(&str)) -> Option<FsyncCost> {
    let limit = p.step_timeout.max(Duration::from_secs(120));
    let out = match shell::spawn(&tested::fsync_command(p)) {
        Err(e) => Err(format!("cannot start volbench fsync: {e}")),
        Ok(mut r) => match r.wait(limit, Some(stop)) {
            Ended::Exited(s) if s.success() => Ok(r.stdout()),
            Ended::Exited(s) => Err(format!("volbench fsync {}", shell::failed(&mut r, s))),
            Ended::TimedOut => Err(format!("volbench fsync took over {} s", limit.as_secs())),
            Ended::Stopped => return None,
        },
    };
    let cost = out
        .and_then(|out| {
            serde_json::from_slice::<report::FsyncReport>(&out)
                .map_err(|e| format!("volbench fsync printed no report ({e})"))
        })
        .and_then(|r| {
            tested::fsync_cost(p, &r).ok_or_else(|| "volbench fsync measured no case".into())
        });
    cost.map_err(|e| say(&format!("the flush cost is not measured: {e}")))
        .ok()
}

/// A new cycle from its create to its verify. `None`: stopped by Ctrl-C before the cut (the
/// cycle runs again on resume), or after it (the state's pending cycle is verified on resume).
pub fn one(
    p: &Plan,
    w: &Witness,
    st: &mut State,
    stop: &AtomicBool,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<Option<Cycle>> {
    let mut c = new_cycle(st.done.len() as u32 + 1);
    say(&format!("cycle {}/{}: starting create", c.index, p.cycles));
    let runtime = p.wait.1 + p.step_timeout + Duration::from_secs(60);
    let mut create = match shell::spawn(&tested::create_command(p, w, runtime)) {
        Ok(r) => r,
        Err(e) => {
            return Ok(Some(failed(
                c,
                "error",
                format!("cannot start create: {e}"),
            )))
        }
    };
    let wrote = match write_until_cut(p, w, &mut create, stop, say) {
        Ok(t) => t,
        Err(h) => {
            stop_run(w, &p.file, &mut create);
            return Ok(match h {
                Halt::Failed(e) => Some(failed(c, "error", e)),
                Halt::Stopped => None,
            });
        }
    };
    c.wrote_s = wrote.as_secs_f64();
    say(&format!("cutting the power: {}", p.cut));
    let cut = shell::run(&p.cut, p.step_timeout);
    let cut_ms = now_ms();
    let settled = cut
        .map_err(|e| format!("the cut command {e}"))
        .and_then(|_| settle(p, w));
    match settled {
        Ok(acks) => c.acknowledged = acks,
        Err(e) => {
            stop_run(w, &p.file, &mut create);
            return Ok(Some(failed(c, "cut_failed", e)));
        }
    }
    // The machine is gone: its command's local end (an ssh session) goes too.
    create.kill();
    st.pending = Some(Pending {
        cycle: c,
        booted: false,
        cut_ms,
    });
    st.save(&p.state)?;
    after_cut(p, w, st, stop, say)
}

fn failed(mut c: Cycle, verdict: &str, why: String) -> Cycle {
    c.verdict = verdict.into();
    c.error = Some(why);
    c
}

/// Waits for the first acknowledged record, then a random time in the plan's range while
/// create keeps writing: the time written.
fn write_until_cut(
    p: &Plan,
    w: &Witness,
    create: &mut Running,
    stop: &AtomicBool,
    say: &mut dyn FnMut(&str),
) -> Result<Duration, Halt> {
    let deadline = Instant::now() + p.step_timeout;
    loop {
        alive(create, stop, "before its first record")?;
        let acks = w
            .acks(&p.file)
            .map_err(|e| Halt::Failed(format!("{e:#}")))?;
        if acks.is_some_and(|n| n > 0) {
            break;
        }
        if Instant::now() > deadline {
            return Err(Halt::Failed(format!(
                "the witness acknowledged no record of {} within {} s of starting create (is its directory a symlink? give the real path)",
                p.file,
                p.step_timeout.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let began = Instant::now();
    let secs = rand::thread_rng().gen_range(p.wait.0.as_secs_f64()..=p.wait.1.as_secs_f64());
    say(&format!(
        "records are acknowledged; the cut comes in {secs:.1} s"
    ));
    while began.elapsed().as_secs_f64() < secs {
        alive(create, stop, "before the cut")?;
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(began.elapsed())
}

/// Ctrl-C, or create gone before its time: why.
fn alive(create: &mut Running, stop: &AtomicBool, when: &str) -> Result<(), Halt> {
    if stop.load(Relaxed) {
        return Err(Halt::Stopped);
    }
    if let Ended::Exited(s) = create.wait(Duration::ZERO, None) {
        return Err(Halt::Failed(format!(
            "create stopped {when}: it {}",
            shell::failed(create, s)
        )));
    }
    Ok(())
}

/// After the cut: the witness's count must stop growing. Its final count, or how long it
/// kept growing.
fn settle(p: &Plan, w: &Witness) -> Result<u64, String> {
    let began = Instant::now();
    let (mut last, mut since) = (None, Instant::now());
    loop {
        let acks = w
            .acks(&p.file)
            .map_err(|e| format!("after the cut: {e:#}"))?
            .unwrap_or(0);
        if last != Some(acks) {
            (last, since) = (Some(acks), Instant::now());
        } else if since.elapsed() >= SETTLED {
            return Ok(acks);
        }
        if began.elapsed() > p.step_timeout {
            return Err(format!(
                "records were still acknowledged {} s after the cut command returned: the power was not cut",
                began.elapsed().as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Ends create for good: the witness refuses its next record, and its command (with what it
/// started here) is killed if it has not ended within a few seconds.
fn stop_run(w: &Witness, file: &str, create: &mut Running) {
    let _ = w.stop(file);
    if !matches!(create.wait(Duration::from_secs(15), None), Ended::Exited(_)) {
        create.kill();
    }
}

/// The rest of the state's pending cycle: boot, the wait for the machine, verify. The cycle
/// stays pending until verify has judged it.
pub fn after_cut(
    p: &Plan,
    w: &Witness,
    st: &mut State,
    stop: &AtomicBool,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<Option<Cycle>> {
    let Some(pending) = st.pending.clone() else {
        return Ok(None);
    };
    let c = pending.cycle.clone();
    if let (Some(boot), false) = (&p.boot, pending.booted) {
        say(&format!("powering on: {boot}"));
        if let Err(e) = shell::run(boot, p.step_timeout) {
            return Ok(Some(failed(c, "not_back", format!("the boot command {e}"))));
        }
        st.pending.as_mut().expect("pending").booted = true;
        st.save(&p.state)?;
    }
    say(&format!("waiting for the machine: {}", p.up));
    let back = match wait_up(p, stop) {
        Ok(()) => now_ms().saturating_sub(pending.cut_ms) as f64 / 1000.0,
        Err(Halt::Stopped) => return Ok(None),
        Err(Halt::Failed(e)) => return Ok(Some(failed(c, "not_back", e))),
    };
    say(&format!("back after {back:.0} s; verifying"));
    // A failed boot, return or verify keeps the cycle pending: a resume tries them again.
    match tested::verify(p, w, stop) {
        Verified::Stopped => Ok(None),
        Verified::Failed(e) => Ok(Some(failed(c, "error", e))),
        Verified::Report(v) => {
            st.pending = None;
            Ok(Some(judged(c, &v, back, st)))
        }
    }
}

/// Polls `--up` until it succeeds, within the plan's limit.
fn wait_up(p: &Plan, stop: &AtomicBool) -> Result<(), Halt> {
    let deadline = Instant::now() + p.up_timeout;
    let mut last = String::from("never answered");
    while Instant::now() < deadline {
        let limit = UP_ATTEMPT.min(deadline.saturating_duration_since(Instant::now()));
        let mut r = shell::spawn(&p.up).map_err(|e| Halt::Failed(format!("--up: {e}")))?;
        match r.wait(limit, Some(stop)) {
            Ended::Exited(s) if s.success() => return Ok(()),
            Ended::Exited(s) => last = shell::failed(&mut r, s),
            Ended::TimedOut => last = format!("did not finish in {} s", limit.as_secs()),
            Ended::Stopped => return Err(Halt::Stopped),
        }
        let pause = Instant::now() + UP_EVERY;
        while Instant::now() < pause {
            if stop.load(Relaxed) {
                return Err(Halt::Stopped);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Err(Halt::Failed(format!(
        "the tested machine did not come back within {} s (the last --up {last})",
        p.up_timeout.as_secs()
    )))
}

/// A cycle with what verify found.
fn judged(mut c: Cycle, v: &crate::verify::VerifyReport, back: f64, st: &mut State) -> Cycle {
    c.back_after_s = Some(back);
    c.checked = v.intact + v.lost;
    c.intact = v.intact;
    c.lost = v.lost;
    c.lost_stale = v.lost_stale;
    c.lost_corrupt = v.lost_corrupt;
    c.header_lost = v.header_lost;
    c.in_flight = v.in_flight_new + v.in_flight_old + v.in_flight_torn;
    c.torn = v.in_flight_torn;
    c.lost_seconds_before_cut = v.lost_seconds_before_end.clone();
    c.verdict = if v.lost == 0 { "pass" } else { "loss" }.into();
    if st.target.is_none() {
        st.target = v.target.clone();
    }
    c
}

/// The line said when a cycle ends.
pub fn cycle_line(p: &Plan, c: &Cycle) -> String {
    let head = format!("cycle {}/{}", c.index, p.cycles);
    match c.verdict.as_str() {
        "pass" | "loss" => format!(
            "{head}: {}: {} of {} acknowledged records lost ({} acknowledged, {} in flight)",
            c.verdict.to_uppercase(),
            c.lost,
            c.checked,
            c.acknowledged,
            c.in_flight
        ),
        v => format!(
            "{head}: {}: {}",
            v.to_uppercase(),
            c.error.as_deref().unwrap_or("")
        ),
    }
}
