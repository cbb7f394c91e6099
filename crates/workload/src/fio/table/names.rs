//! The fio option names that code outside the table refers to: a check's error points at the
//! line of the option it is about, the single-job command line reads runtime and time_based,
//! suite overrides four options, the runner's errors name the option they refuse. Each is the
//! name of its table entry, written here once, so a renamed option leaves no stale name behind.

pub const BS: &str = "bs";
pub const BSRANGE: &str = "bsrange";
pub const BSSPLIT: &str = "bssplit";
pub const BUFFERED: &str = "buffered";
pub const BUFFER_PATTERN: &str = "buffer_pattern";
pub const CPUS_ALLOWED: &str = "cpus_allowed";
pub const DIRECT: &str = "direct";
pub const HIPRI: &str = "hipri";
pub const IODEPTH: &str = "iodepth";
pub const IOENGINE: &str = "ioengine";
pub const NAME: &str = "name";
pub const NRFILES: &str = "nrfiles";
pub const NUMJOBS: &str = "numjobs";
pub const LOOPS: &str = "loops";
pub const GROUP_REPORTING: &str = "group_reporting";
pub const OFFSET: &str = "offset";
pub const PRIOCLASS: &str = "prioclass";
pub const RATE_MIN: &str = "rate_min";
pub const RATE_IOPS_MIN: &str = "rate_iops_min";
pub const RUNTIME: &str = "runtime";
pub const RW: &str = "rw";
pub const RWMIXREAD: &str = "rwmixread";
pub const RWMIXWRITE: &str = "rwmixwrite";
pub const SIZE: &str = "size";
pub const THINKTIME_BLOCKS: &str = "thinktime_blocks";
pub const THINKTIME_BLOCKS_TYPE: &str = "thinktime_blocks_type";
pub const TIME_BASED: &str = "time_based";
pub const VERIFY: &str = "verify";
pub const VERIFY_BACKLOG: &str = "verify_backlog";
