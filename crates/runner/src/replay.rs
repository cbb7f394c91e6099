//! A job that replays a trace: before the run, one pass over the trace sizes the job (its
//! largest I/O, its deepest queue, how far it reaches); during it, [`Feed`] hands the picker
//! each I/O with its due time, its file mapped to one of the job's and its offset into it.

use crate::error::RunError;
use crate::next::Next;
use crate::pace::NOT_DUE;
use std::path::Path;
use trace::{Io, Op, Summary};
use workload::replay::{Replay, SKIP_READ, SKIP_SYNC, SKIP_TRIM, SKIP_WRITE};
use workload::{JobSpec, Rw, Workload};

/// Sizes each replaying job from its trace; returns the workload to run and each spec's
/// trace summary (None for a job that does not replay).
pub fn prepare(w: &Workload) -> Result<(Workload, Vec<Option<Summary>>), RunError> {
    let mut w = w.clone();
    let mut sums = Vec::with_capacity(w.jobs.len());
    for spec in &mut w.jobs {
        sums.push(prepare_job(spec)?);
    }
    Ok((w, sums))
}

/// fio's merge_blktrace_file: `read_iolog`'s traces (`A:B:...`) merged into that file, which
/// the job then replays.
fn merge(spec: &mut JobSpec) -> Result<(), RunError> {
    let (Some(out), Some(list)) = (spec.replay.merge.clone(), spec.replay.read_iolog.clone())
    else {
        return Ok(());
    };
    let inputs: Vec<std::path::PathBuf> = list
        .to_string_lossy()
        .split(':')
        .filter(|s| !s.is_empty())
        .map(Into::into)
        .collect();
    let r = &spec.replay;
    trace::merge(&inputs, &r.merge_scalars, &r.merge_iters, &out)
        .map_err(|e| fail(format!("merge_blktrace_file: {e}")))?;
    spec.replay.read_iolog = Some(out);
    Ok(())
}

fn fail(s: impl Into<String>) -> RunError {
    RunError::Replay(s.into())
}

fn prepare_job(spec: &mut JobSpec) -> Result<Option<Summary>, RunError> {
    merge(spec)?;
    let Some(path) = spec.replay.read_iolog.clone() else {
        return Ok(None);
    };
    if spec.numjobs > 1 {
        return Err(fail(
            "a replaying job runs once (numjobs=1): a trace is one stream of I/O in order",
        ));
    }
    let reader = trace::open(&path).map_err(|e| fail(e.to_string()))?;
    let sum = trace::summarize(reader).map_err(|e| fail(e.to_string()))?;
    if sum.total() == 0 {
        return Err(fail(format!("{}: the trace holds no I/O", path.display())));
    }
    if let (Some(r), true) = (&spec.replay.redirect, spec.filename.is_empty()) {
        spec.filename = vec![r.clone()];
    }
    if spec.filename.is_empty() {
        return Err(fail(
            "a replay needs its target: --filename (or replay_redirect) names the file or \
             device the trace's I/O goes to",
        ));
    }
    // Every traced size fits a slot; the trace sets the depth where it says what it was.
    let largest = sum.max_len.max(512).next_multiple_of(4096);
    spec.bs = spec.bs.max(largest);
    // The trace's own depth when asked (`volbench replay` without --iodepth); at fio's
    // default depth of 1 a deeper trace would go one I/O at a time, so it gets it too.
    if let Some(d) = sum
        .max_depth
        .filter(|_| spec.replay.trace_depth || spec.iodepth == 1)
    {
        spec.iodepth = d;
    }
    // The direction decides how the targets open and whether the safety rules for writes
    // apply: it is the trace's, whatever rw says.
    let (reads, writes) = (sum.ios[0] > 0, sum.ios[1] > 0 || sum.ios[2] > 0);
    spec.rw = match (reads, writes) {
        (true, true) => Rw::RandRw,
        (false, true) => Rw::RandWrite,
        _ => Rw::RandRead,
    };
    spec.time_based = false;
    // A pass is the trace's bytes: the progress's fraction, and loops' cache drops.
    spec.region.io_size = Some((sum.bytes[0] + sum.bytes[1]).max(1));
    if !spec.replay.wrap {
        fits(spec, &sum)?;
    }
    Ok(Some(sum))
}

