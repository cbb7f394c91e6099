//! What volbench writes or keeps at a path it did not choose, on a machine other people use.
//!
//! volbench runs as root, so every file it opens by a name a user gave (a log, the interval
//! log, write_iolog, verify state, a test file, the store) and every directory it keeps state
//! in (the records of what it made, beside the store) is a place another local user may have
//! prepared: a link planted in a world-writable directory, a block device holding a file
//! system given as a log's name, a state directory made 0777 by someone else. The rules are
//! written here once, and every writer opens through [`Opener`]:
//!
//! - a log never goes to a device (block or character, with or without
//!   `--allow-destructive`), nor to a FIFO or a directory;
//! - a link is followed only in a directory where no one else could have put it
//!   ([`planted_by_others`]): owned by the invoking user or root, writable by no one else, on
//!   a path whose every directory is owned by the user or root and, when others can write it,
//!   sticky. Anywhere else the last component is opened without following a link
//!   (`O_NOFOLLOW`) and a link there is refused: whoever owns or can write the directory can
//!   point it anywhere, whatever `fs.protected_symlinks` says. There, too, a file with a
//!   second hard link is refused and a log is truncated only after that look (a hard link to
//!   another's file is its owner's data, whatever `fs.protected_hardlinks` says);
//! - a refusal is one line naming the file, why, and what to give instead.
//!
//! [`trusted_dir`] is the rule for volbench's own state: used only when it is a directory
//! (not a link) owned by the invoking user and writable by no one else.

use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a path was refused: one line, with the file, the cause and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl From<Refused> for std::io::Error {
    fn from(r: Refused) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::PermissionDenied, r.0)
    }
}

/// What a path is opened for, which says what may stand there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// A log, a record, a store: a regular file and nothing else.
    File,
    /// A test file the run does I/O on: a device is the runner's own decision (its safety
    /// checks: blank, unmounted, `--allow-destructive`), so only the link rule applies here.
    Target,
}

/// Opens a user-named path under the rules above; built like `OpenOptions`.
#[derive(Clone, Debug)]
pub struct Opener {
    what: String,
    purpose: Purpose,
    opts: OpenOptions,
    /// Cut to nothing once opened and looked at (not `O_TRUNC`: that would cut a file the
    /// look then refuses).
    truncate: bool,
}

impl Opener {
    /// A log written from its start (`write_bw_log`, `write_iolog`, verify state): created
    /// or truncated, a regular file only.
    pub fn log(what: &str) -> Opener {
        let mut opts = OpenOptions::new();
        opts.write(true).create(true);
        Opener {
            truncate: true,
            ..Opener::with(what, Purpose::File, opts)
        }
    }

    /// A log added to (`--interval-log`): created or appended, a regular file only.
    pub fn append(what: &str) -> Opener {
        let mut opts = OpenOptions::new();
        opts.append(true).create(true);
        Opener::with(what, Purpose::File, opts)
    }

    /// A new private file (the store): created 0600, a regular file only.
    pub fn private(what: &str) -> Opener {
        let mut opts = OpenOptions::new();
        opts.write(true).create(true).mode(0o600);
        Opener::with(what, Purpose::File, opts)
    }

    /// A test file opened as `opts` says: a device may stand there (the runner decides).
    pub fn target(what: &str, opts: OpenOptions) -> Opener {
        Opener::with(what, Purpose::Target, opts)
    }

    fn with(what: &str, purpose: Purpose, opts: OpenOptions) -> Opener {
        Opener {
            what: what.to_string(),
            purpose,
            opts,
            truncate: false,
        }
    }

    /// Opens `p`, or says in one line why not.
    pub fn open(&self, p: &Path) -> Result<File, OpenError> {
        self.check(p)?;
        // open_held checks what it opened for links and owner where that matters.
        let f = open_held(&self.opts, p, libc::O_NOCTTY | libc::O_CLOEXEC)
            .map_err(|e| self.io(p, e))?;
        // Checked again on what was opened: the path may have changed since the look.
        let md = f.metadata().map_err(|e| self.io(p, e))?;
        self.kind_ok(p, &md)?;
        if self.truncate {
            f.set_len(0).map_err(|e| self.io(p, e))?;
        }
        Ok(f)
    }

