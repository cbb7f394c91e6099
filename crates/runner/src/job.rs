//! One job's hot loop: choose offsets, fill the queue, submit, reap, account.
//!
//! Rules of this loop: no allocation, no locks, no formatting (except on the error path that
//! ends it), no syscalls beyond the I/O and the vDSO clock. One clock read per batch stamps every
//! request pushed in it; counters are published to the sampler with relaxed stores once per
//! batch, never per I/O.

use crate::data;
use crate::offsets::Offsets;
use engine::{Completion, Engine, EngineConfig, EngineError, Op, Request};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use stats::JobStats;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};
use std::time::Instant;
use workload::{BufferMode, EngineKind, JobSpec, SyncMode};

/// Counters the sampler thread reads while the job runs. Aligned so two jobs' counters never
/// share a cache line.
#[repr(align(128))]
#[derive(Default)]
pub struct Live {
    pub ios: [AtomicU64; 2],
    pub bytes: [AtomicU64; 2],
    /// Bytes issued, ramp included: progress for size-based runs.
    pub issued: AtomicU64,
    pub measuring: AtomicBool,
    pub done: AtomicBool,
}

pub struct JobInput {
    pub spec: JobSpec,
    pub clone: u32,
    pub fds: Vec<RawFd>,
    pub offset: u64,
    pub len: u64,
    pub lbs: u32,
    pub live: Arc<Live>,
    pub stop: Arc<AtomicBool>,
    pub start: Arc<Barrier>,
}

#[derive(Default)]
pub struct JobOutput {
    pub stats: JobStats,
    /// The error that ended the job early, if any.
    pub error: Option<String>,
    /// The engine could not be built: nothing ran.
    pub setup_error: Option<EngineError>,
}

#[derive(Clone, Copy)]
struct Meta {
    op: Op,
    offset: u64,
    start: u64,
    sub: u64,
    counted: bool,
}

