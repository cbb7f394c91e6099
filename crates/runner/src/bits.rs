//! A fixed-size set of block numbers, one bit each: the random map of mixed sizes (blocks done
//! this pass) and the closing read-back's marks (where writes began and ended).

#[derive(Clone)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// `n` blocks, none set.
    pub fn new(n: u64) -> Bits {
        Bits(vec![0; n.div_ceil(64) as usize])
    }

    #[inline]
    pub fn get(&self, b: u64) -> bool {
        self.0[(b / 64) as usize] >> (b % 64) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, b: u64) {
        self.0[(b / 64) as usize] |= 1 << (b % 64);
    }

    pub fn clear(&mut self) {
        self.0.fill(0);
    }

    /// The first block in `[b, n)` that is set.
    pub fn next_set(&self, b: u64, n: u64) -> Option<u64> {
        (b..n).find(|&x| self.get(x))
    }

    /// The first block at or after `b` that is not set, wrapping to the start (fio's
    /// axmap_next_free); the caller knows one below `n` is left.
    #[inline]
    pub fn next_clear(&self, b: u64, n: u64) -> u64 {
        let words = &self.0;
        let (mut w, bit) = ((b / 64) as usize, b % 64);
        let mut word = words[w] | ((1u64 << bit) - 1);
        loop {
            if word != u64::MAX {
                let f = w as u64 * 64 + (!word).trailing_zeros() as u64;
                if f < n {
                    return f;
                }
            }
            w = if w + 1 == words.len() { 0 } else { w + 1 };
            word = words[w];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_next_set_and_the_next_clear_wrapping() {
        let mut b = Bits::new(130);
        for x in [3, 64, 129] {
            b.set(x);
        }
        assert_eq!(b.next_set(4, 130), Some(64));
        assert_eq!(b.next_set(65, 129), None);
        assert_eq!(b.next_clear(3, 130), 4);
        for x in 0..130 {
            b.set(x);
        }
        let mut c = b.clone();
        c.clear();
        c.set(0);
        assert_eq!(c.next_clear(0, 130), 1);
        let mut d = Bits::new(130);
        (1..130).for_each(|x| d.set(x));
        assert_eq!(d.next_clear(100, 130), 0, "wraps past the last word");
    }
}
