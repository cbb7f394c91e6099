//! Where and in what sizes the I/O goes: block-size mixes, alignment, the random map and its draw,
//! trims, seeds (fio's "I/O type", "block size" and "random" options).

use crate::values::*;
use serde::{Deserialize, Serialize};

/// Where and in what sizes the I/O goes: block-size mixes, alignment, the random map and its draw,
/// trims, seeds (fio's "I/O type", "block size" and "random" options).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pattern {
    /// Mixed block sizes (fio's `bssplit`); empty: every I/O is `bs`.
    pub bssplit: Vec<BsSplit>,
    /// fio's `bssplit=READS,WRITES`: the writes' own split (empty: `bssplit`'s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bssplit_write: Vec<BsSplit>,
    /// Random offsets with replacement instead of every block once per pass.
    pub norandommap: bool,
    /// Which blocks a random job favours (fio's `random_distribution`); skewed ones draw
    /// with replacement.
    #[serde(default)]
    pub random_distribution: crate::Distribution,
    /// fio's center of a zipf, pareto or normal draw (`zipf:1.2:0.25`): where the hottest
    /// rank lands, as a share of the region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_center: Option<f64>,
    /// fio's `blockalign`: random offsets are multiples of this, not of the block size (and,
    /// as in fio, drawn with replacement: the random map is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blockalign: Option<u64>,
    /// fio's `blockalign=R,W`: the writes' own alignment (None: `blockalign`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blockalign_write: Option<u64>,
    /// fio's `rw=trim`, `randtrim`, `trimwrite` (with `rw` the write pattern they follow).
    #[serde(default, skip_serializing_if = "Trim::is_none")]
    pub trim: Trim,
    /// fio's `bs_is_seq_rand`: `bs=A,B` sizes sequential I/Os (A) and random ones (B)
    /// instead of reads and writes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bs_is_seq_rand: bool,
    /// fio's `bs_unaligned`: bsrange's sizes are any byte count in the range.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bs_unaligned: bool,
    /// Sequential jobs: bytes skipped after each I/O (fio's `rw=read:8k`); negative steps
    /// back (`read:-8k` with bs=4k reads backwards).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq_skip: i64,
    /// Random jobs: a new random offset only every this many I/Os (fio's `rw=randread:8`);
    /// in between each I/O follows the last, or with `rand_identical` repeats it (fio's
    /// `rw_sequencer=identical`). 0 or 1: every I/O draws.
    #[serde(default)]
    pub rand_run: u32,
    #[serde(default)]
    pub rand_identical: bool,
    /// A random job's share of random I/Os per direction (fio's `percentage_random`; the rest
    /// follow the last I/O, sequentially). 100: all random.
    #[serde(default = "all_random", skip_serializing_if = "is_all_random")]
    pub percentage_random: [u8; 2],
    /// Block sizes drawn uniformly from the multiples of the low end (fio's `bsrange`, or
    /// `bs=4k-64k`); `bs` is then the low end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_range: Option<(u64, u64)>,
    /// The writes' side of fio's `bs=R,W` or `bsrange=R,W` when it differs from the reads'
    /// (`bs` and `bs_range` hold the reads'): a job that only writes takes it in their place
    /// ([`JobSpec::settle_sizes`]), as fio's writes do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_sizes: Option<WriteSizes>,
    /// Never have two I/Os in flight on the same bytes: one that would overlap waits for the
    /// other to complete (fio's `serialize_overlap`).
    #[serde(default)]
    pub serialize_overlap: bool,
    pub randseed: u64,
    /// `randseed` was given: the written data repeats from run to run too (else each run
    /// writes data of its own, so no sector of one run repeats in the next).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub randseed_set: bool,
    /// fio's `offset_align`: a percentage offset is rounded up to a multiple of this (0: of
    /// the smallest block size).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub offset_align: u64,
}

impl Default for Pattern {
    fn default() -> Self {
        Pattern {
            bssplit: Vec::new(),
            bssplit_write: Vec::new(),
            norandommap: false,
            random_distribution: crate::Distribution::Random,
            random_center: None,
            blockalign: None,
            blockalign_write: None,
            trim: Trim::None,
            bs_is_seq_rand: false,
            bs_unaligned: false,
            seq_skip: 0,
            rand_run: 0,
            rand_identical: false,
            percentage_random: [100, 100],
            bs_range: None,
            write_sizes: None,
            serialize_overlap: false,
            randseed: 0x5eed_f00d,
            randseed_set: false,
            offset_align: 0,
        }
    }
}
