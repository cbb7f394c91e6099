//! `volbench infer`: what limits a volume. The probe designs itself:
//!
//! 1. a burst phase first, while any bucket is still full: 4k random reads at a high depth
//!    with a per-second series, stopped once a drop has been followed long enough to measure
//!    the level after it (20 % of the burst, at least 2 s), or at `--burst-time`;
//! 2. with `--refill-wait`, an idle wait and a second burst: the refill rate. It follows the
//!    first burst at once, while the bucket is known to be empty (the sweeps' idle gaps
//!    between points earn credits of their own: a refill measured after them read 1,237 for
//!    958), and the idle is timed from the first burst's last I/O to the second's first;
//! 3. the latency floor: 4k reads at queue depth 1;
//! 4. a depth sweep at 4k (1, 2, 4, ...) until IOPS stop rising: the IOPS cap and the depth
//!    that reaches it;
//! 5. a block-size sweep at that depth (4k ... 1m): the bandwidth cap and the crossover.
//!
//! The cap is the rate after any burst (the sweeps run with the bucket drained), which is what
//! the volume sustains.

use cloud::catalog::Catalog;
use cloud::{model, step};
use report::{
    BurstFound, BwBurstFound, Closest, InferReport, JobReport, Limits, Point, Status, Tool,
};
use runner::{Observer, Progress};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use workload::{EngineKind, JobSpec, Rw, Workload};

