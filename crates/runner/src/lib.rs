//! Executes a [`Workload`]: prepares targets, runs one thread per job, samples the per-second
//! series, and assembles the [`RunReport`].
//!
//! The runner owns the truth checks that need the live system: device safety, free space,
//! O_DIRECT support, and the kernel's own I/O counters taken around the run.

mod data;
mod error;
mod job;
mod judge;
mod offsets;
pub mod probe;
pub mod safety;
mod target;

pub use error::RunError;
pub use target::{resolve_path, DEFAULT_FILE_SIZE};

use job::{JobInput, Live};
use report::{JobReport, KernelCounters, RunReport, Status, Tool, SCHEMA_VERSION};
use stats::{JobStats, Sample, Series};
use std::collections::HashMap;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime};
use workload::Workload;

/// Series interval: one sample per second per job.
pub const SAMPLE_MS: u64 = 1000;
const TICK: Duration = Duration::from_millis(100);

/// Live progress handed to an [`Observer`] about ten times a second.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub elapsed: Duration,
    /// Total planned time (ramp included) for time-based runs.
    pub planned: Option<Duration>,
    /// Fraction of the byte budget issued, for size-based runs.
    pub fraction: Option<f64>,
    pub ios: u64,
    pub bytes: u64,
    /// Rates over the last tick.
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            stop: Arc::new(AtomicBool::new(false)),
            command_line: std::env::args().collect(),
            unlink: false,
        }
    }
}

struct Planned {
    spec_idx: usize,
    clone: u32,
    name: String,
    target: usize,
}

fn remove_created(created: &[PathBuf]) {
    for p in created {
        let _ = std::fs::remove_file(p);
    }
}

