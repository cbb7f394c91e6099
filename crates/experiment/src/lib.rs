//! Runs of runs: experiments that drive the runner one run after another, each run decided
//! from the ones before (infer's probes: a burst, a depth sweep, a block-size sweep). The
//! models they hold a measurement against are `cloud`'s, which runs nothing.

pub mod infer;
