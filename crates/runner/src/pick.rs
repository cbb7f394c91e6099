//! What a job issues next: the direction and size of its mix, the file in turn and the offset
//! of its pattern, paced by its rate caps, weighed by its flow, with the reads back of its
//! verify backlog first. The job's loop asks once per free slot; nothing here allocates.

use crate::backlog::Backlog;
use crate::flow::Flow;
use crate::offsets::Offsets;
use crate::permutation::splitmix;
use crate::replay::Item;
use crate::skew::Skew;
use crate::written::Starts;
use engine::Op;
use rand::rngs::SmallRng;
use rand::{Rng, RngCore};
use stats::Lateness;
use workload::{FileServiceKind, JobSpec};

pub use crate::next::Next;
pub use crate::pace::NOT_DUE;

/// The answer to "what next?".
pub enum Pick {
    Io(Next),
    /// The rate cap allows the next I/O this many ns from now.
    Wait(u64),
    /// The flow holds this job back until the others of its group catch up.
    Held,
    /// The writes are all issued and nothing is left to read back.
    Done,
    /// A replayed flush: sync this file once the queue has drained.
    Sync(u32),
    /// The replay cannot go on (a bad record, or an offset past the target's end).
    Fail(String),
}

pub struct Picker {
    rng: SmallRng,
    read_pct: u32,
    /// Sizes to draw from, per direction (reads, writes: fio's bs=R,W).
    bs_choices: [Vec<u32>; 2],
    offs: Vec<[Offsets; 2]>,
    /// fio's zonemode=strided: the zones, and what rebuilds a zone's pattern.
    zones: Option<Box<Zoned>>,
    next_file: u32,
    /// Rate caps as ns per I/O and per byte, per direction; when each may go next.
    iops_gap: [u64; 2],
    byte_gap: [f64; 2],
    rated: bool,
    poisson: bool,
    /// When each direction's next I/O is due: fio's schedule, which never forgets an I/O
    /// that fell behind (a job that could not keep up issues as fast as it can until it has
    /// caught up).
    next_ok: [u64; 2],
    late: [Behind; 2],
    /// Drawn but held back by the rate cap: issued first once it may go.
    pending: Option<(Op, usize, u32)>,
    /// Given back by the loop (it overlapped one in flight): issued first, as it is.
    held: Option<Next>,
    pub backlog: Option<Backlog>,
    flow: Option<Flow>,
    /// fio's `rw=randread:N`: per file and direction, I/Os left in the current run and where
    /// the last one ended (and began); `run` is N, 0 without runs.
    run: u32,
    identical: bool,
    runs: Vec<[Run; 2]>,
    /// fio's `percentage_random` per direction for a random job (100: all random): the rest
    /// of its I/Os follow the last one, as fio's sequential share does.
    rand_pct: [u32; 2],
    /// fio's bs_is_seq_rand: the sizes of `bs=A,B` are a sequential I/O's (A) and a random
    /// one's (B), either direction.
    seq_rand: bool,
    /// With `seq_rand`, the drawn I/O's kind (random or not), drawn before its size, for
    /// `mixed` to follow.
    drawn_random: Option<bool>,
    random_job: bool,
    /// fio's bs_unaligned: a bsrange's sizes are any byte count in it, not its multiples.
    unaligned: bool,
    /// fio keeps one random map per file, so a mixed job reads or writes each block once a
    /// pass (never both): both directions use `offs[f][i]` for this `i` (the writes' stream
    /// in a job that writes, so a verify_only job's reads of it name the same blocks).
    one_map: Option<usize>,
    /// fio's `openfiles` below the file count: the files worked on at once (and
    /// `file_service_type=sequential`: one at a time).
    window: Option<Window>,
    service: Option<Service>,
    /// Where each written block began, for the closing read-back of mixed sizes.
    pub starts: Option<Starts>,
    /// The trace a replaying job issues, in place of its pattern.
    pub replay: Option<crate::replay::Feed>,
    /// The replay's trace (and its loops) is over.
    pub ended: bool,
}