/// Refuses a trace that reaches past its target (a device, or the size given), and sizes
/// the files volbench lays out to hold it.
fn fits(spec: &mut JobSpec, sum: &Summary) -> Result<(), RunError> {
    let reach = mapped_reach(&spec.replay, sum);
    let devices: Vec<(String, u64)> = spec
        .filename
        .iter()
        .filter_map(|p| {
            let m = std::fs::metadata(p).ok()?;
            crate::probe::device_bytes(&m).map(|s| (p.display().to_string(), s))
        })
        .collect();
    let room = devices
        .iter()
        .map(|d| d.1)
        .chain(spec.size)
        .min()
        .map(|r| r.saturating_sub(spec.region.offset));
    if let Some(room) = room.filter(|&r| r < reach) {
        return Err(fail(format!(
            "the trace reaches {} into its target, which has {}: replay on a larger target, \
             shrink the offsets (replay_scale), or wrap them into it (--wrap)",
            workload::format_bytes(reach as f64),
            workload::format_bytes(room as f64)
        )));
    }
    if spec.size.is_none() && devices.is_empty() {
        spec.size = Some(reach.next_multiple_of(1 << 20));
    }
    Ok(())
}

/// How far into a target the trace reaches once its offsets are scaled and aligned. `end`
/// already holds each I/O's length (it is the furthest offset + length), so unscaled it is
/// the reach itself; scaled down, an I/O of `len` ending there starts at most at
/// (end - len) / scale and ends `len` later, which grows with `len`: the largest bounds it.
fn mapped_reach(r: &Replay, s: &Summary) -> u64 {
    let end = s.extent.iter().copied().max().unwrap_or(0);
    end.saturating_sub(s.max_len) / r.scale.max(1) + s.max_len.min(end)
}

/// What the picker issues next: an I/O as any pattern's, a flush, or the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item {
    Io(Next),
    Sync { file: u32, due: u64 },
    End,
}

impl Item {
    /// When it is due (NOT_DUE at max speed); None for the end.
    pub fn due(&self) -> Option<u64> {
        match self {
            Item::Io(n) => Some(n.due),
            Item::Sync { due, .. } => Some(*due),
            Item::End => None,
        }
    }
}

/// Counts a replay reports besides its I/Os.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Trims in the trace, not replayed (the engines issue no discards).
    pub trims: u64,
    /// I/Os left out by `replay_skip`.
    pub skipped: u64,
    /// I/Os whose offset wrapped into the target.
    pub wrapped: u64,
    pub syncs: u64,
}

/// The trace as the job replays it.
pub struct Feed {
    reader: trace::Reader,
    r: Replay,
    /// Each trace file's job file, resolved on first sight; the job's file paths.
    files: Vec<Option<u32>>,
    paths: Vec<String>,
    regions: Vec<(u64, u64)>,
    first_at: Option<u64>,
    /// Added to every due time: the earlier loops' length.
    base: u64,
    last_due: u64,
    loops_left: u32,
    next: Option<Item>,
    pub counts: Counts,
}

impl Feed {
    pub fn open(spec: &JobSpec, paths: &[String], regions: &[(u64, u64)]) -> Result<Feed, String> {
        let path = spec.replay.read_iolog.as_deref().unwrap_or(Path::new(""));
        Ok(Feed {
            reader: trace::open(path).map_err(|e| e.to_string())?,
            r: spec.replay.clone(),
            files: Vec::new(),
            paths: paths.to_vec(),
            regions: regions.to_vec(),
            first_at: None,
            base: 0,
            last_due: 0,
            loops_left: spec.region.loops.max(1),
            next: None,
            counts: Counts::default(),
        })
    }

    /// Replays without the trace's times (`replay_no_stall`).
    pub fn no_stall(&self) -> bool {
        self.r.no_stall
    }

