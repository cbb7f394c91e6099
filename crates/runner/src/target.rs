//! Files and block devices to run against: resolving, safety checks, laying out, opening.

use crate::error::RunError;
use crate::probe::{self, DevId};
use crate::safety;
use rand::{RngCore, SeedableRng};
use report::TargetInfo;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use workload::{format_bytes, EngineKind, Fallocate, JobSpec, SyncIo};

/// Files get 1 GiB when no --size is given: large enough to leave most caches, small enough for
/// a laptop.
pub const DEFAULT_FILE_SIZE: u64 = 1 << 30;

/// An opened target and what the runner needs to know of it.
pub struct Target {
    pub file: File,
    pub offset: u64,
    pub len: u64,
    pub dev: Option<DevId>,
    pub lbs: u32,
    pub info: TargetInfo,
}

/// The files job `clone` (0-based among `numjobs`) of `spec` uses: its `filename` list, or
/// `nrfiles` files in its directory. One file per job keeps the simple `NAME.test`; more use
/// fio's `NAME.JOB.FILE`.
///
/// fio's rule for `directory`: it prefixes every `filename`, so `directory=/d filename=a` is
/// `/d/a` (fio prefixes absolute names too: `/d` + `/x/a` is `/d/x/a`).
pub fn resolve_paths(spec: &JobSpec, clone: u32) -> Vec<PathBuf> {
    if let Some(dir) = &spec.files.opendir {
        // fio's opendir: every regular file below the directory, after any named ones.
        let mut paths = named(spec);
        paths.extend(files_below(dir));
        return paths;
    }
    if !spec.filename.is_empty() {
        return named(spec);
    }
    let dir = spec
        .files
        .directory
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    if let Some(fmt) = &spec.files.filename_format {
        return (0..spec.files.nrfiles)
            .map(|f| {
                dir.join(
                    fmt.replace("$jobname", &spec.name)
                        .replace("$jobnum", &clone.to_string())
                        .replace("$filenum", &f.to_string())
                        .replace("$clientuid", "0"),
                )
            })
            .collect();
    }
    if spec.numjobs == 1 && spec.files.nrfiles == 1 {
        return vec![dir.join(format!("{}.test", spec.name))];
    }
    (0..spec.files.nrfiles)
        .map(|f| dir.join(format!("{}.{clone}.{f}", spec.name)))
        .collect()
}

/// The job's `filename` list, each under `directory` when one is given.
fn named(spec: &JobSpec) -> Vec<PathBuf> {
    spec.filename
        .iter()
        .map(|f| match &spec.files.directory {
            Some(d) => d.join(f.strip_prefix("/").unwrap_or(f)),
            None => f.clone(),
        })
        .collect()
}

/// The most files opendir takes from one tree (fio has no limit; a run over more would
/// spend its time opening files).
pub const OPENDIR_MAX: usize = 100_000;

/// Every regular file below `dir`, depth first in name order (symlinks to files followed,
/// to directories not), at most [`OPENDIR_MAX`]; unreadable directories are skipped.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| Some(e.ok()?.path())).collect();
        entries.sort();
        let mut subdirs = Vec::new();
        for p in entries {
            match fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => subdirs.push(p),
                Ok(_) if p.is_file() && out.len() < OPENDIR_MAX => out.push(p),
                _ => {}
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
    out
}

/// Progress of laying out a file: bytes written so far and in all.
pub type LayoutProgress<'a> = &'a mut dyn FnMut(&Path, u64, u64);