/// fio's `openfiles`: I/O goes round robin to `open` files until each has done its region,
/// then to the next `open`, and after the last back to the first (fio closes a file once
/// done and opens the next).
struct Window {
    open: usize,
    first: usize,
    cursor: usize,
    lens: Vec<u64>,
    left: Vec<u64>,
}

impl Window {
    fn new(open: u32, regions: &[(u64, u64)]) -> Option<Window> {
        let open = open as usize;
        let lens: Vec<u64> = regions.iter().map(|r| r.1).collect();
        (open > 0 && open < lens.len()).then(|| Window {
            open,
            first: 0,
            cursor: 0,
            left: lens.clone(),
            lens,
        })
    }

    /// The file of the next I/O; [`Window::did`] counts it once its length is known.
    fn pick(&mut self) -> u32 {
        loop {
            let n = self.open.min(self.lens.len() - self.first);
            for k in 0..n {
                let f = self.first + (self.cursor + k) % n;
                if self.left[f] > 0 {
                    self.cursor = (self.cursor + k + 1) % n;
                    return f as u32;
                }
            }
            // Every file of this window is done: the next ones.
            self.first += n;
            self.cursor = 0;
            if self.first >= self.lens.len() {
                self.first = 0;
                self.left.copy_from_slice(&self.lens);
            }
        }
    }

    fn did(&mut self, file: u32, len: u64) {
        let l = &mut self.left[file as usize];
        *l = l.saturating_sub(len);
    }
}

/// fio's `file_service_type` round robin or random with `:N`: N I/Os to a file, then the
/// next file in turn, or one drawn among those with work left (fio skips a file that is
/// done); once every file has done its share, all start over (a time-based job's next pass).
/// fio draws a skewed file choice over 2^10 ranks per file.
const FILE_RANKS_SHIFT: u32 = 10;

struct Service {
    random: bool,
    /// fio's zipf, pareto or normal file choice: a draw over 1,024 ranks per file, turned
    /// by an offset, each file a run of 1,024 (fio's FIO_FSERVICE_SHIFT, its hash off).
    skew: Option<(crate::skew::Skew, u64)>,
    every: u32,
    served: u32,
    cur: u32,
    lens: Vec<u64>,
    left: Vec<u64>,
}

impl Service {
    fn new(spec: &JobSpec, regions: &[(u64, u64)]) -> Option<Service> {
        let f = spec.files.file_service;
        let on = match f.kind {
            FileServiceKind::RoundRobin => f.every > 1,
            FileServiceKind::Sequential => false,
            _ => true,
        };
        let lens: Vec<u64> = regions.iter().map(|r| r.1).collect();
        let ranks = (lens.len() as u64) << FILE_RANKS_SHIFT;
        let skew = f.distribution().and_then(|d| {
            let s = crate::skew::Skew::new(&d, (ranks, 1), spec.pattern.randseed, f.center())?;
            // fio turns the files' ranks round by its center; without one, zipf's and
            // pareto's by a random share, normal's not at all (its middle file is hottest).
            let turn = s.center_turn().unwrap_or(match d {
                workload::Distribution::Normal(_) => 0,
                _ => crate::permutation::splitmix(spec.pattern.randseed ^ 0x66_69_6c_65) % ranks,
            });
            Some((s, turn))
        });
        (on && lens.len() > 1).then(|| Service {
            random: f.kind != FileServiceKind::RoundRobin,
            skew,
            every: f.every,
            // A random choice is drawn for the very first I/O too.
            served: if f.kind != FileServiceKind::RoundRobin {
                f.every
            } else {
                0
            },
            cur: 0,
            left: lens.clone(),
            lens,
        })
    }

