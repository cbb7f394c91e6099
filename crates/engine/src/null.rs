//! The null engine: completes every request at once without touching a file.
//!
//! Tests use it to check the runner and statistics deterministically, and it measures the
//! tool's own per-I/O cost: whatever IOPS it reaches is volbench's ceiling on this CPU.

use crate::{Completion, Engine, EngineConfig, EngineError, Request, SlotBuffers};

pub struct Null {
    bufs: SlotBuffers,
    queued: Vec<Completion>,
    done: Vec<Completion>,
}

impl Null {
    pub fn new(cfg: &EngineConfig) -> Null {
        Null {
            bufs: SlotBuffers::new(cfg.depth as usize, cfg.slot_size, cfg.align),
            queued: Vec::with_capacity(cfg.depth as usize),
            done: Vec::with_capacity(cfg.depth as usize),
        }
    }
}

impl Engine for Null {
    fn name(&self) -> &'static str {
        "null"
    }
    fn push(&mut self, req: Request) -> Result<(), EngineError> {
        self.queued.push(Completion {
            slot: req.slot,
            result: req.len as i64,
        });
        Ok(())
    }
    fn submit(&mut self) -> Result<(), EngineError> {
        self.done.append(&mut self.queued);
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
    fn sync(&mut self, _file: u32, _datasync: bool) -> std::io::Result<()> {
        Ok(())
    }
}
