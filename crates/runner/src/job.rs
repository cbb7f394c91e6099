//! One job's hot loop, factored as fio's do_io: a [`Job`] holds the clock (ramp, deadline,
//! cut), the budget, the queue, the sync and think state and the figures; [`drive`] turns it
//! until it ends: a sync step when one is due, else fill the queue and submit
//! ([`Job::fill`], fio's io_queue_event side), wait when nothing is in flight
//! ([`Job::idle`]), reap and account ([`Job::reap`], fio's io_completed), then
//! [`Job::finish`].
//!
//! Rules of this loop: no allocation, no locks, no formatting (except on the error path that
//! ends it), no syscalls beyond the I/O and the vDSO clock. One clock read per batch stamps every
//! request pushed in it; counters are published to the sampler with relaxed stores once per
//! batch, never per I/O.

use crate::data;
use crate::lat_search::{Search, Step};
use crate::live::{rusage, JobInput, JobOutput, Live};
use crate::pace::{hold_back, sleep_unless_stopped, think_for, wait_ns};
use crate::permutation::splitmix;
use crate::pick::{Next, Pick, Picker, NOT_DUE};
use crate::placement::pin;
use crate::readback::describe;
use crate::replay::Feed;
use crate::target::{drop_cached, recreate, settle_written};
use engine::{Completion, Engine, EngineConfig, EngineError, Op, Request, SpaceOp};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use stats::{JobStats, WindowLog};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use workload::{EngineKind, JobSpec, SyncMode, Think, Trim};

/// Runs one job on this thread: builds the engine here (io_uring rings belong to the thread that
/// made them), meets the others at the start barrier, then drives I/O to the end.
pub fn run(inp: JobInput) -> JobOutput {
    let mut out = JobOutput::default();
    // fio changes user before anything else of the job (its prerun runs as that user).
    let prerun = || match inp.spec.exec_prerun.as_deref() {
        Some(c) => exec(&inp.spec.name, "prerun", c),
        None => Ok(()),
    };
    // fio joins the job's cgroup after changing user, before the rest.
    let mut joined = None;
    let locked = crate::identity::become_user(&inp.spec, &inp.fds, &inp.paths)
        .and_then(|_| {
            joined = inp.cgroup.as_ref().map(crate::jobgroup::join).transpose()?;
            Ok(())
        })
        .and_then(|_| prerun())
        .and_then(|_| pin(&inp.spec, inp.clone))
        .and_then(|_| crate::lockmem::Pinned::new(&inp.spec.name, inp.spec.lockmem));
    // Held until the job's thread ends, as fio unpins at the end of its thread.
    let _locked = match locked {
        Ok(l) => l,
        Err(e) => {
            fail(&inp, &mut out, e);
            inp.live.done.store(true, Relaxed);
            return out;
        }
    };
    let cfg = EngineConfig {
        fds: inp.fds.clone(),
        depth: inp.spec.effective_iodepth(),
        slot_size: inp.spec.max_bs() as usize,
        align: inp.lbs as usize,
        write_dsync: inp.spec.rwf_dsync,
        hipri: inp.spec.hipri,
        random: inp.spec.rw.is_random(),
        sqpoll: inp.spec.sqthread_poll.then_some(inp.spec.sqthread_poll_cpu),
        uncached: inp.spec.uncached,
        atomic: inp.spec.atomic,
        nowait: inp.spec.nowait,
        force_async: inp.spec.force_async,
        hipri_percent: inp.spec.hipri_percent,
        direct: inp.spec.direct,
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
        EngineKind::Mmap => drive(engine::Psync::mmap(&cfg), &inp, &mut out),
        EngineKind::Null => drive(engine::Null::new(&cfg), &inp, &mut out),
        EngineKind::Falloc => drive(engine::Calls::new(&cfg, SpaceOp::Falloc), &inp, &mut out),
        EngineKind::Ftruncate => {
            drive(engine::Calls::new(&cfg, SpaceOp::Ftruncate), &inp, &mut out)
        }
        EngineKind::FileOp(op) => crate::fileops::drive(op, &inp, &mut out),
        EngineKind::CpuIo => crate::cpuio::drive(&inp, &mut out),
        EngineKind::Exec => crate::exec_job::drive(&inp, &mut out),
        EngineKind::E4Defrag => match defrag(&inp, &cfg) {
            Ok(e) => drive(e, &inp, &mut out),
            Err(e) => fail(&inp, &mut out, e),
        },
    }
    // fio ignores how the postrun command ends.
    if let Some(c) = inp.spec.exec_postrun.as_deref() {
        let _ = exec(&inp.spec.name, "postrun", c);
    }
    // fio's exitall: this job's end (or with exitall_on_error, its error) ends the others.
    let spec = &inp.spec;
    if spec.exitall || (spec.exitall_on_error && out.error.is_some()) {
        inp.stop.store(true, Relaxed);
    }
    // Out of the job's cgroup before the run removes it (fio moves its job out too).
    drop(joined);
    inp.live.done.store(true, Relaxed);
    out
}

/// fio's lockfile: file `file`'s lock taken for an I/O of `op` (shared by reads under
/// `readwrite`, else exclusive); neither when the job locks nothing. A lock left poisoned by
/// a panicked job still serialises.
type Held<'a> = (
    Option<std::sync::RwLockReadGuard<'a, ()>>,
    Option<std::sync::RwLockWriteGuard<'a, ()>>,
);
fn file_lock(inp: &JobInput, file: u32, op: Op) -> Held<'_> {
    let Some(lock) = inp.locks.get(file as usize) else {
        return (None, None);
    };
    if op == Op::Read && inp.spec.lockfile == workload::LockFile::ReadWrite {
        (Some(lock.read().unwrap_or_else(|e| e.into_inner())), None)
    } else {
        (None, Some(lock.write().unwrap_or_else(|e| e.into_inner())))
    }
}

/// fio's exec_string: `sh -c COMMAND` with its output in `NAME.MODE.txt` in the working
/// directory; a command that cannot run or fails is the job's error.
fn exec(name: &str, mode: &str, cmd: &str) -> Result<(), EngineError> {
    let fail = |why: String| EngineError::Setup(format!("exec_{mode} '{cmd}': {why}"));
    let log = std::fs::File::create(format!("{name}.{mode}.txt"))
        .map_err(|e| fail(format!("cannot write {name}.{mode}.txt: {e}")))?;
    let err = log.try_clone().map_err(|e| fail(e.to_string()))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdout(log)
        .stderr(err)
        .status()
        .map_err(|e| fail(e.to_string()))?;
    match status.success() {
        true => Ok(()),
        false => Err(fail(format!(
            "it failed ({status}); its output is in {name}.{mode}.txt"
        ))),
    }
}

/// fio's e4defrag engine over the job's file, its donor (`donorname`, in `directory` when
/// given) opened, made where missing, as fio's init does.
fn defrag(inp: &JobInput, cfg: &EngineConfig) -> Result<engine::Defrag, EngineError> {
    use std::os::unix::fs::OpenOptionsExt;
    let spec = &inp.spec;
    let name = spec.e4defrag_donor.as_deref().unwrap_or_default();
    let path = spec
        .directory
        .as_deref()
        .map_or_else(|| name.into(), |d| d.join(name));
    let donor = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .open(&path)
        .map_err(|e| {
            EngineError::Setup(format!(
                "e4defrag: cannot open the donor {}: {e}",
                path.display()
            ))
        })?;
    let region = inp.regions.first().copied().unwrap_or_default();
    engine::Donor::engine(cfg, donor.into(), spec.e4defrag_inplace, region)
}

/// The engine could not be built: stop the phase, but still meet the others at the start
/// line, which waits for every job.
fn fail(inp: &JobInput, out: &mut JobOutput, e: EngineError) {
    inp.stop.store(true, Relaxed);
    inp.start.arrive();
    out.setup_error = Some(e);
}

