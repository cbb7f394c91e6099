//! volbench's own trace format: text, one I/O per line, so that a trace can be read, cut
//! and diffed with the usual tools.
//!
//! ```text
//! # volbench trace v1
//! # method tracefs (block_bio_queue, block_bio_complete, block_rq_complete)
//! # file 0 /dev/zram0 size=268435456
//! # columns: issue_ns op offset len done_ns file
//! 0 R 1048576 4096 5210 0
//! 9125 WF 0 4096 - 0
//! ```
//! `op` is R, W, WF (a write with FUA), F (a flush) or T (a trim); `done_ns` is `-` where the
//! completion was not seen. Times are ns after the trace's start.

use crate::{bad, read_line, Io, Names, Op, Source, TraceError, MAX_LEN};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &str = "# volbench trace v1";

/// What a trace's header says besides its I/Os.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// How it was recorded (tracefs and its events, or a conversion).
    pub method: String,
    /// The files or devices, with their size in bytes where known.
    pub files: Vec<(String, Option<u64>)>,
}

pub struct Reader<R> {
    r: R,
    path: PathBuf,
    line: u64,
    buf: String,
    names: Names,
    pub header: Header,
    last_at: u64,
}

impl<R: BufRead + Send> Reader<R> {
    pub fn new(r: R, path: &Path) -> Result<Self, TraceError> {
        Ok(Reader {
            r,
            path: path.to_path_buf(),
            line: 0,
            buf: String::new(),
            names: Names::default(),
            header: Header::default(),
            last_at: 0,
        })
    }

    /// A `# file N NAME [size=B]` line names file N (in order, from 0).
    fn comment(&mut self) -> Result<(), TraceError> {
        let Some(rest) = self.buf.strip_prefix("# file ") else {
            if let Some(m) = self.buf.strip_prefix("# method ") {
                self.header.method = m.to_string();
            }
            return Ok(());
        };
        let mut parts = rest.split_whitespace();
        let (n, name) = (parts.next(), parts.next());
        let size = parts
            .next()
            .and_then(|s| s.strip_prefix("size="))
            .and_then(|s| s.parse().ok());
        let want = self.names.names.len().to_string();
        match (n, name) {
            (Some(n), Some(name)) if n == want => {
                self.names
                    .index(name)
                    .ok_or_else(|| bad(&self.path, self.line, "too many files"))?;
                self.header.files.push((name.to_string(), size));
                Ok(())
            }
            _ => Err(bad(
                &self.path,
                self.line,
                format!("expected `# file {want} NAME [size=BYTES]`"),
            )),
        }
    }

    fn parse(&self) -> Result<Io, String> {
        let f: Vec<&str> = self.buf.split_whitespace().collect();
        let [at, op, off, len, done, file] = f[..] else {
            return Err("expected 6 columns: issue_ns op offset len done_ns file".into());
        };
        let num = |s: &str, what: &str| {
            s.parse::<u64>()
                .map_err(|_| format!("{what} `{s}` is not a whole number"))
        };
        let (op, fua) = match op {
            "R" => (Op::Read, false),
            "W" => (Op::Write, false),
            "WF" => (Op::Write, true),
            "F" => (Op::Flush, false),
            "T" => (Op::Trim, false),
            _ => return Err(format!("op `{op}` is none of R, W, WF, F, T")),
        };
        let io = Io {
            at_ns: num(at, "issue_ns")?,
            op,
            fua,
            offset: num(off, "offset")?,
            len: num(len, "len")?,
            done_ns: if done == "-" {
                None
            } else {
                Some(num(done, "done_ns")?)
            },
            file: num(file, "file")? as u32,
        };
        if io.len > MAX_LEN {
            return Err(format!("an I/O of {} bytes (at most {MAX_LEN})", io.len));
        }
        if io.file as usize >= self.names.names.len() {
            return Err(format!("file {} has no `# file` line", io.file));
        }
        if io.at_ns < self.last_at {
            return Err("issue times go back: the trace is not in issue order".into());
        }
        Ok(io)
    }
}

impl<R: BufRead + Send> Source for Reader<R> {
    fn next_io(&mut self) -> Result<Option<Io>, TraceError> {
        loop {
            self.line += 1;
            if read_line(&mut self.r, &mut self.buf, &self.path, self.line)?.is_none() {
                return Ok(None);
            }
            if self.buf.starts_with('#') {
                self.comment()?;
                continue;
            }
            if self.buf.trim().is_empty() {
                continue;
            }
            let io = self.parse().map_err(|e| bad(&self.path, self.line, e))?;
            self.last_at = io.at_ns;
            return Ok(Some(io));
        }
    }

    fn files(&self) -> &[String] {
        &self.names.names
    }
}

/// Writes volbench's format.
pub struct TraceWriter<W: Write> {
    w: W,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(mut w: W, h: &Header) -> std::io::Result<Self> {
        writeln!(w, "{MAGIC}")?;
        writeln!(w, "# method {}", h.method)?;
        for (i, (name, size)) in h.files.iter().enumerate() {
            match size {
                Some(s) => writeln!(w, "# file {i} {name} size={s}")?,
                None => writeln!(w, "# file {i} {name}")?,
            }
        }
        writeln!(w, "# columns: issue_ns op offset len done_ns file")?;
        Ok(TraceWriter { w })
    }

    pub fn write(&mut self, io: &Io) -> std::io::Result<()> {
        let op = match (io.op, io.fua) {
            (Op::Read, _) => "R",
            (Op::Write, false) => "W",
            (Op::Write, true) => "WF",
            (Op::Flush, _) => "F",
            (Op::Trim, _) => "T",
        };
        match io.done_ns {
            Some(d) => writeln!(
                self.w,
                "{} {op} {} {} {d} {}",
                io.at_ns, io.offset, io.len, io.file
            ),
            None => writeln!(
                self.w,
                "{} {op} {} {} - {}",
                io.at_ns, io.offset, io.len, io.file
            ),
        }
    }

    pub fn finish(mut self) -> std::io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}
