//! A disk that can lie about fsync, for the durability tests: a FUSE file system whose writes
//! land in a volatile cache (4 KiB pages) in front of a "medium" that survives power cuts.
//!
//! - honest: fsync moves the file's cached pages to the medium and takes `flush` time, as a
//!   medium's program time would;
//! - lying: fsync returns at once; a background flusher moves pages to the medium only once
//!   they have been dirty for `lag` (like a drive's cache draining on its own schedule).
//!
//! [`LyingDisk::cut`] is the power cut: the file system is unmounted and its cache thrown
//! away; [`LyingDisk::mount`] brings a fresh one up over the same medium. File creation and
//! size changes go to the medium at once (only data is cached), which keeps the model small.

use fuser::{
    BackgroundSession, Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags,
    Generation, INodeNo, LockOwner, MountOption, OpenFlags, ReplyAttr, ReplyCreate, ReplyData,
    ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request, WriteFlags,
};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, UNIX_EPOCH};

const PAGE: u64 = 4096;
const TTL: Duration = Duration::from_secs(0);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Honest { flush: Duration },
    Lying { lag: Duration },
}

/// What survives a power cut: file names, sizes and persisted bytes.
#[derive(Default)]
struct Medium {
    files: BTreeMap<String, Vec<u8>>,
    /// Stable inode numbers (the kernel keeps them for open files), from 2 up.
    inos: BTreeMap<String, u64>,
    next_ino: u64,
}

/// One mount's state: the medium it fronts and its volatile page cache.
struct State {
    medium: Arc<Mutex<Medium>>,
    /// Per file name: page index -> (bytes, when first dirtied).
    cache: HashMap<String, BTreeMap<u64, (Vec<u8>, Instant)>>,
}

impl State {
    fn names(&self) -> Vec<String> {
        self.medium.lock().unwrap().files.keys().cloned().collect()
    }
    fn ino_of(&self, name: &str) -> Option<u64> {
        self.medium.lock().unwrap().inos.get(name).copied()
    }
    fn name_of(&self, ino: u64) -> Option<String> {
        let m = self.medium.lock().unwrap();
        m.inos
            .iter()
            .find(|(_, &i)| i == ino)
            .map(|(n, _)| n.clone())
    }
    fn size(&self, name: &str) -> u64 {
        self.medium
            .lock()
            .unwrap()
            .files
            .get(name)
            .map_or(0, |v| v.len() as u64)
    }
    /// The current content of one page: cached, else the medium's.
    fn page(&self, name: &str, idx: u64) -> Vec<u8> {
        if let Some((p, _)) = self.cache.get(name).and_then(|c| c.get(&idx)) {
            return p.clone();
        }
        let m = self.medium.lock().unwrap();
        let data = &m.files[name];
        let start = (idx * PAGE) as usize;
        let mut p = vec![0u8; PAGE as usize];
        if start < data.len() {
            let end = (start + PAGE as usize).min(data.len());
            p[..end - start].copy_from_slice(&data[start..end]);
        }
        p
    }
    fn persist(&mut self, name: &str, older_than: Option<Duration>) {
        let Some(c) = self.cache.get_mut(name) else {
            return;
        };
        let mut m = self.medium.lock().unwrap();
        let Some(data) = m.files.get_mut(name) else {
            return;
        };
        let due: Vec<u64> = c
            .iter()
            .filter(|(_, (_, t))| older_than.is_none_or(|lag| t.elapsed() >= lag))
            .map(|(k, _)| *k)
            .collect();
        for idx in due {
            let (p, _) = c.remove(&idx).unwrap();
            let start = (idx * PAGE) as usize;
            if start < data.len() {
                let end = (start + PAGE as usize).min(data.len());
                data[start..end].copy_from_slice(&p[..end - start]);
            }
        }
    }
}

struct Fs {
    mode: Mode,
    st: Arc<Mutex<State>>,
}

