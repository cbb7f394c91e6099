//! `durability verify`: after the power is back, reads every block the witness knows and sorts
//! it: intact, LOST (acknowledged but not on disk: the count that matters), in flight at the
//! cut (either content is legal), or torn.

use crate::client::{file_name, Conn};
use crate::protocol::{Rec, Reply, Request};
use crate::record::{self, OnDisk};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

pub struct VerifyOptions {
    pub witness: String,
    pub token: String,
    pub file: PathBuf,
}

/// What verification found. `lost` is the number that must be 0.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct VerifyReport {
    pub file: String,
    /// The file's file system and device (write cache, FUA, model, firmware) as this machine
    /// sees them after the cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<report::TargetInfo>,
    /// Blocks the witness knows.
    pub blocks: u64,
    /// Acknowledged records found whole.
    pub intact: u64,
    /// Acknowledged records not on disk: an older record, other bytes, or damage.
    pub lost: u64,
    /// Of the lost: the block held an older state (an older record, or the zeros from before
    /// its first write): the acked write was reverted.
    pub lost_stale: u64,
    /// Of the lost: the block held bytes that are neither a record nor zeros (torn or
    /// mangled after its ack).
    pub lost_corrupt: u64,
    /// Records in flight at the cut found with their new content.
    pub in_flight_new: u64,
    /// Records in flight at the cut found with the block's previous content.
    pub in_flight_old: u64,
    /// Records in flight at the cut found as neither: a torn write.
    pub in_flight_torn: u64,
    /// For each lost record: seconds between its ack and the witness's last message.
    pub lost_seconds_before_end: Vec<u64>,
    /// The file's header block, synced by create before its first record, was not found
    /// whole: counted in `lost` as one more lost record (stale where it reverted to zeros).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub header_lost: bool,
}

/// One block's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Intact,
    LostStale,
    LostCorrupt,
    InFlightNew,
    InFlightOld,
    InFlightTorn,
    /// Nothing acknowledged and nothing in flight here is wrong (the block was never acked).
    Unwritten,
}

/// Sorts one block. `sum` is the crc32c of what is on disk.
pub fn classify(disk: OnDisk, sum: u32, acked: Option<Rec>, intent: Option<Rec>) -> Outcome {
    if intent
        .is_some_and(|i| i.sum == sum && matches!(disk, OnDisk::Record { seq, .. } if seq == i.seq))
    {
        return Outcome::InFlightNew;
    }
    let old_ok = acked.is_some_and(|a| {
        a.sum == sum && matches!(disk, OnDisk::Record { seq, .. } if seq == a.seq)
    });
    match (acked, intent) {
        (Some(_), None) if old_ok => Outcome::Intact,
        (Some(_), Some(_)) if old_ok => Outcome::InFlightOld,
        // Zeros where an acked record was are the block's state before its first write: a
        // revert, as a cache that drops unflushed writes leaves it (a trial's lying disk had
        // every loss called corrupt), not a mangled block.
        (Some(_), None) => match disk {
            OnDisk::Record { .. } | OnDisk::Blank => Outcome::LostStale,
            OnDisk::Damaged => Outcome::LostCorrupt,
        },
        // A newer write was in flight, so the acked record may be overwritten by it, and a
        // torn write of it is the device's right; anything else lost the acked record. Zeros
        // are neither the acked record nor a part of the new one: a tear as well.
        (Some(_), Some(_)) => match disk {
            OnDisk::Damaged | OnDisk::Blank => Outcome::InFlightTorn,
            OnDisk::Record { .. } => Outcome::LostStale,
        },
        // The block's first write was in flight: the zeros it held before are its old
        // content (a block never written is not torn); a whole older record is too.
        (None, Some(_)) => match disk {
            OnDisk::Damaged => Outcome::InFlightTorn,
            OnDisk::Record { .. } | OnDisk::Blank => Outcome::InFlightOld,
        },
        (None, None) => Outcome::Unwritten,
    }
}

