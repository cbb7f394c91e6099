//! blktrace's binary records (`struct blk_io_trace`, 48 bytes then a payload), read from the
//! per-CPU files blktrace writes (`NAME.blktrace.N`) and merged by time, or from one file
//! (`blkparse -d`'s dump). The queue events (Q) are the I/Os as submitted, as fio replays
//! them; the completion events (C) give each its completion. Written too, per CPU, so that a
//! trace can go to blkparse or to fio's blktrace replay.

use crate::pairing::Pairing;
use crate::{Io, Op, Source, TraceError, MAX_FILES};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: u32 = 0x6561_7400;
const VERSION: u32 = 0x07;
const SIZE: usize = 48;
const SECTOR: u64 = 512;

const TA_QUEUE: u32 = 1;
const TA_COMPLETE: u32 = 8;
const TC_WRITE: u32 = 1 << 1;
const TC_FLUSH: u32 = 1 << 2;
const TC_QUEUE: u32 = 1 << 4;
const TC_COMPLETE: u32 = 1 << 7;
const TC_FS: u32 = 1 << 8;
const TC_PC: u32 = 1 << 9;
const TC_NOTIFY: u32 = 1 << 10;
const TC_DISCARD: u32 = 1 << 13;
const TC_FUA: u32 = 1 << 15;
const TC_READ: u32 = 1;

/// True when `head` starts with a blktrace record's magic, in either byte order.
pub fn is_blktrace(head: &[u8]) -> bool {
    head.len() >= 4 && {
        let b = [head[0], head[1], head[2], head[3]];
        [u32::from_le_bytes(b), u32::from_be_bytes(b)]
            .iter()
            .any(|m| m & 0xffff_ff00 == MAGIC)
    }
}

/// blktrace's per-CPU files for `path`: `path` itself named `NAME.blktrace.N`, or NAME whose
/// `NAME.blktrace.0` exists. None when `path` is neither.
pub fn per_cpu_files(path: &Path) -> Option<Vec<PathBuf>> {
    let name = path.file_name()?.to_str()?;
    let base = match name.rsplit_once(".blktrace.") {
        Some((b, n)) if n.bytes().all(|c| c.is_ascii_digit()) && !n.is_empty() => b.to_string(),
        _ if !path.exists() => name.to_string(),
        _ => return None,
    };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let prefix = format!("{base}.blktrace.");
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_str()?
                .strip_prefix(&prefix)?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .take(MAX_FILES)
        .collect();
    found.sort();
    (!found.is_empty()).then(|| found.into_iter().map(|(_, p)| p).collect())
}

/// One record, as read.
#[derive(Clone, Copy, Debug)]
struct Rec {
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
}

/// One per-CPU file read record by record.
struct Part {
    r: BufReader<File>,
    path: PathBuf,
    swap: Option<bool>,
    skip: Vec<u8>,
}

impl Part {
    fn next(&mut self) -> Result<Option<Rec>, TraceError> {
        let mut b = [0u8; SIZE];
        match read_full(&mut self.r, &mut b) {
            Ok(0) => return Ok(None),
            Ok(SIZE) => {}
            Ok(_) => return Err(self.bad("a record cut short: the file ends mid-record")),
            Err(e) => return Err(self.io(e)),
        }
        let raw = [b[0], b[1], b[2], b[3]];
        let swap = *self
            .swap
            .get_or_insert(u32::from_le_bytes(raw) & 0xffff_ff00 != MAGIC);
        let u32_at = |o: usize| {
            let x = [b[o], b[o + 1], b[o + 2], b[o + 3]];
            if swap {
                u32::from_be_bytes(x)
            } else {
                u32::from_le_bytes(x)
            }
        };
        let u64_at = |o: usize| {
            let (lo, hi) = (u32_at(o) as u64, u32_at(o + 4) as u64);
            if swap {
                (lo << 32) | hi
            } else {
                (hi << 32) | lo
            }
        };
        let magic = u32_at(0);
        if magic & 0xffff_ff00 != MAGIC || magic & 0xff != VERSION {
            return Err(self.bad(
                "not a blktrace record (bad magic or version): the file is cut or not blktrace's",
            ));
        }
        let pdu = if swap {
            u16::from_be_bytes([b[46], b[47]])
        } else {
            u16::from_le_bytes([b[46], b[47]])
        } as usize;
        self.skip.resize(pdu, 0);
        self.r.read_exact(&mut self.skip).map_err(|e| self.io(e))?;
        Ok(Some(Rec {
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            device: u32_at(36),
        }))
    }

