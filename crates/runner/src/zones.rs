//! fio's `zonemode=strided`: a job's I/O done `zonesize` bytes at a time in zones of
//! `zonerange` bytes, each zone `zonerange + zoneskip` after the last, wrapping to the start
//! past the end of the region (fio's setup_strided_zone_mode).
//!
//! The pattern of a zone (sequential, or random with its own random map) is the job's own,
//! built afresh for the zone's range whenever fio resets its file: on entering a zone, and
//! again after each `zonerange` bytes when `zonesize` is larger (the zone gone round again).

/// Where the job is among its zones.
pub(crate) struct Strided {
    size: u64,
    range: u64,
    skip: u64,
    /// The region: the first zone's start, and its end.
    base: u64,
    end: u64,
    /// The current zone's start and the bytes done in it.
    at: u64,
    bytes: u64,
    /// Zones entered or gone round so far: each gets a pattern keyed apart.
    pub turns: u64,
}

impl Strided {
    pub fn new((size, range, skip): (u64, u64, u64), (start, len): (u64, u64)) -> Strided {
        Strided {
            size,
            range,
            skip,
            base: start,
            end: start + len,
            at: start,
            bytes: 0,
            turns: 0,
        }
    }

    /// Before an I/O: the zone `(start, len)` whose pattern starts afresh now, if one does.
    pub fn turn(&mut self) -> Option<(u64, u64)> {
        if self.bytes >= self.size {
            self.bytes = 0;
            self.at += self.range + self.skip;
            if self.at >= self.end {
                self.at = self.base;
            }
        }
        if !self.bytes.is_multiple_of(self.range) {
            return None;
        }
        self.turns += 1;
        Some((self.at, self.range.min(self.end - self.at)))
    }

    /// After an I/O of `len` bytes.
    pub fn did(&mut self, len: u64) {
        self.bytes += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zones entered by `n` I/Os of `bs` bytes, with where each pattern restarts.
    fn walk(z: &mut Strided, n: usize, bs: u64) -> Vec<Option<(u64, u64)>> {
        (0..n)
            .map(|_| {
                let t = z.turn();
                z.did(bs);
                t
            })
            .collect()
    }

    #[test]
    fn zones_advance_by_range_and_skip_and_wrap_past_the_end() {
        const K: u64 = 1024;
        let mut z = Strided::new((128 * K, 256 * K, 768 * K), (0, 4096 * K));
        let starts: Vec<u64> = walk(&mut z, 10, 64 * K)
            .into_iter()
            .flatten()
            .map(|t| t.0)
            .collect();
        assert_eq!(starts, [0, 1024 * K, 2048 * K, 3072 * K, 0]);
    }

    #[test]
    fn a_zonesize_over_the_range_goes_round_the_zone_again() {
        const K: u64 = 1024;
        let mut z = Strided::new((512 * K, 256 * K, 0), (0, 1024 * K));
        let t = walk(&mut z, 12, 64 * K);
        let restarts: Vec<(usize, u64)> = t
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (i, t.0)))
            .collect();
        assert_eq!(restarts, [(0, 0), (4, 0), (8, 256 * K)]);
    }
}
