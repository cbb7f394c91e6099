//! A job's passes over its files (fio's loops, and a time-based job starting over): at each
//! pass's end, fio's cache drop, unlink_each_loop and per-loop verify, and before the closing
//! read-back the files synced and dropped (fio's do_verify).

use crate::job::Job;
use crate::target::{drop_cached, recreate, settle_written};
use engine::Engine;
use std::time::Duration;

impl<'a, E: Engine> Job<'a, E> {
    /// A pass is over, or the verify backlog's closing read-back is about to start.
    #[inline]
    pub(crate) fn pass_due(&self) -> bool {
        self.settle || self.passes.as_ref().is_some_and(|p| p.due)
    }

    /// A pass is over and its I/O reaped: drop the files' cached pages before the next; before
    /// the closing read-back, sync them first (fio's do_verify).
    #[cold]
    pub(crate) fn new_pass(&mut self) {
        if self.passes.as_ref().is_some_and(|p| p.verify) && !self.settle {
            self.verify_loop();
        }
        let (drop, unlink) = match &self.passes {
            Some(p) if !self.settle => (p.drop, p.unlink),
            _ => (true, false),
        };
        for (&fd, &(offset, len)) in self.inp.fds.iter().zip(&self.inp.regions) {
            match self.settle {
                true => settle_written(fd, offset, len),
                false if drop => drop_cached(fd, offset, len),
                false => {}
            }
        }
        if unlink {
            self.recreate_files();
        }
        self.settle = false;
        if let Some(p) = &mut self.passes {
            p.due = false;
        }
    }

    /// fio's do_verify after a loop of writes: the loop's blocks read back and checked before
    /// the next loop starts, inside the job's runtime. The writes' time leaves it out.
    #[cold]
    pub(crate) fn verify_loop(&mut self) {
        self.loops_read_back += 1;
        if let Err(e) = self.read_back(None, self.clock.deadline) {
            self.error = Some(format!("verify failed: {e}"));
        }
    }

    /// Read-backs of the written blocks ending at `deadline` (the job's clock): one between
    /// loops (`closing` None), or the job's closing ones (one per loop not yet read back);
    /// the blocks checked.
    pub(crate) fn read_back(
        &mut self,
        closing: Option<u32>,
        deadline: Option<u64>,
    ) -> Result<u64, String> {
        let rb = crate::readback::ReadBack {
            inp: self.inp,
            depth: self.q.depth,
            marks: (
                self.picker.starts.as_ref(),
                self.trimback.as_ref().map(|t| (&t.done, t.zero)),
            ),
            until: deadline.map(|d| self.clock.base + Duration::from_nanos(d)),
        };
        match closing {
            None => rb.once(&mut self.eng, &mut self.stats),
            Some(passes) => rb.closing(&mut self.eng, &mut self.stats, passes),
        }
    }

    /// unlink_each_loop: every file deleted and created afresh; a failure ends the job with
    /// its errno, as fio's open failure does.
    #[cold]
    pub(crate) fn recreate_files(&mut self) {
        let creates = self.inp.spec.rw.writes();
        for (i, (&fd, path)) in self.inp.fds.iter().zip(&self.inp.paths).enumerate() {
            let done = recreate(fd, path, creates).and_then(|()| self.eng.reopened(i as u32));
            if let Err(e) = done {
                self.error = Some(format!("unlink_each_loop: cannot recreate {path}: {e}"));
                return;
            }
        }
    }
}