fn attr(ino: u64, size: u64, dir: bool) -> FileAttr {
    FileAttr {
        ino: INodeNo(ino),
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind: if dir {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: if dir { 0o755 } else { 0o644 },
        nlink: if dir { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: PAGE as u32,
    }
}

impl Filesystem for Fs {
    fn lookup(&self, _r: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let st = self.st.lock().unwrap();
        let name = name.to_string_lossy();
        match (parent.0, st.ino_of(&name)) {
            (1, Some(ino)) => reply.entry(&TTL, &attr(ino, st.size(&name), false), Generation(0)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _r: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        let st = self.st.lock().unwrap();
        if ino.0 == 1 {
            return reply.attr(&TTL, &attr(1, 0, true));
        }
        match st.name_of(ino.0) {
            Some(n) => reply.attr(&TTL, &attr(ino.0, st.size(&n), false)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn setattr(
        &self,
        _r: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _a: Option<fuser::TimeOrNow>,
        _m: Option<fuser::TimeOrNow>,
        _c: Option<std::time::SystemTime>,
        _fh: Option<FileHandle>,
        _cr: Option<std::time::SystemTime>,
        _chg: Option<std::time::SystemTime>,
        _bk: Option<std::time::SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let mut st = self.st.lock().unwrap();
        let Some(name) = st.name_of(ino.0) else {
            return reply.error(Errno::ENOENT);
        };
        if let Some(s) = size {
            st.persist(&name, None);
            st.medium
                .lock()
                .unwrap()
                .files
                .get_mut(&name)
                .unwrap()
                .resize(s as usize, 0);
        }
        reply.attr(&TTL, &attr(ino.0, st.size(&name), false));
    }

    fn open(&self, _r: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        reply.opened(FileHandle(0), FopenFlags::empty());
    }

    fn create(
        &self,
        _r: &Request,
        parent: INodeNo,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        _flags: i32,
        reply: ReplyCreate,
    ) {
        if parent.0 != 1 {
            return reply.error(Errno::ENOENT);
        }
        let st = self.st.lock().unwrap();
        let name = name.to_string_lossy().into_owned();
        {
            let mut m = st.medium.lock().unwrap();
            m.files.entry(name.clone()).or_default();
            if !m.inos.contains_key(&name) {
                let ino = m.next_ino.max(2);
                m.inos.insert(name.clone(), ino);
                m.next_ino = ino + 1;
            }
        }
        let ino = st.ino_of(&name).unwrap();
        reply.created(
            &TTL,
            &attr(ino, st.size(&name), false),
            Generation(0),
            FileHandle(0),
            FopenFlags::empty(),
        );
    }

    fn unlink(&self, _r: &Request, _parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let mut st = self.st.lock().unwrap();
        let name = name.to_string_lossy().into_owned();
        st.cache.remove(&name);
        let mut m = st.medium.lock().unwrap();
        m.inos.remove(&name);
        match m.files.remove(&name) {
            Some(_) => reply.ok(),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn read(
        &self,
        _r: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let st = self.st.lock().unwrap();
        let Some(name) = st.name_of(ino.0) else {
            return reply.error(Errno::ENOENT);
        };
        let end = (offset + size as u64).min(st.size(&name));
        let mut out = Vec::with_capacity(size as usize);
        let mut pos = offset;
        while pos < end {
            let p = st.page(&name, pos / PAGE);
            let in_page = (pos % PAGE) as usize;
            let n = ((PAGE as usize - in_page) as u64).min(end - pos) as usize;
            out.extend_from_slice(&p[in_page..in_page + n]);
            pos += n as u64;
        }
        reply.data(&out);
    }

    fn write(
        &self,
        _r: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _wf: WriteFlags,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let mut st = self.st.lock().unwrap();
        let Some(name) = st.name_of(ino.0) else {
            return reply.error(Errno::ENOENT);
        };
        let end = offset + data.len() as u64;
        if end > st.size(&name) {
            st.persist(&name, None);
            st.medium
                .lock()
                .unwrap()
                .files
                .get_mut(&name)
                .unwrap()
                .resize(end as usize, 0);
        }
        let mut pos = offset;
        while pos < end {
            let idx = pos / PAGE;
            let mut p = st.page(&name, idx);
            let in_page = (pos % PAGE) as usize;
            let n = ((PAGE as usize - in_page) as u64).min(end - pos) as usize;
            let from = (pos - offset) as usize;
            p[in_page..in_page + n].copy_from_slice(&data[from..from + n]);
            let cache = st.cache.entry(name.clone()).or_default();
            let first = cache.get(&idx).map_or_else(Instant::now, |(_, t)| *t);
            cache.insert(idx, (p, first));
            pos += n as u64;
        }
        reply.written(data.len() as u32);
    }

    fn fsync(
        &self,
        _r: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        if let Mode::Honest { flush } = self.mode {
            let mut st = self.st.lock().unwrap();
            if let Some(name) = st.name_of(ino.0) {
                st.persist(&name, None);
            }
            drop(st);
            std::thread::sleep(flush);
        }
        reply.ok();
    }

    fn readdir(
        &self,
        _r: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino.0 != 1 {
            return reply.error(Errno::ENOENT);
        }
        let inos: Vec<(String, u64)> = {
            let st = self.st.lock().unwrap();
            let m = st.medium.lock().unwrap();
            m.inos.iter().map(|(n, i)| (n.clone(), *i)).collect()
        };
        let mut entries = vec![
            (1, FileType::Directory, ".".to_string()),
            (1, FileType::Directory, "..".to_string()),
        ];
        entries.extend(inos.into_iter().map(|(n, i)| (i, FileType::RegularFile, n)));
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// A mounted lying (or honest) disk at `dir`.
pub struct LyingDisk {
    pub dir: PathBuf,
    mode: Mode,
    medium: Arc<Mutex<Medium>>,
    session: Option<BackgroundSession>,
    flusher_stop: Arc<AtomicBool>,
}

impl LyingDisk {
    pub fn new(dir: &Path, mode: Mode) -> LyingDisk {
        let mut d = LyingDisk {
            dir: dir.to_path_buf(),
            mode,
            medium: Arc::new(Mutex::new(Medium::default())),
            session: None,
            flusher_stop: Arc::new(AtomicBool::new(false)),
        };
        d.mount();
        d
    }

    /// Mounts a fresh file system (an empty cache) over the medium.
    pub fn mount(&mut self) {
        let st = Arc::new(Mutex::new(State {
            medium: self.medium.clone(),
            cache: HashMap::new(),
        }));
        let mut cfg = Config::default();
        cfg.mount_options = vec![
            MountOption::FSName("lyingdisk".into()),
            MountOption::Subtype("lyingdisk".into()),
        ];
        cfg.n_threads = Some(4);
        let fs = Fs {
            mode: self.mode,
            st: st.clone(),
        };
        self.session = Some(
            fuser::spawn_mount(fs, &self.dir, &cfg)
                .expect("mount the lying disk (needs root and /dev/fuse)"),
        );
        self.flusher_stop = Arc::new(AtomicBool::new(false));
        if let Mode::Lying { lag } = self.mode {
            let stop = self.flusher_stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                    let mut s = st.lock().unwrap();
                    for n in s.names() {
                        s.persist(&n, Some(lag));
                    }
                }
            });
        }
    }

    /// The power cut: the cache is gone, only the medium remains. Whoever had files open on
    /// the disk must be dead already (the test kills the client first).
    pub fn cut(&mut self) {
        self.flusher_stop.store(true, Ordering::SeqCst);
        if let Some(s) = self.session.take() {
            if s.umount_and_join().is_err() {
                let _ = std::process::Command::new("umount")
                    .arg("-l")
                    .arg(&self.dir)
                    .status();
            }
        }
    }
}

impl Drop for LyingDisk {
    fn drop(&mut self) {
        self.cut();
    }
}
