//! The job's files: how many, their names, how they are laid out, opened, cached, locked and
//! removed.

use crate::values::*;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The job's files: how many, their names, how they are laid out, opened, cached, locked and
/// removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Files {
    /// Number of files per job when the job names no `filename` (fio's `nrfiles`).
    pub nrfiles: u32,
    /// How the job goes from file to file (fio's `file_service_type`).
    #[serde(default, skip_serializing_if = "FileService::is_default")]
    pub file_service: FileService,
    /// Files the job works on at once (fio's `openfiles`); 0: all of them. Below the job's
    /// file count, I/O goes round robin to this many files until each has done its share,
    /// then to the next ones, in fio's order.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub openfiles: u32,
    /// Drop the file's pages from the page cache before starting (fio's `invalidate`).
    /// Use [`JobSpec::drops_cache`], which `pre_read` turns off.
    pub invalidate: bool,
    /// Read the job's region once before it starts, so it begins in the page cache (fio's
    /// `pre_read`, which also turns `invalidate` off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pre_read: bool,
    /// Remove the job's files when it ends (fio's `unlink`), if volbench created them.
    pub unlink: bool,
    /// fio's `opendir`: every regular file below this directory is one of the job's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opendir: Option<PathBuf>,
    /// fio's `unlink_each_loop`: the job's files are deleted after each loop and the next
    /// loop creates them afresh (a job that only reads then fails, as fio's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlink_each_loop: bool,
    /// fio's `lockfile`: jobs that name the same file take turns for each I/O's submission.
    #[serde(default, skip_serializing_if = "LockFile::is_none")]
    pub lockfile: LockFile,
    pub directory: Option<PathBuf>,
    /// How files are named when the job names none (fio's `filename_format`): `$jobname`,
    /// `$jobnum` (the clone), `$filenum` and `$clientuid` (the MPI rank; 0 alone) are replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename_format: Option<String>,
    /// Fill a new (or short) file with data before a write-only job (fio's `overwrite`); reads
    /// always get data. volbench's own default is to fill, fio's is not to.
    #[serde(default = "yes")]
    pub overwrite: bool,
    /// How a file that is not filled first gets its space (fio's `fallocate`).
    #[serde(default)]
    pub fallocate: Fallocate,
    /// Whether the job may create files (fio's `allow_file_create`): 0 guards against creating
    /// a file where a device was meant.
    #[serde(default = "yes")]
    pub allow_file_create: bool,
    /// posix_fadvise advice on each file's region at open (fio's `fadvise_hint`).
    #[serde(default)]
    pub fadvise: Fadvise,
    /// fio's `fill_fs`/`fill_device`: a file's size is the file system's free space, and
    /// ENOSPC or EDQUOT ends the job instead of failing it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fill_fs: bool,
    /// fio's `file_append`: a regular file's region starts at its end (as `offset` set to
    /// the file's size).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub file_append: bool,
    /// fio's `create_only`: lay the files out as the job would, then do no I/O.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub create_only: bool,
    /// fio's e4defrag engine's options: `donorname` (the donor file, in `directory` when
    /// given) and `inplace` (the donor's space allocated per move, not once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e4defrag_donor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub e4defrag_inplace: bool,
}

impl Default for Files {
    fn default() -> Self {
        Files {
            nrfiles: 1,
            file_service: FileService::default(),
            openfiles: 0,
            invalidate: true,
            pre_read: false,
            unlink: false,
            opendir: None,
            unlink_each_loop: false,
            lockfile: LockFile::None,
            directory: None,
            filename_format: None,
            overwrite: true,
            fallocate: Fallocate::Native,
            allow_file_create: true,
            fadvise: Fadvise::Pattern,
            fill_fs: false,
            file_append: false,
            create_only: false,
            e4defrag_donor: None,
            e4defrag_inplace: false,
        }
    }
}