    /// What stands at `p` now, before anything is opened or truncated.
    pub fn check(&self, p: &Path) -> Result<(), Refused> {
        let planted = planted_by_others(parent(p));
        if let Some(why) = &planted {
            // A link on the way is said now, before the run, not when the file is opened.
            if let Err(e) = held_dir(parent(p), p, why) {
                if e.kind() == std::io::ErrorKind::PermissionDenied {
                    return Err(Refused(format!("{} {e}", self.what)));
                }
            }
        }
        let Ok(md) = std::fs::symlink_metadata(p) else {
            return Ok(());
        };
        if md.file_type().is_symlink() {
            if let Some(why) = planted {
                return Err(self.refused(
                    p,
                    &format!("is a symbolic link where another user could have put it ({why}), so it is not followed"),
                    "give the path it should reach itself",
                ));
            }
            return match std::fs::metadata(p) {
                Ok(target) => self.kind_ok(p, &target),
                Err(_) => Ok(()),
            };
        }
        if let Some(why) = &planted {
            self.one_link(p, &md, why)?;
        }
        self.kind_ok(p, &md)
    }

    /// In a directory others could have prepared, a regular file with a second name may be
    /// another's file linked in: refused.
    fn one_link(&self, p: &Path, md: &Metadata, why: &str) -> Result<(), Refused> {
        if let Some(theirs) = theirs(md) {
            return Err(self.refused(
                p,
                &format!("{theirs} and is in {why}"),
                "give a path in a directory of your own",
            ));
        }
        if md.is_file() && md.nlink() > 1 {
            return Err(self.refused(
                p,
                &format!(
                    "has {} hard links and is in {why}, so it may be another user's file",
                    md.nlink()
                ),
                "give a path in a directory of your own",
            ));
        }
        Ok(())
    }

    fn kind_ok(&self, p: &Path, md: &Metadata) -> Result<(), Refused> {
        // What a test file may be (a device, a directory for the directory engines) is the
        // runner's to judge; for a target only the link rule applies here.
        if self.purpose == Purpose::Target {
            return Ok(());
        }
        let t = md.file_type();
        let what = if t.is_block_device() {
            "a block device"
        } else if t.is_char_device() {
            "a character device"
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_dir() {
            "a directory"
        } else {
            return Ok(());
        };
        let device = t.is_block_device() || t.is_char_device();
        let fix = if device {
            "volbench never writes a log to a device, with or without --allow-destructive: give a file path"
        } else {
            "give a path for a regular file"
        };
        Err(self.refused(p, &format!("is {what}"), fix))
    }

    fn refused(&self, p: &Path, why: &str, fix: &str) -> Refused {
        Refused(format!("{} {} {why}: {fix}", self.what, p.display()))
    }

    fn io(&self, p: &Path, e: std::io::Error) -> OpenError {
        if e.raw_os_error() == Some(libc::ELOOP) {
            let why =
                planted_by_others(parent(p)).unwrap_or_else(|| parent(p).display().to_string());
            return OpenError::Refused(self.refused(
                p,
                &format!("became a symbolic link in {why}"),
                "give the path it should reach itself",
            ));
        }
        OpenError::Io(format!("{} {}: {e}", self.what, p.display()), e)
    }
}

/// Opening failed: refused by the rules, or the system's own error (with the file named).
#[derive(Debug)]
pub enum OpenError {
    Refused(Refused),
    Io(String, std::io::Error),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Refused(r) => r.fmt(f),
            OpenError::Io(line, _) => f.write_str(line),
        }
    }
}

impl std::error::Error for OpenError {}

impl From<Refused> for OpenError {
    fn from(r: Refused) -> OpenError {
        OpenError::Refused(r)
    }
}

