//! Running the plan's phases one after another: each phase's jobs start together from one
//! start line, and the sampler watches them (per-interval series, live progress, the ramp's
//! end, the end of the I/O, Ctrl-C and peers) until all are done.

use crate::live::{self, JobInput, JobOutput, Live, StartLine};
use crate::plan::Plan;
use crate::settle;
use crate::steady::Judge;
use crate::tap::Tap;
use crate::{flow, start, Observer, Progress, RunError, RunOptions, RATE_WINDOW, TICK};
use report::KernelCounters;
use stats::{Sample, Series};
use std::collections::HashMap;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use workload::Workload;

/// A job's running totals as the sampler reads them: I/Os and bytes per direction, then the
/// latency sums (total, completion, submission; reads then writes).
pub(crate) type Counters = [u64; 10];

/// What the phases leave for the report, per planned job.
pub(crate) struct Collected {
    pub outputs: Vec<Option<JobOutput>>,
    pub series: Vec<Series>,
    /// The totals at the last sample, and its time, so the report can close each series.
    pub last: Vec<Counters>,
    pub last_t: Vec<u64>,
    /// How each job's steady-state stop went, for jobs that asked for one.
    pub steady: Vec<Option<report::SteadyReport>>,
}

/// The run's measured window: the kernel's counters and the process's CPU from the end of the
/// first phase's ramp to the end of the last phase's I/O.
pub(crate) struct Window {
    pub before: Vec<Option<KernelCounters>>,
    pub before_at: Instant,
    pub after: Option<(Vec<Option<KernelCounters>>, Duration)>,
    pub cpu_before: (u64, u64, u64),
}

impl Window {
    fn open(&mut self, plan: &Plan) {
        self.before = plan.snapshot();
        self.before_at = Instant::now();
    }

    /// From the window's open to the last job's measured end. The counters are read later,
    /// when the sampler sees every job ended, but none of the run's measured I/O reached the
    /// device in between: with 256 jobs on 2 busy CPUs a thread descheduled across its
    /// deadline ended (and the sampler looked) up to 160 ms after the window's cut, and
    /// counting that idle put the kernel's rate 5 % under the run's (CI, numjobs=256).
    fn span_to(&self, lives: &[Arc<Live>]) -> Duration {
        let last = lives.iter().filter_map(|l| l.ended_at.get()).max();
        let end = last.copied().unwrap_or_else(Instant::now);
        end.saturating_duration_since(self.before_at)
    }
}

/// The phases of one run, and what they have measured so far.
pub(crate) struct Phases<'a> {
    w: &'a Workload,
    plan: &'a Plan,
    opts: &'a RunOptions,
    sample_ms: u64,
    first: bool,
    /// The files this run created went as soon as the stop was seen (see [`Phases::watch`]).
    unlinked: bool,
    /// The run's timeline starts where the first phase starts measuring.
    origin: Option<Instant>,
    pub window: Window,
    pub got: Collected,
}

impl<'a> Phases<'a> {
    pub fn new(w: &'a Workload, plan: &'a Plan, opts: &'a RunOptions, sample_ms: u64) -> Self {
        let n = plan.jobs.len();
        Phases {
            w,
            plan,
            opts,
            sample_ms,
            first: true,
            unlinked: false,
            origin: None,
            window: Window {
                before: Vec::new(),
                before_at: Instant::now(),
                after: None,
                cpu_before: (0, 0, 0),
            },
            got: Collected {
                outputs: (0..n).map(|_| None).collect(),
                series: vec![Series::default(); n],
                last: vec![[0; 10]; n],
                last_t: vec![0; n],
                steady: vec![None; n],
            },
        }
    }

    /// Runs every phase in turn; one that fails to start ends the run with its error.
    pub fn run_all(&mut self, obs: &mut dyn Observer) -> Result<(), RunError> {
        for ph in 0..=self.plan.last_phase {
            let members = self.plan.members(ph);
            if members.is_empty() || self.opts.stop.load(Relaxed) {
                continue;
            }
            let ran = self.run(ph, &members, obs);
            if settle::does_io(self.w) {
                settle::touched();
            }
            ran?;
            self.first = false;
        }
        Ok(())
    }

