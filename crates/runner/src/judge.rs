//! Warnings: does a result measure what it claims to?

use report::{JobReport, TargetInfo};
use stats::Warning;
use workload::{BufferMode, EngineKind, JobSpec};

/// Below this much measured time a result is noise or a burst window.
const SHORT_RUN_SECS: f64 = 5.0;

pub fn warnings(
    specs: &[JobSpec],
    jobs: &[JobReport],
    group: &JobReport,
    targets: &[TargetInfo],
) -> Vec<Warning> {
    let mut w = Vec::new();
    let real = specs.iter().any(|s| s.ioengine != EngineKind::Null);
    if specs
        .iter()
        .any(|s| !s.direct && s.ioengine != EngineKind::Null)
    {
        w.push(Warning::BufferedIo);
    }
    for t in targets {
        if let Some(fs) = &t.filesystem {
            if matches!(fs.fs_type.as_str(), "tmpfs" | "ramfs") && real {
                w.push(Warning::MemoryFilesystem {
                    fs: fs.fs_type.clone(),
                });
            }
        }
    }
    if let Some(s) = specs
        .iter()
        .find(|s| s.rw.writes() && !matches!(s.buffer, BufferMode::Random))
    {
        w.push(Warning::CompressibleData {
            what: match &s.buffer {
                BufferMode::Zero => "zeros".into(),
                _ => "a repeated pattern".into(),
            },
        });
    }
    let secs = group.runtime_ns as f64 / 1e9;
    if secs > 0.0 && secs < SHORT_RUN_SECS && real {
        w.push(Warning::ShortRun { secs });
    }
    if real {
        let busiest = jobs
            .iter()
            .map(|j| j.cpu.usr_percent + j.cpu.sys_percent)
            .fold(0.0, f64::max);
        if busiest >= 90.0 {
            let advice = if specs.iter().any(|s| s.ioengine != EngineKind::IoUring) {
                "use --ioengine=io_uring or add --numjobs"
            } else {
                "add --numjobs to spread the load over more cores"
            };
            w.push(Warning::CpuBound {
                percent: busiest,
                advice: advice.into(),
            });
        }
    }
    if let Some((first, last)) = group.series.thirds() {
        if first > 0.0 && last < 0.7 * first {
            w.push(Warning::BurstSuspected {
                first_iops: first,
                last_iops: last,
            });
        }
    }
    // Compare with the device's own counters. Only "saw less" is a verdict: other processes can
    // add I/O to a shared device, but nothing makes the device see less than it served.
    // Only engines that do I/O put bytes on a device; the null engine's count nothing there.
    let mut reported = [0u64; 2];
    for j in jobs.iter().filter(|j| {
        specs
            .get(j.spec_index)
            .is_some_and(|s| s.ioengine != EngineKind::Null)
    }) {
        reported[0] += j.read.as_ref().map_or(0, |d| d.io_bytes);
        reported[1] += j.write.as_ref().map_or(0, |d| d.io_bytes);
    }
    for t in targets {
        if let (Some(k), Some(d)) = (&t.kernel_counters, &t.device) {
            for (i, dir, ios, merges) in [
                (0, "read", k.read_ios, k.read_merges),
                (1, "write", k.write_ios, k.write_merges),
            ] {
                let submitted = ios + merges;
                if reported[i] > 0 && submitted >= 1000 && merges * 10 > submitted {
                    w.push(Warning::MergedIo {
                        dir,
                        percent: 100.0 * merges as f64 / submitted as f64,
                        device_name: d.name.clone(),
                    });
                }
            }
            for (i, dir, seen) in [(0, "read", k.read_bytes), (1, "write", k.write_bytes)] {
                if reported[i] >= 1 << 20 && (seen as f64) < 0.5 * reported[i] as f64 {
                    w.push(Warning::DeviceSawLess {
                        dir,
                        reported: reported[i],
                        device: seen,
                        device_name: d.name.clone(),
                    });
                }
            }
        }
    }
    w
}
