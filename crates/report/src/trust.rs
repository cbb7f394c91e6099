//! Whether a run's figures can be trusted: the warnings a run's results earn against the
//! kernel's counters, the device and the workload, each with its fix. A run judges its own
//! results here; a scale-out run judges what it merged from every rank.

use crate::{Ended, GroupReport, JobReport, KernelCounters, TargetInfo, WarningRecord};
use stats::Warning;
use workload::{BufferMode, EngineKind, JobSpec, SyncIo};

/// Below this much measured time a result is noise or a burst window.
const SHORT_RUN_SECS: f64 = 5.0;
/// Fewer I/Os than this per interval on average make the per-interval rate a count of a few
/// I/Os, whose ±1 is no trend (see [`countable`]).
const MIN_IOS_PER_SAMPLE: u64 = 20;
/// A drain of the queue this long after the window is worth a line: the run's wall time is
/// no longer its measured time.
const LONG_DRAIN_NS: u64 = 1_000_000_000;

/// A claimed rate this much above the kernel's over the same interval is a wrong number, not
/// noise: the interval's ends are taken within milliseconds of the I/O's.
const RATE_TOLERANCE: f64 = 1.10;

/// The warnings as records, as reports keep them.
pub fn records(
    specs: &[JobSpec],
    jobs: &[JobReport],
    groups: &[GroupReport],
    targets: &[TargetInfo],
) -> Vec<WarningRecord> {
    let w = warnings(specs, jobs, groups, targets);
    w.iter().map(WarningRecord::from).collect()
}

/// The warnings the results earn.
fn warnings(
    specs: &[JobSpec],
    jobs: &[JobReport],
    groups: &[GroupReport],
    targets: &[TargetInfo],
) -> Vec<Warning> {
    let mut w = Vec::new();
    // create_only jobs measure nothing: no figure to warn about, only the host's checks.
    if !specs.is_empty() && specs.iter().all(|s| s.files.create_only) {
        w.extend(device_checks(specs, jobs, groups, targets));
        return w;
    }
    let real = specs.iter().any(|s| s.ioengine.moves_data());
    w.extend(buffered_io(specs));
    w.extend(ramp_swallowed(specs, jobs));
    if real {
        w.extend(data_warnings(specs, targets));
        w.extend(short_run(specs, jobs, groups));
        w.extend(long_drain(specs, jobs));
        w.extend(small_page_buffers(specs, jobs));
        w.extend(io_errors(jobs));
        w.extend(cpu_bound(specs, jobs));
        w.extend(burst(groups));
        w.extend(latency_cliff(groups, !ram_devices(targets).is_empty()));
        w.extend(not_settled(specs, groups));
        w.extend(volatile_cache(specs, groups));
    } else {
        w.extend(compressible(specs));
    }
    w.extend(device_checks(specs, jobs, groups, targets));
    w.extend(fell_behind(specs, groups));
    w
}

/// A rate-capped direction that spent a tenth of its run (at least 100 ms) behind its
/// schedule. Ten gaps of lag (at least 10 ms) count as behind, so a device that keeps up is
/// never flagged for the scheduler's jitter.
fn fell_behind(specs: &[JobSpec], groups: &[GroupReport]) -> Vec<Warning> {
    let mut w = Vec::new();
    for g in groups {
        let (Some(spec), r) = (specs.get(g.spec_index), &g.report) else {
            continue;
        };
        let dirs = [("read", &r.read), ("write", &r.write)];
        for (i, (dir, d)) in dirs.into_iter().enumerate() {
            let Some((d, late)) = d.as_ref().and_then(|d| Some((d, d.late?))) else {
                continue;
            };
            if late.behind_ns < (r.runtime_ns / 10).max(100_000_000) {
                continue;
            }
            let asked = match spec.rates.rate_iops[i] {
                0 => format!("{}/s", workload::format_bytes(spec.rates.rate[i] as f64)),
                n => format!("{} IOPS", figures::fmt_count(n as f64)),
            };
            w.push(Warning::FellBehind {
                dir,
                asked,
                done_iops: d.iops,
                max_lag_ns: late.max_ns,
                behind_ns: late.behind_ns,
                runtime_ns: r.runtime_ns,
            });
        }
    }
    w
}

