//! Blocks drawn by fio's random distributions (`random_distribution`): zipf, pareto, normal
//! and zoned. Each turns two random words into a block index in `0..n`. Zipf, pareto and
//! normal give a popularity rank, which a keyed permutation spreads over the region (fio
//! hashes it), so the hot blocks are not all at the start; zoned and zoned_abs are
//! positional, as in fio. fio's center turns the spread ranks round by its share of the
//! region, as fio adds it to its hashed rank.
//! Draws are with replacement: a skewed job revisits its hot blocks, which is the point.

use crate::permutation::Permutation;
use workload::Distribution;

/// fio sums zipf's normalising series over at most this many ranks (a second or two of
/// start-up at worst); the rest changes the constant by little.
const ZIPF_MAX_TERMS: u64 = 10_000_000;

enum Kind {
    Zipf {
        zetan: f64,
        zeta2: f64,
        alpha: f64,
        eta: f64,
    },
    Pareto {
        pow: f64,
    },
    /// fio's "normal": the mean of 12 uniform draws over the region, plus a uniform jitter
    /// `width` blocks wide.
    Normal {
        width: u64,
    },
    /// Cumulative I/O share (percent) and the block range of each zone.
    Zoned(Vec<(u32, u64, u64)>),
}

pub struct Skew {
    kind: Kind,
    n: u64,
    scatter: Permutation,
    /// fio's center, as blocks to turn the ranks round by (`rand_off` in fio).
    turn: Option<u64>,
}

/// A uniform in [0, 1) from a random word.
fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

impl Skew {
    /// The sampler for `d` over `n` blocks of `unit` bytes (zoned_abs's zones are in bytes),
    /// centered at `center` (a share of the region) if given; `None` for the uniform
    /// distribution.
    pub fn new(
        d: &Distribution,
        (n, unit): (u64, u64),
        seed: u64,
        center: Option<f64>,
    ) -> Option<Skew> {
        let n = n.max(1);
        // fio: zipf and pareto put rank 0 at center·n, normal shifts its middle there.
        let turn = center.map(|c| {
            let at = match d {
                Distribution::Normal(_) => c - 0.5,
                _ => c,
            };
            ((at * n as f64) as i64).rem_euclid(n as i64) as u64
        });
        let kind = match *d {
            Distribution::Random => return None,
            Distribution::Zipf(theta) => {
                let terms = n.min(ZIPF_MAX_TERMS);
                let zetan: f64 = (1..=terms).map(|i| (i as f64).powf(-theta)).sum();
                let zeta2 = 1.0 + 0.5f64.powf(theta);
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                Kind::Zipf {
                    zetan,
                    zeta2,
                    alpha,
                    eta,
                }
            }
            Distribution::Pareto(h) => Kind::Pareto {
                pow: h.ln() / (1.0 - h).ln(),
            },
            Distribution::Normal(dev) => Kind::Normal {
                width: ((n as f64 * dev / 100.0).ceil() as u64).min(n / 2),
            },
            Distribution::Zoned(ref zones) => {
                // Each zone at least one block, all inside the region.
                let (mut io, mut size, mut v) = (0u32, 0u64, Vec::new());
                for &(share, pct) in zones {
                    let from = (n * size / 100).min(n - 1);
                    size += pct as u64;
                    let to = (n * size / 100).clamp(from + 1, n);
                    io += share as u32;
                    v.push((io, from, to - from));
                }
                Kind::Zoned(v)
            }
            Distribution::ZonedAbs(ref zones) => Kind::Zoned(absolute(zones, n, unit.max(1))),
        };
        Some(Skew {
            kind,
            n,
            scatter: Permutation::new(n, seed),
            turn,
        })
    }

    /// fio's center as a turn of the ranks, in `0..n`, if given.
    pub fn center_turn(&self) -> Option<u64> {
        self.turn
    }

    /// The number of blocks (or ranks) drawn over.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// A block index in `0..n` from two random words: a rank spread by the permutation, or
    /// a zone's block.
    #[inline]
    pub fn block(&self, r1: u64, r2: u64) -> u64 {
        if let Kind::Zoned(zones) = &self.kind {
            let pick = (r1 % 100) as u32;
            let &(_, at, len) = zones
                .iter()
                .find(|z| pick < z.0)
                .unwrap_or(&zones[zones.len() - 1]);
            return at + r2 % len;
        }
        let b = self.scatter.get(self.rank(r1, r2));
        match self.turn {
            Some(t) => (b + t) % self.n,
            None => b,
        }
    }