/// Runs the workload to completion (or interruption) and reports it.
pub fn run(w: &Workload, opts: &RunOptions, obs: &mut dyn Observer) -> Result<RunReport, RunError> {
    for s in &w.jobs {
        s.validate()?;
    }
    let started_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();

    // Targets, in job order; a path shared by several jobs is prepared once per job (each job
    // has its own descriptor) but laid out and reported once.
    let mut created = Vec::new();
    let mut targets = Vec::new();
    let mut target_of_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut plans = Vec::new();
    let mut job_targets = Vec::new();
    for (si, spec) in w.jobs.iter().enumerate() {
        for clone in 0..spec.numjobs {
            let path = target::resolve_path(spec, clone);
            let prepared =
                target::prepare(spec, &path, &opts.stop, &mut created, &mut |p, d, t| {
                    obs.layout(p, d, t)
                });
            let t = match prepared {
                Ok(t) => t,
                Err(e) => {
                    remove_created(&created);
                    return Err(e);
                }
            };
            let idx = *target_of_path.entry(path.clone()).or_insert_with(|| {
                targets.push(t.info.clone());
                targets.len() - 1
            });
            plans.push(Planned {
                spec_idx: si,
                clone,
                name: if spec.numjobs == 1 {
                    spec.name.clone()
                } else {
                    format!("{}.{clone}", spec.name)
                },
                target: idx,
            });
            job_targets.push(t);
        }
    }

    // Kernel counters per distinct device node.
    let mut devs: Vec<(usize, probe::DevId)> = Vec::new();
    for (i, t) in job_targets.iter().enumerate() {
        if let Some(d) = t.dev {
            if !devs.iter().any(|(_, x)| *x == d) {
                devs.push((plans[i].target, d));
            }
        }
    }
    let snapshot = || -> Vec<Option<KernelCounters>> {
        devs.iter()
            .map(|(_, d)| probe::kernel_counters(*d))
            .collect()
    };

    let n = plans.len();
    let barrier = Arc::new(Barrier::new(n + 1));
    let lives: Vec<Arc<Live>> = (0..n).map(|_| Arc::new(Live::default())).collect();
    let mut handles = Vec::with_capacity(n);
    for (i, p) in plans.iter().enumerate() {
        let spec = w.jobs[p.spec_idx].clone();
        let t = &job_targets[i];
        let inp = JobInput {
            spec,
            clone: p.clone,
            fds: vec![t.file.as_raw_fd()],
            offset: t.offset,
            len: t.len,
            lbs: t.lbs,
            live: lives[i].clone(),
            stop: opts.stop.clone(),
            start: barrier.clone(),
        };
        let h = std::thread::Builder::new()
            .name(format!("job-{}", p.name))
            .spawn(move || job::run(inp))
            .expect("spawning a job thread");
        handles.push(h);
    }

    let max_ramp = w.jobs.iter().map(|s| s.ramp_time).max().unwrap_or_default();
    let planned = w.jobs.iter().all(|s| s.time_based).then(|| {
        max_ramp
            + w.jobs
                .iter()
                .filter_map(|s| s.runtime)
                .max()
                .unwrap_or_default()
    });
    let budget: u64 = plans
        .iter()
        .enumerate()
        .filter(|(_, p)| !w.jobs[p.spec_idx].time_based)
        .map(|(i, _)| job_targets[i].len)
        .sum();

    let mut before = if max_ramp.is_zero() {
        snapshot()
    } else {
        Vec::new()
    };
    barrier.wait();
    let start = Instant::now();
    let mut cpu_before = process_cpu();

    // Sample until every job is done.
    let mut series: Vec<Series> = (0..n)
        .map(|_| Series {
            interval_ms: SAMPLE_MS,
            samples: Vec::new(),
        })
        .collect();
    let mut last: Vec<[u64; 4]> = vec![[0; 4]; n];
    let mut last_t_ms = 0u64;
    let mut next_sample = start + max_ramp + Duration::from_millis(SAMPLE_MS);
    let mut measuring = max_ramp.is_zero();
    let mut prev = (start, 0u64, 0u64);
    loop {
        let all_done = lives.iter().all(|l| l.done.load(Relaxed));
        if all_done {
            break;
        }
        std::thread::sleep(TICK);
        let now = Instant::now();
        if !measuring && now >= start + max_ramp {
            measuring = true;
            before = snapshot();
            cpu_before = process_cpu();
        }
        if now >= next_sample {
            let t_ms = (now - start - max_ramp).as_millis() as u64;
            for (i, l) in lives.iter().enumerate() {
                let cur = [
                    l.ios[0].load(Relaxed),
                    l.ios[1].load(Relaxed),
                    l.bytes[0].load(Relaxed),
                    l.bytes[1].load(Relaxed),
                ];
                series[i].samples.push(Sample {
                    t_ms,
                    dt_ms: t_ms - last_t_ms,
                    ios: [cur[0] - last[i][0], cur[1] - last[i][1]],
                    bytes: [cur[2] - last[i][2], cur[3] - last[i][3]],
                });
                last[i] = cur;
            }
            last_t_ms = t_ms;
            next_sample += Duration::from_millis(SAMPLE_MS);
        }
        let (ios, bytes) = lives.iter().fold((0, 0), |(a, b), l| {
            (
                a + l.ios[0].load(Relaxed) + l.ios[1].load(Relaxed),
                b + l.bytes[0].load(Relaxed) + l.bytes[1].load(Relaxed),
            )
        });
        let issued: u64 = lives.iter().map(|l| l.issued.load(Relaxed)).sum();
        let dt = (now - prev.0).as_secs_f64().max(1e-9);
        obs.tick(&Progress {
            elapsed: now - start,
            planned,
            fraction: (budget > 0).then(|| (issued as f64 / budget as f64).min(1.0)),
            ios,
            bytes,
            iops: ios.saturating_sub(prev.1) as f64 / dt,
            bw_bytes: bytes.saturating_sub(prev.2) as f64 / dt,
            ramping: !measuring,
        });
        prev = (now, ios, bytes);
    }
    obs.finish();

    let mut outputs: Vec<job::JobOutput> = handles
        .into_iter()
        .map(|h| h.join().expect("a job thread panicked"))
        .collect();
    let after = snapshot();
    let cpu_after = process_cpu();
    let interrupted = opts.stop.load(Relaxed);
    drop(job_targets);

    if let Some(e) = outputs.iter_mut().find_map(|o| o.setup_error.take()) {
        remove_created(&created);
        return Err(RunError::Engine(e));
    }

    // Close each job's series with the remainder up to its own end, so samples sum exactly to
    // the job's totals.
    let mut job_reports = Vec::with_capacity(n);
    let mut group = JobStats::default();
    let mut first_error = None;
    for (i, (o, p)) in outputs.into_iter().zip(&plans).enumerate() {
        let mut st = o.stats;
        let end_ms = st.runtime_ns / 1_000_000;
        let d = &st.dirs;
        let rest = [
            d[0].ios - last[i][0],
            d[1].ios - last[i][1],
            d[0].bytes - last[i][2],
            d[1].bytes - last[i][3],
        ];
        if rest.iter().any(|&x| x > 0) || series[i].samples.is_empty() {
            series[i].samples.push(Sample {
                t_ms: end_ms.max(last_t_ms),
                dt_ms: end_ms.saturating_sub(last_t_ms),
                ios: [rest[0], rest[1]],
                bytes: [rest[2], rest[3]],
            });
        }
        st.series = std::mem::take(&mut series[i]);
        group.merge(&st);
        let spec = &w.jobs[p.spec_idx];
        let mut jr = JobReport::from_stats(
            &p.name,
            vec![targets[p.target].path.clone()],
            &st,
            spec.ioengine.is_sync(),
        );
        if let Some(e) = o.error {
            first_error.get_or_insert_with(|| format!("job {}: {e}", p.name));
            jr.error = Some(e);
        }
        job_reports.push(jr);
    }
    for (k, (ti, _)) in devs.iter().enumerate() {
        if let (Some(Some(a)), Some(Some(b))) = (before.get(k), after.get(k)) {
            targets[*ti].kernel_counters = Some(probe::counters_delta(*a, *b));
        }
    }

    // The group's CPU is the whole process: io_uring runs work the device cannot take without
    // blocking on kernel worker threads (iou-wrk) that belong to the process but not to a job
    // thread, and leaving them out would understate the cost per I/O.
    group.usr_ns = cpu_after.0.saturating_sub(cpu_before.0);
    group.sys_ns = cpu_after.1.saturating_sub(cpu_before.1);
    group.ctx = cpu_after.2.saturating_sub(cpu_before.2);
    let any_sync = w.jobs.iter().all(|s| s.ioengine.is_sync());
    let group_report = JobReport::from_stats(
        "all",
        targets.iter().map(|t| t.path.clone()).collect(),
        &group,
        any_sync,
    );
    let mut env = probe::environment();
    let warnings = judge::warnings(&w.jobs, &job_reports, &group_report, &targets);
    env.targets = targets;
    let status = if interrupted {
        Status::Interrupted
    } else if first_error.is_some() {
        Status::Partial
    } else {
        Status::Complete
    };
    if interrupted || opts.unlink {
        remove_created(&created);
    }
    Ok(RunReport {
        schema_version: SCHEMA_VERSION,
        tool: Tool {
            name: "volbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        started_at,
        command_line: opts.command_line.clone(),
        status,
        error: first_error,
        workload: w.clone(),
        environment: env,
        jobs: job_reports,
        group: group_report,
        warnings,
    })
}

/// (user ns, system ns, context switches) of the whole process, every thread included.
fn process_cpu() -> (u64, u64, u64) {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (
        ns(ru.ru_utime),
        ns(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
    )
}
