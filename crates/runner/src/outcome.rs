//! An I/O's result judged: the data a verified read brings back checked, and a failed I/O
//! either counted and carried past (fio's continue_on_error classes) or the job's end.

use crate::data;
use crate::job::Job;
use crate::queue::Meta;
use crate::readback::describe;
use engine::{Completion, Engine, Op};
use std::sync::atomic::Ordering::Relaxed;

impl<'a, E: Engine> Job<'a, E> {
    /// A failed completion: counted and carried past (`continue_on_error`), the end of a
    /// `fill_fs` job (ENOSPC, EDQUOT), or the job's error.
    #[cold]
    pub(crate) fn failed(&mut self, m: &Meta, c: Completion, e: String) {
        let full = [libc::ENOSPC, libc::EDQUOT].map(|n| -(n as i64));
        if let Some(errno) = self.carry_on(m, c) {
            self.stats.errors.note(errno, usize::from(m.op != Op::Read));
        } else if self.inp.spec.files.fill_fs && full.contains(&c.result) {
            self.full = true;
            self.inp.live.halt.store(true, Relaxed);
        } else {
            self.error.get_or_insert(e);
        }
    }

    /// fio's td_non_fatal_error: the errno of a failure that `continue_on_error` carries on
    /// past (EIO on a read or write, a verify mismatch as EILSEQ), none for any other.
    #[cold]
    pub(crate) fn carry_on(&self, m: &Meta, c: Completion) -> Option<i32> {
        let spec = &self.inp.spec;
        let (kind, errno) = match c.result {
            r if r == m.len as i64 => (2, libc::EILSEQ),
            r if r < 0 => (usize::from(m.op == Op::Write), (-r) as i32),
            _ => return None,
        };
        // EILSEQ from the device is a verify error too, as in fio's td_error_type.
        let kind = if errno == libc::EILSEQ { 2 } else { kind };
        let listed = &spec.errors.ignore_error[kind];
        let carried = match listed.is_empty() {
            true => errno == libc::EIO || errno == libc::EILSEQ,
            false => listed.contains(&errno),
        };
        (spec.errors.continue_on_error & (1 << kind) != 0 && carried).then_some(errno)
    }

    /// A completion's result: the whole length moved, and for a read of a verifying job, the
    /// header it carries. Formats only on the error path.
    #[inline]
    pub(crate) fn check(&mut self, m: &Meta, c: Completion) -> Result<(), String> {
        if c.result != m.len as i64 {
            return Err(describe(c.result, m.op, m.offset, m.len));
        }
        if let (Some(algo), true) = (self.inp.spec.checking.verify, m.verify) {
            let buf = &self.eng.slot(c.slot)[..m.len as usize];
            let pattern = self.inp.spec.checking.verify_pattern.as_deref();
            data::verify_block(buf, m.offset, algo, pattern)
                .map_err(|e| format!("verify failed: {e}"))?;
        }
        Ok(())
    }
}