    fn run(
        &mut self,
        ph: usize,
        members: &[usize],
        obs: &mut dyn Observer,
    ) -> Result<(), RunError> {
        let crew = Crew::spawn(self.w, self.plan, members, self.opts, self.sample_ms);
        let mut s = Sampler::new(self.w, self.plan, members, self.sample_ms);
        let who = members.iter().map(|&i| &self.plan.jobs[i]);
        let who = who.map(|p| (p.name.clone(), p.clone)).collect();
        s.tap = Tap::open(who, &crew.lives, self.sample_ms);
        // Every job is set up (engine, buffers, histograms) before the clock starts: the
        // common start is fixed only once all have arrived at the line.
        while crew.line.ready.load(Relaxed) < members.len() {
            std::thread::sleep(Duration::from_millis(1));
        }
        if self.first {
            settle::before_window(self.w);
        }
        let peers_ok = self.opts.peers.as_ref().is_none_or(|p| p.start_line(true));
        if !peers_ok {
            crew.halt.store(true, Relaxed);
        }
        // Opened at the start even with a ramp, and again at the ramp's end: a run that ends
        // inside its ramp is counted whole (fio's rule), kernel counters included.
        if self.first {
            self.window.open(self.plan);
        }
        s.start = Instant::now();
        crew.line.epoch.set(s.start).expect("one epoch per phase");
        crew.line.barrier.wait();
        if self.first {
            self.window.cpu_before = process_cpu();
        }
        s.next_sample = s.start + s.ramp + Duration::from_millis(self.sample_ms);
        s.prev = (s.start, 0, 0);
        s.window_from = s.start;
        s.judges = judges(self.w, self.plan, members, s.start);
        while !crew.lives.iter().all(|l| l.done.load(Relaxed)) {
            self.watch(&mut s, &crew, ph == self.plan.last_phase, obs);
        }
        obs.finish();
        self.collect(crew, s, members);
        if !peers_ok {
            return Err(self.plan.fail(RunError::PeerFailed));
        }
        let setup = self
            .got
            .outputs
            .iter_mut()
            .flatten()
            .find_map(|o| o.setup_error.take());
        match setup {
            Some(e) => Err(self.plan.fail(RunError::Engine(e))),
            None => Ok(()),
        }
    }

    /// One turn of the sampler: wait a tick, stop the jobs on Ctrl-C or a peer's end, read the
    /// kernel's counters as the I/O ends, open the window at the ramp's end, sample, report.
    fn watch(&mut self, s: &mut Sampler, crew: &Crew, last: bool, obs: &mut dyn Observer) {
        sleep_until_next(s.start, s.ramp, s.measuring, s.planned, s.next_sample);
        let ended = crew.lives.iter().all(|l| l.ended.load(Relaxed));
        let peer_end = self.opts.peers.as_ref().is_some_and(|p| p.poll_end(ended));
        if peer_end || self.opts.stop.load(Relaxed) {
            crew.halt.store(true, Relaxed);
        }
        // Ctrl-C (or mpirun's SIGTERM, which it follows with SIGKILL one second later): the
        // files this run created go now, not after the jobs drain and the report is built, so
        // a kill during those leaves none behind. Open descriptors keep serving the I/O.
        if self.opts.stop.load(Relaxed) && !self.unlinked {
            self.plan.unlink(self.w, true);
            self.unlinked = true;
        }
        // The kernel's counters for the run end with the last phase's I/O, before any verify
        // pass or engine teardown (hundreds of io_uring rings take a while to go).
        if !crew.line.counted.load(Relaxed) && ended {
            if let Some(p) = &self.opts.peers {
                p.ended();
            }
            if last {
                let counters = self.plan.snapshot();
                self.window.after = Some((counters, self.window.span_to(&crew.lives)));
            }
            crew.line.counted.store(true, Relaxed);
        }
        let now = Instant::now();
        if !s.measuring && now >= s.start + s.ramp {
            s.measuring = true;
            // Not once the counters are read: a run that ended inside its ramp keeps its whole
            // window (and an interval that ends before it opens would be none).
            if self.first && !crew.line.counted.load(Relaxed) {
                self.window.open(self.plan);
                self.window.cpu_before = process_cpu();
            }
        }
        if now >= s.next_sample {
            s.sample(now, &crew.lives, self.sample_ms);
        }
        s.judges.iter_mut().for_each(|j| j.tick(now, &crew.lives));
        obs.tick(&s.progress(now, &crew.lives));
    }

