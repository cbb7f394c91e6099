//! Durability: what fsync costs on a device (`volbench fsync`), whether its flush looks honest,
//! and the power-loss checker (`volbench durability`): a witness that records what a client
//! says is durable, the client that writes checksummed records, and the verifier that reads
//! them back after the power returns, and the loop that drives N power cuts of another
//! machine through them (`cycle`).
//!
//! The fsync suite runs through the ordinary runner, so its numbers come from the same hot
//! loop, histograms and kernel counters as every run; the power-loss checker does its own
//! I/O, because each record must be reported to the witness between its write and its sync.

pub mod client;
pub mod cycle;
pub mod fsync;
pub mod gate;
pub mod journal;
pub mod protocol;
pub mod record;
pub mod verdict;
pub mod verify;
pub mod witness;
pub mod writers;
