//! What goes into write buffers, and the block header that `--verify` checks on read.
//!
//! By default every write's bytes are fresh. Each queue slot is filled with pseudo-random
//! bytes once; before each write, every 512-byte sector of it is XORed with a 64-bit key of
//! its own, from a counter-based hash of the job's data seed, the write and the sector. Every
//! byte changes with every write, no sector repeats (in a run, or from run to run: the seed
//! is the run's own unless `randseed` is given), and nothing a compressor can use is left.
//! It costs one pass over the buffer in cache: 28 GB/s at 4 KiB here, where filling each
//! buffer anew from a generator runs at 4-6 GB/s (wyrand 4.6, splitmix64 3.6). A slot a read
//! filled is copied from a pool of random bytes made once and rekeyed before its next write:
//! the read may have brought back zeros, which keys alone would only make periodic.
//!
//! fio's data options shape the bytes as fio's do: compressible chunks (random then zeros or
//! a pattern, the random part fresh per write), a share of whole buffers repeating another
//! (`dedupe_percentage`: the next unique buffer, or a working set's page), zeros, a pattern,
//! or buffers filled once and written as they are (`refill_buffers=0, scramble_buffers=0`).
//! Buffers that must repeat are made from an index, so the same index gives the same bytes.

use md5::{Digest, Md5};
use sha1::Sha1;
use sha2::{Sha256, Sha512};
use workload::{BufferMode, Dedupe, JobSpec, Verify};

pub const VERIFY_MAGIC: [u8; 4] = *b"VBv1";

/// splitmix64's finaliser: a counter in, 64 well-mixed bits out.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Fills `buf` from `key` with wyrand's stream (one 128-bit multiply per 8 bytes).
pub fn fill_random(buf: &mut [u8], key: u64) {
    let mut s = mix(key);
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        s = s.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (s as u128).wrapping_mul((s ^ 0xe703_7ed1_a0b4_28db) as u128);
        c.copy_from_slice(&(((t >> 64) as u64) ^ (t as u64)).to_ne_bytes());
    }
    let rest = chunks.into_remainder();
    let last = mix(s).to_ne_bytes();
    rest.copy_from_slice(&last[..rest.len()]);
}

/// XORs each 512-byte sector of `buf` with its own key from `key`: fresh bytes, in place.
#[inline]
fn rekey(buf: &mut [u8], key: u64) {
    let wk = mix(key);
    for (s, sector) in buf.chunks_mut(512).enumerate() {
        let k = wk.wrapping_add((s as u64).wrapping_mul(GOLDEN));
        let mut words = sector.chunks_exact_mut(8);
        for c in &mut words {
            let v = u64::from_ne_bytes(c.try_into().expect("8 bytes")) ^ k;
            c.copy_from_slice(&v.to_ne_bytes());
        }
        // A block that is no whole number of words (fio's bs=1 or 2300) changes to its end.
        let tail = words.into_remainder();
        tail.iter_mut()
            .zip(k.to_ne_bytes())
            .for_each(|(b, x)| *b ^= x);
    }
}

fn fill_pattern(buf: &mut [u8], p: &[u8]) {
    if p.is_empty() {
        buf.fill(0);
    } else {
        buf.iter_mut()
            .zip(p.iter().cycle())
            .for_each(|(b, v)| *b = *v);
    }
}

/// One job's write data: its mode, its seed, and the count of unique buffers it made.
pub struct Data {
    mode: BufferMode,
    /// Data changes per write (fio's refill or scramble); off: filled once, written as is.
    fresh: bool,
    dedupe: Dedupe,
    seed: u64,
    /// The run's seed: a global working set's pages are the same in every job.
    run_seed: u64,
    /// Writes prepared (keys) and unique buffers made (indices), and the dedupe dice.
    writes: u64,
    unique: u64,
    dice: u64,
    working_set: u64,
    /// Random bytes made once, as long as the job's largest block: a slot a read filled is
    /// copied from it and rekeyed before its next write, at memcpy's speed, where a fill
    /// from the generator ran at a sixth of it (mixed buffered jobs bound by the CPU: five
    /// mmap jobs on one file ran 0.5-0.6x fio's IOPS).
    pool: Vec<u8>,
}

