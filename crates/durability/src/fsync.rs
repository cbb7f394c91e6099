//! The fsync-cost suite: each durable-write method at each block size and thread count, the
//! seed-003 penalty line (random read+write with and without a sync after every write), and
//! the honesty verdict, for one or more targets.
//!
//! Every case is an ordinary job (psync, QD1 per thread, random writes, incompressible data)
//! run by the runner, so syncs/s and latencies come from the same histograms as any run and
//! agree with fio's `--fsync=1`, `--fdatasync=1` and `--sync=dsync` on the same file.

use report::{
    FsyncCase, FsyncReport, Penalty, RunReport, RwRates, Status, Tool, WarningRecord,
    SCHEMA_VERSION,
};
use runner::Observer;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use workload::{EngineKind, JobSpec, Rw, SyncIo, SyncMode, Workload};

const MIB: f64 = 1024.0 * 1024.0;

/// One way of making a write durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Buffered writes, no sync: the page cache's speed, the baseline a sync is paid against.
    None,
    /// O_DIRECT writes, no sync: the device's own write latency, caches included.
    Direct,
    Fsync,
    Fdatasync,
    /// O_DSYNC on open: every write returns once durable.
    Odsync,
    DirectFdatasync,
    /// RWF_DSYNC on each write (pwritev2): O_DSYNC chosen per write.
    RwfDsync,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::None,
        Method::Direct,
        Method::Fsync,
        Method::Fdatasync,
        Method::Odsync,
        Method::DirectFdatasync,
        Method::RwfDsync,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::None => "none",
            Method::Direct => "direct",
            Method::Fsync => "fsync",
            Method::Fdatasync => "fdatasync",
            Method::Odsync => "odsync",
            Method::DirectFdatasync => "direct-fdatasync",
            Method::RwfDsync => "rwf-dsync",
        }
    }

    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == s)
    }

    fn direct(self) -> bool {
        matches!(self, Method::Direct | Method::DirectFdatasync)
    }

    /// True when a separate sync call follows each write.
    fn sync_call(self) -> bool {
        matches!(
            self,
            Method::Fsync | Method::Fdatasync | Method::DirectFdatasync
        )
    }

    /// True when every write is durable when it returns, with no separate call.
    fn sync_write(self) -> bool {
        matches!(self, Method::Odsync | Method::RwfDsync)
    }

    fn apply(self, j: &mut JobSpec) {
        j.direct = self.direct();
        j.sync.sync_every = u32::from(self.sync_call());
        j.sync.sync_mode = match self {
            Method::Fsync => SyncMode::Fsync,
            _ => SyncMode::Fdatasync,
        };
        j.sync.sync_io = if self == Method::Odsync {
            SyncIo::Dsync
        } else {
            SyncIo::None
        };
        j.engine.rwf_dsync = self == Method::RwfDsync;
    }
}

/// What `volbench fsync` measures.
#[derive(Clone, Debug)]
pub struct Options {
    pub targets: Vec<PathBuf>,
    pub methods: Vec<Method>,
    pub bs: Vec<u64>,
    pub threads: Vec<u32>,
    pub runtime: Duration,
    /// Bytes of the file (or the device region) the writes land in.
    pub size: u64,
    /// Measure the cases (false: only the penalty line).
    pub cases: bool,
    /// Measure the seed-003 penalty line.
    pub penalty: bool,
    pub allow_destructive: bool,
    pub command_line: Vec<String>,
}

