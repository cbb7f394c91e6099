//! The on-disk form of a durability record: one block with a self-checking header.
//!
//! ```text
//! 0..8    magic "VBDREC01"
//! 8..16   sequence number (little-endian)
//! 16..24  block number
//! 24..28  crc32c of bytes 28..block_size
//! 28..    random payload (incompressible, different for every write)
//! ```
//! Block 0 of the file is a file header instead ("VBDFILE1", size, block size, crc32c of
//! those), so a later `create` can tell its own file from someone else's before overwriting
//! it.

use rand::RngCore;

pub const REC_MAGIC: &[u8; 8] = b"VBDREC01";
pub const FILE_MAGIC: &[u8; 8] = b"VBDFILE1";
pub const HEADER: usize = 28;

/// Fills `buf` with record `seq` for `block`; returns the checksum the witness keeps
/// (crc32c of the whole block).
pub fn fill(buf: &mut [u8], block: u64, seq: u64, rng: &mut impl RngCore) -> u32 {
    rng.fill_bytes(&mut buf[HEADER..]);
    buf[..8].copy_from_slice(REC_MAGIC);
    buf[8..16].copy_from_slice(&seq.to_le_bytes());
    buf[16..24].copy_from_slice(&block.to_le_bytes());
    let body = crc32c::crc32c(&buf[HEADER..]);
    buf[24..28].copy_from_slice(&body.to_le_bytes());
    crc32c::crc32c(buf)
}

/// What a block on disk holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDisk {
    /// A whole record: its sequence and block number.
    Record { seq: u64, block: u64 },
    /// Bytes that are not a whole record: torn or corrupted.
    Damaged,
    /// Zeros only: what a block of the file holds until its first record lands (create sizes
    /// the file with zeros), or a block zeroed since.
    Blank,
}

pub fn parse(buf: &[u8]) -> OnDisk {
    if buf.iter().all(|&b| b == 0) {
        return OnDisk::Blank;
    }
    if buf.len() < HEADER || &buf[..8] != REC_MAGIC {
        return OnDisk::Damaged;
    }
    let u64_at = |i: usize| u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
    let body = u32::from_le_bytes(buf[24..28].try_into().expect("4 bytes"));
    if crc32c::crc32c(&buf[HEADER..]) != body {
        return OnDisk::Damaged;
    }
    OnDisk::Record {
        seq: u64_at(8),
        block: u64_at(16),
    }
}

/// Block 0: marks the file as volbench's: magic, size, block size and a crc32c of those,
/// so a file is taken as volbench's only when all of them hold.
pub fn file_header(buf: &mut [u8], size: u64, block: u32) {
    buf.fill(0);
    buf[..8].copy_from_slice(FILE_MAGIC);
    buf[8..16].copy_from_slice(&size.to_le_bytes());
    buf[16..20].copy_from_slice(&block.to_le_bytes());
    let sum = crc32c::crc32c(&buf[..20]);
    buf[20..24].copy_from_slice(&sum.to_le_bytes());
}

/// The size and block size of an intact file header; None for anything else, including a
/// block that only starts with the magic.
pub fn parse_file_header(buf: &[u8]) -> Option<(u64, u32)> {
    if buf.len() < 24 || &buf[..8] != FILE_MAGIC {
        return None;
    }
    let sum = u32::from_le_bytes(buf[20..24].try_into().ok()?);
    if crc32c::crc32c(&buf[..20]) != sum {
        return None;
    }
    let size = u64::from_le_bytes(buf[8..16].try_into().ok()?);
    let block = u32::from_le_bytes(buf[16..20].try_into().ok()?);
    crate::protocol::check_geometry(size, block).ok()?;
    Some((size, block))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_record_parses_back_and_any_flipped_byte_damages_it() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let mut b = vec![0u8; 4096];
        let sum = fill(&mut b, 12, 34, &mut rng);
        assert_eq!(parse(&b), OnDisk::Record { seq: 34, block: 12 });
        assert_eq!(crc32c::crc32c(&b), sum);
        for i in [0, 9, 20, 25, 100, 4095] {
            let mut c = b.clone();
            c[i] ^= 1;
            assert!(
                parse(&c) == OnDisk::Damaged || crc32c::crc32c(&c) != sum,
                "byte {i}"
            );
        }
        let mut torn = b.clone();
        torn[2048..].fill(0);
        assert_eq!(parse(&torn), OnDisk::Damaged);
        // Its first half still zeros, its second the record's: torn as well, not blank.
        let mut late = b.clone();
        late[..2048].fill(0);
        assert_eq!(parse(&late), OnDisk::Damaged);
        assert_eq!(parse(&vec![0u8; 4096]), OnDisk::Blank);
    }

    #[test]
    fn only_a_whole_header_makes_a_file_volbenchs() {
        let mut b = vec![0u8; 4096];
        file_header(&mut b, 8 << 20, 4096);
        assert_eq!(parse_file_header(&b), Some((8 << 20, 4096)));
        let mut magic_only = vec![0u8; 4096];
        magic_only[..8].copy_from_slice(FILE_MAGIC);
        assert_eq!(parse_file_header(&magic_only), None);
        for i in [8, 16, 20] {
            let mut c = b.clone();
            c[i] ^= 1;
            assert_eq!(parse_file_header(&c), None, "byte {i}");
        }
    }

    #[test]
    fn two_records_for_the_same_block_differ() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(2);
        let (mut a, mut b) = (vec![0u8; 512], vec![0u8; 512]);
        assert_ne!(fill(&mut a, 1, 1, &mut rng), fill(&mut b, 1, 2, &mut rng));
    }
}