/// Buffered I/O measures the page cache unless flushed: say which way it went.
fn buffered_io(specs: &[JobSpec]) -> Option<Warning> {
    let buffered: Vec<&JobSpec> = specs
        .iter()
        .filter(|s| !s.direct && s.ioengine.moves_data())
        .collect();
    if buffered.is_empty() {
        return None;
    }
    let unflushed = buffered
        .iter()
        .any(|s| s.rw.writes() && !s.sync.end_fsync && s.sync.sync_every == 0);
    let reads = buffered.iter().any(|s| s.rw.reads());
    let what = match (unflushed, reads) {
        (true, _) => {
            "the writes had no final flush, so the rate is how fast the page cache \
                      took them, not the device (dd's figure without conv=fdatasync); add \
                      --end_fsync=1 to count writing them out, or use --direct=1"
        }
        (false, true) => {
            "the page cache may have served reads; use --direct=1 to measure the \
                          device"
        }
        (false, false) => {
            "writes went through the page cache and are flushed by the job's \
                           syncs; --direct=1 measures the device without the cache"
        }
    };
    Some(Warning::BufferedIo { what: what.into() })
}

/// A memory file system, then data a device could compress (in that order, as reported).
fn data_warnings(specs: &[JobSpec], targets: &[TargetInfo]) -> Vec<Warning> {
    let mut w: Vec<Warning> = targets
        .iter()
        .filter_map(|t| t.filesystem.as_ref())
        .filter(|fs| matches!(fs.fs_type.as_str(), "tmpfs" | "ramfs"))
        .map(|fs| Warning::MemoryFilesystem {
            fs: fs.fs_type.clone(),
        })
        .collect();
    // A RAM disk (zram, brd's ram0): as `fsync` says of it, it is memory, not storage.
    // One warning per device: a sweep over zram2 and zram2:zram3 folds each device's
    // across its tests, where "zram2" and "zram2, zram3" were two warnings saying one thing.
    let mut ram = ram_devices(targets);
    ram.sort();
    ram.dedup();
    w.extend(
        ram.into_iter()
            .map(|devices| Warning::MemoryDevice { devices }),
    );
    w.extend(compressible(specs));
    w
}

/// The targets' block devices in RAM (zram, brd's ram0).
fn ram_devices(targets: &[TargetInfo]) -> Vec<String> {
    targets
        .iter()
        .filter_map(|t| t.device.as_ref())
        .map(|d| d.name.clone())
        .filter(|n| n.starts_with("zram") || n.starts_with("ram"))
        .collect()
}

/// Written data that compresses or dedupes flatters smart storage.
fn compressible(specs: &[JobSpec]) -> Option<Warning> {
    let flattering = |s: &&JobSpec| {
        let fresh = s.buffers.refill_buffers || s.buffers.scramble_buffers;
        !matches!(s.buffers.buffer, BufferMode::Random) || s.buffers.dedupe.on() || !fresh
    };
    let s = specs.iter().filter(|s| s.rw.writes()).find(flattering)?;
    Some(Warning::CompressibleData {
        what: crate::data_words(s),
    })
}

/// Each reporting group (a stonewalled phase) by its own length: two 1 s phases are two short
/// runs, not one 2 s run. A run an error ended says why it was short already.
fn short_run(specs: &[JobSpec], jobs: &[JobReport], groups: &[GroupReport]) -> Option<Warning> {
    if jobs.iter().any(|j| j.error.is_some()) {
        return None;
    }
    let shortest = groups
        .iter()
        .map(|g| g.report.runtime_ns as f64 / 1e9)
        .filter(|&s| s > 0.0)
        .fold(f64::INFINITY, f64::min);
    (shortest < SHORT_RUN_SECS).then(|| Warning::ShortRun {
        secs: shortest,
        fix: short_run_fix(specs, jobs, shortest),
    })
}

/// Jobs that ended inside their ramp were counted whole, warm-up included.
fn ramp_swallowed(specs: &[JobSpec], jobs: &[JobReport]) -> Option<Warning> {
    let mut swallowed = jobs.iter().filter(|j| j.ramp_swallowed);
    let first = swallowed.next()?;
    let ramp = specs
        .get(first.spec_index)
        .map_or(0.0, |s| s.timing.ramp_time.as_secs_f64());
    let jobs = match swallowed.count() {
        0 => format!("job {}", first.name),
        others => format!("{} jobs ({} and others)", others + 1, first.name),
    };
    Some(Warning::RampSwallowed {
        jobs,
        ramp: figures::fmt_secs(ramp),
    })
}

