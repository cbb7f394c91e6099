//! Executes a [`Workload`]: prepares targets, runs one thread per job, samples the per-second
//! series, and assembles the [`RunReport`].
//!
//! The runner owns the truth checks that need the live system: device safety, free space,
//! O_DIRECT support, and the kernel's own I/O counters taken around the run.

mod backlog;
mod data;
mod error;
mod flow;
mod job;
#[cfg(test)]
mod job_tests;

mod live;
mod offsets;
mod pace;
mod permutation;
mod pick;
mod placement;
pub mod probe;
mod readback;
pub mod safety;
mod skew;
mod target;

pub use error::RunError;
pub use target::{free_bytes, resolve_paths, DEFAULT_FILE_SIZE};

use live::{JobInput, Live};
use report::{GroupReport, JobReport, KernelCounters, RunReport, Status, Tool, SCHEMA_VERSION};
use stats::{JobStats, Sample, Series};
use std::collections::HashMap;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use workload::Workload;

/// Series interval: one sample per second per job, unless a job's fio logs ask for a shorter
/// average (`log_avg_msec`).
pub const SAMPLE_MS: u64 = 1000;

/// The run's sample interval: the shortest `log_avg_msec` of a job that writes fio logs
/// (100 ms at the least: the sampler wakes every 20 ms), else one second.
fn sample_interval(w: &Workload) -> u64 {
    w.jobs
        .iter()
        .filter(|j| j.logs.any())
        .map(|j| j.logs.avg_msec as u64)
        .filter(|&m| m > 0)
        .min()
        .map_or(SAMPLE_MS, |m| m.clamp(100, SAMPLE_MS))
}
/// How often the sampler wakes: progress, the ramp's end, and the end of the I/O (whose kernel
/// counters must be read within milliseconds) are seen at this granularity at worst.
const TICK: Duration = Duration::from_millis(20);

/// The window the live rate is taken over. One tick's 20 ms is noise: under a cgroup throttle
/// (100 ms slices) or with jobs waiting on fsync, a tick often completes nothing, and the
/// progress said "0 IOPS" of a run doing 1.3k (issue 20's seed-003 runs).
const RATE_WINDOW: Duration = Duration::from_secs(1);

/// Live progress handed to an [`Observer`] about fifty times a second.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub elapsed: Duration,
    /// Total planned time (ramp included) for time-based runs.
    pub planned: Option<Duration>,
    /// Fraction of the byte budget issued, for size-based runs.
    pub fraction: Option<f64>,
    pub ios: u64,
    pub bytes: u64,
    /// Rates over the last [`RATE_WINDOW`] (since the start, in the first one).
    pub iops: f64,
    pub bw_bytes: f64,
    pub ramping: bool,
}

/// Receives progress; the CLI draws a bar with it, tests ignore it.
pub trait Observer {
    fn layout(&mut self, _path: &Path, _done: u64, _total: u64) {}
    fn tick(&mut self, _p: &Progress) {}
    fn finish(&mut self) {}
}

/// An observer that shows nothing.
pub struct Silent;
impl Observer for Silent {}

pub struct RunOptions {
    /// Set it (e.g. from a Ctrl-C handler) to stop the run; results so far are kept.
    pub stop: Arc<AtomicBool>,
    pub command_line: Vec<String>,
    /// Remove files this run created once it ends (they are always removed after an interrupt).
    pub unlink: bool,
    /// Other processes running the same workload in step (MPI ranks), if any.
    pub peers: Option<Rc<dyn Peers>>,
}

/// Other processes running the same workload at the same time (MPI ranks). The runner calls
/// these at fixed points of a single-phase run, in this order, each at most once except
/// `poll_end`: every process starts its measured interval together, and the first to finish
/// ends it for all (IOR's stonewalling), so all ranks measure one common interval.
pub trait Peers {
    /// Every local job is set up and waiting; `ok` is false when this process cannot run.
    /// Returns once every peer has arrived: true if all of them can run.
    fn start_line(&self, ok: bool) -> bool;
    /// Called about fifty times a second while the I/O runs; `done` says this process's jobs
    /// have all ended. True means a peer has finished: end the measured interval now.
    fn poll_end(&self, done: bool) -> bool;
    /// This process's jobs have all ended; returns once every peer's have, so the kernel's
    /// counters read after it include every rank's I/O.
    fn ended(&self);
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            stop: Arc::new(AtomicBool::new(false)),
            command_line: std::env::args().collect(),
            unlink: false,
            peers: None,
        }
    }
}

