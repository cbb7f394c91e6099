//! What the job's thread is: identity, cgroup, priority, CPUs, NUMA, locked memory, commands run
//! around it.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// What the job's thread is: identity, cgroup, priority, CPUs, NUMA, locked memory, commands run
/// around it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessOptions {
    /// fio's `uid` and `gid`: the job's thread does its I/O as this user and group, its
    /// files opened again as them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gid: Option<u32>,
    /// fio's `cgroup`: the blkio cgroup (a path below the hierarchy) the job's thread does
    /// its I/O from; made when missing, and removed after the run unless `cgroup_nodelete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    /// fio's `cgroup_weight` (100 to 1000; 0: unset): the group's blkio weight. With no
    /// `cgroup`, the group is named after the job, as fio's.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub cgroup_weight: u32,
    /// fio's `cgroup_nodelete`: a group the run made is left after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cgroup_nodelete: bool,
    /// The job thread's nice value (fio's `nice`), -20 to 19; 0 leaves it.
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub nice: i32,
    /// fio's `lockmem`: bytes the job pins in memory (mlock) while it runs, so less is left
    /// for the page cache, as on a host with that much less RAM.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub lockmem: u64,
    /// CPUs the job's thread may run on (fio's `cpus_allowed`/`cpumask`); with `cpus_split`
    /// (fio's `cpus_allowed_policy=split`) each clone gets one of them in turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cpus_split: bool,
    /// Run on the CPUs of these NUMA nodes (fio's `numa_cpu_nodes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_cpu_nodes: Option<Vec<u32>>,
    /// The job thread's memory policy (fio's `numa_mem_policy`), its buffers included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_mem: Option<NumaMem>,
    /// fio's `exec_prerun` and `exec_postrun`: shell commands run by the job's thread before
    /// its I/O and after it, their output in `NAME.prerun.txt` / `NAME.postrun.txt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_prerun: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_postrun: Option<String>,
    /// The job thread's I/O priority (fio's `prioclass`, `prio`): class 1 realtime, 2 best
    /// effort, 3 idle, with a level 0 (highest) to 7. `None`: the process's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioprio: Option<(u8, u8)>,
    /// fio's cmdprio options: a share of the I/Os at their own priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdprio: Option<CmdPrio>,
}
