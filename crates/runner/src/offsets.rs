//! Where the next I/O goes: sequential cursors, a seeded random permutation (each pass
//! touches every block exactly once, as fio's random map), uniform draws and fio's skewed
//! distributions.

use crate::bits::Bits;
use crate::permutation::{mix, Permutation};

/// Offsets for one direction of one file of one job, in a region `[start, end)`. Offsets are
/// aligned to `align` (the smallest block size); an I/O of `len` never crosses `end`.
pub enum Offsets {
    Sequential {
        start: u64,
        end: u64,
        next: u64,
        /// Bytes skipped after each I/O; negative steps back (fio's `rw=read:-8k`).
        skip: i64,
    },
    Random {
        start: u64,
        end: u64,
        align: u64,
        perm: Permutation,
        i: u64,
        seed: u64,
    },
    /// fio's random map with mixed block sizes: each block of the smallest size is done once a
    /// pass. As fio, a uniform draw that lands on a block already done moves to the next one
    /// free, and an I/O that would run into a block already done is cut short there.
    Mapped {
        start: u64,
        align: u64,
        blocks: u64,
        state: u64,
        /// Blocks not yet done this pass.
        left: u64,
        /// The blocks this pass has done.
        done: Bits,
    },
    /// Uniform with replacement (fio's `norandommap`).
    Uniform {
        start: u64,
        end: u64,
        align: u64,
        state: u64,
    },
    /// By one of fio's skewed distributions, with replacement.
    Skewed {
        start: u64,
        end: u64,
        align: u64,
        skew: Box<crate::skew::Skew>,
        state: u64,
    },
}

impl Offsets {
    pub fn sequential(start: u64, len: u64, skip: i64) -> Offsets {
        Offsets::Sequential {
            start,
            end: start + len,
            next: start,
            skip,
        }
    }

    pub fn random(start: u64, len: u64, align: u64, seed: u64) -> Offsets {
        Offsets::Random {
            start,
            end: start + len,
            align,
            perm: Permutation::new((len / align).max(1), seed),
            i: 0,
            seed,
        }
    }

    pub fn mapped(start: u64, len: u64, align: u64, seed: u64) -> Offsets {
        let blocks = (len / align).max(1);
        Offsets::Mapped {
            start,
            align,
            blocks,
            state: seed | 1,
            left: blocks,
            done: Bits::new(blocks),
        }
    }

    /// The next I/O of up to `len` bytes: its offset and length. Only the random map with
    /// mixed sizes shortens an I/O (fio's mark_random_map); the other patterns keep `len`.
    #[inline]
    pub fn next_io(&mut self, len: u64) -> (u64, u64) {
        if let Offsets::Sequential {
            next, end, skip: 0, ..
        } = self
        {
            // Mixed sizes: the pass's last I/O takes what is left of the region, as fio picks
            // a size that fits, so a pass writes each byte once.
            if *next < *end && *next + len > *end {
                let o = *next;
                *next = *end;
                return (o, *end - o);
            }
        }
        let Offsets::Mapped {
            start,
            align,
            blocks,
            state,
            left,
            done,
        } = self
        else {
            return (self.next(len), len);
        };
        if *left == 0 {
            done.clear();
            *left = *blocks;
        }
        *state = mix(*state);
        let b = done.next_clear(*state % *blocks, *blocks);
        // A size off the blocks' grid (bs_unaligned) marks every block it touches.
        let want = len.div_ceil(*align).max(1);
        let most = want.min(*blocks - b);
        let mut k = 0;
        while k < most && !done.get(b + k) {
            done.set(b + k);
            k += 1;
        }
        *left -= k;
        let got = if k == want {
            len.max(*align)
        } else {
            k * *align
        };
        (*start + b * *align, got)
    }

    pub fn uniform(start: u64, len: u64, align: u64, seed: u64) -> Offsets {
        Offsets::Uniform {
            start,
            end: start + len,
            align,
            state: seed | 1,
        }
    }

    pub fn skewed(start: u64, len: u64, align: u64, skew: crate::skew::Skew, seed: u64) -> Offsets {
        Offsets::Skewed {
            start,
            end: start + len,
            align,
            skew: Box::new(skew),
            state: seed | 1,
        }
    }

    /// The next offset for an I/O of `len` bytes; wraps to the start after a full pass.
    #[inline]
    pub fn next(&mut self, len: u64) -> u64 {
        match self {
            Offsets::Sequential {
                start,
                end,
                next,
                skip,
            } => sequential((*start, *end, *skip), next, len),
            Offsets::Random {
                start,
                end,
                align,
                perm,
                i,
                seed,
            } => {
                if *i >= perm.n {
                    *seed = mix(*seed);
                    *perm = Permutation::new(perm.n, *seed);
                    *i = 0;
                }
                let o = *start + perm.get(*i) * *align;
                *i += 1;
                clamp(o, len, *start, *end, *align)
            }
            Offsets::Mapped { .. } => self.next_io(len).0,
            Offsets::Uniform {
                start,
                end,
                align,
                state,
            } => {
                *state = mix(*state);
                let blocks = ((*end - *start) / *align).max(1);
                let o = *start + (*state % blocks) * *align;
                clamp(o, len, *start, *end, *align)
            }
            Offsets::Skewed {
                start,
                end,
                align,
                skew,
                state,
            } => {
                let r1 = mix(*state);
                *state = mix(r1);
                let o = *start + skew.block(r1, *state) * *align;
                clamp(o, len, *start, *end, *align)
            }
        }
    }
}

