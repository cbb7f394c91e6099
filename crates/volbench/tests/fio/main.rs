//! fio parity: each option family's behaviour checked against fio itself on the same job (or,
//! where fio leaves no trace to compare, against the kernel's counters), one module per family
//! of the option table (`workload/src/fio/table/`). One test binary: tests that drop or count
//! the page cache share one lock (`shared::drop_caches`, `shared::cache_held`), and a test
//! that counts the shared disk's requests runs alone (`shared::alone`).

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
mod buffers;
mod cache;
mod checking;
mod engine;
mod errors;
mod files;
mod grammar;
mod jobfile;
mod pattern;
mod process;
mod rates;
mod region;
mod reporting;
mod shared;
mod sync;
mod timing;
