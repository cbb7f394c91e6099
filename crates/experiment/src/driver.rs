//! The driver every measured run passes: a run and its repeats, a suite's tests, a sweep's
//! points, the curve's search and points, PTS rounds and infer's probes all measure through
//! `Driver::measure`, so what happens around and between runs is written once here:
//!
//! - the host's cheap checks before a run (other I/O on its devices, this process's limits)
//!   and after it (the instance's storage cap against the measured rates), as warnings;
//! - the repeats (`--repeat`, `--repeat-delay`, `--until-stable`), stopped early by Ctrl-C;
//! - the run itself, on one host or across an MPI world (`scaleout::world::run`).
//!
//! The idle a throttle's slice or a volume's bucket must not credit (issue 53) is the
//! runner's own: every run waits at its start line, whoever drives it.

use crate::hostcheck;
use crate::repeat::{self, Repeat};
use anyhow::Result;
use report::RunReport;
use runner::{Observer, RunOptions};
use scaleout::world::Layout;
use workload::Workload;

/// A progress display for one run, made when the run starts.
pub type Progress<'p> = dyn FnMut() -> Box<dyn Observer + 'p> + 'p;

/// How the runs of one command are made.
pub struct Driver<'a> {
    pub opts: &'a RunOptions,
    /// Where each rank's I/O goes under MPI.
    pub layout: Layout,
    /// How many times each measurement is made.
    pub repeat: Repeat,
    /// The host's checks around each run (a suite's tests and a run's: yes; a search's
    /// probes, which judge nothing by them: no).
    pub checks: bool,
}

impl<'a> Driver<'a> {
    /// A driver that runs each measurement once, with the host's checks.
    pub fn new(opts: &'a RunOptions) -> Driver<'a> {
        Driver {
            opts,
            layout: Layout::AsGiven,
            repeat: Repeat::default(),
            checks: true,
        }
    }

    /// One measurement of `w`: one run, or its repeats combined into one result (with the
    /// spread of each figure), each run with its own progress display.
    pub fn measure(&self, w: &Workload, progress: &mut Progress) -> Result<RunReport> {
        if !self.repeat.repeats() {
            return self.once(w, progress);
        }
        repeat::runs(&self.repeat, &self.opts.stop, &mut || {
            self.once(w, progress)
        })
    }

    /// One run of `w` with its own progress display.
    fn once(&self, w: &Workload, progress: &mut Progress) -> Result<RunReport> {
        let mut bar = progress();
        self.run_once(w, bar.as_mut())
    }

    /// One run of `w`, shown on `obs`, with the checks around it: a search's probe (which
    /// is one run whatever `repeat` says), and each run of `measure`.
    pub fn run_once(&self, w: &Workload, obs: &mut dyn Observer) -> Result<RunReport> {
        let checks = self.checks.then(|| hostcheck::before(w));
        let mut report = scaleout::world::run(w, self.opts, obs, self.layout)?;
        if let Some(c) = checks {
            c.into_report(&mut report);
        }
        Ok(report)
    }
}
