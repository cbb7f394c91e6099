//! What `volbench suite` lets the command line lay over a suite's tests (the shipped job
//! files and the PTS tests alike).

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
