//! `durability create`: writes checksummed records to a file on the machine under test, each
//! announced to the witness before it is written and reported after its sync returned, until
//! the power is cut (or it is stopped).
//!
//! Per record: `intent` (the witness confirms it journaled it), write, the durability call,
//! then `ack`. The ack of one record travels with the intent of the next, so a record costs
//! one round trip to the witness plus its own sync. Each thread owns every n-th block, so no
//! two records are ever in flight on one block.

use crate::protocol::{self, read_line, Reply, Request};
use crate::record;
use rand::{Rng, SeedableRng};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How each record is made durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMethod {
    Fsync,
    Fdatasync,
    /// The file opened O_DSYNC: the write returns once durable.
    Odsync,
    /// O_DIRECT write, then fdatasync (the flush of the device's cache).
    Direct,
}

impl SyncMethod {
    pub fn parse(s: &str) -> Option<SyncMethod> {
        Some(match s {
            "fsync" => SyncMethod::Fsync,
            "fdatasync" => SyncMethod::Fdatasync,
            "odsync" => SyncMethod::Odsync,
            "direct" => SyncMethod::Direct,
            _ => return None,
        })
    }
}

/// A connection to the witness that has said hello.
pub struct Conn {
    r: BufReader<TcpStream>,
    w: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(addr: &str, token: &str) -> anyhow::Result<Conn> {
        let s = TcpStream::connect(addr).map_err(|e| {
            anyhow::anyhow!("cannot reach the witness at {addr}: {e}: start `volbench durability serve` there, or check --witness")
        })?;
        s.set_nodelay(true)?;
        let mut c = Conn {
            w: s.try_clone()?,
            r: BufReader::new(s),
            buf: Vec::new(),
        };
        c.send(&Request::Hello {
            version: protocol::VERSION,
            token: token.into(),
        })?;
        c.expect_ok()?;
        Ok(c)
    }

    pub fn send(&mut self, q: &Request) -> anyhow::Result<()> {
        self.w.write_all(&protocol::line(q))?;
        Ok(())
    }

    /// Sends several requests in one write.
    pub fn send_all(&mut self, qs: &[Request]) -> anyhow::Result<()> {
        let bytes: Vec<u8> = qs.iter().flat_map(protocol::line).collect();
        self.w.write_all(&bytes)?;
        Ok(())
    }

    pub fn recv(&mut self) -> anyhow::Result<Reply> {
        if !read_line(&mut self.r, &mut self.buf)? {
            anyhow::bail!("the witness closed the connection");
        }
        serde_json::from_slice(&self.buf)
            .map_err(|e| anyhow::anyhow!("the witness sent a malformed reply: {e}"))
    }

    /// Whether the witness holds a run of `name` (this host's path, as create names it).
    pub fn knows(&mut self, name: &str) -> anyhow::Result<bool> {
        self.send(&Request::Status { file: name.into() })?;
        Ok(matches!(self.recv()?, Reply::Status { file, .. } if file == name))
    }

    /// The writer key a `create` is answered with.
    pub fn expect_created(&mut self) -> anyhow::Result<String> {
        match self.recv()? {
            Reply::Created { writer } => Ok(writer),
            Reply::Error { error } => Err(anyhow::anyhow!("witness: {error}")),
            other => Err(anyhow::anyhow!(
                "the witness answered {other:?} where created was due"
            )),
        }
    }

    pub fn expect_ok(&mut self) -> anyhow::Result<()> {
        match self.recv()? {
            Reply::Ok => Ok(()),
            Reply::Error { error } => Err(anyhow::anyhow!("witness: {error}")),
            other => Err(anyhow::anyhow!(
                "the witness answered {other:?} where ok was due"
            )),
        }
    }
}

/// The name the witness knows a file by: `host:/absolute/path` (the file need not exist yet:
/// its directory is made absolute).
pub fn file_name(path: &Path) -> anyhow::Result<String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let base = path
        .file_name()
        .ok_or_else(|| anyhow::anyhow!("{}: name a file", path.display()))?;
    let abs = std::fs::canonicalize(dir)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?
        .join(base);
    Ok(format!("{}:{}", host_name(), abs.display()))
}

/// This machine's host name, as the witness's file names and verify's report carry it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap_or_default()
        .trim()
        .to_string()
}

pub struct CreateOptions {
    pub witness: String,
    pub token: String,
    pub file: PathBuf,
    pub size: u64,
    pub block: u32,
    pub sync: SyncMethod,
    pub threads: u32,
    /// Stop by itself after this long (the power cut normally ends it).
    pub runtime: Option<Duration>,
    /// Let the witness forget records of this file that no verify has read.
    pub discard: bool,
}

/// Counts shared with the progress display.
#[derive(Default)]
pub struct Counters {
    pub acked: AtomicU64,
}