    /// The next I/O's file. A skewed choice (zipf, pareto, normal) may come back to a file
    /// that has had its size, as fio starts a non-uniformly chosen file's random map over
    /// (so a hot small file is read many times over); the others keep to each file's size
    /// per pass.
    fn pick(&mut self, rng: &mut SmallRng) -> u32 {
        let n = self.lens.len() as u32;
        let skewed = self.skew.is_some();
        if self.served >= self.every || (!skewed && self.left[self.cur as usize] == 0) {
            self.served = 0;
            if self.left.iter().all(|&l| l == 0) {
                self.left.copy_from_slice(&self.lens);
            }
            self.cur = if self.random {
                loop {
                    let f = match &self.skew {
                        Some((s, turn)) => {
                            let r = (s.rank(rng.next_u64(), rng.next_u64()) + turn) % s.len();
                            (r >> FILE_RANKS_SHIFT) as u32
                        }
                        None => rng.gen_range(0..n),
                    };
                    if skewed || self.left[f as usize] > 0 {
                        break f;
                    }
                }
            } else {
                (1..=n)
                    .map(|k| (self.cur + k) % n)
                    .find(|&f| self.left[f as usize] > 0)
                    .unwrap_or(0)
            };
        }
        self.served += 1;
        self.cur
    }

    fn did(&mut self, file: u32, len: u64) {
        let l = &mut self.left[file as usize];
        *l = l.saturating_sub(len);
    }
}

#[derive(Clone, Copy, Default)]
struct Run {
    left: u32,
    last: u64,
    end: u64,
    region_end: u64,
}

impl Run {
    /// A sequential share starts where fio's does: at the region's start.
    fn at((start, len): (u64, u64)) -> Run {
        Run {
            region_end: start + len,
            last: start,
            end: start,
            ..Run::default()
        }
    }
}

/// How many files are open at once: one for a sequential file service, else `openfiles`.
fn open_at_once(spec: &JobSpec) -> u32 {
    match spec.files.file_service.kind {
        FileServiceKind::Sequential => 1,
        _ => spec.files.openfiles,
    }
}

/// The one random map both directions share, if they share one: the reads' where the offsets
/// are mapped, else (fio's one map per file) the direction the job draws from.
fn one_map(spec: &JobSpec, offs: &[[Offsets; 2]]) -> Option<usize> {
    let mapped = matches!(
        offs.first(),
        Some([Offsets::Mapped { .. }, Offsets::Mapped { .. }])
    );
    match (mapped, shares_map(spec)) {
        (true, _) => Some(0),
        (false, true) => Some(spec.rw.writes() as usize),
        (false, false) => None,
    }
}

/// Each file's offsets for reads and writes. verify_only reads in the order its write job
/// wrote (the writes' own stream), so a loaded verify state's count of writes names the same
/// blocks.
fn offsets_of(spec: &JobSpec, seed: u64, regions: &[(u64, u64)]) -> Vec<[Offsets; 2]> {
    let each = |(f, &r): (usize, &(u64, u64))| {
        let f = f as u64;
        let (salt, writes) = match spec.checking.verify_only {
            true => (2 * f + 2, true),
            false => (2 * f + 1, false),
        };
        [
            offsets_for(spec, seed, r, salt, writes),
            offsets_for(spec, seed, r, 2 * f + 2, true),
        ]
    };
    regions.iter().enumerate().map(each).collect()
}

/// The rate caps as gaps between I/Os (ns per I/O, ns per byte) per direction; 0: none.
fn gaps(spec: &JobSpec) -> ([u64; 2], [f64; 2]) {
    let iops = spec.rates.rate_iops;
    let bytes = spec.rates.rate;
    (
        iops.map(|r| 1_000_000_000u64.checked_div(r).unwrap_or(0)),
        bytes.map(|r| if r == 0 { 0.0 } else { 1e9 / r as f64 }),
    )
}

/// The strided zones' walk over the first file, where the job has zones.
fn zoned(spec: &JobSpec, seed: u64, regions: &[(u64, u64)]) -> Option<Box<Zoned>> {
    let z = spec.region.zones.strided(regions.len() as u32)?;
    let &r = regions.first()?;
    Some(Box::new(Zoned {
        at: crate::zones::Strided::new(z, r),
        spec: spec.clone(),
        seed,
    }))
}

