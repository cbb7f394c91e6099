//! The job specification: fio's knobs as typed, validated data.

pub use crate::family::*;
pub use crate::values::*;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// One job: what one thread does, before `numjobs` cloning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    /// Free text shown with the job (fio's `description`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub rw: Rw,
    pub rwmixread: u8,
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Bytes of the region each job works on; `None` means 1 GiB for files, the whole device
    /// for block devices.
    pub size: Option<u64>,
    /// Stop after this long. With `time_based`, loop over the region until then.
    pub runtime: Option<Duration>,
    pub time_based: bool,
    pub direct: bool,
    pub ioengine: EngineKind,
    /// Files or devices; several make the job spread its I/O round-robin over them.
    pub filename: Vec<PathBuf>,
    /// The job is fio's (a job file or fio's command line), so fio's rules apply where they
    /// differ from volbench's own command line: the missing directories of a file's path are
    /// created (`filename=run1/logs/f`; a `directory=` that does not exist is refused, in fio
    /// too), and O_DIRECT's block alignment is judged on the target's device when it is
    /// opened (a FUSE mount takes `bs=1` with `direct=1`), not refused on parsing. volbench's
    /// own command line refuses both early, so a typo neither makes a directory nor starts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fio_job: bool,
    /// fio's steady-state stop (`steadystate`, `ss_dur`, `ss_ramp`, `ss_interval`).
    #[serde(default, skip_serializing_if = "steady_off")]
    pub steadystate: crate::steady::SteadyState,
    /// fio's trace replay (`read_iolog`, `replay_*`).
    #[serde(default, skip_serializing_if = "replay_off")]
    pub replay: crate::replay::Replay,
    /// fio's `kb_base`: 1000 makes `4k` mean 4000 bytes (SI), 1024 (the default) 4096.
    #[serde(default = "kb_1024", skip_serializing_if = "is_1024")]
    pub kb_base: u32,
    pub allow_destructive: bool,
    /// Where and in what sizes the I/O goes.
    #[serde(flatten)]
    pub pattern: Pattern,
    /// How much of the target a job covers and how often.
    #[serde(flatten)]
    pub region: Region,
    /// The job's files.
    #[serde(flatten)]
    pub files: Files,
    /// When a job starts and settles.
    #[serde(flatten)]
    pub timing: Timing,
    /// Rate caps and floors, and flow between jobs.
    #[serde(flatten)]
    pub rates: Rates,
    /// The I/O engine's own options and the jobs that are not block I/O (exec, cpuio).
    #[serde(flatten)]
    pub engine: EngineOptions,
    /// What the job's thread is.
    #[serde(flatten)]
    pub process: ProcessOptions,
    /// How writes are made durable.
    #[serde(flatten)]
    pub sync: SyncOptions,
    /// Verification.
    #[serde(flatten)]
    pub checking: Checking,
    /// What the write buffers hold.
    #[serde(flatten)]
    pub buffers: Buffers,
    /// What an error or a job's end does to the others.
    #[serde(flatten)]
    pub errors: OnError,
    /// What is reported and logged.
    #[serde(flatten)]
    pub reporting: Reporting,
    /// Latency limits.
    #[serde(flatten)]
    pub latency: LatencyLimits,
}

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            name: "volbench".into(),
            description: None,
            rw: Rw::RandRead,
            rwmixread: 50,
            bs: 4096,
            iodepth: 32,
            numjobs: 1,
            size: None,
            runtime: Some(Duration::from_secs(30)),
            time_based: true,
            direct: true,
            ioengine: EngineKind::IoUring,
            filename: Vec::new(),
            fio_job: false,
            steadystate: Default::default(),
            replay: Default::default(),
            kb_base: 1024,
            allow_destructive: false,
            pattern: Pattern::default(),
            region: Region::default(),
            files: Files::default(),
            timing: Timing::default(),
            rates: Rates::default(),
            engine: EngineOptions::default(),
            process: ProcessOptions::default(),
            sync: SyncOptions::default(),
            checking: Checking::default(),
            buffers: Buffers::default(),
            errors: OnError::default(),
            reporting: Reporting::default(),
            latency: LatencyLimits::default(),
        }
    }
}

