//! One job's hot loop: choose offsets, fill the queue, submit, reap, account.
//!
//! Rules of this loop: no allocation, no locks, no formatting (except on the error path that
//! ends it), no syscalls beyond the I/O and the vDSO clock. One clock read per batch stamps every
//! request pushed in it; counters are published to the sampler with relaxed stores once per
//! batch, never per I/O.

use crate::data;
use crate::offsets::splitmix;
use crate::pick::{Next, Pick, Picker};
use engine::{Completion, Engine, EngineConfig, EngineError, Op, Request};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use stats::JobStats;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::Instant;
use workload::{BufferMode, EngineKind, JobSpec, SyncMode};

/// Counters the sampler thread reads while the job runs. Aligned so two jobs' counters never
/// share a cache line.
#[repr(align(128))]
#[derive(Default)]
pub struct Live {
    pub ios: [AtomicU64; 2],
    pub bytes: [AtomicU64; 2],
    /// Latency sums of the counted I/Os: total, completion, submission; reads then writes.
    pub lat_sums: [AtomicU64; 6],
    /// Bytes issued, ramp included: progress for size-based runs.
    pub issued: AtomicU64,
    pub measuring: AtomicBool,
    /// The job's measured I/O is over (set before its verify pass and engine teardown, which
    /// the kernel's counters for the run must not include).
    pub ended: AtomicBool,
    pub done: AtomicBool,
}

pub struct JobInput {
    pub spec: JobSpec,
    pub clone: u32,
    /// One descriptor per file, and the region `(offset, len)` of each.
    pub fds: Vec<RawFd>,
    pub regions: Vec<(u64, u64)>,
    pub lbs: u32,
    pub live: Arc<Live>,
    pub stop: Arc<AtomicBool>,
    pub start: Arc<StartLine>,
    /// This job's place among the jobs of its `flow_id`, if it has a weight (taken by the
    /// loop, and dropped when it ends, which gives the others its share).
    pub flow: std::cell::Cell<Option<crate::flow::Flow>>,
}

/// Where a phase's jobs meet before measuring. Each job counts itself ready once its setup is
/// done; the runner waits for all, fixes the common clock (`epoch`), then releases the barrier.
/// Every job measures from that one instant, so a job whose thread is scheduled late does
/// less I/O in the common interval rather than measuring a window of its own.
pub struct StartLine {
    pub ready: AtomicUsize,
    pub barrier: Barrier,
    pub epoch: OnceLock<Instant>,
    /// Set by the runner once it has read the kernel's counters after the phase's measured
    /// I/O: a job waits for it before a verify pass, whose reads are not part of the run.
    pub counted: AtomicBool,
}

impl StartLine {
    pub fn new(jobs: usize) -> StartLine {
        StartLine {
            ready: AtomicUsize::new(0),
            barrier: Barrier::new(jobs + 1),
            epoch: OnceLock::new(),
            counted: AtomicBool::new(false),
        }
    }

    /// A job's side: ready, wait for the start, return the common clock.
    fn arrive(&self) -> Instant {
        self.ready.fetch_add(1, Relaxed);
        self.barrier.wait();
        *self
            .epoch
            .get()
            .expect("the runner sets the epoch before releasing the barrier")
    }
}

#[derive(Default)]
pub struct JobOutput {
    pub stats: JobStats,
    /// The error that ended the job early, if any.
    pub error: Option<String>,
    /// The engine could not be built: nothing ran.
    pub setup_error: Option<EngineError>,
    /// Blocks read back and checked by the `do_verify` pass.
    pub verified: u64,
    /// Window maxima and latency histograms for fio's logs, when the job asked for them.
    pub windows: Option<stats::WindowLog>,
}

#[derive(Clone, Copy)]
struct Meta {
    op: Op,
    len: u32,
    file: u32,
    /// Pushed and not yet reaped.
    busy: bool,
    offset: u64,
    start: u64,
    sub: u64,
}

/// Sleeps up to `d`, waking early when the run is stopped.
fn sleep_unless_stopped(d: std::time::Duration, stop: &AtomicBool) {
    let until = Instant::now() + d;
    while !stop.load(Relaxed) {
        let now = Instant::now();
        if now >= until {
            break;
        }
        std::thread::sleep((until - now).min(std::time::Duration::from_millis(50)));
    }
}

