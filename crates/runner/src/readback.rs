//! The closing read-back of a verifying job (fio's do_verify), and how a failed or short
//! I/O is described, which the job's loop shares.

use crate::data;
use crate::live::JobInput;
use engine::{Engine, Op, Request};
use stats::{DirStats, JobStats};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// One line for an I/O the kernel failed (a negative errno) or cut short.
pub(crate) fn describe(res: i64, op: Op, offset: u64, len: u32) -> String {
    let what = match op {
        Op::Read => "read",
        Op::Write => "write",
    };
    if res < 0 {
        format!(
            "{what} of {len} bytes at offset {offset} failed: {}",
            std::io::Error::from_raw_os_error((-res) as i32)
        )
    } else {
        format!("short {what} at offset {offset}: {res} of {len} bytes")
    }
}

/// fio's do_verify: read back what the write phase wrote and check every block; the number
/// checked (0 when there is no such pass). Only a size-based pass writes every block exactly
/// once, so only then is there a whole region to check. The pass is not part of the measured
/// figures: it waits for the runner to have read the kernel's counters. Its reads, their
/// latency and its duration go to `out`, which fio-JSON counts as the job's reads.
pub(crate) fn closing_verify<E: Engine>(
    eng: &mut E,
    inp: &JobInput,
    depth: usize,
    out: &mut JobStats,
) -> Result<u64, String> {
    let spec = &inp.spec;
    let whole_pass = !spec.time_based
        && !spec.norandommap
        && spec.bssplit.is_empty()
        && spec.number_ios.is_none()
        && spec.io_size.is_none();
    let wanted = spec.do_verify && !spec.rw.reads() && whole_pass && spec.verify_backlog == 0;
    let Some(algo) = spec.verify.filter(|_| wanted && !inp.stop.load(Relaxed)) else {
        return Ok(0);
    };
    while !inp.start.counted.load(Relaxed) && !inp.stop.load(Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let t0 = Instant::now();
    if spec.ioengine != workload::EngineKind::Null {
        for (&fd, &(offset, len)) in inp.fds.iter().zip(&inp.regions) {
            crate::target::settle_written(fd, offset, len);
        }
    }
    let n = verify_pass(
        eng,
        &inp.regions,
        spec.bs as u32,
        depth,
        algo,
        &inp.stop,
        &mut out.verify,
    );
    out.verify_ns = t0.elapsed().as_nanos() as u64;
    n
}

/// Reads every block of every region sequentially and checks its verify header.
fn verify_pass<E: Engine>(
    eng: &mut E,
    regions: &[(u64, u64)],
    bs: u32,
    depth: usize,
    algo: workload::Verify,
    stop: &AtomicBool,
    st: &mut DirStats,
) -> Result<u64, String> {
    let mut comps = Vec::with_capacity(depth);
    let mut checked = 0;
    for (f, &(start, len)) in regions.iter().enumerate() {
        let mut next = start;
        let end = start + len / bs as u64 * bs as u64;
        let mut offsets = vec![(0u64, Instant::now()); depth];
        let mut free: Vec<u32> = (0..depth as u32).collect();
        let mut in_flight = 0;
        while (next < end || in_flight > 0) && !stop.load(Relaxed) {
            let mut pushed = false;
            while next < end {
                let Some(slot) = free.pop() else { break };
                offsets[slot as usize] = (next, Instant::now());
                eng.push(Request {
                    op: Op::Read,
                    file: f as u32,
                    offset: next,
                    len: bs,
                    slot,
                })
                .map_err(|e| e.to_string())?;
                next += bs as u64;
                in_flight += 1;
                pushed = true;
            }
            if pushed {
                eng.submit().map_err(|e| e.to_string())?;
            }
            eng.reap(1, &mut comps).map_err(|e| e.to_string())?;
            for c in &comps {
                let (off, at) = offsets[c.slot as usize];
                let ns = at.elapsed().as_nanos() as u64;
                (st.ios, st.bytes) = (st.ios + 1, st.bytes + bs as u64);
                st.clat.record(ns);
                st.lat.record(ns);
                free.push(c.slot);
                in_flight -= 1;
                if c.result != bs as i64 {
                    return Err(describe(c.result, Op::Read, off, bs));
                }
                data::check(&eng.slot(c.slot)[..bs as usize], off, algo)?;
                checked += 1;
            }
        }
    }
    Ok(checked)
}