#[derive(Debug)]
pub struct CreateSummary {
    pub acked: u64,
    pub elapsed: Duration,
}

/// Lays out the file, registers it with the witness, then writes records until `stop` (or
/// `runtime`). An error on any thread stops them all and is returned.
pub fn create(
    o: &CreateOptions,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
) -> anyhow::Result<CreateSummary> {
    let blocks = o.size / o.block as u64;
    protocol::check_geometry(blocks * o.block as u64, o.block)
        .map_err(|e| anyhow::anyhow!("--size/--block: {e}"))?;
    // Whose file it is, then the witness's consent (one writer per file), and only then is
    // the file touched: a refused create changes nothing.
    let name = file_name(&o.file)?;
    let mut c = Conn::open(&o.witness, &o.token)?;
    ours_or_refused(&mut c, &o.file, &name, o.block)?;
    c.send(&Request::Create {
        file: name.clone(),
        size: blocks * o.block as u64,
        block: o.block,
        discard: o.discard,
    })?;
    // The run's key: each writer thread's connection joins with it (the witness takes records
    // only from the connections of the run's writer).
    let writer = c.expect_created()?;
    layout(&o.file, blocks * o.block as u64, o.block)?;
    // Each acknowledged record is a durable write: live watchers see them as they are made.
    let tally =
        runner::board::tally(&format!("durability {name}"), runner::board::Unit::Io).map(Arc::new);
    let seq = Arc::new(AtomicU64::new(1));
    let began = Instant::now();
    let threads = o.threads.clamp(1, (blocks - 1).min(256) as u32);
    let shared = Shared {
        stop,
        counters: counters.clone(),
        seq,
        began,
        tally,
        writer,
    };
    let handles: Vec<_> = (0..threads)
        .map(|w| spawn_writer(o, &name, (w, threads), blocks, &shared))
        .collect();
    let mut first_err = None;
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => first_err = first_err.or(Some(e)),
            Err(_) => first_err = first_err.or(Some(anyhow::anyhow!("a writer thread panicked"))),
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(CreateSummary {
            acked: counters.acked.load(Relaxed),
            elapsed: began.elapsed(),
        }),
    }
}

/// What the writer threads share: the stop flag (any writer's error sets it), the counts, the
/// next record's sequence number, the start and the live tally.
struct Shared {
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
    seq: Arc<AtomicU64>,
    began: Instant,
    tally: Option<Arc<runner::board::Tally>>,
    /// The run's writer key, from the witness's answer to create.
    writer: String,
}

/// Writer `w` of `n`, on its own connection to the witness and its own descriptor.
fn spawn_writer(
    o: &CreateOptions,
    name: &str,
    (w, n): (u32, u32),
    blocks: u64,
    sh: &Shared,
) -> std::thread::JoinHandle<anyhow::Result<()>> {
    let (stop, counters, seq) = (sh.stop.clone(), sh.counters.clone(), sh.seq.clone());
    let (began, tally, name, key) = (
        sh.began,
        sh.tally.clone(),
        name.to_string(),
        sh.writer.clone(),
    );
    let (witness, token, file) = (o.witness.clone(), o.token.clone(), o.file.clone());
    let (sync, block, runtime) = (o.sync, o.block, o.runtime);
    std::thread::spawn(move || {
        let r = (|| {
            let mut conn = Conn::open(&witness, &token)?;
            conn.send(&Request::Join {
                file: name.clone(),
                writer: key,
            })?;
            conn.expect_ok()?;
            let f = open(&file, sync)?;
            let (w, n) = (w as u64, n as u64);
            let mut wk = Worker {
                conn,
                f,
                name,
                sync,
                block,
                blocks,
                w,
                n,
                tally,
            };
            wk.run(&stop, &counters, &seq, began, runtime)
        })();
        if r.is_err() {
            stop.store(true, Relaxed);
        }
        r
    })
}

/// The file is volbench's own (new, or with its header), or the witness knows it: a disk
/// that dropped unflushed data (a lying one, after a cut) can lose the header too, and the
/// witness's record of this file, made by an earlier create of it here, says it is ours all
/// the same. Anything else is refused.
fn ours_or_refused(c: &mut Conn, file: &Path, name: &str, block: u32) -> anyhow::Result<()> {
    let Err(foreign) = refuse_foreign(file, block) else {
        return Ok(());
    };
    if !c.knows(name)? {
        return Err(foreign);
    }
    eprintln!(
        "note: {} has lost its header (the disk did not keep it); the witness knows it as this \
         host's durability file, so create takes it back",
        file.display()
    );
    Ok(())
}