/// A job thread that used nearly a whole core measured the CPU, not the device.
fn cpu_bound(specs: &[JobSpec], jobs: &[JobReport]) -> Option<Warning> {
    let busiest = jobs
        .iter()
        .map(|j| j.cpu.usr_percent + j.cpu.sys_percent)
        .fold(0.0, f64::max);
    if busiest < 90.0 {
        return None;
    }
    let advice = if specs.iter().any(|s| s.ioengine != EngineKind::IoUring) {
        "use --ioengine=io_uring or add --numjobs"
    } else {
        "add --numjobs to spread the load over more cores"
    };
    Some(Warning::CpuBound {
        percent: busiest,
        advice: advice.into(),
    })
}

/// A last third much slower than the first: a burst bucket or cache that ran out. A burst is
/// the device's behaviour: the null engine has none to show (the caller checks).
fn burst(groups: &[GroupReport]) -> Option<Warning> {
    groups.iter().find_map(|g| {
        if !countable(&g.report.series, [0, 1]) {
            return None;
        }
        let (first, last) = g.report.series.thirds()?;
        (first > 0.0 && last < 0.7 * first).then_some(Warning::BurstSuspected {
            first_iops: first,
            last_iops: last,
        })
    })
}

/// How far a direction's per-interval p99 must rise, against its median before, in every
/// interval to the end, to be a cliff: steady devices' p99 wanders by well under this from
/// second to second (zram and throttled volumes checked in tests/repeats.rs).
const CLIFF_FACTOR: f64 = 3.0;

/// A p99 that rose by CLIFF_FACTOR and stayed up to the end: the earliest interval k with at
/// least 3 intervals before it, where every interval from k on (at least 2, and a fifth of
/// the run) is at CLIFF_FACTOR times the median before k or more.
/// `in_ram`: the target is a RAM device, which has no cache to run out or collection to
/// do, so a cliff on it is the host's (a trial's busy host gave zram a "26x" cliff that the
/// warning blamed on an SLC cache).
fn latency_cliff(groups: &[GroupReport], in_ram: bool) -> Option<Warning> {
    groups.iter().find_map(|g| {
        let series = &g.report.series;
        [(0, "read"), (1, "write")]
            .into_iter()
            .find_map(|(d, dir)| {
                let p99: Vec<(u64, f64)> = series
                    .full()
                    .filter(|s| s.ios[d] >= MIN_IOS_PER_SAMPLE)
                    .filter_map(|s| Some((s.t_ms - s.dt_ms, s.lat_pct.dir(d)?.p99_ns as f64)))
                    .collect();
                let n = p99.len();
                let tail = 2.max(n.div_ceil(5));
                (3..n.saturating_sub(tail - 1)).find_map(|k| {
                    let mut before: Vec<f64> = p99[..k].iter().map(|x| x.1).collect();
                    before.sort_by(f64::total_cmp);
                    let base = before[before.len() / 2];
                    let after: Vec<f64> = p99[k..].iter().map(|x| x.1).collect();
                    let low = after.iter().copied().fold(f64::INFINITY, f64::min);
                    (base > 0.0 && low >= CLIFF_FACTOR * base).then(|| {
                        let mut a = after.clone();
                        a.sort_by(f64::total_cmp);
                        Warning::LatencyCliff {
                            dir,
                            at_secs: (series.start_ms + p99[k].0) as f64 / 1e3,
                            before_ns: base,
                            after_ns: a[a.len() / 2],
                            in_ram,
                        }
                    })
                })
            })
    })
}

/// Enough I/Os in each interval for its rate to be a rate: with 16 MiB blocks on a slow
/// volume a second holds 0 or 1 of them, and such counts "rise 500 %" by chance.
fn countable(series: &stats::Series, dirs: impl IntoIterator<Item = usize> + Copy) -> bool {
    let (n, ios) = series.full().fold((0u64, 0u64), |(n, ios), s| {
        (n + 1, ios + dirs.into_iter().map(|d| s.ios[d]).sum::<u64>())
    });
    n > 0 && ios >= MIN_IOS_PER_SAMPLE * n
}

