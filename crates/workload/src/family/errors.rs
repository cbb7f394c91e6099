//! What an error or a job's end does to the others: exitall, continue_on_error, ignore_error.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// What an error or a job's end does to the others: exitall, continue_on_error, ignore_error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OnError {
    /// When this job ends, stop the jobs running beside it (fio's `exitall`); with
    /// `exitall_on_error`, only when it ends in an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exitall: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exitall_on_error: bool,
    /// fio's `continue_on_error`: the errors a job carries on past, as fio's bits (1 reads,
    /// 2 writes, 4 verify); only EIO and EILSEQ (a verify mismatch), as in fio.
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub continue_on_error: u8,
    /// fio's `ignore_error`: the errnos carried past for reads, writes and verifies, in place
    /// of EIO and EILSEQ where a list is given.
    #[serde(default, skip_serializing_if = "no_lists")]
    pub ignore_error: [Vec<i32>; 3],
}