impl Picker {
    /// `regions` are the job's files' `(offset, len)`; `rng` the job's random stream, which
    /// also filled its buffers.
    pub fn new(
        spec: &JobSpec,
        seed: u64,
        rng: SmallRng,
        regions: &[(u64, u64)],
        depth: usize,
        flow: Option<Flow>,
    ) -> Picker {
        let offs = offsets_of(spec, seed, regions);
        let (iops_gap, byte_gap) = gaps(spec);
        let random = spec.rw.is_random();
        Picker {
            starts: Starts::new(spec, regions),
            replay: None,
            ended: false,
            window: Window::new(open_at_once(spec), regions),
            service: Service::new(spec, regions),
            one_map: one_map(spec, &offs),
            rng,
            read_pct: spec.rw.read_percent(spec.rwmixread) as u32,
            bs_choices: [bs_table(spec, false), bs_table(spec, true)],
            zones: zoned(spec, seed, regions),
            offs,
            next_file: 0,
            rated: iops_gap.iter().any(|&g| g > 0) || byte_gap.iter().any(|&g| g > 0.0),
            late: [0, 1].map(|d| Behind::new(iops_gap[d], byte_gap[d], spec.max_bs())),
            iops_gap,
            byte_gap,
            poisson: spec.rates.rate_poisson,
            next_ok: [0; 2],
            pending: None,
            held: None,
            backlog: Backlog::new(spec, depth),
            flow,
            run: if random { spec.pattern.rand_run } else { 0 },
            identical: spec.pattern.rand_identical,
            seq_rand: spec.pattern.bs_is_seq_rand,
            drawn_random: None,
            random_job: random,
            unaligned: spec.pattern.bs_unaligned && spec.pattern.bssplit.is_empty(),
            rand_pct: match random {
                true => spec.pattern.percentage_random.map(u32::from),
                false => [100, 100],
            },
            runs: regions.iter().map(|&r| [Run::at(r); 2]).collect(),
        }
    }

    /// The next I/O at time `t` (ns into the job); `writes_done` once the job's budget is
    /// issued, when only reads back of the backlog remain.
    #[inline]
    pub fn next(&mut self, t: u64, writes_done: bool) -> Pick {
        if let Some(n) = self.held.take() {
            return Pick::Io(n);
        }
        if let Some(feed) = self.replay.as_mut() {
            return Picker::replayed(feed, &mut self.ended, t);
        }
        if let Some((file, offset, len)) = self.backlog.as_mut().and_then(|b| b.next(writes_done)) {
            // Reads back are not paced nor weighed: the rate and the flow are the workload's.
            let (op, dir, back, due) = (Op::Read, 0, true, NOT_DUE);
            return Pick::Io(Next {
                op,
                dir,
                len,
                file,
                offset,
                back,
                due,
            });
        }
        if writes_done {
            return Pick::Done;
        }
        // An I/O held back by the rate was admitted by the flow when it was drawn.
        let (mut op, mut dir, len) = match self.pending.take() {
            Some(p) => p,
            None if self.flow.as_mut().is_some_and(|f| !f.admit()) => return Pick::Held,
            None => self.draw(),
        };
        let mut due = NOT_DUE;
        if self.rated {
            (op, dir) = self.due(t, op, dir);
            if t < self.next_ok[dir] {
                self.pending = Some((op, dir, len));
                return Pick::Wait(self.next_ok[dir] - t);
            }
            due = self.pace(t, dir, len);
        }
        let file = self.file();
        let (offset, len) = self.offset(file as usize, dir, len as u64);
        if let Some(w) = &mut self.window {
            w.did(file, len);
        }
        if let Some(s) = &mut self.service {
            s.did(file, len);
        }
        let len = len as u32;
        let back = false;
        Pick::Io(Next {
            op,
            dir,
            len,
            file,
            offset,
            back,
            due,
        })
    }

