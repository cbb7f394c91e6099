//! fio's write_iolog: every I/O a job issues, with its time, written as fio's iolog v3.

use crate::live::JobInput;
use crate::pick::Next;
use engine::Op;

pub(crate) type Iolog = trace::IologWriter<std::io::BufWriter<std::fs::File>>;

/// Opens the job's `write_iolog` (None without one; the error ends the job).
pub(crate) fn open_iolog(inp: &JobInput) -> Result<Option<Iolog>, String> {
    let Some(p) = &inp.spec.reporting.write_iolog else {
        return Ok(None);
    };
    let f = outfile::Opener::log("write_iolog")
        .open(p)
        .map_err(|e| e.to_string())?;
    let w = std::io::BufWriter::with_capacity(1 << 20, f);
    trace::IologWriter::new(w, &inp.paths)
        .map(Some)
        .map_err(|e| format!("write_iolog {}: {e}", p.display()))
}

/// One line of the job's write_iolog: the I/O and when it was issued (µs into the job).
pub(crate) fn log_issue(w: &mut Iolog, n: &Next, at: u64, error: &mut Option<String>) {
    let io = trace::Io {
        at_ns: at,
        op: match n.op {
            Op::Read => trace::Op::Read,
            Op::Write => trace::Op::Write,
            Op::Trim => trace::Op::Trim,
        },
        fua: false,
        file: n.file,
        offset: n.offset,
        len: n.len as u64,
        done_ns: None,
    };
    if let Err(e) = w.write(&io) {
        error.get_or_insert(format!("write_iolog: {e}"));
    }
}