    /// The next item, read once and kept until [`Feed::take`].
    pub fn peek(&mut self) -> Result<Item, String> {
        if let Some(i) = self.next {
            return Ok(i);
        }
        let i = self.read()?;
        self.next = Some(i);
        Ok(i)
    }

    pub fn take(&mut self) {
        self.next = None;
    }

    fn read(&mut self) -> Result<Item, String> {
        loop {
            let Some(io) = self.reader.next_io().map_err(|e| e.to_string())? else {
                if !self.again()? {
                    return Ok(Item::End);
                }
                continue;
            };
            if let Some(item) = self.item(&io)? {
                return Ok(item);
            }
        }
    }

    /// The trace is over: the next loop, if `loops` asks for one, starts where it ended.
    fn again(&mut self) -> Result<bool, String> {
        self.loops_left = self.loops_left.saturating_sub(1);
        if self.loops_left == 0 {
            return Ok(false);
        }
        let path = self.reader.path.clone();
        self.reader = trace::open(&path).map_err(|e| e.to_string())?;
        self.base = self.last_due;
        self.first_at = None;
        Ok(true)
    }

    /// One traced I/O as the job issues it; None for one left out.
    fn item(&mut self, io: &Io) -> Result<Option<Item>, String> {
        let first = *self.first_at.get_or_insert(io.at_ns);
        let due = if self.r.no_stall {
            NOT_DUE
        } else {
            let scaled = (io.at_ns - first) as u128 * 100 / self.r.time_scale.max(1) as u128;
            self.base + scaled as u64
        };
        if due != NOT_DUE {
            self.last_due = due;
        }
        let skip = match io.op {
            Op::Read => SKIP_READ,
            Op::Write => SKIP_WRITE,
            Op::Trim => SKIP_TRIM,
            Op::Flush => SKIP_SYNC,
        };
        if self.r.skip & skip != 0 {
            self.counts.skipped += 1;
            return Ok(None);
        }
        let file = self.file(io.file)?;
        match io.op {
            Op::Trim => {
                self.counts.trims += 1;
                Ok(None)
            }
            Op::Flush => {
                self.counts.syncs += 1;
                Ok(Some(Item::Sync { file, due }))
            }
            Op::Read | Op::Write => {
                let offset = self.offset(file, io.offset, io.len)?;
                let (op, dir) = match io.op {
                    Op::Read => (engine::Op::Read, 0),
                    _ => (engine::Op::Write, 1),
                };
                Ok(Some(Item::Io(Next {
                    op,
                    dir,
                    len: io.len as u32,
                    file,
                    offset,
                    back: false,
                    due,
                })))
            }
        }
    }

    /// The job file a trace file goes to: `--map SRC=DST`, then the redirect or the job's
    /// only file, then the job's file of the same name.
    fn file(&mut self, f: u32) -> Result<u32, String> {
        if let Some(Some(j)) = self.files.get(f as usize) {
            return Ok(*j);
        }
        let name = self.reader.files()[f as usize].clone();
        let by_path = |p: &Path| self.paths.iter().position(|x| Path::new(x) == p);
        let mapped = self.r.map.iter().find(|(src, _)| *src == name);
        let j = match mapped {
            Some((_, dst)) => by_path(dst),
            None if self.r.redirect.is_some() || self.paths.len() == 1 => Some(0),
            None => by_path(Path::new(&name)),
        };
        let j = j.ok_or_else(|| {
            format!(
                "the trace's {name} has no target among {}: map it with --map {name}=TARGET",
                self.paths.join(", ")
            )
        })? as u32;
        if self.files.len() <= f as usize {
            self.files.resize(f as usize + 1, None);
        }
        self.files[f as usize] = Some(j);
        Ok(j)
    }