struct Planned {
    spec_idx: usize,
    clone: u32,
    name: String,
    /// Indices into the run's distinct targets, one per file.
    targets: Vec<usize>,
    phase: usize,
    group: u32,
}

fn remove_created(created: &[PathBuf]) {
    for p in created {
        let _ = std::fs::remove_file(p);
    }
}

/// Live sampling state for the jobs of one phase.
struct Sampler {
    series: Vec<Series>,
    last: Vec<Counters>,
    last_t_ms: u64,
}

/// A job's running totals as the sampler reads them: I/Os and bytes per direction, then the
/// latency sums (total, completion, submission; reads then writes).
type Counters = [u64; 10];

fn counters(l: &Live) -> Counters {
    let mut c = [0; 10];
    for d in 0..2 {
        c[d] = l.ios[d].load(Relaxed);
        c[2 + d] = l.bytes[d].load(Relaxed);
    }
    for (i, v) in l.lat_sums.iter().enumerate() {
        c[4 + i] = v.load(Relaxed);
    }
    c
}

/// The sample between two readings of a job's totals.
fn delta(t_ms: u64, dt_ms: u64, cur: &Counters, last: &Counters) -> Sample {
    let d = |i: usize| cur[i].saturating_sub(last[i]);
    Sample {
        t_ms,
        dt_ms,
        ios: [d(0), d(1)],
        bytes: [d(2), d(3)],
        lat_sum_ns: [d(4), d(5)],
        clat_sum_ns: [d(6), d(7)],
        slat_sum_ns: [d(8), d(9)],
    }
}

/// The job's final totals, from its statistics: what the last sample closes up to.
fn final_counters(st: &JobStats) -> Counters {
    let d = &st.dirs;
    [
        d[0].ios,
        d[1].ios,
        d[0].bytes,
        d[1].bytes,
        d[0].lat.sum(),
        d[1].lat.sum(),
        d[0].clat.sum(),
        d[1].clat.sum(),
        d[0].slat.sum(),
        d[1].slat.sum(),
    ]
}