/// A group whose last third still moves, per direction (see `stats::steady::last_third`).
/// A job that stopped at its own steady state has been judged already.
fn not_settled(specs: &[JobSpec], groups: &[GroupReport]) -> Vec<Warning> {
    let mut w = Vec::new();
    for g in groups {
        let judged = specs.get(g.spec_index).is_some_and(|s| s.steadystate.on());
        let series = &g.report.series;
        for (d, dir) in [(0, "read"), (1, "write")] {
            // A trend is fitted over evenly spaced points: the fold's last tier.
            let tier = series.last_tier();
            let ys: Vec<f64> = tier.iter().map(|s| s.iops(d)).collect();
            if judged || !countable(series, [d]) {
                continue;
            }
            let Some(t) = stats::steady::last_third(&ys).filter(|t| t.moving()) else {
                continue;
            };
            w.push(Warning::NotSettled {
                dir,
                change_pct: 100.0 * t.change,
                secs: t.samples as f64 * tier.last().map_or(0, |s| s.dt_ms) as f64 / 1e3,
            });
        }
    }
    w
}

/// The checks against the devices' own counters. Only "saw less" is a verdict: other processes
/// can add I/O to a shared device, but nothing makes the device see less than it served. Only
/// engines that do I/O put bytes on a device; the null engine's count nothing there.
fn device_checks(
    specs: &[JobSpec],
    jobs: &[JobReport],
    groups: &[GroupReport],
    targets: &[TargetInfo],
) -> Vec<Warning> {
    let mut w = Vec::new();
    let mut reported = [0u64; 2];
    for j in jobs.iter().filter(|j| {
        specs
            .get(j.spec_index)
            .is_some_and(|s| s.ioengine.moves_data())
    }) {
        reported[0] += j.read.as_ref().map_or(0, |d| d.io_bytes);
        reported[1] += j.write.as_ref().map_or(0, |d| d.io_bytes);
    }
    let counted: Vec<(&KernelCounters, &crate::DeviceInfo, &TargetInfo)> = targets
        .iter()
        .filter_map(|t| Some((t.kernel_counters.as_ref()?, t.device.as_ref()?, t)))
        .collect();
    if !throughput_test(specs) {
        for (k, d, _) in &counted {
            w.extend(merged(specs, reported, k, &d.name));
        }
    }
    // The totals are judged against every device of the target together: a striped target
    // (--filename=/dev/a:/dev/b) puts half its I/O on each, and one device's half is no
    // evidence of anything. Where a target's device went uncounted, there is no verdict.
    let every_device_counted = targets.iter().all(|t| {
        t.device
            .as_ref()
            .is_some_and(|d| counted.iter().any(|(_, c, _)| c.name == d.name))
    });
    let Some(sum) = summed(&counted).filter(|_| every_device_counted) else {
        return w;
    };
    let names: Vec<&str> = counted.iter().map(|(_, d, _)| d.name.as_str()).collect();
    let name = names.join(" + ");
    // Only O_DIRECT I/O maps one to one onto device requests: buffered reads reach the device
    // as readahead (fewer, larger requests) or not at all.
    let direct = specs.iter().all(|s| s.ioengine.moves_data() && s.direct);
    let flushed = writes_flushed(specs);
    for (i, dir, seen) in [(0, "read", sum.read_bytes), (1, "write", sum.write_bytes)] {
        if i == 1 && flushed && reported[1] >= 1 << 20 {
            // Flushed writes all reach the devices: fewer bytes there were stored smaller.
            w.extend(shrunk(reported[1], seen, &name, targets));
        } else if reported[i] >= 1 << 20 && (seen as f64) < 0.5 * reported[i] as f64 {
            w.push(Warning::DeviceSawLess {
                dir,
                reported: reported[i],
                device: seen,
                device_name: name.clone(),
                cause: saw_less_cause(specs, counted[0].2, dir),
            });
        } else if direct {
            w.extend(rate_check(jobs, groups, &sum, i, &name));
        }
    }
    w
}