impl From<OpenError> for std::io::Error {
    fn from(e: OpenError) -> std::io::Error {
        match e {
            OpenError::Refused(r) => r.into(),
            OpenError::Io(line, e) => std::io::Error::new(e.kind(), line),
        }
    }
}

/// Opens `p` with `opts` and `flags`. Where another user could have put a name on the way
/// ([`planted_by_others`]), the directory is first opened without following any link on
/// its path (`openat2`, `RESOLVE_NO_SYMLINKS`) and held, and the name is opened in that
/// directory (through `/proc/self/fd`) with `O_NOFOLLOW`: a directory swapped for a link
/// during the run, before or after the look, cannot send the open elsewhere. A regular file
/// opened there with a second hard link is refused (it may be another's file, linked in
/// between a run's layout and its reopening).
pub fn open_held(opts: &OpenOptions, p: &Path, flags: i32) -> std::io::Result<File> {
    let mut opts = opts.clone();
    let Some(why) = planted_by_others(parent(p)) else {
        return opts.custom_flags(flags).open(p);
    };
    let held = held_dir(parent(p), p, &why)?;
    let name = p
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no file name"))?;
    use std::os::fd::AsRawFd;
    let via = Path::new(&format!("/proc/self/fd/{}", held.as_raw_fd())).join(name);
    let f = opts.custom_flags(flags | libc::O_NOFOLLOW).open(via)?;
    let md = f.metadata()?;
    if let Some(theirs) = theirs(&md) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{} {theirs} and is in {why}: give a path in a directory of your own",
                p.display()
            ),
        ));
    }
    if md.is_file() && md.nlink() > 1 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} has {} hard links and is in {why}, so it may be another user's file: give a path in a directory of your own", p.display(), md.nlink()),
        ));
    }
    Ok(f)
}

/// `dir`, opened without following any link on its path (`openat2`, `RESOLVE_NO_SYMLINKS`)
/// and held (`O_PATH`): what is opened in it stays in it, whatever is renamed or linked on
/// the way later. A link on the way is refused, in one line naming `p` and `why`.
pub fn held_dir(dir: &Path, p: &Path, why: &str) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let abs = std::path::absolute(dir)?;
    rustix::fs::openat2(
        rustix::fs::CWD,
        &abs,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS,
    )
    .map_err(|e| {
        let e = std::io::Error::from(e);
        if e.raw_os_error() == Some(libc::ELOOP) {
            return std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("the way to {} goes through a symbolic link in {why}: give the path it should reach itself", p.display()),
            );
        }
        e
    })
}

