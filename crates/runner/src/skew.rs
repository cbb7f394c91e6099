//! Blocks drawn by fio's random distributions (`random_distribution`): zipf, pareto, normal
//! and zoned. Each turns two random words into a block index in `0..n`. Zipf, pareto and
//! normal give a popularity rank, which a keyed permutation spreads over the region (fio
//! hashes it), so the hot blocks are not all at the start; zoned is positional, as in fio.
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
}

/// A uniform in [0, 1) from a random word.
fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

impl Skew {
    /// The sampler for `d` over `n` blocks; `None` for the uniform distribution.
    pub fn new(d: &Distribution, n: u64, seed: u64) -> Option<Skew> {
        let n = n.max(1);
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
        };
        Some(Skew {
            kind,
            n,
            scatter: Permutation::new(n, seed),
        })
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
        self.scatter.get(self.rank(r1, r2))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permutation::mix;

    /// The shares of the draws that land on the hottest 1 % and 10 % of `n` blocks.
    fn shares(d: &str, n: u64) -> (f64, f64) {
        let s = Skew::new(&Distribution::parse(d).unwrap(), n, 7).unwrap();
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
    fn blocks_stay_in_the_region() {
        for d in [
            "zipf:1.2",
            "zipf:0.5",
            "pareto:0.9",
            "normal:50",
            "zoned:50/50:50/50",
        ] {
            for n in [1, 2, 3, 1000] {
                let s = Skew::new(&Distribution::parse(d).unwrap(), n, 1).unwrap();
                let mut r = 3u64;
                for _ in 0..10_000 {
                    r = mix(r);
                    assert!(s.block(r, mix(r)) < n, "{d} over {n}");
                }
            }
        }
    }
}
