//! What the I/O looks like: direction and mix, block sizes, depth and where offsets fall.

use super::{names, num, show_size, Category as C, FioOption as O, Kind, Val};
use crate::fio::OptError;
use crate::spec::{BsSplit, JobSpec, Rw, Trim, WriteSizes};

const PCT: Kind = Kind::Int { min: 0, max: 100 };

pub(super) const OPTIONS: &[O] = &[
    O {
        aliases: &["readwrite"],
        details: "read, write, randread, randwrite, rw/readwrite, randrw; a sequential job's \
                  offset modifier (`read:8k` skips 8k after each I/O, `read:-8k` steps back: \
                  reads backwards), checked against fio's I/O counts and holes; as in fio, a \
                  pass whose next I/O would start inside the file and run past its end stops \
                  there (`read:512k` with bs=1m over 128m reads 85 MiB) and one that lands on \
                  the end starts over; a random job's \
                  `:N` (`randread:8`) draws a new random offset every N I/Os and runs \
                  sequentially in between, or repeats the offset with `rw_sequencer=identical`, \
                  checked against fio's offsets under strace (7 in 8 follow, or repeat). \
                  `trim`, `randtrim` and `trimwrite` (each block discarded, then written) \
                  discard with BLKDISCARD, synchronously on every engine as fio does, on a \
                  block device only: the same ranges as fio's (strace), the device's stored \
                  bytes freed (zram's mm_stat), reported in fio-JSON's `trim`",
        show: Some(show_rw),
        sweep: 2,
        common: true,
        ..O::new(
            names::RW,
            C::Pattern,
            Kind::Text,
            "Access pattern: read, write, randread, randwrite, rw (readwrite), randrw, trim...",
            "randread",
            set_rw,
        )
    },
    O {
        show: Some(|j| (j.rw.reads() && j.rw.writes()).then(|| j.rwmixread.to_string())),
        common: true,
        ..O::new(
            names::RWMIXREAD,
            C::Pattern,
            PCT,
            "Percentage of reads in a mixed workload",
            "70",
            |j, v| {
                j.rwmixread = v.int()?;
                Ok(())
            },
        )
    },
    O::new(
        names::RWMIXWRITE,
        C::Pattern,
        PCT,
        "Percentage of writes in a mixed workload",
        "30",
        |j, v| {
            j.rwmixread = 100 - v.int::<u8>()?;
            Ok(())
        },
    ),
    O {
        aliases: &["blocksize"],
        details: "one size; `bs=R,W` sets reads and writes apart, also in a job doing both \
                  (each direction keeps to its own size, on offsets aligned to it, as fio: strace); \
                  `bs=4k-64k` and `bs=4k:64k` are `bs=4k,64k`, as fio splits them (a range is \
                  `bsrange`'s; a note says so); only a default, as fio's: a `bsrange` or \
                  `bssplit` in the same job wins whichever comes first",
        note: Some(bs_note),
        show: Some(|j| {
            let one = j.pattern.bssplit.is_empty() && j.pattern.bs_range.is_none();
            one.then(|| match j.pattern.write_sizes {
                Some(w) if w.range.is_none() => {
                    format!("{},{}", show_size(j, j.bs), show_size(j, w.bs))
                }
                _ => show_size(j, j.bs),
            })
        }),
        sweep: 3,
        common: true,
        ..O::new(
            names::BS,
            C::Pattern,
            Kind::Size,
            "Block size, e.g. 4k, 64k, 1m",
            "8k",
            set_bs,
        )
    },
    O {
        aliases: &["blocksize_range"],
        details: "each I/O's size drawn uniformly from the multiples of the low end; mean size \
                  checked against fio's within 5 %; `low:high` as well, and `R,W` pairs as `bs`'s",
        show: Some(|j| {
            let w = j.pattern.write_sizes.and_then(|w| w.range);
            let w = w.map_or(String::new(), |(lo, hi)| format!(",{lo}-{hi}"));
            j.pattern.bs_range.map(|(lo, hi)| format!("{lo}-{hi}{w}"))
        }),
        ..O::new(
            names::BSRANGE,
            C::Pattern,
            Kind::Size,
            "Block sizes drawn from low-high, e.g. 4k-64k",
            "4k-64k",
            |j, v| set_bs_range(j, v, v.need()?),
        )
    },
    O {
        details: "one split for both directions (`4k/50:64k/30:1m/`), or the reads' and the \
                  writes' apart (`64k/40:1m/60,1m/100`), each I/O's size drawn from its \
                  direction's; blanks share the rest equally; as in fio, it wins over `bs` in \
                  either order and over a `bsrange` given before it (one given after it cuts \
                  the split's sizes to its top)",
        show: Some(|j| {
            let side = |split: &[BsSplit]| {
                let parts: Vec<String> = split
                    .iter()
                    .map(|b| format!("{}/{}", show_size(j, b.bs), b.percent))
                    .collect();
                parts.join(":")
            };
            (!j.pattern.bssplit.is_empty()).then(|| match j.pattern.bssplit_write.is_empty() {
                true => side(&j.pattern.bssplit),
                false => format!("{},{}", side(&j.pattern.bssplit), side(&j.pattern.bssplit_write)),
            })
        }),
        ..O::new(
            names::BSSPLIT,
            C::Pattern,
            Kind::Size,
            "Block sizes by share: 4k/50:64k/30:1m/",
            "4k/60:64k/:1m/",
            set_bssplit,
        )
    },
    O {
        show: Some(|j| Some(j.iodepth.to_string())),
        sweep: 4,
        common: true,
        ..O::new(
            names::IODEPTH,
            C::Pattern,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "I/Os kept in flight per job",
            "32",
            |j, v| {
                j.iodepth = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "offsets always repeat from `randseed`; given, the written data repeats \
                  from run to run too (else each run writes data of its own)",
        show: Some(|j| Some(j.pattern.randseed.to_string())),
        common: true,
        ..O::new(
            "randseed",
            C::Pattern,
            Kind::Int {
                min: 0,
                max: u64::MAX,
            },
            "Seed for offsets and data, so a run can be repeated exactly",
            "1234",
            |j, v| {
                j.pattern.randseed = v.int()?;
                j.pattern.randseed_set = true;
                Ok(())
            },
        )
    },
    // volbench's offsets and data are always a function of randseed: repeatable by design.
    O::new(
        "randrepeat",
        C::Pattern,
        Kind::Flag,
        "Repeatable random streams (volbench's always are)",
        "1",
        super::accept,
    ),
    // fio's fallback when it cannot allocate its random map; volbench's map is a keyed
    // permutation that needs no allocation, so there is nothing to fall back from.
    O::new(
        "softrandommap",
        C::Pattern,
        Kind::Flag,
        "Go on without a random map if it cannot be allocated (volbench's needs none)",
        "1",
        super::accept,
    ),
    O {
        details: "random offsets are drawn with replacement, as in fio (without it each block \
                  is visited once per pass)",
        show: Some(|j| j.pattern.norandommap.then(String::new)),
        ..O::new(
            "norandommap",
            C::Pattern,
            Kind::Flag,
            "Draw random offsets with replacement",
            "",
            |j, v| {
                j.pattern.norandommap = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["ba"],
        details: "random offsets are multiples of this instead of the block size, from the \
                  region's start, with room for the block before the region's end; as in fio \
                  the random map is then off (offsets drawn with replacement); `R,W` aligns \
                  the reads and the writes apart (a blank side is the other's)",
        show: Some(|j| {
            j.pattern.blockalign.map(|b| match j.pattern.blockalign_write {
                Some(w) if w != b => format!("{b},{w}"),
                _ => b.to_string(),
            })
        }),
        ..O::new(
            "blockalign",
            C::Pattern,
            Kind::Size,
            "Align random offsets to this instead of the block size (turns the random map off)",
            "4k",
            |j, v| {
                let s = v.need()?;
                let side = |p: &str| -> Result<Option<u64>, OptError> {
                    match p.trim() {
                        "" => Ok(None),
                        p => Ok(Some(v.size_of(p)?).filter(|b| *b > 0)),
                    }
                };
                let sides = super::fio_sides(s);
                let w = sides.get(1).copied().unwrap_or("");
                let (r, w) = (side(sides[0])?, side(w)?);
                let Some(ba) = r.or(w) else {
                    return Err(v.bad(s, "give an alignment in bytes, above 0 (ba=4k)"));
                };
                j.pattern.blockalign = Some(ba);
                j.pattern.blockalign_write = w.filter(|&w| w != ba);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            Some(
                if j.pattern.rand_identical {
                    "identical"
                } else {
                    "sequential"
                }
                .into(),
            )
        }),
        ..O::new(
            "rw_sequencer",
            C::Pattern,
            Kind::Choice(&["sequential", "identical"]),
            "With randread:N, run on sequentially between draws, or repeat the offset",
            "identical",
            |j, v| {
                j.pattern.rand_identical = v.choice()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "`r,w` forms; in a random job, each I/O is random with this chance and \
                  otherwise follows the last one of its file and direction (fio's draw from 1 to \
                  100 per I/O); sequential jobs ignore it, as fio's do",
        show: Some(|j| {
            let [r, w] = j.pattern.percentage_random;
            (j.pattern.percentage_random != [100, 100]).then(|| format!("{r},{w}"))
        }),
        ..O::new(
            "percentage_random",
            C::Pattern,
            Kind::Text,
            "A random job's share of random I/O, the rest sequential: 50, or read,write",
            "80",
            |j, v| {
                j.pattern.percentage_random = shares(v)?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["bs_unaligned"],
        details: "as fio: a bsrange's sizes are any byte count in it (uniform), not only its \
                  low end's multiples, while offsets stay on that grid (a random map marks \
                  every block a write touches); buffered I/O only, as O_DIRECT refuses such \
                  sizes in both tools. Checked against fio's write sizes under strace",
        show: Some(|j| j.pattern.bs_unaligned.then(|| "1".into())),
        ..O::new(
            "blocksize_unaligned",
            C::Pattern,
            Kind::Flag,
            "bsrange sizes of any byte count, not multiples of its low end",
            "1",
            |j, v| {
                j.pattern.bs_unaligned = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the two sizes of `bs=A,B` (or bsrange, bssplit) are those of \
                  sequential I/Os (A) and of random ones (B), in either direction, each I/O's \
                  kind drawn before its size (percentage_random); checked against fio's sizes \
                  under strace",
        show: Some(|j| j.pattern.bs_is_seq_rand.then(|| "1".into())),
        ..O::new(
            "bs_is_seq_rand",
            C::Pattern,
            Kind::Flag,
            "bs=A,B sizes sequential (A) and random (B) I/Os, not reads and writes",
            "1",
            |j, v| {
                j.pattern.bs_is_seq_rand = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "the complement of `percentage_random` (fio sets one from the other)",
        ..O::new(
            "percentage_sequential",
            C::Pattern,
            Kind::Text,
            "A random job's share of sequential I/O: 50, or read,write",
            "20",
            |j, v| {
                j.pattern.percentage_random = shares(v)?.map(|p| 100 - p);
                Ok(())
            },
        )
    },
    O {
        details: "`random` (default), `zipf:THETA`, `pareto:H`, `normal:DEV` and \
                  `zoned:IO/SIZE:...`, drawn as fio draws them: zipf by Gray et al.'s method with \
                  the normalising sum over at most 10M ranks, pareto as `(n-1)·u^(ln h/ln(1-h))`, \
                  fio's \"normal\" as the mean of 12 uniform draws over the region plus a uniform \
                  jitter DEV percent wide (so DEV is not a standard deviation, in fio either); \
                  the popularity rank is spread over the region by a keyed permutation (fio \
                  hashes it), zones are positional. Skewed draws are with replacement, as fio's \
                  are. The hottest 1 % and 10 % of blocks get the share of the reads they get in \
                  fio (strace of both tools, within 0.04). fio's center (`zipf:1.2:0.25`, 0 to \
                  1) turns the spread ranks round by that share of the region, as fio adds it to \
                  its hashed rank (normal: the share less a half). `zoned_abs:IO/BYTES:...` \
                  gives zones in bytes (`60/20g:40/100g`), a zone past the region's end cut at \
                  it",
        show: Some(|j| {
            let d = j.pattern.random_distribution.fio_form();
            Some(match j.pattern.random_center {
                Some(c) => format!("{d}:{c}"),
                None => d,
            })
        }),
        ..O::new(
            "random_distribution",
            C::Pattern,
            Kind::Text,
            "Skew of random offsets: random, zipf:1.2, pareto:0.9, normal:10, zoned:...",
            "zipf:1.2",
            |j, v| {
                let s = v.need()?;
                (j.pattern.random_distribution, j.pattern.random_center) =
                    crate::Distribution::parse_fio(s, v.kb).map_err(|why| v.bad(s, why))?;
                Ok(())
            },
        )
    },
    O {
        details: "an I/O that would touch bytes of one still in flight on its file waits until \
                  that one completes (one pass over the job's queue per I/O, only for jobs that \
                  ask). Checked against fio: 16 blocks drawn with replacement at QD16 never \
                  reach depth 16 in either tool with it, and do without it",
        show: Some(|j| j.pattern.serialize_overlap.then(|| "1".into())),
        ..O::new(
            "serialize_overlap",
            C::Pattern,
            Kind::Flag,
            "Never have two overlapping I/Os in flight",
            "1",
            |j, v| {
                j.pattern.serialize_overlap = v.flag()?;
                Ok(())
            },
        )
    },
];

fn show_rw(j: &JobSpec) -> Option<String> {
    Some(if j.pattern.seq_skip != 0 {
        format!("{}:{}", j.rw_name(), j.pattern.seq_skip)
    } else if j.pattern.rand_run > 1 {
        format!("{}:{}", j.rw_name(), j.pattern.rand_run)
    } else {
        j.rw_name().into()
    })
}

fn set_rw(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let full = v.need()?;
    let (s, modifier) = full.split_once(':').unwrap_or((full, ""));
    // fio's discard workloads follow the write pattern of the same order.
    (j.rw, j.pattern.trim) = match s.trim() {
        "trim" => (Rw::Write, Trim::Only),
        "randtrim" => (Rw::RandWrite, Trim::Only),
        "trimwrite" => (Rw::Write, Trim::ThenWrite),
        other => match Rw::parse(other) {
            Some(rw) => (rw, Trim::None),
            None => {
                return Err(v.bad(
                    s,
                    "use read, write, randread, randwrite, rw, readwrite, randrw, trim, \
                     randtrim or trimwrite",
                ))
            }
        },
    };
    // `read:8k` skips 8k after each I/O (a hole); `read:-8k` steps back (backwards).
    j.pattern.seq_skip = 0;
    j.pattern.rand_run = 0;
    if modifier.is_empty() {
        return Ok(());
    }
    // `randread:8`: a new random offset every 8 I/Os (a count, as fio reads it).
    if j.rw.is_random() {
        j.pattern.rand_run = num(v.opt.name, modifier)?;
        return Ok(());
    }
    let (neg, m) = match modifier.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, modifier),
    };
    let n = v.size_of(m)? as i64;
    j.pattern.seq_skip = if neg { -n } else { n };
    Ok(())
}

fn set_bs(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let s = v.need()?;
    // Reads, then writes (and trims), split as fio splits them: `bs=4k,64k`, also
    // `bs=4k-64k` or `bs=4k:64k` (ranges are bsrange's), and `bs_note` says so. A blank part
    // keeps what that direction had; one part sets both.
    let sides = super::fio_sides(s);
    let lead = |p: &str| -> Result<Option<u64>, OptError> {
        let p = p.split(['-', ':']).next().unwrap_or(p).trim();
        (!p.is_empty()).then(|| v.size_of(p)).transpose()
    };
    let had_w = j.pattern.write_sizes.map_or(j.bs, |w| w.bs);
    let r = lead(sides[0])?.unwrap_or(j.bs);
    let w = match sides.get(1) {
        None => r,
        Some(p) => lead(p)?.unwrap_or(had_w),
    };
    // The trims' size is read, as fio reads it, and runs at the reads' (volbench's trims
    // take the job's block size).
    sides.get(2).map(|t| lead(t)).transpose()?;
    // fio's bs is only the default of each direction's smallest and largest size: a bsrange
    // or bssplit sets those itself, before or after bs (fio 3.33: bsrange=1k-4k then bs=8k
    // runs 1k-4k).
    let ranged = j.pattern.write_sizes.is_some_and(|w| w.range.is_some());
    if j.pattern.bs_range.is_some() || ranged || !j.pattern.bssplit.is_empty() {
        return Ok(());
    }
    j.bs = r;
    j.pattern.bs_range = None;
    j.pattern.write_sizes = (w != r).then_some(WriteSizes { bs: w, range: None });
    Ok(())
}

/// `bs=4k-64k` runs reads of 4k and writes of 64k in fio, which a reader of the file may take
/// for a range.
fn bs_note(v: &str) -> Option<String> {
    if !v.contains(['-', ':']) {
        return None;
    }
    let sides = super::fio_sides(v);
    let (r, w) = (sides[0], sides.get(1).copied().unwrap_or(""));
    Some(format!(
        "bs={v}: fio reads '-' and ':' in bs as it reads ',': reads of {r}, writes of {w}, not \
         a range; for sizes drawn from a range, write bsrange={v}"
    ))
}

/// bsrange: `bs` is the low end, and sizes are drawn up to the high one; `R,W` gives the
/// writes their own range (see `JobSpec::settle_sizes`).
fn set_bs_range(j: &mut JobSpec, v: &Val, s: &str) -> Result<(), OptError> {
    let (r, w) = s.split_once(',').unwrap_or((s, ""));
    let (lo, hi) = range(v, r)?;
    let (wlo, whi) = if w.is_empty() { (lo, hi) } else { range(v, w)? };
    j.bs = lo;
    j.pattern.bs_range = (lo != hi).then_some((lo, hi));
    j.pattern.write_sizes = ((wlo, whi) != (lo, hi)).then_some(WriteSizes {
        bs: wlo,
        range: (wlo != whi).then_some((wlo, whi)),
    });
    Ok(())
}

/// fio's `low-high` range (`4k-64k`, or `512:1M` as fio also writes it; one value is a range
/// of one).
pub(super) fn range(v: &Val, s: &str) -> Result<(u64, u64), OptError> {
    let (a, b) = s.split_once(['-', ':']).unwrap_or((s, s));
    let (a, b) = (v.size_of(a)?, v.size_of(b)?);
    if a > b || a == 0 {
        return Err(v.bad(s, "give low-high with 0 < low <= high, e.g. 4k-64k"));
    }
    Ok((a, b))
}

fn set_bssplit(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let s = v.need()?;
    // `R,W`: the reads' split, then the writes' (a blank side is the other's).
    let (r, w) = s.split_once(',').unwrap_or((s, ""));
    if w.contains(',') {
        return Err(v.bad(
            s,
            "give at most two splits, reads,writes (trims are not split)",
        ));
    }
    let reads = one_split(v, if r.is_empty() { w } else { r })?;
    let writes = if w.is_empty() {
        Vec::new()
    } else {
        one_split(v, w)?
    };
    j.bs = reads
        .iter()
        .chain(&writes)
        .map(|b| b.bs)
        .min()
        .unwrap_or(j.bs);
    j.pattern.bssplit = reads;
    j.pattern.bssplit_write = writes;
    // The split's sizes are the job's smallest and largest now, as fio's str_bssplit_cb sets
    // them: an earlier bsrange no longer applies.
    j.pattern.bs_range = None;
    j.pattern.write_sizes = None;
    Ok(())
}

/// One direction's `4k/50:64k/30:1m/`: entries without a percentage share what is left
/// equally, as fio's.
fn one_split(v: &Val, s: &str) -> Result<Vec<BsSplit>, OptError> {
    let mut out = Vec::new();
    for part in s.split(':').filter(|p| !p.is_empty()) {
        let (b, p) = part
            .split_once('/')
            .ok_or_else(|| v.bad(s, "entries look like 4k/50"))?;
        out.push(BsSplit {
            bs: v.size_of(b)?,
            percent: if p.is_empty() { 0 } else { num(v.opt.name, p)? },
        });
    }
    let given: u32 = out.iter().map(|b| b.percent as u32).sum();
    let blanks = out.iter().filter(|b| b.percent == 0).count() as u32;
    if blanks > 0 && given < 100 {
        let each = (100 - given) / blanks;
        let mut extra = (100 - given) % blanks;
        for b in out.iter_mut().filter(|b| b.percent == 0) {
            b.percent = (each + u32::from(extra > 0)) as u8;
            extra = extra.saturating_sub(1);
        }
    }
    Ok(out)
}

/// Percentages per direction, fio's `r,w[,t]` form (one value for both; the trim share is
/// checked and dropped).
fn shares(v: &Val) -> Result<[u8; 2], OptError> {
    let s = v.need()?;
    let mut out = [0u8; 3];
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(v.bad(s, "give at most read,write,trim"));
    }
    for (i, slot) in out.iter_mut().enumerate() {
        let p = parts.get(i).or(parts.last()).copied().unwrap_or("100");
        let n: u8 = num(v.opt.name, p)?;
        if n > 100 {
            return Err(v.bad(s, "percentages run from 0 to 100"));
        }
        *slot = n;
    }
    Ok([out[0], out[1]])
}
