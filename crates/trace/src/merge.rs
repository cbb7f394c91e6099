//! fio's `merge_blktrace_file`: several blktrace traces merged into one, in time order, each
//! trace's times scaled (`merge_blktrace_scalars`, percent) and each repeated
//! (`merge_blktrace_iters`), a repeat starting where the trace's last I/O was, as fio's
//! merge_blktrace_iologs does: `t' = (t + iteration · length) · scalar / 100`. The merged
//! trace is written as blktrace's binary (queue events) at the path given.
//!
//! Streams: one I/O per input is held, whatever the traces' sizes.

use crate::{blktrace, open, Format, Io, Reader, TraceError};
use std::path::{Path, PathBuf};
use workload::fio::table::names;

/// One input: its reader and where it is in its repeats.
struct Cursor {
    path: PathBuf,
    reader: Reader,
    iter: u32,
    iters: u32,
    scalar: u64,
    /// The last I/O's time of the first pass: a repeat's offset.
    length: u64,
    last: u64,
    next: Option<Io>,
}

impl Cursor {
    /// The input's next I/O with its merged time and its device's number, reopening the
    /// input for a repeat.
    fn advance(&mut self) -> Result<(), TraceError> {
        loop {
            if let Some(mut io) = self.reader.next_io()? {
                self.last = io.at_ns;
                io.at_ns = self.scaled(io.at_ns);
                io.done_ns = io.done_ns.map(|d| self.scaled(d));
                io.file = self.device(io.file);
                self.next = Some(io);
                return Ok(());
            }
            if self.iter == 0 {
                self.length = self.last;
            }
            self.iter += 1;
            if self.iter >= self.iters {
                self.next = None;
                return Ok(());
            }
            self.reader = open(&self.path)?;
        }
    }

    /// fio's merged time of `t` in this repeat: `(t + iteration · length) · scalar / 100`.
    fn scaled(&self, t: u64) -> u64 {
        (t + u64::from(self.iter) * self.length) * self.scalar / 100
    }

    /// The number (the kernel's dev_t) of this input's device `i`, from its `major,minor`
    /// name: the writer, given no device list, records it as is.
    fn device(&self, i: u32) -> u32 {
        let names = self.reader.files();
        let dev = names.get(i as usize).and_then(|n| {
            let (a, b) = n.split_once(',')?;
            Some((a.parse::<u32>().ok()? << 20) | b.parse::<u32>().ok()?)
        });
        dev.unwrap_or(i)
    }
}

/// Merges the blktrace traces `inputs` into `out` (scalars in percent, 100 when empty; iters,
/// 1 when empty; each list empty or one per input). The I/Os written.
pub fn merge(
    inputs: &[PathBuf],
    scalars: &[u32],
    iters: &[u32],
    out: &Path,
) -> Result<u64, TraceError> {
    let per = |v: &[u32], what: &str| -> Result<(), TraceError> {
        match v.is_empty() || v.len() == inputs.len() {
            true => Ok(()),
            false => Err(TraceError::Other(format!(
                "{what} gives {} values for {} traces: give one per trace in read_iolog",
                v.len(),
                inputs.len()
            ))),
        }
    };
    per(scalars, names::MERGE_BLKTRACE_SCALARS)?;
    per(iters, names::MERGE_BLKTRACE_ITERS)?;
    let mut cursors = Vec::with_capacity(inputs.len());
    for (k, p) in inputs.iter().enumerate() {
        let reader = open(p)?;
        if reader.format != Format::Blktrace {
            return Err(TraceError::Other(format!(
                "{}: not a blktrace trace (merge_blktrace_file merges blktrace's binary files)",
                p.display()
            )));
        }
        let mut c = Cursor {
            path: p.clone(),
            reader,
            iter: 0,
            iters: iters.get(k).copied().unwrap_or(1).max(1),
            scalar: u64::from(scalars.get(k).copied().unwrap_or(100)),
            length: 0,
            last: 0,
            next: None,
        };
        c.advance()?;
        cursors.push(c);
    }
    write_merged(&mut cursors, out)
}

/// Writes the cursors' I/Os, earliest first, to `out` (one blktrace file, via a scratch
/// base renamed into place).
fn write_merged(cursors: &mut [Cursor], out: &Path) -> Result<u64, TraceError> {
    let io_err = |p: &Path| {
        let path = p.display().to_string();
        move |source| TraceError::Io { path, source }
    };
    let mut base = out.as_os_str().to_owned();
    base.push(".merging");
    let base = PathBuf::from(base);
    let mut w = blktrace::BlktraceWriter::create(&base, 1, &[]).map_err(io_err(out))?;
    let mut n = 0u64;
    while let Some(c) = cursors
        .iter_mut()
        .filter(|c| c.next.is_some())
        .min_by_key(|c| c.next.map_or(u64::MAX, |io| io.at_ns))
    {
        let io = c.next.take().expect("filtered on next");
        w.write(&io).map_err(io_err(out))?;
        n += 1;
        c.advance()?;
    }
    w.finish().map_err(io_err(out))?;
    let mut part = base.into_os_string();
    part.push(".blktrace.0");
    std::fs::rename(&part, out).map_err(io_err(out))?;
    Ok(n)
}
