//! Reasons a number may not mean what it seems, each with the fix in its text.

use figures::fmt_count;
use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// Buffered I/O: the page cache answers reads and absorbs writes. `what` says which, with
    /// the fix that fits (a final flush for writes, O_DIRECT for both).
    BufferedIo { what: String },
    /// Flushed writes the devices took clearly fewer bytes of than were written: the storage
    /// compressed or deduplicated them. `cause` names what volbench can see of it.
    DataShrunk {
        written: u64,
        stored: u64,
        devices: String,
        cause: String,
    },
    /// The device's own counters saw far fewer bytes than volbench moved.
    /// `cause` names what volbench could establish (page cache, ...), with its fix.
    DeviceSawLess {
        dir: &'static str,
        reported: u64,
        device: u64,
        device_name: String,
        cause: String,
    },
    /// The rate volbench claims is above the rate the device's own counters show over the
    /// same wall-clock interval: the measured interval is wrong, not the device.
    RateDisagrees {
        dir: &'static str,
        claimed_iops: f64,
        kernel_iops: f64,
        device_name: String,
    },
    /// Write buffers hold zeros or a pattern, which compressing or deduplicating storage shrinks.
    CompressibleData { what: String },
    /// Too short a run to average out noise or reach steady state. `fix` fits how it ended
    /// (a size-based job that finished early needs --time_based or a larger size, not a
    /// longer --runtime).
    ShortRun { secs: f64, fix: String },
    /// The I/Os in flight when a job's window closed took `secs` to complete: not counted,
    /// but the run waited for them. `queue` says what was queued.
    LongDrain {
        job: String,
        secs: f64,
        queue: String,
    },
    /// A direct job's large-block buffers are on small pages (no transparent huge page was
    /// given): on a device with a segment limit each I/O may become several requests.
    SmallPageBuffers { job: String, bs: String },
    /// A job carried on past `total` failed I/Os (`continue_on_error`); `which` names the
    /// errnos and their counts.
    IoErrors {
        job: String,
        total: u64,
        which: String,
    },
    /// A job's thread was busy nearly all the time: volbench's CPU, not the device, may be the limit.
    /// `advice` depends on the options used (another engine, more jobs).
    CpuBound { percent: f64, advice: String },
    /// Throughput fell sharply during the run: a burst bucket or cache ran out.
    BurstSuspected { first_iops: f64, last_iops: f64 },
    /// A direction's p99 latency rose past what noise reaches and stayed up to the end: a
    /// cliff (an SLC cache running out, garbage collection, a throttle), from `at_secs`.
    LatencyCliff {
        dir: &'static str,
        at_secs: f64,
        before_ns: f64,
        after_ns: f64,
        /// On a block device in RAM: no cache runs out there, so the host made the rise.
        in_ram: bool,
    },
    /// O_DIRECT writes ran far faster than reads of the same size and pattern: a volatile
    /// write cache below the device node (a hypervisor's host cache, a RAID card) took them.
    VolatileCacheSuspected {
        bs: String,
        write_bw: String,
        read_bw: String,
    },
    /// Jobs that ended inside their ramp_time: as fio, their whole run was counted, the
    /// warm-up included (`jobs` names them, `ramp` their ramp).
    RampSwallowed { jobs: String, ramp: String },
    /// The file lives on a memory-backed filesystem, so no device is measured.
    MemoryFilesystem { fs: String },
    /// The target is a block device in RAM (zram, brd): memory is measured, and nothing
    /// on it survives a power loss.
    MemoryDevice { devices: String },
    /// The last third of the run was still moving: its best-fit line changed `change_pct`
    /// across `secs` seconds, beyond noise. The figure is an average over a change.
    NotSettled {
        dir: &'static str,
        change_pct: f64,
        secs: f64,
    },
    /// A rate-capped direction could not keep its schedule: the I/Os waited before issue,
    /// which latency from submission leaves out. `asked` is the cap as given.
    FellBehind {
        dir: &'static str,
        asked: String,
        done_iops: f64,
        max_lag_ns: u64,
        behind_ns: u64,
        runtime_ns: u64,
    },
    /// The block layer merged many adjacent I/Os: the device served fewer, larger requests.
    MergedIo {
        dir: &'static str,
        percent: f64,
        device_name: String,
        /// The advice that fits the workload (a random one cannot be told "use random offsets").
        advice: String,
    },
}

