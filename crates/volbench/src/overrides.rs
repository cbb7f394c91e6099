//! What `volbench suite` lets the command line lay over a suite's tests (the shipped job
//! files and the PTS tests alike).

impl Overrides {
    /// What `volbench suite`'s options lay over its tests.
    pub fn of(a: &crate::cli::SuiteArgs) -> Overrides {
        Overrides {
            runtime: a.runtime.clone(),
            size: a.size.clone(),
            ioengine: a.ioengine.clone(),
            direct: a.direct.clone(),
            allow_destructive: a.allow_destructive,
            repeat: a.repeat.clone(),
        }
    }
}

/// Settings the command line lays over every test of a suite.
#[derive(Default)]
pub struct Overrides {
    pub runtime: Option<String>,
    pub size: Option<String>,
    pub ioengine: Option<String>,
    pub direct: Option<String>,
    pub allow_destructive: bool,
    /// `--repeat`/`--until-stable` for every test.
    pub repeat: crate::cli::RepeatArgs,
}