/// A sequential pass's next offset, stepping by `len` plus the `skip` of fio's rw modifier.
/// Off either end: a forward pass starts again at the start, a backward one at the last
/// whole block.
#[inline(always)]
fn sequential((start, end, skip): (u64, u64, i64), next: &mut u64, len: u64) -> u64 {
    if *next + len > end {
        *next = if skip >= 0 || len as i64 + skip >= 0 {
            start
        } else {
            (end - len).max(start)
        };
    }
    let o = *next;
    *next = match o.checked_add_signed(len as i64 + skip) {
        Some(n) if n >= start => n,
        _ => u64::MAX / 2, // past the end: wraps on the next call
    };
    o
}

/// Pulls an I/O that would cross the region's end back inside it (mixed block sizes only).
#[inline]
fn clamp(o: u64, len: u64, start: u64, end: u64, align: u64) -> u64 {
    if o + len <= end {
        o
    } else {
        (end.saturating_sub(len).max(start) - start) / align * align + start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_skips_and_steps_back_as_fio_modifiers() {
        let mut o = Offsets::sequential(0, 64 << 10, 8 << 10);
        let got: Vec<u64> = (0..6).map(|_| o.next(4096) >> 10).collect();
        assert_eq!(got, [0, 12, 24, 36, 48, 60]);
        assert_eq!(o.next(4096), 0, "wraps to the start");
        let mut o = Offsets::sequential(0, 16 << 10, -(8 << 10));
        let got: Vec<u64> = (0..5).map(|_| o.next(4096) >> 10).collect();
        assert_eq!(got, [0, 12, 8, 4, 0], "backwards from the last block");
    }

    #[test]
    fn permutation_covers_every_block_once() {
        for n in [1u64, 2, 3, 7, 64, 1000, 4097] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let x = p.get(i) as usize;
                assert!(!seen[x], "n={n}: {x} twice");
                seen[x] = true;
            }
        }
    }

    #[test]
    fn permutation_is_not_the_identity_and_depends_on_seed() {
        let a: Vec<u64> = (0..100).map(|i| Permutation::new(100, 1).get(i)).collect();
        let b: Vec<u64> = (0..100).map(|i| Permutation::new(100, 2).get(i)).collect();
        assert_ne!(a, (0..100).collect::<Vec<_>>());
        assert_ne!(a, b);
    }

    #[test]
    fn sequential_wraps_within_region() {
        let mut o = Offsets::sequential(4096, 3 * 4096, 0);
        let v: Vec<u64> = (0..4).map(|_| o.next(4096)).collect();
        assert_eq!(v, vec![4096, 8192, 12288, 4096]);
    }

    #[test]
    fn random_offsets_are_aligned_and_in_range() {
        for mut o in [
            Offsets::random(1 << 20, 1 << 20, 4096, 9),
            Offsets::uniform(1 << 20, 1 << 20, 4096, 9),
        ] {
            for i in 0..1000 {
                let len = if i % 3 == 0 { 65536 } else { 4096 };
                let x = o.next(len);
                assert!(
                    x >= 1 << 20 && x + len <= 2 << 20 && x % 4096 == 0,
                    "{x} {len}"
                );
            }
        }
    }

    #[test]
    fn the_mapped_pattern_does_each_block_once_a_pass_cutting_ios_short() {
        let (blocks, align) = (1000u64, 4096u64);
        let mut o = Offsets::mapped(1 << 20, blocks * align, align, 5);
        for _pass in 0..3 {
            let mut seen = vec![false; blocks as usize];
            let (mut bytes, mut cut) = (0, 0);
            while bytes < blocks * align {
                let (off, len) = o.next_io(16 * align);
                assert!(
                    len >= align && len <= 16 * align && off % align == 0,
                    "{off} {len}"
                );
                cut += usize::from(len < 16 * align);
                for b in (off - (1 << 20)) / align..(off + len - (1 << 20)) / align {
                    assert!(!seen[b as usize], "block {b} twice in a pass");
                    seen[b as usize] = true;
                }
                bytes += len;
            }
            assert!(seen.iter().all(|&s| s) && cut > 0);
        }
    }

    #[test]
    fn uniform_offsets_repeat_blocks() {
        let mut o = Offsets::uniform(0, 64 * 4096, 4096, 3);
        let mut seen = std::collections::HashSet::new();
        let repeats = (0..64).filter(|_| !seen.insert(o.next(4096))).count();
        assert!(
            repeats > 0,
            "with replacement, 64 draws over 64 blocks repeat"
        );
    }
}