/// Every write reached the devices by the run's end: O_DIRECT, or buffered with a sync after
/// each write or at the end, where no block is written twice (the page cache merges the
/// rewrites of a block, which is no shrinking by the storage).
fn writes_flushed(specs: &[JobSpec]) -> bool {
    let mut writers = specs.iter().filter(|s| s.rw.writes()).peekable();
    writers.peek().is_some()
        && writers.all(|s| {
            let synced = s.sync.end_fsync
                || s.sync.sync_every == 1
                || !matches!(s.sync.sync_io, SyncIo::None);
            let once = !s.time_based
                && s.region.loops <= 1
                && (!s.rw.is_random() || !s.pattern.norandommap);
            s.ioengine.moves_data() && (s.direct || (synced && once))
        })
}

/// Flushed writes the devices took clearly fewer bytes of: the storage compressed or
/// deduplicated them. A real file system only adds bytes (metadata, a journal), so a 10 %
/// margin is never crossed by one that stores what it is given (ext4, xfs and plain btrfs
/// are checked for it).
fn shrunk(written: u64, took: u64, devices: &str, targets: &[TargetInfo]) -> Option<Warning> {
    if took as f64 >= SHRUNK * written as f64 {
        return None;
    }
    let found: Vec<String> = targets
        .iter()
        .filter_map(|t| t.filesystem.as_ref()?.compresses())
        .collect();
    let cause = found.first().cloned().unwrap_or_else(|| {
        "a layer below that compresses or deduplicates (VDO, a thin pool, a compressing or \
         deduplicating array)"
            .into()
    });
    Some(Warning::DataShrunk {
        written,
        stored: took,
        devices: devices.into(),
        cause,
    })
}

/// The block layer merged over 10 % of one device's requests in a direction.
fn merged(specs: &[JobSpec], reported: [u64; 2], k: &KernelCounters, device: &str) -> Vec<Warning> {
    [
        (0, "read", k.read_ios, k.read_merges),
        (1, "write", k.write_ios, k.write_merges),
    ]
    .into_iter()
    .filter(|&(i, _, ios, merges)| {
        let submitted = ios + merges;
        reported[i] > 0 && submitted >= 1000 && merges * 10 > submitted
    })
    .map(|(_, dir, ios, merges)| Warning::MergedIo {
        dir,
        percent: 100.0 * merges as f64 / (ios + merges) as f64,
        device_name: device.to_string(),
        advice: merge_advice(specs),
    })
    .collect()
}

/// Writes this much faster than reads of the same block size and pattern are not the medium:
/// a flash or disk medium writes at best about as fast as it reads.
const WRITE_OVER_READ: f64 = 1.5;
/// Flushed writes the devices took less than this share of were stored smaller.
const SHRUNK: f64 = 0.9;

/// A write-only group and a read-only group of the same block size and pattern, both O_DIRECT,
/// where the writes ran `WRITE_OVER_READ` times faster: a volatile write cache below.
fn volatile_cache(specs: &[JobSpec], groups: &[GroupReport]) -> Option<Warning> {
    let pure = |g: &GroupReport, write: bool| {
        let s = specs.get(g.spec_index)?;
        let dir = if write {
            &g.report.write
        } else {
            &g.report.read
        };
        let only = if write {
            s.rw.writes() && !s.rw.reads()
        } else {
            s.rw.reads() && !s.rw.writes()
        };
        (only && s.direct && s.sync.sync_every == 0).then_some((
            s.bs,
            s.rw.is_random(),
            dir.as_ref()?.bw_bytes,
        ))
    };
    for wg in groups {
        let Some((bs, random, wbw)) = pure(wg, true) else {
            continue;
        };
        for rg in groups {
            let Some((rbs, rrandom, rbw)) = pure(rg, false) else {
                continue;
            };
            if rbs == bs && rrandom == random && rbw > 0.0 && wbw > WRITE_OVER_READ * rbw {
                return Some(Warning::VolatileCacheSuspected {
                    bs: workload::format_bytes(bs as f64),
                    write_bw: workload::format_bytes(wbw),
                    read_bw: workload::format_bytes(rbw),
                });
            }
        }
    }
    None
}

/// The counters of several devices added up.
fn summed(
    counted: &[(&KernelCounters, &crate::DeviceInfo, &TargetInfo)],
) -> Option<KernelCounters> {
    counted
        .iter()
        .map(|(k, _, _)| **k)
        .reduce(KernelCounters::plus)
}

