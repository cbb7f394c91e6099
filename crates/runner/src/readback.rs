//! The closing read-back of a verifying job (fio's do_verify), and how a failed or short
//! I/O is described, which the job's loop shares.

use crate::bits::Bits;
use crate::data;
use crate::live::JobInput;
use crate::written::Starts;
use engine::{Engine, Op, Request};
use stats::{DirStats, JobStats};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// One line for an I/O the kernel failed (a negative errno) or cut short.
pub(crate) fn describe(res: i64, op: Op, offset: u64, len: u32) -> String {
    let what = match op {
        Op::Read => "read",
        Op::Write => "write",
        Op::Trim => "trim",
    };
    if res < 0 {
        format!(
            "{what} of {len} bytes at offset {offset} failed: {}",
            std::io::Error::from_raw_os_error((-res) as i32)
        )
    } else {
        format!("short {what} at offset {offset}: {res} of {len} bytes")
    }
}

/// What a read-back needs of its job: the job, its depth, where its writes began and ended
/// and what it trimmed (`JobSpec::reads_back_at_end`: a job that only writes one size wrote
/// every block, otherwise `marks.0` says where each write began and ended, and each is read
/// back whole), and when its runtime ends.
pub(crate) struct ReadBack<'a> {
    pub inp: &'a JobInput,
    pub depth: usize,
    pub marks: (Option<&'a Starts>, Option<Trimmed<'a>>),
    pub until: Option<Instant>,
}

impl ReadBack<'_> {
    fn over(&self) -> bool {
        self.inp.stop.load(Relaxed) || self.until.is_some_and(|u| Instant::now() >= u)
    }

    /// fio's do_verify at the job's end: `passes` read-backs of every written block (one per
    /// loop not yet read back), once the runner has read the kernel's counters, so they are
    /// outside the measured figures. The number of blocks checked (0 with no such pass).
    pub(crate) fn closing<E: Engine>(
        &self,
        eng: &mut E,
        out: &mut JobStats,
        passes: u32,
    ) -> Result<u64, String> {
        let spec = &self.inp.spec;
        if !spec.reads_back_at_end() || passes == 0 || self.over() {
            return Ok(0);
        }
        while !self.inp.start.counted.load(Relaxed) && !self.inp.stop.load(Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let mut n = 0;
        for _ in 0..passes {
            n += self.once(eng, out)?;
            if self.over() {
                break;
            }
        }
        Ok(n)
    }

    /// One read-back of every written block (fio's do_verify after a loop): the files synced
    /// and their cached pages dropped first, so it checks what reached the device; it ends
    /// with the job's runtime, as fio's does. Its reads and time add to `out`'s verify
    /// figures, which fio-JSON counts as the job's reads.
    pub(crate) fn once<E: Engine>(&self, eng: &mut E, out: &mut JobStats) -> Result<u64, String> {
        let (inp, spec) = (self.inp, &self.inp.spec);
        let Some(algo) = spec.checking.verify else {
            return Ok(0);
        };
        let t0 = Instant::now();
        if spec.ioengine != workload::EngineKind::Null {
            for (&fd, &(offset, len)) in inp.fds.iter().zip(&inp.regions) {
                crate::target::settle_written(fd, offset, len);
            }
        }
        let pass = Pass {
            regions: &inp.regions,
            bs: spec.unit(),
            starts: self.marks.0,
            depth: self.depth,
            algo,
            pattern: spec.checking.verify_pattern.as_deref(),
            trimmed: self.marks.1,
            until: self.until,
        };
        let n = pass.run(eng, &inp.stop, &mut out.verify);
        out.verify_ns += t0.elapsed().as_nanos() as u64;
        n
    }
}

/// The written blocks of a region in order: every `bs`, or from each start bit to the next.
struct Blocks<'a> {
    start: u64,
    end: u64,
    bs: u64,
    /// Where the written blocks start and end, in blocks of `bs`; None: every `bs` is one.
    marks: Option<(&'a Bits, &'a Bits)>,
    /// The next block's index, in units of `bs`.
    at: u64,
}

impl Iterator for Blocks<'_> {
    type Item = (u64, u32);

    fn next(&mut self) -> Option<(u64, u32)> {
        let n = (self.end - self.start) / self.bs;
        let (b, last) = match self.marks {
            None => (self.at, self.at),
            Some((starts, ends)) => {
                let b = starts.next_set(self.at, n)?;
                (b, ends.next_set(b, n).unwrap_or(n - 1))
            }
        };
        if b >= n {
            return None;
        }
        self.at = last + 1;
        Some((self.start + b * self.bs, ((last + 1 - b) * self.bs) as u32))
    }
}