    /// Joins the phase's jobs and keeps what they measured, each series placed on the run's
    /// timeline.
    fn collect(&mut self, crew: Crew, mut s: Sampler, members: &[usize]) {
        let measured_from = s.start + s.ramp;
        let origin = *self.origin.get_or_insert(measured_from);
        let phase_ms = measured_from.saturating_duration_since(origin).as_millis() as u64;
        for (k, h) in crew.handles.into_iter().enumerate() {
            let i = members[k];
            self.got.outputs[i] = Some(h.join().expect("a job thread panicked"));
            self.got.series[i] = std::mem::take(&mut s.series[k]);
            self.got.series[i].start_ms = phase_ms + s.rebase_ms[k];
            self.got.last[i] = s.last[k];
            self.got.last_t[i] = s.last_t_ms[k] - s.rebase_ms[k];
        }
        if let Some(t) = s.tap.take() {
            s.close_tap(t, &crew.lives);
        }
        for j in &s.judges {
            for &k in &j.members {
                self.got.steady[members[k]] = Some(j.report());
            }
        }
    }
}

/// The threads of one phase and what they share with the sampler.
struct Crew {
    line: Arc<StartLine>,
    /// Jobs watch this flag, not `opts.stop`: the sampler raises it for a Ctrl-C and for a
    /// peer's stonewall alike, and only the former marks the run interrupted.
    halt: Arc<AtomicBool>,
    lives: Vec<Arc<Live>>,
    handles: Vec<JoinHandle<JobOutput>>,
}

impl Crew {
    fn spawn(
        w: &Workload,
        plan: &Plan,
        members: &[usize],
        opts: &RunOptions,
        sample_ms: u64,
    ) -> Crew {
        let line = Arc::new(StartLine::new(members.len()));
        let halt = Arc::new(AtomicBool::new(opts.stop.load(Relaxed)));
        let lives: Vec<Arc<Live>> = members.iter().map(|_| Arc::new(Live::default())).collect();
        let flows = flow::groups(members.iter().map(|&i| &w.jobs[plan.jobs[i].spec_idx]));
        let mut handles = Vec::with_capacity(members.len());
        let mut locks = HashMap::new();
        for (k, &i) in members.iter().enumerate() {
            let p = &plan.jobs[i];
            let files = &plan.files[i];
            let inp = JobInput {
                spec: w.jobs[p.spec_idx].clone(),
                clone: p.clone,
                fds: files.iter().map(|t| t.file.as_raw_fd()).collect(),
                regions: files.iter().map(|t| (t.offset, t.len)).collect(),
                paths: files.iter().map(|t| t.info.path.clone()).collect(),
                lbs: files.iter().map(|t| t.lbs).max().unwrap_or(512),
                live: lives[k].clone(),
                stop: halt.clone(),
                start: line.clone(),
                flow: std::cell::Cell::new(flow::Flow::new(&w.jobs[p.spec_idx], &flows)),
                data_seed: plan.data_seed(w, i),
                interval_ns: sample_ms * 1_000_000,
                waitees: waitees(w, plan, members, &lives, p.spec_idx),
                locks: file_locks(&w.jobs[p.spec_idx], files, &mut locks),
                cgroup: p.cgroup.clone(),
            };
            handles.push(
                std::thread::Builder::new()
                    .name(format!("job-{}", p.name))
                    .spawn(move || start::run(inp))
                    .expect("spawning a job thread"),
            );
        }
        Crew {
            line,
            halt,
            lives,
            handles,
        }
    }
}

/// fio's lockfile: one lock per file path, shared by every job of the phase that names it
/// (fio shares a file's lock through its file hash, among jobs and clones alike).
fn file_locks(
    spec: &workload::JobSpec,
    files: &[crate::target::Target],
    by_path: &mut HashMap<String, Arc<RwLock<()>>>,
) -> Vec<Arc<RwLock<()>>> {
    if spec.files.lockfile.is_none() {
        return Vec::new();
    }
    files
        .iter()
        .map(|t| by_path.entry(t.info.path.clone()).or_default().clone())
        .collect()
}