/// The directory a path's last component is in (`.` for a bare name).
pub fn parent(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Whether a name in `dir` may be a link or file someone other than the invoking user (or
/// root) put there: `dir` is not owned by them or others can write it, or a directory on the
/// way to it could be swapped by another user (owned by someone else, or writable by others
/// without the sticky bit), or a link on the way is another's. `Some` is the place, said for
/// a refusal ("/home/alice, which belongs to uid 1000"); `None`: only the user or root could.
/// A directory that cannot be looked at counts as another's.
pub fn planted_by_others(dir: &Path) -> Option<String> {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    if let Some(why) = literal_links(&abs) {
        return Some(why);
    }
    let real = match std::fs::canonicalize(&abs) {
        Ok(r) => r,
        Err(e) => {
            return Some(format!(
                "{}, which cannot be looked at ({e})",
                dir.display()
            ))
        }
    };
    let mut on_the_way: Vec<&Path> = real.ancestors().skip(1).collect();
    on_the_way.reverse();
    for d in on_the_way {
        if let Some(why) = not_ours(d, true) {
            return Some(why);
        }
    }
    not_ours(&real, false)
}

/// A link on the literal path that another user owns (a link's owner is who made it).
fn literal_links(abs: &Path) -> Option<String> {
    let mut on_the_way: Vec<&Path> = abs.ancestors().collect();
    on_the_way.reverse();
    on_the_way.into_iter().find_map(|d| {
        let md = std::fs::symlink_metadata(d).ok()?;
        let theirs = md.file_type().is_symlink() && !owner_ok(md.uid());
        theirs.then(|| format!("{}, a link of uid {}", d.display(), md.uid()))
    })
}

/// Why another user could change what is in `d` (None: they cannot). On the way
/// (`sticky_ok`), a directory others can write is safe when sticky: they cannot rename
/// what they do not own there. The directory itself must be closed to them: sticky or not,
/// they can add a name.
fn not_ours(d: &Path, sticky_ok: bool) -> Option<String> {
    let md = match std::fs::metadata(d) {
        Ok(m) => m,
        Err(e) => return Some(format!("{}, which cannot be looked at ({e})", d.display())),
    };
    let open = md.mode() & 0o022 != 0 && !(sticky_ok && md.mode() & 0o1000 != 0);
    if !owner_ok(md.uid()) {
        Some(format!(
            "{}, which belongs to uid {}",
            d.display(),
            md.uid()
        ))
    } else if open {
        Some(format!("{}, which other users can write", d.display()))
    } else {
        None
    }
}

/// Why an existing regular file is another user's to read and change (what volbench would
/// write into it, results or a log, would be theirs): None for the user's or root's own.
fn theirs(md: &Metadata) -> Option<String> {
    (md.is_file() && !owner_ok(md.uid())).then(|| {
        format!(
            "belongs to uid {}, who could read and change what is written",
            md.uid()
        )
    })
}

/// The invoking user and root are the only owners whose directories and links are trusted.
fn owner_ok(uid: u32) -> bool {
    uid == euid() || uid == 0
}

/// The invoking user's effective uid.
pub fn euid() -> u32 {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether `dir` may hold volbench's own state: a directory itself (not a link), owned by
/// the invoking user, writable by no one else. Err is the one line saying why not.
pub fn trusted_dir(dir: &Path) -> Result<(), Refused> {
    let md =
        std::fs::symlink_metadata(dir).map_err(|e| Refused(format!("{}: {e}", dir.display())))?;
    let why = if md.file_type().is_symlink() {
        "is a symbolic link".to_string()
    } else if !md.is_dir() {
        "is not a directory".to_string()
    } else if md.uid() != euid() {
        format!("belongs to uid {}, not to this user ({})", md.uid(), euid())
    } else if md.mode() & 0o022 != 0 {
        format!("is writable by others (mode {:o})", md.mode() & 0o7777)
    } else {
        return Ok(());
    };
    Err(Refused(format!(
        "{} {why}, so volbench does not use what it holds",
        dir.display()
    )))
}

/// Whether a file volbench reads back as its own (a record) is one: a regular file itself,
/// owned by the invoking user, writable by no one else.
pub fn trusted_file(md: &Metadata) -> bool {
    md.is_file() && md.uid() == euid() && md.mode() & 0o022 == 0
}

/// Makes `dir` (and any missing parent) private to this user, 0700, or checks the one there.
pub fn private_dir(dir: &Path) -> Result<PathBuf, Refused> {
    use std::os::unix::fs::DirBuilderExt;
    if std::fs::symlink_metadata(dir).is_err() {
        // EEXIST from a racing creator is caught by the check below.
        let _ = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir);
    }
    trusted_dir(dir)?;
    Ok(dir.to_path_buf())
}

/// Opens a record volbench wrote itself, for reading: not through a link, and only when it
/// is [`trusted_file`]; None otherwise.
pub fn open_own(p: &Path) -> Option<(File, Metadata)> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(p)
        .ok()?;
    let md = f.metadata().ok()?;
    trusted_file(&md).then_some((f, md))
}

/// A file's identity (device, inode), to know later that a path still names what volbench
/// made and not something put in its place.
pub fn identity(p: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(p)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

#[cfg(test)]
mod tests;