    /// The traced offset scaled, aligned and placed in the file's region; wrapped into it
    /// with `wrap`, else refused when it reaches past the end.
    fn offset(&mut self, file: u32, offset: u64, len: u64) -> Result<u64, String> {
        let (start, region) = self.regions[file as usize];
        let mut o = offset / self.r.scale.max(1);
        if self.r.align > 0 {
            o &= !(self.r.align - 1);
        }
        if o + len > region {
            if !self.r.wrap || len > region {
                return Err(format!(
                    "the trace reaches {} into {}, past its {} bytes: replay on a larger \
                     target, shrink the offsets (replay_scale), or wrap them (--wrap)",
                    o + len,
                    self.paths[file as usize],
                    region
                ));
            }
            let room = region - len + 1;
            o = (o % room) & !511;
            self.counts.wrapped += 1;
        }
        Ok(start + o)
    }
}

/// The replay section of a job's report, from the trace's summary and what the job measured.
pub fn report(
    spec: &JobSpec,
    sum: &Summary,
    counts: Counts,
    st: &stats::JobStats,
) -> report::ReplayReport {
    let r = &spec.replay;
    let loops = spec.region.loops.max(1);
    let scale = r.time_scale.max(1) as u128;
    let trace_ns = (sum.end_ns as u128 * 100 / scale) as u64 * loops as u64;
    let speed = match (r.no_stall, r.time_scale) {
        (true, _) => "max".to_string(),
        (false, s) if s % 100 == 0 => format!("{}x", s / 100),
        (false, s) => format!("{}x", s as f64 / 100.0),
    };
    let lag = st.replay.as_ref().map(|x| &x.lag).filter(|h| h.count() > 0);
    report::ReplayReport {
        trace: r
            .read_iolog
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        format: sum.format.clone(),
        speed,
        loops,
        trace_ios: sum.total(),
        trace_ns: if r.no_stall { 0 } else { trace_ns },
        replay_ns: st.runtime_ns,
        syncs: counts.syncs,
        trims_skipped: counts.trims,
        skipped: counts.skipped,
        wrapped: counts.wrapped,
        depth: spec.effective_iodepth(),
        recorded_depth: sum.max_depth,
        lag_ns: lag.map(|h| h.summary()),
        latency: latency_rows(sum, st),
    }
}

/// Each direction overall, then each size class it has, the trace's latency beside the
/// target's.
fn latency_rows(sum: &Summary, st: &stats::JobStats) -> Vec<report::ReplayLatency> {
    let mut rows = Vec::new();
    for (d, name) in [(0, "read"), (1, "write")] {
        let h = &st.dirs[d].lat;
        if h.count() == 0 {
            continue;
        }
        rows.push(report::ReplayLatency {
            dir: name.into(),
            class: "all".into(),
            ios: h.count(),
            recorded: sum.latency[d].clone(),
            here: h.summary(),
        });
        let Some(by) = st.replay.as_ref().map(|r| &r.by_class) else {
            continue;
        };
        for (c, hs) in by.iter().enumerate().filter(|(_, h)| h[d].count() > 0) {
            let rec = sum.hists.get(c).map(|x| &x[d]).filter(|x| x.count() > 0);
            rows.push(report::ReplayLatency {
                dir: name.into(),
                class: trace::class_name(c),
                ios: hs[d].count(),
                recorded: rec.map(|x| x.summary()),
                here: hs[d].summary(),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 42): a trace that filled a 256 MiB device was refused on another of
    /// the same size ("reaches 256.0 MiB into its target, which has 256.0 MiB"): the largest
    /// I/O was added to an end that already held it.
    #[test]
    fn a_trace_reaches_its_furthest_end_and_no_further() {
        let s = Summary {
            extent: vec![256 << 20],
            max_len: 1 << 20,
            ..Summary::default()
        };
        assert_eq!(mapped_reach(&Replay::default(), &s), 256 << 20);
        // Scaled by 4: the last 1 MiB I/O starts at (256 - 1) / 4 MiB and ends 1 MiB later.
        let four = Replay {
            scale: 4,
            ..Replay::default()
        };
        assert_eq!(mapped_reach(&four, &s), (255 << 20) / 4 + (1 << 20));
    }
}
