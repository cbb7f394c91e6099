//! Runs of runs: the driver every measured run passes (`driver`: the host's checks around a
//! run, its repeats), and experiments that drive the runner one run after another, each run
//! decided from the ones before (infer's probes: a burst, a depth sweep, a block-size sweep).
//! The models they hold a measurement against are `cloud`'s, which runs nothing.

pub mod driver;
pub mod hostcheck;
pub mod infer;
pub mod repeat;

pub use driver::Driver;
pub use repeat::{BadRepeat, Repeat};
