//! A keyed Feistel permutation of block indices, so each pass of a random job touches every
//! block exactly once (fio's random map) without a bitmap: O(1) memory whatever the device
//! size. A new key starts each pass. Also the seed mixers every random stream derives from.

/// A bijection on `0..n`, computed on the fly.
#[derive(Clone, Debug)]
pub struct Permutation {
    pub(crate) n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; 4],
}

/// splitmix64: the next state of a counter-based generator, for deriving seeds.
pub(crate) fn splitmix(x: u64) -> u64 {
    mix(x.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser: cheap and well distributed.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Permutation {
        let bits = 64 - n.max(2).saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut s = seed;
        let mut key = || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            mix(s)
        };
        Permutation {
            n,
            half_bits,
            mask: (1u64 << half_bits) - 1,
            keys: [key(), key(), key(), key()],
        }
    }

    #[inline]
    fn round_trip(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half_bits, x & self.mask);
        for k in self.keys {
            let t = l ^ (mix(r ^ k) & self.mask);
            l = r;
            r = t;
        }
        (l << self.half_bits) | r
    }

    /// The `i`-th element of the permutation (`i < n`).
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        // Cycle-walk: the Feistel domain is at most 4n, so this loops a few times at most.
        let mut x = self.round_trip(i);
        while x >= self.n {
            x = self.round_trip(x);
        }
        x
    }
}