/// How to make a short run longer: a size-based job that did its bytes before its --runtime
/// ran out is not helped by a longer --runtime.
fn short_run_fix(specs: &[JobSpec], jobs: &[JobReport], secs: f64) -> String {
    // A latency search ends a window or two after it settles: its measurement is those windows.
    if specs
        .iter()
        .any(|s| s.latency.lat_target.on() && !s.latency.lat_target.run)
    {
        return "the latency search measures its last windows at the depth it found: give a \
                longer latency_window (or latency_run=1 to go on to the end of --runtime)"
            .into();
    }
    // A replay is as long as its trace.
    if specs.iter().any(|s| s.replay.on()) {
        return "a replay lasts as long as its trace: record a longer one, or repeat it with \
                --loops"
            .into();
    }
    // What ended the jobs, where the report knows (reports before it was recorded do not).
    let ended = |e: Ended| jobs.iter().any(|j| j.ended_by == Some(e));
    let known = jobs.iter().any(|j| j.ended_by.is_some());
    if known && !ended(Ended::Size) && !ended(Ended::NumberIos) {
        let size_cut = jobs.iter().any(|j| {
            j.ended_by == Some(Ended::Runtime)
                && specs.get(j.spec_index).is_some_and(|s| !s.time_based)
        });
        return if size_cut {
            "its --runtime ran out with part of its --size still to do: use --runtime=30s or \
             more, or a smaller --size"
                .into()
        } else if ended(Ended::Runtime) {
            "use --runtime=30s or more".into()
        } else if ended(Ended::Full) {
            "the file system filled up in that time (fill_fs): a larger one takes longer to fill"
                .into()
        } else {
            "it was stopped before the end: let it run 30 s or more".into()
        };
    }
    let size_based = specs.iter().filter(|s| !s.time_based);
    let ended_early = size_based
        .clone()
        .any(|s| s.runtime.is_some_and(|r| r.as_secs_f64() > secs + 1.0));
    if ended_early {
        "the job did all of its --size before --runtime ran out: add --time_based to run for \
         the whole --runtime, or give a larger --size"
            .into()
    } else if size_based.clone().next().is_some() {
        "the job did all of its --size in that time: give a larger --size, or --time_based \
         --runtime=30s to run for a set time"
            .into()
    } else {
        "use --runtime=30s or more".into()
    }
}

/// Jobs that carried on past failed I/Os: said once each, with the errnos.
fn io_errors(jobs: &[JobReport]) -> Vec<Warning> {
    jobs.iter()
        .filter_map(|j| {
            let e = j.errors.as_ref()?;
            let which = e
                .by_errno
                .iter()
                .map(|(no, n)| format!("{n} x {}", std::io::Error::from_raw_os_error(*no)))
                .collect::<Vec<_>>()
                .join(", ");
            Some(Warning::IoErrors {
                job: j.name.clone(),
                total: e.total,
                which,
            })
        })
        .collect()
}

/// The I/Os in flight when the window closed took a long time to complete: the run waited
/// for a queue that no figure counts (a deep queue of large blocks on a slow volume).
fn long_drain(specs: &[JobSpec], jobs: &[JobReport]) -> Option<Warning> {
    let (j, ns) = jobs
        .iter()
        .filter_map(|j| Some((j, j.drain_ns?)))
        .max_by_key(|(_, ns)| *ns)?;
    let s = specs.get(j.spec_index)?;
    (ns >= LONG_DRAIN_NS).then(|| Warning::LongDrain {
        job: j.name.clone(),
        secs: ns as f64 / 1e9,
        queue: format!(
            "QD{} of {}: {}",
            s.effective_iodepth(),
            workload::format_bytes(s.max_bs() as f64),
            workload::format_bytes((s.effective_iodepth() as u64 * s.max_bs()) as f64)
        ),
    })
}

/// A direct job's large-block buffers on small pages: said once, for the first such job.
fn small_page_buffers(specs: &[JobSpec], jobs: &[JobReport]) -> Option<Warning> {
    let j = jobs.iter().find(|j| j.huge_page_buffers == Some(false))?;
    let s = specs.get(j.spec_index).filter(|s| s.direct)?;
    Some(Warning::SmallPageBuffers {
        job: j.name.clone(),
        bs: workload::format_bytes(s.max_bs() as f64),
    })
}

