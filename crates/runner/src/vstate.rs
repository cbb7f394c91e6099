//! fio's verify state: a verifying write job writes down how many writes it issued and which
//! of the last `iodepth` completed (`verify_state_save`), so that a later verify of the same
//! job (`verify_only` with `verify_state_load`, after a crash, a kill or a power cut) checks
//! only what had completed and stops at the first write that had not, as fio's
//! verify_state_should_stop does: every write more than `iodepth` before the last one issued
//! had completed; inside that window only those listed had.
//!
//! With fio 3.42's `verify_policy=fsynced` the state covers only the writes issued before the
//! last fsync that completed: what a crash cannot have lost.
//!
//! The file is fio's name (`local-JOB-N-verify.state`, in the working directory) and
//! volbench's own JSON; fio's binary state cannot be read (nor fio's block format).

use serde::{Deserialize, Serialize};
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;

/// Where job `name`'s clone `clone` keeps its state, as fio names it.
pub(crate) fn path(name: &str, clone: u32) -> PathBuf {
    PathBuf::from(format!("local-{name}-{clone}-verify.state"))
}

#[derive(Serialize, Deserialize)]
struct State {
    /// The format's name, so another file is refused in one line.
    volbench_verify_state: u32,
    /// Writes issued, in the job's order.
    writes: u64,
    /// The job's depth: how many writes could be in flight at once.
    depth: u64,
    /// `(file, offset)` of the last `depth` writes to complete.
    completed: Vec<(u32, u64)>,
}

/// A write job's record, kept as it runs.
pub(crate) struct Recorder {
    writes: u64,
    depth: usize,
    last: VecDeque<(u32, u64)>,
    /// `verify_policy=fsynced`: the state covers only `synced`, the writes issued before
    /// the last fsync that completed (0 until one has).
    fsynced: bool,
    synced: u64,
}

impl Recorder {
    pub fn new(depth: u32, fsynced: bool) -> Recorder {
        Recorder {
            writes: 0,
            depth: depth.max(1) as usize,
            last: VecDeque::with_capacity(depth.max(1) as usize),
            fsynced,
            synced: 0,
        }
    }
    /// An fsync completed. The job issues one only once every write before it has completed
    /// and issues none while it runs, so the writes issued so far are those it covered (fio
    /// takes its threshold at the fsync's submission for the same reason).
    pub fn synced(&mut self) {
        self.synced = self.writes;
    }
    pub fn issued(&mut self) {
        self.writes += 1;
    }
    pub fn completed(&mut self, file: u32, offset: u64) {
        if self.last.len() == self.depth {
            self.last.pop_front();
        }
        self.last.push_back((file, offset));
    }
    /// Writes the state file; an error names it.
    pub fn save(&self, name: &str, clone: u32) -> Result<(), String> {
        let s = match self.fsynced {
            // Every write before the threshold had completed: no window of doubt.
            true => State {
                volbench_verify_state: 1,
                writes: self.synced,
                depth: 0,
                completed: Vec::new(),
            },
            false => State {
                volbench_verify_state: 1,
                writes: self.writes,
                depth: self.depth as u64,
                completed: self.last.iter().copied().collect(),
            },
        };
        let p = path(name, clone);
        let text = serde_json::to_string(&s).map_err(|e| e.to_string())?;
        let mut f = outfile::Opener::log("verify_state_save")
            .open(&p)
            .map_err(|e| e.to_string())?;
        std::io::Write::write_all(&mut f, text.as_bytes())
            .map_err(|e| format!("verify_state_save: cannot write {}: {e}", p.display()))
    }
}

/// A verify job's limit, read from the write job's state.
pub(crate) struct Limit {
    writes: u64,
    depth: u64,
    completed: HashSet<(u32, u64)>,
    reads: u64,
}

impl Limit {
    /// The state of job `name`'s clone `clone`; an error names the file and the fix.
    pub fn load(name: &str, clone: u32) -> Result<Limit, String> {
        let p = path(name, clone);
        let fail = |why: String| {
            format!(
                "verify_state_load: {}: {why} (run the write job with verify_state_save=1 first, \
                 under the same job name, in this directory)",
                p.display()
            )
        };
        let meta = std::fs::metadata(&p).map_err(|e| fail(e.to_string()))?;
        if meta.len() > 16 << 20 {
            return Err(fail("over 16 MiB: not a verify state".into()));
        }
        let text = std::fs::read_to_string(&p).map_err(|e| fail(e.to_string()))?;
        let s: State = serde_json::from_str(&text).map_err(|_| {
            fail("not volbench's verify state (fio's binary state cannot be read)".into())
        })?;
        Ok(Limit {
            writes: s.writes,
            depth: s.depth,
            completed: s.completed.into_iter().collect(),
            reads: 0,
        })
    }

    /// Whether the verify job's next read, of `(file, offset)`, checks a write that had
    /// completed (fio's rule); false ends the job.
    pub fn allows(&mut self, file: u32, offset: u64) -> bool {
        let k = self.reads;
        self.reads += 1;
        let (n, d) = (self.writes, self.depth);
        if (k < d || n.saturating_sub(k) > d) && n > d {
            return true;
        }
        self.completed.contains(&(file, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verify_stops_at_the_first_write_that_had_not_completed() {
        // 10 writes at depth 2: 0..8 certainly done; of 8 and 9, only 8's completed.
        let mut l = Limit {
            writes: 10,
            depth: 2,
            completed: [(0, 7 << 12), (0, 8 << 12)].into_iter().collect(),
            reads: 0,
        };
        let ok: Vec<bool> = (0..10).map(|i| l.allows(0, i << 12)).collect();
        assert_eq!(ok[..9], [true; 9]);
        assert!(!ok[9], "write 9 was in flight");
    }
}
