//! Block I/O traces as streams: what was issued to a device (offset, size, direction, flush and
//! FUA, issue and completion time), read from volbench's own format, blktrace's binary files
//! (per CPU, merged by time) and fio's iologs (v2, v3), and written as volbench's format, fio's
//! iolog v3 and blktrace's binary. The kernel's block tracepoints are recorded through tracefs
//! ([`record`]).
//!
//! Every reader streams: memory holds one record per input file and the I/Os still waiting
//! for their completion, whatever the trace's size. Every input is bounded (line length, file
//! names, sizes) and a bad record is one error naming the file, the place and the fix.

mod blktrace;
mod iolog;
mod merge;
mod own;
mod pairing;
pub mod record;
mod summary;

pub use blktrace::BlktraceWriter;
pub use iolog::IologWriter;
pub use merge::merge;
pub use own::{Header, TraceWriter};
pub use summary::{class_name, size_class, summarize, Summary, SIZE_CLASSES};

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// What an I/O did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    /// A cache flush (fsync's barrier; fio's `sync`): no offset, no length.
    Flush,
    /// A discard (fio's `trim`).
    Trim,
}

impl Op {
    pub const ALL: [Op; 4] = [Op::Read, Op::Write, Op::Flush, Op::Trim];

    /// The index of the op's figures (reads, writes, flushes, trims).
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Flush => "flush",
            Op::Trim => "trim",
        }
    }
}

/// One I/O of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    /// When it was issued, ns after the trace's start.
    pub at_ns: u64,
    pub op: Op,
    /// A write with Force Unit Access.
    pub fua: bool,
    /// Index into the trace's file (or device) names.
    pub file: u32,
    pub offset: u64,
    pub len: u64,
    /// When it completed, ns after the trace's start, where the trace says.
    pub done_ns: Option<u64>,
}

/// A trace's format, detected from its first bytes (or, for blktrace, its file names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Volbench,
    Blktrace,
    IologV2,
    IologV3,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Volbench => "volbench",
            Format::Blktrace => "blktrace",
            Format::IologV2 => "fio iolog v2",
            Format::IologV3 => "fio iolog v3",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {why}")]
    Bad {
        path: String,
        line: u64,
        why: String,
    },
    #[error("{0}")]
    Other(String),
}

/// The longest line a text trace may hold, and the most file names: a trace over either is
/// not a trace (a binary file read as text, or a name per I/O).
pub const MAX_LINE: usize = 4096;
pub const MAX_FILES: usize = 4096;
/// The largest single I/O a trace may hold (the kernel's own bio limit is far below).
pub const MAX_LEN: u64 = 1 << 30;

/// Where a trace's I/Os are written, in any of the formats volbench writes.
pub trait Sink {
    fn put(&mut self, io: &Io) -> std::io::Result<()>;
    /// Flushes what is buffered and closes the trace (fio's `close` lines).
    fn close(self: Box<Self>) -> std::io::Result<()>;
}

impl<W: std::io::Write> Sink for TraceWriter<W> {
    fn put(&mut self, io: &Io) -> std::io::Result<()> {
        self.write(io)
    }
    fn close(self: Box<Self>) -> std::io::Result<()> {
        self.finish().map(drop)
    }
}

impl<W: std::io::Write> Sink for IologWriter<W> {
    fn put(&mut self, io: &Io) -> std::io::Result<()> {
        self.write(io)
    }
    fn close(self: Box<Self>) -> std::io::Result<()> {
        self.finish().map(drop)
    }
}

impl Sink for BlktraceWriter {
    fn put(&mut self, io: &Io) -> std::io::Result<()> {
        self.write(io)
    }
    fn close(self: Box<Self>) -> std::io::Result<()> {
        self.finish()
    }
}

/// A stream of a trace's I/Os, in issue order.
pub trait Source: Send {
    fn next_io(&mut self) -> Result<Option<Io>, TraceError>;
    /// The names of the files or devices the I/Os so far went to (an [`Io::file`] indexes).
    fn files(&self) -> &[String];
}

/// An open trace.
pub struct Reader {
    pub format: Format,
    pub path: PathBuf,
    src: Box<dyn Source>,
}

impl Reader {
    pub fn next_io(&mut self) -> Result<Option<Io>, TraceError> {
        self.src.next_io()
    }
    pub fn files(&self) -> &[String] {
        self.src.files()
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TraceError + '_ {
    move |source| TraceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Opens a trace and detects its format: volbench's (`# volbench trace`), fio's iolog
/// (`fio version 2 iolog` or 3), or blktrace's binary records. A blktrace run writes one file
/// per CPU (`NAME.blktrace.0`, `.1`, ...): give NAME or any of them and all are merged by time.
pub fn open(path: &Path) -> Result<Reader, TraceError> {
    if let Some(parts) = blktrace::per_cpu_files(path) {
        let src = blktrace::Reader::open(&parts)?;
        return Ok(reader(Format::Blktrace, path, Box::new(src)));
    }
    let mut f = File::open(path).map_err(io_err(path))?;
    let mut head = [0u8; 32];
    let n = read_head(&mut f, &mut head).map_err(io_err(path))?;
    let head = &head[..n];
    if blktrace::is_blktrace(head) {
        let src = blktrace::Reader::open(&[path.to_path_buf()])?;
        return Ok(reader(Format::Blktrace, path, Box::new(src)));
    }
    let text = BufReader::with_capacity(1 << 16, File::open(path).map_err(io_err(path))?);
    if head.starts_with(own::MAGIC.as_bytes()) {
        let src = own::Reader::new(text, path)?;
        return Ok(reader(Format::Volbench, path, Box::new(src)));
    }
    for (magic, format) in [(iolog::V2, Format::IologV2), (iolog::V3, Format::IologV3)] {
        if head.starts_with(magic.as_bytes()) {
            let src = iolog::Reader::new(text, path, format == Format::IologV3)?;
            return Ok(reader(format, path, Box::new(src)));
        }
    }
    Err(TraceError::Other(format!(
        "{}: not a trace volbench reads (its own `# volbench trace`, fio's `fio version 2 \
         iolog` or 3, or blktrace's binary files): record one with `volbench trace record`",
        path.display()
    )))
}

fn reader(format: Format, path: &Path, src: Box<dyn Source>) -> Reader {
    Reader {
        format,
        path: path.to_path_buf(),
        src,
    }
}

fn read_head(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Reads one line of at most [`MAX_LINE`] bytes (without its end); None at the end.
pub(crate) fn read_line(
    r: &mut impl BufRead,
    buf: &mut String,
    path: &Path,
    line: u64,
) -> Result<Option<()>, TraceError> {
    buf.clear();
    let n = r
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_line(buf)
        .map_err(io_err(path))?;
    if n == 0 {
        return Ok(None);
    }
    if n > MAX_LINE && !buf.ends_with('\n') {
        return Err(bad(path, line, format!("a line over {MAX_LINE} bytes")));
    }
    let end = buf.trim_end_matches(['\n', '\r']).len();
    buf.truncate(end);
    Ok(Some(()))
}

pub(crate) fn bad(path: &Path, line: u64, why: impl Into<String>) -> TraceError {
    TraceError::Bad {
        path: path.display().to_string(),
        line,
        why: why.into(),
    }
}

/// Names seen in a trace, each given an index once, up to [`MAX_FILES`].
#[derive(Default)]
pub(crate) struct Names {
    pub names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl Names {
    pub fn index(&mut self, name: &str) -> Option<u32> {
        if let Some(&i) = self.index.get(name) {
            return Some(i);
        }
        if self.names.len() >= MAX_FILES {
            return None;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        Some(i)
    }
}
