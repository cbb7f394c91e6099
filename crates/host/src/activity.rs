//! Other I/O on the target's device: its own counters (`/sys/dev/block/M:m/stat`) read twice,
//! `watch` apart, before volbench does any I/O of its own. Whatever the device did in between
//! was someone else's, and a shared device's result is shared.

use crate::dev::Dev;
use crate::{Finding, Level};
use figures::fmt_count;
use runner::probe;
use std::time::{Duration, Instant};

/// At or above these rates, other I/O is a warning: a jbd2 commit or a log line's write
/// stays well below them, while a second benchmark or a backup does not.
const WARN_IOPS: f64 = 100.0;
const WARN_BYTES: f64 = 10e6;

/// What one device did during the watch, per second.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    pub device: String,
    pub read_iops: f64,
    pub write_iops: f64,
    pub bytes_per_sec: f64,
}

/// Watches the whole disks of `devs` (a partition's neighbours compete for the same queue).
pub fn watch(devs: &[Dev], watch: Duration) -> Vec<Activity> {
    let disks: Vec<&Dev> = devs.iter().filter(|d| d.role != "member").collect();
    let disks: Vec<&Dev> = match disks.iter().any(|d| d.role == "disk") {
        true => disks.into_iter().filter(|d| d.role == "disk").collect(),
        false => disks,
    };
    let before: Vec<_> = disks.iter().map(|d| probe::kernel_counters(d.id)).collect();
    let t = Instant::now();
    std::thread::sleep(watch);
    let secs = t.elapsed().as_secs_f64();
    disks
        .iter()
        .zip(before)
        .filter_map(|(d, a)| {
            let k = probe::counters_delta(a?, probe::kernel_counters(d.id)?);
            Some(Activity {
                device: d.name.clone(),
                read_iops: k.read_ios as f64 / secs,
                write_iops: k.write_ios as f64 / secs,
                bytes_per_sec: (k.read_bytes + k.write_bytes) as f64 / secs,
            })
        })
        .collect()
}

/// The findings of a watch: a warning for busy devices, a note for light I/O, an `Ok` line
/// for a quiet one.
pub fn findings(devs: &[Dev], dur: Duration) -> Vec<Finding> {
    watch(devs, dur)
        .into_iter()
        .map(|a| {
            let iops = a.read_iops + a.write_iops;
            let what = format!(
                "other I/O on {} while volbench did none ({:.1} s): {} read and {} write IOPS, {} MB/s",
                a.device,
                dur.as_secs_f64(),
                fmt_count(a.read_iops),
                fmt_count(a.write_iops),
                fmt_count(a.bytes_per_sec / 1e6)
            );
            let level = if iops >= WARN_IOPS || a.bytes_per_sec >= WARN_BYTES {
                Level::Warn
            } else if iops > 0.0 {
                Level::Note
            } else {
                return Finding::ok(
                    "other_io",
                    "other_io",
                    format!("no other I/O on {} ({:.1} s)", a.device, dur.as_secs_f64()),
                );
            };
            Finding {
                area: "other_io",
                code: "other_io",
                level,
                what,
                consequence: "the device is shared: a result measured now is shared with it"
                    .into(),
                fix: "stop the other I/O (iotop -o shows who), or test another device".into(),
            }
        })
        .collect()
}
