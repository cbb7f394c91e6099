//! The job's identity and grouping (name, units, clones, stonewalls), and how its I/O is
//! issued: engine, O_DIRECT, syncs, priority and CPUs.

use super::{bad, names, num, show_bit, Category as C, FioOption as O, Kind, Phase, Val};
use crate::fio::OptError;
use crate::spec::{EngineKind, SyncIo, SyncMode};

/// The option that names a job; on fio's command line it starts one.
pub(super) const NAME: O = O {
    show: Some(|j| Some(j.name.clone())),
    details: "fio names a job by its section: `name=` in `[global]` does not rename the jobs",
    common: true,
    ..O::new(
        names::NAME,
        C::Job,
        Kind::Text,
        "Job name (names the test file when --filename is not given)",
        "job1",
        |j, v| {
            j.name = v.need()?.to_string();
            Ok(())
        },
    )
};

pub(super) const JOB: &[O] = &[
    NAME,
    // Applied first and printed first: it sets the units of every size after it.
    O {
        phase: Phase::First,
        details: "`1000`: SI prefixes are powers of 1000 (`4k` = 4000), IEC (`KiB`) of 1024; \
                  like fio it sets the units of every size in its own section and in later ones, \
                  not of sizes an earlier `[global]` set",
        show: Some(|j| Some(j.kb_base.to_string())),
        ..O::new(
            "kb_base",
            C::Job,
            Kind::Choice(&["1000", "1024"]),
            "Units of sizes: 1024 (fio's default, 4k = 4096) or 1000 (4k = 4000)",
            "1000",
            |j, v| {
                j.kb_base = if v.choice()? == 0 { 1000 } else { 1024 };
                Ok(())
            },
        )
    },
    O {
        details: "written as fio-json's `desc`",
        show: Some(|j| j.description.clone()),
        ..O::new(
            "description",
            C::Job,
            Kind::Text,
            "Free text shown with the job",
            "a-test",
            |j, v| {
                j.description = v.raw.map(str::to_string);
                Ok(())
            },
        )
    },
    O {
        details: "clones are named `name.N` in native reports",
        show: Some(|j| Some(j.numjobs.to_string())),
        sweep: 5,
        common: true,
        ..O::new(
            names::NUMJOBS,
            C::Job,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "Parallel jobs (threads), each with its own queue",
            "4",
            |j, v| {
                j.numjobs = v.int()?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["wait_for_previous"],
        show: Some(|j| j.timing.stonewall.then(String::new)),
        ..O::new(
            "stonewall",
            C::Job,
            Kind::Flag,
            "Wait for the jobs before this one to end before starting",
            "",
            |j, v| {
                j.timing.stonewall = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.timing.new_group.then(String::new)),
        ..O::new(
            "new_group",
            C::Job,
            Kind::Flag,
            "Start a new reporting group with this job",
            "",
            |j, v| {
                j.timing.new_group = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "a group is one entry in fio-json, as in fio",
        show: Some(|j| j.reporting.group_reporting.then(String::new)),
        ..O::new(
            names::GROUP_REPORTING,
            C::Job,
            Kind::Flag,
            "Report the jobs of a group (numjobs clones included) as one",
            "",
            |j, v| {
                j.reporting.group_reporting = v.flag()?;
                Ok(())
            },
        )
    },
    // volbench always runs jobs as threads; fio's processes measure the same I/O. fio takes
    // any number here (`threads=128` in real files) as "use threads".
    O {
        aliases: &["threads"],
        details: "accepted with a flag or any number (`threads=128`): volbench always runs jobs \
                  as threads",
        ..O::new(
            "thread",
            C::Job,
            Kind::Flag,
            "Run jobs as threads (volbench always does)",
            "",
            |_, v| {
                if v.raw.and_then(|x| x.trim().parse::<u64>().ok()).is_none() {
                    v.flag()?;
                }
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job does its I/O as this user; volbench's jobs are threads, so \
                  the thread alone changes user (the raw setresuid call; glibc's would change \
                  every thread) and opens its files again as that user, so their permissions \
                  apply as to fio's job (a root-owned 0600 file: Permission denied in both). \
                  Set before anything else of the job, exec_prerun included, as fio does",
        show: Some(|j| j.process.uid.map(|u| u.to_string())),
        ..O::new(
            "uid",
            C::Job,
            Kind::Text,
            "Do the job's I/O as this user id (needs root)",
            "65534",
            |j, v| {
                j.process.uid = Some(id(v)?);
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job's group, set before its user (see uid)",
        show: Some(|j| j.process.gid.map(|g| g.to_string())),
        ..O::new(
            "gid",
            C::Job,
            Kind::Text,
            "Do the job's I/O as this group id (needs root)",
            "65534",
            |j, v| {
                j.process.gid = Some(id(v)?);
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job's thread does its I/O from this blkio cgroup (a path below \
                  the first blkio v1 hierarchy in /proc/mounts), made when missing and removed \
                  after the run (after a SIGKILL, by the next volbench to start) unless \
                  `cgroup_nodelete`; one that exists is joined and left as it was. fio moves \
                  its job process; volbench's jobs are threads and v1's `tasks` takes a \
                  thread, so the job thread alone moves, and back after the job. cgroup v2 \
                  moves whole processes: refused, naming `systemd-run --scope`. The group's \
                  `blkio.throttle.io_serviced` counts the job's I/O, in both tools",
        show: Some(|j| j.process.cgroup.clone()),
        ..O::new(
            "cgroup",
            C::Job,
            Kind::Text,
            "Do the job's I/O from this blkio cgroup (made if missing)",
            "volbench-test",
            |j, v| {
                j.process.cgroup = Some(v.need()?.trim().to_string());
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the group's blkio weight (100 to 1000), the group named after the job \
                  when `cgroup` is not given. fio writes CFQ's `blkio.weight`, gone since Linux \
                  5.0; volbench then writes BFQ's `blkio.bfq.weight`, and where neither exists \
                  the job fails in one line, as fio's does",
        show: Some(|j| (j.process.cgroup_weight > 0).then(|| j.process.cgroup_weight.to_string())),
        ..O::new(
            "cgroup_weight",
            C::Job,
            Kind::Int {
                min: 100,
                max: 1000,
            },
            "The job's cgroup's blkio weight, 100 to 1000",
            "500",
            |j, v| {
                let s = v.need()?;
                j.process.cgroup_weight = s
                    .trim()
                    .parse()
                    .ok()
                    .filter(|w| (100..=1000).contains(w))
                    .ok_or_else(|| v.bad(s, "a weight is 100 to 1000"))?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: a group the run made is left after it (its counters can be read)",
        show: Some(|j| j.process.cgroup_nodelete.then(|| "1".into())),
        ..O::new(
            "cgroup_nodelete",
            C::Job,
            Kind::Flag,
            "Leave a cgroup the run made",
            "1",
            |j, v| {
                j.process.cgroup_nodelete = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "fio's e4defrag engine: the donor file (in `directory` when given), made \
                  if missing and left after the run, as fio leaves it. Each write moves its \
                  blocks into the job's file from the donor with EXT4_IOC_MOVE_EXT (ext4 \
                  only), as fio's: the same moves under strace",
        show: Some(|j| j.files.e4defrag_donor.clone()),
        ..O::new(
            "donorname",
            C::Engine,
            Kind::Text,
            "e4defrag: the donor file",
            "file.def",
            |j, v| {
                j.files.e4defrag_donor = Some(v.need()?.trim().to_string());
                Ok(())
            },
        )
    },
    O {
        details: "e4defrag: 1 allocates the donor's space for each move and frees it after; \
                  0 (fio's default) allocates the donor whole before the job",
        show: Some(|j| j.files.e4defrag_inplace.then(|| "1".into())),
        ..O::new(
            "inplace",
            C::Engine,
            Kind::Int { min: 0, max: 1 },
            "e4defrag: allocate the donor per move",
            "1",
            |j, v| {
                j.files.e4defrag_inplace = v.int::<u32>()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "fio's exec engine: the program the job runs (found on PATH), as fio's: \
                  started when the job starts, SIGTERM at the end of its runtime, SIGKILL \
                  `grace_time` seconds later if it is still there (volbench stops waiting \
                  once it has gone; fio sleeps the whole grace), and killed with volbench's \
                  job thread if volbench is killed",
        show: Some(|j| j.engine.exec.program.clone()),
        ..O::new(
            names::PROGRAM,
            C::Engine,
            Kind::Text,
            "exec: the program to run",
            "iostat",
            |j, v| {
                j.engine.exec.program = Some(v.need()?.trim().to_string());
                Ok(())
            },
        )
    },
    O {
        details: "exec: the program's arguments, split at spaces (no quoting, as fio); `%r` is \
                  the runtime in seconds, `%n` the job's name",
        show: Some(|j| j.engine.exec.arguments.clone()),
        ..O::new(
            "arguments",
            C::Engine,
            Kind::Text,
            "exec: arguments (%r runtime, %n job name)",
            "-x 1",
            |j, v| {
                j.engine.exec.arguments = Some(v.need()?.to_string());
                Ok(())
            },
        )
    },
    O {
        details: "exec: seconds between SIGTERM and SIGKILL (fio's default 1)",
        show: Some(|j| (j.engine.exec.grace_s != 1).then(|| j.engine.exec.grace_s.to_string())),
        ..O::new(
            "grace_time",
            C::Engine,
            Kind::Int { min: 0, max: 3600 },
            "exec: seconds from SIGTERM to SIGKILL",
            "2",
            |j, v| {
                j.engine.exec.grace_s = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "exec: the program's output in `NAME.stdout` and `NAME.stderr` in the \
                  working directory (fio's default 1); 0 leaves it on volbench's",
        show: Some(|j| (!j.engine.exec.std_redirect).then(|| "0".into())),
        ..O::new(
            "std_redirect",
            C::Engine,
            Kind::Flag,
            "exec: the program's output into NAME.stdout/NAME.stderr",
            "0",
            |j, v| {
                j.engine.exec.std_redirect = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "fio's cpuio engine: the percent of one CPU the job keeps busy, in cycles of \
                  `cpuchunks` µs of work each followed by a sleep of chunk·(100−load)/load, \
                  as fio's; its CPU time (usr+sys) is what fio's is for the same job",
        show: Some(|j| (j.engine.cpuio.load > 0).then(|| j.engine.cpuio.load.to_string())),
        ..O::new(
            names::CPULOAD,
            C::Engine,
            Kind::Int {
                min: 1,
                max: 1_000_000,
            },
            "cpuio: percent of a CPU to burn",
            "50",
            |j, v| {
                // fio takes any number and caps it at 100.
                j.engine.cpuio.load = v.int::<u32>()?.min(100) as u8;
                Ok(())
            },
        )
    },
    O {
        details: "cpuio: the microseconds of work per cycle (fio's default 50,000)",
        show: Some(|j| {
            (j.engine.cpuio.chunk_us != 50_000).then(|| j.engine.cpuio.chunk_us.to_string())
        }),
        ..O::new(
            "cpuchunks",
            C::Engine,
            Kind::Int {
                min: 1,
                max: 10_000_000,
            },
            "cpuio: microseconds of work per cycle",
            "10000",
            |j, v| {
                j.engine.cpuio.chunk_us = v.int::<u32>()?.max(1);
                Ok(())
            },
        )
    },
    O {
        details: "cpuio: `noop` spins; `qsort` sorts fio's 256 Ki random integers four ways \
                  per cycle, the sort's own time becoming the chunk, as fio's",
        show: Some(|j| j.engine.cpuio.qsort.then(|| "qsort".into())),
        ..O::new(
            "cpumode",
            C::Engine,
            Kind::Text,
            "cpuio: noop (spin) or qsort",
            "qsort",
            |j, v| {
                let s = v.need()?;
                j.engine.cpuio.qsort = match s.trim() {
                    "noop" => false,
                    "qsort" => true,
                    _ => return Err(v.bad(s, "use noop or qsort")),
                };
                Ok(())
            },
        )
    },
    O {
        details: "cpuio: the job ends once the I/O jobs of its phase have ended",
        show: Some(|j| j.engine.cpuio.exit_on_io_done.then(|| "1".into())),
        ..O::new(
            names::EXIT_ON_IO_DONE,
            C::Engine,
            Kind::Flag,
            "cpuio: end when the I/O jobs end",
            "1",
            |j, v| {
                j.engine.cpuio.exit_on_io_done = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "the job thread's nice value, set with setpriority when the job starts \
                  (negative values need root), as fio sets its job process's",
        show: Some(|j| (j.process.nice != 0).then(|| j.process.nice.to_string())),
        ..O::new(
            "nice",
            C::Job,
            Kind::Text,
            "Run the job at this nice value (-20 to 19)",
            "10",
            |j, v| {
                let s = v.need()?;
                j.process.nice = s
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n: &i32| (-20..=19).contains(n))
                    .ok_or_else(|| v.bad(s, "a nice value is a whole number from -20 to 19"))?;
                Ok(())
            },
        )
    },
    O {
        details: "when this job ends, the jobs running beside it stop too (what they did is \
                  kept), as in fio",
        show: Some(|j| j.errors.exitall.then(String::new)),
        ..O::new(
            "exitall",
            C::Job,
            Kind::Flag,
            "Stop the other running jobs when this one ends",
            "",
            |j, v| {
                j.errors.exitall = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "when this job ends in an error, the jobs running beside it stop too, as in \
                  fio",
        show: Some(|j| j.errors.exitall_on_error.then(String::new)),
        ..O::new(
            "exitall_on_error",
            C::Job,
            Kind::Flag,
            "Stop the other running jobs when this one fails",
            "",
            |j, v| {
                j.errors.exitall_on_error = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["allow-destructive"],
        details: "volbench's own: a device holding a file system, a partition table or any \
                  other signature is written only with it",
        show: Some(|j| j.allow_destructive.then(String::new)),
        common: true,
        ..O::new(
            names::ALLOW_DESTRUCTIVE,
            C::Job,
            Kind::Flag,
            "Allow writing to a block device that holds data (its data is destroyed)",
            "",
            |j, v| {
                j.allow_destructive = v.flag()?;
                Ok(())
            },
        )
    },
];

/// A user or group id, as fio takes it: a number (a name is not looked up).
fn id(v: &Val) -> Result<u32, OptError> {
    let s = v.need()?;
    s.trim()
        .parse()
        .ok()
        .filter(|&n: &u32| n != u32::MAX)
        .ok_or_else(|| v.bad(s, "give the numeric id (id -u NAME prints it)"))
}

/// fio's synchronous engines, which volbench runs as psync.
fn engine_note(v: &str) -> Option<String> {
    match v {
        "sync" | "vsync" | "pvsync" | "pvsync2" => Some(format!(
            "ioengine={v} runs as psync: the same reads and writes reach the device, only the \
             system call differs"
        )),
        "splice" => Some(
            "ioengine=splice runs as psync: fio moves the same bytes through a pipe \
             (splice/vmsplice), the device sees the same reads and writes; the pipe's copying \
             is not timed"
                .into(),
        ),
        "posixaio" => Some(
            "ioengine=posixaio runs as io_uring at the same iodepth: the device sees the same \
             requests in flight (glibc's POSIX AIO issues them from helper threads)"
                .into(),
        ),
        _ => None,
    }
}

/// fio's engines for systems volbench does not drive: what each needs, and the nearest thing
/// volbench measures instead.
fn external_engine(name: &str) -> Option<(&'static str, &'static str)> {
    const MAPPED: &str = "map the volume as a block device (rbd map, nvme connect, iscsiadm) and \
                          run the job on it with libaio or io_uring";
    const FILES: &str = "mount it and run the job on a file there (with psync or io_uring)";
    Some(match name {
        "rbd" | "rados" => ("a Ceph cluster and librbd/librados", MAPPED),
        "http" | "s3" => ("an HTTP or S3 server", "mount the bucket (mountpoint-s3, s3fs) and run the job on its files"),
        "nfs" => ("libnfs and an NFS server", FILES),
        "libiscsi" => ("libiscsi and an iSCSI target", MAPPED),
        "nbd" => ("libnbd and an NBD server", MAPPED),
        "spdk" | "spdk_bdev" | "spdk_nvme" => ("SPDK and a device bound to it", "run the job on the NVMe device through the kernel with io_uring (hipri=1 polls)"),
        "xnvme" | "io_uring_cmd" | "sg" | "nvme" => ("NVMe or SCSI passthrough (char devices such as /dev/ng0n1)", "run the job on the block device with io_uring"),
        "windowsaio" | "solarisaio" => ("Windows or Solaris", "on Linux, use io_uring or libaio"),
        "rdma" | "net" | "netsplice" | "gfapi" | "gfapi_async" | "libhdfs" | "pmemblk" | "dev-dax" | "libpmem" | "libzbc" | "mtd" | "dfs" | "libcufile" => {
            ("a system or library this machine has not (a network peer, GlusterFS, HDFS, pmem, MTD, DAOS, GPUDirect)", "volbench measures block and file I/O: use io_uring, libaio or psync on a device or a file")
        }
        _ => return None,
    })
}

pub(super) const OPTIONS: &[O] = &[
    O {
        details: "`io_uring`, `libaio`, `psync`, `mmap` (the file mapped shared, data copied \
                  to and from it, MADV_RANDOM for random jobs, msync then fsync to sync; with \
                  `direct=1` each I/O's pages msynced before it completes, and a write job's \
                  new file written first, since a mapping cannot extend it: as fio's), `null`; `sync`, `vsync`, `pvsync`, `pvsync2`, `splice` run as psync \
                  and `posixaio` as io_uring at the same depth (the device sees the same I/O; a \
                  warning says so); fio's `falloc` (each write fallocates its range, each \
                  read does so keeping the size, each trim punches a hole) and `ftruncate` \
                  (each write truncates the file to its offset; reads fail with EINVAL), as \
                  fio's, checked with fio under strace",
        show: Some(|j| Some(j.ioengine.as_str().into())),
        note: Some(engine_note),
        common: true,
        ..O::new(
            names::IOENGINE,
            C::Engine,
            Kind::Text,
            "I/O engine: io_uring, libaio, psync, mmap, null",
            "io_uring",
            |j, v| {
                let s = v.need()?;
                j.ioengine = EngineKind::parse(s).ok_or_else(|| OptError::Unsupported {
                    key: format!("{}={s}", v.opt.name),
                    hint: external_engine(s).map_or_else(
                        || {
                            ": use io_uring (or posixaio), libaio, psync (or sync, vsync, \
                             pvsync, pvsync2, splice), mmap, null, falloc, ftruncate, cpuio, exec, e4defrag, or \
                             the file engines (filecreate, filestat, filedelete, dircreate, \
                             dirstat, dirdelete)"
                                .into()
                        },
                        |(needs, instead)| format!(": it needs {needs}; {instead}"),
                    ),
                })?;
                Ok(())
            },
        )
    },
    O {
        details: "block sizes must be whole 512-byte sectors only with O_DIRECT: buffered I/O \
                  takes any size (`bs=2300`, etcd's fdatasync check, moves exactly what fio moves)",
        show: Some(|j| show_bit(j.direct)),
        common: true,
        ..O::new(
            names::DIRECT,
            C::Engine,
            Kind::Flag,
            "O_DIRECT: bypass the page cache",
            "1",
            |j, v| {
                j.direct = v.flag()?;
                Ok(())
            },
        )
    },
    O::new(
        names::BUFFERED,
        C::Engine,
        Kind::Flag,
        "The opposite of direct",
        "0",
        |j, v| {
            j.direct = !v.flag()?;
            Ok(())
        },
    ),
    O {
        aliases: &["iodepth_batch"],
        details: "default 1, as fio: each I/O is submitted as soon as it is ready",
        show: Some(|j| Some(j.engine.iodepth_batch_submit.to_string())),
        common: true,
        ..O::new(
            "iodepth_batch_submit",
            C::Engine,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "Submit I/Os in groups of N (1 submits each as soon as it is ready)",
            "16",
            // fio: 0 means 1 (submit each I/O as it is ready).
            |j, v| {
                j.engine.iodepth_batch_submit = v.int::<u32>()?.max(1);
                Ok(())
            },
        )
    },
    O {
        details: "as fio: once all iodepth I/Os are in flight, the job waits until no more \
                  than this many are before it fills the queue again (its I/Os then see \
                  depths between the two; a test compares the latency on a throttled device \
                  with fio's); 0 or iodepth and more keep the queue full",
        show: Some(|j| (j.engine.iodepth_low != 0).then(|| j.engine.iodepth_low.to_string())),
        ..O::new(
            "iodepth_low",
            C::Engine,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "Once the queue is full, let it drain to N before filling it again",
            "4",
            |j, v| {
                j.engine.iodepth_low = v.int::<u32>()?;
                Ok(())
            },
        )
    },
    O {
        details: "io_uring: polled completions (IORING_SETUP_IOPOLL), with `direct=1`, on a \
                  disk with polled queues (`queue/io_poll` 1, e.g. NVMe with `poll_queues`); \
                  elsewhere fio fails every I/O with \"Operation not supported\", and volbench \
                  refuses before laying anything out, naming the disk. pvsync2 (psync here): \
                  RWF_HIPRI on every preadv2/pwritev2, checked with strace against fio's calls. \
                  libaio: refused (fio has no such option there). No disk here polls, so the \
                  polled io_uring path itself is untested",
        show: Some(|j| j.engine.hipri.then(|| "1".into())),
        ..O::new(
            names::HIPRI,
            C::Engine,
            Kind::Flag,
            "Polled completions (io_uring) or RWF_HIPRI (pvsync2)",
            "1",
            |j, v| {
                j.engine.hipri = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "`0`/`none`, `1`/`sync` (O_SYNC), `dsync` (O_DSYNC)",
        show: Some(|j| match j.sync.sync_io {
            SyncIo::None => None,
            SyncIo::Sync => Some("sync".into()),
            SyncIo::Dsync => Some("dsync".into()),
        }),
        ..O::new(
            "sync",
            C::Engine,
            Kind::Text,
            "Open files O_SYNC (sync, 1) or O_DSYNC (dsync); none (0) is the default",
            "dsync",
            |j, v| {
                let s = v.raw.unwrap_or("1");
                j.sync.sync_io = match s {
                    "0" | "none" => SyncIo::None,
                    "1" | "sync" => SyncIo::Sync,
                    "dsync" => SyncIo::Dsync,
                    _ => return Err(v.bad(s, "use none, sync (1) or dsync")),
                };
                Ok(())
            },
        )
    },
    O {
        details: "sync latency is reported in `sync` (fio counts them in `sync.lat_ns.N`)",
        show: Some(|j| {
            (j.sync.sync_every > 0 && j.sync.sync_mode == SyncMode::Fsync).then(|| j.sync.sync_every.to_string())
        }),
        common: true,
        ..O::new(
            "fsync",
            C::Engine,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "fsync after every N writes (its latency is reported as its own metric)",
            "1",
            |j, v| {
                j.sync.sync_every = v.int()?;
                j.sync.sync_mode = SyncMode::Fsync;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            (j.sync.sync_every > 0 && j.sync.sync_mode == SyncMode::Fdatasync)
                .then(|| j.sync.sync_every.to_string())
        }),
        common: true,
        ..O::new(
            "fdatasync",
            C::Engine,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "fdatasync after every N writes",
            "1",
            |j, v| {
                j.sync.sync_every = v.int()?;
                j.sync.sync_mode = SyncMode::Fdatasync;
                Ok(())
            },
        )
    },
    O {
        details: "each job maps and mlocks this many bytes when it starts and lets them go when \
                  it ends, as fio's fio_pin_memory; like fio it pins at most the machine's \
                  memory less 128 MiB, and a pin the kernel refuses (RLIMIT_MEMLOCK) is the \
                  job's error",
        show: Some(|j| (j.process.lockmem > 0).then(|| j.process.lockmem.to_string())),
        ..O::new(
            "lockmem",
            C::Engine,
            Kind::Size,
            "Pin this much memory while the job runs (less is left for the page cache)",
            "1g",
            |j, v| {
                j.process.lockmem = v.size()?;
                Ok(())
            },
        )
    },
    O {
        details: "after every N writes (`FLAGS:N`, N 1 if left out) volbench calls \
                  sync_file_range(2) on the last written file over the range its writes \
                  covered since the last call, with the FLAGS given (`wait_before`, `write`, \
                  `wait_after`, joined by `,`), as fio does; with nothing in flight, as for \
                  fsync=N. Its latency is reported in `sync`. On io_uring it is a system call, \
                  where fio queues it as an SQE",
        show: Some(|j| match j.sync.sync_mode {
            SyncMode::FileRange(f) if j.sync.sync_every > 0 => {
                Some(format!("{}:{}", sfr_names(f), j.sync.sync_every))
            }
            _ => None,
        }),
        ..O::new(
            "sync_file_range",
            C::Engine,
            Kind::Text,
            "sync_file_range(2) with FLAGS after every N writes (FLAGS:N; flags wait_before, write, wait_after)",
            "write:8",
            |j, v| {
                let s = v.need()?;
                let (flags, n) = s.split_once(':').unwrap_or((s, "1"));
                let mut bits = 0u32;
                for f in flags.split([',', '|', '+']).map(str::trim) {
                    bits |= match f {
                        "wait_before" => 1,
                        "write" => 2,
                        "wait_after" => 4,
                        _ => return Err(v.bad(s, "flags are wait_before, write and wait_after, joined by ','")),
                    };
                }
                j.sync.sync_every = n
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| v.bad(s, "give the number of writes after ':' (write:8)"))?;
                j.sync.sync_mode = SyncMode::FileRange(bits);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.sync.end_fsync.then(|| "1".into())),
        common: true,
        ..O::new(
            "end_fsync",
            C::Engine,
            Kind::Flag,
            "fsync once when the job's writes are done (counted in the runtime)",
            "1",
            |j, v| {
                j.sync.end_fsync = v.flag()?;
                Ok(())
            },
        )
    },
    // fio syncs each file as it closes it, after the job's last I/O: end_fsync's moment.
    O {
        details: "one fsync after the job's last write (when fio closes the file), counted by \
                  strace against fio's",
        ..O::new(
            "fsync_on_close",
            C::Engine,
            Kind::Flag,
            "fsync each file as it is closed",
            "1",
            |j, v| {
                j.sync.end_fsync = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.engine.rwf_dsync.then(|| "1".into())),
        ..O::new(
            "rwf_dsync",
            C::Engine,
            Kind::Flag,
            "RWF_DSYNC on every write (pvsync2/io_uring)",
            "1",
            |j, v| {
                j.engine.rwf_dsync = v.flag()?;
                Ok(())
            },
        )
    },
    // As fio sets them: a `prio` alone is in the best-effort class, a class alone has level 0
    // (strace of fio 3.33).
    O {
        details: "each job thread's I/O priority (ioprio_set): class 1 realtime, 2 best effort, \
                  3 idle; a class alone has level 0, as fio sets it (the calls under strace are \
                  fio's)",
        show: Some(|j| j.process.ioprio.map(|p| p.0.to_string())),
        ..O::new(
            names::PRIOCLASS,
            C::Engine,
            Kind::Int { min: 1, max: 3 },
            "I/O priority class: 1 realtime, 2 best effort, 3 idle",
            "2",
            |j, v| {
                let class: u8 = v.int()?;
                j.process.ioprio = Some((class, j.process.ioprio.map_or(0, |p| p.1)));
                Ok(())
            },
        )
    },
    O {
        details: "level 0 (highest) to 7; a `prio` alone is in the best-effort class, as fio \
                  sets it",
        show: Some(|j| j.process.ioprio.map(|p| p.1.to_string())),
        ..O::new(
            "prio",
            C::Engine,
            Kind::Int { min: 0, max: 7 },
            "I/O priority level within its class: 0 (highest) to 7",
            "4",
            |j, v| {
                let level: u8 = v.int()?;
                j.process.ioprio = Some((j.process.ioprio.map_or(2, |p| p.0), level));
                Ok(())
            },
        )
    },
    O {
        details: "each job thread is pinned (`sched_setaffinity`) to the CPUs listed, or with \
                  `cpus_allowed_policy=split` one per clone in turn; checked in `/proc` during a \
                  run; a CPU the machine lacks is one error line",
        show: Some(|j| {
            j.process.cpus.as_ref().map(|c| {
                let l: Vec<String> = c.iter().map(|c| c.to_string()).collect();
                l.join(",")
            })
        }),
        ..O::new(
            names::CPUS_ALLOWED,
            C::Engine,
            Kind::Text,
            "Pin the job to these CPUs: 0-3,6",
            "0-1",
            |j, v| {
                j.process.cpus = Some(cpu_list(v.opt.name, v.need()?)?);
                Ok(())
            },
        )
    },
    O::new(
        "cpumask",
        C::Engine,
        Kind::Text,
        "Pin the job to the CPUs of this mask: 0x3 is CPUs 0 and 1",
        "0x3",
        |j, v| {
            let s = v.need()?;
            let t = s.trim();
            let mask = match t.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => t.parse::<u64>(),
            }
            .map_err(|_| v.bad(s, "a CPU mask, e.g. 0x3 for CPUs 0 and 1"))?;
            let cpus: Vec<u32> = (0..64).filter(|c| mask >> c & 1 == 1).collect();
            if cpus.is_empty() {
                return Err(v.bad(s, "the mask names no CPU"));
            }
            j.process.cpus = Some(cpus);
            Ok(())
        },
    ),
    O {
        show: Some(|j| Some(if j.process.cpus_split { "split" } else { "shared" }.into())),
        ..O::new(
            "cpus_allowed_policy",
            C::Engine,
            Kind::Choice(&["shared", "split"]),
            "shared: every clone on all the CPUs; split: one CPU per clone in turn",
            "split",
            |j, v| {
                j.process.cpus_split = v.choice()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "posix_fadvise(2) on each file's region when it is opened, as fio: `1` (fio's \
                  default) advises random for random jobs and sequential otherwise, so buffered \
                  random reads run without readahead; `0` gives no advice",
        show: Some(|j| Some(j.files.fadvise.as_str().into())),
        ..O::new(
            "fadvise_hint",
            C::Engine,
            Kind::Choice(&crate::spec::Fadvise::WORDS),
            "posix_fadvise advice on each file: 0, 1 (by the pattern), random, sequential, noreuse",
            "sequential",
            |j, v| {
                j.files.fadvise = crate::spec::Fadvise::from_index(v.choice()?);
                Ok(())
            },
        )
    },
    O {
        details: "the write-lifetime hint set on each file with fcntl(F_SET_RW_HINT) before the \
                  job, as fio; the kernel keeps it on the inode (a test reads it back)",
        show: Some(|j| {
            j.engine.write_hint
                .map(|h| crate::spec::WRITE_HINTS[(h as usize).clamp(1, 5) - 1].into())
        }),
        ..O::new(
            "write_hint",
            C::Engine,
            Kind::Choice(&crate::spec::WRITE_HINTS),
            "Write-lifetime hint on each file: none, short, medium, long, extreme",
            "short",
            |j, v| {
                j.engine.write_hint = Some(v.choice()? as u64 + 1);
                Ok(())
            },
        )
    },
    O {
        details: "the job's disk is switched to this scheduler before the run (the kernel must \
                  take it, as fio checks) and switched back after it, after an error or Ctrl-C, \
                  and by the next volbench to start after a SIGKILL; fio leaves it switched",
        show: Some(|j| j.engine.ioscheduler.clone()),
        ..O::new(
            "ioscheduler",
            C::Engine,
            Kind::Text,
            "I/O scheduler of the job's disk during the run (none, mq-deadline, bfq, kyber)",
            "mq-deadline",
            |j, v| {
                let s = v.need()?;
                if s.is_empty() || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
                    return Err(v.bad(s, "name a scheduler: none, mq-deadline, bfq or kyber"));
                }
                j.engine.ioscheduler = Some(s.to_string());
                Ok(())
            },
        )
    },
    O {
        details: "io_uring's IORING_SETUP_SQPOLL: a kernel thread (`iou-sqp-PID`) takes the \
                  submissions, so the job thread submits without a syscall while it is awake \
                  (1 s idle, the kernel's default, as fio); other engines ignore it, as fio's do",
        show: Some(|j| j.engine.sqthread_poll.then(|| "1".into())),
        ..O::new(
            "sqthread_poll",
            C::Engine,
            Kind::Flag,
            "io_uring: a kernel thread polls the submission queue",
            "1",
            |j, v| {
                j.engine.sqthread_poll = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "the CPU the submission thread runs on (IORING_SETUP_SQ_AFF)",
        show: Some(|j| j.engine.sqthread_poll_cpu.map(|c| c.to_string())),
        ..O::new(
            "sqthread_poll_cpu",
            C::Engine,
            Kind::Int { min: 0, max: 1023 },
            "io_uring: the CPU of the submission-polling thread",
            "0",
            |j, v| {
                j.engine.sqthread_poll_cpu = Some(v.int::<u32>()?);
                Ok(())
            },
        )
    },
    O {
        details: "the job thread runs on the CPUs of these nodes (from \
                  /sys/devices/system/node/nodeN/cpulist; `all`: every online node), as fio's \
                  numa_run_on_node_mask; strace shows the same sched_setaffinity in both tools",
        show: Some(|j| j.process.numa_cpu_nodes.as_ref().map(|n| list_form(n))),
        ..O::new(
            names::NUMA_CPU_NODES,
            C::Engine,
            Kind::Text,
            "Run on the CPUs of these NUMA nodes: 0, 0-1,3 or all",
            "0",
            |j, v| {
                let s = v.need()?;
                j.process.numa_cpu_nodes = Some(if s.trim() == "all" {
                    Vec::new()
                } else {
                    cpu_list(v.opt.name, s)?
                });
                Ok(())
            },
        )
    },
    O {
        details: "set_mempolicy(2) on the job thread before its buffers are allocated, as fio \
                  does through libnuma: `default`, `prefer:N`, `bind:NODES`, `interleave:NODES`, \
                  `local`; strace shows the same mode and node mask in both tools",
        show: Some(|j| j.process.numa_mem.as_ref().map(crate::spec::NumaMem::fio_form)),
        ..O::new(
            names::NUMA_MEM_POLICY,
            C::Engine,
            Kind::Text,
            "Memory policy of the job: default, local, prefer:N, bind:NODES, interleave:NODES",
            "bind:0",
            |j, v| {
                let s = v.need()?;
                let (word, nodes) = s.split_once(':').unwrap_or((s, ""));
                let modes = crate::spec::NumaMem::MODES;
                let fix = "use default, local, prefer:N, bind:NODES or interleave:NODES";
                let mode = modes
                    .iter()
                    .position(|m| *m == word.trim())
                    .ok_or_else(|| v.bad(s, fix))?;
                let nodes = if nodes.trim().is_empty() {
                    Vec::new()
                } else {
                    cpu_list(v.opt.name, nodes)?
                };
                let needs = matches!(mode, 1..=3);
                if needs == nodes.is_empty() || (mode == 1 && nodes.len() != 1) {
                    return Err(v.bad(s, fix));
                }
                j.process.numa_mem = Some(crate::spec::NumaMem {
                    mode: mode as u8,
                    nodes,
                });
                Ok(())
            },
        )
    },
    O {
        details: "the system call of `filestat` and `dirstat`, as fio's engine option",
        show: Some(|j| {
            (j.reporting.stat_type != 0).then(|| ["stat", "lstat", "statx"][j.reporting.stat_type as usize % 3].into())
        }),
        ..O::new(
            "stat_type",
            C::Engine,
            Kind::Choice(&["stat", "lstat", "statx"]),
            "filestat/dirstat: stat, lstat or statx",
            "statx",
            |j, v| {
                j.reporting.stat_type = v.choice()? as u8;
                Ok(())
            },
        )
    },
    O {
        details: "fio 3.40's option: buffered reads and writes with RWF_DONTCACHE (Linux \
                  6.14), so their pages leave the page cache once done (a test counts the \
                  file's resident pages after the run with fincore); psync, libaio and io_uring",
        show: Some(|j| j.engine.uncached.then(|| "1".into())),
        ..O::new(
            "uncached",
            C::Engine,
            Kind::Int { min: 0, max: 1 },
            "Buffered I/O that leaves no pages in the page cache (RWF_DONTCACHE)",
            "1",
            |j, v| {
                j.engine.uncached = v.int::<u8>()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "fio 3.38's option: writes with RWF_ATOMIC (Linux 6.11), stored whole or not \
                  at all; refused before any I/O where the target's device has no atomic write \
                  unit (its queue/atomic_write_unit_max_bytes is 0), as the kernel would refuse \
                  every write",
        show: Some(|j| j.engine.atomic.then(|| "1".into())),
        ..O::new(
            "atomic",
            C::Engine,
            Kind::Flag,
            "Writes with torn-write protection (RWF_ATOMIC)",
            "1",
            |j, v| {
                j.engine.atomic = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "pvsync2 (psync here) with `hipri`: this share of the reads and writes \
                  carries RWF_HIPRI, the rest not, drawn per I/O as fio's (strace counts the \
                  flagged preadv2 calls of both)",
        show: Some(|j| (j.engine.hipri_percent != 100).then(|| j.engine.hipri_percent.to_string())),
        ..O::new(
            "hipri_percentage",
            C::Engine,
            Kind::Int { min: 0, max: 100 },
            "psync with hipri: the share of I/Os that are polled",
            "50",
            |j, v| {
                j.engine.hipri_percent = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "io_uring: every Nth request carries IOSQE_ASYNC, so the kernel hands it to \
                  an io-wq worker thread (`iou-wrk-PID`) instead of trying it inline first, as \
                  fio's (a test finds those workers under both tools with it, none without)",
        show: Some(|j| (j.engine.force_async != 0).then(|| j.engine.force_async.to_string())),
        ..O::new(
            "force_async",
            C::Engine,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "io_uring: hand every Nth request to a kernel worker thread",
            "4",
            |j, v| {
                j.engine.force_async = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "pvsync2's, libaio's and io_uring's option: every read and write with \
                  RWF_NOWAIT, so one that would block (a page-cache miss, a write that must \
                  allocate) fails with EAGAIN and ends the job, as fio's does (a test runs \
                  both on a cold and on a cached file)",
        show: Some(|j| j.engine.nowait.then(|| "1".into())),
        ..O::new(
            "nowait",
            C::Engine,
            Kind::Flag,
            "Fail an I/O that would block with EAGAIN (RWF_NOWAIT)",
            "1",
            |j, v| {
                j.engine.nowait = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "fio's errors to carry on past: none, read, write, io (read and write), \
                  verify, all (0 and 1 are none and all). As in fio only EIO and a verify \
                  mismatch (EILSEQ) are carried past; the failed I/Os are counted per errno \
                  (fio-JSON's total_err and first_error) and left out of every other figure, \
                  and the report warns that they happened",
        show: Some(|j| {
            (j.errors.continue_on_error != 0).then(|| {
                match j.errors.continue_on_error {
                    1 => "read",
                    2 => "write",
                    3 => "io",
                    4 => "verify",
                    _ => "all",
                }
                .into()
            })
        }),
        ..O::new(
            "continue_on_error",
            C::Engine,
            Kind::Choice(&["none", "read", "write", "io", "verify", "all", "0", "1"]),
            "Carry on past I/O errors (EIO) or verify mismatches, counting them",
            "none",
            |j, v| {
                j.errors.continue_on_error = [0, 1, 2, 3, 4, 7, 0, 7][v.choice()?];
                Ok(())
            },
        )
    },
    O {
        aliases: &["fill_device"],
        details: "fio's `fill_fs` (alias `fill_device`): a file's size is its file system's \
                  free space when the job starts (a device's, all of it), and ENOSPC or EDQUOT \
                  ends the job (`ended_by: full`) instead of failing it; the file stays, as \
                  fio's does",
        show: Some(|j| j.files.fill_fs.then(|| "1".into())),
        ..O::new(
            "fill_fs",
            C::Engine,
            Kind::Flag,
            "Write until the file system is full (its free space as the size)",
            "1",
            |j, v| {
                j.files.fill_fs = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "fio's `file_append`: the job's I/O starts at the end of each regular file \
                  that exists (as `offset` set to its size), so a write job appends `size` \
                  bytes and leaves what was there untouched; ignored on devices, as in fio",
        show: Some(|j| j.files.file_append.then(|| "1".into())),
        ..O::new(
            "file_append",
            C::Engine,
            Kind::Flag,
            "Do the I/O after the end of each file (append)",
            "1",
            |j, v| {
                j.files.file_append = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "volbench verifies from the header every written block carries (offset, \
                  sequence, checksum), not by replaying the random sequence: the blocks checked \
                  are the same. As fio 3.33 counts: the closing verify is one of the `loops` \
                  (a write job of loops=8 writes 7 passes) and reads the blocks back once, \
                  where plain verify reads them back after every loop",
        show: Some(|j| j.checking.experimental_verify.then(|| "1".into())),
        ..O::new(
            "experimental_verify",
            C::Engine,
            Kind::Flag,
            "fio's experimental verify: one closing check, counted as a loop",
            "1",
            |j, v| {
                j.checking.experimental_verify = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job's thread runs the command with `sh -c` before its I/O \
                  (after the files are laid out, before the common start), its output in \
                  `JOBNAME.prerun.txt` in the working directory; a command that fails fails \
                  the job before any I/O (`echo 3 > /proc/sys/vm/drop_caches` is the usual one)",
        show: Some(|j| j.process.exec_prerun.clone()),
        ..O::new(
            "exec_prerun",
            C::Engine,
            Kind::Text,
            "Shell command the job runs before its I/O",
            "sync",
            |j, v| {
                j.process.exec_prerun = Some(v.need()?.to_string());
                Ok(())
            },
        )
    },
    O {
        details: "as fio: run with `sh -c` by the job's thread after its I/O, its output in \
                  `JOBNAME.postrun.txt`; its exit status does not change the job's, as in fio",
        show: Some(|j| j.process.exec_postrun.clone()),
        ..O::new(
            "exec_postrun",
            C::Engine,
            Kind::Text,
            "Shell command the job runs after its I/O",
            "sync",
            |j, v| {
                j.process.exec_postrun = Some(v.need()?.to_string());
                Ok(())
            },
        )
    },
    O {
        details: "as fio: `READ,WRITE,VERIFY` lists of errnos separated by `:` (names such as \
                  ENOSPC, or numbers), each carried past for its kind of I/O in place of EIO \
                  and EILSEQ, and that kind added to `continue_on_error`",
        show: Some(|j| {
            j.errors.ignore_error.iter().any(|l| !l.is_empty()).then(|| {
                let list =
                    |l: &Vec<i32>| l.iter().map(i32::to_string).collect::<Vec<_>>().join(":");
                j.errors.ignore_error
                    .iter()
                    .map(list)
                    .collect::<Vec<_>>()
                    .join(",")
            })
        }),
        ..O::new(
            "ignore_error",
            C::Engine,
            Kind::Text,
            "Errnos to carry past: READ_LIST,WRITE_LIST,VERIFY_LIST (ENOSPC:122)",
            "EAGAIN,ENOSPC:122",
            |j, v| {
                let s = v.need()?;
                for (k, list) in s.split(',').enumerate() {
                    if k > 2 {
                        return Err(v.bad(s, "at most three lists: read, write, verify"));
                    }
                    let mut errs = Vec::new();
                    for e in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
                        errs.push(errno_of(e).ok_or_else(|| {
                            v.bad(s, format!("unknown error {e}: use its number"))
                        })?);
                    }
                    if !errs.is_empty() {
                        j.errors.continue_on_error |= 1 << k;
                        j.errors.ignore_error[k] = errs;
                    }
                }
                Ok(())
            },
        )
    },
    O {
        details: "newer fio's (not in 3.33): when a writing job's I/O is done, syncfs(2) once on \
                  each file system \
                  its files are on (in place of end_fsync's fsync of each file), timed in the \
                  job's runtime as fio's is",
        show: Some(|j| j.sync.end_syncfs.then(|| "1".into())),
        ..O::new(
            "end_syncfs",
            C::Engine,
            Kind::Flag,
            "Sync each file system the job wrote to (syncfs) when it ends",
            "1",
            |j, v| {
                j.sync.end_syncfs = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: an `offset=N%` (with the clone's `offset_increment`) is rounded up to \
                  a multiple of this; without it, up to a multiple of the smallest block size",
        show: Some(|j| (j.pattern.offset_align != 0).then(|| j.pattern.offset_align.to_string())),
        ..O::new(
            "offset_align",
            C::Engine,
            Kind::Size,
            "Round a percentage offset up to a multiple of this",
            "64k",
            |j, v| {
                j.pattern.offset_align = v.size()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job's files are laid out (written where the job reads, given \
                  their space where it only writes) and the job ends there, with no I/O \
                  measured (`ended_by: size`, 0 I/Os)",
        show: Some(|j| j.files.create_only.then(|| "1".into())),
        ..O::new(
            "create_only",
            C::Engine,
            Kind::Flag,
            "Only lay the files out; do no I/O",
            "1",
            |j, v| {
                j.files.create_only = v.flag()?;
                Ok(())
            },
        )
    },
];

/// An errno by fio's rule: a name starting with E (the common ones), or a number (0x for
/// hex, a minus sign ignored).
fn errno_of(e: &str) -> Option<i32> {
    const NAMES: [(&str, i32); 24] = [
        ("EPERM", libc::EPERM),
        ("ENOENT", libc::ENOENT),
        ("EINTR", libc::EINTR),
        ("EIO", libc::EIO),
        ("ENXIO", libc::ENXIO),
        ("EBADF", libc::EBADF),
        ("EAGAIN", libc::EAGAIN),
        ("ENOMEM", libc::ENOMEM),
        ("EACCES", libc::EACCES),
        ("EFAULT", libc::EFAULT),
        ("EBUSY", libc::EBUSY),
        ("EEXIST", libc::EEXIST),
        ("ENODEV", libc::ENODEV),
        ("EINVAL", libc::EINVAL),
        ("EFBIG", libc::EFBIG),
        ("ENOSPC", libc::ENOSPC),
        ("EROFS", libc::EROFS),
        ("EILSEQ", libc::EILSEQ),
        ("EOPNOTSUPP", libc::EOPNOTSUPP),
        ("ETIMEDOUT", libc::ETIMEDOUT),
        ("EDQUOT", libc::EDQUOT),
        ("ENOTSUP", libc::ENOTSUP),
        ("EMEDIUMTYPE", libc::EMEDIUMTYPE),
        ("EBADMSG", libc::EBADMSG),
    ];
    if e.starts_with('E') {
        return NAMES.iter().find(|(n, _)| *n == e).map(|&(_, v)| v);
    }
    let (digits, radix) = match e.strip_prefix("0x").or_else(|| e.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (e, 10),
    };
    let n = i64::from_str_radix(digits.trim_start_matches('-'), radix).ok()?;
    i32::try_from(n).ok().filter(|n| *n != 0)
}

/// A list of numbers as fio writes it back: `0,1,3`.
fn list_form(n: &[u32]) -> String {
    if n.is_empty() {
        return "all".into();
    }
    n.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// fio's CPU list: `0-3,5,8-9`.
fn cpu_list(key: &str, v: &str) -> Result<Vec<u32>, OptError> {
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (num(key, a)?, num(key, b)?);
        if a > b || b >= 1024 {
            return Err(bad(key, v, "give CPU numbers or ranges such as 0-3,6"));
        }
        out.extend(a..=b);
    }
    if out.is_empty() {
        return Err(bad(key, v, "give CPU numbers or ranges such as 0-3,6"));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// SYNC_FILE_RANGE_* bits as fio's option names them.
fn sfr_names(bits: u32) -> String {
    let names: Vec<&str> = [(1, "wait_before"), (2, "write"), (4, "wait_after")]
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| *n)
        .collect();
    names.join(",")
}
