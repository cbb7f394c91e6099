//! The flush-honesty verdict: evidence from timing and device facts, never a certainty.
//!
//! A flush that makes data stable must at least program it into the medium. The thresholds
//! (documented in docs/fsync.md with their sources):
//! - flash with a volatile cache: a NAND page program takes about 100 µs at the fastest (SLC)
//!   and several hundred µs to milliseconds for TLC/QLC; consumer SSDs without power-loss
//!   protection measure 0.7-3.5 ms per write+flush (Percona 2018, Callaghan 2026). A flush
//!   under [`FLASH_MIN_FLUSH_NS`] is implausible;
//! - a rotating disk must wait for the platter: half a revolution is 4.2 ms at 7,200 rpm and
//!   2 ms at 15,000 rpm. A flush under [`DISK_MIN_FLUSH_NS`] is implausible;
//! - any medium: a flush cheaper than one QD1 O_DIRECT write to the same device did less work
//!   than the write it was meant to persist.
//!
//! Power-loss protection (capacitors that let the device finish its cache) makes a fast flush
//! honest, so the verdict names it as the other explanation; only a power cut decides.

use report::{FsyncCase, FsyncReport, Verdict};

/// Below this a flush cannot have programmed flash.
pub const FLASH_MIN_FLUSH_NS: u64 = 100_000;
/// Below this a flush cannot have reached a rotating platter.
pub const DISK_MIN_FLUSH_NS: u64 = 1_000_000;

fn p50(l: &stats::LatencySummary) -> Option<u64> {
    l.percentile(50.0).filter(|_| l.n > 0)
}

/// The one-thread case of `method` with the smallest block size that was measured.
fn one_thread<'a>(rep: &'a FsyncReport, target: &str, method: &str) -> Option<&'a FsyncCase> {
    rep.cases
        .iter()
        .filter(|c| c.target == target && c.method == method && c.threads == 1 && c.writes > 0)
        .min_by_key(|c| c.bs)
}

/// The flush measurement the verdict reads: fdatasync after an O_DIRECT write is the flush
/// alone; after a buffered write it includes writing the page back.
fn flush_case<'a>(rep: &'a FsyncReport, target: &str) -> Option<&'a FsyncCase> {
    ["direct-fdatasync", "fdatasync", "fsync"]
        .iter()
        .find_map(|m| one_thread(rep, target, m).filter(|c| c.sync_lat_ns.is_some()))
}

fn us(ns: u64) -> String {
    figures::fmt_ns(ns as f64)
}

/// The single QD1 O_DIRECT write case of `bs` on the target, measured: what a flush of that
/// size cannot cost less than.
fn write_case<'a>(rep: &'a FsyncReport, target: &str, bs: u64) -> Option<&'a report::FsyncCase> {
    rep.cases.iter().find(|c| {
        c.target == target && c.method == "direct" && c.threads == 1 && c.bs == bs && c.writes > 0
    })
}

/// A target in memory (tmpfs, ramfs, zram, a ram disk): nothing survives a power loss.
fn in_memory(fs: &str, dev: Option<&report::DeviceInfo>) -> bool {
    matches!(fs, "tmpfs" | "ramfs")
        || dev.is_some_and(|d| d.name.starts_with("zram") || d.name.starts_with("ram"))
}

/// The fastest a flush to stable media can be on what is under the target, said of it.
fn floor_of(dev: Option<&report::DeviceInfo>, fs: &str) -> (u64, String) {
    match dev {
        Some(d) if d.rotational => (DISK_MIN_FLUSH_NS, "a rotating disk (half a revolution: 4.2 ms at 7,200 rpm, 2 ms at 15,000 rpm)".to_string()),
        Some(_) => (FLASH_MIN_FLUSH_NS, "flash (a NAND page program takes 100 µs at the fastest)".to_string()),
        None => (FLASH_MIN_FLUSH_NS, format!("the fastest medium, flash, since no block device is visible under this {} file system", if fs.is_empty() { "unknown" } else { fs })),
    }
}

/// Whether the flush is faster than physics allows: below the medium's floor, or below one
/// QD1 O_DIRECT write of the same size. The evidence either way goes into `v`.
fn against_physics(
    v: &mut Verdict,
    flush_ns: u64,
    dev: Option<&report::DeviceInfo>,
    fs: &str,
) -> bool {
    let (floor, medium) = floor_of(dev, fs);
    let below = flush_ns < floor;
    let how = if below { "below" } else { "at or above" };
    v.evidence.push(format!(
        "flush p50 {} is {how} {} for {medium}",
        us(flush_ns),
        us(floor)
    ));
    let under_write = v.write_p50_ns.filter(|&w| flush_ns < w);
    if let Some(w) = under_write {
        v.evidence.push(format!(
            "flush p50 {} is below one QD1 O_DIRECT write ({} p50): a flush that persists data cannot cost less than the write",
            us(flush_ns),
            us(w)
        ));
    }
    below || under_write.is_some()
}

pub fn judge(target: &str, rep: &FsyncReport) -> Verdict {
    let info = rep.environment.targets.iter().find(|t| t.path == target);
    let fs = info
        .and_then(|t| t.filesystem.as_ref())
        .map_or("", |f| f.fs_type.as_str());
    let dev = info.and_then(|t| t.device.as_ref());
    let flush = flush_case(rep, target);
    let flush_p50 = flush.and_then(|c| c.sync_lat_ns.as_ref()).and_then(p50);
    let write_p50 = flush
        .and_then(|f| write_case(rep, target, f.bs))
        .and_then(|c| p50(&c.write_lat_ns));
    let mut v = Verdict {
        target: target.to_string(),
        verdict: "unknown".into(),
        flush_p50_ns: flush_p50,
        write_p50_ns: write_p50,
        evidence: Vec::new(),
        summary: String::new(),
    };
    if in_memory(fs, dev) {
        v.verdict = "volatile".into();
        v.summary = "in memory (tmpfs, ramfs or zram): nothing here survives a power loss, so a sync has nothing to make durable".into();
        return v;
    }
    let Some(flush_ns) = flush_p50 else {
        v.summary = "no flush was measured: run the cases (not --penalty-only) with fdatasync or direct-fdatasync in --methods and 1 in --threads".into();
        return v;
    };
    let flush = flush.expect("flush_p50 comes from a case");
    if let (Some(n), true) = (flush.device_flushes, flush.syncs > 0) {
        v.evidence.push(format!(
            "the kernel counted {n} flush requests on the device during {} {} calls",
            flush.syncs, flush.method
        ));
    }
    if let Some(d) = dev.filter(|d| d.write_cache == "write through") {
        v.verdict = "no_flush".into();
        v.summary = format!(
            "{} reports no volatile write cache (write through), so the kernel sends it no flush: a sync costs the write alone ({} p50). Honest if the device truly has no volatile cache or protects it (PLP); `volbench durability` checks that",
            d.name,
            us(flush_ns)
        );
        return v;
    }
    if against_physics(&mut v, flush_ns, dev, fs) {
        v.verdict = "implausible".into();
        v.summary = format!(
            "flush is implausibly fast ({} p50): it probably does not reach stable media, unless the device has power-loss protection. Run `volbench durability` with a power cut to prove it",
            us(flush_ns)
        );
    } else {
        v.verdict = "plausible".into();
        v.summary = format!(
            "flush time ({} p50) is consistent with data reaching stable media (consistent, not proven)",
            us(flush_ns)
        );
    }
    v
}
