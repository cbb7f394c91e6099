//! How writes are made durable: O_SYNC/O_DSYNC, fsync every N, and at the end.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// How writes are made durable: O_SYNC/O_DSYNC, fsync every N, and at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncOptions {
    /// O_SYNC/O_DSYNC on open (fio's `sync=`).
    pub sync_io: SyncIo,
    /// Issue a sync every N writes (0: never), with `sync_mode` choosing fsync or fdatasync.
    pub sync_every: u32,
    pub sync_mode: SyncMode,
    pub end_fsync: bool,
    /// fio's `end_syncfs`: at the end of a writing job, syncfs(2) on each file system its
    /// files are on, in place of end_fsync's fsync per file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end_syncfs: bool,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            sync_io: SyncIo::None,
            sync_every: 0,
            sync_mode: SyncMode::Fsync,
            end_fsync: false,
            end_syncfs: false,
        }
    }
}