impl Data {
    /// `seed` is this job's own (the run's seed or randseed, and the job), `size` its
    /// region (a working set's share is of it).
    pub fn new(spec: &JobSpec, seed: u64, run_seed: u64, size: u64) -> Data {
        let pct = spec.buffers.dedupe.working_set_percent as u64;
        Data {
            mode: spec.buffers.buffer.clone(),
            fresh: spec.buffers.refill_buffers || spec.buffers.scramble_buffers,
            dedupe: spec.buffers.dedupe,
            seed,
            run_seed,
            writes: 0,
            unique: 0,
            dice: mix(seed ^ 0xd1ce),
            working_set: (size * pct / 100 / spec.bs.max(1)).max(1),
            pool: Vec::new(),
        }
    }

    /// A slot's first content, before any write.
    pub fn fill_slot(&mut self, buf: &mut [u8], slot: u32) {
        match &self.mode {
            BufferMode::Random => fill_random(buf, self.seed ^ mix(slot as u64 + 1)),
            _ => self.refill(buf),
        }
    }

    /// Makes `buf` this write's data. `after_read`: a read filled the slot last.
    #[inline]
    pub fn prepare(&mut self, buf: &mut [u8], after_read: bool) {
        self.writes += 1;
        let plain = matches!(self.mode, BufferMode::Random) && !self.dedupe.on();
        let key = self.seed ^ self.writes.wrapping_mul(GOLDEN);
        match (plain, self.fresh, after_read) {
            (true, true, false) => rekey(buf, key),
            (true, true, true) => self.repool(buf, key),
            (true, false, false) => {}
            _ if matches!(self.mode, BufferMode::Zero | BufferMode::Pattern(_)) && !after_read => {}
            _ => self.refill(buf),
        }
    }

    /// A slot a read filled, made random again: the pool's bytes, rekeyed for this write
    /// (every sector XORed with a key of its own, so no sector repeats another write's).
    #[inline]
    fn repool(&mut self, buf: &mut [u8], key: u64) {
        if self.pool.len() < buf.len() {
            self.pool.resize(buf.len(), 0);
            fill_random(&mut self.pool, self.seed ^ 0x9001);
        }
        buf.copy_from_slice(&self.pool[..buf.len()]);
        rekey(buf, key);
    }

    /// New content from the buffer's index: the next unique one, or a duplicate's.
    fn refill(&mut self, buf: &mut [u8]) {
        let (index, key) = self.pick();
        match &self.mode {
            BufferMode::Zero => buf.fill(0),
            BufferMode::Pattern(p) => fill_pattern(buf, p),
            BufferMode::Random => fill_random(buf, key ^ index.wrapping_mul(GOLDEN)),
            BufferMode::Compressible {
                percent,
                chunk,
                filler,
            } => compressible(
                buf,
                key ^ index.wrapping_mul(GOLDEN),
                *percent,
                *chunk,
                filler,
            ),
        }
    }

    /// fio's choice for each buffer: with `dedupe_percentage` % a duplicate (in repeat mode
    /// the next unique buffer's index, in working-set mode a page of the set), else the next
    /// unique index. Returns the index and the seed it is made from.
    fn pick(&mut self) -> (u64, u64) {
        let d = self.dedupe;
        self.dice = mix(self.dice.wrapping_add(GOLDEN));
        let dup = d.on() && self.dice % 100 < d.percent as u64;
        match (dup, d.working_set) {
            (true, false) => (self.unique, self.seed),
            (true, true) => {
                let page = mix(self.dice) % self.working_set;
                (page, if d.global { self.run_seed } else { self.seed })
            }
            (false, _) => {
                self.unique += 1;
                (self.unique - 1, self.seed)
            }
        }
    }
}