/// Where the writes of one target go.
struct Target {
    given: String,
    path: PathBuf,
    /// A file this suite created (removed when the suite ends, however it ends).
    created: Option<PathBuf>,
    /// The record a killed volbench leaves for the next one to remove `created` by.
    _held: Option<leftovers::Hold>,
    is_device: bool,
    direct_ok: bool,
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(p) = &self.created {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Which of the suite's runs a step is: runs `first` to `first + count - 1` of `total` (a
/// case is one run; a target's penalty is four in a row).
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    pub first: usize,
    pub count: usize,
    pub total: usize,
}

/// Observers for each step's progress: called with its runs and its label.
pub type ObserverFactory<'a> = dyn FnMut(Runs, &str) -> Box<dyn Observer> + 'a;

/// The penalty's runs per target, in ABBA order: unsynced, synced, synced, unsynced.
const PENALTY_ORDER: [bool; 4] = [false, true, true, false];
const PENALTY_RUNS: usize = PENALTY_ORDER.len();

/// Runs the suite. Errors before any measurement (a missing directory, an unsafe device) are
/// returned; a case that fails is kept in the report with its error, and the rest still run.
pub fn run(
    o: &Options,
    stop: Arc<AtomicBool>,
    observer: &mut ObserverFactory<'_>,
    checkpoint: &mut dyn FnMut(&FsyncReport),
) -> anyhow::Result<FsyncReport> {
    let targets = o
        .targets
        .iter()
        .map(|t| prepare(t, o))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut rep = empty_report(o);
    let total = targets.len() * (usize::from(o.penalty) * PENALTY_RUNS + cases_per_target(o));
    let mut list = runner::Points::new(stop.clone(), Some(total));
    for t in &targets {
        let mut env_taken = false;
        let plan = if o.cases { case_plan(t, o) } else { Vec::new() };
        list.each(
            &mut rep,
            plan,
            |rep, step, (label, m, spec)| {
                if m.direct() && !t.direct_ok {
                    rep.cases
                        .push(not_run(t, &spec, m, "O_DIRECT is not supported here"));
                    return Ok(true);
                }
                let runs = Runs {
                    first: step.number,
                    count: 1,
                    total,
                };
                let mut obs = observer(runs, &format!("{} {label}", t.given));
                let r = run_one(&spec, &stop, obs.as_mut());
                drop(obs);
                take_env(rep, t, &r, &mut env_taken);
                rep.cases.push(to_case(t, &spec, m, r));
                Ok::<_, anyhow::Error>(true)
            },
            |rep| {
                checkpoint(rep);
                Ok(())
            },
        )?;
        // The penalty is four runs in a row (the same writes with and without a sync), one
        // point of the list that counts for four.
        if o.penalty {
            if let Some(step) = list.step_of(PENALTY_RUNS) {
                let runs = Runs {
                    first: step.number,
                    count: PENALTY_RUNS,
                    total,
                };
                let mut obs = observer(runs, &format!("{} penalty", t.given));
                let p = penalty(t, o, &stop, obs.as_mut(), &mut |r| {
                    take_env(&mut rep, t, r, &mut env_taken)
                });
                rep.penalty.push(p);
                checkpoint(&rep);
            }
        }
        close_target(&mut rep, t, env_taken);
    }
    finish(&mut rep, &stop);
    Ok(rep)
}

/// A target's cases are done: it is named in the environment (by path alone where no run
/// could describe it) and judged.
fn close_target(rep: &mut FsyncReport, t: &Target, env_taken: bool) {
    if !env_taken {
        rep.environment.targets.push(report::TargetInfo {
            path: t.given.clone(),
            ..Default::default()
        });
    }
    rep.verdicts.push(crate::verdict::judge(&t.given, rep));
}

fn cases_per_target(o: &Options) -> usize {
    if o.cases {
        o.methods.len() * o.bs.len() * o.threads.len()
    } else {
        0
    }
}

fn empty_report(o: &Options) -> FsyncReport {
    let (started_at, started_unix) = report::started(SystemTime::now());
    FsyncReport {
        schema_version: SCHEMA_VERSION,
        tool: Tool::volbench(),
        started_at,
        started_unix,
        command_line: o.command_line.clone(),
        status: Status::Running,
        error: None,
        runtime_ns: o.runtime.as_nanos() as u64,
        environment: runner::probe::environment(),
        cases: Vec::new(),
        penalty: Vec::new(),
        verdicts: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The cases of one target: every method at every block size and thread count, labelled.
fn case_plan(t: &Target, o: &Options) -> Vec<(String, Method, JobSpec)> {
    let mut plan = Vec::new();
    for &m in &o.methods {
        for &bs in &o.bs {
            for &th in &o.threads {
                let label = format!("{} {} x{th}", m.name(), workload::short_size(bs));
                plan.push((label, m, case_spec(t, o, m, bs, th)));
            }
        }
    }
    plan
}

/// The report's status from its cases, once the last one is done.
fn finish(rep: &mut FsyncReport, stop: &AtomicBool) {
    let failed = rep.cases.iter().any(|c| c.status == Status::Partial)
        || rep.penalty.iter().any(|p| p.error.is_some());
    rep.status = if stop.load(Relaxed) {
        Status::Interrupted
    } else if failed {
        Status::Partial
    } else {
        Status::Complete
    };
    if rep.status == Status::Partial && rep.error.is_none() {
        rep.error = Some("some cases failed; their errors are in the table".into());
    }
    if rep.cases.iter().any(|c| c.method == "none") {
        rep.warnings.push(WarningRecord {
            code: "page_cache_baseline".into(),
            message: "method 'none' writes to the page cache without a sync: its rate is memory's, not the device's (compare with 'direct')".into(),
        });
    }
}

/// Resolves a target: a directory gets a file of `size` random bytes made for the suite, a
/// block device is used as it is (the runner's safety rules apply), anything else is refused.
/// A directory without room for the suite's file: refused before any byte is written (bad
/// input, as `run`'s own check is).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NoSpace(String);

fn prepare(given: &Path, o: &Options) -> anyhow::Result<Target> {
    let meta = std::fs::metadata(given).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}: give an existing directory (volbench makes its own file in it) or a block device",
            given.display()
        )
    })?;
    let mut t = Target {
        given: given.display().to_string(),
        path: given.to_path_buf(),
        created: None,
        _held: None,
        is_device: meta.file_type().is_block_device(),
        direct_ok: false,
    };
    if meta.is_dir() {
        // Checked before any byte is written, as `run` checks: a layout that fills the disk
        // halfway would fail the run there and leave a full file system meanwhile.
        if let Some(free) = runner::free_bytes(given).filter(|&f| f < o.size) {
            return Err(NoSpace(format!(
                "not enough free space in {}: fsync's file needs {} but only {} is free; lower \
                 --size or choose another directory",
                given.display(),
                workload::format_bytes(o.size as f64),
                workload::format_bytes(free as f64)
            ))
            .into());
        }
        let path = given.join(format!(".volbench-fsync-{}.dat", std::process::id()));
        t._held = Some(leftovers::hold(leftovers::Kind::Path, &path));
        t.created = Some(path.clone());
        layout(&path, o.size)?;
        t.path = path;
    } else if !t.is_device {
        anyhow::bail!(
            "{}: not a directory or a block device: give a directory (volbench makes its own file in it) or a device",
            given.display()
        );
    } else {
        // Checked once here, so a device holding data is refused in one line rather than
        // once per case; a mounted one whatever the consent.
        use std::os::unix::fs::MetadataExt;
        let dev = runner::probe::DevId::from_raw(meta.rdev());
        let path = given.to_path_buf();
        if let Some(why) = runner::safety::live_use(dev) {
            return Err(runner::RunError::InUse { path, why }.into());
        }
        if let Some(why) = runner::safety::in_use(given, dev).filter(|_| !o.allow_destructive) {
            return Err(runner::RunError::Destructive { path, why }.into());
        }
    }
    t.direct_ok = direct_supported(&t.path);
    Ok(t)
}