/// Runs the workload to completion (or interruption) and reports it.
pub fn run(w: &Workload, opts: &RunOptions, obs: &mut dyn Observer) -> Result<RunReport, RunError> {
    for s in &w.jobs {
        s.validate()?;
    }
    check_memory(w)?;
    let (started_at, started_unix) = report::started(SystemTime::now());

    // Plan: clones, files, phases (a stonewall starts one) and reporting groups (a stonewall or
    // new_group starts one). Targets shared by several jobs are laid out and reported once, but
    // each job opens its own descriptor.
    let mut created = Vec::new();
    let mut targets: Vec<report::TargetInfo> = Vec::new();
    let mut target_of_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut plans = Vec::new();
    let mut job_files: Vec<Vec<target::Target>> = Vec::new();
    let (mut phase, mut group) = (0usize, 0u32);
    for (si, spec) in w.jobs.iter().enumerate() {
        if si > 0 && spec.stonewall {
            phase += 1;
        }
        if si > 0 && (spec.stonewall || spec.new_group) {
            group += 1;
        }
        for clone in 0..spec.numjobs {
            let paths = target::resolve_paths(spec, clone);
            let mut files = Vec::new();
            let mut idxs = Vec::new();
            for path in &paths {
                let prepared = target::prepare(
                    spec,
                    clone,
                    path,
                    paths.len() as u32,
                    &opts.stop,
                    &mut created,
                    &mut |p, d, t| obs.layout(p, d, t),
                );
                let t = match prepared {
                    Ok(t) => t,
                    Err(e) => {
                        remove_created(&created);
                        return Err(e);
                    }
                };
                idxs.push(*target_of_path.entry(path.clone()).or_insert_with(|| {
                    targets.push(t.info.clone());
                    targets.len() - 1
                }));
                files.push(t);
            }
            plans.push(Planned {
                spec_idx: si,
                clone,
                name: if spec.numjobs == 1 {
                    spec.name.clone()
                } else {
                    format!("{}.{clone}", spec.name)
                },
                targets: idxs,
                phase,
                group,
            });
            job_files.push(files);
        }
    }

    // Kernel counters per distinct device node, around the whole run.
    let mut devs: Vec<(usize, probe::DevId)> = Vec::new();
    for (p, files) in plans.iter().zip(&job_files) {
        for (t, ti) in files.iter().zip(&p.targets) {
            if let Some(d) = t.dev {
                if !devs.iter().any(|(_, x)| *x == d) {
                    devs.push((*ti, d));
                }
            }
        }
    }
    let snapshot = || -> Vec<Option<KernelCounters>> {
        devs.iter()
            .map(|(_, d)| probe::kernel_counters(*d))
            .collect()
    };

    let n = plans.len();
    let sample_ms = sample_interval(w);
    let mut outputs: Vec<Option<live::JobOutput>> = (0..n).map(|_| None).collect();
    let mut series: Vec<Series> = vec![Series::default(); n];
    let mut last_sampled: Vec<Counters> = vec![[0; 10]; n];
    let mut last_t: Vec<u64> = vec![0; n];
    let mut before = Vec::new();
    let mut cpu_before = (0, 0, 0);
    let mut before_at = Instant::now();
    let mut after: Option<(Vec<Option<KernelCounters>>, Duration)> = None;
    let mut first_phase = true;
    for ph in 0..=phase {
        let members: Vec<usize> = (0..n).filter(|&i| plans[i].phase == ph).collect();
        if members.is_empty() || opts.stop.load(Relaxed) {
            continue;
        }
        let line = Arc::new(live::StartLine::new(members.len()));
        // Jobs watch this flag, not `opts.stop`: the sampler raises it for a Ctrl-C and for a
        // peer's stonewall alike, and only the former marks the run interrupted.
        let halt = Arc::new(AtomicBool::new(opts.stop.load(Relaxed)));
        let lives: Vec<Arc<Live>> = members.iter().map(|_| Arc::new(Live::default())).collect();
        let flows = flow::groups(members.iter().map(|&i| &w.jobs[plans[i].spec_idx]));
        let mut handles = Vec::with_capacity(members.len());
        for (k, &i) in members.iter().enumerate() {
            let p = &plans[i];
            let files = &job_files[i];
            let inp = JobInput {
                spec: w.jobs[p.spec_idx].clone(),
                clone: p.clone,
                fds: files.iter().map(|t| t.file.as_raw_fd()).collect(),
                regions: files.iter().map(|t| (t.offset, t.len)).collect(),
                lbs: files.iter().map(|t| t.lbs).max().unwrap_or(512),
                live: lives[k].clone(),
                stop: halt.clone(),
                start: line.clone(),
                flow: std::cell::Cell::new(flow::Flow::new(&w.jobs[p.spec_idx], &flows)),
            };
            handles.push(
                std::thread::Builder::new()
                    .name(format!("job-{}", p.name))
                    .spawn(move || job::run(inp))
                    .expect("spawning a job thread"),
            );
        }
        let specs: Vec<&workload::JobSpec> = members
            .iter()
            .map(|&i| &w.jobs[plans[i].spec_idx])
            .collect();
        let ramp = specs
            .iter()
            .map(|s| s.ramp_time + s.startdelay)
            .max()
            .unwrap_or_default();
        let planned = specs.iter().all(|s| s.time_based).then(|| {
            ramp + specs
                .iter()
                .filter_map(|s| s.runtime)
                .max()
                .unwrap_or_default()
        });
        let budget: u64 = members
            .iter()
            .filter(|&&i| !w.jobs[plans[i].spec_idx].time_based)
            .map(|&i| job_files[i].iter().map(|t| t.len).sum::<u64>())
            .sum();

        // Every job is set up (engine, buffers, histograms) before the clock starts: the
        // common start is fixed only once all have arrived at the line.
        while line.ready.load(Relaxed) < members.len() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let peers_ok = opts.peers.as_ref().is_none_or(|p| p.start_line(true));
        if !peers_ok {
            halt.store(true, Relaxed);
        }
        let ramp_free = first_phase && ramp.is_zero();
        if ramp_free {
            before = snapshot();
            before_at = Instant::now();
        }
        let start = Instant::now();
        line.epoch.set(start).expect("one epoch per phase");
        line.barrier.wait();
        if first_phase {
            cpu_before = process_cpu();
        }
        let mut sampler = Sampler {
            series: members
                .iter()
                .map(|_| Series {
                    interval_ms: sample_ms,
                    samples: Vec::new(),
                })
                .collect(),
            last: vec![[0; 10]; members.len()],
            last_t_ms: 0,
        };
        let mut next_sample = start + ramp + Duration::from_millis(sample_ms);
        let mut measuring = ramp.is_zero();
        let mut prev = (start, 0u64, 0u64);
        let mut rate = (0.0, 0.0);
        while !lives.iter().all(|l| l.done.load(Relaxed)) {
            sleep_until_next(start, ramp, measuring, planned, next_sample);
            let ended = lives.iter().all(|l| l.ended.load(Relaxed));
            let peer_end = opts.peers.as_ref().is_some_and(|p| p.poll_end(ended));
            if peer_end || opts.stop.load(Relaxed) {
                halt.store(true, Relaxed);
            }
            // The kernel's counters for the run end with the last phase's I/O, before any
            // verify pass or engine teardown (hundreds of io_uring rings take a while to go).
            if !line.counted.load(Relaxed) && ended {
                if let Some(p) = &opts.peers {
                    p.ended();
                }
                if ph == phase {
                    after = Some((snapshot(), before_at.elapsed()));
                }
                line.counted.store(true, Relaxed);
            }
            let now = Instant::now();
            if !measuring && now >= start + ramp {
                measuring = true;
                if first_phase {
                    before = snapshot();
                    before_at = Instant::now();
                    cpu_before = process_cpu();
                }
            }
            if now >= next_sample {
                let t_ms = (now - start - ramp).as_millis() as u64;
                for (k, l) in lives.iter().enumerate() {
                    let cur = counters(l);
                    let dt = t_ms - sampler.last_t_ms;
                    let s = delta(t_ms, dt, &cur, &sampler.last[k]);
                    sampler.series[k].samples.push(s);
                    sampler.last[k] = cur;
                }
                sampler.last_t_ms = t_ms;
                next_sample += Duration::from_millis(sample_ms);
            }
            let (ios, bytes) = lives.iter().fold((0, 0), |(a, b), l| {
                (
                    a + l.ios[0].load(Relaxed) + l.ios[1].load(Relaxed),
                    b + l.bytes[0].load(Relaxed) + l.bytes[1].load(Relaxed),
                )
            });
            let issued: u64 = lives.iter().map(|l| l.issued.load(Relaxed)).sum();
            if now - prev.0 >= RATE_WINDOW {
                let dt = (now - prev.0).as_secs_f64();
                rate = (
                    ios.saturating_sub(prev.1) as f64 / dt,
                    bytes.saturating_sub(prev.2) as f64 / dt,
                );
                prev = (now, ios, bytes);
            } else if prev.0 == start {
                let dt = (now - start).as_secs_f64().max(1e-3);
                rate = (ios as f64 / dt, bytes as f64 / dt);
            }
            obs.tick(&Progress {
                elapsed: now - start,
                planned,
                fraction: (budget > 0).then(|| (issued as f64 / budget as f64).min(1.0)),
                ios,
                bytes,
                iops: rate.0,
                bw_bytes: rate.1,
                ramping: !measuring,
            });
        }
        obs.finish();
        for (k, h) in handles.into_iter().enumerate() {
            let i = members[k];
            outputs[i] = Some(h.join().expect("a job thread panicked"));
            series[i] = std::mem::take(&mut sampler.series[k]);
            last_sampled[i] = sampler.last[k];
            last_t[i] = sampler.last_t_ms;
        }
        first_phase = false;
        if !peers_ok {
            remove_created(&created);
            return Err(RunError::PeerFailed);
        }
        if let Some(e) = outputs
            .iter_mut()
            .flatten()
            .find_map(|o| o.setup_error.take())
        {
            remove_created(&created);
            return Err(RunError::Engine(e));
        }
    }
    let (after, interval) = after.unwrap_or_else(|| (snapshot(), before_at.elapsed()));
    let interval_ns = interval.as_nanos() as u64;
    let cpu_after = process_cpu();
    let interrupted = opts.stop.load(Relaxed);
    drop(job_files);

    // Close each job's series with the remainder up to its own end, so samples sum exactly to
    // the job's totals. Jobs of phases that never started (interrupted) report nothing.
    let mut job_reports = Vec::with_capacity(n);
    let mut job_stats = Vec::with_capacity(n);
    let mut first_error = None;
    for (i, p) in plans.iter().enumerate() {
        let Some(o) = outputs[i].take() else { continue };
        let mut st = o.stats;
        let end_ms = st.runtime_ns / 1_000_000;
        let fin = final_counters(&st);
        let rest = delta(
            end_ms.max(last_t[i]),
            end_ms.saturating_sub(last_t[i]),
            &fin,
            &last_sampled[i],
        );
        if rest.ios != [0, 0] || rest.bytes != [0, 0] || series[i].samples.is_empty() {
            series[i].samples.push(rest);
        }
        series[i].interval_ms = sample_ms;
        st.series = std::mem::take(&mut series[i]);
        let spec = &w.jobs[p.spec_idx];
        let mut jr = JobReport::from_stats(
            &p.name,
            p.targets.iter().map(|&t| targets[t].path.clone()).collect(),
            &st,
            spec.ioengine.is_sync(),
        );
        jr.groupid = p.group;
        jr.spec_index = p.spec_idx;
        jr.verified_blocks = (o.verified > 0).then_some(o.verified);
        jr.fio_windows = o.windows;
        if let Some(e) = o.error {
            first_error.get_or_insert_with(|| format!("job {}: {e}", p.name));
            jr.error = Some(e);
        }
        job_reports.push(jr);
        job_stats.push((p.group, p.phase, p.spec_idx, st));
    }
    for (k, (ti, _)) in devs.iter().enumerate() {
        if let (Some(Some(a)), Some(Some(b))) = (before.get(k), after.get(k)) {
            let mut k = probe::counters_delta(*a, *b);
            k.interval_ns = interval_ns;
            targets[*ti].kernel_counters = Some(k);
        }
    }

    // Reporting groups: jobs running side by side merge with the longest runtime.
    let mut groups = Vec::new();
    for g in 0..=group {
        let members: Vec<&(u32, usize, usize, JobStats)> =
            job_stats.iter().filter(|x| x.0 == g).collect();
        let Some(first) = members.first() else {
            continue;
        };
        let mut merged = JobStats::default();
        members.iter().for_each(|m| merged.merge(&m.3));
        let sync_only = members.iter().all(|m| w.jobs[m.2].ioengine.is_sync());
        let mut r = JobReport::from_stats(&w.jobs[first.2].name, Vec::new(), &merged, sync_only);
        r.groupid = g;
        r.spec_index = first.2;
        groups.push(GroupReport {
            group_reporting: members.iter().any(|m| w.jobs[m.2].group_reporting),
            spec_index: first.2,
            report: r,
        });
    }
    // All jobs: phases one after another add their runtimes; jobs within a phase overlap.
    let mut all = JobStats::default();
    for ph in 0..=phase {
        let mut p = JobStats::default();
        job_stats
            .iter()
            .filter(|x| x.1 == ph)
            .for_each(|x| p.merge(&x.3));
        let runtime = all.runtime_ns + p.runtime_ns;
        all.merge(&p);
        all.runtime_ns = runtime;
    }
    // The group's CPU is the whole process: io_uring runs work the device cannot take without
    // blocking on kernel worker threads (iou-wrk) that belong to the process but not to a job
    // thread, and leaving them out would understate the cost per I/O.
    all.usr_ns = cpu_after.0.saturating_sub(cpu_before.0);
    all.sys_ns = cpu_after.1.saturating_sub(cpu_before.1);
    all.ctx = cpu_after.2.saturating_sub(cpu_before.2);
    let sync_only = w.jobs.iter().all(|s| s.ioengine.is_sync());
    let group_report = JobReport::from_stats(
        "all",
        targets.iter().map(|t| t.path.clone()).collect(),
        &all,
        sync_only,
    );
    let mut env = probe::environment();
    let warnings = report::trust::records(&w.jobs, &job_reports, &groups, &targets);
    env.targets = targets;
    let status = if interrupted {
        Status::Interrupted
    } else if first_error.is_some() {
        Status::Partial
    } else {
        Status::Complete
    };
    // Files this run created go after an interrupt, with --unlink, or for jobs asking unlink=1.
    let unlink_all = interrupted || opts.unlink;
    let unlink_paths: Vec<PathBuf> = plans
        .iter()
        .filter(|p| unlink_all || w.jobs[p.spec_idx].unlink)
        .flat_map(|p| target::resolve_paths(&w.jobs[p.spec_idx], p.clone))
        .collect();
    remove_created(
        &created
            .iter()
            .filter(|c| unlink_paths.contains(c))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let mut report = RunReport {
        schema_version: SCHEMA_VERSION,
        tool: Tool::volbench(),
        started_at,
        started_unix,
        command_line: opts.command_line.clone(),
        status,
        error: first_error,
        workload: w.clone(),
        environment: env,
        jobs: job_reports,
        group: group_report,
        groups,
        global_options: w.global_options.clone(),
        warnings,
        ranks: Vec::new(),
        scaleout: None,
    };
    report::apply_percentile_lists(&mut report);
    Ok(report)
}

/// Lays out `spec`'s file (its first clone's) as a run would, without running: for a file
/// several processes share, laid out once before they start. Returns the files it created.
pub fn lay_out(spec: &workload::JobSpec, stop: &AtomicBool) -> Result<Vec<PathBuf>, RunError> {
    spec.validate()?;
    let mut created = Vec::new();
    for path in target::resolve_paths(spec, 0) {
        let n = spec.nrfiles.max(1);
        if let Err(e) = target::prepare(spec, 0, &path, n, stop, &mut created, &mut |_, _, _| {}) {
            remove_created(&created);
            return Err(e);
        }
    }
    Ok(created)
}

/// Every job holds `iodepth` buffers of the largest block size: refuse before allocating what
/// the machine does not have (`bs=1g iodepth=32` is 32 GiB), with the fix in the message.
fn check_memory(w: &Workload) -> Result<(), RunError> {
    let need: u64 = w
        .jobs
        .iter()
        .map(|s| s.numjobs as u64 * s.effective_iodepth() as u64 * s.max_bs())
        .sum();
    let avail = probe::mem_available().unwrap_or(u64::MAX);
    // Leave room for the page cache and everything else: buffers may take 80 % of it.
    if need > avail / 5 * 4 {
        return Err(RunError::Memory {
            need: workload::format_bytes(need as f64),
            avail: workload::format_bytes(avail as f64),
        });
    }
    Ok(())
}

/// The sampler's sleep: a tick, but never past the next event it must catch on time (the ramp's
/// end, the next sample) and only briefly once the planned end has passed, so the end of the
/// run (and the kernel's counters after it) is seen within milliseconds.
fn sleep_until_next(
    start: Instant,
    ramp: Duration,
    measuring: bool,
    planned: Option<Duration>,
    next_sample: Instant,
) {
    let now = Instant::now();
    let mut until = (now + TICK).min(next_sample);
    if !measuring {
        until = until.min(start + ramp);
    }
    if let Some(p) = planned {
        let end = start + p;
        until = if now >= end {
            now + Duration::from_millis(2)
        } else {
            until.min(end)
        };
    }
    std::thread::sleep(
        until
            .saturating_duration_since(now)
            .max(Duration::from_micros(200)),
    );
}

/// (user ns, system ns, context switches) of the whole process, every thread included.
fn process_cpu() -> (u64, u64, u64) {
    live::rusage(libc::RUSAGE_SELF)
}
