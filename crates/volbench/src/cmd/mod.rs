//! Subcommands, one file each and thin: each builds its workloads, measures them through the
//! experiment driver (`experiment::Driver`), hands the document to `render` and the store's
//! recorder. No file here imports another: what several share sits beside `cmd/` (`points`:
//! a suite's, sweep's or curve's points; `inputs`: results read back; `recording`: the
//! store; `overrides`, `catalog`, `durable`, `usage`, `stop`).

pub mod clean;
pub mod cloud;
pub mod compare;
pub mod curve;
pub mod cycle;
pub mod db;
pub mod doctor;
pub mod durability;
pub mod emulate;
pub mod fsync;
pub mod history;
pub mod infer;
pub mod manual;
pub mod pts;
pub mod replay;
pub mod report;
pub mod run;
pub mod serve;
pub mod storecmd;
pub mod suite;
pub mod sweep;
pub mod trace;
