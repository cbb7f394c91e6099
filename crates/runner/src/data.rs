//! What goes into write buffers, and the block header that `--verify` checks on read.
//!
//! Random buffers are filled once per slot, then stamped with the offset and a sequence number
//! in every 4 KiB before each write: the data stays incompressible and no two written blocks
//! are identical, so deduplicating storage cannot shortcut the writes, at the cost of a few
//! stores per write instead of refilling the buffer.

use md5::{Digest, Md5};
use rand::RngCore;
use sha1::Sha1;
use sha2::{Sha256, Sha512};
use workload::{BufferMode, Verify};

pub const VERIFY_MAGIC: [u8; 4] = *b"VBv1";

pub fn fill(buf: &mut [u8], mode: &BufferMode, rng: &mut impl RngCore) {
    match mode {
        BufferMode::Random => rng.fill_bytes(buf),
        BufferMode::Zero => buf.fill(0),
        BufferMode::Pattern(p) => {
            for (b, v) in buf.iter_mut().zip(p.iter().cycle()) {
                *b = *v;
            }
        }
        BufferMode::Compressible { percent, chunk } => {
            for c in buf.chunks_mut((*chunk as usize).max(1)) {
                let random = c.len() * (100 - *percent as usize).min(100) / 100;
                rng.fill_bytes(&mut c[..random]);
                c[random..].fill(0);
            }
        }
    }
}

/// Makes each written 4 KiB unique without refilling it.
#[inline]
pub fn stamp(buf: &mut [u8], offset: u64, seq: u64) {
    let tag = offset ^ seq.rotate_left(40);
    for (i, chunk) in buf.chunks_mut(4096).enumerate() {
        if chunk.len() >= 8 {
            chunk[..8].copy_from_slice(&(tag.wrapping_add(i as u64)).to_le_bytes());
        }
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
    use rand::SeedableRng;

    #[test]
    fn header_round_trips_and_detects_damage() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let mut b = vec![0u8; 8192];
        fill(&mut b, &BufferMode::Random, &mut rng);
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
        let mut rng = rand::rngs::SmallRng::seed_from_u64(2);
        let mut b = vec![0u8; 512 + 4096 + 1024];
        fill(&mut b, &BufferMode::Random, &mut rng);
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

    #[test]
    fn stamping_makes_equal_buffers_differ() {
        let mut a = vec![7u8; 8192];
        let mut b = a.clone();
        stamp(&mut a, 0, 1);
        stamp(&mut b, 4096, 1);
        assert_ne!(a, b);
        assert_eq!(a[8..4096], b[8..4096]);
    }

    #[test]
    fn pattern_repeats() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let mut b = vec![0u8; 7];
        fill(&mut b, &BufferMode::Pattern(vec![1, 2, 3]), &mut rng);
        assert_eq!(b, vec![1, 2, 3, 1, 2, 3, 1]);
    }
}
