//! Engines whose every I/O is one system call made inside `push` (fio's falloc, ftruncate and
//! e4defrag): the queue, buffers and completions are the same for each; only the call differs.

use crate::{sync_fd, Completion, Engine, EngineConfig, EngineError, Request, SlotBuffers};
use std::os::fd::RawFd;

/// One engine's system call for a request on `fd`: the bytes it covered, or a negative errno.
pub trait Call: Send {
    fn name(&self) -> &'static str;
    fn call(&self, fd: RawFd, req: &Request) -> i64;
}

/// A synchronous engine made of a [`Call`].
pub struct Calls<C> {
    call: C,
    fds: Vec<RawFd>,
    bufs: SlotBuffers,
    done: Vec<Completion>,
}

impl<C: Call> Calls<C> {
    pub fn new(cfg: &EngineConfig, call: C) -> Calls<C> {
        Calls {
            call,
            fds: cfg.fds.clone(),
            bufs: SlotBuffers::new(cfg.depth as usize, cfg.slot_size, cfg.align),
            done: Vec::with_capacity(cfg.depth as usize),
        }
    }
}

impl<C: Call> Engine for Calls<C> {
    fn name(&self) -> &'static str {
        self.call.name()
    }

    fn push(&mut self, req: Request) -> Result<(), EngineError> {
        let result = self.call.call(self.fds[req.file as usize], &req);
        self.done.push(Completion {
            slot: req.slot,
            result,
        });
        Ok(())
    }

    fn submit(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    fn reap(&mut self, _min: usize, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        out.clear();
        out.append(&mut self.done);
        Ok(())
    }

    fn slot(&mut self, slot: u32) -> &mut [u8] {
        self.bufs.slot(slot)
    }

    fn sync(&mut self, file: u32, datasync: bool) -> std::io::Result<()> {
        sync_fd(self.fds[file as usize], datasync)
    }

    fn is_sync(&self) -> bool {
        true
    }
}