/// fio's do_io: turn until the job ends, then finish it.
fn drive<E: Engine>(eng: E, inp: &JobInput, out: &mut JobOutput) {
    out.huge_page_buffers = eng.huge_page_buffers();
    let mut job = Job::new(eng, inp);
    job.start();
    loop {
        let turn = job.turn();
        if job.syncs.need && job.q.in_flight == 0 {
            // fio decides on a sync when it picks the next I/O, and picks none once the
            // job's bytes (or number_ios) are all issued: the sync due after that last write
            // is not issued (fsync=16 over 1,024 writes: 63 syncs in both tools). A remainder
            // under one block still sends fio round once more, and that sync is issued.
            if job.budget.spent_as_fio(&inp.spec) {
                job.syncs.since = 0;
                job.syncs.need = false;
            } else {
                job.sync_step();
            }
            continue;
        }
        if job.q.in_flight == 0 && job.pass_due() {
            job.new_pass();
            continue;
        }
        let filled = job.fill(&turn);
        if job.error.is_some() && job.q.in_flight == 0 {
            break;
        }
        if filled.pushed > 0 {
            inp.live.issued.store(job.budget.issued, Relaxed);
        }
        if job.q.in_flight == 0 {
            if job.idle(&turn, &filled) {
                continue;
            }
            break;
        }
        if !job.reap(&turn, filled.rate_wait) {
            break;
        }
        job.steer();
    }
    job.finish(out);
}

/// An I/O in a queue slot: what it is, and when it was prepared and submitted.
#[derive(Clone, Copy)]
struct Meta {
    op: Op,
    len: u32,
    file: u32,
    /// Pushed and not yet reaped.
    busy: bool,
    /// A read whose data is checked: a read-back of the backlog, or any read of a job that
    /// only reads (fio checks a mixed job's own reads only when it reads back what it wrote).
    verify: bool,
    offset: u64,
    start: u64,
    sub: u64,
    /// When the rate's schedule had it due, or NOT_DUE.
    due: u64,
    /// Since when volbench could have issued it: the queue had room (`Queue::room_at`) and
    /// the submission before it had returned (`Queue::sub_end`).
    room: u64,
}

const EMPTY: Meta = Meta {
    op: Op::Read,
    len: 0,
    file: 0,
    busy: false,
    verify: false,
    offset: 0,
    start: 0,
    sub: 0,
    due: NOT_DUE,
    room: 0,
};

/// The job's clock, in ns from its start: the ramp, the deadline, and the cut.
struct Clock {
    base: Instant,
    ramp_ns: u64,
    deadline: Option<u64>,
    /// Where a time-based window ends (the deadline, or the moment a stop was asked for). I/Os
    /// completing after it are reaped but not counted, and the runtime ends there, as fio
    /// does: counting the I/Os submitted in the window over the time to the last completion
    /// left one tail latency out of the rate (3 % low in a 2 s run on a throttled volume,
    /// whose last I/O waited 70 ms for the throttle's next slice).
    cut: Option<u64>,
    /// Past the ramp. Until then completions are counted too and dropped at the ramp's end,
    /// as fio resets its stats there: a job that ends inside its ramp keeps its whole run.
    measuring: bool,
    /// Where the measured interval starts: 0 until the ramp ends.
    measure_start: u64,
    /// The thread's CPU (user, system, switches) when measuring began (or the job started).
    cpu0: (u64, u64, u64),
    /// When a write job's writes were all issued and its verify backlog began to drain: fio
    /// ends the writes' runtime there and counts the reads' from there.
    drain_at: Option<u64>,
}

impl Clock {
    fn new(spec: &JobSpec) -> Clock {
        // fio's ramp_size ends the ramp after that much I/O, whenever it is: the clock's ramp
        // then ends where the bytes say, and the runtime counts from there.
        let ramp_ns = if spec.ramp_size > 0 {
            u64::MAX
        } else {
            spec.ramp_time.as_nanos() as u64
        };
        Clock {
            base: Instant::now(),
            ramp_ns,
            deadline: spec
                .runtime
                .map(|r| ramp_ns.saturating_add(r.as_nanos() as u64)),
            cut: None,
            measuring: false,
            measure_start: 0,
            cpu0: (0, 0, 0),
            drain_at: None,
        }
    }

    #[inline]
    fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }

    /// Starts the measured interval at `at` (ns); what was counted before it is the caller's
    /// to drop.
    fn measure_from(&mut self, at: u64, live: &Live) {
        self.measuring = true;
        self.measure_start = at;
        self.cpu0 = rusage(libc::RUSAGE_THREAD);
        live.measuring.store(true, Relaxed);
    }

    /// Where the counted window ends: the cut, or the deadline before the loop has seen it
    /// pass (a batch reaped just after the deadline is not part of the run either).
    #[inline]
    fn window_end(&self) -> u64 {
        self.cut.or(self.deadline).unwrap_or(u64::MAX)
    }
}

/// What the job may issue, and what it has.
struct Budget {
    bytes: u64,
    ios: u64,
    issued: u64,
    issued_ios: u64,
}

/// The bytes of one pass over the job's files: `io_size`, or the files' regions, or less
/// where a sequential pass with holes ends short ([`holed_pass`]).
fn pass_bytes(spec: &JobSpec, regions: &[(u64, u64)]) -> u64 {
    let whole = spec.io_size.unwrap_or(regions.iter().map(|r| r.1).sum());
    let holed: Option<u64> = regions.iter().map(|r| holed_pass(spec, r.1)).sum();
    holed.map_or(whole, |h| whole.min(h))
}

/// fio's `rw=read:N` pass over a region of `len` bytes: I/Os at every `bs + N`. When the
/// offset after the last whole I/O is still inside the region, fio cannot place the next
/// I/O and the pass ends there (`read:512k` with bs=1m over 128m reads 85 MiB, fio's own
/// test asserts it); when it falls at or past the end, fio wraps to the start and goes on.
/// None: the pass is not cut short.
fn holed_pass(spec: &JobSpec, len: u64) -> Option<u64> {
    if spec.rw.is_random() || spec.seq_skip <= 0 || spec.mixed_sizes() || len < spec.bs {
        return None;
    }
    let step = spec.bs + spec.seq_skip as u64;
    let n = (len - spec.bs) / step + 1;
    (n * step < len).then_some(n * spec.bs)
}

impl Budget {
    fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Budget {
        // A replay ends with its trace (or its runtime).
        let empty = !regions.is_empty() && regions.iter().all(|r| r.1 == 0);
        let bytes = if spec.create_only || (empty && !spec.replay.on()) {
            // fio's create_only: the files are laid out, and that is the job. So it is when
            // each file is smaller than a block (fio's nrfiles over a small size), even
            // time-based.
            0
        } else if spec.time_based || spec.replay.on() {
            u64::MAX
        } else {
            pass_bytes(spec, regions).saturating_mul(spec.io_loops() as u64)
        };
        Budget {
            bytes,
            // number_ios only stops a job early: it never extends the work past size (fio's rule).
            ios: spec.number_ios.unwrap_or(u64::MAX),
            issued: 0,
            issued_ios: 0,
        }
    }

    #[inline]
    fn spent(&self) -> bool {
        self.issued >= self.bytes || self.issued_ios >= self.ios
    }

    /// Whether fio would pick no further I/O: number_ios reached, or the bytes spent where
    /// fio's own count (the size asked, not cut to whole blocks) is spent too. A size that
    /// is no whole number of blocks leaves fio a remainder, and it goes round once more.
    fn spent_as_fio(&self, spec: &JobSpec) -> bool {
        let whole = spec
            .io_size
            .or(spec.size)
            .is_none_or(|n| n % spec.bs.max(1) == 0);
        self.issued_ios >= self.ios || (self.issued >= self.bytes && whole)
    }
}

/// fio's invalidate at every pass: a buffered job that goes over its files more than once
/// (time-based, or `loops`) drops their cached pages each time it starts over, as fio does
/// when it reopens them, so a pass is not served from the page cache the last one filled.
struct Passes {
    /// The bytes of one pass ([`pass_bytes`]).
    bytes: u64,
    /// Where the next pass starts, in issued bytes.
    next: u64,
    /// A pass is over: drop the cache (or recreate the files) once the queue is empty.
    due: bool,
    /// Drop the cached pages at each pass (a buffered job).
    drop: bool,
    /// fio's unlink_each_loop: delete the files and create them afresh at each loop.
    unlink: bool,
    /// fio verifies after every loop of a write job: each loop's writes read back before the
    /// next loop, inside the runtime (not with experimental_verify, which verifies once).
    verify: bool,
}

