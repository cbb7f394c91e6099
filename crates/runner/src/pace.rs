//! How a job waits when it has nothing to issue: a sleep the stop flag cuts short, fio's
//! think time (spin, then sleep), the rate cap's wait for the next I/O's due time, and the
//! flow's hold-back.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// The due time of an I/O nothing paces (no rate cap, a replay at max speed).
pub const NOT_DUE: u64 = u64::MAX;

/// Sleeps up to `d`, waking early when the run is stopped.
pub(crate) fn sleep_unless_stopped(d: std::time::Duration, stop: &AtomicBool) {
    let until = Instant::now() + d;
    while !stop.load(Relaxed) {
        let now = Instant::now();
        if now >= until {
            break;
        }
        std::thread::sleep((until - now).min(std::time::Duration::from_millis(50)));
    }
}

/// Held back by the flow with nothing in flight: sleep `flow_sleep` µs, or with 0 check again
/// at once, as fio does.
pub(crate) fn hold_back(flow_sleep: u64, stop: &AtomicBool) {
    if flow_sleep > 0 {
        sleep_unless_stopped(std::time::Duration::from_micros(flow_sleep), stop);
    } else {
        std::hint::spin_loop();
    }
}

/// fio's think: spin `spin_us`, then sleep the rest of `us`, neither past the time `left`
/// (ns) to the job's deadline.
pub(crate) fn think_for(t: workload::Think, left: Option<u64>, stop: &AtomicBool) {
    let cap = |us: u64| left.map_or(us * 1000, |l| (us * 1000).min(l));
    wait_ns(cap(t.spin_us.min(t.us)), cap(t.us), stop);
}

/// Waits `total` ns, the first `spin` of them on the CPU. Like fio's think, the sleep stops
/// short by the timer's slack and the last stretch is spun, so a 1 ms wait lasts 1 ms, not
/// 1.1, and a rate-capped I/O goes when it is due, not 40-90 µs after (a VM's wake-up).
pub(crate) fn wait_ns(spin: u64, total: u64, stop: &AtomicBool) {
    const SLACK_NS: u64 = 100_000;
    let from = Instant::now();
    let spent = || from.elapsed().as_nanos() as u64;
    while spent() < spin {
        std::hint::spin_loop();
    }
    let sleep = total.saturating_sub(spent()).saturating_sub(SLACK_NS);
    sleep_unless_stopped(std::time::Duration::from_nanos(sleep), stop);
    while spent() < total && !stop.load(Relaxed) {
        std::hint::spin_loop();
    }
}