    /// The pattern's next offset and length (the random map with mixed sizes cuts an I/O
    /// short), or with `rw=randread:N` the next of the current run: each I/O follows the last
    /// (or repeats it with `rw_sequencer=identical`) until N are done or the region ends,
    /// then a new random start.
    #[inline]
    fn offset(&mut self, file: usize, dir: usize, len: u64) -> (u64, u64) {
        let Some(z) = self.zones.as_deref_mut() else {
            return self.offset_in(file, dir, len);
        };
        if let Some(zone) = z.at.turn() {
            let seed = z.seed ^ crate::permutation::splitmix(z.at.turns);
            self.offs[0] = [
                offsets_for(&z.spec, seed, zone, 1, false),
                offsets_for(&z.spec, seed, zone, 2, true),
            ];
        }
        let (o, l) = self.offset_in(file, dir, len);
        if let Some(z) = self.zones.as_deref_mut() {
            z.at.did(l);
        }
        (o, l)
    }

    /// [`Self::offset`] within the region, or the zone, the patterns cover now.
    #[inline]
    fn offset_in(&mut self, file: usize, dir: usize, len: u64) -> (u64, u64) {
        if self.run <= 1 && self.rand_pct[dir] >= 100 {
            // fio keeps one random map per file: reads and writes share it.
            let dir = self.one_map.unwrap_or(dir);
            return self.offs[file][dir].next_io(len);
        }
        if self.run <= 1 {
            return self.mixed(file, dir, len);
        }
        let r = &mut self.runs[file][dir];
        let o = match (r.left, self.identical) {
            (0, _) => None,
            (_, true) => Some(r.last),
            (_, false) => Some(r.end).filter(|&e| e + len <= r.region_end),
        };
        let o = match o {
            Some(o) => {
                r.left -= 1;
                o
            }
            None => {
                r.left = self.run - 1;
                let map = self.one_map.unwrap_or(dir);
                self.offs[file][map].next(len)
            }
        };
        let r = &mut self.runs[file][dir];
        (r.last, r.end) = (o, o + len);
        (o, len)
    }

    /// fio's `percentage_random`: each I/O is random with that chance (fio's
    /// `should_do_random`, a draw from 1 to 100), else it follows the last I/O of its file and
    /// direction; one that would run past the region's end is drawn at random, as fio falls
    /// back when its sequential offset runs out.
    #[cold]
    fn mixed(&mut self, file: usize, dir: usize, len: u64) -> (u64, u64) {
        let random = match self.drawn_random.take() {
            Some(random) => random,
            None => self.draw_random(dir),
        };
        let r = self.runs[file][dir];
        let (o, len) = if !random && r.end + len <= r.region_end {
            (r.end, len)
        } else {
            let map = self.one_map.unwrap_or(dir);
            self.offs[file][map].next_io(len)
        };
        let r = &mut self.runs[file][dir];
        (r.last, r.end) = (o, o + len);
        (o, len)
    }

    /// Whether the next I/O of direction `dir` is random: always in a random job (fio's
    /// `should_do_random`, a draw from 1 to 100 under percentage_random), never in a
    /// sequential one.
    fn draw_random(&mut self, dir: usize) -> bool {
        match self.rand_pct[dir] {
            _ if !self.random_job => false,
            p if p >= 100 => true,
            p => self.rng.next_u32() % 100 < p,
        }
    }

    /// The file of the next I/O: round robin over the job's files, or over the `openfiles`
    /// window's.
    #[inline]
    fn file(&mut self) -> u32 {
        if let Some(w) = &mut self.window {
            return w.pick();
        }
        if let Some(s) = &mut self.service {
            return s.pick(&mut self.rng);
        }
        let file = self.next_file;
        self.next_file = if file + 1 == self.offs.len() as u32 {
            0
        } else {
            file + 1
        };
        file
    }

