//! Verification: what is checked, when, against which pattern and saved state.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// Verification: what is checked, when, against which pattern and saved state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checking {
    /// After a write phase with `verify`, read everything back and check it (fio's `do_verify`).
    pub do_verify: bool,
    /// Read back and check every this many written blocks while writing (fio's
    /// `verify_backlog`; 0: only after the writes).
    #[serde(default)]
    pub verify_backlog: u64,
    /// How many of them each time (fio's `verify_backlog_batch`; 0: all).
    #[serde(default)]
    pub verify_backlog_batch: u64,
    pub verify: Option<Verify>,
    /// fio's `verify_pattern`: written into every block (under the header, with a checksum
    /// method), and what `verify=pattern` checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_pattern: Option<Vec<u8>>,
    /// fio's `verify_only`: the job writes nothing; it reads its region and checks what an
    /// earlier run of it wrote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_only: bool,
    /// fio's `verify_state_save`: a verifying write job writes down which of its writes
    /// completed (volbench: only when the job asks; fio's default is on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_state_save: bool,
    /// fio's `verify_policy=fsynced`: the saved state covers only the writes issued before
    /// the last fsync that completed, those a crash cannot lose.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_fsynced: bool,
    /// fio's `verify_state_load`: a verify_only job checks only the writes that state says
    /// completed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_state_load: bool,
    /// fio's verify-after-trim: `trim_percentage`, `trim_backlog`, `trim_backlog_batch`,
    /// `trim_verify_zero`.
    #[serde(default, skip_serializing_if = "TrimBack::is_unset")]
    pub trim_back: TrimBack,
    /// fio's `experimental_verify`: fio 3.33 counts its verify pass as one of the `loops`
    /// and verifies once, at the end (see [`JobSpec::io_loops`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub experimental_verify: bool,
}

impl Default for Checking {
    fn default() -> Self {
        Checking {
            do_verify: true,
            verify_backlog: 0,
            verify_backlog_batch: 0,
            verify: None,
            verify_pattern: None,
            verify_only: false,
            verify_state_save: false,
            verify_fsynced: false,
            verify_state_load: false,
            trim_back: TrimBack::default(),
            experimental_verify: false,
        }
    }
}
