//! How much of the target a job covers and how often: sizes as a share, I/O counts, loops, offsets
//! and zones.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// How much of the target a job covers and how often: sizes as a share, I/O counts, loops, offsets
/// and zones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Region {
    /// `size=N%`: that share of the file or device (after `offset`).
    pub size_percent: Option<u8>,
    /// Bytes of I/O to do before stopping (fio's `io_size`); `None`: one pass over `size`.
    pub io_size: Option<u64>,
    /// Stop after this many I/Os (fio's `number_ios`).
    pub number_ios: Option<u64>,
    /// Repeat the job's I/O this many times (fio's `loops`).
    pub loops: u32,
    /// Byte offset where the region starts.
    pub offset: u64,
    /// `offset=N%`: the region starts at that share of the existing file or device (rounded
    /// down to `bs`), as in fio; a new file has no length yet, so it starts at 0.
    #[serde(default)]
    pub offset_percent: Option<u8>,
    /// Added to `offset` for each clone of `numjobs` (fio's `offset_increment`).
    pub offset_increment: u64,
    /// `offset_increment=N%`: each clone's region starts that share of the existing file or
    /// device after the previous clone's, rounded up as `offset=N%` is (fio's
    /// get_start_offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_increment_percent: Option<u8>,
    /// Each file's size (fio's `filesize`), a range picks one per file; `size` is then the
    /// I/O to do over all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesize: Option<(u64, u64)>,
    /// fio's `zonemode=strided` with `zonesize`, `zonerange` and `zoneskip`.
    #[serde(default, skip_serializing_if = "Zones::is_unset")]
    pub zones: Zones,
}

impl Default for Region {
    fn default() -> Self {
        Region {
            size_percent: None,
            io_size: None,
            number_ios: None,
            loops: 1,
            offset: 0,
            offset_percent: None,
            offset_increment: 0,
            offset_increment_percent: None,
            filesize: None,
            zones: Zones::default(),
        }
    }
}