impl Passes {
    fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Option<Passes> {
        let bytes = pass_bytes(spec, regions);
        let again = spec.time_based || spec.io_loops() > 1;
        let cached = !spec.direct && spec.ioengine != EngineKind::Null;
        let drop = spec.drops_cache() && cached && again;
        let unlink = spec.unlink_each_loop && spec.io_loops() > 1 && !spec.time_based;
        let verify = spec.reads_back_at_end()
            && !spec.experimental_verify
            && spec.io_loops() > 1
            && !spec.time_based;
        ((drop || unlink || verify) && bytes > 0).then_some(Passes {
            bytes,
            next: bytes,
            due: false,
            drop,
            unlink,
            verify,
        })
    }
}

/// The queue: free slots, what each slot holds, the batch being pushed, the completions.
struct Queue {
    depth: usize,
    free: Vec<u32>,
    meta: Vec<Meta>,
    batch: Vec<u32>,
    /// fio's iodepth_batch_submit: hand the kernel each group of this many at once (1, the
    /// default, submits every I/O as soon as it is ready).
    batch_submit: usize,
    comps: Vec<Completion>,
    in_flight: usize,
    serialize: bool,
    /// fio's iodepth_low: a full queue drains to this many before it is filled again.
    low: usize,
    /// When the queue last had room again after being full (the job's clock): an I/O due
    /// before then waited for the device, one issued later than both was late by
    /// volbench's own doing (a busy host: issue 53).
    room_at: u64,
    /// When the last submission returned. A submission the kernel holds (a cgroup v1
    /// throttle blocks it, as does a block layer out of requests) delays the I/Os after it:
    /// the device's doing, not the host's (a throttled curve's 110 % point read 91 ms of
    /// "lateness" that was io_submit waiting in the throttle).
    sub_end: u64,
}

impl Queue {
    fn new(spec: &JobSpec, depth: usize) -> Queue {
        Queue {
            depth,
            free: (0..depth as u32).rev().collect(),
            meta: vec![EMPTY; depth],
            batch: Vec::with_capacity(depth),
            batch_submit: (spec.iodepth_batch_submit.max(1) as usize).min(depth),
            comps: Vec::with_capacity(depth),
            in_flight: 0,
            serialize: spec.serialize_overlap && depth > 1,
            low: match spec.iodepth_low as usize {
                0 => depth,
                n => n.min(depth),
            },
            room_at: 0,
            sub_end: 0,
        }
    }
}

/// fio's `fsync`/`fdatasync` every N writes.
struct Syncs {
    every: u64,
    datasync: bool,
    since: u64,
    need: bool,
    /// When the first write of the current sync batch was issued (for `stats.durable`).
    from: u64,
    /// The file of the last write, which the sync flushes.
    file: u32,
    /// The last write completed after the window: no sync is issued for it.
    late: bool,
    /// `sync_file_range`'s flags, and each file's range written since its last call (fio's
    /// first_write and last_write), empty as (u64::MAX, 0).
    range: Option<u32>,
    spans: Vec<(u64, u64)>,
}

impl Syncs {
    fn new(spec: &JobSpec, files: usize) -> Syncs {
        let range = match spec.sync_mode {
            SyncMode::FileRange(f) => Some(f),
            _ => None,
        };
        Syncs {
            every: spec.sync_every as u64,
            datasync: spec.sync_mode == SyncMode::Fdatasync,
            since: 0,
            need: false,
            from: 0,
            file: 0,
            late: false,
            range,
            spans: if range.is_some() {
                vec![(u64::MAX, 0); files]
            } else {
                Vec::new()
            },
        }
    }

    /// A completed write widens its file's range for the next sync_file_range.
    #[inline]
    fn covered(&mut self, file: u32, offset: u64, len: u64) {
        if let Some(s) = self.spans.get_mut(file as usize) {
            s.0 = s.0.min(offset);
            s.1 = s.1.max(offset + len);
        }
    }

    /// fio's do_sync_file_range on `fd`: the range written since the last call, if any.
    fn sync_range(&mut self, fd: i32, flags: u32) -> std::io::Result<()> {
        let Some(s) = self.spans.get_mut(self.file as usize) else {
            return Ok(());
        };
        let (lo, hi) = std::mem::replace(s, (u64::MAX, 0));
        if hi <= lo {
            return Ok(());
        }
        // SAFETY: a descriptor the job holds open; the call only reads its arguments.
        let r = unsafe { libc::sync_file_range(fd, lo as i64, (hi - lo) as i64, flags) };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Counts a write issued at `t` toward the next sync; true once that sync is due.
    #[inline]
    fn wrote(&mut self, t: u64) -> bool {
        if self.every == 0 {
            return false;
        }
        if self.since == 0 {
            self.from = t;
        }
        self.since += 1;
        self.need = self.since >= self.every;
        self.need
    }
}

/// fio's thinktime: after `blocks` I/Os, drain the queue, then think (spin, then sleep).
struct Thinking {
    spec: Option<Think>,
    /// The I/O count at the last think, and the one at which the next is due.
    last: u64,
    due: Option<u64>,
    completed: u64,
    /// When the last think ended (the job's clock, ns): thinktime_iotime counts from it.
    /// It starts one think after the start, as fio's.
    last_t: u64,
}

/// Where one turn stands, read once at its start.
struct Turn {
    t: u64,
    /// The budget is issued: only reads back of the verify backlog remain.
    writes_done: bool,
    stopping: bool,
}

/// Why a turn stopped filling the queue.
#[derive(Default)]
struct Filled {
    pushed: u64,
    /// The rate cap's wait before the next I/O may go (ns).
    rate_wait: u64,
    /// The flow held the job back.
    held: bool,
}

/// One job while it runs.
struct Job<'a, E: Engine> {
    eng: E,
    inp: &'a JobInput,
    picker: Picker,
    clock: Clock,
    budget: Budget,
    q: Queue,
    syncs: Syncs,
    think: Thinking,
    stats: JobStats,
    windows: Option<WindowLog>,
    passes: Option<Passes>,
    /// The writes are all issued and the backlog's read-back is next: sync and drop the
    /// files' cached pages once the queue is empty (fio's do_verify).
    settle: bool,
    sync_engine: bool,
    /// What each write carries (see [`data`]).
    data: data::Data,
    seq: u64,
    error: Option<String>,
    /// `fill_fs` met ENOSPC or EDQUOT: the job's end, not its failure.
    full: bool,
    /// fio's latency-target search, for a job that asks for one.
    search: Option<Search>,
    /// fio's rate_min/rate_iops_min floors, when the job has them.
    minrate: Option<crate::minrate::MinRate>,
    /// fio's write_iolog: every I/O issued, with its time.
    iolog: Option<Iolog>,
    /// fio's cmdprio options, with their own random stream (the offsets' is untouched).
    cmdprio: Option<(workload::CmdPrio, SmallRng)>,
    /// fio's verify_state_save: the writes issued and the last ones completed.
    vsave: Option<crate::vstate::Recorder>,
    /// fio's verify_state_load: which reads of a verify_only job check a completed write.
    vlimit: Option<crate::vstate::Limit>,
    /// fio's verify-after-trim (trim_percentage with trim_backlog).
    trimback: Option<crate::trimback::TrimBack>,
    /// Loops whose writes were read back before the next loop (fio's do_verify per loop).
    loops_read_back: u32,
}

type Iolog = trace::IologWriter<std::io::BufWriter<std::fs::File>>;

/// Opens the job's `write_iolog` (None without one; the error ends the job).
fn open_iolog(inp: &JobInput) -> Result<Option<Iolog>, String> {
    let Some(p) = &inp.spec.write_iolog else {
        return Ok(None);
    };
    let f = std::fs::File::create(p).map_err(|e| format!("write_iolog {}: {e}", p.display()))?;
    let w = std::io::BufWriter::with_capacity(1 << 20, f);
    trace::IologWriter::new(w, &inp.paths)
        .map(Some)
        .map_err(|e| format!("write_iolog {}: {e}", p.display()))
}