    /// The trace's next I/O at `t`: a wait until it is due (unless `replay_no_stall`), then
    /// the I/O or the flush as the trace has it.
    #[inline]
    fn replayed(feed: &mut crate::replay::Feed, ended: &mut bool, t: u64) -> Pick {
        let item = match feed.peek() {
            Ok(i) => i,
            Err(e) => return Pick::Fail(e),
        };
        match item.due() {
            None => *ended = true,
            Some(due) if due != NOT_DUE && t < due => return Pick::Wait(due - t),
            Some(_) => feed.take(),
        }
        match item {
            Item::Io(n) => Pick::Io(n),
            Item::Sync { file, .. } => Pick::Sync(file),
            Item::End => Pick::Done,
        }
    }

    /// Takes back an I/O the loop could not issue yet; it comes out of `next` first.
    pub fn hold(&mut self, n: Next) {
        self.held = Some(n);
    }

    /// The direction (by `rwmixread`) and size of the next I/O of the mix.
    fn draw(&mut self) -> (Op, usize, u32) {
        let pct = self.read_pct;
        let is_read = pct == 100 || (pct > 0 && self.rng.next_u32() % 100 < pct);
        let dir = usize::from(!is_read);
        let table = match self.seq_rand {
            true => {
                let random = self.draw_random(dir);
                self.drawn_random = Some(random);
                usize::from(random)
            }
            false => dir,
        };
        let sizes = &self.bs_choices[table];
        let len = match (self.unaligned, sizes.len()) {
            // bs_unaligned: any byte count of the range, as fio draws it.
            (true, n) if n > 1 => {
                let (lo, hi) = (sizes[0], sizes[n - 1]);
                lo + self.rng.next_u32() % (hi - lo + 1)
            }
            (_, 1) => sizes[0],
            (_, n) => sizes[self.rng.next_u32() as usize % n],
        };
        if is_read {
            (Op::Read, 0, len)
        } else {
            (Op::Write, 1, len)
        }
    }

    /// fio's rate_ddir: a mixed job whose drawn direction is ahead of its rate takes the other
    /// direction when that one is due, and when both are ahead, the one due first. A single
    /// value of `rate` caps each direction, so without the switch a read drawn while reads
    /// wait would hold back a write that may go, and neither direction reaches its cap.
    #[inline]
    fn due(&self, t: u64, op: Op, dir: usize) -> (Op, usize) {
        let other = dir ^ 1;
        let mixed = self.read_pct > 0 && self.read_pct < 100;
        let switch = mixed
            && t < self.next_ok[dir]
            && (t >= self.next_ok[other] || self.next_ok[other] < self.next_ok[dir]);
        match (switch, op) {
            (false, _) => (op, dir),
            (true, Op::Read) => (Op::Write, other),
            (true, _) => (Op::Read, other),
        }
    }

    /// Moves the direction's schedule past this I/O, issued at `t`: its cap's gap, drawn
    /// around that mean for `rate_process=poisson`. Returns when it was due (NOT_DUE for a
    /// direction no cap paces). As fio, the schedule is absolute: I/Os not issued on time are
    /// owed, and issued as fast as the device allows until it is caught up.
    fn pace(&mut self, t: u64, dir: usize, len: u32) -> u64 {
        let mut gap = gap_for(self.iops_gap[dir], self.byte_gap[dir], len as u64);
        if gap == 0 {
            return NOT_DUE;
        }
        if self.poisson {
            gap = exponential(gap, self.rng.next_u64());
        }
        let due = self.next_ok[dir];
        self.next_ok[dir] = due + gap;
        self.late[dir].issued(t, due);
        due
    }

    /// fio's reset_io_counters at the end of the ramp: the rate's schedule starts again at
    /// `t`, so I/Os the ramp owed are not issued in a burst at the start of the measurement.
    pub fn restart_schedule(&mut self, t: u64) {
        self.next_ok = [t; 2];
    }

    /// fio's rate_ignore_thinktime: a think of `ns` is not made up afterwards; the schedule
    /// moves on by it, less one smallest block's gap so the next I/O goes at once.
    pub fn skip_schedule(&mut self, ns: u64) {
        for d in 0..2 {
            let bs = self.bs_choices[d].iter().min().copied().unwrap_or(0) as u64;
            let gap = gap_for(self.iops_gap[d], self.byte_gap[d], bs);
            self.next_ok[d] += ns.saturating_sub(gap);
        }
    }