/// fio's compressible buffer: in every `chunk`, the first (100 - `percent`) % random (fresh
/// from `key` and the chunk) and the rest `filler` (zeros when empty).
fn compressible(buf: &mut [u8], key: u64, percent: u8, chunk: u32, filler: &[u8]) {
    let chunk = (chunk as usize).max(1);
    for (i, c) in buf.chunks_mut(chunk).enumerate() {
        let random = (chunk * (100 - percent.min(100) as usize) / 100).min(c.len());
        fill_random(&mut c[..random], key ^ mix(i as u64 + 1));
        fill_pattern(&mut c[random..], filler);
    }
}

/// Writes the verify header: magic, checksum, offset, sequence, length and method, so a read
/// can tell a torn, misplaced or stale block from a good one. crc32c covers everything after
/// its own field; md5 (16 bytes at 32..48) covers everything but its own bytes and the crc field.
pub fn write_header(buf: &mut [u8], offset: u64, seq: u64, algo: Verify) {
    buf[0..4].copy_from_slice(&VERIFY_MAGIC);
    buf[4..8].fill(0);
    buf[8..16].copy_from_slice(&offset.to_le_bytes());
    buf[16..24].copy_from_slice(&seq.to_le_bytes());
    let len = buf.len() as u32;
    buf[24..28].copy_from_slice(&len.to_le_bytes());
    buf[28..32].fill(0);
    buf[28] = algo_id(algo);
    match algo {
        Verify::Crc32c => {
            let crc = crc32c::crc32c(&buf[8..]);
            buf[4..8].copy_from_slice(&crc.to_le_bytes());
        }
        _ => {
            let d = digest_of(buf, algo);
            buf[32..32 + d.len()].copy_from_slice(&d);
        }
    }
}

fn algo_id(a: Verify) -> u8 {
    match a {
        Verify::Crc32c => 0,
        Verify::Md5 => 1,
        Verify::Sha1 => 2,
        Verify::Sha256 => 3,
        Verify::Sha512 => 4,
        Verify::Pattern => 5,
    }
}

/// A digest method's hash of the block: the header fields before it (8..32) and everything
/// after its own bytes, which sit at 32.. (16 bytes for md5 up to 64 for sha512).
fn digest_of(buf: &[u8], algo: Verify) -> Vec<u8> {
    fn h<D: Digest>(buf: &[u8], len: usize) -> Vec<u8> {
        let mut d = D::new();
        d.update(&buf[8..32]);
        d.update(&buf[32 + len..]);
        d.finalize().to_vec()
    }
    match algo {
        Verify::Sha1 => h::<Sha1>(buf, 20),
        Verify::Sha256 => h::<Sha256>(buf, 32),
        Verify::Sha512 => h::<Sha512>(buf, 64),
        _ => h::<Md5>(buf, 16),
    }
}

/// fio's pattern check: every byte of `buf` (a block read from `offset`) holds `pattern`,
/// repeated from the block's start.
pub fn check_pattern(buf: &[u8], offset: u64, pattern: &[u8]) -> Result<(), String> {
    if pattern.is_empty() {
        return Ok(());
    }
    let bad = buf
        .iter()
        .enumerate()
        .position(|(i, b)| *b != pattern[i % pattern.len()]);
    match bad {
        None => Ok(()),
        Some(i) => Err(format!(
            "block at offset {offset} differs from verify_pattern at byte {i} (offset {}): \
             {:#04x} where the pattern has {:#04x}",
            offset + i as u64,
            buf[i],
            pattern[i % pattern.len()]
        )),
    }
}

/// What the job's verify checks in a block read from `offset`: the pattern, or the headers.
pub fn verify_block(
    buf: &[u8],
    offset: u64,
    algo: Verify,
    pattern: Option<&[u8]>,
) -> Result<(), String> {
    match algo {
        Verify::Pattern => check_pattern(buf, offset, pattern.unwrap_or_default()),
        _ => check(buf, offset, algo),
    }
}

/// Writes what the job's verify needs into a write's buffer: the pattern (`verify_pattern`),
/// then the header of a checksum method over it.
pub fn stamp(buf: &mut [u8], offset: u64, seq: u64, algo: Option<Verify>, pattern: Option<&[u8]>) {
    if let Some(p) = pattern.filter(|p| !p.is_empty()) {
        fill_pattern(buf, p);
    }
    if let Some(a) = algo.filter(|a| *a != Verify::Pattern) {
        write_header(buf, offset, seq, a);
    }
}