pub(crate) fn one() -> u32 {
    1
}

impl JobSpec {
    /// Whether the job ends with fio's do_verify read-back (a verifying job that writes, with no
    /// backlog), as fio reads back its log of writes after the writes, time-based or not. With
    /// one size every write covers whole blocks of it, so each block holds its last write and
    /// the read-back reads those written (the runner marks them unless the job writes every
    /// block). With mixed sizes a later write may cut into an earlier one, so only one pass that
    /// writes every block once is read back (its blocks' bounds are that pass's).
    pub fn reads_back_at_end(&self) -> bool {
        let known = match self.mixed_sizes() {
            true => {
                self.writes_every_block()
                    && self.region.loops <= 1
                    && self.pattern.rand_run <= 1
                    && self.pattern.seq_skip == 0
            }
            // Offsets off the block size's grid (blockalign below it) overlap earlier writes.
            false => self
                .pattern
                .blockalign
                .is_none_or(|a| a.is_multiple_of(self.bs)),
        };
        self.checking.verify.is_some()
            && self.checking.do_verify
            && self.rw.writes()
            && known
            && self.checking.verify_backlog == 0
    }

    /// Whether each pass of the job writes every block of its region once: size-based, with
    /// the random map and its uniform draw, over the whole size.
    pub fn writes_every_block(&self) -> bool {
        !self.time_based
            && !self.pattern.norandommap
            && self.pattern.blockalign.is_none()
            && self.pattern.random_distribution == crate::Distribution::Random
            && self.region.number_ios.is_none()
            && self.region.io_size.is_none()
    }

    /// The job's blocks vary in size (`bssplit`, `bsrange`, or writes of their own size: bs=R,W).
    pub fn mixed_sizes(&self) -> bool {
        !self.pattern.bssplit.is_empty()
            || self.pattern.bs_range.is_some()
            || self.pattern.write_sizes.is_some()
    }

    /// The longest start delay a clone of the job may draw.
    pub fn startdelay_longest(&self) -> Duration {
        self.timing
            .startdelay_high
            .unwrap_or_default()
            .max(self.timing.startdelay)
    }

    /// The writes' blockalign: their own (`ba=R,W`) or the reads'.
    pub fn write_blockalign(&self) -> Option<u64> {
        self.pattern.blockalign_write.or(self.pattern.blockalign)
    }