impl<'a, E: Engine> Job<'a, E> {
    /// Fills the engine's buffers from the job's random stream and sets up its state; the
    /// histograms are allocated here, before the start line.
    fn new(mut eng: E, inp: &'a JobInput) -> Self {
        let spec = &inp.spec;
        let depth = spec.effective_iodepth() as usize;
        let sync_engine = eng.is_sync();
        let seed = splitmix(spec.randseed ^ splitmix(inp.clone as u64));
        let rng = SmallRng::seed_from_u64(seed);
        let size = inp.regions.iter().map(|r| r.1).sum();
        let (job_seed, run_seed) = inp.data_seed;
        let mut data = data::Data::new(spec, job_seed, run_seed, size);
        for s in 0..depth as u32 {
            data.fill_slot(eng.slot(s), s);
        }
        let (stats, windows) = fresh_counts(spec, sync_engine, inp.interval_ns);
        let mut error = None;
        let mut picker = Picker::new(spec, seed, rng, &inp.regions, depth, inp.flow.take());
        if spec.replay.on() {
            match Feed::open(spec, &inp.paths, &inp.regions) {
                Ok(f) => picker.replay = Some(f),
                Err(e) => error = Some(e),
            }
        }
        let iolog = open_iolog(inp).unwrap_or_else(|e| {
            error.get_or_insert(e);
            None
        });
        let vlimit = match spec.verify_state_load && spec.verify_only {
            true => crate::vstate::Limit::load(&spec.name, inp.clone)
                .map_err(|e| error.get_or_insert(e))
                .ok(),
            false => None,
        };
        let saves = spec.verify_state_save && spec.verify.is_some() && spec.rw.writes();
        Job {
            trimback: crate::trimback::TrimBack::new(spec, splitmix(seed ^ 0x74_72_69_6d)),
            loops_read_back: 0,
            vsave: saves.then(|| crate::vstate::Recorder::new(depth as u32, spec.verify_fsynced)),
            vlimit,
            picker,
            clock: Clock::new(spec),
            budget: Budget::new(spec, &inp.regions),
            q: Queue::new(spec, depth),
            syncs: Syncs::new(spec, inp.fds.len()),
            think: Thinking {
                spec: spec.think.filter(|t| t.us > 0),
                last: 0,
                due: None,
                completed: 0,
                // fio 3.33's first interval of thinktime_iotime lasts iotime + thinktime
                // (strace: 400 ms then 300 ms cycles at iotime=300ms thinktime=100ms).
                last_t: spec.think.map_or(0, |t| t.us * 1000),
            },
            stats,
            windows,
            passes: Passes::new(spec, &inp.regions),
            settle: false,
            sync_engine,
            data,
            seq: 0,
            error,
            full: false,
            iolog,
            search: spec
                .lat_target
                .on()
                .then(|| Search::new(spec.lat_target, depth as u32)),
            minrate: crate::minrate::MinRate::new(spec),
            cmdprio: spec
                .cmdprio
                .clone()
                .map(|p| (p, SmallRng::seed_from_u64(splitmix(seed ^ 0x70_72_69_6f)))),
            eng,
            inp,
        }
    }