/// Refuses a path that is not volbench's own durability file (or a new one): anything but a
/// regular file, and a file whose whole header does not hold or that is not the size its
/// header says.
fn refuse_foreign(path: &Path, block: u32) -> anyhow::Result<()> {
    let mut head = vec![0u8; block as usize];
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => anyhow::bail!(
            "{} is not a regular file: durability create writes its own file; choose a new path",
            path.display()
        ),
        Ok(m) => {
            let f = File::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let n = f.read_at(&mut head, 0).unwrap_or(0);
            // Ours only when the whole header holds and the file is the size it says.
            let ours = record::parse_file_header(&head[..n]).is_some_and(|(s, _)| s == m.len());
            if !ours {
                anyhow::bail!("{} exists and is not a volbench durability file: choose a new path (volbench never overwrites what it did not create)", path.display());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => anyhow::bail!("{}: {e}", path.display()),
    }
    Ok(())
}

/// Creates the file (or takes back one of ours), sized and with its header block synced, and
/// syncs the directory so the file itself survives the cut.
fn layout(path: &Path, size: u64, block: u32) -> anyhow::Result<()> {
    let mut head = vec![0u8; block as usize];
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    f.set_len(size)
        .map_err(|e| anyhow::anyhow!("sizing {}: {e}", path.display()))?;
    record::file_header(&mut head, size, block);
    f.write_all_at(&head, 0)?;
    f.sync_all()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

fn open(path: &Path, sync: SyncMethod) -> anyhow::Result<File> {
    let flags = match sync {
        SyncMethod::Odsync => libc::O_DSYNC,
        SyncMethod::Direct => libc::O_DIRECT,
        _ => 0,
    };
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            if sync == SyncMethod::Direct && e.raw_os_error() == Some(libc::EINVAL) {
                anyhow::anyhow!(
                    "{}: O_DIRECT is not supported on this file system: use --sync fdatasync",
                    path.display()
                )
            } else {
                anyhow::anyhow!("{}: {e}", path.display())
            }
        })
}

struct Worker {
    conn: Conn,
    f: File,
    name: String,
    sync: SyncMethod,
    block: u32,
    blocks: u64,
    /// This worker owns blocks b with (b - 1) % n == w.
    w: u64,
    n: u64,
    tally: Option<Arc<runner::board::Tally>>,
}

impl Worker {
    fn run(
        &mut self,
        stop: &AtomicBool,
        counters: &Counters,
        seq: &AtomicU64,
        began: Instant,
        runtime: Option<Duration>,
    ) -> anyhow::Result<()> {
        let mut rng = rand::rngs::SmallRng::from_entropy();
        // Aligned for O_DIRECT: a slice of a larger buffer starting on a 4 KiB boundary.
        let mut raw = vec![0u8; self.block as usize + 4096];
        let off = raw.as_ptr().align_offset(4096);
        let buf = &mut raw[off..off + self.block as usize];
        let owned = (self.blocks - 1 - self.w).div_ceil(self.n);
        let mut pending_ack: Option<Request> = None;
        loop {
            let done = stop.load(Relaxed) || runtime.is_some_and(|r| began.elapsed() >= r);
            if done || owned == 0 {
                if let Some(a) = pending_ack.take() {
                    self.conn.send(&a)?;
                    self.conn.expect_ok()?;
                }
                return Ok(());
            }
            let block = 1 + self.w + self.n * rng.gen_range(0..owned);
            let s = seq.fetch_add(1, Relaxed);
            let sum = record::fill(buf, block, s, &mut rng);
            let intent = Request::Intent {
                file: self.name.clone(),
                block,
                seq: s,
                sum,
            };
            match pending_ack.take() {
                Some(a) => {
                    self.conn.send_all(&[a, intent])?;
                    self.conn.expect_ok()?;
                }
                None => self.conn.send(&intent)?,
            }
            self.conn.expect_ok()?;
            let t0 = Instant::now();
            self.write_durably(buf, block)?;
            if let Some(t) = &self.tally {
                t.count(1, self.block as u64, t0.elapsed().as_nanos() as u64);
            }
            counters.acked.fetch_add(1, Relaxed);
            pending_ack = Some(Request::Ack {
                file: self.name.clone(),
                block,
                seq: s,
            });
        }
    }

    fn write_durably(&self, buf: &[u8], block: u64) -> anyhow::Result<()> {
        let off = block * self.block as u64;
        self.f
            .write_all_at(buf, off)
            .map_err(|e| anyhow::anyhow!("write of block {block} failed: {e}"))?;
        let r = match self.sync {
            SyncMethod::Fsync => self.f.sync_all(),
            SyncMethod::Fdatasync | SyncMethod::Direct => self.f.sync_data(),
            SyncMethod::Odsync => Ok(()),
        };
        r.map_err(|e| anyhow::anyhow!("sync after block {block} failed: {e}"))
    }
}