pub fn verify(o: &VerifyOptions) -> anyhow::Result<VerifyReport> {
    let name = file_name(&o.file)?;
    let f = File::open(&o.file).map_err(|e| anyhow::anyhow!("{}: {e}", o.file.display()))?;
    let mut c = Conn::open(&o.witness, &o.token)?;
    c.send(&Request::Verify { file: name.clone() })?;
    let (block, last_ms, header) = match c.recv()? {
        Reply::Info {
            block,
            last_ms,
            size,
            ..
        } => (block, last_ms, same_run(&f, &o.file, size, block)?),
        Reply::Error { error } => anyhow::bail!("witness: {error}"),
        other => anyhow::bail!("the witness answered {other:?} where info was due"),
    };
    let mut rep = VerifyReport {
        file: name,
        target: target_info(&f, &o.file),
        ..Default::default()
    };
    // The header was synced before the first record: a disk that lost it lost a write it
    // had acknowledged, as much as any record's.
    if let Some(disk) = header {
        rep.header_lost = true;
        rep.lost += 1;
        match disk {
            OnDisk::Damaged => rep.lost_corrupt += 1,
            _ => rep.lost_stale += 1,
        }
    }
    let mut buf = vec![0u8; block as usize];
    loop {
        let (b, acked, intent) = match c.recv()? {
            Reply::Block {
                block,
                acked,
                intent,
            } => (block, acked, intent),
            Reply::End { blocks } if blocks == rep.blocks => break,
            Reply::End { blocks } => {
                anyhow::bail!("the witness listed {} blocks but said {blocks}", rep.blocks)
            }
            other => anyhow::bail!("the witness answered {other:?} where a block was due"),
        };
        rep.blocks += 1;
        let disk = on_disk(&f, &mut buf, b);
        let out = classify(disk, crc32c::crc32c(&buf), acked, intent);
        tally(&mut rep, out, acked, last_ms);
    }
    // A verify that checked no acknowledged record proves nothing: never a pass.
    if rep.intact + rep.lost == 0 {
        anyhow::bail!(
            "nothing to check: the witness knows no acknowledged record of {} ({} blocks listed): run create again and cut the power while it writes",
            rep.file,
            rep.blocks
        );
    }
    Ok(rep)
}

/// What block `b` holds on the disk: a record of its own, or damage (short, unparsable, or a
/// record of another block).
fn on_disk(f: &File, buf: &mut [u8], b: u64) -> OnDisk {
    buf.fill(0);
    let n = f.read_at(buf, b * buf.len() as u64).unwrap_or(0);
    if n != buf.len() {
        return OnDisk::Damaged;
    }
    match record::parse(buf) {
        OnDisk::Record { block: at, .. } if at != b => OnDisk::Damaged,
        d => d,
    }
}

/// The file's file system and device, as a run's report records a file target.
fn target_info(f: &File, path: &std::path::Path) -> Option<report::TargetInfo> {
    use std::os::unix::fs::MetadataExt;
    let meta = f.metadata().ok()?;
    let dev = runner::probe::DevId::from_raw(meta.dev());
    Some(report::TargetInfo {
        path: path.display().to_string(),
        host: Some(crate::client::host_name()),
        kind: "file".into(),
        size_bytes: meta.len(),
        filesystem: runner::probe::filesystem_of(path, dev),
        device: runner::probe::device_info(dev),
        ..Default::default()
    })
}

/// The file on disk is the run the witness knows: a header holding another size or block
/// size means the file was re-created since, and old records cannot judge it. A header that
/// is not intact is no such proof: it was synced before the first record, so its loss is the
/// disk's, and the records are judged as usual. True when the header held.
/// Checks the file's header names the witness's run; what the disk holds there in its
/// place where it is not whole (zeros where the header was reverted, or other bytes).
fn same_run(
    f: &File,
    path: &std::path::Path,
    size: u64,
    block: u32,
) -> anyhow::Result<Option<OnDisk>> {
    let mut head = vec![0u8; block as usize];
    let n = f.read_at(&mut head, 0).unwrap_or(0);
    match record::parse_file_header(&head[..n]) {
        Some((s, b)) if s != size || b != block => anyhow::bail!(
            "{} holds a run of {s} bytes in {b}-byte blocks, not the witness's {size} in {block}: it was re-created since; its records cannot be judged",
            path.display()
        ),
        Some(_) => Ok(None),
        None if head[..n].iter().all(|&b| b == 0) => Ok(Some(OnDisk::Blank)),
        None => Ok(Some(OnDisk::Damaged)),
    }
}

