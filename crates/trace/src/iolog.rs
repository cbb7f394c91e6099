//! fio's iologs: v2 (`filename action [offset length]`, time given by `wait` lines) and v3
//! (each line led by its time in µs since the start), read as fio reads them; v3 written so
//! that a trace can go to fio's `read_iolog`.

use crate::{bad, read_line, Io, Names, Op, Source, TraceError, MAX_LEN};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

pub const V2: &str = "fio version 2 iolog";
pub const V3: &str = "fio version 3 iolog";

pub struct Reader<R> {
    r: R,
    path: PathBuf,
    v3: bool,
    line: u64,
    buf: String,
    names: Names,
    /// v2: the time the `wait` lines add up to (ns).
    waited: u64,
    last_at: u64,
}

impl<R: BufRead + Send> Reader<R> {
    pub fn new(mut r: R, path: &Path, v3: bool) -> Result<Self, TraceError> {
        let mut buf = String::new();
        read_line(&mut r, &mut buf, path, 1)?;
        Ok(Reader {
            r,
            path: path.to_path_buf(),
            v3,
            line: 1,
            buf,
            names: Names::default(),
            waited: 0,
            last_at: 0,
        })
    }

    /// One line: Some(io) for an I/O, None for a file action or a wait.
    fn parse(&mut self) -> Result<Option<Io>, String> {
        let mut f = self.buf.split_whitespace();
        let at = if self.v3 {
            let t = f.next().ok_or("an empty line")?;
            let us: u64 = t
                .parse()
                .map_err(|_| format!("time `{t}` is not a whole number of µs"))?;
            us.saturating_mul(1000)
        } else {
            self.waited
        };
        let (Some(name), Some(action)) = (f.next(), f.next()) else {
            return Err("expected `filename action [offset length]`".into());
        };
        let file = self.names.index(name).ok_or("too many files")?;
        let op = match action {
            "add" | "open" | "close" | "unlink" => return Ok(None),
            "read" => Op::Read,
            "write" => Op::Write,
            "trim" => Op::Trim,
            "sync" | "datasync" | "sync_file_range" => Op::Flush,
            "wait" if !self.v3 => Op::Read,
            _ => return Err(format!("action `{action}` is not one of fio's")),
        };
        let mut num = |what: &str| -> Result<u64, String> {
            let s = f.next().unwrap_or("0");
            s.parse()
                .map_err(|_| format!("{what} `{s}` is not a whole number"))
        };
        let (offset, len) = (num("offset")?, num("length")?);
        if action == "wait" {
            // fio discards waits under 100 µs.
            if offset >= 100 {
                self.waited = self.waited.saturating_add(offset.saturating_mul(1000));
            }
            return Ok(None);
        }
        if len > MAX_LEN {
            return Err(format!("an I/O of {len} bytes (at most {MAX_LEN})"));
        }
        if at < self.last_at {
            return Err("times go back: the log is not in issue order".into());
        }
        let len = if op == Op::Flush { 0 } else { len };
        Ok(Some(Io {
            at_ns: at,
            op,
            fua: false,
            file,
            offset: if op == Op::Flush { 0 } else { offset },
            len,
            done_ns: None,
        }))
    }
}

impl<R: BufRead + Send> Source for Reader<R> {
    fn next_io(&mut self) -> Result<Option<Io>, TraceError> {
        loop {
            self.line += 1;
            if read_line(&mut self.r, &mut self.buf, &self.path, self.line)?.is_none() {
                return Ok(None);
            }
            if self.buf.trim().is_empty() {
                continue;
            }
            match self.parse().map_err(|e| bad(&self.path, self.line, e))? {
                Some(io) => {
                    self.last_at = io.at_ns;
                    return Ok(Some(io));
                }
                None => continue,
            }
        }
    }

    fn files(&self) -> &[String] {
        &self.names.names
    }
}

/// Writes fio's iolog v3. Times are shifted by 1 µs: fio takes a time of 0 as "no time
/// yet" and would not wait before the next I/O.
pub struct IologWriter<W: Write> {
    w: W,
    names: Vec<String>,
    last_us: u64,
}

impl<W: Write> IologWriter<W> {
    pub fn new(mut w: W, names: &[String]) -> std::io::Result<Self> {
        writeln!(w, "{V3}")?;
        for n in names {
            writeln!(w, "1 {n} add")?;
        }
        for n in names {
            writeln!(w, "1 {n} open")?;
        }
        Ok(IologWriter {
            w,
            names: names.to_vec(),
            last_us: 1,
        })
    }

    pub fn write(&mut self, io: &Io) -> std::io::Result<()> {
        let us = io.at_ns / 1000 + 1;
        self.last_us = self.last_us.max(us);
        let name = &self.names[io.file as usize];
        match io.op {
            Op::Flush => writeln!(self.w, "{us} {name} sync"),
            op => writeln!(self.w, "{us} {name} {} {} {}", op.name(), io.offset, io.len),
        }
    }

    pub fn finish(mut self) -> std::io::Result<W> {
        for n in &self.names {
            writeln!(self.w, "{} {n} close", self.last_us)?;
        }
        self.w.flush()?;
        Ok(self.w)
    }
}
