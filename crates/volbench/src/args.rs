//! What the parsed arguments mean beyond their fields: a run's options as a job, the repeats
//! asked for (checked), whether a suite is a PTS test. Beside `cli.rs` so the declarations
//! stay free of the checks' errors.

use crate::cli::{RepeatArgs, RunArgs, SuiteArgs};

impl SuiteArgs {
    /// A SNIA PTS test (`pts-...`), which runs by its own rounds rather than as job files.
    pub fn is_pts(&self) -> bool {
        !self.list
            && self.show.is_none()
            && self.suite.as_deref().is_some_and(|s| s.starts_with("pts-"))
    }
}

impl RunArgs {
    /// The options as a job: volbench's defaults, then every option given, each applied by
    /// the same table that reads fio job files.
    pub fn spec(&self) -> anyhow::Result<workload::JobSpec> {
        workload::fio::cmdline::single_job(&self.fio).map_err(crate::usage::usage)
    }
}

impl RepeatArgs {
    /// The repeats asked for, checked: a bad --until-stable is a usage error, said before
    /// anything runs.
    pub fn plan(&self) -> anyhow::Result<experiment::Repeat> {
        experiment::Repeat::new(self.repeat, self.repeat_delay, self.until_stable)
            .map_err(|e| crate::usage::usage(e.0))
    }
}