    /// Meets the other jobs at the start line and waits out its own startdelay: the job's
    /// clock starts at the phase's common start, never when this thread happens to run.
    fn start(&mut self) {
        let delay = crate::live::start_delay(&self.inp.spec, self.inp.clone);
        self.clock.base = self.inp.start.arrive() + delay;
        let wait = self.clock.base.saturating_duration_since(Instant::now());
        sleep_unless_stopped(wait, &self.inp.stop);
        if !self.inp.waitees.is_empty() {
            // fio's wait_for: the job's clock starts when the jobs it waits for have ended;
            // the sampler starts its series over then.
            let ended = |l: &Arc<Live>| l.ended.load(Relaxed) || l.done.load(Relaxed);
            while !self.inp.waitees.iter().all(ended) && !self.inp.stop.load(Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            self.clock.base = Instant::now();
            self.inp.live.restarted.store(true, Relaxed);
        }
        if self.clock.ramp_ns == 0 {
            self.clock.measure_from(0, &self.inp.live);
            self.feed_live();
        } else {
            self.clock.cpu0 = rusage(libc::RUSAGE_THREAD);
        }
    }

    /// The ramp is over: the measured interval starts at its end, common to every job, and
    /// what the warm-up counted is dropped (fio's reset of its stats).
    #[cold]
    fn end_ramp(&mut self) {
        let c = &mut self.clock;
        c.measure_from(c.ramp_ns, &self.inp.live);
        self.picker.restart_schedule(c.ramp_ns);
        (self.stats, self.windows) =
            fresh_counts(&self.inp.spec, self.sync_engine, self.inp.interval_ns);
        self.feed_live();
    }

    /// The measured intervals' latencies reach the live board too (the ramp's do not).
    fn feed_live(&mut self) {
        for (d, l) in self.stats.dirs.iter_mut().zip(&self.inp.live.hist) {
            d.lat.feed(l.clone());
        }
    }

    /// fio's ramp_size: the job has done that much I/O (reads and writes), so its ramp ends.
    #[inline]
    fn ramp_bytes_done(&self) -> bool {
        let size = self.inp.spec.ramp_size;
        size > 0 && self.stats.dirs.iter().map(|d| d.bytes).sum::<u64>() >= size
    }

    /// Reads the clock once for the turn: the ramp's end, the cut, and whether to stop.
    #[inline]
    fn turn(&mut self) -> Turn {
        let t = self.clock.now();
        if !self.clock.measuring && self.ramp_bytes_done() {
            let c = &mut self.clock;
            c.ramp_ns = t;
            c.deadline = self.inp.spec.runtime.map(|r| t + r.as_nanos() as u64);
        }
        if !self.clock.measuring && t >= self.clock.ramp_ns {
            self.end_ramp();
        }
        let c = &mut self.clock;
        let timed_out = c.deadline.is_some_and(|d| t >= d);
        let stop_asked = self.inp.stop.load(Relaxed) || self.inp.live.halt.load(Relaxed);
        if c.cut.is_none() && (timed_out || stop_asked) {
            c.cut = Some(c.deadline.map_or(t, |d| d.min(t)));
            self.inp.live.closed.store(true, Relaxed);
        }
        // With verify_backlog, the written blocks not yet read back are read once the writes
        // are all issued (fio's closing verify), unless time ran out.
        let writes_done = self.budget.spent() || self.picker.ended;
        let backlog = self.picker.backlog.as_ref();
        let draining = writes_done && backlog.is_some_and(|b| !b.is_empty());
        if writes_done && self.clock.drain_at.is_none() && backlog.is_some() {
            self.clock.drain_at = Some(t);
            self.settle = self.inp.spec.ioengine != EngineKind::Null;
        }
        let stopping =
            self.error.is_some() || stop_asked || timed_out || (writes_done && !draining);
        Turn {
            t,
            writes_done,
            stopping,
        }
    }

    /// The sync due after `fsync=N` writes, once they have all completed. A write that
    /// completed after the window is not counted, nor is a sync issued for it: every sync
    /// issued is one reported, and as many as the counted writes with fsync=1.
    fn sync_step(&mut self) {
        if self.error.is_none() && !self.syncs.late {
            let t0 = self.clock.now();
            let r = match self.syncs.range {
                Some(flags) => {
                    let fd = self.inp.fds[self.syncs.file as usize];
                    self.syncs.sync_range(fd, flags)
                }
                None => self.eng.sync(self.syncs.file, self.syncs.datasync),
            };
            let t1 = self.clock.now();
            match r {
                Err(e) if self.syncs.range.is_some() => {
                    self.error = Some(format!("sync_file_range failed: {e}"))
                }
                Err(e) => self.error = Some(format!("fsync failed: {e}")),
                Ok(()) => {
                    if self.clock.measuring {
                        self.stats.sync.record(t1 - t0);
                        self.stats.durable.record(t1 - self.syncs.from);
                    }
                    if let Some(r) = &mut self.vsave {
                        r.synced();
                    }
                }
            }
        }
        self.syncs.since = 0;
        self.syncs.need = false;
    }

    /// A pass is over, or the verify backlog's closing read-back is about to start.
    #[inline]
    fn pass_due(&self) -> bool {
        self.settle || self.passes.as_ref().is_some_and(|p| p.due)
    }

    /// A pass is over and its I/O reaped: drop the files' cached pages before the next; before
    /// the closing read-back, sync them first (fio's do_verify).
    #[cold]
    fn new_pass(&mut self) {
        if self.passes.as_ref().is_some_and(|p| p.verify) && !self.settle {
            self.verify_loop();
        }
        let (drop, unlink) = match &self.passes {
            Some(p) if !self.settle => (p.drop, p.unlink),
            _ => (true, false),
        };
        for (&fd, &(offset, len)) in self.inp.fds.iter().zip(&self.inp.regions) {
            match self.settle {
                true => settle_written(fd, offset, len),
                false if drop => drop_cached(fd, offset, len),
                false => {}
            }
        }
        if unlink {
            self.recreate_files();
        }
        self.settle = false;
        if let Some(p) = &mut self.passes {
            p.due = false;
        }
    }

    /// fio's do_verify after a loop of writes: the loop's blocks read back and checked before
    /// the next loop starts, inside the job's runtime. The writes' time leaves it out.
    #[cold]
    fn verify_loop(&mut self) {
        self.loops_read_back += 1;
        if let Err(e) = self.read_back(None, self.clock.deadline) {
            self.error = Some(format!("verify failed: {e}"));
        }
    }

    /// Read-backs of the written blocks ending at `deadline` (the job's clock): one between
    /// loops (`closing` None), or the job's closing ones (one per loop not yet read back);
    /// the blocks checked.
    fn read_back(&mut self, closing: Option<u32>, deadline: Option<u64>) -> Result<u64, String> {
        let rb = crate::readback::ReadBack {
            inp: self.inp,
            depth: self.q.depth,
            marks: (
                self.picker.starts.as_ref(),
                self.trimback.as_ref().map(|t| (&t.done, t.zero)),
            ),
            until: deadline.map(|d| self.clock.base + Duration::from_nanos(d)),
        };
        match closing {
            None => rb.once(&mut self.eng, &mut self.stats),
            Some(passes) => rb.closing(&mut self.eng, &mut self.stats, passes),
        }
    }

    /// unlink_each_loop: every file deleted and created afresh; a failure ends the job with
    /// its errno, as fio's open failure does.
    #[cold]
    fn recreate_files(&mut self) {
        let creates = self.inp.spec.rw.writes();
        for (i, (&fd, path)) in self.inp.fds.iter().zip(&self.inp.paths).enumerate() {
            let done = recreate(fd, path, creates).and_then(|()| self.eng.reopened(i as u32));
            if let Err(e) = done {
                self.error = Some(format!("unlink_each_loop: cannot recreate {path}: {e}"));
                return;
            }
        }
    }

    /// Pushes I/Os into free slots until the queue is full, the picker waits, or a sync, a
    /// think or the end of the budget is due; submits each `iodepth_batch_submit` group and
    /// what remains at the end.
    #[inline]
    fn fill(&mut self, turn: &Turn) -> Filled {
        let mut filled = Filled::default();
        // When the next I/O's preparation starts: the turn's clock for the first, then the
        // return of the submission before it (no clock read of its own per I/O).
        let mut prep_at = turn.t;
        let pass_over = self.pass_due();
        if !turn.stopping && !self.syncs.need && !pass_over && self.think.due.is_none() {
            while let Some(&slot) = self.q.free.last() {
                if !self.room() {
                    break;
                }
                // fio's verify-after-trim: a due trim of a written block goes first.
                if let Some(t) = self.trimback.as_mut().and_then(|t| t.next()) {
                    if !self.push_trim(slot, &t, &mut prep_at, false) {
                        break;
                    }
                    continue;
                }
                let Some(mut n) = self.pick(turn, &mut filled) else {
                    break;
                };
                // verify_state_load: the verify ends at the first write that had not
                // completed (fio's verify_state_should_stop): nothing more is issued.
                if let Some(l) = self.vlimit.as_mut().filter(|_| n.op == Op::Read) {
                    if !l.allows(n.file, n.offset) {
                        self.budget.bytes = self.budget.issued;
                        break;
                    }
                }
                // rw=trim/randtrim: the write pattern's I/Os are discards.
                if self.inp.spec.trim == Trim::Only && n.op == Op::Write && !n.back {
                    n.op = Op::Trim;
                }
                if !self.push(slot, &n, &mut prep_at) {
                    break;
                }
                filled.pushed += 1;
                // A trim is done in place and frees its slot at once: back to the turn, which
                // reads the clock, or a time-based trim job never sees its end.
                if self.think_due() || n.op == Op::Trim {
                    break;
                }
                if self.q.batch.len() >= self.q.batch_submit && !self.submit(&mut prep_at) {
                    break;
                }
                let sync_due = n.op == Op::Write && self.syncs.wrote(turn.t);
                if sync_due || self.budget.spent() {
                    break;
                }
            }
        }
        if !self.q.batch.is_empty() && self.error.is_none() {
            self.submit(&mut prep_at);
        }
        filled
    }

    /// The picker's next I/O, or None when it waits for the rate cap, the flow holds the job
    /// back, the work is done, or the I/O overlaps one in flight (`serialize_overlap`: given
    /// back, to go first once that one completes).
    #[inline]
    fn pick(&mut self, turn: &Turn, filled: &mut Filled) -> Option<Next> {
        match self.picker.next(turn.t, turn.writes_done) {
            Pick::Io(n) if self.q.serialize && overlaps(&self.q.meta, &n) => {
                self.picker.hold(n);
                None
            }
            Pick::Io(n) => Some(n),
            Pick::Wait(ns) => {
                filled.rate_wait = ns;
                None
            }
            Pick::Held => {
                filled.held = true;
                None
            }
            Pick::Sync(file) => {
                let s = &mut self.syncs;
                (s.need, s.file, s.from, s.late) = (true, file, turn.t, false);
                None
            }
            Pick::Fail(e) => {
                self.error.get_or_insert(e);
                None
            }
            Pick::Done => None,
        }
    }

    /// Prepares `n` in `slot` (a write's buffer marked) and pushes it to the engine; false,
    /// with the error kept, when the engine refused it.
    #[inline]
    fn push(&mut self, slot: u32, n: &Next, prep_at: &mut u64) -> bool {
        // fio's lockfile, held to the end of this call (a synchronous engine's whole I/O);
        // the I/O's clock starts once it is held, as fio's starts after its prep.
        let held = file_lock(self.inp, n.file, n.op);
        if held.0.is_some() || held.1.is_some() {
            *prep_at = self.clock.now();
        }
        if n.op == Op::Trim {
            return self.push_trim(slot, n, prep_at, true);
        }
        if n.op == Op::Write && self.inp.spec.trim == Trim::ThenWrite && !n.back {
            // trimwrite: the block is discarded, then written (fio's pair, in that order).
            let trim = Next { op: Op::Trim, ..*n };
            if !self.push_trim(slot, &trim, prep_at, false) {
                return false;
            }
        }
        let prep_at = *prep_at;
        if n.op == Op::Write {
            self.fill_write(slot, n);
            if let Some(r) = self.vsave.as_mut().filter(|_| !n.back) {
                r.issued();
            }
            if let Some(t) = self.trimback.as_mut().filter(|_| !n.back) {
                t.wrote();
            }
        }
        // fio's split: slat runs from this I/O's preparation to the return of the submission
        // carrying it, clat from there to its completion. A turn that refills many slots must
        // not charge the earlier submissions to later I/Os.
        self.q.meta[slot as usize] = Meta {
            op: n.op,
            len: n.len,
            file: n.file,
            busy: true,
            verify: n.op == Op::Read && (n.back || !self.inp.spec.rw.writes()),
            offset: n.offset,
            start: prep_at,
            sub: prep_at,
            due: n.due,
            room: self.q.room_at.max(self.q.sub_end),
        };
        let req = Request {
            op: n.op,
            file: n.file,
            offset: n.offset,
            len: n.len,
            slot,
            ioprio: self
                .cmdprio
                .as_mut()
                .map_or(0, |(p, rng)| cmdprio_of(p, rng, n)),
        };
        if let Err(e) = self.eng.push(req) {
            self.error = Some(e.to_string());
            return false;
        }
        self.q.free.pop();
        self.q.batch.push(slot);
        if !n.back {
            self.issued(n.len);
        }
        if let Some(w) = &mut self.iolog {
            log_issue(w, n, prep_at, &mut self.error);
        }
        true
    }

    /// A write's data in `slot`: fresh bytes, stamped with its verify header.
    #[inline]
    fn fill_write(&mut self, slot: u32, n: &Next) {
        self.syncs.file = n.file;
        // A read filled this slot last (its meta is still that read's).
        let m = &self.q.meta[slot as usize];
        let after_read = m.op == Op::Read && m.len > 0;
        let buf = &mut self.eng.slot(slot)[..n.len as usize];
        self.data.prepare(buf, after_read);
        let spec = &self.inp.spec;
        data::stamp(
            buf,
            n.offset,
            self.seq,
            spec.verify,
            spec.verify_pattern.as_deref(),
        );
        self.seq += 1;
    }

    /// A trim, done at once as fio does on every engine (BLKDISCARD; the null engine only
    /// counts it) and completed in place: its latency is all completion. `budget`: it counts
    /// against the job's bytes (trimwrite's trims ride on their writes). The next I/O is
    /// prepared from its end. False when it ended the job.
    #[cold]
    fn push_trim(&mut self, slot: u32, n: &Next, prep_at: &mut u64, budget: bool) -> bool {
        self.q.meta[slot as usize] = Meta {
            op: Op::Trim,
            len: n.len,
            file: n.file,
            busy: true,
            verify: false,
            offset: n.offset,
            start: *prep_at,
            sub: *prep_at,
            due: n.due,
            room: self.q.room_at.max(self.q.sub_end),
        };
        self.q.free.pop();
        let result = match self.inp.spec.ioengine {
            EngineKind::Null => n.len as i64,
            // fio's falloc trims by punching a hole, in a file as on a device.
            EngineKind::Falloc => engine::punch(self.inp.fds[n.file as usize], n.offset, n.len),
            EngineKind::Ftruncate => -(libc::EINVAL as i64),
            _ => engine::discard(self.inp.fds[n.file as usize], n.offset, n.len),
        };
        let tc = self.clock.now();
        let window_end = self.clock.window_end();
        self.complete(Completion { slot, result }, tc, window_end);
        *prep_at = tc;
        if budget {
            self.issued(n.len);
        }
        if let Some(w) = &mut self.iolog {
            log_issue(w, n, tc, &mut self.error);
        }
        self.error.is_none()
    }

    /// Counts an issued I/O against the budget and the pass: a pass is over when its bytes
    /// are issued, and after the last there is no next to drop the cache for.
    #[inline]
    fn issued(&mut self, len: u32) {
        let b = &mut self.budget;
        b.issued += len as u64;
        b.issued_ios += 1;
        if let Some(p) = self.passes.as_mut().filter(|p| b.issued >= p.next) {
            p.next += p.bytes;
            p.due = !b.spent();
        }
    }

    /// True once a think is due. fio checks after each issue; an I/O at depth 1 or on a
    /// synchronous engine has completed by then, so there the issues are the completions.
    #[inline]
    fn think_due(&mut self) -> bool {
        let Some(tk) = self.think.spec else {
            return false;
        };
        let at_once = tk.on_issue || self.sync_engine || self.q.depth == 1;
        let b = if at_once {
            self.budget.issued_ios
        } else {
            self.think.completed
        };
        // fio's thinktime_iotime: long enough at I/O since the last think.
        let timed = tk.iotime_us > 0
            && self.clock.now().saturating_sub(self.think.last_t) >= tk.iotime_us * 1000;
        if timed || (tk.counts_blocks() && b >= self.think.last + tk.blocks) {
            self.think.due = Some(b);
        }
        self.think.due.is_some()
    }

    /// Submits the pushed requests and stamps their submission time, which becomes the next
    /// I/O's preparation time (async engines: a synchronous engine's I/O is all completion).
    /// False, with the error kept, when the engine failed.
    #[inline]
    fn submit(&mut self, prep_at: &mut u64) -> bool {
        if let Err(e) = self.eng.submit() {
            self.error = Some(e.to_string());
            return false;
        }
        let q = &mut self.q;
        q.in_flight += q.batch.len();
        self.stats
            .mark_depth(q.in_flight as u32, q.batch.len() as u64);
        if !self.sync_engine {
            let t = self.clock.now();
            for &s in &q.batch {
                q.meta[s as usize].sub = t;
            }
            *prep_at = t;
            q.sub_end = t;
        }
        q.batch.clear();
        true
    }

    /// Nothing in flight: end the job (false), or wait as a due think, the rate cap or the
    /// flow asks before the next turn (true).
    fn idle(&mut self, turn: &Turn, filled: &Filled) -> bool {
        if self.syncs.need {
            return true;
        }
        if turn.stopping || self.error.is_some() {
            return false;
        }
        let stop = &self.inp.stop;
        let deadline = self.clock.deadline;
        if let (Some(b), Some(tk)) = (self.think.due.take(), self.think.spec) {
            let t0 = self.clock.now();
            think_for(tk, deadline.map(|d| d.saturating_sub(t0)), stop);
            self.think.last = b;
            self.think.last_t = self.clock.now();
            if self.inp.spec.rate_ignore_thinktime {
                self.picker.skip_schedule(self.think.last_t - t0);
            }
        } else if filled.rate_wait > 0 {
            let wait = filled.rate_wait;
            let until = deadline.map_or(wait, |d| wait.min(d.saturating_sub(turn.t)));
            wait_ns(0, until, stop);
        } else if filled.held {
            hold_back(self.inp.spec.flow_sleep, stop);
        }
        true
    }

    /// Reaps at least one I/O (all in flight when a sync, a think or the end waits for the
    /// queue to drain), then checks and accounts each; false when the engine failed. A replay
    /// whose next I/O is due in `wait` ns waits no longer than that for a completion.
    #[inline]
    fn reap(&mut self, turn: &Turn, wait: u64) -> bool {
        let quiescing = self.search.as_ref().is_some_and(|s| s.quiescing);
        let drain = self.syncs.need || turn.stopping || self.think.due.is_some() || quiescing;
        let q = &self.q;
        // The depth the job waits at (a scraper's `volbench_inflight`): with the queue full,
        // the iodepth, not the one fewer left after a reap.
        if self.clock.measuring {
            self.inp.live.inflight.store(q.in_flight as u64, Relaxed);
        }
        let min = match drain {
            true => q.in_flight,
            false if q.in_flight >= q.depth => q.in_flight - q.low.min(q.in_flight - 1),
            false => 1,
        };
        let mut comps = std::mem::take(&mut self.q.comps);
        let due_first = !drain && wait > 0 && self.picker.replay.is_some();
        let r = match due_first {
            true => self.eng.reap_within(wait, &mut comps),
            false => self.eng.reap(min, &mut comps),
        };
        let ok = match r {
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
            Ok(()) => {
                let tc = self.clock.now();
                let window_end = self.clock.window_end();
                if self.q.in_flight >= self.q.depth && !comps.is_empty() {
                    self.q.room_at = tc;
                }
                for &c in &comps {
                    self.complete(c, tc, window_end);
                }
                self.q.in_flight -= comps.len();
                true
            }
        };
        self.q.comps = comps;
        if ok && self.clock.measuring {
            publish(&self.inp.live, &self.stats);
        }
        ok
    }

    /// One completion: frees its slot, checks it (the whole length moved, a read's verify
    /// header), feeds the verify backlog, and counts it when it completed inside the window:
    /// during the ramp (dropped at its end, kept if the job ends inside it, as in fio) or
    /// after it (an I/O submitted during the ramp counts if it completes after it), and before
    /// the cut.
    #[inline]
    fn complete(&mut self, c: Completion, tc: u64, window_end: u64) {
        let m = self.q.meta[c.slot as usize];
        self.q.meta[c.slot as usize].busy = false;
        self.q.free.push(c.slot);
        self.think.completed += 1;
        if let Err(e) = self.check(&m, c) {
            return self.failed(&m, c, e);
        }
        if let (Some(b), Op::Write) = (&mut self.picker.backlog, m.op) {
            b.written((m.file, m.offset, m.len));
        }
        // What the closing read-back reads: writes that completed (a pick held back when
        // the job ended was never written).
        if let (Some(s), Op::Write) = (&mut self.picker.starts, m.op) {
            s.mark(m.file, m.offset, m.len as u64);
        }
        if m.op == Op::Write {
            self.syncs.covered(m.file, m.offset, m.len as u64);
            if let Some(r) = &mut self.vsave {
                r.completed(m.file, m.offset);
            }
            if let Some(t) = &mut self.trimback {
                t.completed(m.file, m.offset, m.len);
            }
        }
        if m.op == Op::Write {
            self.syncs.late = tc > window_end;
        }
        // The first completion past the ramp ends it, if the turn has not: one reaped in a
        // turn that began inside the ramp is the measurement's, not the warm-up's.
        if !self.clock.measuring && tc >= self.clock.ramp_ns {
            self.end_ramp();
        }
        let from = self.clock.measure_start;
        if tc >= from && tc <= window_end {
            let t = tc - from;
            let idx = t / self.inp.interval_ns.max(1);
            count(
                &mut self.stats,
                &mut self.windows,
                &m,
                (tc, t, idx),
                self.sync_engine,
            );
        }
        let dir = usize::from(m.op == Op::Write);
        let max = self.inp.spec.max_latency_ns[dir];
        if max > 0 && tc - m.start > max && matches!(m.op, Op::Read | Op::Write) {
            self.over_max_latency(&m, tc - m.start, max);
        }
        if let Some(s) = &mut self.search {
            s.completed();
            let lat = tc - m.start;
            if lat > s.target_ns() {
                let step = s.missed();
                self.act(step, lat);
            }
        }
    }

    /// Room in the queue under the latency search's depth (always, without a search).
    #[inline]
    fn room(&self) -> bool {
        let used = self.q.in_flight + self.q.batch.len();
        self.search
            .as_ref()
            .is_none_or(|s| !s.quiescing && used < s.qd as usize)
    }

    /// fio's lat_target_check, once per turn of a job with a latency search: judge the
    /// window (past the ramp), or start the next once the queue has drained.
    fn steer(&mut self) {
        if let Some(m) = self.minrate.as_mut().filter(|_| self.clock.measuring) {
            if let Some(e) = m.check(self.clock.now(), &self.stats) {
                self.error.get_or_insert(e);
            }
        }
        let Some(s) = &mut self.search else {
            return;
        };
        let now = self.clock.now();
        if s.quiescing {
            if self.q.in_flight == 0 && s.new_window(now) && self.clock.cut.is_none() {
                self.restart_counts(now);
            }
            return;
        }
        if self.clock.measuring {
            let step = s.check(now);
            self.act(step, 0);
        }
    }

    /// fio's lat_fatal for `max_latency`: the job ends with ETIMEDOUT, said with the I/O.
    #[cold]
    fn over_max_latency(&mut self, m: &Meta, lat: u64, max: u64) {
        self.error.get_or_insert(format!(
            "a {} of {} at offset {} took {}, over max_latency={}: Connection timed out (os error 110), as fio ends such a job; raise max_latency or leave it out",
            if m.op == Op::Write { "write" } else { "read" },
            workload::format_bytes(m.len as f64),
            m.offset,
            figures::fmt_ns(lat as f64),
            figures::fmt_ns(max as f64)
        ));
    }

    /// What the search asked for: the end of the job, or fio's error for a miss at depth 1
    /// (a drain needs nothing here: `room` and `reap` see the search's `quiescing`).
    fn act(&mut self, step: Step, lat: u64) {
        match step {
            Step::Keep | Step::Quiesce => {}
            Step::Done => self.inp.live.halt.store(true, Relaxed),
            Step::Fatal => {
                let target = self.inp.spec.lat_target.target_ns;
                self.error.get_or_insert(format!(
                    "an I/O took {} at depth 1, over latency_target={} (with \
                     latency_percentile=100 one such I/O ends the job, as in fio): raise the \
                     target or lower the percentile",
                    figures::fmt_ns(lat as f64),
                    figures::fmt_ns(target as f64)
                ));
            }
        }
    }

    /// fio's reset_all_stats when the depth is found: the last window is the job's
    /// measurement, and its runtime starts now.
    #[cold]
    fn restart_counts(&mut self, now: u64) {
        let c = &mut self.clock;
        c.measure_from(now, &self.inp.live);
        c.deadline = self.inp.spec.runtime.map(|r| now + r.as_nanos() as u64);
        (self.stats, self.windows) =
            fresh_counts(&self.inp.spec, self.sync_engine, self.inp.interval_ns);
        self.feed_live();
        publish(&self.inp.live, &self.stats);
        self.inp.live.restarted.store(true, Relaxed);
    }

    /// A failed completion: counted and carried past (`continue_on_error`), the end of a
    /// `fill_fs` job (ENOSPC, EDQUOT), or the job's error.
    #[cold]
    fn failed(&mut self, m: &Meta, c: Completion, e: String) {
        let full = [libc::ENOSPC, libc::EDQUOT].map(|n| -(n as i64));
        if let Some(errno) = self.carry_on(m, c) {
            self.stats.errors.note(errno, usize::from(m.op != Op::Read));
        } else if self.inp.spec.fill_fs && full.contains(&c.result) {
            self.full = true;
            self.inp.live.halt.store(true, Relaxed);
        } else {
            self.error.get_or_insert(e);
        }
    }

    /// fio's td_non_fatal_error: the errno of a failure that `continue_on_error` carries on
    /// past (EIO on a read or write, a verify mismatch as EILSEQ), none for any other.
    #[cold]
    fn carry_on(&self, m: &Meta, c: Completion) -> Option<i32> {
        let spec = &self.inp.spec;
        let (kind, errno) = match c.result {
            r if r == m.len as i64 => (2, libc::EILSEQ),
            r if r < 0 => (usize::from(m.op == Op::Write), (-r) as i32),
            _ => return None,
        };
        // EILSEQ from the device is a verify error too, as in fio's td_error_type.
        let kind = if errno == libc::EILSEQ { 2 } else { kind };
        let listed = &spec.ignore_error[kind];
        let carried = match listed.is_empty() {
            true => errno == libc::EIO || errno == libc::EILSEQ,
            false => listed.contains(&errno),
        };
        (spec.continue_on_error & (1 << kind) != 0 && carried).then_some(errno)
    }

    /// A completion's result: the whole length moved, and for a read of a verifying job, the
    /// header it carries. Formats only on the error path.
    #[inline]
    fn check(&mut self, m: &Meta, c: Completion) -> Result<(), String> {
        if c.result != m.len as i64 {
            return Err(describe(c.result, m.op, m.offset, m.len));
        }
        if let (Some(algo), true) = (self.inp.spec.verify, m.verify) {
            let buf = &self.eng.slot(c.slot)[..m.len as usize];
            let pattern = self.inp.spec.verify_pattern.as_deref();
            data::verify_block(buf, m.offset, algo, pattern)
                .map_err(|e| format!("verify failed: {e}"))?;
        }
        Ok(())
    }

    /// The job's end: fio's end_fsync, the measured runtime and CPU, then the closing verify
    /// (outside the measured figures) before the engine's teardown.
    fn finish(mut self, out: &mut JobOutput) {
        if let Some(r) = &self.vsave {
            if let Err(e) = r.save(&self.inp.spec.name, self.inp.clone) {
                self.error.get_or_insert(e);
            }
        }
        // The queue has just drained: how long that took after the window closed.
        let drained = self
            .clock
            .cut
            .map(|cut| self.clock.now().saturating_sub(cut));
        out.drain_ns = drained.filter(|&d| d > 0);
        out.ended_by = Some(self.ended_by());
        self.end_fsync();
        let t_end = self.clock.now();
        let c = &self.clock;
        let end = c.cut.map_or(t_end, |cut| cut.min(t_end));
        // A thread descheduled across its deadline ends late but does no I/O meanwhile.
        self.inp
            .live
            .end(c.base + std::time::Duration::from_nanos(end));
        // Ended inside the ramp: fio never reset its stats, so the whole run is the figure.
        if !self.clock.measuring {
            out.ramp_swallowed = self.stats.dirs.iter().any(|d| d.ios > 0);
            publish(&self.inp.live, &self.stats);
        }
        let (c, cpu1) = (&self.clock, rusage(libc::RUSAGE_THREAD));
        self.stats.runtime_ns = end - c.measure_start;
        // fio's per-direction time with a verify backlog: the writes end where the read-back
        // starts; the reads are the read-back, or in a job that also reads, the whole run.
        if let Some(d) = c.drain_at {
            let d = d.clamp(c.measure_start, end);
            let reads = if self.inp.spec.rw.reads() {
                0
            } else {
                (end - d).max(1)
            };
            self.stats.dir_runtime_ns = [reads, (d - c.measure_start).max(1)];
        }
        // fio's write runtime leaves out the read-back between loops; the reads' is its own.
        // (Before the closing read-back, the verify time is the loops' read-backs alone.)
        if self.loops_read_back > 0 {
            let ran = end - c.measure_start;
            self.stats.dir_runtime_ns = [0, ran.saturating_sub(self.stats.verify_ns).max(1)];
        }
        let late = self.picker.lateness(end);
        for (d, l) in self.stats.dirs.iter_mut().zip(late) {
            d.late = l;
        }
        self.stats.usr_ns = cpu1.0.saturating_sub(c.cpu0.0);
        self.stats.sys_ns = cpu1.1.saturating_sub(c.cpu0.1);
        self.stats.ctx = cpu1.2.saturating_sub(c.cpu0.2);
        if self.error.is_none() {
            // A size-based job's runtime bounds its read-back, as fio's; a time-based job's
            // has run out by now, and its written blocks are read back once after it.
            let deadline = c.deadline.filter(|_| !self.inp.spec.time_based);
            let left = self.inp.spec.verify_passes() - self.loops_read_back;
            match self.read_back(Some(left), deadline) {
                Ok(n) => out.verified = n,
                Err(e) => self.error = Some(format!("verify failed: {e}")),
            }
        }
        drop(self.eng);
        if let Some(w) = self.iolog.take() {
            if let Err(e) = w.finish() {
                self.error.get_or_insert(format!("write_iolog: {e}"));
            }
        }
        for d in self.stats.dirs.iter_mut() {
            d.lat.close_intervals();
        }
        out.replay = self.picker.replay.as_ref().map(|f| f.counts);
        out.lat_depth = self.search.map(|s| (s.qd, s.end_run));
        out.stats = self.stats;
        out.windows = self.windows;
        out.error = self.error;
    }

    /// What ended the measured I/O, read off the clock and the budget.
    fn ended_by(&self) -> report::Ended {
        use report::Ended;
        let c = &self.clock;
        match c.cut {
            _ if self.error.is_some() => Ended::Error,
            _ if self.full => Ended::Full,
            Some(cut) if c.deadline.is_some_and(|d| cut >= d) => Ended::Runtime,
            Some(_) if self.inp.live.halt.load(Relaxed) && self.inp.spec.steadystate.on() => {
                Ended::Steady
            }
            Some(_) => Ended::Stopped,
            None if self.picker.ended => Ended::Trace,
            None if self.budget.issued_ios >= self.budget.ios => Ended::NumberIos,
            None => Ended::Size,
        }
    }

    /// fio's end_fsync: every file flushed once the writes have all completed.
    fn end_fsync(&mut self) {
        let spec = &self.inp.spec;
        let wanted = spec.end_fsync || spec.end_syncfs;
        if !(wanted && spec.rw.writes() && self.error.is_none() && self.q.in_flight == 0) {
            return;
        }
        if spec.end_syncfs {
            if let Err(e) = syncfs_each(&self.inp.fds) {
                self.error = Some(format!("final syncfs failed: {e}"));
            }
            return;
        }
        for f in 0..self.inp.fds.len() as u32 {
            if let Err(e) = self.eng.sync(f, false) {
                self.error = Some(format!("final fsync failed: {e}"));
                break;
            }
        }
    }
}

/// fio's fio_syncfs: syncfs(2) once per file system among `fds` (by device number).
fn syncfs_each(fds: &[i32]) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut done = Vec::new();
    for &fd in fds {
        let dev = std::fs::metadata(format!("/proc/self/fd/{fd}"))?.dev();
        if done.contains(&dev) {
            continue;
        }
        done.push(dev);
        // SAFETY: syncfs on a descriptor this job holds open.
        if unsafe { libc::syncfs(fd) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Accounts one I/O that completed at `tc` (ns on the job's clock) inside the measured window
/// (`t` into it, in the series' interval `idx`): fio's split, slat from its preparation to the
/// return of its submission and clat from there to its completion (a synchronous engine has
/// no submission of its own: all of it is clat).
#[inline]
fn count(
    stats: &mut JobStats,
    windows: &mut Option<stats::WindowLog>,
    m: &Meta,
    (tc, t, idx): (u64, u64, u64),
    sync_engine: bool,
) {
    let dir = m.op as usize;
    let d = &mut stats.dirs[dir];
    d.ios += 1;
    d.bytes += m.len as u64;
    // A trim is done in place, on every engine: all completion.
    let (slat, clat) = if sync_engine || m.op == Op::Trim {
        (0, tc - m.start)
    } else {
        d.slat.record(m.sub - m.start);
        (m.sub - m.start, tc - m.sub)
    };
    d.clat.record(clat);
    d.lat.record_at(tc - m.start, idx);
    if m.due != NOT_DUE {
        d.lat_due.record(tc - m.due.min(m.start));
        d.issue_late
            .record(m.start.saturating_sub(m.due.max(m.room)));
    }
    if let Some(r) = &mut stats.replay {
        r.by_class[trace::size_class(m.len as u64)][dir].record(tc - m.start);
        if m.due != NOT_DUE {
            r.lag.record(m.start.saturating_sub(m.due));
        }
    }
    if let Some(w) = windows {
        // The logs and the windows hold reads and writes (a trim's figures are the report's).
        if dir < 2 {
            w.record(t, dir, tc - m.start, clat, slat);
        }
    }
}

/// fio's cmdprio: this I/O's own priority, drawn at its share (0: the thread's).
#[inline]
fn cmdprio_of(p: &workload::CmdPrio, rng: &mut SmallRng, n: &Next) -> u16 {
    let (percent, value) = p.for_io(n.op as usize & 1, n.len as u64);
    match percent {
        0 => 0,
        p if rand::Rng::gen_range(rng, 0..100u8) < p => value,
        _ => 0,
    }
}

/// One line of the job's write_iolog: the I/O and when it was issued (µs into the job).
fn log_issue(w: &mut Iolog, n: &Next, at: u64, error: &mut Option<String>) {
    let io = trace::Io {
        at_ns: at,
        op: match n.op {
            Op::Read => trace::Op::Read,
            Op::Write => trace::Op::Write,
            Op::Trim => trace::Op::Trim,
        },
        fua: false,
        file: n.file,
        offset: n.offset,
        len: n.len as u64,
        done_ns: None,
    };
    if let Err(e) = w.write(&io) {
        error.get_or_insert(format!("write_iolog: {e}"));
    }
}

/// Hands the sampler the job's running totals: relaxed stores, once per turn.
#[inline]
fn publish(live: &Live, stats: &JobStats) {
    live.errors.store(stats.errors.total, Relaxed);
    for d in 0..2 {
        let s = &stats.dirs[d];
        live.ios[d].store(s.ios, Relaxed);
        live.bytes[d].store(s.bytes, Relaxed);
        live.lat_sums[d].store(s.lat.sum(), Relaxed);
        live.lat_sums[2 + d].store(s.clat.sum(), Relaxed);
        live.lat_sums[4 + d].store(s.slat.sum(), Relaxed);
    }
}

/// fio's `serialize_overlap`: does `n` touch a byte of an I/O still in flight on its file?
/// One pass over the queue's slots, only for jobs that ask.
fn overlaps(meta: &[Meta], n: &Next) -> bool {
    let end = n.offset + n.len as u64;
    meta.iter()
        .any(|m| m.busy && m.file == n.file && m.offset < end && n.offset < m.offset + m.len as u64)
}

/// Empty figures and fio-log windows for the job, with the histograms it will fill allocated
/// up front (before the start line, and again at the ramp's end), so that neither the start of
/// hundreds of jobs nor the first I/O of each pays for the others.
fn fresh_counts(
    spec: &JobSpec,
    sync_engine: bool,
    interval_ns: u64,
) -> (JobStats, Option<WindowLog>) {
    let mut stats = JobStats::default();
    // A verify backlog reads back what a write job wrote, and counts the reads.
    let reads = spec.rw.reads() || spec.verify_backlog > 0;
    for (used, d) in [(reads, 0), (spec.rw.writes(), 1)] {
        if used {
            let dir = &mut stats.dirs[d];
            dir.clat.prepare();
            dir.lat.prepare();
            dir.lat.with_intervals(interval_ns / 1_000_000);
            if spec.rate_capped(d) {
                dir.lat_due.prepare();
                dir.issue_late.prepare();
            }
            if !sync_engine {
                dir.slat.prepare();
            }
        }
    }
    if spec.sync_every > 0 || spec.replay.on() {
        stats.sync.prepare();
        stats.durable.prepare();
    }
    if spec.replay.on() {
        stats.replay = Some(Box::new(stats::ReplayStats::new(trace::SIZE_CLASSES.len())));
    }
    let (max_ms, hist_ms) = spec.logs.window_ms();
    (stats, WindowLog::new(max_ms, hist_ms))
}