    /// The popularity rank (zipf, pareto) or position (normal) in `0..n`, not spread: fio's
    /// draw with its hash off, as it draws files.
    #[inline]
    pub fn rank(&self, r1: u64, r2: u64) -> u64 {
        let n = self.n;
        let rank = match &self.kind {
            Kind::Zipf {
                zetan,
                zeta2,
                alpha,
                eta,
            } => {
                let u = unit(r1);
                let z = u * zetan;
                if z < 1.0 {
                    0
                } else if z < *zeta2 {
                    1
                } else {
                    (n as f64 * (eta * u - eta + 1.0).powf(*alpha)) as u64
                }
            }
            Kind::Pareto { pow } => ((n - 1) as f64 * unit(r1).powf(*pow)) as u64,
            Kind::Normal { width } => {
                // Twelve draws, each the next of a chain started at r1.
                let mut s = r1;
                let mut sum = 0u64;
                for _ in 0..12 {
                    s = crate::permutation::mix(s);
                    sum += s % (n + 1);
                }
                let mean = sum.div_ceil(12);
                let jitter = if *width > 0 {
                    (r2 % width) as i64 - (*width / 2) as i64
                } else {
                    0
                };
                mean.saturating_add_signed(jitter)
            }
            // Zones are positional ([`Skew::block`]); as a rank, the zone's start.
            Kind::Zoned(zones) => zones[0].1,
        };
        rank.min(n - 1)
    }
}

/// zoned_abs's zones as block ranges: each from where the last ended, its bytes long, cut at
/// the region's end (at least one block each, as a zoned zone).
fn absolute(zones: &[(u8, u64)], n: u64, unit: u64) -> Vec<(u32, u64, u64)> {
    let (mut io, mut at, mut v) = (0u32, 0u64, Vec::new());
    for &(share, bytes) in zones {
        let from = at.min(n - 1);
        let to = (at + bytes.div_ceil(unit)).clamp(from + 1, n);
        io += share as u32;
        v.push((io, from, to - from));
        at = to;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permutation::mix;

    /// The shares of the draws that land on the hottest 1 % and 10 % of `n` blocks.
    fn shares(d: &str, n: u64) -> (f64, f64) {
        let s = Skew::new(&Distribution::parse(d).unwrap(), (n, 1), 7, None).unwrap();
        let mut hits = vec![0u32; n as usize];
        let mut r = 1u64;
        let draws = 200_000;
        for _ in 0..draws {
            r = mix(r);
            let r2 = mix(r ^ 0x55);
            hits[s.block(r, r2) as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        let top = |k: usize| hits[..k].iter().map(|&h| h as f64).sum::<f64>() / draws as f64;
        (top(n as usize / 100), top(n as usize / 10))
    }

    #[test]
    fn hot_sets_are_fios() {
        // fio 3.33's own draws on 4096 blocks (write_iolog, 20,000 I/Os): top 1 % and 10 %.
        for (d, fio1, fio10) in [
            ("zipf:1.2", 0.710, 0.898),
            ("zipf:0.8", 0.290, 0.573),
            ("pareto:0.8", 0.078, 0.545),
            ("normal:5", 0.061, 0.468),
            ("zoned:60/10:30/20:10/70", 0.078, 0.597),
        ] {
            let (t1, t10) = shares(d, 4096);
            assert!(
                (t1 - fio1).abs() < 0.03 && (t10 - fio10).abs() < 0.03,
                "{d}: {t1} {t10}"
            );
        }
    }

    #[test]
    fn a_center_turns_the_blocks_round_by_its_share() {
        // fio adds center·n to its hashed rank (normal: (center - ½)·n): the same draws land
        // that many blocks on, wrapping at the region's end.
        for (d, c, by) in [
            ("zipf:1.2", 0.25, 250),
            ("normal:10", 0.75, 250),
            ("pareto:0.5", 1.0, 0),
        ] {
            let dist = Distribution::parse(d).unwrap();
            let plain = Skew::new(&dist, (1000, 1), 3, None).unwrap();
            let centered = Skew::new(&dist, (1000, 1), 3, Some(c)).unwrap();
            let mut r = 9u64;
            for _ in 0..1000 {
                r = mix(r);
                assert_eq!(
                    centered.block(r, mix(r)),
                    (plain.block(r, mix(r)) + by) % 1000,
                    "{d}"
                );
            }
        }
        // zoned_abs: zones in bytes from the start, the last cut at the region's end.
        let z = Distribution::parse("zoned_abs:50/4k:50/1m").unwrap();
        let s = Skew::new(&z, (100, 1024), 1, None).unwrap();
        let mut r = 5u64;
        let mut first = 0;
        for _ in 0..10_000 {
            r = mix(r);
            let b = s.block(r, mix(r));
            assert!(b < 100);
            first += u32::from(b < 4);
        }
        assert!(
            (4500..5500).contains(&first),
            "{first} of 10,000 in the first 4 KiB"
        );
    }

    #[test]
    fn blocks_stay_in_the_region() {
        for d in [
            "zipf:1.2",
            "zipf:0.5",
            "pareto:0.9",
            "normal:50",
            "zoned:50/50:50/50",
        ] {
            for n in [1, 2, 3, 1000] {
                let s = Skew::new(&Distribution::parse(d).unwrap(), (n, 1), 1, None).unwrap();
                let mut r = 3u64;
                for _ in 0..10_000 {
                    r = mix(r);
                    assert!(s.block(r, mix(r)) < n, "{d} over {n}");
                }
            }
        }
    }
}