fn tally(rep: &mut VerifyReport, out: Outcome, acked: Option<Rec>, last_ms: u64) {
    match out {
        Outcome::Intact => rep.intact += 1,
        Outcome::LostStale | Outcome::LostCorrupt => {
            rep.lost += 1;
            if out == Outcome::LostStale {
                rep.lost_stale += 1;
            } else {
                rep.lost_corrupt += 1;
            }
            let ack_ms = acked.map_or(last_ms, |a| a.ms);
            rep.lost_seconds_before_end
                .push(last_ms.saturating_sub(ack_ms) / 1000);
        }
        Outcome::InFlightNew => rep.in_flight_new += 1,
        Outcome::InFlightOld => rep.in_flight_old += 1,
        Outcome::InFlightTorn => rep.in_flight_torn += 1,
        Outcome::Unwritten => {}
    }
}

impl VerifyReport {
    /// The text `verify` prints.
    pub fn text(&self) -> String {
        let mut s = format!(
            "volbench durability verify: {}\n  blocks the witness knows   {}\n  acknowledged, intact       {}\n  acknowledged, LOST         {}  (stale {}, corrupt {})\n  in flight at the cut       {}  (new {}, old {}, torn {}; any of these is legal)\n",
            self.file,
            self.blocks,
            self.intact,
            self.lost,
            self.lost_stale,
            self.lost_corrupt,
            self.in_flight_new + self.in_flight_old + self.in_flight_torn,
            self.in_flight_new,
            self.in_flight_old,
            self.in_flight_torn
        );
        if self.lost == 0 {
            s.push_str("PASS: every acknowledged record survived. One clean pass proves little: repeat the power cut several times.\n");
        } else {
            let mut hist: Vec<(u64, u64)> = Vec::new();
            for &sec in &self.lost_seconds_before_end {
                match hist.iter_mut().find(|(k, _)| *k == sec) {
                    Some((_, n)) => *n += 1,
                    None => hist.push((sec, 1)),
                }
            }
            hist.sort();
            s.push_str("  lost records by seconds between their ack and the end:\n");
            for (sec, n) in hist {
                s.push_str(&format!("    {sec:>4} s  {n}\n"));
            }
            s.push_str(&format!(
                "FAIL: {} acknowledged records were lost. Writes this stack reported durable did not survive the power cut: a database here can lose committed transactions or corrupt itself. Check the drive's write cache (hdparm -W, nvme get-feature -f 6), the RAID controller's cache and battery, and the virtualisation layer's cache mode.\n",
                self.lost
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: u64, sum: u32) -> Option<Rec> {
        Some(Rec { seq, sum, ms: 0 })
    }

    #[test]
    fn every_combination_sorts_as_the_rules_say() {
        let on = |seq| OnDisk::Record { seq, block: 1 };
        use Outcome::*;
        assert_eq!(classify(on(5), 50, rec(5, 50), None), Intact);
        assert_eq!(classify(on(3), 30, rec(5, 50), None), LostStale);
        assert_eq!(classify(OnDisk::Damaged, 0, rec(5, 50), None), LostCorrupt);
        assert_eq!(classify(on(6), 60, rec(5, 50), rec(6, 60)), InFlightNew);
        assert_eq!(classify(on(5), 50, rec(5, 50), rec(6, 60)), InFlightOld);
        assert_eq!(
            classify(OnDisk::Damaged, 1, rec(5, 50), rec(6, 60)),
            InFlightTorn
        );
        assert_eq!(classify(on(3), 30, rec(5, 50), rec(6, 60)), LostStale);
        assert_eq!(classify(OnDisk::Damaged, 1, None, rec(6, 60)), InFlightTorn);
        // Never written before its first, unacknowledged write: its old content, not torn.
        assert_eq!(classify(OnDisk::Blank, 0, None, rec(6, 60)), InFlightOld);
        // Zeros where an acked record was: reverted to before its first write, stale.
        assert_eq!(classify(OnDisk::Blank, 0, rec(5, 50), None), LostStale);
        assert_eq!(
            classify(OnDisk::Blank, 0, rec(5, 50), rec(6, 60)),
            InFlightTorn
        );
        assert_eq!(classify(on(6), 60, None, rec(6, 60)), InFlightNew);
        // Same sequence, different bytes: not the acked record.
        assert_eq!(classify(on(5), 51, rec(5, 50), None), LostStale);
    }
}