    /// The job's `rw` as fio names it (`trim`, `randtrim`, `trimwrite` included).
    pub fn rw_name(&self) -> &'static str {
        match (self.pattern.trim, self.rw.is_random()) {
            (Trim::None, _) => self.rw.as_str(),
            (Trim::Only, false) => "trim",
            (Trim::Only, true) => "randtrim",
            (Trim::ThenWrite, _) => "trimwrite",
        }
    }

    /// Whether the job drops its region's cached pages (fio's `invalidate`, off under
    /// `pre_read`, as fio's init turns it off).
    pub fn drops_cache(&self) -> bool {
        self.files.invalidate && !self.files.pre_read
    }

    /// fio's own defaults, for job files and fio's multi-job command line: a fio user's file
    /// must mean what it means to fio (buffered psync reads at QD1, size-based).
    pub fn fio_default(name: &str) -> JobSpec {
        JobSpec {
            name: name.to_string(),
            rw: Rw::Read,
            iodepth: 1,
            runtime: None,
            time_based: false,
            direct: false,
            ioengine: EngineKind::Psync,
            // fio names a job's files `NAME.JOB.FILE` even when it has one.
            files: crate::Files {
                overwrite: false,
                filename_format: Some(FIO_FILENAME_FORMAT.into()),
                ..Default::default()
            },
            fio_job: true,
            ..JobSpec::default()
        }
    }

    /// Whether a rate cap (`rate` or `rate_iops`) paces direction `dir` (0 reads, 1 writes):
    /// its I/Os then have due times.
    pub fn rate_capped(&self, dir: usize) -> bool {
        self.rates.rate[dir] > 0 || self.rates.rate_iops[dir] > 0
    }

    /// The largest block size any I/O of this job uses (buffer slots are this big).
    pub fn max_bs(&self) -> u64 {
        self.pattern
            .bssplit
            .iter()
            .chain(&self.pattern.bssplit_write)
            .map(|b| b.bs)
            .max()
            .unwrap_or(self.bs)
            .max(self.bs)
            .max(self.pattern.bs_range.map_or(0, |r| r.1))
            .max(
                self.pattern
                    .write_sizes
                    .map_or(0, |w| w.range.map_or(w.bs, |r| r.1)),
            )
    }

    /// Checks everything that does not depend on the target.
    /// A job that only writes takes the writes' sizes of `bs=R,W` in place of the reads', one
    /// that only reads drops them: the sizes it runs are then in `bs`/`bs_range` alone.
    /// With bs_is_seq_rand the two sides are a sequential and a random I/O's, kept both.
    pub fn settle_sizes(&mut self) {
        // bssplit=R,W: a job that only writes runs W's split, one that only reads R's.
        if !self.pattern.bssplit_write.is_empty() && !self.pattern.bs_is_seq_rand {
            if !self.rw.reads() {
                self.pattern.bssplit = std::mem::take(&mut self.pattern.bssplit_write);
                self.bs = self
                    .pattern
                    .bssplit
                    .iter()
                    .map(|b| b.bs)
                    .min()
                    .unwrap_or(self.bs);
            } else if !self.rw.writes() {
                self.pattern.bssplit_write.clear();
            }
        }
        let Some(w) = self.pattern.write_sizes else {
            return;
        };
        if self.pattern.bs_is_seq_rand {
            return;
        }
        if !self.rw.writes() {
            self.pattern.write_sizes = None;
        } else if !self.rw.reads() {
            (self.bs, self.pattern.bs_range, self.pattern.write_sizes) = (w.bs, w.range, None);
        }
    }

    /// The smallest block either direction uses: the unit offsets are aligned to and the
    /// random map counts in.
    /// How many times the job's I/O goes over its size (`loops`): fio 3.33 with
    /// `experimental_verify` counts the closing verify as one of them, so a verified write
    /// job writes one pass fewer (never none).
    pub fn io_loops(&self) -> u32 {
        let verifies =
            self.checking.verify.is_some() && self.checking.do_verify && self.rw.writes();
        match self.checking.experimental_verify && verifies {
            true => self.region.loops.saturating_sub(1).max(1),
            false => self.region.loops.max(1),
        }
    }

    /// How many times the closing verify reads the written blocks back: fio verifies after
    /// every loop of the writes, or once with `experimental_verify`.
    pub fn verify_passes(&self) -> u32 {
        match self.checking.experimental_verify {
            true => 1,
            false => self.region.loops.max(1),
        }
    }

    pub fn unit(&self) -> u64 {
        let w = self
            .pattern
            .write_sizes
            .map_or(u64::MAX, |w| w.range.map_or(w.bs, |r| r.0));
        self.bs
            .min(self.pattern.bs_range.map_or(u64::MAX, |r| r.0))
            .min(w)
    }

    /// The depth the engine really runs at: synchronous engines cannot have more than one in flight.
    pub fn effective_iodepth(&self) -> u32 {
        if self.ioengine.is_sync() {
            1
        } else {
            self.iodepth
        }
    }
}

/// Everything one invocation runs: jobs in parallel, phases separated by `stonewall`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Workload {
    pub jobs: Vec<JobSpec>,
    /// `[global]` options as written in a job file, kept for fio-json's "global options".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_options: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_engines_run_at_depth_one() {
        let j = JobSpec {
            ioengine: EngineKind::Psync,
            ..JobSpec::default()
        };
        assert_eq!(j.effective_iodepth(), 1);
    }
}