    /// How far each direction fell behind its schedule, up to `t` (the job's end).
    pub fn lateness(&mut self, t: u64) -> [Lateness; 2] {
        [0, 1].map(|d| self.late[d].close(t))
    }
}

/// The schedule's gap before an I/O of `len` bytes (ns): the IOPS cap's or the bandwidth
/// cap's, whichever is longer; 0 with neither.
#[inline]
fn gap_for(iops_gap: u64, byte_gap: f64, len: u64) -> u64 {
    iops_gap.max((byte_gap * len as f64) as u64)
}

/// Tracks how far one rate-capped direction runs behind its schedule.
#[derive(Clone, Copy)]
struct Behind {
    /// The lag above which the direction counts as behind: ten of its gaps, at least 10 ms,
    /// so the scheduler's jitter on a device that keeps up never counts.
    threshold: u64,
    since: Option<u64>,
    late: Lateness,
}

impl Behind {
    fn new(iops_gap: u64, byte_gap: f64, bs: u64) -> Behind {
        Behind {
            threshold: (10 * gap_for(iops_gap, byte_gap, bs)).max(10_000_000),
            since: None,
            late: Lateness::default(),
        }
    }

    /// An I/O due at `due` issued at `t`: behind from the first issue later than the
    /// threshold until one is back within half of it.
    #[inline]
    fn issued(&mut self, t: u64, due: u64) {
        let lag = t.saturating_sub(due);
        self.late.max_ns = self.late.max_ns.max(lag);
        match self.since {
            None if lag > self.threshold => self.since = Some(t),
            Some(s) if lag <= self.threshold / 2 => {
                self.late.behind_ns += t - s;
                self.since = None;
            }
            _ => {}
        }
    }

    fn close(&mut self, t: u64) -> Lateness {
        if let Some(s) = self.since.take() {
            self.late.behind_ns += t.saturating_sub(s);
        }
        self.late
    }
}

/// fio's strided zones and what a zone's pattern is made from.
struct Zoned {
    at: crate::zones::Strided,
    spec: JobSpec,
    seed: u64,
}

/// The pattern of one direction (the writes' or the reads') of one file's region
/// `(start, len)`, keyed by `salt`, its random offsets on the direction's blockalign when
/// given.
fn offsets_for(
    spec: &JobSpec,
    seed: u64,
    (start, len): (u64, u64),
    salt: u64,
    writes: bool,
) -> Offsets {
    let key = splitmix(seed ^ salt);
    if !spec.rw.is_random() {
        return Offsets::sequential(start, len, spec.pattern.seq_skip);
    }
    // fio's blockalign: offsets on its boundaries, and no random map.
    let ba = match writes {
        true => spec.write_blockalign(),
        false => spec.pattern.blockalign,
    };
    let own = one_size(spec, writes);
    let unit = ba.or(own).unwrap_or_else(|| spec.unit());
    let center = spec.pattern.random_center;
    if let Some(s) = Skew::new(
        &spec.pattern.random_distribution,
        (len / unit, unit),
        key,
        center,
    ) {
        Offsets::skewed(start, len, unit, s, key)
    } else if spec.pattern.norandommap || ba.is_some() {
        Offsets::uniform(start, len, unit, key)
    } else if spec.mixed_sizes() && own.is_none() {
        Offsets::mapped(start, len, unit, key)
    } else {
        Offsets::random(start, len, unit, key)
    }
}

/// Whether reads and writes share one random map, as fio's one map per file: a random job
/// whose directions draw their offsets on the same grid (no sizes or blockalign of the
/// writes' own). A verify_only job keeps the writes' own stream, so it reads in the order its
/// write job wrote.
fn shares_map(spec: &JobSpec) -> bool {
    // A sequential mixed job keeps a cursor per direction, as fio's last_pos per ddir: a
    // shared one cut `rw=rw`'s 64 KiB writes short where the reads had moved it.
    spec.rw.is_random()
        && spec.pattern.write_sizes.is_none()
        && spec.write_blockalign() == spec.pattern.blockalign
        && !spec.checking.verify_only
}

