//! A job that replays a trace (fio's `read_iolog` and its `replay_*` options) and one that
//! writes an iolog of what it issued (`write_iolog`): what to replay and how, pure data; the
//! runner reads the trace.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The I/O kinds `replay_skip` can leave out, as bits.
pub const SKIP_READ: u8 = 1;
pub const SKIP_WRITE: u8 = 2;
pub const SKIP_TRIM: u8 = 4;
pub const SKIP_SYNC: u8 = 8;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The trace (volbench's, blktrace's or fio's iolog; detected). None: no replay.
    pub read_iolog: Option<PathBuf>,
    /// As fast as the queue allows, in the trace's order, ignoring its times.
    pub no_stall: bool,
    /// The trace's rate in % (200: twice as fast; fio's `replay_time_scale`).
    pub time_scale: u32,
    /// Every I/O to this one target, whatever file or device the trace names.
    pub redirect: Option<PathBuf>,
    /// Offsets rounded down to this power of 2 (0: as traced).
    pub align: u64,
    /// Offsets divided by this (1: as traced).
    pub scale: u64,
    /// [`SKIP_READ`] and friends.
    pub skip: u8,
    /// volbench's: where the trace reaches past the target's end, wrap its offsets into the
    /// target (with a warning) instead of refusing.
    pub wrap: bool,
    /// volbench's: the trace's file or device `SRC` replayed on the job's file `DST`.
    pub map: Vec<(String, PathBuf)>,
    /// volbench's: the queue depth is the trace's deepest, where it holds completions.
    #[serde(default)]
    pub trace_depth: bool,
    /// fio's `merge_blktrace_file`: `read_iolog`'s blktrace traces (`A:B:...`) merged into
    /// this file first, which is then replayed; with `merge_blktrace_scalars` (percent per
    /// trace) and `merge_blktrace_iters` (repeats per trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merge_scalars: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merge_iters: Vec<u32>,
}

impl Default for Replay {
    fn default() -> Self {
        Replay {
            read_iolog: None,
            no_stall: false,
            time_scale: 100,
            redirect: None,
            align: 0,
            scale: 1,
            skip: 0,
            wrap: false,
            map: Vec::new(),
            trace_depth: false,
            merge: None,
            merge_scalars: Vec::new(),
            merge_iters: Vec::new(),
        }
    }
}

impl Replay {
    pub fn on(&self) -> bool {
        self.read_iolog.is_some()
    }

    /// `replay_skip`'s list (`read,write,trim,sync`) as bits; the word that is none of them.
    pub fn parse_skip(s: &str) -> Result<u8, String> {
        let mut bits = 0;
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            bits |= match w {
                "read" => SKIP_READ,
                "write" => SKIP_WRITE,
                "trim" => SKIP_TRIM,
                "sync" => SKIP_SYNC,
                _ => return Err(w.to_string()),
            };
        }
        Ok(bits)
    }

    pub fn show_skip(bits: u8) -> String {
        [
            (SKIP_READ, "read"),
            (SKIP_WRITE, "write"),
            (SKIP_TRIM, "trim"),
            (SKIP_SYNC, "sync"),
        ]
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(",")
    }
}
