//! A job built from its input (buffers filled, figures allocated, each feature's state made
//! from the spec once, so the loop reads no option) and brought to the start line: the
//! phase's common start, startdelay, wait_for, and the ramp's end.

use crate::budget::{Budget, Passes};
use crate::clock::Clock;
use crate::data;
use crate::issuelog::{open_iolog, Iolog};
use crate::job::Job;
use crate::lat_search::Search;
use crate::live::{rusage, JobInput, Live};
use crate::pace::sleep_unless_stopped;
use crate::permutation::splitmix;
use crate::pick::Picker;
use crate::queue::Queue;
use crate::replay::Feed;
use crate::syncs::Syncs;
use crate::tally::fresh_counts;
use crate::think::Thinking;
use engine::Engine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;

impl<'a, E: Engine> Job<'a, E> {
    /// Fills the engine's buffers from the job's random stream and sets up its state; the
    /// histograms are allocated here, before the start line.
    pub(crate) fn new(mut eng: E, inp: &'a JobInput) -> Self {
        let spec = &inp.spec;
        let depth = spec.effective_iodepth() as usize;
        let sync_engine = eng.is_sync();
        let seed = splitmix(spec.pattern.randseed ^ splitmix(inp.clone as u64));
        let rng = SmallRng::seed_from_u64(seed);
        let size = inp.regions.iter().map(|r| r.1).sum();
        let (job_seed, run_seed) = inp.data_seed;
        let mut data = data::Data::new(spec, job_seed, run_seed, size);
        for s in 0..depth as u32 {
            data.fill_slot(eng.slot(s), s);
        }
        let (stats, windows) = fresh_counts(spec, sync_engine, inp.interval_ns);
        let mut picker = Picker::new(spec, seed, rng, &inp.regions, depth, inp.flow.take());
        let (iolog, vlimit, error) = open_files(inp, &mut picker);
        let saves =
            spec.checking.verify_state_save && spec.checking.verify.is_some() && spec.rw.writes();
        Job {
            trimback: crate::trimback::TrimBack::new(spec, splitmix(seed ^ 0x74_72_69_6d)),
            loops_read_back: 0,
            vsave: saves
                .then(|| crate::vstate::Recorder::new(depth as u32, spec.checking.verify_fsynced)),
            vlimit,
            picker,
            clock: Clock::new(spec),
            budget: Budget::new(spec, &inp.regions),
            q: Queue::new(spec, depth),
            syncs: Syncs::new(spec, inp.fds.len()),
            think: Thinking::new(spec),
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
                .latency
                .lat_target
                .on()
                .then(|| Search::new(spec.latency.lat_target, depth as u32)),
            minrate: crate::minrate::MinRate::new(spec),
            cmdprio: spec
                .process
                .cmdprio
                .clone()
                .map(|p| (p, SmallRng::seed_from_u64(splitmix(seed ^ 0x70_72_69_6f)))),
            eng,
            inp,
        }
    }

    /// Meets the other jobs at the start line and waits out its own startdelay: the job's
    /// clock starts at the phase's common start, never when this thread happens to run.
    pub(crate) fn start(&mut self) {
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
            self.inp.live.ramping.store(true, Relaxed);
            self.clock.cpu0 = rusage(libc::RUSAGE_THREAD);
        }
    }

    /// The ramp is over: the measured interval starts at its end, common to every job, and
    /// what the warm-up counted is dropped (fio's reset of its stats).
    #[cold]
    pub(crate) fn end_ramp(&mut self) {
        let c = &mut self.clock;
        c.measure_from(c.ramp_ns, &self.inp.live);
        self.picker.restart_schedule(c.ramp_ns);
        (self.stats, self.windows) =
            fresh_counts(&self.inp.spec, self.sync_engine, self.inp.interval_ns);
        self.feed_live();
    }
}

/// What a job reads or writes beside its I/O, opened before the start: the trace it replays,
/// its write_iolog, and the verify state a verify_only job loads; the first failure is the
/// job's error.
type Opened = (Option<Iolog>, Option<crate::vstate::Limit>, Option<String>);
fn open_files(inp: &JobInput, picker: &mut Picker) -> Opened {
    let spec = &inp.spec;
    let mut error = None;
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
    let vlimit = match spec.checking.verify_state_load && spec.checking.verify_only {
        true => crate::vstate::Limit::load(&spec.name, inp.clone)
            .map_err(|e| error.get_or_insert(e))
            .ok(),
        false => None,
    };
    (iolog, vlimit, error)
}
