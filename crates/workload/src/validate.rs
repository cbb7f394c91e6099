//! A job checked before it runs: what cannot run whatever the target (depths, sizes, a
//! verify with nothing to check, an engine's missing option), each refused with one line
//! naming the option and the fix ([`SpecError`]). Checks that need the target are the
//! runner's.

use crate::spec::JobSpec;
use crate::values::{BufferMode, EngineKind, Verify};

/// Limits chosen so a typo fails fast instead of exhausting memory or kernel resources.
pub const MAX_IODEPTH: u32 = 65_536;
pub const MAX_NUMJOBS: u32 = 1024;
/// fio accepts block sizes up to its 2 GiB I/O limit; dd's `bs=1G` must run.
pub const MAX_BS: u64 = 1 << 30;

/// Why a size came out a multiple of 1000: fio reads `4KiB` as 4000 bytes under its default
/// `kb_base=1024` (its compatibility mode), where `4k` is 4096.
fn kib_hint(v: u64) -> &'static str {
    if v.is_multiple_of(1000) {
        " (fio reads KiB, MiB, GiB as powers of 1000 under its default kb_base=1024, so 4KiB is 4000 bytes: write 4k for 4096)"
    } else {
        ""
    }
}

/// A workload that cannot run, whatever the target.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("--iodepth={0} is out of range: use 1 to {MAX_IODEPTH}")]
    IoDepth(u32),
    #[error("--numjobs={0} is out of range: use 1 to {MAX_NUMJOBS}")]
    NumJobs(u32),
    #[error(
        "--bs={} is out of range: use 1 byte to 1g (512 bytes or more with O_DIRECT, or \
         --direct=0)",
        crate::short_size(*.0)
    )]
    BlockSize(u64),
    #[error(
        "--bs={bs} is not a multiple of 512 bytes, which O_DIRECT needs{hint}: use e.g. 4k, or --direct=0",
        bs = .0,
        hint = kib_hint(*.0)
    )]
    BlockAlign(u64),
    #[error("--rwmixread={0} is out of range: use 0 to 100")]
    RwMix(u8),
    #[error(
        "--size={} is smaller than --bs={}: the job could not issue one I/O; raise --size",
        crate::short_size(*.size),
        crate::short_size(*.bs)
    )]
    SizeBelowBs { size: u64, bs: u64 },
    #[error(
        "--offset={} is not a multiple of 512 bytes, which O_DIRECT needs: align it, or --direct=0",
        crate::short_size(*.0)
    )]
    Offset(u64),
    #[error("--runtime=0 with --time_based would run forever: give a --runtime")]
    NoRuntime,
    #[error("--verify needs blocks of at least 512 bytes (its header and checksum take up to 96): raise --bs")]
    VerifyBs,
    #[error("--buffer_pattern is empty: give bytes, e.g. 0xdeadbeef")]
    EmptyPattern,
    #[error("verify=pattern checks verify_pattern, which is not set: give verify_pattern=0xAA (or another pattern)")]
    NoVerifyPattern,
    #[error("verify_only checks what the job wrote before, so it needs verify=: add verify=crc32c (or the method of the run that wrote)")]
    VerifyOnlyNoVerify,
    #[error("bssplit percentages add up to {0}, not 100: fix the split")]
    BsSplit(u32),
    #[error("size={0}% is out of range: use 1% to 100%")]
    SizePercent(u8),
    #[error("nrfiles=0 would give the job nothing to do: use 1 or more")]
    NrFiles,
    #[error(
        "thinktime_blocks={0} counted at completion with iodepth={1} on an asynchronous \
         engine: how many I/Os fall between thinks then depends on when each tool reaps, and \
         fio's count differs from volbench's; use thinktime_blocks_type=issue, iodepth=1 or \
         thinktime_blocks=1 (which match fio)"
    )]
    ThinkBlocks(u64, u32),
    #[error(
        "the minimum rate exceeds the rate cap for {0}s (as fio refuses it): lower rate_min or \
         rate_iops_min under rate or rate_iops"
    )]
    MinOverRate(&'static str),
    #[error("hipri is an option of io_uring and pvsync2 (psync here), not of {0}: drop hipri or change ioengine")]
    HipriEngine(&'static str),
    #[error(
        "hipri with io_uring polls for completions, which only O_DIRECT I/O can do: add direct=1"
    )]
    HipriBuffered,
    #[error(
        "verify with ioengine={0}: the engine moves no data, so there is nothing to read back; \
         verify with psync, libaio or io_uring"
    )]
    VerifyEngine(&'static str),
    #[error(
        "{0}, as fio says: give zonesize with zonemode=strided (zonerange and zoneskip optional)"
    )]
    Zones(&'static str),
    #[error("{0}")]
    NoIo(&'static str),
}

impl SpecError {
    /// The options that set what this error is about, most direct first: a job file's error
    /// line names where the first of them was written (under any alias: the caller compares
    /// canonical names). The names come from the option table.
    pub fn keys(&self) -> &'static [&'static str] {
        use crate::fio::table::names::*;
        match self {
            SpecError::IoDepth(_) => &[IODEPTH],
            SpecError::NumJobs(_) => &[NUMJOBS],
            SpecError::BlockSize(_) => &[BS],
            SpecError::BlockAlign(_) => &[BS, DIRECT, BUFFERED],
            SpecError::RwMix(_) => &[RWMIXREAD, RWMIXWRITE],
            SpecError::SizeBelowBs { .. } => &[SIZE, BS],
            SpecError::Offset(_) => &[OFFSET, DIRECT, BUFFERED],
            SpecError::NoRuntime => &[RUNTIME, TIME_BASED],
            SpecError::VerifyBs => &[VERIFY, BS],
            SpecError::NoVerifyPattern => &[VERIFY],
            SpecError::VerifyOnlyNoVerify => &[VERIFY],
            SpecError::EmptyPattern => &[BUFFER_PATTERN],
            SpecError::BsSplit(_) => &[BSSPLIT],
            SpecError::SizePercent(_) => &[SIZE],
            SpecError::NrFiles => &[NRFILES],
            SpecError::HipriEngine(_) => &[HIPRI, IOENGINE],
            SpecError::HipriBuffered => &[HIPRI, DIRECT, BUFFERED],
            SpecError::VerifyEngine(_) => &[VERIFY, IOENGINE],
            SpecError::Zones(_) => &[ZONEMODE, ZONESIZE],
            SpecError::NoIo(_) => &[CPULOAD, PROGRAM, RUNTIME, EXIT_ON_IO_DONE],
            SpecError::ThinkBlocks(..) => &[THINKTIME_BLOCKS, THINKTIME_BLOCKS_TYPE, IODEPTH],
            SpecError::MinOverRate(_) => &[RATE_MIN, RATE_IOPS_MIN],
        }
    }
}

