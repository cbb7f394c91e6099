//! What on this host can change a storage benchmark's result, found by reading (never
//! writing) procfs, sysfs, cgroupfs and DMI: `volbench doctor` shows all of it, and every run
//! does the cheap part (`cheap`) and turns it into warnings.
//!
//! Table of contents: `dev` (a target's block devices and their parents), `cgroup` (I/O and
//! CPU limits on this process), `cpu` (the host's CPU time over a span), `activity` (other I/O on the devices), `settings` (block
//! layer, file system, CPU), `instance` (the cloud instance and its own storage cap).

pub mod activity;
pub mod cgroup;
pub mod cpu;
pub mod dev;
pub mod instance;
pub mod settings;

use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// A procfs, sysfs or cgroupfs file, at most `max` bytes of it (these are small files; the
/// bound keeps a strange mount from feeding a huge one), trimmed. None when it cannot be read.
pub(crate) fn read(p: &Path, max: u64) -> Option<String> {
    use std::io::Read;
    let mut s = String::new();
    std::fs::File::open(p)
        .ok()?
        .take(max)
        .read_to_string(&mut s)
        .ok()?;
    Some(s.trim().to_string())
}

/// How much a finding matters to a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A fact worth knowing, nothing to fix.
    Ok,
    /// It can change a figure; whether that matters depends on the question.
    Note,
    /// It caps or skews what can be measured here.
    Warn,
}

/// One line of the doctor's screen: what was found, what it does to a result, and the fix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// limits, other_io, block, filesystem, cpu, cloud.
    pub area: &'static str,
    /// A stable name for scripts and for the run's warning (`io_limit`, `other_io`, ...).
    pub code: &'static str,
    pub level: Level,
    pub what: String,
    /// What it does to a result ("" for a plain fact).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub consequence: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fix: String,
}

impl Finding {
    pub fn ok(area: &'static str, code: &'static str, what: String) -> Finding {
        Finding {
            area,
            code,
            level: Level::Ok,
            what,
            consequence: String::new(),
            fix: String::new(),
        }
    }

    /// One line: the finding, its consequence, its fix.
    pub fn line(&self) -> String {
        let mut s = self.what.clone();
        if !self.consequence.is_empty() {
            s += &format!(": {}", self.consequence);
        }
        if !self.fix.is_empty() {
            s += &format!("; {}", self.fix);
        }
        s
    }
}

/// Everything `doctor` checks for `target` (a device, file or directory), watching the
/// devices for `watch` for other I/O.
pub fn doctor(target: &Path, watch: Duration, numjobs: u32) -> Result<Vec<Finding>, String> {
    let devs = dev::of_target(target)?;
    let mut f = cgroup::findings(&devs);
    // The host's CPUs over the same watch: a trial ran doctor at load 9 and read all OK.
    let cpu = cpu::CpuWatch::start();
    f.extend(activity::findings(&devs, watch));
    f.extend(cpu.and_then(cpu::CpuWatch::finish).map(cpu::finding));
    f.extend(settings::block(&devs));
    f.extend(settings::filesystem(target));
    f.extend(settings::cpu(numjobs));
    f.extend(instance::findings());
    Ok(f)
}

/// The checks every run makes before it starts: limits on this process, and other I/O over a
/// short watch. Only what can change the result comes back (no `Ok` lines).
pub fn cheap(targets: &[&Path], watch: Duration) -> Vec<Finding> {
    let mut devs: Vec<dev::Dev> = Vec::new();
    for t in targets {
        for d in dev::of_target(t).unwrap_or_default() {
            if !devs.iter().any(|x| x.id == d.id) {
                devs.push(d);
            }
        }
    }
    if devs.is_empty() {
        return Vec::new();
    }
    let mut f = cgroup::findings(&devs);
    // Inside an I/O throttle, idling before the run shifts its first second: the throttle
    // (emulate's bucket on v1 blkio, seen here) let 3,300 I/Os through in a 3,000 IOPS run's
    // first second after a 250 ms watch, and a burst test's steady state came a second late.
    // The limit's own warning already says the run is capped, so the watch is left out there.
    if !f
        .iter()
        .any(|x| x.code == "io_limit" && x.level == Level::Warn)
    {
        f.extend(activity::findings(&devs, watch));
    }
    f.retain(|x| x.level > Level::Ok);
    f
}