/// (user ns, system ns, context switches) from getrusage: `RUSAGE_THREAD` for a job thread,
/// `RUSAGE_SELF` for the whole process.
pub(crate) fn rusage(who: libc::c_int) -> (u64, u64, u64) {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (
        ns(ru.ru_utime),
        ns(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
    )
}

fn thread_cpu() -> (u64, u64, u64) {
    rusage(libc::RUSAGE_THREAD)
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
    let mut out = JobOutput::default();
    if let Err(e) = pin(&inp.spec, inp.clone) {
        fail(&inp, &mut out, e);
        inp.live.done.store(true, Relaxed);
        return out;
    }
    let cfg = EngineConfig {
        fds: inp.fds.clone(),
        depth: inp.spec.effective_iodepth(),
        slot_size: inp.spec.max_bs() as usize,
        align: inp.lbs as usize,
        write_dsync: inp.spec.rwf_dsync,
        hipri: inp.spec.hipri,
    };
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
    inp.start.arrive();
    out.setup_error = Some(e);
}

/// fio's `prioclass`/`prio`: the I/O priority of this thread (ioprio_set with
/// IOPRIO_WHO_PROCESS and 0, which names the calling thread).
fn set_ioprio(class: u8, level: u8) -> Result<(), EngineError> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    let value = ((class as libc::c_long) << 13) | level as libc::c_long;
    // SAFETY: a plain syscall with integer arguments.
    let rc = unsafe { libc::syscall(libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value) };
    if rc != 0 {
        return Err(EngineError::Io {
            engine: "prioclass",
            what: "the kernel refused the I/O priority (the realtime class needs root)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Puts this job's thread on its CPUs (fio's `cpus_allowed`): all of them, or with
/// `cpus_allowed_policy=split` one per clone in turn.
fn pin(spec: &JobSpec, clone: u32) -> Result<(), EngineError> {
    if let Some((class, level)) = spec.ioprio {
        set_ioprio(class, level)?;
    }
    let Some(cpus) = &spec.cpus else {
        return Ok(());
    };
    let chosen: Vec<u32> = if spec.cpus_split {
        vec![cpus[clone as usize % cpus.len()]]
    } else {
        cpus.clone()
    };
    // SAFETY: a zeroed cpu_set_t is empty; CPU_SET writes inside it for CPUs below 1024.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in &chosen {
            libc::CPU_SET(c as usize, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(EngineError::Io {
            engine: "cpus_allowed",
            what: "no CPU of the list is online here (see nproc)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}

fn drive<E: Engine>(mut eng: E, inp: &JobInput, out: &mut JobOutput) {
    let spec = &inp.spec;
    let depth = spec.effective_iodepth() as usize;
    let sync_engine = eng.is_sync();
    let seed = splitmix(spec.randseed ^ splitmix(inp.clone as u64));
    let mut rng = SmallRng::seed_from_u64(seed);
    for s in 0..depth as u32 {
        data::fill(eng.slot(s), &spec.buffer, &mut rng);
    }
    let mut picker = Picker::new(spec, seed, rng, &inp.regions, depth, inp.flow.take());
    let nfiles = inp.fds.len() as u32;
    // Stamps go at the head of each 4 KiB, inside a compressible buffer's random part.
    let stamp = match spec.buffer {
        BufferMode::Random => true,
        BufferMode::Compressible { percent, .. } => percent < 100,
        _ => false,
    };
    let verify = spec.verify;
    let datasync = spec.sync_mode == SyncMode::Fdatasync;
    let sync_every = spec.sync_every as u64;
    let region_bytes: u64 = inp.regions.iter().map(|r| r.1).sum();
    // number_ios only stops a job early: it never extends the work past size (fio's rule).
    let budget = if spec.time_based {
        u64::MAX
    } else {
        spec.io_size
            .unwrap_or(region_bytes)
            .saturating_mul(spec.loops.max(1) as u64)
    };
    let ios_budget = spec.number_ios.unwrap_or(u64::MAX);
    let ramp_ns = spec.ramp_time.as_nanos() as u64;
    let deadline = spec.runtime.map(|r| ramp_ns + r.as_nanos() as u64);
    let serialize = spec.serialize_overlap && depth > 1;
    // fio's thinktime: after `blocks` I/Os, drain the queue, then think (spin, then sleep).
    let think = spec.think.filter(|t| t.us > 0);
    let (mut think_last, mut think_due, mut completed) = (0u64, None, 0u64);

    let mut stats = JobStats::default();
    prepare_hists(&mut stats, spec, sync_engine);
    let (max_ms, hist_ms) = spec.logs.window_ms();
    let mut windows = stats::WindowLog::new(max_ms, hist_ms);
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut meta = vec![
        Meta {
            op: Op::Read,
            len: 0,
            file: 0,
            busy: false,
            offset: 0,
            start: 0,
            sub: 0,
        };
        depth
    ];
    let mut batch: Vec<u32> = Vec::with_capacity(depth);
    let batch_submit = (spec.iodepth_batch_submit.max(1) as usize).min(depth);
    let mut comps: Vec<Completion> = Vec::with_capacity(depth);
    let mut in_flight = 0usize;
    let mut issued = 0u64;
    let mut issued_ios = 0u64;
    let mut seq = 0u64;
    let mut last_write_file = 0u32;
    let mut writes_since_sync = 0u64;
    let mut last_write_late = false;
    let mut need_sync = false;
    // When the first write of the current sync batch was issued (for `stats.durable`).
    let mut durable_from = 0u64;
    let mut error: Option<String> = None;
    let mut measuring = ramp_ns == 0;
    let mut measure_start = 0u64;
    // Where a time-based window ends (the deadline, or the moment a stop was asked for). I/Os
    // completing after it are reaped but not counted, and the runtime ends there, as fio
    // does: counting the I/Os submitted in the window over the time to the last completion
    // left one tail latency out of the rate (3 % low in a 2 s run on a throttled volume,
    // whose last I/O waited 70 ms for the throttle's next slice).
    let mut cut: Option<u64> = None;
    let mut cpu0 = (0, 0, 0);

    // The job's clock starts at the phase's common start (plus its own startdelay), never at
    // the moment this thread happens to be scheduled.
    let base = inp.start.arrive() + spec.startdelay;
    sleep_unless_stopped(base.saturating_duration_since(Instant::now()), &inp.stop);
    let now = || base.elapsed().as_nanos() as u64;
    if measuring {
        cpu0 = thread_cpu();
        inp.live.measuring.store(true, Relaxed);
    }

    loop {
        let t = now();
        if !measuring && t >= ramp_ns {
            measuring = true;
            // The measured interval starts at the common ramp end for every job.
            measure_start = ramp_ns;
            cpu0 = thread_cpu();
            inp.live.measuring.store(true, Relaxed);
        }
        let timed_out = deadline.is_some_and(|d| t >= d);
        let stop_asked = inp.stop.load(Relaxed);
        if cut.is_none() && (timed_out || stop_asked) {
            cut = Some(deadline.map_or(t, |d| d.min(t)));
        }
        // With verify_backlog, the written blocks not yet read back are read once the writes
        // are all issued (fio's closing verify), unless time ran out.
        let writes_done = issued >= budget || issued_ios >= ios_budget;
        let draining = writes_done && picker.backlog.as_ref().is_some_and(|b| !b.is_empty());
        let stopping = error.is_some() || stop_asked || timed_out || (writes_done && !draining);

        if need_sync && in_flight == 0 {
            // A write that completed after the window is not counted, nor is a sync issued
            // for it: every sync issued is one reported, and as many as the counted writes
            // with fsync=1.
            if error.is_none() && !last_write_late {
                let t0 = now();
                let r = eng.sync(last_write_file, datasync);
                let t1 = now();
                match r {
                    Err(e) => error = Some(format!("fsync failed: {e}")),
                    Ok(()) if measuring => {
                        stats.sync.record(t1 - t0);
                        stats.durable.record(t1 - durable_from);
                    }
                    Ok(()) => {}
                }
            }
            writes_since_sync = 0;
            need_sync = false;
            continue;
        }

        let mut pushed = 0u64;
        let mut rate_wait = 0u64;
        let mut held = false;
        // When the next I/O's preparation starts: the turn's clock for the first, then the
        // return of the submission before it (no clock read of its own per I/O).
        let mut prep_at = t;
        if !stopping && !need_sync && think_due.is_none() {
            while let Some(&slot) = free.last() {
                let Next {
                    op,
                    len,
                    file,
                    offset,
                    back,
                    ..
                } = match picker.next(t, writes_done) {
                    Pick::Io(n) if serialize && overlaps(&meta, &n) => {
                        picker.hold(n);
                        break;
                    }
                    Pick::Io(n) => n,
                    Pick::Wait(ns) => {
                        rate_wait = ns;
                        break;
                    }
                    Pick::Held => {
                        held = true;
                        break;
                    }
                    Pick::Done => break,
                };
                if op == Op::Write {
                    last_write_file = file;
                    let buf = &mut eng.slot(slot)[..len as usize];
                    mark(buf, offset, seq, stamp, verify);
                    seq += 1;
                }
                // fio's split: slat runs from this I/O's preparation to the return of the
                // submission carrying it, clat from there to its completion. A turn that
                // refills many slots must not charge the earlier submissions to later I/Os.
                meta[slot as usize] = Meta {
                    op,
                    len,
                    file,
                    busy: true,
                    offset,
                    start: prep_at,
                    sub: prep_at,
                };
                if let Err(e) = eng.push(Request {
                    op,
                    file,
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
                if !back {
                    issued += len as u64;
                    issued_ios += 1;
                }
                // fio checks after each issue; an I/O at depth 1 or on a synchronous engine
                // has completed by then, so there the issues are the completions.
                if let Some(tk) = think {
                    let at_once = tk.on_issue || sync_engine || depth == 1;
                    let b = if at_once { issued_ios } else { completed };
                    if b >= think_last + tk.blocks {
                        think_due = Some(b);
                        break;
                    }
                }
                // fio's iodepth_batch_submit: hand the kernel each group of this many at once
                // (1, the default, submits every I/O as soon as it is ready).
                if batch.len() >= batch_submit {
                    match submit_batch(
                        &mut eng,
                        &mut batch,
                        &mut meta,
                        &mut in_flight,
                        &mut stats,
                        sync_engine,
                        &now,
                    ) {
                        Ok(ts) => prep_at = ts.unwrap_or(prep_at),
                        Err(e) => {
                            error = Some(e);
                            break;
                        }
                    }
                }
                if op == Op::Write && sync_every > 0 {
                    if writes_since_sync == 0 {
                        durable_from = t;
                    }
                    writes_since_sync += 1;
                    if writes_since_sync >= sync_every {
                        need_sync = true;
                        break;
                    }
                }
                if issued >= budget || issued_ios >= ios_budget {
                    break;
                }
            }
        }
        if !batch.is_empty() && error.is_none() {
            if let Err(e) = submit_batch(
                &mut eng,
                &mut batch,
                &mut meta,
                &mut in_flight,
                &mut stats,
                sync_engine,
                &now,
            ) {
                error = Some(e);
            }
        }
        if error.is_some() && in_flight == 0 {
            break;
        }
        if pushed > 0 {
            inp.live.issued.store(issued, Relaxed);
        }
        if in_flight == 0 {
            if need_sync {
                continue;
            }
            if stopping || error.is_some() {
                break;
            }
            if let (Some(b), Some(tk)) = (think_due.take(), think) {
                think_for(tk, deadline.map(|d| d.saturating_sub(now())), &inp.stop);
                think_last = b;
                continue;
            }
            if rate_wait > 0 {
                let until = deadline.map_or(rate_wait, |d| rate_wait.min(d.saturating_sub(t)));
                sleep_unless_stopped(std::time::Duration::from_nanos(until), &inp.stop);
            } else if held {
                hold_back(spec.flow_sleep, &inp.stop);
            }
            continue;
        }
        let min = if need_sync || stopping || think_due.is_some() {
            in_flight
        } else {
            1
        };
        if let Err(e) = eng.reap(min, &mut comps) {
            error = Some(e.to_string());
            break;
        }
        let tc = now();
        // The window ends at the cut, or at the deadline before the loop has seen it pass:
        // a batch reaped just after the deadline is not part of the run either.
        let window_end = cut.or(deadline).unwrap_or(u64::MAX);
        for c in &comps {
            let m = meta[c.slot as usize];
            meta[c.slot as usize].busy = false;
            free.push(c.slot);
            completed += 1;
            if c.result != m.len as i64 {
                if error.is_none() {
                    error = Some(describe(c.result, m.op, m.offset, m.len));
                }
                continue;
            }
            if let (Some(algo), Op::Read) = (verify, m.op) {
                if let Err(e) = data::check(&eng.slot(c.slot)[..m.len as usize], m.offset, algo) {
                    if error.is_none() {
                        error = Some(format!("verify failed: {e}"));
                    }
                    continue;
                }
            }
            if let (Some(b), Op::Write) = (&mut picker.backlog, m.op) {
                b.written((m.file, m.offset, m.len));
            }
            // Counted when it completes inside the measured window: after the ramp (an I/O
            // submitted during the ramp counts if it completes after it, as in fio) and
            // before the cut.
            if m.op == Op::Write {
                last_write_late = tc > window_end;
            }
            if tc >= ramp_ns && tc <= window_end {
                count(&mut stats, &mut windows, &m, tc, tc - ramp_ns, sync_engine);
            }
        }
        in_flight -= comps.len();
        if measuring {
            publish(&inp.live, &stats);
        }
    }

    if spec.end_fsync && spec.rw.writes() && error.is_none() && in_flight == 0 {
        for f in 0..nfiles {
            if let Err(e) = eng.sync(f, false) {
                error = Some(format!("final fsync failed: {e}"));
                break;
            }
        }
    }
    let t_end = now();
    inp.live.ended.store(true, Relaxed);
    if measuring {
        let cpu1 = thread_cpu();
        stats.runtime_ns = cut.map_or(t_end, |c| c.min(t_end)) - measure_start;
        stats.usr_ns = cpu1.0.saturating_sub(cpu0.0);
        stats.sys_ns = cpu1.1.saturating_sub(cpu0.1);
        stats.ctx = cpu1.2.saturating_sub(cpu0.2);
    }
    if error.is_none() {
        match closing_verify(&mut eng, inp, depth) {
            Ok(n) => out.verified = n,
            Err(e) => error = Some(format!("verify failed: {e}")),
        }
    }
    drop(eng);
    out.stats = stats;
    out.windows = windows;
    out.error = error;
}

/// fio's do_verify: read back what the write phase wrote and check every block; the number
/// checked (0 when there is no such pass). Only a size-based pass writes every block exactly
/// once, so only then is there a whole region to check. The pass is not part of the measured
/// figures: it waits for the runner to have read the kernel's counters.
fn closing_verify<E: Engine>(eng: &mut E, inp: &JobInput, depth: usize) -> Result<u64, String> {
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
    verify_pass(eng, &inp.regions, spec.bs as u32, depth, algo, &inp.stop)
}

/// Accounts one I/O that completed at `tc` inside the measured window (`t` into it): fio's
/// split, slat from its preparation to the return of its submission and clat from there to
/// its completion (a synchronous engine has no submission of its own: all of it is clat).
#[inline]
fn count(
    stats: &mut JobStats,
    windows: &mut Option<stats::WindowLog>,
    m: &Meta,
    tc: u64,
    t: u64,
    sync_engine: bool,
) {
    let dir = (m.op == Op::Write) as usize;
    let d = &mut stats.dirs[dir];
    d.ios += 1;
    d.bytes += m.len as u64;
    let (slat, clat) = if sync_engine {
        (0, tc - m.start)
    } else {
        d.slat.record(m.sub - m.start);
        (m.sub - m.start, tc - m.sub)
    };
    d.clat.record(clat);
    d.lat.record(tc - m.start);
    if let Some(w) = windows {
        w.record(t, dir, tc - m.start, clat, slat);
    }
}

/// Hands the sampler the job's running totals: relaxed stores, once per turn.
#[inline]
fn publish(live: &Live, stats: &JobStats) {
    for d in 0..2 {
        let s = &stats.dirs[d];
        live.ios[d].store(s.ios, Relaxed);
        live.bytes[d].store(s.bytes, Relaxed);
        live.lat_sums[d].store(s.lat.sum(), Relaxed);
        live.lat_sums[2 + d].store(s.clat.sum(), Relaxed);
        live.lat_sums[4 + d].store(s.slat.sum(), Relaxed);
    }
}

/// Held back by the flow with nothing in flight: sleep `flow_sleep` µs, or with 0 check again
/// at once, as fio does.
fn hold_back(flow_sleep: u64, stop: &AtomicBool) {
    if flow_sleep > 0 {
        sleep_unless_stopped(std::time::Duration::from_micros(flow_sleep), stop);
    } else {
        std::hint::spin_loop();
    }
}

/// fio's think: spin `spin_us`, then sleep the rest of `us`, neither past the time `left`
/// (ns) to the job's deadline. Like fio, the sleep stops short by the timer's slack and the
/// last stretch is spun, so a 1 ms think lasts 1 ms, not 1.1.
fn think_for(t: workload::Think, left: Option<u64>, stop: &AtomicBool) {
    const SLACK_NS: u64 = 100_000;
    let cap = |us: u64| left.map_or(us * 1000, |l| (us * 1000).min(l));
    let (spin, total) = (cap(t.spin_us.min(t.us)), cap(t.us));
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

/// Marks a write's buffer: offset and sequence in each 4 KiB (no two writes carry the same
/// data), and the verify header when the job verifies.
#[inline]
fn mark(buf: &mut [u8], offset: u64, seq: u64, stamp: bool, verify: Option<workload::Verify>) {
    if stamp {
        data::stamp(buf, offset, seq);
    }
    if let Some(algo) = verify {
        data::write_header(buf, offset, seq, algo);
    }
}

/// fio's `serialize_overlap`: does `n` touch a byte of an I/O still in flight on its file?
/// One pass over the queue's slots, only for jobs that ask.
fn overlaps(meta: &[Meta], n: &Next) -> bool {
    let end = n.offset + n.len as u64;
    meta.iter()
        .any(|m| m.busy && m.file == n.file && m.offset < end && n.offset < m.offset + m.len as u64)
}

/// Allocates the histograms this job will fill before the start line, so that neither the
/// start of hundreds of jobs nor the first I/O of each pays for the others.
fn prepare_hists(stats: &mut JobStats, spec: &JobSpec, sync_engine: bool) {
    // A verify backlog reads back what a write job wrote, and counts the reads.
    let reads = spec.rw.reads() || spec.verify_backlog > 0;
    for (used, d) in [(reads, 0), (spec.rw.writes(), 1)] {
        if used {
            let dir = &mut stats.dirs[d];
            dir.clat.prepare();
            dir.lat.prepare();
            if !sync_engine {
                dir.slat.prepare();
            }
        }
    }
    if spec.sync_every > 0 {
        stats.sync.prepare();
        stats.durable.prepare();
    }
}

/// Submits the pushed requests in `batch`, stamping their submission time, which it returns
/// (async engines) as the next I/O's preparation time.
#[inline]
fn submit_batch<E: Engine>(
    eng: &mut E,
    batch: &mut Vec<u32>,
    meta: &mut [Meta],
    in_flight: &mut usize,
    stats: &mut JobStats,
    sync_engine: bool,
    now: &impl Fn() -> u64,
) -> Result<Option<u64>, String> {
    eng.submit().map_err(|e| e.to_string())?;
    *in_flight += batch.len();
    stats.mark_depth(*in_flight as u32, batch.len() as u64);
    let mut ts = None;
    if !sync_engine {
        let t = now();
        for &s in batch.iter() {
            meta[s as usize].sub = t;
        }
        ts = Some(t);
    }
    batch.clear();
    Ok(ts)
}

/// Reads every block of every region sequentially and checks its verify header.
fn verify_pass<E: Engine>(
    eng: &mut E,
    regions: &[(u64, u64)],
    bs: u32,
    depth: usize,
    algo: workload::Verify,
    stop: &AtomicBool,
) -> Result<u64, String> {
    let mut comps = Vec::with_capacity(depth);
    let mut checked = 0;
    for (f, &(start, len)) in regions.iter().enumerate() {
        let mut next = start;
        let end = start + len / bs as u64 * bs as u64;
        let mut offsets = vec![0u64; depth];
        let mut free: Vec<u32> = (0..depth as u32).collect();
        let mut in_flight = 0;
        while (next < end || in_flight > 0) && !stop.load(Relaxed) {
            let mut pushed = false;
            while next < end {
                let Some(slot) = free.pop() else { break };
                offsets[slot as usize] = next;
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
                let off = offsets[c.slot as usize];
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