impl Warning {
    /// A stable identifier for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Warning::BufferedIo { .. } => "buffered_io",
            Warning::DeviceSawLess { .. } => "device_saw_less",
            Warning::RateDisagrees { .. } => "rate_disagrees",
            Warning::CompressibleData { .. } => "compressible_data",
            Warning::ShortRun { .. } => "short_run",
            Warning::LongDrain { .. } => "long_drain",
            Warning::SmallPageBuffers { .. } => "small_page_buffers",
            Warning::IoErrors { .. } => "io_errors",
            Warning::RampSwallowed { .. } => "ramp_swallowed",
            Warning::CpuBound { .. } => "cpu_bound",
            Warning::BurstSuspected { .. } => "burst_suspected",
            Warning::LatencyCliff { .. } => "latency_cliff",
            Warning::MemoryFilesystem { .. } => "memory_filesystem",
            Warning::MemoryDevice { .. } => "memory_device",
            Warning::DataShrunk { .. } => "data_shrunk",
            Warning::VolatileCacheSuspected { .. } => "volatile_cache_suspected",
            Warning::MergedIo { .. } => "merged_io",
            Warning::FellBehind { .. } => "fell_behind",
            Warning::NotSettled { .. } => "not_settled",
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::BufferedIo { .. }
            | Warning::CompressibleData { .. }
            | Warning::MemoryFilesystem { .. }
            | Warning::MemoryDevice { .. }
            | Warning::DataShrunk { .. } => data(f, self),
            Warning::DeviceSawLess { .. }
            | Warning::RateDisagrees { .. }
            | Warning::MergedIo { .. }
            | Warning::VolatileCacheSuspected { .. } => device(f, self),
            _ => timing(f, self),
        }
    }
}

/// What was measured: the page cache, memory, or data storage could shrink.
fn data(f: &mut fmt::Formatter<'_>, w: &Warning) -> fmt::Result {
    match w {
        Warning::BufferedIo { what } => write!(f, "buffered I/O (--direct=0): {what}"),
        Warning::CompressibleData { what } => write!(
            f,
            "write buffers hold {what}: compressing or deduplicating storage will look faster \
             than it is; drop --zero_buffers/--buffer_pattern/--buffer_compress_percentage/\
             --dedupe_percentage (or scramble_buffers=0) for data that is fresh every write"
        ),
        Warning::MemoryFilesystem { fs } => write!(
            f,
            "the file is on {fs}, which lives in RAM: no storage device is measured; choose a \
             directory on the device under test"
        ),
        Warning::DataShrunk {
            written,
            stored,
            devices,
            cause,
        } => write!(
            f,
            "the run wrote and flushed {} but {devices} took only {} ({:.0}%): the storage \
             compressed or deduplicated the data ({cause}), so the write figures are not what \
             incompressible data gets; volbench's default data does not shrink: drop the data \
             options that made it compressible, or measure where nothing compresses",
            figures::fmt_bytes(*written as f64),
            figures::fmt_bytes(*stored as f64),
            100.0 * *stored as f64 / (*written).max(1) as f64
        ),
        Warning::MemoryDevice { devices } => write!(
            f,
            "{devices} is a block device in RAM (zram or a RAM disk): the figures are \
             memory's (and zram's compression's), not a storage device's, and nothing on it \
             survives a power loss; choose a target on the device under test"
        ),
        _ => Ok(()),
    }
}