/// The one size of a direction's I/Os where `bs=R,W` gives reads and writes sizes of their
/// own and neither side is a range or split: fio keeps such an I/O whole on offsets aligned to
/// its size (its blockalign defaults to the direction's own smallest block, and its random
/// map counts each direction in those blocks), so the direction gets a random map of its own.
fn one_size(spec: &JobSpec, writes: bool) -> Option<u64> {
    let w = spec.pattern.write_sizes?;
    match writes {
        // Writes of one size keep it whatever split the reads draw from.
        true => w.range.is_none().then_some(w.bs),
        false => {
            (spec.pattern.bs_range.is_none() && spec.pattern.bssplit.is_empty()).then_some(spec.bs)
        }
    }
}

/// fio's `rate_process=poisson`: a gap drawn from the exponential distribution with mean
/// `mean`, so arrivals form a Poisson process at the same average rate.
#[inline]
fn exponential(mean: u64, r: u64) -> u64 {
    // A uniform in (0, 1] from the top 53 bits; -ln(u) is Exp(1).
    let u = ((r >> 11) + 1) as f64 / (1u64 << 53) as f64;
    (-u.ln() * mean as f64) as u64
}

/// Block sizes drawn by weight: a 100-entry table, so choosing costs one random number. The
/// writes' table differs only where the job gives writes their own sizes (bs=R,W).
fn bs_table(spec: &JobSpec, writes: bool) -> Vec<u32> {
    let (bs, range) = match spec.pattern.write_sizes.filter(|_| writes) {
        Some(w) => (w.bs, w.range),
        None => (spec.bs, spec.pattern.bs_range),
    };
    let split = match writes && !spec.pattern.bssplit_write.is_empty() {
        true => &spec.pattern.bssplit_write,
        false => &spec.pattern.bssplit,
    };
    // A split given before a range: fio keeps drawing from the split, each size cut to the
    // range's top (its get_next_buflen clamps to max_bs).
    if let (Some((_, hi)), false) = (
        range,
        split.is_empty() || spec.pattern.write_sizes.is_some(),
    ) {
        return weighted(split.iter().map(|b| (b.bs.min(hi), b.percent)));
    }
    // A range: every multiple of its low end, once each (uniform, as fio's bsrange).
    if let Some((lo, hi)) = range {
        return (1..=hi / lo).map(|k| (k * lo) as u32).collect();
    }
    if spec.pattern.write_sizes.is_some() {
        return vec![bs as u32];
    }
    if spec.pattern.bssplit.is_empty() {
        return vec![spec.bs as u32];
    }
    weighted(split.iter().map(|b| (b.bs, b.percent)))
}

/// A 100-entry table of sizes by their percentages.
fn weighted(split: impl Iterator<Item = (u64, u8)>) -> Vec<u32> {
    let mut t = Vec::with_capacity(100);
    for (bs, percent) in split {
        t.extend(std::iter::repeat_n(bs as u32, percent as usize));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::exponential;
    use rand::{RngCore, SeedableRng};

    /// rate_process=poisson's gaps: their mean is the cap's gap (the rate holds) and their
    /// spread is the exponential's (p90/median = ln 10 / ln 2 = 3.32), where a constant gap
    /// would give 1 and a uniform one 1.8.
    #[test]
    fn poisson_gaps_keep_the_mean_and_spread_as_an_exponential() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut gaps: Vec<u64> = (0..100_000)
            .map(|_| exponential(1_000_000, rng.next_u64()))
            .collect();
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.02, "mean gap {mean} ns");
        gaps.sort_unstable();
        let q = |p: f64| gaps[(p * (gaps.len() - 1) as f64) as usize] as f64;
        let spread = q(0.9) / q(0.5);
        assert!((spread - 10f64.ln() / 2f64.ln()).abs() < 0.1, "{spread}");
    }
}