/// Makes file `path` (one of `nfiles` of job `clone`) ready for `spec` and opens it for I/O.
/// Files volbench creates are added to `created` (so an interrupted run can remove exactly
/// those).
pub fn prepare(
    spec: &JobSpec,
    clone: u32,
    path: &Path,
    nfiles: u32,
    stop: &AtomicBool,
    created: &mut Vec<PathBuf>,
    progress: LayoutProgress,
) -> Result<Target, RunError> {
    // A link another user planted where the test file goes is refused before anything is
    // looked at through it (issue 63): laid out, it would grow or overwrite its target.
    outfile::Opener::target("--filename", OpenOptions::new())
        .check(path)
        .map_err(|r| RunError::Refused(r.0))?;
    let resolved = dangling_link_target(path);
    let path = resolved.as_deref().unwrap_or(path);
    let meta = match fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(RunError::Open {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if lays_out_nothing(spec, meta.is_none()) {
        let offset = spec.region.offset + clone as u64 * spec.region.offset_increment;
        return null_target(spec, path, nfiles, offset);
    }
    let is_block = meta
        .as_ref()
        .is_some_and(|m| m.file_type().is_block_device());
    check_kind(spec, path, is_block, meta.as_ref())?;
    // What is there already: a device's capacity, or an existing file's length.
    let existing = match &meta {
        Some(m) if is_block => probe::device_bytes(m).unwrap_or(0),
        Some(m) => m.len(),
        None => 0,
    };
    let offset = start_offset(spec, clone, existing, is_block);
    let r = Region {
        spec,
        path,
        offset,
        len: region_len(spec, path, nfiles, existing, offset)?,
        existing,
        new: meta.is_none(),
    };
    let (dev, state, checked) = match &meta {
        Some(m) if is_block => {
            let (dev, checked) = check_device(&r, m)?;
            (dev, None, checked)
        }
        _ if r.len == 0 && tiny_files(spec, nfiles) => {
            let (dev, state) = ready_tiny(&r, nfiles, created)?;
            (dev, state, None)
        }
        _ => {
            let (dev, state) = ready_file(&r, stop, created, progress)?;
            (dev, state, None)
        }
    };
    let mut t = open_target(&r, dev, state, is_block)?;
    t.info.checked_reads = checked;
    Ok(t)
}

/// The null engine does no I/O: it needs no file, and creates none (where `missing`). Nor do
/// fio's file and directory engines that create what they work on (or make their directories
/// first), nor the jobs that are not I/O.
fn lays_out_nothing(spec: &JobSpec, missing: bool) -> bool {
    match spec.ioengine {
        EngineKind::Null => missing,
        EngineKind::FileOp(op) => !op.needs_files(),
        EngineKind::CpuIo | EngineKind::Exec => true,
        _ => false,
    }
}

/// What the job can do on what is there: hipri's polling, trims (a device's, or falloc's
/// punched holes), a regular file or a device.
fn check_kind(
    spec: &JobSpec,
    path: &Path,
    is_block: bool,
    meta: Option<&fs::Metadata>,
) -> Result<(), RunError> {
    check_hipri(spec, path, is_block, meta)?;
    let punches = spec.ioengine == EngineKind::Falloc;
    let path = path.to_path_buf();
    if spec.pattern.trim != workload::Trim::None && !is_block && !punches {
        return Err(RunError::TrimFile { path });
    }
    if meta.is_some_and(|m| !is_block && !m.is_file()) {
        return Err(RunError::BadTarget { path });
    }
    Ok(())
}

/// Where clone `clone`'s region starts. fio's offset=N% is a share of what is there (a new
/// file: nothing, so 0), with the clone's increment rounded UP to offset_align or the
/// smallest block (fio's get_start_offset). The job file sets either it or `offset`; a rank's
/// region under MPI adds to both. fio's file_append: a regular file's I/O starts at its end
/// (devices ignore it).
fn start_offset(spec: &JobSpec, clone: u32, existing: u64, is_block: bool) -> u64 {
    if spec.files.file_append && !is_block {
        return existing;
    }
    let (inc, shares) = match spec.region.offset_increment_percent {
        Some(p) => (clone as u64 * (existing * p as u64 / 100), true),
        None => (clone as u64 * spec.region.offset_increment, false),
    };
    let align = match spec.pattern.offset_align {
        0 => spec.unit(),
        a => a,
    };
    match spec.region.offset_percent {
        Some(p) => (existing * p as u64 / 100 + inc).div_ceil(align) * align,
        None if shares => (spec.region.offset + inc).div_ceil(align) * align,
        None => spec.region.offset + inc,
    }
}

/// fio's rule for a size split over so many files that each gets less than a block (the
/// size itself at least one): the files are made, at their share of the size, and the job
/// does no I/O on them.
fn tiny_files(spec: &JobSpec, nfiles: u32) -> bool {
    let size = spec.size.unwrap_or(0);
    nfiles > 1
        && size >= spec.bs
        && size / (nfiles as u64) < spec.bs
        && spec.region.filesize.is_none()
}

/// A file of [`tiny_files`]: created (if new) with its share of the size in data, as fio lays
/// it out; its region, and so the job's I/O on it, is empty.
fn ready_tiny(
    r: &Region,
    nfiles: u32,
    created: &mut Vec<PathBuf>,
) -> Result<(Option<DevId>, Option<&'static str>), RunError> {
    let share = r.spec.size.unwrap_or(0) / nfiles as u64;
    if r.new {
        let fail = |source| RunError::Layout {
            path: r.path.to_path_buf(),
            source,
        };
        let mut f = outfile::open_held(
            OpenOptions::new().write(true).create(true).truncate(true),
            r.path,
            0,
        )
        .map_err(fail)?;
        io::Write::write_all(&mut f, &vec![0x5a; share as usize]).map_err(fail)?;
        created.push(r.path.to_path_buf());
    }
    let dev = DevId::from_raw(fs::metadata(r.path).map(|m| m.dev()).unwrap_or(0));
    Ok((Some(dev), Some("smaller than a block: no I/O")))
}

/// One file's or device's region as a job uses it.
struct Region<'a> {
    spec: &'a JobSpec,
    path: &'a Path,
    offset: u64,
    len: u64,
    /// What is there already: a device's capacity, or an existing file's length.
    existing: u64,
    /// The file does not exist yet.
    new: bool,
}

/// The region's length: fio's filesize (each file its own size; a range gives one per file,
/// from the seed), the job's size split over its files, a share of what is there, or all of
/// it, in whole blocks.
fn region_len(
    spec: &JobSpec,
    path: &Path,
    nfiles: u32,
    existing: u64,
    offset: u64,
) -> Result<u64, RunError> {
    let per_file = |total: u64| (total / nfiles as u64) / spec.bs * spec.bs;
    if spec.files.fill_fs {
        return Ok(fill_len(spec, path, nfiles, existing, offset));
    }
    if let Some((lo, hi)) = spec.region.filesize {
        let h = path
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .fold(spec.pattern.randseed, |a, &b| {
                crate::permutation::splitmix(a ^ b as u64)
            });
        let pick = lo + h % (hi - lo + 1);
        return Ok((pick / spec.bs * spec.bs).max(spec.bs));
    }
    Ok(match (spec.size, spec.region.size_percent) {
        (Some(s), _) => per_file(s),
        (None, Some(p)) => {
            if existing <= offset {
                return Err(RunError::SizePercent {
                    path: path.to_path_buf(),
                });
            }
            (existing - offset) * p as u64 / 100 / spec.bs * spec.bs
        }
        (None, None) if existing > offset => (existing - offset) / spec.bs * spec.bs,
        (None, None) => per_file(DEFAULT_FILE_SIZE),
    })
}

/// fio's fill_fs: a device's region is all of it past the offset; a file's, what it has
/// past the offset and its share of the file system's free space (ENOSPC ends the job).
fn fill_len(spec: &JobSpec, path: &Path, nfiles: u32, existing: u64, offset: u64) -> u64 {
    use std::os::unix::fs::FileTypeExt;
    let whole = |n: u64| n / spec.bs * spec.bs;
    let have = existing.saturating_sub(offset);
    if fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device()) {
        return whole(have);
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let free = free_for_me(dir.unwrap_or(Path::new("."))).unwrap_or(0);
    whole(have + free / nfiles.max(1) as u64).max(spec.bs)
}

/// A block device's region fits it, and a device holding data is written only when allowed.
/// Returns the device, and what the check read of it (said in the report, outside its
/// counts: a write replay of 200 I/Os left 251 reads on the device, 51 of them blkid's).
fn check_device(
    r: &Region,
    m: &fs::Metadata,
) -> Result<(Option<DevId>, Option<report::CheckedReads>), RunError> {
    let dev = DevId::from_raw(m.rdev());
    if r.offset + r.len > r.existing || r.len < r.spec.bs {
        return Err(RunError::TooBig {
            path: r.path.to_path_buf(),
            size: r.len,
            offset: r.offset,
            capacity: r.existing,
        });
    }
    if !r.spec.rw.writes() {
        return Ok((Some(dev), None));
    }
    if let Some(why) = safety::live_use(dev) {
        let path = r.path.to_path_buf();
        return Err(RunError::InUse { path, why });
    }
    if r.spec.allow_destructive {
        return Ok((Some(dev), None));
    }
    // blkid reads the device: a settle before the window.
    crate::settle::touched();
    let before = probe::kernel_counters(dev);
    if let Some(why) = safety::in_use(r.path, dev) {
        return Err(RunError::Destructive {
            path: r.path.to_path_buf(),
            why,
        });
    }
    let checked = before
        .zip(probe::kernel_counters(dev))
        .map(|(a, b)| report::CheckedReads {
            ios: b.read_ios.saturating_sub(a.read_ios),
            bytes: b.read_bytes.saturating_sub(a.read_bytes),
        });
    Ok((Some(dev), checked.filter(|c| c.ios > 0)))
}

/// A file's region, ready for the job: checked, laid out or allocated as fio would, and for a
/// job that reads, without holes. Returns its device and how it was laid out.
fn ready_file(
    r: &Region,
    stop: &AtomicBool,
    created: &mut Vec<PathBuf>,
    progress: LayoutProgress,
) -> Result<(Option<DevId>, Option<&'static str>), RunError> {
    let (dir, owned) = check_file(r, created)?;
    let want = r.offset + r.len;
    let mut state = "existing";
    // fio's rule: data is written first only where reads need it (or `overwrite` asks); a
    // write-only job's file just gets its space, as `fallocate` says.
    // fill_fs writes until the file system is full: nothing to lay out first.
    // mmap cannot extend a file, so fio (its FIO_NOEXTEND engines) writes a write job's file
    // first too: the mapping's writes then replace data, as they do in fio.
    let no_extend = r.spec.ioengine == EngineKind::Mmap && r.spec.rw.writes();
    let fill = (r.spec.rw.reads() || r.spec.files.overwrite || no_extend) && !r.spec.files.fill_fs;
    // Only the job's region is written or reserved: what lies before `offset` is never touched
    // by the job, and stays a hole. (Filling from 0, as fio does, wrote 20 GB for
    // `--offset=20g --size=4m`, up to a full disk.)
    let from = r.existing.max(r.offset);
    let seed = r.spec.pattern.randseed;
    if r.existing < want && fill {
        layout(
            r.path, dir, from, want, r.new, seed, stop, created, progress,
        )?;
        state = "filled";
    } else if r.existing < want {
        // fill_fs writes until ENOSPC: reserving the space first would take it all.
        let mode = match r.spec.files.fill_fs {
            true => Fallocate::None,
            false => r.spec.files.fallocate,
        };
        allocate(r.path, dir, from, want, r.new, mode, created)?;
        state = match mode {
            Fallocate::None | Fallocate::Truncate => "sparse",
            _ => "allocated",
        };
    }
    // falloc's and ftruncate's "reads" read nothing, so holes cannot skew them.
    if r.spec.rw.reads() && r.spec.ioengine.moves_data() {
        let holes = hole_bytes(r.path, r.offset, want);
        if holes > 0 && owned {
            // A file of volbench's own with holes (a write job of this run only allocated it,
            // or an earlier run was killed while laying it out): fill the region with data
            // now, before anything is measured, so reads read data, never holes.
            layout(
                r.path, dir, r.offset, want, false, seed, stop, created, progress,
            )?;
            state = "filled";
        } else if holes > 0 {
            return Err(RunError::Holes {
                path: r.path.to_path_buf(),
                holes: format_bytes(holes as f64),
                region: format_bytes(r.len as f64),
            });
        }
    }
    let dev = DevId::from_raw(fs::metadata(r.path).map(|m| m.dev()).unwrap_or(0));
    Ok((Some(dev), Some(state)))
}

/// The directory of a region's file, made as fio makes it: fio makes the missing directories
/// of a file's path (mode 0700) before it lays files out, but refuses a `directory=` that
/// does not exist; so does volbench.
fn file_dir<'a>(r: &Region<'a>) -> Result<&'a Path, RunError> {
    let dir = r
        .path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let base_ok = r.spec.files.directory.as_ref().is_none_or(|d| d.is_dir());
    if !dir.is_dir() && r.spec.fio_job && base_ok {
        use std::os::unix::fs::DirBuilderExt;
        let mut b = fs::DirBuilder::new();
        let made = b.recursive(true).mode(0o700).create(dir);
        made.map_err(|e| RunError::MakeDirectory(dir.to_path_buf(), e))?;
    }
    match dir.is_dir() {
        true => Ok(dir),
        false => Err(RunError::MissingDirectory(dir.to_path_buf())),
    }
}