/// fio's wait_for: the lives of this phase's jobs named by job `si`'s `wait_for` (none when
/// it has none, or when they ran in an earlier phase, which is over).
fn waitees(
    w: &Workload,
    plan: &Plan,
    members: &[usize],
    lives: &[Arc<Live>],
    si: usize,
) -> Vec<Arc<Live>> {
    let spec = &w.jobs[si];
    // fio's cpuio with exit_on_io_done: it ends when the phase's I/O jobs have.
    if spec.ioengine == workload::EngineKind::CpuIo && spec.engine.cpuio.exit_on_io_done {
        return members
            .iter()
            .zip(lives)
            .filter(|(&i, _)| w.jobs[plan.jobs[i].spec_idx].ioengine != workload::EngineKind::CpuIo)
            .map(|(_, l)| l.clone())
            .collect();
    }
    let Some(name) = &spec.timing.wait_for else {
        return Vec::new();
    };
    members
        .iter()
        .zip(lives)
        .filter(|(&i, _)| w.jobs[plan.jobs[i].spec_idx].name == *name)
        .map(|(_, l)| l.clone())
        .collect()
}

/// Live sampling state for the jobs of one phase.
struct Sampler {
    series: Vec<Series>,
    last: Vec<Counters>,
    /// When each job was last sampled: a job whose measured window has closed is sampled no
    /// more, and the report closes its series at its own end.
    last_t_ms: Vec<u64>,
    /// Where each time-limited job's window closes on the sampler's clock: a job blocked in
    /// its reap (a 16 MiB write on a slow volume) sees its deadline late, the sampler does not.
    deadline_ms: Vec<Option<u64>>,
    /// Where each job's series starts on the sampler's clock: 0, or the sample before a
    /// restart of its counts (a latency search's last window).
    rebase_ms: Vec<u64>,
    start: Instant,
    /// The longest ramp (and start delay) of the phase's jobs.
    ramp: Duration,
    /// Total planned time (ramp included) when every job is time-based.
    planned: Option<Duration>,
    /// The bytes the size-based jobs will issue, for the progress fraction.
    budget: u64,
    next_sample: Instant,
    measuring: bool,
    /// (when, I/Os, bytes) at the start of the current rate window, and the rate.
    prev: (Instant, u64, u64),
    rate: (f64, f64),
    /// Where the counts last started (the phase's start, the ramp's end, a restart), and
    /// whether the rate has seen the measured window open.
    window_from: Instant,
    rated_measuring: bool,
    /// When every job's measured window had closed with I/O still in flight: from then on the
    /// run is waiting for its queue, and the progress says so.
    drain_from: Option<Instant>,
    /// The steady-state checks of the jobs that asked for one.
    judges: Vec<Judge>,
    /// The live board's view of the phase, when a command shows one.
    tap: Option<Tap>,
}

/// What the size-based jobs will issue: each one's io_size or its files, times its loops (a
/// PTS preconditioning writes the device twice; one pass would read 100 % halfway).
fn budget_of(w: &Workload, plan: &Plan, members: &[usize]) -> u64 {
    members
        .iter()
        .map(|&i| (&w.jobs[plan.jobs[i].spec_idx], &plan.files[i]))
        .filter(|(s, _)| !s.time_based)
        .map(|(s, f)| {
            let files = f.iter().map(|t| t.len).sum::<u64>();
            let pass = s.region.io_size.unwrap_or(files);
            pass.saturating_mul(s.io_loops() as u64)
        })
        .sum()
}

/// When each time-based job's window closes (ms after the ramp), where it is fixed: a latency
/// search moves its deadline when it restarts its counts, and a job that waits for another
/// starts when that one ends.
fn deadlines(w: &Workload, plan: &Plan, members: &[usize], ramp: Duration) -> Vec<Option<u64>> {
    let each = |&i: &usize| {
        let s = &w.jobs[plan.jobs[i].spec_idx];
        let delay = crate::live::start_delay(s, plan.jobs[i].clone);
        let end = delay + s.timing.ramp_time + s.runtime?;
        let moves = s.latency.lat_target.on() || s.timing.wait_for.is_some();
        (!moves).then(|| end.saturating_sub(ramp).as_millis() as u64)
    };
    members.iter().map(each).collect()
}