/// The device's own counters, or its reads and writes, against what volbench counted.
fn device(f: &mut fmt::Formatter<'_>, w: &Warning) -> fmt::Result {
    match w {
        Warning::DeviceSawLess {
            dir,
            reported,
            device,
            device_name,
            cause,
        } => write!(
            f,
            "{device_name} saw only {:.0}% of the {dir} bytes volbench counted, so the {dir} \
             figures are inflated: {cause}",
            100.0 * *device as f64 / (*reported).max(1) as f64
        ),
        Warning::RateDisagrees {
            dir,
            claimed_iops,
            kernel_iops,
            device_name,
        } => write!(
            f,
            "volbench counted {} {dir} IOPS but {device_name}'s own counters show {} over the \
             same interval: the measured interval does not match the wall clock, so the {dir} \
             rate is wrong; please report this with the command line",
            fmt_count(*claimed_iops),
            fmt_count(*kernel_iops)
        ),
        Warning::MergedIo {
            dir,
            percent,
            device_name,
            advice,
        } => write!(
            f,
            "the block layer merged {percent:.0}% of the {dir}s into larger requests, so \
             {device_name} served fewer, bigger I/Os than --bs: this IOPS figure is not the \
             device's {dir} IOPS at this block size; {advice}"
        ),
        Warning::VolatileCacheSuspected {
            bs,
            write_bw,
            read_bw,
        } => write!(
            f,
            "{bs} writes ran at {write_bw}/s against {read_bw}/s for reads of the same size \
             and pattern with O_DIRECT: a volatile write cache below (a hypervisor's host \
             cache, a RAID card) is taking the writes, so the write figure is the cache's; \
             run `volbench fsync` on this target to see whether its flushes reach stable \
             storage"
        ),
        _ => Ok(()),
    }
}

/// How the run went over time: too short, a drain, a ramp, a busy CPU, a burst, a trend, a late schedule.
fn timing(f: &mut fmt::Formatter<'_>, w: &Warning) -> fmt::Result {
    match w {
        Warning::ShortRun { secs, fix } => write!(
            f,
            "the run measured only {secs:.1} s: results are noisy and may be inside a burst \
             window; {fix}"
        ),
        Warning::LongDrain { job, secs, queue } => write!(
            f,
            "job {job}: the I/Os in flight when its window closed took {} more to \
             complete ({queue} queued): no figure counts them, but the run waited for \
             them; lower --iodepth or --bs to end sooner",
            figures::fmt_secs(*secs)
        ),
        Warning::SmallPageBuffers { job, bs } => write!(
            f,
            "job {job}: its {bs} buffers are on 4 KiB pages (the kernel gave no transparent \
             huge page): a virtio disk takes 254 segments per request, so each {bs} direct \
             I/O may reach it as two requests; echo madvise > \
             /sys/kernel/mm/transparent_hugepage/enabled, or free memory, and run again"
        ),
        Warning::IoErrors { job, total, which } => write!(
            f,
            "job {job}: {total} I/Os failed ({which}) and were carried past \
             (continue_on_error): they are in no figure; the device is failing I/O, so check \
             it (dmesg, smartctl) before trusting any result from it"
        ),
        Warning::RampSwallowed { jobs, ramp } => write!(
            f,
            "{jobs} ended inside its ramp_time ({ramp}): as fio does, the whole run is counted, \
             warm-up included; give a larger size (or time_based with a runtime) or a \
             shorter ramp_time to measure after the warm-up"
        ),
        Warning::CpuBound { percent, advice } => write!(
            f,
            "a job thread was busy {percent:.0}% of the time: the CPU, not the device, may be \
             the limit; {advice}"
        ),
        Warning::BurstSuspected { .. }
        | Warning::LatencyCliff { .. }
        | Warning::NotSettled { .. }
        | Warning::FellBehind { .. } => drift(f, w),
        _ => Ok(()),
    }
}