/// Checks a file's region before anything is written: room for a block, a real directory on a
/// real file system, creation allowed, and a file the user named big enough for a job that
/// only reads. Returns the directory and whether the file is volbench's own to lay out.
fn check_file<'a>(r: &Region<'a>, created: &[PathBuf]) -> Result<(&'a Path, bool), RunError> {
    let path = r.path;
    if r.len < r.spec.bs {
        return Err(RunError::TooSmall {
            path: path.to_path_buf(),
            len: r.len,
            bs: r.spec.bs,
        });
    }
    let dir = file_dir(r)?;
    if let Some(fs) = pseudo_filesystem(dir) {
        return Err(RunError::PseudoFs {
            path: path.to_path_buf(),
            fs,
        });
    }
    // A mistyped device (/dev/zram9) would be made a regular file in devtmpfs, in memory, and
    // measured as if it were the device.
    if r.new && under_dev(dir) {
        return Err(RunError::NoDevice {
            path: path.to_path_buf(),
        });
    }
    if r.new && !r.spec.files.allow_file_create {
        return Err(RunError::NoCreate {
            path: path.to_path_buf(),
        });
    }
    // Files volbench names itself (no --filename), and any file this run created (a write job
    // earlier in a job file, an earlier clone with offset_increment), are its own to lay out
    // and refill; a file the user named and had before is only written by a job that writes.
    let owned = r.spec.filename.is_empty() || created.iter().any(|p| p == path);
    let want = r.offset + r.len;
    if !r.new && r.existing < want && !owned && !r.spec.rw.writes() {
        return Err(RunError::UserFileTooSmall {
            path: path.to_path_buf(),
            have: r.existing,
            want,
        });
    }
    Ok((dir, owned))
}