fn thread_cpu() -> (u64, u64, u64) {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (
        ns(ru.ru_utime),
        ns(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
    )
}

fn describe(res: i64, op: Op, offset: u64, len: u32) -> String {
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

/// Runs one job on this thread: builds the engine here (io_uring rings belong to the thread that
/// made them), meets the others at the start barrier, then drives I/O to the end.
pub fn run(inp: JobInput) -> JobOutput {
    let cfg = EngineConfig {
        fds: inp.fds.clone(),
        depth: inp.spec.effective_iodepth(),
        slot_size: inp.spec.bs as usize,
        align: inp.lbs as usize,
    };
    let mut out = JobOutput::default();
    match inp.spec.ioengine {
        EngineKind::IoUring => match engine::IoUring::new(&cfg) {
            Ok(e) => drive(e, &inp, &mut out),
            Err(e) => fail(&inp, &mut out, e),
        },
        EngineKind::Libaio => match engine::Libaio::new(&cfg) {
            Ok(e) => drive(e, &inp, &mut out),
            Err(e) => fail(&inp, &mut out, e),
        },
        EngineKind::Psync => drive(engine::Psync::new(&cfg), &inp, &mut out),
        EngineKind::Null => drive(engine::Null::new(&cfg), &inp, &mut out),
    }
    inp.live.done.store(true, Relaxed);
    out
}

fn fail(inp: &JobInput, out: &mut JobOutput, e: EngineError) {
    inp.stop.store(true, Relaxed);
    inp.start.wait();
    out.setup_error = Some(e);
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn drive<E: Engine>(mut eng: E, inp: &JobInput, out: &mut JobOutput) {
    let spec = &inp.spec;
    let depth = spec.effective_iodepth() as usize;
    let len = spec.bs as u32;
    let sync_engine = eng.is_sync();
    let read_pct = spec.rw.read_percent(spec.rwmixread) as u32;
    let seed = mix(spec.randseed ^ mix(inp.clone as u64));
    let mut rng = SmallRng::seed_from_u64(seed);
    for s in 0..depth as u32 {
        data::fill(eng.slot(s), &spec.buffer, &mut rng);
    }
    let new_offsets = |salt: u64| {
        if spec.rw.is_random() {
            Offsets::random(inp.offset, inp.len, spec.bs, mix(seed ^ salt))
        } else {
            Offsets::sequential(inp.offset, inp.len, spec.bs)
        }
    };
    let mut offs = [new_offsets(1), new_offsets(2)];
    let stamp = matches!(spec.buffer, BufferMode::Random);
    let verify = spec.verify.is_some();
    let datasync = spec.sync_mode == SyncMode::Fdatasync;
    let sync_every = spec.sync_every as u64;
    let budget = if spec.time_based { u64::MAX } else { inp.len };
    let ramp_ns = spec.ramp_time.as_nanos() as u64;
    let deadline = spec.runtime.map(|r| ramp_ns + r.as_nanos() as u64);

    let mut stats = JobStats::default();
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut meta = vec![
        Meta {
            op: Op::Read,
            offset: 0,
            start: 0,
            sub: 0,
            counted: false,
        };
        depth
    ];
    let mut batch: Vec<u32> = Vec::with_capacity(depth);
    let mut comps: Vec<Completion> = Vec::with_capacity(depth);
    let mut in_flight = 0usize;
    let mut issued = 0u64;
    let mut seq = 0u64;
    let mut writes_since_sync = 0u64;
    let mut need_sync = false;
    let mut error: Option<String> = None;
    let mut measuring = ramp_ns == 0;
    let mut measure_start = 0u64;
    let mut cpu0 = (0, 0, 0);

    inp.start.wait();
    let base = Instant::now();
    let now = || base.elapsed().as_nanos() as u64;
    if measuring {
        cpu0 = thread_cpu();
        inp.live.measuring.store(true, Relaxed);
    }

    loop {
        let t = now();
        if !measuring && t >= ramp_ns {
            measuring = true;
            measure_start = t;
            cpu0 = thread_cpu();
            inp.live.measuring.store(true, Relaxed);
        }
        let stopping = error.is_some()
            || inp.stop.load(Relaxed)
            || deadline.is_some_and(|d| t >= d)
            || issued >= budget;

        if need_sync && in_flight == 0 {
            if error.is_none() {
                let t0 = now();
                let r = eng.sync(0, datasync);
                let t1 = now();
                match r {
                    Err(e) => error = Some(format!("fsync failed: {e}")),
                    Ok(()) if measuring => stats.sync.record(t1 - t0),
                    Ok(()) => {}
                }
            }
            writes_since_sync = 0;
            need_sync = false;
            continue;
        }

        let mut pushed = 0u64;
        if !stopping && !need_sync {
            while let Some(&slot) = free.last() {
                let is_read = read_pct == 100 || (read_pct > 0 && rng.next_u32() % 100 < read_pct);
                let (op, dir) = if is_read {
                    (Op::Read, 0)
                } else {
                    (Op::Write, 1)
                };
                let offset = offs[dir].next();
                if !is_read {
                    let buf = &mut eng.slot(slot)[..len as usize];
                    if stamp {
                        data::stamp(buf, offset, seq);
                    }
                    if verify {
                        data::write_header(buf, offset, seq);
                    }
                    seq += 1;
                }
                meta[slot as usize] = Meta {
                    op,
                    offset,
                    start: t,
                    sub: t,
                    counted: measuring,
                };
                if let Err(e) = eng.push(Request {
                    op,
                    file: 0,
                    offset,
                    len,
                    slot,
                }) {
                    error = Some(e.to_string());
                    break;
                }
                free.pop();
                batch.push(slot);
                pushed += 1;
                issued += len as u64;
                if !is_read && sync_every > 0 {
                    writes_since_sync += 1;
                    if writes_since_sync >= sync_every {
                        need_sync = true;
                        break;
                    }
                }
                if issued >= budget {
                    break;
                }
            }
        }
        if pushed > 0 {
            if let Err(e) = eng.submit() {
                error = Some(e.to_string());
                break;
            }
            in_flight += pushed as usize;
            stats.mark_depth(in_flight as u32, pushed);
            if !sync_engine {
                let ts = now();
                for &s in &batch {
                    meta[s as usize].sub = ts;
                }
            }
            batch.clear();
            inp.live.issued.store(issued, Relaxed);
        }
        if in_flight == 0 {
            if need_sync {
                continue;
            }
            if stopping || error.is_some() {
                break;
            }
            continue;
        }
        let min = if need_sync || stopping { in_flight } else { 1 };
        if let Err(e) = eng.reap(min, &mut comps) {
            error = Some(e.to_string());
            break;
        }
        let tc = now();
        for c in &comps {
            let m = meta[c.slot as usize];
            free.push(c.slot);
            if c.result != len as i64 {
                if error.is_none() {
                    error = Some(describe(c.result, m.op, m.offset, len));
                }
                continue;
            }
            if verify && m.op == Op::Read {
                if let Err(e) = data::check(&eng.slot(c.slot)[..len as usize], m.offset) {
                    if error.is_none() {
                        error = Some(format!("verify failed: {e}"));
                    }
                    continue;
                }
            }
            if m.counted {
                let d = &mut stats.dirs[(m.op == Op::Write) as usize];
                d.ios += 1;
                d.bytes += len as u64;
                if sync_engine {
                    d.clat.record(tc - m.start);
                } else {
                    d.slat.record(m.sub - m.start);
                    d.clat.record(tc - m.sub);
                }
                d.lat.record(tc - m.start);
            }
        }
        in_flight -= comps.len();
        if measuring {
            for d in 0..2 {
                inp.live.ios[d].store(stats.dirs[d].ios, Relaxed);
                inp.live.bytes[d].store(stats.dirs[d].bytes, Relaxed);
            }
        }
    }

    if spec.end_fsync && spec.rw.writes() && error.is_none() && in_flight == 0 {
        if let Err(e) = eng.sync(0, false) {
            error = Some(format!("final fsync failed: {e}"));
        }
    }
    let t_end = now();
    if measuring {
        let cpu1 = thread_cpu();
        stats.runtime_ns = t_end - measure_start;
        stats.usr_ns = cpu1.0.saturating_sub(cpu0.0);
        stats.sys_ns = cpu1.1.saturating_sub(cpu0.1);
        stats.ctx = cpu1.2.saturating_sub(cpu0.2);
    }
    drop(eng);
    out.stats = stats;
    out.error = error;
}