/// The warnings about a run whose rate or latency moved during it: a burst ran out, a
/// latency cliff, a device not settled, a rate the job fell behind.
fn drift(f: &mut fmt::Formatter<'_>, w: &Warning) -> fmt::Result {
    match w {
        Warning::BurstSuspected {
            first_iops,
            last_iops,
        } => write!(
            f,
            "throughput fell from {} to {} IOPS during the run: a burst bucket or device \
             cache likely ran out; the average mixes both regimes, so look at the per-second \
             series or run longer",
            fmt_count(*first_iops),
            fmt_count(*last_iops)
        ),
        Warning::LatencyCliff {
            dir,
            at_secs,
            before_ns,
            after_ns,
            in_ram,
        } => write!(
            f,
            "{dir} p99 latency rose from {} to {} ({:.1}x) at {:.0} s and stayed up to the end: {}; \
             the figures above mix both regimes: see the latency over time, or run longer to \
             see whether it recovers",
            figures::fmt_ns(*before_ns),
            figures::fmt_ns(*after_ns),
            after_ns / before_ns.max(1.0),
            at_secs,
            match in_ram {
                true => "a block device in RAM has no cache to run out, so the host did it \
                         (other work on its CPUs or memory): measure on a quiet host",
                false => "a cliff (an SLC cache running out, garbage collection, a throttle)",
            }
        ),
        Warning::NotSettled {
            dir,
            change_pct,
            secs,
        } => {
            write!(
            f,
            "{dir} IOPS were still {} at the end ({change_pct:+.0}% over the last {secs:.0} s, \
             beyond noise): the average mixes a device still changing (a cache filling, a \
             bucket draining, an SSD not yet written over); run longer, stop at steady \
             state with --ss=iops_slope:1% --ss_dur=30s and a longer --runtime, or \
             precondition an SSD first (volbench suite pts-iops)",
            if *change_pct < 0.0 { "falling" } else { "rising" }
        )
        }
        Warning::FellBehind { .. } => fell_behind(f, w),
        _ => Ok(()),
    }
}

/// The rate a direction asked for, what it got, and how far behind it ran.
fn fell_behind(f: &mut fmt::Formatter<'_>, w: &Warning) -> fmt::Result {
    let Warning::FellBehind {
        dir,
        asked,
        done_iops,
        max_lag_ns,
        behind_ns,
        runtime_ns,
    } = w
    else {
        return Ok(());
    };
    write!(
        f,
        "the {dir}s fell behind their rate ({asked}): {} IOPS done, I/Os issued up to {} after \
         they were due, behind for {} of the {} run; clat and lat start at submission and leave \
         that wait out, the latency from the due time (lat_due) holds it; this is the latency \
         a client at this rate would see; the rate is past what this run could do (the \
         device's limit, or the host's when other work took its CPU): lower it to measure below \
         that",
        fmt_count(*done_iops),
        figures::fmt_ns(*max_lag_ns as f64),
        figures::fmt_ns((*behind_ns).min(*runtime_ns) as f64),
        figures::fmt_ns(*runtime_ns as f64),
    )
}

impl Serialize for Warning {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Warning", 2)?;
        st.serialize_field("code", self.code())?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 7): "fell from 27144923 to 10114444 IOPS" printed raw counts.
    #[test]
    fn burst_numbers_are_formatted_as_reports_format_them() {
        let w = Warning::BurstSuspected {
            first_iops: 27_144_923.0,
            last_iops: 10_114_444.0,
        };
        let s = w.to_string();
        assert!(s.contains("fell from 27.14M to 10.11M IOPS"), "{s}");
        assert_eq!(fmt_count(7733.0), "7733");
        assert_eq!(fmt_count(21_700.0), "21.7k");
    }

    /// Regression (issue 65): a cliff on zram under a busy host was blamed on an SLC cache;
    /// on a RAM device the warning names the host instead.
    #[test]
    fn a_cliff_on_a_ram_device_names_the_host_not_a_cache() {
        let cliff = |in_ram| {
            Warning::LatencyCliff {
                dir: "read",
                at_secs: 3.0,
                before_ns: 54_500.0,
                after_ns: 1_450_000.0,
                in_ram,
            }
            .to_string()
        };
        assert!(
            cliff(false).contains("an SLC cache running out"),
            "{}",
            cliff(false)
        );
        let ram = cliff(true);
        assert!(
            !ram.contains("SLC") && ram.contains("so the host did it"),
            "{ram}"
        );
        assert!(
            ram.starts_with("read p99 latency rose from 54.5 µs to 1.45 ms (26.6x) at 3 s"),
            "{ram}"
        );
    }
}
