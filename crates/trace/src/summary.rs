//! What a trace holds, in one streaming pass: I/Os and bytes per op, the size classes, the
//! rate over time, the latency as the device served it (where completions were traced), the
//! deepest queue, and how far into each file the I/O reaches.

use crate::{Io, Op, Reader, TraceError};
use serde::Serialize;
use stats::{LatHist, LatencySummary};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The size classes' upper bounds (bytes): an I/O is in the first class it fits.
pub const SIZE_CLASSES: [u64; 9] = [
    4096,
    8192,
    16384,
    32768,
    65536,
    131072,
    262144,
    1 << 20,
    u64::MAX,
];

/// The index of the class of an I/O of `len` bytes.
pub fn size_class(len: u64) -> usize {
    SIZE_CLASSES.iter().position(|&c| len <= c).unwrap_or(8)
}

/// A class's name: `≤4 KiB`, ..., `>1 MiB`.
pub fn class_name(c: usize) -> String {
    match SIZE_CLASSES.get(c) {
        Some(&u64::MAX) | None => ">1MiB".into(),
        Some(&b) if b >= 1 << 20 => format!("≤{}MiB", b >> 20),
        Some(&b) => format!("≤{}KiB", b >> 10),
    }
}

/// The most seconds of rate series kept: a longer trace's series is cut (its counts are not).
const MAX_SECONDS: usize = 7 * 86400;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub format: String,
    pub files: Vec<String>,
    /// I/Os per op (read, write, flush, trim), and bytes.
    pub ios: [u64; 4],
    pub bytes: [u64; 4],
    pub fua: u64,
    /// Reads and writes per size class ([`SIZE_CLASSES`]).
    pub classes: Vec<[u64; 2]>,
    /// From the first issue to the last issue, and to the last completion (ns).
    pub span_ns: u64,
    pub end_ns: u64,
    /// Reads and writes issued in each second of the trace.
    pub per_second: Vec<[u64; 2]>,
    /// How far into each file the I/O reaches (the end of its last byte).
    pub extent: Vec<u64>,
    /// The largest I/O, and the deepest queue where completions were traced.
    pub max_len: u64,
    pub max_depth: Option<u32>,
    /// I/Os with a completion, and the device's latency (issue to completion) per direction.
    pub completed: u64,
    pub latency: [Option<LatencySummary>; 2],
    /// The latency histograms per size class and direction (not serialized: `latency`
    /// holds their sum).
    #[serde(skip)]
    pub hists: Vec<[LatHist; 2]>,
}

impl Summary {
    pub fn total(&self) -> u64 {
        self.ios.iter().sum()
    }
}

/// The depth over time: the completion times of the I/Os in flight.
#[derive(Default)]
struct Depth {
    done: BinaryHeap<Reverse<u64>>,
    max: u32,
}

/// Reads a whole trace into its summary.
pub fn summarize(mut r: Reader) -> Result<Summary, TraceError> {
    let mut s = Summary {
        format: r.format.name().into(),
        classes: vec![[0; 2]; SIZE_CLASSES.len()],
        hists: (0..SIZE_CLASSES.len())
            .map(|_| [LatHist::new(), LatHist::new()])
            .collect(),
        ..Default::default()
    };
    let mut depth = Depth::default();
    let mut first: Option<u64> = None;
    while let Some(io) = r.next_io()? {
        let start = *first.get_or_insert(io.at_ns);
        add(&mut s, &io, start);
        if let (Some(d), Some(dir)) = (io.done_ns, dir_of(io.op)) {
            s.completed += 1;
            s.hists[size_class(io.len)][dir].record(d.saturating_sub(io.at_ns));
            depth.issue(io.at_ns, d);
        }
    }
    s.files = r.files().to_vec();
    s.extent.resize(s.files.len(), 0);
    if s.completed > 0 {
        s.max_depth = Some(depth.max);
        // Each direction's latency is its size classes' together.
        s.latency = [0, 1].map(|d| {
            let mut all = LatHist::new();
            s.hists.iter().for_each(|c| all.merge(&c[d]));
            (all.count() > 0).then(|| all.summary())
        });
    }
    Ok(s)
}

fn dir_of(op: Op) -> Option<usize> {
    match op {
        Op::Read => Some(0),
        Op::Write => Some(1),
        _ => None,
    }
}

fn add(s: &mut Summary, io: &Io, start: u64) {
    let k = io.op.index();
    s.ios[k] += 1;
    s.bytes[k] += io.len;
    s.fua += io.fua as u64;
    let t = io.at_ns - start;
    s.span_ns = s.span_ns.max(t);
    s.end_ns = s
        .end_ns
        .max(io.done_ns.map_or(t, |d| d.saturating_sub(start)));
    s.max_len = s.max_len.max(io.len);
    let f = io.file as usize;
    if s.extent.len() <= f {
        s.extent.resize(f + 1, 0);
    }
    s.extent[f] = s.extent[f].max(io.offset.saturating_add(io.len));
    if let Some(d) = dir_of(io.op) {
        s.classes[size_class(io.len)][d] += 1;
        let sec = (t / 1_000_000_000) as usize;
        if sec < MAX_SECONDS {
            if s.per_second.len() <= sec {
                s.per_second.resize(sec + 1, [0; 2]);
            }
            s.per_second[sec][d] += 1;
        }
    }
}

impl Depth {
    fn issue(&mut self, at: u64, done: u64) {
        while self.done.peek().is_some_and(|Reverse(d)| *d <= at) {
            self.done.pop();
        }
        self.done.push(Reverse(done));
        self.max = self.max.max(self.done.len() as u32);
    }
}