/// A sequential job of large blocks is a throughput test: its requests merging is what the
/// device does with such a stream, and bandwidth, not IOPS, is the figure that counts.
fn throughput_test(specs: &[JobSpec]) -> bool {
    specs.iter().all(|s| !s.rw.is_random() && s.bs >= 128 << 10)
}

/// The advice for merged I/O that fits the workload that was run.
fn merge_advice(specs: &[JobSpec]) -> String {
    if specs.iter().all(|s| s.rw.is_random()) {
        "random offsets merge when several jobs' requests land side by side or the device queue \
         is deep: this is what the device does with this workload; for per-request IOPS use \
         --iodepth=1 or a larger region (--size)"
            .into()
    } else {
        "use random offsets (--rw=randread/randwrite) or --iodepth=1 to measure per-request IOPS"
            .into()
    }
}

/// What volbench can establish about why a device saw fewer bytes than were counted.
fn saw_less_cause(specs: &[JobSpec], t: &TargetInfo, dir: &str) -> String {
    if specs.iter().any(|s| !s.direct) {
        return format!(
            "buffered I/O (--direct=0): the page cache {} them; use --direct=1 or a file larger \
             than RAM",
            if dir == "read" { "served" } else { "absorbed" }
        );
    }
    if t.kind == "file" {
        return "with O_DIRECT on a file, the filesystem answered without the device (holes or \
                unwritten extents read as zeros, or inline or cached data); run on a file \
                volbench laid out itself, or on the block device"
            .into();
    }
    "a layer between volbench and the device answered (a cache or a device-mapper target); \
     check the target's stack"
        .into()
}

