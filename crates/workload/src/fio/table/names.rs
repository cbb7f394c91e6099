//! The fio option names that code outside the table refers to: a check's error points at the
//! line of the option it is about, commands that build a job (replay, curve, suites, sweeps)
//! set options by name, the runner's errors name the option they refuse. Each is the name of
//! its table entry, which reads it from here too, written once, so a renamed option leaves no
//! stale name behind.

pub const ALLOW_DESTRUCTIVE: &str = "allow_destructive";
pub const BS: &str = "bs";
pub const BSRANGE: &str = "bsrange";
pub const BSSPLIT: &str = "bssplit";
pub const BUFFERED: &str = "buffered";
pub const BUFFER_PATTERN: &str = "buffer_pattern";
pub const CPULOAD: &str = "cpuload";
pub const CPUS_ALLOWED: &str = "cpus_allowed";
pub const DIRECT: &str = "direct";
pub const DIRECTORY: &str = "directory";
pub const EXIT_ON_IO_DONE: &str = "exit_on_io_done";
pub const FILENAME: &str = "filename";
pub const GROUP_REPORTING: &str = "group_reporting";
pub const HIPRI: &str = "hipri";
pub const IODEPTH: &str = "iodepth";
pub const IOENGINE: &str = "ioengine";
pub const LOOPS: &str = "loops";
pub const MERGE_BLKTRACE_ITERS: &str = "merge_blktrace_iters";
pub const MERGE_BLKTRACE_SCALARS: &str = "merge_blktrace_scalars";
pub const NAME: &str = "name";
pub const NRFILES: &str = "nrfiles";
pub const NUMA_CPU_NODES: &str = "numa_cpu_nodes";
pub const NUMA_MEM_POLICY: &str = "numa_mem_policy";
pub const NUMJOBS: &str = "numjobs";
pub const OFFSET: &str = "offset";
pub const PRIOCLASS: &str = "prioclass";
pub const PROGRAM: &str = "program";
pub const RATE_IOPS: &str = "rate_iops";
pub const RATE_IOPS_MIN: &str = "rate_iops_min";
pub const RATE_MIN: &str = "rate_min";
pub const RATE_PROCESS: &str = "rate_process";
pub const READ_IOLOG: &str = "read_iolog";
pub const REPLAY_MAP: &str = "replay_map";
pub const REPLAY_NO_STALL: &str = "replay_no_stall";
pub const REPLAY_SKIP: &str = "replay_skip";
pub const REPLAY_TIME_SCALE: &str = "replay_time_scale";
pub const REPLAY_TRACE_DEPTH: &str = "replay_trace_depth";
pub const REPLAY_WRAP: &str = "replay_wrap";
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
pub const WRITE_IOLOG: &str = "write_iolog";
pub const ZONEMODE: &str = "zonemode";
pub const ZONESIZE: &str = "zonesize";