/// One read-back over every region.
struct Pass<'a> {
    regions: &'a [(u64, u64)],
    bs: u64,
    starts: Option<&'a Starts>,
    depth: usize,
    algo: workload::Verify,
    /// What `verify=pattern` checks (and what lies under a header with `verify_pattern`).
    pattern: Option<&'a [u8]>,
    /// fio's verify-after-trim: the blocks trimmed again, and whether they must read zeros
    /// (else they are not read).
    trimmed: Option<Trimmed<'a>>,
    /// The job's runtime ends here: no further block is read (those in flight complete).
    until: Option<Instant>,
}

/// The blocks a job trimmed after writing them, and `trim_verify_zero`.
pub(crate) type Trimmed<'a> = (&'a HashSet<(u32, u64)>, bool);

impl Pass<'_> {
    /// Reads every block of every region in order, `depth` at a time, and checks each.
    fn run<E: Engine>(
        &self,
        eng: &mut E,
        stop: &AtomicBool,
        st: &mut DirStats,
    ) -> Result<u64, String> {
        let mut checked = 0;
        for (f, &(start, len)) in self.regions.iter().enumerate() {
            let mut blocks = Blocks {
                start,
                end: start + len,
                bs: self.bs,
                marks: self.starts.map(|s| (&s.starts[f], &s.ends[f])),
                at: 0,
            };
            checked += self.region(eng, f as u32, &mut blocks, stop, st)?;
        }
        Ok(checked)
    }

    /// A trimmed block whose zeros are not checked (trim_verify_zero=0) is not read back.
    fn skips(&self, file: u32, offset: u64) -> bool {
        self.trimmed
            .is_some_and(|(t, zero)| !zero && t.contains(&(file, offset)))
    }

    /// A block read back: a trimmed one reads as zeros, any other holds what was written.
    fn check(&self, buf: &[u8], file: u32, off: u64) -> Result<(), String> {
        match self.trimmed.is_some_and(|(t, _)| t.contains(&(file, off))) {
            true if buf.iter().any(|&b| b != 0) => Err(format!(
                "trim: the block at offset {off} was trimmed but does not read as \
                 zeros (the device keeps discarded data; trim_verify_zero=0 skips it)"
            )),
            true => Ok(()),
            false => data::verify_block(buf, off, self.algo, self.pattern),
        }
    }

    fn region<E: Engine>(
        &self,
        eng: &mut E,
        file: u32,
        blocks: &mut Blocks,
        stop: &AtomicBool,
        st: &mut DirStats,
    ) -> Result<u64, String> {
        let mut comps = Vec::with_capacity(self.depth);
        let mut slots = vec![(0u64, 0u32, Instant::now()); self.depth];
        let mut free: Vec<u32> = (0..self.depth as u32).collect();
        let (mut in_flight, mut checked, mut more) = (0, 0, true);
        while (more || in_flight > 0) && !stop.load(Relaxed) {
            let mut pushed = false;
            if self.until.is_some_and(|u| Instant::now() >= u) {
                more = false;
            }
            while let Some(&slot) = free.last().filter(|_| more) {
                let Some((offset, len)) = blocks.next() else {
                    more = false;
                    break;
                };
                if self.skips(file, offset) {
                    continue;
                }
                slots[slot as usize] = (offset, len, Instant::now());
                let req = Request {
                    op: Op::Read,
                    file,
                    offset,
                    len,
                    slot,
                    ioprio: 0,
                };
                eng.push(req).map_err(|e| e.to_string())?;
                free.pop();
                (in_flight, pushed) = (in_flight + 1, true);
            }
            if pushed {
                eng.submit().map_err(|e| e.to_string())?;
            }
            eng.reap(1, &mut comps).map_err(|e| e.to_string())?;
            for c in &comps {
                let (off, len, at) = slots[c.slot as usize];
                let ns = at.elapsed().as_nanos() as u64;
                (st.ios, st.bytes) = (st.ios + 1, st.bytes + len as u64);
                st.clat.record(ns);
                st.lat.record(ns);
                free.push(c.slot);
                in_flight -= 1;
                if c.result != len as i64 {
                    return Err(describe(c.result, Op::Read, off, len));
                }
                self.check(&eng.slot(c.slot)[..len as usize], file, off)?;
                checked += 1;
            }
        }
        Ok(checked)
    }
}