/// Compares the group's claimed rate in one direction with the device's own rate over the
/// same wall-clock interval. Only single-group runs on a device nothing else is counted on can
/// be judged so; the counters also cover the drain of in-flight I/O, which the tolerance holds.
fn rate_check(
    jobs: &[JobReport],
    groups: &[GroupReport],
    k: &KernelCounters,
    dir: usize,
    device_name: &str,
) -> Option<Warning> {
    let [g] = groups else { return None };
    // A latency search's figures are its last windows, while the counters also hold the
    // depths it tried before: a deeper final queue is rightly faster than their average.
    let searched = jobs.iter().any(|j| j.lat_target.is_some());
    if k.interval_ns < 1_000_000_000 || searched || jobs.iter().any(|j| j.error.is_some()) {
        return None;
    }
    let claimed = match dir {
        0 => g.report.read.as_ref()?.iops,
        _ => g.report.write.as_ref()?.iops,
    };
    let ios = match dir {
        0 => k.read_ios + k.read_merges,
        _ => k.write_ios + k.write_merges,
    };
    let kernel = ios as f64 / (k.interval_ns as f64 / 1e9);
    (claimed > RATE_TOLERANCE * kernel && claimed >= 100.0).then(|| Warning::RateDisagrees {
        dir: if dir == 0 { "read" } else { "write" },
        claimed_iops: claimed,
        kernel_iops: kernel,
        device_name: device_name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stats::JobStats;

    /// A one-group report claiming `ios` reads over `runtime_ns`.
    fn group(ios: u64, runtime_ns: u64) -> GroupReport {
        let mut s = JobStats::default();
        s.dirs[0].ios = ios;
        s.dirs[0].bytes = ios * 4096;
        (0..ios.min(10)).for_each(|_| s.dirs[0].lat.record(1000));
        s.runtime_ns = runtime_ns;
        GroupReport {
            group_reporting: false,
            spec_index: 0,
            report: JobReport::from_stats("g", Vec::new(), &s, true),
        }
    }

    fn counters(read_ios: u64, interval_ns: u64) -> KernelCounters {
        KernelCounters {
            read_ios,
            interval_ns,
            ..Default::default()
        }
    }

    /// Regression (issue 65): a sweep over zram2 and zram2:zram3 printed the RAM warning
    /// twice, once for "zram2" and once for "zram2, zram3 is ...": one per device folds.
    #[test]
    fn each_ram_device_has_its_own_warning() {
        let t = |name: &str| TargetInfo {
            device: Some(crate::schema::DeviceInfo {
                name: name.into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let w = data_warnings(&[], &[t("zram2"), t("zram3"), t("vdb")]);
        let ram: Vec<String> = w
            .iter()
            .filter(|w| w.code() == "memory_device")
            .map(|w| w.to_string())
            .collect();
        assert_eq!(ram.len(), 2, "{ram:?}");
        assert!(
            ram[0].starts_with("zram2 is a block device in RAM"),
            "{ram:?}"
        );
        assert!(
            ram[1].starts_with("zram3 is a block device in RAM"),
            "{ram:?}"
        );
    }

    /// The staggered-window bug's signature: all I/O counted, but divided by one job's window
    /// instead of the wall-clock interval the kernel saw it in.
    #[test]
    fn claimed_rate_above_the_kernels_is_flagged() {
        let dev = "zram0";
        let staggered = [group(2_500_000, 1_000_000_000)];
        let w = rate_check(&[], &staggered, &counters(2_500_000, 5_000_000_000), 0, dev);
        assert!(matches!(w, Some(Warning::RateDisagrees { .. })), "{w:?}");
        let honest = [group(2_500_000, 5_000_000_000)];
        let w = rate_check(&[], &honest, &counters(2_500_000, 5_020_000_000), 0, dev);
        assert_eq!(
            w, None,
            "a few ms of slack between the snapshots is no disagreement"
        );
    }

    #[test]
    fn merge_advice_fits_the_workload() {
        let mut s = JobSpec {
            rw: workload::Rw::RandRead,
            ..Default::default()
        };
        assert!(!merge_advice(&[s.clone()]).contains("use random offsets"));
        s.rw = workload::Rw::Read;
        assert!(merge_advice(&[s]).contains("use random offsets"));
    }

    /// A group of job `spec_index` that moved `mib` MiB in direction `dir` over one second.
    fn moved(spec_index: usize, dir: usize, mib: u64) -> GroupReport {
        let mut s = JobStats::default();
        s.dirs[dir].ios = mib;
        s.dirs[dir].bytes = mib << 20;
        s.dirs[dir].lat.record(1000);
        s.runtime_ns = 1_000_000_000;
        GroupReport {
            group_reporting: false,
            spec_index,
            report: JobReport::from_stats("g", Vec::new(), &s, true),
        }
    }

    fn spec(rw: workload::Rw, bs: u64) -> JobSpec {
        JobSpec {
            rw,
            bs,
            direct: true,
            ..JobSpec::default()
        }
    }

    /// 1M O_DIRECT writes at 3.5 GiB/s against 1.5 GiB/s reads of the same size (the issue's
    /// VM disk) point at a cache below; equal rates, other sizes or synced writes do not.
    #[test]
    fn writes_outrunning_reads_of_the_same_size_suggest_a_volatile_cache() {
        use workload::Rw;
        let specs = [spec(Rw::Write, 1 << 20), spec(Rw::Read, 1 << 20)];
        let fast = [moved(0, 1, 3584), moved(1, 0, 1536)];
        let w = volatile_cache(&specs, &fast);
        assert!(
            matches!(w, Some(Warning::VolatileCacheSuspected { .. })),
            "{w:?}"
        );
        let even = [moved(0, 1, 1600), moved(1, 0, 1536)];
        assert_eq!(volatile_cache(&specs, &even), None, "same speed");
        let other_bs = [spec(Rw::Write, 1 << 20), spec(Rw::Read, 4096)];
        assert_eq!(volatile_cache(&other_bs, &fast), None, "other block sizes");
        let mut synced = specs.clone();
        synced[0].sync.sync_every = 1;
        assert_eq!(volatile_cache(&synced, &fast), None, "synced writes");
    }

    /// A size-based run that ended early is told to run longer by size or time, not to raise
    /// a --runtime it never reached.
    #[test]
    fn short_run_advice_fits_how_the_run_ended() {
        let time_based = JobSpec {
            time_based: true,
            runtime: Some(std::time::Duration::from_secs(2)),
            ..JobSpec::default()
        };
        assert!(short_run_fix(&[time_based], &[], 2.0).contains("--runtime=30s or more"));
        let early = JobSpec {
            time_based: false,
            runtime: Some(std::time::Duration::from_secs(120)),
            ..JobSpec::default()
        };
        assert!(short_run_fix(&[early], &[], 0.6).contains("add --time_based"));
        let sized = JobSpec {
            time_based: false,
            runtime: None,
            ..JobSpec::default()
        };
        assert!(short_run_fix(&[sized], &[], 0.6).contains("larger --size"));
    }
}