/// Drops a region's cached pages (fio's invalidate): clean ones go, dirty ones start writeback.
pub(crate) fn drop_cached(fd: std::os::fd::RawFd, offset: u64, len: u64) {
    // SAFETY: advisory call on a descriptor the job holds open; failure only leaves pages
    // cached.
    unsafe { libc::posix_fadvise(fd, offset as i64, len as i64, libc::POSIX_FADV_DONTNEED) };
}

/// fio's unlink_each_loop between two loops: deletes `path` and puts a new empty file of that
/// name under the job's descriptor `fd`. A job that writes creates it (O_CREAT); one that only
/// reads finds it gone, as fio's does.
#[cold]
pub(crate) fn recreate(fd: std::os::fd::RawFd, path: &str, creates: bool) -> std::io::Result<()> {
    std::fs::remove_file(path)?;
    reopen_onto(fd, path, creates)
}

/// `path` opened again onto the job's descriptor `fd` (dup3, so the engine's descriptor stays
/// valid), as `fd` was opened: its access mode and flags (O_DIRECT and the rest) kept, created
/// with `create`; close-on-exec, as the original. Nothing may be in flight on `fd`.
pub(crate) fn reopen_onto(fd: std::os::fd::RawFd, path: &str, create: bool) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    // SAFETY: fcntl only reads the status flags of a descriptor the job holds open.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let writes = flags & libc::O_ACCMODE != libc::O_RDONLY;
    let f = outfile::open_held(
        std::fs::OpenOptions::new()
            .read(true)
            .write(writes)
            .create(create && writes)
            .mode(0o644),
        Path::new(path),
        flags & !libc::O_ACCMODE,
    )?;
    // SAFETY: dup3 onto a descriptor the job owns, with nothing in flight on it; `f` closes
    // its own copy when dropped.
    if unsafe { libc::dup3(std::os::fd::AsRawFd::as_raw_fd(&f), fd, libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// fio's pre_read: the region read once through the page cache before the job starts, so
/// the job begins with it cached (with O_DIRECT the job's I/O bypasses that cache, as fio's
/// pre-read through an O_DIRECT descriptor leaves it cold: either way the figures are the
/// device's). Read in 1 MiB pieces up to the region's end or the file's.
fn pre_read(path: &Path, offset: u64, len: u64) -> Result<(), RunError> {
    use std::io::{Read, Seek, SeekFrom};
    let fail = |source| RunError::PreRead {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(fail)?;
    f.seek(SeekFrom::Start(offset)).map_err(fail)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = f.read(&mut buf[..want]).map_err(fail)?;
        if n == 0 {
            break;
        }
        left -= n as u64;
    }
    Ok(())
}

/// fio's do_verify before it reads back: the written region synced and its cached pages
/// dropped, so the read-back checks what reached the device, not the page cache.
pub(crate) fn settle_written(fd: std::os::fd::RawFd, offset: u64, len: u64) {
    // SAFETY: a descriptor the job holds open; a failed sync leaves the read-back to find
    // what the device lost, which is what it is for.
    unsafe { libc::fdatasync(fd) };
    drop_cached(fd, offset, len);
}

/// Opens the region for the job's I/O, drops its cached pages when asked, and checks O_DIRECT's
/// alignment against the device's logical block.
fn open_target(
    r: &Region,
    dev: Option<DevId>,
    state: Option<&str>,
    is_block: bool,
) -> Result<Target, RunError> {
    let (spec, path, offset, len) = (r.spec, r.path, r.offset, r.len);
    let file = open_for_io(spec, path, dev)?;
    advise(spec, &file, path, offset, len)?;
    if spec.drops_cache() {
        // Drop cached pages so buffered reads start cold, as fio's invalidate=1 does.
        drop_cached(file.as_raw_fd(), offset, len);
    }
    if spec.files.pre_read {
        pre_read(path, offset, len)?;
    }
    // A file's disk, where its file system names another device (btrfs's anonymous one).
    let disk = dev.map(|d| if is_block { d } else { probe::backing(path, d) });
    let device = disk.and_then(probe::device_info);
    let lbs = device
        .as_ref()
        .map_or(512, |d| d.logical_block_size.max(512));
    if spec.engine.atomic && spec.rw.writes() {
        check_atomic(path, disk)?;
    }
    // O_DIRECT's alignment is the block device's rule; a file system without one (FUSE, a
    // network file system) sets its own, which the I/O's result then says.
    if spec.direct && device.is_some() {
        check_alignment(spec, path, offset, lbs)?;
    }
    let filesystem = if is_block {
        None
    } else {
        dev.and_then(|d| probe::filesystem_of(path, d))
    };
    let info = TargetInfo {
        host: None,
        layout: state.map(String::from),
        path: canonical(path),
        kind: if is_block { "block_device" } else { "file" }.into(),
        size_bytes: len,
        filesystem,
        device,
        kernel_counters: None,
        checked_reads: None,
    };
    Ok(Target {
        file,
        offset,
        len,
        dev: info.device.as_ref().and(disk),
        lbs,
        info,
    })
}

/// fio's per-file hints at open: posix_fadvise on the region (`fadvise_hint`; fio ignores a
/// refusal after one warning, so does this) and the write-lifetime hint (`write_hint`; a
/// kernel that refuses it fails the job, as in fio).
fn advise(spec: &JobSpec, file: &File, path: &Path, offset: u64, len: u64) -> Result<(), RunError> {
    use workload::spec::Fadvise;
    let advice = match spec.files.fadvise {
        Fadvise::None => None,
        Fadvise::Pattern if spec.rw.is_random() => Some(libc::POSIX_FADV_RANDOM),
        Fadvise::Pattern | Fadvise::Sequential => Some(libc::POSIX_FADV_SEQUENTIAL),
        Fadvise::Random => Some(libc::POSIX_FADV_RANDOM),
        Fadvise::Noreuse => Some(libc::POSIX_FADV_NOREUSE),
    };
    if let Some(a) = advice {
        // SAFETY: a valid fd of an open file; the call only records advice.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), offset as i64, len as i64, a) };
    }
    if let Some(hint) = spec.engine.write_hint {
        // F_SET_RW_HINT (1024 + 12) takes a pointer to a u64 RWH_WRITE_LIFE_* value.
        const F_SET_RW_HINT: libc::c_int = 1036;
        // SAFETY: the pointer is to a live u64 for the duration of the call.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), F_SET_RW_HINT, &hint as *const u64) };
        if rc < 0 {
            return Err(RunError::Open {
                path: path.to_path_buf(),
                source: io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

/// fio's `atomic`: the kernel refuses every RWF_ATOMIC write to a device without an atomic
/// write unit, so say so before the run (with the device and the fix).
fn check_atomic(path: &Path, disk: Option<DevId>) -> Result<(), RunError> {
    let dir = disk.and_then(|d| d.sysfs()).map(|d| probe::disk_dir(&d));
    let name = dir
        .as_ref()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let unit = dir
        .and_then(|d| fs::read_to_string(d.join("queue/atomic_write_unit_max_bytes")).ok())
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    if unit == 0 {
        return Err(RunError::NoAtomic {
            path: path.to_path_buf(),
            disk: name.unwrap_or_else(|| "its file system".into()),
        });
    }
    Ok(())
}

/// O_DIRECT needs every block size and the region's start on the device's logical block.
fn check_alignment(spec: &JobSpec, path: &Path, offset: u64, lbs: u32) -> Result<(), RunError> {
    let smallest = spec
        .pattern
        .bssplit
        .iter()
        .chain(&spec.pattern.bssplit_write)
        .map(|b| b.bs)
        .min()
        .unwrap_or(spec.bs)
        .min(spec.bs);
    if smallest % lbs as u64 != 0 {
        return Err(RunError::BlockSizeMismatch {
            bs: smallest,
            lbs,
            path: path.to_path_buf(),
        });
    }
    if !offset.is_multiple_of(lbs as u64) {
        return Err(RunError::OffsetMismatch {
            offset,
            lbs,
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// fio's hipri on io_uring polls for completions (IOPOLL), which only a disk with polled
/// queues can serve: elsewhere every I/O fails with EOPNOTSUPP, fio's included. Said before
/// anything is laid out. A new file's disk is its directory's.
fn check_hipri(
    spec: &JobSpec,
    path: &Path,
    is_block: bool,
    meta: Option<&fs::Metadata>,
) -> Result<(), RunError> {
    if !spec.engine.hipri || spec.ioengine != EngineKind::IoUring {
        return Ok(());
    }
    let raw = match meta {
        Some(m) if is_block => m.rdev(),
        Some(m) => m.dev(),
        None => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
            fs::metadata(dir.unwrap_or(Path::new("."))).map_or(0, |m| m.dev())
        }
    };
    match probe::polls(DevId::from_raw(raw)) {
        (true, _) => Ok(()),
        (false, dev) => Err(RunError::NoPoll {
            path: path.to_path_buf(),
            dev,
        }),
    }
}

/// The null engine's stand-in for a file that does not exist: nothing is created or opened
/// for I/O (it holds /dev/null only so every job has a descriptor).
fn null_target(spec: &JobSpec, path: &Path, nfiles: u32, offset: u64) -> Result<Target, RunError> {
    // Sized as a new file would be: `size` is shared among the job's files, as in fio.
    let len = region_len(spec, path, nfiles, 0, offset)?;
    let file = File::open("/dev/null").map_err(|source| RunError::Open {
        path: "/dev/null".into(),
        source,
    })?;
    Ok(Target {
        file,
        offset,
        len: len.max(spec.bs),
        dev: None,
        lbs: 512,
        info: TargetInfo {
            host: None,
            layout: None,
            path: canonical(path),
            kind: "none".into(),
            size_bytes: len,
            filesystem: None,
            device: None,
            kernel_counters: None,
            checked_reads: None,
        },
    })
}

/// A target as stored and shown: the canonical absolute path, whatever form it was given in
/// (`./x`, `/tmp/d/./x`); for a file that does not exist, its directory's canonical path.
fn canonical(path: &Path) -> String {
    fs::canonicalize(path)
        .or_else(|_| {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            let dir = fs::canonicalize(dir.unwrap_or(Path::new(".")))?;
            Ok::<_, io::Error>(dir.join(path.file_name().unwrap_or_default()))
        })
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Whether `dir` is /dev or below it (devtmpfs), other than /dev/shm, the memory file system
/// programs do keep files in.
fn under_dev(dir: &Path) -> bool {
    let d = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    d.starts_with("/dev") && !d.starts_with("/dev/shm")
}

/// Kernel pseudo-filesystems hold no storage: a "file" there is an interface, never a target.
fn pseudo_filesystem(dir: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statfs is a valid value; c is a NUL-terminated path, and statfs
    // only writes into st.
    let (rc, st) = unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        (libc::statfs(c.as_ptr(), &mut st), st)
    };
    if rc != 0 {
        return None;
    }
    // The field's C type differs between architectures (long, or __fsword_t): cast for all.
    #[allow(clippy::unnecessary_cast)]
    let f_type = st.f_type as i64;
    let name = match f_type {
        0x9fa0 => "proc",
        0x6265_6572 => "sysfs",
        0x6462_6720 => "debugfs",
        0x0027_e0eb => "cgroup",
        0x6367_7270 => "cgroup2",
        0x7472_6163 => "tracefs",
        0x7363_6673 => "securityfs",
        0x6265_6570 => "configfs",
        _ => return None,
    };
    Some(name.into())
}

/// Bytes of `[start, end)` that are holes or unwritten (fallocated) extents, which read as
/// zeros without touching the device. SEEK_DATA/SEEK_HOLE report both on ext4, XFS, btrfs and
/// tmpfs (unwritten extents count as holes there); a filesystem without them reports none.
fn hole_bytes(path: &Path, start: u64, end: u64) -> u64 {
    let Ok(f) = File::open(path) else { return 0 };
    let fd = f.as_raw_fd();
    let mut pos = start;
    let mut holes = 0;
    while pos < end {
        // SAFETY: lseek on a descriptor we own; it only moves the file offset.
        let data = unsafe { libc::lseek(fd, pos as i64, libc::SEEK_DATA) };
        if data < 0 {
            if io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) {
                holes += end - pos; // no data after pos
            }
            break;
        }
        let data = data as u64;
        holes += data.min(end).saturating_sub(pos);
        if data >= end {
            break;
        }
        // SAFETY: lseek on a descriptor we own; it only moves the file offset.
        let hole = unsafe { libc::lseek(fd, data as i64, libc::SEEK_HOLE) };
        if hole < 0 {
            break;
        }
        pos = hole as u64;
    }
    holes
}

fn open_for_io(spec: &JobSpec, path: &Path, dev: Option<DevId>) -> Result<File, RunError> {
    let mut o = OpenOptions::new();
    // fio's falloc opens read-write for every job: its reads allocate too.
    o.read(true)
        .write(spec.rw.writes() || spec.ioengine == EngineKind::Falloc);
    let mut flags = if spec.direct { libc::O_DIRECT } else { 0 };
    flags |= match spec.sync.sync_io {
        SyncIo::None => 0,
        SyncIo::Sync => libc::O_SYNC,
        SyncIo::Dsync => libc::O_DSYNC,
    };
    outfile::open_held(&o, path, flags).map_err(|source| {
        if spec.direct && source.raw_os_error() == Some(libc::EINVAL) {
            let fs = dev
                .and_then(|d| probe::filesystem_of(path, d))
                .map_or_else(|| "unknown filesystem".into(), |f| f.fs_type);
            RunError::DirectUnsupported {
                path: path.to_path_buf(),
                fs,
            }
        } else {
            RunError::Open {
                path: path.to_path_buf(),
                source,
            }
        }
    })
}

/// Free bytes for an unprivileged writer, or `None` where the filesystem does not say.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    fs_free(dir, false)
}

/// Free bytes for this writer: root may write the blocks the file system reserves for it
/// (ext4's 5 %), as fio's fill_fs does until ENOSPC.
fn free_for_me(dir: &Path) -> Option<u64> {
    // SAFETY: geteuid has no preconditions.
    fs_free(dir, unsafe { libc::geteuid() } == 0)
}

fn fs_free(dir: &Path, privileged: bool) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statvfs is a valid value; c is a NUL-terminated path, and statvfs
    // only writes into st.
    let (rc, st) = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(c.as_ptr(), &mut st), st)
    };
    if rc != 0 {
        return None;
    }
    // ramfs and some FUSE filesystems report no capacity at all: nothing to check against.
    if st.f_blocks == 0 {
        return None;
    }
    let blocks = if privileged { st.f_bfree } else { st.f_bavail };
    // fsblkcnt_t and unsigned long are 32 bits on some architectures: cast for all.
    #[allow(clippy::unnecessary_cast)]
    let free = blocks as u64 * st.f_frsize as u64;
    Some(free)
}

/// Refuses, before writing anything, when `dir` has less than `need` bytes free.
fn check_space(dir: &Path, need: u64) -> Result<(), RunError> {
    match free_bytes(dir) {
        Some(free) if free < need => Err(RunError::NoSpace {
            dir: dir.to_path_buf(),
            need: format_bytes(need as f64),
            free: format_bytes(free as f64),
        }),
        _ => Ok(()),
    }
}

/// A failed layout write: a full disk says so, anything else names the file.
fn layout_error(path: &Path, source: io::Error) -> RunError {
    if source.raw_os_error() == Some(libc::ENOSPC) {
        RunError::DiskFull {
            path: path.to_path_buf(),
        }
    } else {
        RunError::Layout {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where `path` is a link to a file not made yet (the user's own: the check above refused
/// any other), the file it names: that is what is made, laid out and, after an interrupted
/// run, removed (creating "the link" with O_EXCL failed: it exists).
fn dangling_link_target(path: &Path) -> Option<PathBuf> {
    let mut at = path.to_path_buf();
    // A chain of links, as the kernel follows it, up to its own limit of 40.
    for _ in 0..40 {
        match fs::symlink_metadata(&at) {
            Err(_) => return (at != path).then_some(at),
            Ok(m) if !m.file_type().is_symlink() => return None,
            Ok(_) => {}
        }
        let to = fs::read_link(&at).ok()?;
        at = outfile::parent(&at).join(to);
    }
    None
}

/// Opens `path` to lay it out, creating it (and recording that) when `create`.
fn open_for_layout(
    path: &Path,
    create: bool,
    created: &mut Vec<PathBuf>,
) -> Result<File, RunError> {
    // Through outfile: where another user could have put a name on the way, the directory
    // is held and no link is followed (issue 63).
    let f = outfile::open_held(OpenOptions::new().write(true).create_new(create), path, 0)
        .map_err(|source| RunError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    if create {
        created.push(path.to_path_buf());
    }
    Ok(f)
}

/// Removes a file this layout created, after it failed.
fn forget_created(path: &Path, create: bool, created: &mut Vec<PathBuf>) {
    if create {
        let _ = fs::remove_file(path);
        created.retain(|p| p != path);
    }
}

/// Gives a file the length `want` without writing data: space reserved as fio's `fallocate`
/// says (`truncate`: only the size set, a sparse file; `none` and `keep`: the size grows as
/// the job writes, as fio's does).
fn allocate(
    path: &Path,
    dir: &Path,
    have: u64,
    want: u64,
    create: bool,
    mode: Fallocate,
    created: &mut Vec<PathBuf>,
) -> Result<(), RunError> {
    if !matches!(mode, Fallocate::None | Fallocate::Truncate) {
        check_space(dir, want - have)?;
    }
    let f = open_for_layout(path, create, created)?;
    let fd = f.as_raw_fd();
    let (off, len) = (have as libc::off_t, (want - have) as libc::off_t);
    // SAFETY: plain system calls on a descriptor we own.
    let rc = unsafe {
        match mode {
            Fallocate::Native => libc::fallocate(fd, 0, off, len),
            Fallocate::Keep => libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, off, len),
            // posix_fallocate returns the error number instead of setting errno.
            Fallocate::Posix => match libc::posix_fallocate(fd, off, len) {
                0 => 0,
                e => {
                    return allocation_failed(
                        path,
                        io::Error::from_raw_os_error(e),
                        create,
                        created,
                    )
                }
            },
            Fallocate::None | Fallocate::Truncate => 0,
        }
    };
    if rc != 0 {
        allocation_failed(path, io::Error::last_os_error(), create, created)?;
    }
    if matches!(mode, Fallocate::None | Fallocate::Keep) {
        return Ok(());
    }
    f.set_len(want.max(have)).map_err(|e| layout_error(path, e))
}

/// A filesystem without fallocate (EOPNOTSUPP) gets fio's behaviour, the size alone; any
/// other failure removes what this layout created and says why.
fn allocation_failed(
    path: &Path,
    e: io::Error,
    create: bool,
    created: &mut Vec<PathBuf>,
) -> Result<(), RunError> {
    if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
        return Ok(());
    }
    forget_created(path, create, created);
    Err(layout_error(path, e))
}

/// Extends a file to `want` bytes of random data. Reads of never-written extents return zeros
/// from metadata alone and measure nothing, so reads need real data underneath.
#[allow(clippy::too_many_arguments)]
fn layout(
    path: &Path,
    dir: &Path,
    have: u64,
    want: u64,
    create: bool,
    seed: u64,
    stop: &AtomicBool,
    created: &mut Vec<PathBuf>,
    progress: LayoutProgress,
) -> Result<(), RunError> {
    let need = want - have;
    check_space(dir, need)?;
    // The layout writes: a settle before the window.
    crate::settle::touched();
    let lerr = |source: io::Error| layout_error(path, source);
    let mut f = open_for_layout(path, create, created)?;
    let remove_if_created = |created: &mut Vec<PathBuf>| forget_created(path, create, created);
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(have)).map_err(lerr)?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed ^ have);
    let mut chunk = vec![0u8; 1 << 20];
    let mut done = 0;
    while done < need {
        if stop.load(Ordering::Relaxed) {
            drop(f);
            remove_if_created(created);
            return Err(RunError::InterruptedLayout {
                path: path.to_path_buf(),
            });
        }
        let n = (need - done).min(chunk.len() as u64) as usize;
        rng.fill_bytes(&mut chunk[..n]);
        if let Err(e) = f.write_all(&chunk[..n]) {
            drop(f);
            remove_if_created(created);
            return Err(lerr(e));
        }
        done += n as u64;
        progress(path, done, need);
    }
    if let Err(e) = f.sync_all() {
        drop(f);
        remove_if_created(created);
        return Err(lerr(e));
    }
    // fio drops what its layout wrote from the cache whatever `invalidate` says, so the
    // first pass over a new file reads the device, not the pages the layout left behind.
    drop_cached(f.as_raw_fd(), have, need);
    Ok(())
}
