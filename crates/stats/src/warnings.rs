//! Reasons a number may not mean what it seems, each with the fix in its text.

use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// Buffered I/O: the page cache answers reads and absorbs writes.
    BufferedIo,
    /// The device's own counters saw far fewer bytes than volbench moved.
    DeviceSawLess {
        dir: &'static str,
        reported: u64,
        device: u64,
        device_name: String,
    },
    /// Write buffers hold zeros or a pattern, which compressing or deduplicating storage shrinks.
    CompressibleData { what: String },
    /// Too short a run to average out noise or reach steady state.
    ShortRun { secs: f64 },
    /// A job's thread was busy nearly all the time: volbench's CPU, not the device, may be the limit.
    /// `advice` depends on the options used (another engine, more jobs).
    CpuBound { percent: f64, advice: String },
    /// Throughput fell sharply during the run: a burst bucket or cache ran out.
    BurstSuspected { first_iops: f64, last_iops: f64 },
    /// The file lives on a memory-backed filesystem, so no device is measured.
    MemoryFilesystem { fs: String },
    /// The block layer merged many adjacent I/Os: the device served fewer, larger requests.
    MergedIo {
        dir: &'static str,
        percent: f64,
        device_name: String,
    },
}

impl Warning {
    /// A stable identifier for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Warning::BufferedIo => "buffered_io",
            Warning::DeviceSawLess { .. } => "device_saw_less",
            Warning::CompressibleData { .. } => "compressible_data",
            Warning::ShortRun { .. } => "short_run",
            Warning::CpuBound { .. } => "cpu_bound",
            Warning::BurstSuspected { .. } => "burst_suspected",
            Warning::MemoryFilesystem { .. } => "memory_filesystem",
            Warning::MergedIo { .. } => "merged_io",
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::BufferedIo => write!(
                f,
                "buffered I/O (--direct=0): the page cache may have served reads and absorbed \
                 writes; use --direct=1 to measure the device"
            ),
            Warning::DeviceSawLess {
                dir,
                reported,
                device,
                device_name,
            } => write!(
                f,
                "{device_name} saw only {:.0}% of the {dir} bytes volbench counted: the rest came \
                 from or went to a cache, so the {dir} figures are inflated; use --direct=1 or a \
                 file larger than RAM",
                100.0 * *device as f64 / (*reported).max(1) as f64
            ),
            Warning::CompressibleData { what } => write!(
                f,
                "write buffers hold {what}: compressing or deduplicating storage will look faster \
                 than it is; drop --zero_buffers/--buffer_pattern for random data"
            ),
            Warning::ShortRun { secs } => write!(
                f,
                "the run measured only {secs:.1} s: results are noisy and may be inside a burst \
                 window; use --runtime=30s or more"
            ),
            Warning::CpuBound { percent, advice } => write!(
                f,
                "a job thread was busy {percent:.0}% of the time: the CPU, not the device, may be \
                 the limit; {advice}"
            ),
            Warning::BurstSuspected {
                first_iops,
                last_iops,
            } => write!(
                f,
                "throughput fell from {first_iops:.0} to {last_iops:.0} IOPS during the run: a \
                 burst bucket or device cache likely ran out; the average mixes both regimes, so \
                 look at the per-second series or run longer"
            ),
            Warning::MergedIo {
                dir,
                percent,
                device_name,
            } => write!(
                f,
                "the block layer merged {percent:.0}% of the {dir}s into larger requests, so \
                 {device_name} served fewer, bigger I/Os than --bs: this IOPS figure is not the \
                 device's {dir} IOPS at this block size; use random offsets or --iodepth=1"
            ),
            Warning::MemoryFilesystem { fs } => write!(
                f,
                "the file is on {fs}, which lives in RAM: no storage device is measured; choose a \
                 directory on the device under test"
            ),
        }
    }
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