/// Writes the file whole with incompressible bytes and syncs it, so no case measures block
/// allocation or reads a hole.
fn layout(path: &Path, size: u64) -> anyhow::Result<()> {
    use rand::RngCore;
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut rng = rand::thread_rng();
    let mut left = size;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        rng.fill_bytes(&mut buf[..n]);
        f.write_all(&buf[..n]).map_err(|e| {
            anyhow::anyhow!(
                "laying out {}: {e}: lower --size or free space",
                path.display()
            )
        })?;
        left -= n as u64;
    }
    f.sync_all()?;
    Ok(())
}

/// Whether the file system takes O_DIRECT here (tmpfs and some FUSE file systems do not).
fn direct_supported(path: &Path) -> bool {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .is_ok_and(|f: File| {
            let mut buf = AlignedBlock::new();
            use std::os::unix::fs::FileExt;
            f.read_at(buf.as_mut_slice(), 0).is_ok()
        })
}

/// 4 KiB aligned to 4 KiB, for one O_DIRECT probe read.
#[repr(C, align(4096))]
struct AlignedBlock([u8; 4096]);

impl AlignedBlock {
    fn new() -> Box<AlignedBlock> {
        Box::new(AlignedBlock([0; 4096]))
    }
    fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

fn base_spec(t: &Target, o: &Options, bs: u64, threads: u32) -> JobSpec {
    JobSpec {
        rw: Rw::RandWrite,
        bs,
        iodepth: 1,
        numjobs: threads,
        reporting: workload::Reporting {
            group_reporting: true,
            ..Default::default()
        },
        ioengine: EngineKind::Psync,
        filename: vec![t.path.clone()],
        size: Some(o.size),
        runtime: Some(o.runtime),
        time_based: true,
        files: workload::Files {
            // Drop the file's cached pages first, as fio does by default (invalidate=1): on a file
            // just laid out, cached pages made 4k O_DSYNC writes 3.6x slower on ext4 (zram),
            // measuring the page cache's state rather than the sync.
            invalidate: true,
            ..Default::default()
        },
        allow_destructive: o.allow_destructive,
        ..JobSpec::default()
    }
}

fn case_spec(t: &Target, o: &Options, m: Method, bs: u64, threads: u32) -> JobSpec {
    let mut j = base_spec(t, o, bs, threads);
    j.name = format!("fsync-{}-{}-x{threads}", m.name(), workload::short_size(bs));
    m.apply(&mut j);
    j
}

fn run_one(
    spec: &JobSpec,
    stop: &Arc<AtomicBool>,
    obs: &mut dyn Observer,
) -> Result<RunReport, String> {
    let opts = runner::RunOptions {
        stop: stop.clone(),
        command_line: Vec::new(),
        unlink: false,
        peers: None,
    };
    let w = Workload {
        jobs: vec![spec.clone()],
        ..Default::default()
    };
    runner::run(&w, &opts, obs).map_err(|e| e.to_string())
}

/// The first measured case gives the target's facts (file system, device, write cache).
fn take_env(rep: &mut FsyncReport, t: &Target, r: &Result<RunReport, String>, taken: &mut bool) {
    if *taken {
        return;
    }
    if let Ok(r) = r {
        if let Some(ti) = r.environment.targets.first() {
            let mut ti = ti.clone();
            ti.path = t.given.clone();
            ti.kernel_counters = None;
            rep.environment.targets.push(ti);
            *taken = true;
        }
    }
}

fn not_run(t: &Target, spec: &JobSpec, m: Method, why: &str) -> FsyncCase {
    FsyncCase {
        target: t.given.clone(),
        method: m.name().into(),
        bs: spec.bs,
        threads: spec.numjobs,
        writes: 0,
        syncs: 0,
        syncs_per_sec: 0.0,
        writes_per_sec: 0.0,
        mib_per_sec: 0.0,
        lat_ns: Default::default(),
        write_lat_ns: Default::default(),
        sync_lat_ns: None,
        runtime_ns: 0,
        device_flushes: None,
        status: Status::Partial,
        error: Some(why.into()),
    }
}

/// One case's row from its run report.
fn to_case(t: &Target, spec: &JobSpec, m: Method, r: Result<RunReport, String>) -> FsyncCase {
    let r = match r {
        Ok(r) => r,
        Err(e) => return not_run(t, spec, m, &e),
    };
    let mut c = not_run(t, spec, m, "");
    c.error = r.error.clone();
    c.status = r.status;
    let g = &r.group;
    let Some(w) = g.write.as_ref() else {
        return c;
    };
    let secs = (g.runtime_ns as f64 / 1e9).max(1e-9);
    c.writes = w.total_ios;
    c.writes_per_sec = w.total_ios as f64 / secs;
    c.mib_per_sec = w.bw_bytes / MIB;
    c.write_lat_ns = w.lat_ns.clone();
    c.lat_ns = w.lat_ns.clone();
    c.runtime_ns = g.runtime_ns;
    if m.sync_call() {
        if let Some(s) = &g.sync {
            c.syncs = s.total_ios;
            c.sync_lat_ns = Some(s.lat_ns.clone());
            if let Some(d) = &s.durable_lat_ns {
                c.lat_ns = d.clone();
            }
        }
    } else if m.sync_write() {
        c.syncs = w.total_ios;
    }
    c.syncs_per_sec = c.syncs as f64 / secs;
    c.device_flushes = r
        .environment
        .targets
        .first()
        .and_then(|t| t.kernel_counters.map(|k| k.flush_ios));
    c
}

/// The mean of several runs' rates.
fn mean_rates(v: &[RwRates]) -> RwRates {
    let n = v.len().max(1) as f64;
    RwRates {
        read_mib_per_sec: v.iter().map(|r| r.read_mib_per_sec).sum::<f64>() / n,
        write_mib_per_sec: v.iter().map(|r| r.write_mib_per_sec).sum::<f64>() / n,
    }
}

/// The seed-003 line: random 16k read+write 60/40 at the largest thread count, without a sync
/// and with fsync after every write. O_DIRECT, so neither side is the page cache's speed.
fn penalty(
    t: &Target,
    o: &Options,
    stop: &Arc<AtomicBool>,
    obs: &mut dyn Observer,
    env: &mut dyn FnMut(&Result<RunReport, String>),
) -> Penalty {
    let threads = o.threads.iter().copied().max().unwrap_or(16);
    let mut p = Penalty {
        target: t.given.clone(),
        bs: 16 * 1024,
        threads,
        rwmixread: 60,
        direct: t.direct_ok,
        no_sync: RwRates::default(),
        fsync_every_write: RwRates::default(),
        penalty: 0.0,
        error: None,
    };
    // ABBA: unsynced, synced, synced, unsynced, each rate the mean of its two runs. Whatever
    // drifts over the line (a host cache warming to the file, the device's own state after
    // the layout) then weighs on both sides alike instead of on whichever ran first: one
    // pair per run gave 1.15-1.35x on this VM's disk, the first pair once 3.0x on zram.
    let (mut unsynced, mut synced) = (Vec::new(), Vec::new());
    for sync in PENALTY_ORDER {
        let mut j = base_spec(t, o, p.bs, threads);
        j.name = format!("fsync-penalty-{}", if sync { "fsync" } else { "nosync" });
        j.rw = Rw::RandRw;
        j.rwmixread = p.rwmixread;
        j.direct = t.direct_ok;
        j.sync.sync_every = u32::from(sync);
        let r = run_one(&j, stop, obs);
        env(&r);
        let rates = match r {
            Ok(r) if r.error.is_none() => RwRates {
                read_mib_per_sec: r.group.read.as_ref().map_or(0.0, |d| d.bw_bytes / MIB),
                write_mib_per_sec: r.group.write.as_ref().map_or(0.0, |d| d.bw_bytes / MIB),
            },
            Ok(r) => {
                p.error = r.error;
                return p;
            }
            Err(e) => {
                p.error = Some(e);
                return p;
            }
        };
        if sync {
            synced.push(rates);
        } else {
            unsynced.push(rates);
        }
    }
    p.no_sync = mean_rates(&unsynced);
    p.fsync_every_write = mean_rates(&synced);
    let total = |r: &RwRates| r.read_mib_per_sec + r.write_mib_per_sec;
    p.penalty = total(&p.no_sync) / total(&p.fsync_every_write).max(1e-9);
    p
}