#[derive(Clone, Debug)]
pub struct Options {
    pub target: PathBuf,
    /// Probe with random writes instead of reads (a device needs `allow_destructive`).
    pub write: bool,
    pub allow_destructive: bool,
    /// Length of each sweep point.
    pub point_time: Duration,
    /// The longest the burst phase may run; zero skips it.
    pub burst_time: Duration,
    pub burst_depth: u32,
    pub burst_bs: u64,
    /// Idle time before a second burst that measures the refill rate; zero skips it.
    pub refill_wait: Duration,
    pub max_depth: u32,
    /// The probe file's size when the target is a directory.
    pub size: u64,
    pub engine: EngineKind,
    pub stop: Arc<AtomicBool>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: PathBuf::from("."),
            write: false,
            allow_destructive: false,
            point_time: Duration::from_secs(2),
            burst_time: Duration::from_secs(20),
            burst_depth: 32,
            burst_bs: 4096,
            refill_wait: Duration::ZERO,
            max_depth: 256,
            size: 1 << 30,
            engine: EngineKind::IoUring,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// A point's gain under this is "no longer rising": throttles hold their caps within a few
/// percent, so 5 % over two doublings is a plateau, not noise.
const PLATEAU_GAIN: f64 = 1.05;

/// The probe's file in a directory target; removed when the probe ends, however it ends.
struct ProbeFile {
    path: Option<PathBuf>,
    /// The record a killed volbench leaves for the next one to remove the file by.
    _held: Option<leftovers::Hold>,
}
impl Drop for ProbeFile {
    fn drop(&mut self) {
        if let Some(p) = &self.path {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Runs the probe on `o.target` and reports what it found.
pub fn probe(
    o: &Options,
    cat: Option<&Catalog>,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<InferReport> {
    let (path, _file) = target(o)?;
    let mut p = Probe {
        o,
        path,
        points: Vec::new(),
        io_time: 0.0,
        env: None,
        list: runner::Points::new(o.stop.clone(), None),
    };
    let (started_at, started_unix) = report::started(std::time::SystemTime::now());
    let (burst_series, burst, refill) = p.bursts(say)?;
    say("latency floor: 4k at QD1");
    let lat = p.point("latency", 4096, 1)?;
    say("depth sweep at 4k");
    let (iops_cap, qd) = p.depth_sweep()?;
    say(&format!("block-size sweep at QD{}", qd.max(8)));
    let mut bw_cap = p.bs_sweep(qd)?;
    // Where the volume bursts in IOPS it may burst in throughput too, on its own bucket that
    // small blocks never drain (DigitalOcean, Azure): drain it at 1m before trusting the cap.
    let mut bw_burst = None;
    if burst.is_some() && !o.burst_time.is_zero() && !p.iops_bound_at_1m(iops_cap) {
        say("throughput burst phase: 1m reads");
        if let Some(s) = p.burst_phase("bw-burst", 1 << 20, qd.max(8), true)?.step {
            bw_cap = s.after;
            bw_burst = Some(s);
        }
    }
    let mut r = p.report(started_at, started_unix);
    r.burst_series = burst_series;
    finish(&mut r, iops_cap, bw_cap, qd, floor_of(&lat), burst, refill);
    r.limits.bw_burst = bw_burst.map(|s| {
        r.evidence.push(format!(
            "throughput burst phase: {:.1} MiB/s for {:.1} s, then {:.1} MiB/s",
            s.before / 1048576.0,
            s.at_s,
            s.after / 1048576.0
        ));
        BwBurstFound {
            burst_bw_bytes: s.before,
            baseline_bw_bytes: s.after,
            duration_s: s.at_s,
            bucket_bytes: (s.before - s.after) * s.at_s,
        }
    });
    if let Some(c) = cat {
        r.closest = closest(c, &r.limits);
    }
    Ok(r)
}

/// A device is probed in place; a directory gets a probe file laid out once, before the
/// burst phase (the layout's writes are themselves I/O a bucket pays for: say so).
fn target(o: &Options) -> anyhow::Result<(PathBuf, ProbeFile)> {
    let md =
        std::fs::metadata(&o.target).map_err(|e| anyhow::anyhow!("{}: {e}", o.target.display()))?;
    if !md.is_dir() {
        return Ok((
            o.target.clone(),
            ProbeFile {
                path: None,
                _held: None,
            },
        ));
    }
    let f = o
        .target
        .join(format!(".volbench-infer-{}.dat", std::process::id()));
    let guard = ProbeFile {
        _held: Some(leftovers::hold(leftovers::Kind::Path, &f)),
        path: Some(f.clone()),
    };
    let mut spec = base_spec(o, &f, 4096, 1);
    spec.region.number_ios = Some(1);
    spec.time_based = false;
    spec.runtime = None;
    run(o, spec)?;
    Ok((f, guard))
}

fn base_spec(o: &Options, path: &Path, bs: u64, depth: u32) -> JobSpec {
    JobSpec {
        name: format!("infer-{}-qd{depth}", workload::short_size(bs)),
        rw: if o.write { Rw::RandWrite } else { Rw::RandRead },
        bs,
        iodepth: depth,
        numjobs: 1,
        ioengine: o.engine,
        direct: true,
        filename: vec![path.to_path_buf()],
        size: std::fs::metadata(&o.target)
            .is_ok_and(|m| m.is_dir())
            .then_some(o.size),
        runtime: Some(o.point_time),
        timing: workload::Timing {
            // A throttle lets a first slice through at once; a short ramp keeps it out of a
            // 2-second point (it read 6 % over a 20 MiB/s cap without one).
            ramp_time: Duration::from_millis(500),
            ..Default::default()
        },
        time_based: true,
        reporting: workload::Reporting {
            group_reporting: true,
            ..Default::default()
        },
        allow_destructive: o.allow_destructive,
        ..JobSpec::default()
    }
}

fn run(o: &Options, spec: JobSpec) -> anyhow::Result<report::RunReport> {
    run_watched(o, spec, &mut runner::Silent, &o.stop)
}

/// Runs one point; `stop` ends it early (the burst watcher's own flag, or Ctrl-C's), and only
/// Ctrl-C's is an interruption.
fn run_watched(
    o: &Options,
    spec: JobSpec,
    obs: &mut dyn Observer,
    stop: &Arc<AtomicBool>,
) -> anyhow::Result<report::RunReport> {
    let opts = runner::RunOptions {
        stop: stop.clone(),
        command_line: Vec::new(),
        unlink: false,
        peers: None,
    };
    let w = Workload {
        jobs: vec![spec],
        ..Default::default()
    };
    // A probe is judged by the search, not by the host's checks: none around it.
    let driver = crate::Driver {
        checks: false,
        ..crate::Driver::new(&opts)
    };
    let r = driver.run_once(&w, obs)?;
    if o.stop.load(Ordering::Relaxed) {
        anyhow::bail!("interrupted");
    }
    if let Some(e) = &r.error {
        anyhow::bail!("{e}");
    }
    Ok(r)
}

struct Probe<'a> {
    o: &'a Options,
    path: PathBuf,
    points: Vec<Point>,
    io_time: f64,
    env: Option<report::Environment>,
    /// The probe's points, decided as it goes: each stops the probe once Ctrl-C is up.
    list: runner::Points,
}

impl Probe<'_> {
    fn verb(&self) -> &'static str {
        if self.o.write {
            "writes"
        } else {
            "reads"
        }
    }

    fn record(&mut self, phase: &str, spec: &JobSpec, r: &report::RunReport) -> Point {
        let g = &r.group;
        let (iops, bw, lat) = cloud::measured::rates(g);
        let p = Point {
            phase: phase.into(),
            bs: spec.bs,
            iodepth: spec.iodepth,
            iops,
            bw_bytes: bw,
            lat_mean_ns: lat,
            lat_p50_ns: cloud::measured::median_ns(g),
            runtime_s: g.runtime_ns as f64 / 1e9,
        };
        self.io_time += p.runtime_s;
        if self.env.is_none() {
            self.env = Some(r.environment.clone());
        }
        self.points.push(p.clone());
        p
    }

    fn point(&mut self, phase: &str, bs: u64, depth: u32) -> anyhow::Result<Point> {
        if self.list.step().is_none() {
            anyhow::bail!("interrupted");
        }
        let spec = base_spec(self.o, &self.path, bs, depth);
        let r = run(self.o, spec.clone())?;
        Ok(self.record(phase, &spec, &r))
    }

    /// Doubles the depth until two doublings in a row gain under 5 %: the best IOPS seen and
    /// the smallest depth within 5 % of it.
    fn depth_sweep(&mut self) -> anyhow::Result<(f64, u32)> {
        let mut seen: Vec<(u32, f64)> = Vec::new();
        let mut flat = 0;
        let mut d = 1;
        while d <= self.o.max_depth {
            let p = self.point("depth", 4096, d)?;
            if let Some(&(_, prev)) = seen.last() {
                flat = if p.iops < prev * PLATEAU_GAIN {
                    flat + 1
                } else {
                    0
                };
            }
            seen.push((d, p.iops));
            if flat >= 2 {
                break;
            }
            d *= 2;
        }
        let best = seen.iter().map(|x| x.1).fold(0.0, f64::max);
        let qd = seen
            .iter()
            .find(|x| x.1 >= best / PLATEAU_GAIN)
            .map_or(1, |x| x.0);
        let rates: Vec<f64> = seen.iter().map(|x| x.1).collect();
        Ok((plateau(&rates), qd))
    }

    /// Block sizes from 4k up at depth `qd` (at least 8, as providers advise for throughput:
    /// QD2 left a 140 MiB/s cgroup cap 5 % short) until bandwidth stops rising: the median of
    /// the plateau (the points within 5 % of the best), so one lucky point does not set the cap.
    fn bs_sweep(&mut self, qd: u32) -> anyhow::Result<f64> {
        let mut seen: Vec<f64> = Vec::new();
        let mut flat = 0;
        for bs in [4096u64, 16 << 10, 64 << 10, 256 << 10, 1 << 20] {
            let p = self.point("bs", bs, qd.max(8))?;
            let best = seen.iter().copied().fold(0.0, f64::max);
            flat = if p.bw_bytes < best * PLATEAU_GAIN {
                flat + 1
            } else {
                0
            };
            seen.push(p.bw_bytes);
            if flat >= 2 {
                break;
            }
        }
        Ok(plateau(&seen))
    }

    /// The burst phase (none if `--burst-time 0`) and, with `--refill-wait`, the refill
    /// after it: the burst's series, the drop found in it, and the refill rate.
    fn bursts(&mut self, say: &mut dyn FnMut(&str)) -> anyhow::Result<BurstsFound> {
        let o = self.o;
        if o.burst_time.is_zero() {
            return Ok((Vec::new(), None, None));
        }
        say(&format!(
            "burst phase: {} random {} at QD{} for up to {:?}",
            workload::short_size(o.burst_bs),
            self.verb(),
            o.burst_depth,
            o.burst_time
        ));
        let first = self.burst_phase("burst", o.burst_bs, o.burst_depth, false)?;
        let ended = Instant::now();
        let mut refill = None;
        if let (Some(b), false) = (&first.step, o.refill_wait.is_zero()) {
            say(&format!(
                "refill: {:?} idle, then a second burst",
                o.refill_wait
            ));
            refill = self.refill(b, ended)?;
        }
        Ok((first.series, first.step, refill))
    }

    /// A burst phase at `bs` watching I/Os per second (or bytes, for a throughput bucket).
    fn burst_phase(
        &mut self,
        phase: &str,
        bs: u64,
        depth: u32,
        bytes: bool,
    ) -> anyhow::Result<Burst> {
        if self.list.step().is_none() {
            anyhow::bail!("interrupted");
        }
        let mut spec = base_spec(self.o, &self.path, bs, depth);
        spec.runtime = Some(self.o.burst_time);
        // No ramp here: the burst's first second is part of the burst.
        spec.timing.ramp_time = Duration::ZERO;
        spec.name = format!("infer-{phase}");
        let mut w = Watch::new(self.o.stop.clone(), bytes);
        let own = w.own.clone();
        let r = run_watched(self.o, spec.clone(), &mut w, &own)?;
        self.record(phase, &spec, &r);
        let series = per_second(&r.group, bytes);
        let step = step::find(&series, 1.0);
        Ok(Burst {
            series,
            step,
            began: w.began,
        })
    }

    /// Waits idle after the first burst (which `ended` at that instant), then bursts again:
    /// the credits earned over the idle, per second.
    fn refill(&mut self, first: &step::Step, ended: Instant) -> anyhow::Result<Option<f64>> {
        std::thread::sleep(self.o.refill_wait);
        let again = self.burst_phase("refill", self.o.burst_bs, self.o.burst_depth, false)?;
        // The idle is longer than the wait by the second run's set-up (its settle and any
        // layout check): timed to the first I/O, as the bucket saw it.
        let idle = again
            .began
            .map_or(self.o.refill_wait, |b| b.saturating_duration_since(ended))
            .as_secs_f64();
        // Credits spent in the second burst were earned over the idle (the bucket was empty
        // when it began); never more than the first burst drew from a full bucket.
        let full = (first.before - first.after) * first.at_s;
        Ok(again
            .step
            .map(|s| ((s.before - s.after).max(0.0) * s.at_s).min(full) / idle))
    }

    /// The block-size sweep's largest block still ran at the IOPS cap.
    fn iops_bound_at_1m(&self, iops_cap: f64) -> bool {
        self.points
            .iter()
            .filter(|p| p.phase == "bs")
            .max_by_key(|p| p.bs)
            .is_none_or(|p| p.iops >= iops_cap * 0.9)
    }

    fn report(self, started_at: String, started_unix: u64) -> InferReport {
        InferReport {
            schema_version: report::SCHEMA_VERSION,
            tool: Tool::volbench(),
            started_at,
            started_unix,
            command_line: report::secrets::command_line(),
            status: Status::Complete,
            error: None,
            target: self.o.target.display().to_string(),
            limits: Limits::default(),
            confidence: String::new(),
            evidence: Vec::new(),
            points: self.points,
            burst_series: Vec::new(),
            io_time_s: self.io_time,
            closest: Vec::new(),
            environment: self.env.unwrap_or_else(runner::probe::environment),
            warnings: Vec::new(),
        }
    }
}

/// Stops the burst phase once the level after a drop has been seen long enough, and passes
/// Ctrl-C (`user`) on to the phase's own stop flag.
/// The first burst's series, its drop and the refill rate.
type BurstsFound = (Vec<f64>, Option<step::Step>, Option<f64>);

/// What a burst phase saw: its per-second series, the drop found in it, and when its
/// measured window began.
struct Burst {
    series: Vec<f64>,
    step: Option<step::Step>,
    began: Option<Instant>,
}

struct Watch {
    user: Arc<AtomicBool>,
    /// When the measured window began (the first tick, less its elapsed time).
    began: Option<Instant>,
    own: Arc<AtomicBool>,
    rates: Vec<f64>,
    last: (f64, u64),
    step: Option<step::Step>,
    /// Watch bytes per second instead of I/Os.
    bytes: bool,
}

impl Watch {
    fn new(user: Arc<AtomicBool>, bytes: bool) -> Watch {
        Watch {
            user,
            began: None,
            own: Arc::new(AtomicBool::new(false)),
            rates: Vec::new(),
            last: (0.0, 0),
            step: None,
            bytes,
        }
    }
}

impl Observer for Watch {
    fn tick(&mut self, p: &Progress) {
        if self.user.load(Ordering::Relaxed) {
            self.own.store(true, Ordering::Relaxed);
        }
        if self.began.is_none() {
            self.began = Instant::now().checked_sub(p.elapsed);
        }
        let t = p.elapsed.as_secs_f64();
        let n = if self.bytes { p.bytes } else { p.ios };
        if t - self.last.0 >= 1.0 {
            self.rates
                .push((n - self.last.1) as f64 / (t - self.last.0));
            self.last = (t, n);
            self.step = step::find(&self.rates, 1.0);
        }
        // Enough of the level after the drop to measure it: 20 % of the burst's length (at
        // least 2 s), so the phase costs no more than the drain plus 20 %.
        if let Some(s) = self.step {
            if t >= s.at_s + (0.2 * s.at_s).max(2.0) {
                self.own.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The median of the values within 5 % of the largest: a sweep's plateau.
fn plateau(v: &[f64]) -> f64 {
    let best = v.iter().copied().fold(0.0, f64::max);
    let mut top: Vec<f64> = v
        .iter()
        .copied()
        .filter(|x| *x >= best / PLATEAU_GAIN)
        .collect();
    top.sort_by(f64::total_cmp);
    if top.is_empty() {
        return 0.0;
    }
    let n = top.len();
    if n % 2 == 1 {
        top[n / 2]
    } else {
        (top[n / 2 - 1] + top[n / 2]) / 2.0
    }
}

/// IOPS (or bytes/s) of each whole second (a short last sample is dropped: it is not a
/// second's rate).
pub fn per_second(g: &JobReport, bytes: bool) -> Vec<f64> {
    let s = &g.series;
    s.samples
        .iter()
        .filter(|x| x.dt_ms * 10 >= s.interval_ms * 9)
        .map(|x| {
            if bytes {
                x.bw_bytes(0) + x.bw_bytes(1)
            } else {
                x.iops(0) + x.iops(1)
            }
        })
        .collect()
}

/// Fills in the limits, the evidence and the confidence.
fn finish(
    r: &mut InferReport,
    iops: f64,
    bw: f64,
    qd: u32,
    lat: f64,
    burst: Option<step::Step>,
    refill: Option<f64>,
) {
    // After a burst the sweeps ran at the baseline; the burst phase's own tail is the longer
    // look at it, so it is the sustained cap when the two agree.
    let iops_cap = match &burst {
        Some(s) if (s.after / iops - 1.0).abs() < 0.1 => s.after.max(iops),
        // The sweep well above the baseline its burst fell to rode credits the bucket earned
        // between points (a trial: 7,000 "sustained" beside a 5,156 baseline): the baseline is
        // what the volume sustains.
        Some(s) if s.after > 0.0 && !is_stall(s) && iops > s.after * 1.1 => s.after,
        Some(_) => iops,
        // No burst: the burst phase was 20 s at depth 32, a longer and deeper look at the
        // sustained rate than the sweep's plateau (a throttle's timer granularity left QD1-4
        // points 4-5 % under a cgroup cap).
        None => phase_rate(r, "burst")
            .filter(|b| (b / iops - 1.0).abs() < 0.1)
            .map_or(iops, |b| b.max(iops)),
    };
    let mut ev = sweep_evidence(r);
    if iops_cap < iops {
        ev.push(format!(
            "the sweep's plateau ({}) is above the baseline the burst fell to: its points ran on credits the bucket earned between them, so the baseline is the cap given",
            figures::fmt_count(iops)
        ));
    }
    // The cap given must be in the evidence shown: when the longer look set it, say so.
    if iops_cap > iops {
        ev.push(format!(
            "the longest run at the deepest queue sustained {} IOPS: that is the cap given (the sweep's plateau was {})",
            figures::fmt_count(iops_cap),
            figures::fmt_count(iops)
        ));
    }
    let mut conf = "high";
    if plateau_spread(r, "depth", |p| p.iops) > 0.05 {
        conf = "medium";
        ev.push("the IOPS plateau varies by over 5 %: the cap may be noisy, shared, or refilled between points".into());
    }
    if still_rising(r) {
        conf = "low";
        ev.push("IOPS were still rising at the deepest queue tried: the cap may be higher (raise --max-depth)".into());
    }
    let bw = bandwidth_found(r, bw, iops_cap, &mut ev);
    let stall = burst.as_ref().is_some_and(is_stall);
    let b = burst_found(r, burst.filter(|s| !is_stall(s)), refill, &mut ev);
    if stall {
        conf = "low";
    } else if b.is_none() && conf == "high" && r.points.iter().any(|p| p.phase == "burst") {
        // No drop in the burst phase rules out only the buckets that drain within it: the
        // cap called sustained held for that long (a trial's 150,000-credit bucket outlasted
        // 30 s), which is not a high-confidence "no burst".
        conf = "medium";
    }
    r.limits = Limits {
        iops_cap: Some(iops_cap),
        bw_cap_bytes: bw,
        crossover_bs: bw.filter(|_| iops_cap > 0.0).map(|b| b / iops_cap),
        latency_floor_ns: Some(lat),
        qd_needed: Some(qd),
        burst: b,
        bw_burst: None,
    };
    r.confidence = conf.into();
    r.evidence.extend(ev);
}

/// The mean IOPS of a phase's (only) point.
fn phase_rate(r: &InferReport, phase: &str) -> Option<f64> {
    r.points.iter().find(|p| p.phase == phase).map(|p| p.iops)
}

/// The probe's sweeps in one line each.
fn sweep_evidence(r: &InferReport) -> Vec<String> {
    let mut ev = Vec::new();
    for (name, what) in [
        ("depth", "4k IOPS by depth"),
        ("bs", "bandwidth by block size"),
    ] {
        let v: Vec<String> = r
            .points
            .iter()
            .filter(|p| p.phase == name)
            .map(|p| match name {
                "depth" => format!("QD{} {:.0}", p.iodepth, p.iops),
                _ => format!(
                    "{} {:.1} MiB/s",
                    workload::short_size(p.bs),
                    p.bw_bytes / 1048576.0
                ),
            })
            .collect();
        if !v.is_empty() {
            ev.push(format!("{what}: {}", v.join(", ")));
        }
    }
    ev
}

/// The depth sweep ended at its deepest point still gaining.
fn still_rising(r: &InferReport) -> bool {
    let d: Vec<&Point> = r.points.iter().filter(|p| p.phase == "depth").collect();
    d.len() >= 2 && d[d.len() - 1].iops >= d[d.len() - 2].iops * PLATEAU_GAIN
}

/// The bandwidth cap, or None when even the largest block was IOPS-bound (the cap is above
/// anything seen).
fn bandwidth_found(r: &InferReport, bw: f64, iops_cap: f64, ev: &mut Vec<String>) -> Option<f64> {
    let largest = r
        .points
        .iter()
        .filter(|p| p.phase == "bs")
        .max_by_key(|p| p.bs);
    match largest {
        Some(p) if p.iops >= iops_cap * 0.9 => {
            ev.push(format!(
                "still IOPS-bound at {} ({:.0} IOPS, {:.1} MiB/s): the bandwidth cap is above that and was not found",
                workload::short_size(p.bs),
                p.iops,
                p.bw_bytes / 1048576.0
            ));
            None
        }
        _ => Some(bw),
    }
}

/// A drop to (nearly) nothing is a stall, not a bucket running dry: no volume's baseline
/// is zero (gp2's smallest is 100 against 3,000, 3 %), and a trial's busy host paused the
/// reads for 4 s, which was read as a 7,500 IOPS burst with a baseline of 0.
fn is_stall(s: &step::Step) -> bool {
    s.after < s.before * 0.01
}

fn burst_found(
    r: &InferReport,
    burst: Option<step::Step>,
    refill: Option<f64>,
    ev: &mut Vec<String>,
) -> Option<BurstFound> {
    let Some(s) = burst else {
        let n = r.burst_series.len();
        if let Some(st) = step::find(&r.burst_series, 1.0).filter(is_stall) {
            ev.push(format!(
                "the burst phase stalled: {:.0} IOPS for {:.1} s, then {:.0} IOPS for {:.0} s, which no volume's baseline is (the host or device paused): no burst can be judged from it; run again on a quiet host",
                st.before, st.at_s, st.after, st.after_s
            ));
            return None;
        }
        ev.push(if r.points.iter().any(|p| p.phase == "burst") {
            format!("no drop in {n} s of the burst phase: no bucket that drains that fast (raise --burst-time to look longer)")
        } else {
            format!("no drop in the longest test's {n} s per-second series")
        });
        return None;
    };
    ev.push(format!(
        "burst phase: {:.0} IOPS for {:.1} s, then {:.0} IOPS for {:.0} s",
        s.before, s.at_s, s.after, s.after_s
    ));
    Some(BurstFound {
        burst_iops: s.before,
        baseline_iops: s.after,
        duration_s: s.at_s,
        bucket_ios: (s.before - s.after) * s.at_s,
        refill_ios_per_s: refill,
    })
}

/// The relative spread of a sweep's plateau: its points from the first within 10 % of the
/// best to the end, highest against lowest (0 when fewer than two). Not the last two alone:
/// a bucket refilling between points read QD1 5000, QD2 7000, QD4 5000 ... QD32 7000, and
/// the last two agreed.
fn plateau_spread(r: &InferReport, phase: &str, f: impl Fn(&Point) -> f64) -> f64 {
    let v: Vec<f64> = r
        .points
        .iter()
        .filter(|p| p.phase == phase)
        .map(f)
        .collect();
    let best = v.iter().copied().fold(0.0, f64::max);
    let Some(from) = v.iter().position(|&x| x >= best * 0.9) else {
        return 0.0;
    };
    let low = v[from..].iter().copied().fold(f64::INFINITY, f64::min);
    match v.len() - from {
        0 | 1 => 0.0,
        _ => (best - low) / best.max(1e-9),
    }
}

/// The catalog configurations nearest to the limits found: each product at the size (or
/// provisioning) that best matches, scored by the log-distance of IOPS and bandwidth, and of
/// the burst rate where either side has one.
pub fn closest(cat: &Catalog, l: &Limits) -> Vec<Closest> {
    let Some(iops) = l.iops_cap else {
        return Vec::new();
    };
    let bw = l.bw_cap_bytes;
    let mut out: Vec<Closest> = cat
        .products
        .iter()
        .filter_map(|p| {
            candidates(p, iops, bw)
                .into_iter()
                .filter_map(|params| model::model(p, &params).ok())
                .map(|m| {
                    let d = dist(m.iops, iops)
                        + bw.map_or(0.0, |b| dist(m.bw_bytes, b))
                        + burst_dist(&m, l);
                    (d, m)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
        })
        .map(|(d, m)| Closest {
            model: m.config.clone(),
            name: m.name.clone(),
            iops: m.iops,
            bw_bytes: m.bw_bytes,
            burst_iops: m.burst_iops,
            distance: d,
        })
        .collect();
    out.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    out.truncate(5);
    out
}

fn dist(a: f64, b: f64) -> f64 {
    if a <= 0.0 || b <= 0.0 {
        return 10.0;
    }
    (a / b).ln().abs().exp() - 1.0
}

fn burst_dist(m: &model::Model, l: &Limits) -> f64 {
    match (&l.burst, m.burst_iops) {
        (Some(b), Some(mi)) => dist(mi, b.burst_iops),
        (None, None) => 0.0,
        // A product that bursts where none was seen may simply have had its bucket spent.
        (None, Some(_)) => 0.05,
        (Some(_), None) => 0.5,
    }
}

/// Sizes and provisioning to try for one product: a log-spaced size grid, each VPU level,
/// and provisioned products set to exactly the IOPS and bandwidth found.
fn candidates(p: &cloud::catalog::Product, iops: f64, bw: Option<f64>) -> Vec<model::Params> {
    use cloud::catalog::Kind;
    let sizes: Vec<f64> = (0..=60)
        .map(|i| (p.size_min * (p.size_max / p.size_min).powf(i as f64 / 60.0)).round())
        .collect();
    let sized = |s: f64| model::Params {
        size: Some(s),
        ..Default::default()
    };
    match p.kind {
        Kind::Vpu => p
            .levels
            .iter()
            .flat_map(|l| {
                sizes.iter().map(move |&s| model::Params {
                    size: Some(s),
                    vpu: Some(l.vpu),
                    ..Default::default()
                })
            })
            .collect(),
        Kind::Provisioned => sizes
            .iter()
            .map(|&s| model::Params {
                size: Some(s),
                iops: Some(iops.round()),
                throughput: bw
                    .filter(|_| p.mbps_derived.is_empty())
                    .map(|b| (b / p.bw_unit.bytes()).round()),
                vpu: None,
            })
            .collect(),
        _ => sizes.into_iter().map(sized).collect(),
    }
}

/// The limits a stored run, sweep or suite shows, without new I/O: the best small-block IOPS,
/// the best bandwidth, the lowest QD1 latency, the depth that reached the cap, and a drop in
/// the longest test's per-second series.
pub fn from_document(
    doc: &report::Document,
    name: &str,
    cat: Option<&Catalog>,
) -> anyhow::Result<InferReport> {
    let tests = cloud::measured::measured(doc);
    let Some(longest) = tests.iter().max_by_key(|t| t.report.runtime_ns) else {
        anyhow::bail!("{name}: infer takes a run, sweep or suite result");
    };
    let points: Vec<Point> = tests.iter().map(point).collect();
    let seen = Seen::of(&points);
    let burst = cloud::measured::series_step(&longest.report);
    // The device the result measured, not the name it was asked by ("Limits of 2" for
    // `infer 2`, a stored result's id).
    let targets = match doc {
        report::Document::Suite(s) => s.targets(),
        _ => doc.environment().map_or(Vec::new(), |e| e.targets.clone()),
    };
    let on: Vec<&str> = targets.iter().map(|t| t.path.as_str()).collect();
    let mut r = InferReport {
        schema_version: report::SCHEMA_VERSION,
        tool: Tool::volbench(),
        started_at: doc.started_at().to_string(),
        started_unix: 0,
        command_line: report::secrets::command_line(),
        status: Status::Complete,
        error: None,
        target: match on.is_empty() {
            true => name.to_string(),
            false => on.join(", "),
        },
        limits: Limits::default(),
        confidence: String::new(),
        evidence: points.iter().map(evidence).collect(),
        points,
        burst_series: per_second(&longest.report, false),
        io_time_s: 0.0,
        closest: Vec::new(),
        environment: doc
            .environment()
            .cloned()
            .unwrap_or_else(runner::probe::environment),
        warnings: Vec::new(),
    };
    finish(
        &mut r,
        seen.iops,
        seen.bw,
        seen.qd,
        seen.lat.unwrap_or(0.0),
        burst,
        None,
    );
    if seen.lat.is_none() {
        r.limits.latency_floor_ns = None;
        r.evidence
            .push("no test ran at queue depth 1: no latency floor".into());
    }
    let tried: std::collections::BTreeSet<u64> = r.points.iter().map(|p| p.bs).collect();
    if tried.len() < 2 || r.points.len() < 3 {
        r.confidence = "low".into();
        r.evidence.push(
            "few block sizes or depths were measured: the caps are at least these figures".into(),
        );
    }
    // As a live probe's: a series too short to drain a bucket cannot call the cap sustained
    // with high confidence (a trial's 2 s suite read "high", the live probe "medium").
    let n = r.burst_series.len();
    if r.limits.burst.is_none() && r.confidence == "high" && n < BURST_LOOK_S {
        r.confidence = "medium".into();
        r.evidence.push(format!(
            "the longest test ran {n} s: a burst bucket that lasts longer would not show, so the cap called sustained is what held that long"
        ));
    }
    if let Some(c) = cat {
        r.closest = closest(c, &r.limits);
    }
    Ok(r)
}

/// The shortest per-second series that rules out a bucket at high confidence from a stored
/// result: the live probe's default burst phase.
const BURST_LOOK_S: usize = 20;

/// One stored test as a point of the inference.
fn point(t: &cloud::measured::Measured) -> Point {
    let (iops, bw, lat) = cloud::measured::rates(&t.report);
    Point {
        phase: t.test.clone(),
        bs: t.spec.bs,
        iodepth: t.spec.iodepth * t.spec.numjobs.max(1),
        iops,
        bw_bytes: bw,
        lat_mean_ns: lat,
        lat_p50_ns: cloud::measured::median_ns(&t.report),
        runtime_s: t.report.runtime_ns as f64 / 1e9,
    }
}

/// A QD1 point's latency floor: its median (the mean of a result stored before the median
/// was kept).
fn floor_of(p: &Point) -> f64 {
    match p.lat_p50_ns > 0.0 {
        true => p.lat_p50_ns,
        false => p.lat_mean_ns,
    }
}

fn evidence(p: &Point) -> String {
    format!(
        "{}: {} QD{}, {:.0} IOPS, {:.1} MiB/s",
        p.phase,
        workload::short_size(p.bs),
        p.iodepth,
        p.iops,
        p.bw_bytes / 1048576.0
    )
}

/// What stored tests show: the best small-block IOPS (any block size when none is small) and
/// the least depth that came within the plateau of it, the best bandwidth, the lowest QD1
/// latency.
struct Seen {
    iops: f64,
    bw: f64,
    qd: u32,
    lat: Option<f64>,
}

impl Seen {
    fn of(points: &[Point]) -> Seen {
        let small: Vec<&Point> = points.iter().filter(|p| p.bs <= 16 << 10).collect();
        let pool = if small.is_empty() {
            points.iter().collect()
        } else {
            small
        };
        let best = pool
            .iter()
            .copied()
            .max_by(|a, b| a.iops.total_cmp(&b.iops));
        let (iops, best_bs, best_qd) = best.map_or((0.0, 0, 1), |b| (b.iops, b.bs, b.iodepth));
        let qd = pool
            .iter()
            .filter(|p| p.bs == best_bs && p.iops >= iops / PLATEAU_GAIN)
            .map(|p| p.iodepth)
            .min();
        Seen {
            iops,
            bw: points.iter().map(|p| p.bw_bytes).fold(0.0, f64::max),
            qd: qd.unwrap_or(best_qd),
            lat: points
                .iter()
                .filter(|p| p.iodepth == 1)
                .map(floor_of)
                .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.min(v)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(phase: &str, bs: u64, iodepth: u32, iops: f64) -> Point {
        Point {
            phase: phase.into(),
            bs,
            iodepth,
            iops,
            bw_bytes: iops * bs as f64,
            lat_mean_ns: 130_000.0,
            lat_p50_ns: 130_000.0,
            runtime_s: 5.0,
        }
    }

    /// A probe of a 7,500 IOPS volume whose burst phase read `series` a second.
    fn probed(series: Vec<f64>) -> InferReport {
        let mean = series.iter().sum::<f64>() / series.len() as f64;
        let mut points: Vec<Point> = [1, 2, 4].map(|qd| point("depth", 4096, qd, 7500.0)).into();
        points.push(point("bs", 1 << 20, 4, 300.0));
        points.push(point("burst", 4096, 32, mean));
        let mut r = InferReport {
            schema_version: report::SCHEMA_VERSION,
            tool: Tool::volbench(),
            started_at: String::new(),
            started_unix: 0,
            command_line: Vec::new(),
            status: Status::Complete,
            error: None,
            target: "/dev/zram9".into(),
            limits: Limits::default(),
            confidence: String::new(),
            evidence: Vec::new(),
            points,
            burst_series: series.clone(),
            io_time_s: 60.0,
            closest: Vec::new(),
            environment: runner::probe::environment(),
            warnings: Vec::new(),
        };
        let step = step::find(&series, 1.0);
        finish(&mut r, 7500.0, 300.0 * 1048576.0, 1, 130_000.0, step, None);
        r
    }

    /// Regression (issue 65): a busy host paused a burst phase for 4 s, and infer gave a
    /// 7,500 IOPS burst with a baseline of 0 at high confidence beside a sustained 7,500.
    #[test]
    fn a_stall_is_not_a_burst_and_lowers_the_confidence() {
        let r = probed([7500.0, 7500.0, 7500.0, 0.0, 0.0, 0.0, 0.0].into());
        assert!(r.limits.burst.is_none(), "{:?}", r.limits.burst);
        assert_eq!(r.confidence, "low");
        assert!(
            r.evidence.iter().any(|e| e.contains("stalled")),
            "{:?}",
            r.evidence
        );
        assert_eq!(r.limits.iops_cap, Some(7500.0));
    }

    /// A real drop to a baseline is still a burst; no drop at all is no burst, held at
    /// medium confidence, as a longer bucket could outlast the phase.
    #[test]
    fn a_drop_to_a_baseline_is_a_burst_and_no_drop_is_not_high_confidence() {
        let mut s = vec![7500.0; 10];
        s.extend([5000.0; 10]);
        let r = probed(s);
        let b = r.limits.burst.expect("a burst");
        assert!((b.baseline_iops - 5000.0).abs() < 1.0, "{b:?}");
        assert_eq!(r.confidence, "high");
        let r = probed(vec![7500.0; 20]);
        assert!(r.limits.burst.is_none());
        assert_eq!(r.confidence, "medium");
    }

    /// Regression (issue 65): a bucket refilling between sweep points made the plateau
    /// 5000/7000/5000/7000, its last two equal: "7000 sustained, confidence high" beside a
    /// 5,156 baseline. The baseline is the cap, and the plateau's spread is seen.
    #[test]
    fn a_sweep_riding_refilled_credits_gives_the_baseline_and_less_confidence() {
        let mut s = vec![7500.0; 5];
        s.extend([5156.0; 10]);
        let mut r = probed(s.clone());
        r.points.retain(|p| p.phase != "depth");
        let sweep = [
            (1, 5000.0),
            (2, 7000.0),
            (4, 5000.0),
            (8, 7000.0),
            (16, 7000.0),
        ];
        for (at, (qd, iops)) in sweep.into_iter().enumerate() {
            r.points.insert(at, point("depth", 4096, qd, iops));
        }
        r.evidence.clear();
        finish(
            &mut r,
            7000.0,
            300.0 * 1048576.0,
            2,
            130_000.0,
            step::find(&s, 1.0),
            None,
        );
        assert_eq!(r.limits.iops_cap, Some(5156.0), "{:?}", r.evidence);
        assert_eq!(r.confidence, "medium", "{:?}", r.evidence);
    }
}