impl Sampler {
    fn new(w: &Workload, plan: &Plan, members: &[usize], sample_ms: u64) -> Sampler {
        let specs: Vec<&workload::JobSpec> = members
            .iter()
            .map(|&i| &w.jobs[plan.jobs[i].spec_idx])
            .collect();
        let ramp = specs
            .iter()
            .map(|s| s.timing.ramp_time + s.startdelay_longest())
            .max()
            .unwrap_or_default();
        let planned = specs.iter().all(|s| s.time_based).then(|| {
            ramp + specs
                .iter()
                .filter_map(|s| s.runtime)
                .max()
                .unwrap_or_default()
        });
        let budget = budget_of(w, plan, members);
        let now = Instant::now();
        Sampler {
            series: members.iter().map(|_| Series::new(sample_ms)).collect(),
            last: vec![[0; 10]; members.len()],
            last_t_ms: vec![0; members.len()],
            deadline_ms: deadlines(w, plan, members, ramp),
            rebase_ms: vec![0; members.len()],
            start: now,
            ramp,
            planned,
            budget,
            next_sample: now,
            measuring: ramp.is_zero(),
            prev: (now, 0, 0),
            rate: (0.0, 0.0),
            window_from: now,
            rated_measuring: ramp.is_zero(),
            drain_from: None,
            judges: Vec::new(),
            tap: None,
        }
    }

    /// One sample of every job still measuring: what it did since its last. A job whose window
    /// has closed is draining its queue (or verifying): those seconds are not the run's.
    fn sample(&mut self, now: Instant, lives: &[Arc<Live>], sample_ms: u64) {
        let t_ms = (now - self.start - self.ramp).as_millis() as u64;
        for (k, l) in lives.iter().enumerate() {
            // Checked before the counters are read: a restart seen here has zeroed them.
            if l.restarted.swap(false, Relaxed) {
                self.series[k].clear();
                self.last[k] = [0; 10];
                self.rebase_ms[k] = self.last_t_ms[k];
            }
            if self.closed(k, l) {
                continue;
            }
            let cur = counters(l);
            let dt = t_ms - self.last_t_ms[k];
            let s = delta(t_ms - self.rebase_ms[k], dt, &cur, &self.last[k]);
            if let Some(tap) = &mut self.tap {
                tap.sampled(k, &s);
            }
            self.series[k].push(s);
            self.last[k] = cur;
            self.last_t_ms[k] = t_ms;
        }
        self.next_sample += Duration::from_millis(sample_ms);
    }

    /// The interval log's last record of each job: from its last sample to its measured end
    /// (the report closes its series the same way).
    fn close_tap(&self, mut tap: Tap, lives: &[Arc<Live>]) {
        let origin = self.start + self.ramp;
        for (k, l) in lives.iter().enumerate() {
            let Some(end) = l.ended_at.get() else {
                continue;
            };
            let end = end.saturating_duration_since(origin).as_millis() as u64;
            let cur = counters(l);
            if end > self.last_t_ms[k] && cur != self.last[k] {
                let dt = end - self.last_t_ms[k];
                tap.sampled(k, &delta(end - self.rebase_ms[k], dt, &cur, &self.last[k]));
            }
        }
        tap.close();
    }

    /// The job's measured window is over: its deadline passed at its last sample, its loop saw
    /// a stop or its deadline, or its I/O ended.
    fn closed(&self, k: usize, l: &Live) -> bool {
        let past = self.deadline_ms[k].is_some_and(|d| self.last_t_ms[k] >= d);
        past || l.closed.load(Relaxed) || l.ended.load(Relaxed)
    }