    fn bad(&self, why: &str) -> TraceError {
        TraceError::Other(format!("{}: {why}", self.path.display()))
    }
    fn io(&self, e: std::io::Error) -> TraceError {
        TraceError::Io {
            path: self.path.display().to_string(),
            source: e,
        }
    }
}

fn read_full(r: &mut impl Read, b: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < b.len() {
        match r.read(&mut b[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The per-CPU files merged by time, queue events paired with their completions.
pub struct Reader {
    parts: Vec<Part>,
    heads: BinaryHeap<Reverse<(u64, usize)>>,
    next: Vec<Option<Rec>>,
    devices: Vec<u32>,
    names: Vec<String>,
    pairing: Pairing,
    start: Option<u64>,
    ended: bool,
}

impl Reader {
    pub fn open(paths: &[PathBuf]) -> Result<Reader, TraceError> {
        let mut parts = Vec::new();
        for p in paths {
            let f = File::open(p).map_err(|e| TraceError::Io {
                path: p.display().to_string(),
                source: e,
            })?;
            parts.push(Part {
                r: BufReader::with_capacity(1 << 16, f),
                path: p.clone(),
                swap: None,
                skip: Vec::new(),
            });
        }
        let mut r = Reader {
            next: vec![None; parts.len()],
            parts,
            heads: BinaryHeap::new(),
            devices: Vec::new(),
            names: Vec::new(),
            pairing: Pairing::default(),
            start: None,
            ended: false,
        };
        for i in 0..r.parts.len() {
            r.refill(i)?;
        }
        Ok(r)
    }

    fn refill(&mut self, i: usize) -> Result<(), TraceError> {
        self.next[i] = self.parts[i].next()?;
        if let Some(rec) = self.next[i] {
            self.heads.push(Reverse((rec.time, i)));
        }
        Ok(())
    }

    /// The earliest record of all the files.
    fn pop(&mut self) -> Result<Option<Rec>, TraceError> {
        let Some(Reverse((_, i))) = self.heads.pop() else {
            return Ok(None);
        };
        let rec = self.next[i].take();
        self.refill(i)?;
        Ok(rec)
    }

    fn device(&mut self, dev: u32) -> Result<u32, TraceError> {
        if let Some(i) = self.devices.iter().position(|&d| d == dev) {
            return Ok(i as u32);
        }
        if self.devices.len() >= MAX_FILES {
            return Err(TraceError::Other(
                "a blktrace with over 4096 devices".into(),
            ));
        }
        self.devices.push(dev);
        self.names.push(format!("{},{}", dev >> 20, dev & 0xfffff));
        Ok(self.devices.len() as u32 - 1)
    }

    /// Feeds one record to the pairing: a queue event is an I/O (a flush before a write is a
    /// flush, then the write), a completion completes one.
    fn feed(&mut self, rec: Rec) -> Result<(), TraceError> {
        let (act, cat) = (rec.action & 0xffff, rec.action >> 16);
        if cat & (TC_NOTIFY | TC_PC) != 0 || (act != TA_QUEUE && act != TA_COMPLETE) {
            return Ok(());
        }
        let start = *self.start.get_or_insert(rec.time);
        let t = rec.time.saturating_sub(start);
        let file = self.device(rec.device)?;
        let (offset, len) = (rec.sector.saturating_mul(SECTOR), rec.bytes as u64);
        if act == TA_COMPLETE {
            self.pairing.completed(file, offset, len, t);
            return Ok(());
        }
        let io = |op, offset, len| Io {
            at_ns: t,
            op,
            fua: cat & TC_FUA != 0 && op == Op::Write,
            file,
            offset,
            len,
            done_ns: None,
        };
        if cat & TC_FLUSH != 0 {
            self.pairing.issued(io(Op::Flush, 0, 0));
        }
        let op = match (cat & TC_DISCARD != 0, cat & TC_WRITE != 0) {
            (true, _) => Op::Trim,
            (false, true) => Op::Write,
            (false, false) => Op::Read,
        };
        if len > 0 {
            self.pairing.issued(io(op, offset, len));
        }
        Ok(())
    }
}

impl Source for Reader {
    fn next_io(&mut self) -> Result<Option<Io>, TraceError> {
        loop {
            if let Some(io) = self.pairing.ready(self.ended) {
                return Ok(Some(io));
            }
            if self.ended {
                return Ok(None);
            }
            match self.pop()? {
                Some(rec) => self.feed(rec)?,
                None => self.ended = true,
            }
        }
    }

    fn files(&self) -> &[String] {
        &self.names
    }
}

/// Writes a trace as blktrace's per-CPU files (`BASE.blktrace.N`), a queue and a completion
/// event per I/O, each file in time order as blktrace's are.
pub struct BlktraceWriter {
    files: Vec<BufWriter<File>>,
    seq: Vec<u32>,
    devices: Vec<u32>,
    /// Completions not yet written: written once no earlier event can follow.
    pending: BinaryHeap<Reverse<(u64, u64, usize, Rec)>>,
    n: u64,
}

impl PartialEq for Rec {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time
    }
}
impl Eq for Rec {}
impl PartialOrd for Rec {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Rec {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.time.cmp(&o.time)
    }
}

impl BlktraceWriter {
    /// `devices` gives each trace file's dev_t (the kernel's encoding, major << 20 | minor).
    pub fn create(base: &Path, cpus: usize, devices: &[u32]) -> std::io::Result<Self> {
        let mut files = Vec::new();
        for c in 0..cpus.max(1) {
            let mut p = base.as_os_str().to_owned();
            p.push(format!(".blktrace.{c}"));
            let f = outfile::Opener::log("the blktrace file").open(&PathBuf::from(p))?;
            files.push(BufWriter::new(f));
        }
        Ok(BlktraceWriter {
            seq: vec![0; files.len()],
            files,
            devices: devices.to_vec(),
            pending: BinaryHeap::new(),
            n: 0,
        })
    }

    pub fn write(&mut self, io: &Io) -> std::io::Result<()> {
        self.flush_until(io.at_ns)?;
        let cpu = (self.n % self.files.len() as u64) as usize;
        self.n += 1;
        let dir = match io.op {
            Op::Read => TC_READ,
            Op::Write => TC_WRITE | if io.fua { TC_FUA } else { 0 },
            Op::Flush => TC_WRITE | TC_FLUSH,
            Op::Trim => TC_WRITE | TC_DISCARD,
        };
        let device = self
            .devices
            .get(io.file as usize)
            .copied()
            .unwrap_or(io.file);
        let rec = |time, act, cat| Rec {
            time,
            sector: io.offset / SECTOR,
            bytes: io.len as u32,
            action: act | ((dir | cat | TC_FS) << 16),
            device,
        };
        let q = rec(io.at_ns, TA_QUEUE, TC_QUEUE);
        self.put(cpu, q)?;
        if let Some(d) = io.done_ns {
            let r = rec(d.max(io.at_ns), TA_COMPLETE, TC_COMPLETE);
            self.pending.push(Reverse((r.time, self.n, cpu, r)));
        }
        Ok(())
    }

    fn flush_until(&mut self, t: u64) -> std::io::Result<()> {
        while let Some(Reverse((time, _, cpu, rec))) = self.pending.peek().copied() {
            if time > t {
                break;
            }
            self.pending.pop();
            self.put(cpu, rec)?;
        }
        Ok(())
    }

    fn put(&mut self, cpu: usize, r: Rec) -> std::io::Result<()> {
        let mut b = [0u8; SIZE];
        let seq = self.seq[cpu];
        self.seq[cpu] += 1;
        b[0..4].copy_from_slice(&(MAGIC | VERSION).to_le_bytes());
        b[4..8].copy_from_slice(&seq.to_le_bytes());
        b[8..16].copy_from_slice(&r.time.to_le_bytes());
        b[16..24].copy_from_slice(&r.sector.to_le_bytes());
        b[24..28].copy_from_slice(&r.bytes.to_le_bytes());
        b[28..32].copy_from_slice(&r.action.to_le_bytes());
        b[32..36].copy_from_slice(&0u32.to_le_bytes());
        b[36..40].copy_from_slice(&r.device.to_le_bytes());
        b[40..44].copy_from_slice(&(cpu as u32).to_le_bytes());
        self.files[cpu].write_all(&b)
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.flush_until(u64::MAX)?;
        for f in &mut self.files {
            f.flush()?;
        }
        Ok(())
    }
}