impl JobSpec {
    /// The job's options checked, in fio's order of concern: the I/O's shape, its data, its
    /// files and rates, the engines that need an option of their own, then the engine's flags.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.check_shape()?;
        self.check_data()?;
        self.check_files_and_rates()?;
        self.check_engine_jobs()?;
        self.check_zones_and_think()?;
        self.check_hipri()
    }

    /// Depths, block sizes (O_DIRECT's sectors), the mix, the size, the offset, the runtime.
    fn check_shape(&self) -> Result<(), SpecError> {
        if let Some(w) = self.pattern.write_sizes {
            let (lo, hi) = w.range.unwrap_or((w.bs, w.bs));
            for b in [lo, hi] {
                let aligned = !self.direct || self.fio_job || b.is_multiple_of(512);
                if b == 0 || b > MAX_BS || !aligned {
                    return Err(SpecError::BlockSize(b));
                }
            }
        }
        if self.iodepth == 0 || self.iodepth > MAX_IODEPTH {
            return Err(SpecError::IoDepth(self.iodepth));
        }
        if self.numjobs == 0 || self.numjobs > MAX_NUMJOBS {
            return Err(SpecError::NumJobs(self.numjobs));
        }
        // Buffered I/O takes blocks of any size, down to a byte (fio's bs=1 reads a file
        // byte by byte through the page cache: a FUSE object store's time to first byte);
        // O_DIRECT needs whole sectors on a block device, which BlockAlign says below (for
        // fio's jobs, the target's check says it, where the target has a block device).
        let sectors = !self.direct || self.fio_job;
        if self.bs == 0 || self.bs > MAX_BS || (!sectors && self.bs < 512) {
            return Err(SpecError::BlockSize(self.bs));
        }
        // Only O_DIRECT needs whole sectors; buffered I/O takes any size (etcd's well-known
        // fdatasync check writes 2300-byte blocks).
        if !sectors && !self.bs.is_multiple_of(512) {
            return Err(SpecError::BlockAlign(self.bs));
        }
        if self.rwmixread > 100 {
            return Err(SpecError::RwMix(self.rwmixread));
        }
        if let Some(size) = self.size {
            if size < self.bs {
                return Err(SpecError::SizeBelowBs { size, bs: self.bs });
            }
        }
        // fio starts the region anywhere (cross-stripe-verify.fio writes 16k blocks from
        // 120k); only O_DIRECT needs it on a sector boundary.
        if self.direct && !self.region.offset.is_multiple_of(512) {
            return Err(SpecError::Offset(self.region.offset));
        }
        if self.time_based && self.runtime.is_none_or(|r| r.is_zero()) {
            return Err(SpecError::NoRuntime);
        }
        Ok(())
    }

    /// What the writes carry and the verify that checks it; the block-size split.
    fn check_data(&self) -> Result<(), SpecError> {
        let header = self.checking.verify.is_some_and(|v| v != Verify::Pattern);
        if header && self.bs < 512 {
            return Err(SpecError::VerifyBs);
        }
        if self.checking.verify == Some(Verify::Pattern) && self.checking.verify_pattern.is_none() {
            return Err(SpecError::NoVerifyPattern);
        }
        if self.checking.verify_only && self.checking.verify.is_none() {
            return Err(SpecError::VerifyOnlyNoVerify);
        }
        if matches!(&self.buffers.buffer, BufferMode::Pattern(p) if p.is_empty()) {
            return Err(SpecError::EmptyPattern);
        }
        for split in [&self.pattern.bssplit, &self.pattern.bssplit_write] {
            if split.is_empty() {
                continue;
            }
            let total: u32 = split.iter().map(|b| b.percent as u32).sum();
            if total != 100 {
                return Err(SpecError::BsSplit(total));
            }
            for b in split {
                let sectors = b.bs >= 512 && b.bs.is_multiple_of(512);
                if b.bs == 0 || b.bs > MAX_BS || (self.direct && !self.fio_job && !sectors) {
                    return Err(SpecError::BlockSize(b.bs));
                }
            }
        }
        Ok(())
    }

    /// size=N%, nrfiles, and a minimum rate above its cap.
    fn check_files_and_rates(&self) -> Result<(), SpecError> {
        if self.region.size_percent.is_some_and(|p| p == 0 || p > 100) {
            return Err(SpecError::SizePercent(self.region.size_percent.unwrap()));
        }
        if self.files.nrfiles == 0 {
            return Err(SpecError::NrFiles);
        }
        for (d, dir) in ["read", "write"].into_iter().enumerate() {
            let over = |cap: u64, floor: u64| cap > 0 && floor > cap;
            if over(self.rates.rate[d], self.rates.rate_min[d])
                || over(self.rates.rate_iops[d], self.rates.rate_iops_min[d])
            {
                return Err(SpecError::MinOverRate(dir));
            }
        }
        Ok(())
    }

    /// Jobs that are not I/O (cpuio, e4defrag, exec) need their own options.
    fn check_engine_jobs(&self) -> Result<(), SpecError> {
        if self.ioengine == EngineKind::CpuIo {
            if self.engine.cpuio.load == 0 {
                return Err(SpecError::NoIo(
                    "a cpuio job needs cpuload= (1 to 100), as fio's",
                ));
            }
            if self.runtime.is_none() && !self.engine.cpuio.exit_on_io_done {
                return Err(SpecError::NoIo(
                    "a cpuio job does no I/O, so only a runtime= (or exit_on_io_done=1 beside \
                     I/O jobs) ends it",
                ));
            }
        }
        if self.ioengine == EngineKind::E4Defrag && self.files.e4defrag_donor.is_none() {
            return Err(SpecError::NoIo(
                "an e4defrag job needs donorname=, as fio's",
            ));
        }
        if self.ioengine == EngineKind::Exec {
            if self.engine.exec.program.is_none() {
                return Err(SpecError::NoIo("an exec job needs program=, as fio's"));
            }
            if self.runtime.is_none() {
                return Err(SpecError::NoIo(
                    "an exec job runs its program until its runtime=, as fio's: give one",
                ));
            }
        }
        Ok(())
    }

    /// zonemode with its zonesize, and a thinktime_blocks count fio would count differently.
    fn check_zones_and_think(&self) -> Result<(), SpecError> {
        match (self.region.zones.strided, self.region.zones.size) {
            (Some(true), 0) => return Err(SpecError::Zones("zonemode=strided needs zonesize")),
            (None | Some(false), n) if n > 0 => {
                return Err(SpecError::Zones(
                    "zonemode=none and zonesize do not go together",
                ))
            }
            _ => {}
        }
        if let Some(t) = self
            .timing
            .think
            .filter(|t| t.us > 0 && !t.on_issue && t.blocks > 1 && t.counts_blocks())
        {
            let depth = self.effective_iodepth();
            if depth > 1 {
                return Err(SpecError::ThinkBlocks(t.blocks, depth));
            }
        }
        Ok(())
    }

    fn check_hipri(&self) -> Result<(), SpecError> {
        // fio's falloc reads return no data and ftruncate fakes its verify: neither checks
        // anything, so a verify on them would be a promise with nothing behind it.
        if self.checking.verify.is_some()
            && matches!(self.ioengine, EngineKind::Falloc | EngineKind::Ftruncate)
        {
            return Err(SpecError::VerifyEngine(self.ioengine.as_str()));
        }
        match (self.engine.hipri, self.ioengine) {
            (true, EngineKind::Libaio) => Err(SpecError::HipriEngine("libaio")),
            (true, EngineKind::IoUring) if !self.direct => Err(SpecError::HipriBuffered),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        JobSpec::default().validate().unwrap();
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        let bad = |f: fn(&mut JobSpec)| {
            let mut j = JobSpec::default();
            f(&mut j);
            j.validate().unwrap_err()
        };
        assert_eq!(bad(|j| j.iodepth = 0), SpecError::IoDepth(0));
        assert_eq!(bad(|j| j.iodepth = 100_000), SpecError::IoDepth(100_000));
        assert_eq!(bad(|j| j.numjobs = 0), SpecError::NumJobs(0));
        assert_eq!(bad(|j| j.bs = 1000), SpecError::BlockAlign(1000));
        // A size that is a multiple of 1000 names the KiB rule that likely made it.
        assert!(SpecError::BlockAlign(4000)
            .to_string()
            .contains("4KiB is 4000 bytes"));
        assert!(!SpecError::BlockAlign(4100).to_string().contains("KiB"));
        let buffered = JobSpec {
            direct: false,
            bs: 2300,
            ..JobSpec::default()
        };
        assert_eq!(
            buffered.validate(),
            Ok(()),
            "only O_DIRECT needs whole sectors"
        );
        assert_eq!(
            bad(|j| j.size = Some(1024)),
            SpecError::SizeBelowBs {
                size: 1024,
                bs: 4096
            }
        );
        assert_eq!(bad(|j| j.runtime = None), SpecError::NoRuntime);
    }
}