    /// Live progress: totals, and rates over the last [`RATE_WINDOW`] (since the start in the
    /// first one).
    fn progress(&mut self, now: Instant, lives: &[Arc<Live>]) -> Progress {
        let (ios, bytes) = lives.iter().fold((0, 0), |(a, b), l| {
            (
                a + l.ios[0].load(Relaxed) + l.ios[1].load(Relaxed),
                b + l.bytes[0].load(Relaxed) + l.bytes[1].load(Relaxed),
            )
        });
        let issued: u64 = lives.iter().map(|l| l.issued.load(Relaxed)).sum();
        // The counts start over where the ramp ends (the jobs' figures are reset there) and
        // where a job restarts them (a latency search's last window): so does the rate, and
        // until a window has passed it is the rate since then. Seen only as a fall in the
        // count, a fast job's new count could pass its ramp's before a tick and read as a
        // small rate (a run at 396k IOPS showed 8,771 at its ramp's end).
        let ramp_ended = self.measuring && !self.rated_measuring;
        self.rated_measuring = self.measuring;
        if ramp_ended || ios < self.prev.1 {
            self.prev = (now, ios, bytes);
            self.window_from = now;
        }
        if now - self.prev.0 >= RATE_WINDOW {
            let dt = (now - self.prev.0).as_secs_f64();
            self.rate = (
                ios.saturating_sub(self.prev.1) as f64 / dt,
                bytes.saturating_sub(self.prev.2) as f64 / dt,
            );
            self.prev = (now, ios, bytes);
        } else if self.prev.0 == self.window_from && now > self.window_from {
            let dt = (now - self.window_from).as_secs_f64().max(1e-3);
            self.rate = (
                ios.saturating_sub(self.prev.1) as f64 / dt,
                bytes.saturating_sub(self.prev.2) as f64 / dt,
            );
        }
        let elapsed_ms = now
            .saturating_duration_since(self.start + self.ramp)
            .as_millis() as u64;
        let closed = |(k, l): (usize, &Arc<Live>)| {
            self.deadline_ms[k].is_some_and(|d| elapsed_ms >= d) || self.closed(k, l)
        };
        let draining =
            lives.iter().enumerate().all(closed) && !lives.iter().all(|l| l.ended.load(Relaxed));
        if !draining {
            self.drain_from = None;
        }
        let drain_from = draining.then(|| *self.drain_from.get_or_insert(now));
        Progress {
            draining: drain_from.map(|t| now - t),
            elapsed: now - self.start,
            planned: self.planned,
            fraction: (self.budget > 0).then(|| (issued as f64 / self.budget as f64).min(1.0)),
            ios,
            bytes,
            iops: self.rate.0,
            bw_bytes: self.rate.1,
            // The tick the ramp ends on has no measured rate yet.
            ramping: !self.measuring || ramp_ended,
        }
    }
}

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
pub(crate) fn delta(t_ms: u64, dt_ms: u64, cur: &Counters, last: &Counters) -> Sample {
    let d = |i: usize| cur[i].saturating_sub(last[i]);
    Sample {
        t_ms,
        dt_ms,
        ios: [d(0), d(1)],
        bytes: [d(2), d(3)],
        lat_sum_ns: [d(4), d(5)],
        clat_sum_ns: [d(6), d(7)],
        slat_sum_ns: [d(8), d(9)],
        lat_pct: Default::default(),
    }
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

/// The steady-state checks of a phase's jobs: one per job, or one per `group_reporting` group
/// (judged on the group's sums and stopped together, as fio does). `members` are the phase's
/// jobs as plan indices; the checks hold positions among them.
fn judges(w: &Workload, plan: &Plan, members: &[usize], start: Instant) -> Vec<Judge> {
    let mut out: Vec<(Option<u32>, Judge)> = Vec::new();
    for (k, &i) in members.iter().enumerate() {
        let spec = &w.jobs[plan.jobs[i].spec_idx];
        if !spec.steadystate.on() {
            continue;
        }
        let group = spec.reporting.group_reporting.then_some(plan.jobs[i].group);
        match out.iter_mut().find(|(g, _)| group.is_some() && *g == group) {
            Some((_, j)) => j.members.push(k),
            None => out.push((
                group,
                Judge::new(vec![k], spec.steadystate, start + spec.timing.startdelay),
            )),
        }
    }
    out.into_iter().map(|(_, j)| j).collect()
}

/// (user ns, system ns, context switches) of the whole process, every thread included.
pub(crate) fn process_cpu() -> (u64, u64, u64) {
    live::rusage(libc::RUSAGE_SELF)
}