/// Checks what a read from `offset` brought back: the blocks written there, one after
/// another (a read may span several written blocks, of any sizes, as long as it starts and
/// ends where they do). The error says what is wrong.
pub fn check(buf: &[u8], offset: u64, algo: Verify) -> Result<(), String> {
    let mut at = 0;
    while at < buf.len() {
        let o = offset + at as u64;
        let rest = &buf[at..];
        if rest.len() < 32 || rest[0..4] != VERIFY_MAGIC {
            return Err(format!(
                "no verify header at offset {o}: the block was not written by a --verify run"
            ));
        }
        let len = u32::from_le_bytes(rest[24..28].try_into().unwrap()) as usize;
        if len < 32 || len > rest.len() {
            return Err(format!(
                "block at offset {o} was written {len} bytes long and the read holds {} of it: \
                 read with blocks that start and end where the written ones do (the same --bs)",
                rest.len().min(len)
            ));
        }
        check_one(&rest[..len], o, algo)?;
        at += len;
    }
    Ok(())
}

/// One written block, whole: where it was meant to go, by which method, and its checksum.
fn check_one(buf: &[u8], offset: u64, algo: Verify) -> Result<(), String> {
    let u64_at = |i: usize| u64::from_le_bytes(buf[i..i + 8].try_into().unwrap());
    if u64_at(8) != offset {
        return Err(format!(
            "block at offset {offset} holds data written for offset {}: misplaced write",
            u64_at(8)
        ));
    }
    if buf[28] != algo_id(algo) {
        return Err(format!(
            "block at offset {offset} was written with another --verify method"
        ));
    }
    match algo {
        Verify::Crc32c => {
            let stored = u32::from_le_bytes(buf[4..8].try_into().unwrap());
            let crc = crc32c::crc32c(&buf[8..]);
            if crc != stored {
                return Err(format!(
                    "checksum mismatch at offset {offset} (stored {stored:08x}, computed {crc:08x}): corrupt data"
                ));
            }
        }
        _ => {
            let d = digest_of(buf, algo);
            if d[..] != buf[32..32 + d.len()] {
                return Err(format!(
                    "checksum mismatch at offset {offset} ({algo:?}): corrupt data"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_detects_damage() {
        let mut b = vec![0u8; 8192];
        fill_random(&mut b, 1);
        for algo in [
            Verify::Crc32c,
            Verify::Md5,
            Verify::Sha1,
            Verify::Sha256,
            Verify::Sha512,
        ] {
            write_header(&mut b, 81920, 3, algo);
            check(&b, 81920, algo).unwrap();
            assert!(check(&b, 4096, algo).unwrap_err().contains("misplaced"));
            let other = if algo == Verify::Md5 {
                Verify::Crc32c
            } else {
                Verify::Md5
            };
            assert!(check(&b, 81920, other)
                .unwrap_err()
                .contains("another --verify"));
            b[5000] ^= 1;
            assert!(check(&b, 81920, algo).unwrap_err().contains("checksum"));
            b[5000] ^= 1;
        }
        assert!(check(&[0u8; 4096], 0, Verify::Crc32c)
            .unwrap_err()
            .contains("no verify header"));
    }

    #[test]
    fn a_read_spanning_blocks_of_mixed_sizes_checks_each() {
        let mut b = vec![0u8; 512 + 4096 + 1024];
        fill_random(&mut b, 2);
        let (x, rest) = b.split_at_mut(512);
        let (y, z) = rest.split_at_mut(4096);
        write_header(x, 8192, 1, Verify::Sha512);
        write_header(y, 8192 + 512, 2, Verify::Sha512);
        write_header(z, 8192 + 4608, 3, Verify::Sha512);
        check(&b, 8192, Verify::Sha512).unwrap();
        check(&b[512..4608], 8704, Verify::Sha512).unwrap();
        // Ending inside a block, or starting inside one, is an error that says so.
        let e = check(&b[..1024], 8192, Verify::Sha512).unwrap_err();
        assert!(
            e.contains("written 4096 bytes long") && e.contains("holds 512"),
            "{e}"
        );
        assert!(check(&b[256..], 8448, Verify::Sha512).is_err());
        b[600] ^= 1;
        assert!(check(&b, 8192, Verify::Sha512)
            .unwrap_err()
            .contains("8704"));
    }

    fn job(f: impl FnOnce(&mut JobSpec)) -> JobSpec {
        let mut j = JobSpec {
            bs: 4096,
            ..JobSpec::default()
        };
        f(&mut j);
        j
    }

    /// Each write's bytes differ from the last one's in every 8 bytes, and no two sectors of
    /// a buffer are alike, written after written.
    #[test]
    fn every_write_is_fresh_in_every_sector() {
        let mut d = Data::new(&job(|_| {}), 7, 9, 1 << 20);
        let mut b = vec![0u8; 8192];
        d.fill_slot(&mut b, 0);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..64 {
            let before = b.clone();
            d.prepare(&mut b, false);
            for (x, y) in b.chunks(8).zip(before.chunks(8)) {
                assert_ne!(x, y, "8 bytes a write left as they were");
            }
            for s in b.chunks(512) {
                assert!(seen.insert(s.to_vec()), "a sector repeats");
            }
        }
    }

    /// After a read of zeros, the next write's data is random again, not a repeated key, and
    /// no sector of it repeats one of another write made after a read.
    #[test]
    fn a_buffer_a_read_filled_is_refilled() {
        let mut d = Data::new(&job(|_| {}), 7, 9, 1 << 20);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..16 {
            let mut b = vec![0u8; 4096];
            d.prepare(&mut b, true);
            let first = &b[..8];
            assert!(b.chunks(8).skip(1).all(|c| c != first), "periodic data");
            for s in b.chunks(512) {
                assert!(seen.insert(s.to_vec()), "a sector repeats");
            }
        }
    }

    /// Buffers filled once (refill_buffers=0, scramble_buffers=0) are written as they are.
    #[test]
    fn buffers_filled_once_stay() {
        let mut d = Data::new(
            &job(|j| {
                j.buffers.scramble_buffers = false;
            }),
            7,
            9,
            1 << 20,
        );
        let mut b = vec![0u8; 4096];
        d.fill_slot(&mut b, 3);
        let before = b.clone();
        d.prepare(&mut b, false);
        assert_eq!(b, before);
    }

    /// fio's compressible chunks: random, then the filler, per chunk.
    #[test]
    fn compressible_chunks_end_in_their_filler() {
        let spec = job(|j| {
            j.buffers.buffer = BufferMode::Compressible {
                percent: 75,
                chunk: 512,
                filler: vec![0xab],
            }
        });
        let mut d = Data::new(&spec, 7, 9, 1 << 20);
        let mut b = vec![0u8; 4096];
        d.prepare(&mut b, false);
        for c in b.chunks(512) {
            assert!(c[128..].iter().all(|&x| x == 0xab));
            assert!(c[..128].iter().filter(|&&x| x == 0xab).count() < 8);
        }
    }

    /// With dedupe_percentage=100 in repeat mode, every buffer is the same one.
    #[test]
    fn full_dedupe_repeats_one_buffer() {
        let spec = job(|j| j.buffers.dedupe.percent = 100);
        let mut d = Data::new(&spec, 7, 9, 1 << 20);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        d.prepare(&mut a, false);
        d.prepare(&mut b, false);
        assert_eq!(a, b);
    }

    #[test]
    fn pattern_repeats() {
        let spec = job(|j| j.buffers.buffer = BufferMode::Pattern(vec![1, 2, 3]));
        let mut d = Data::new(&spec, 7, 9, 1 << 20);
        let mut b = vec![0u8; 7];
        d.fill_slot(&mut b, 0);
        assert_eq!(b, vec![1, 2, 3, 1, 2, 3, 1]);
    }
}
