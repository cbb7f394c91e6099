//! The database workload: pgbench's TPC-B-like schema and transaction, run by volbench's own
//! clients on embedded SQLite or on a real PostgreSQL (a throwaway cluster in the directory
//! under test, or a server the user names), and explained by the directory's flush latency.
//!
//! Back ends implement [`Backend`]: load the tables, open one session per client, run one
//! transaction. The driver ([`run::run`]) is shared, so both engines are measured the same way.

mod device;
pub mod explain;
pub mod measure;
pub mod pg;
mod pgloop;
pub mod run;
pub mod sqlite;
pub mod tpcb;
mod wire;

pub use measure::{Size, LIVE_COMMITS};
pub use run::{run, DbOptions, EngineKind};

/// One transaction's failure: retryable ones (serialization failure, deadlock, busy) are tried
/// again, the others stop the client.
#[derive(Debug)]
pub struct TxError {
    pub retryable: bool,
    pub message: String,
}

/// A client's connection, for back ends that run a thread per client ([`measure::threads`]).
pub trait Session: Send {
    /// Runs one tpcb-like transaction; returns the account's balance as read inside it.
    fn transaction(&mut self, t: &tpcb::Tx) -> Result<i64, TxError>;
}

/// One engine on one target.
pub trait Backend: Sync {
    fn name(&self) -> &'static str;
    /// The engine's version, e.g. "PostgreSQL 15.8" or "SQLite 3.46.0".
    fn version(&self) -> String;
    /// CPU nanoseconds the server spent so far (PostgreSQL processes), where it can be read.
    fn server_cpu_ns(&self) -> Option<u64> {
        None
    }
    /// Runs the clients (SQLite: a thread each, [`measure::threads`]; PostgreSQL: an event
    /// loop per job, as pgbench does): connects them all, then starts the clock and sets
    /// `elapsed`.
    fn drive(
        &self,
        load: measure::Load,
        stop: &std::sync::atomic::AtomicBool,
    ) -> anyhow::Result<measure::Measured>;
    /// WAL flushes and the time they took (ns) so far, where the engine counts them.
    fn wal_flushes(&self) -> Option<(u64, Option<u64>)> {
        None
    }
    /// Reads the balance sums and the history's rows and deltas, which
    /// [`tpcb::check_run`] compares before and after a run.
    fn check(&self) -> anyhow::Result<tpcb::Sums>;
}
