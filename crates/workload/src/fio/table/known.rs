//! fio options volbench does not run as fio does: accepted with a note (they change how fio
//! measures, not the I/O), skipped with a warning (logs and reports only), or refused (they
//! change the I/O). Every one of fio 3.33's options is here or in another group, so a real fio
//! option is never called unknown, and a typo of one still gets "did you mean".

use super::{FioOption as O, Support};

const fn noted(name: &'static str, note: &'static str) -> O {
    O::known(name, Support::Note(note), "")
}

const fn skipped(name: &'static str) -> O {
    O::known(name, Support::Ignored, "")
}

/// Refused, with why and what to do instead (shown in the error and in the docs).
const fn refused(name: &'static str, why: &'static str) -> O {
    let mut o = O::known(name, Support::No, "");
    o.details = why;
    o
}

const R_VERIFY_LAYOUT: &str =
    "it lays out fio's own verify format (a header every N bytes, or the \
                               header moved inside the block), which volbench does not write: its \
                               own header and checksum cover each written block whole, so the \
                               same writes are made and checked, and a mismatch is reported at \
                               the block's offset";
const REAPS: &str = "volbench reaps every completion that is ready, at least one, each turn";
const REGISTERS: &str = "volbench's io_uring registers its buffers and files whenever the \
                         kernel allows, whatever this says: the device sees the same I/O, only \
                         the CPU per I/O differs";

/// Options that only change how fio takes its measurements, which volbench takes its own way.
pub(super) const NOTED: &[O] = &[
    noted("mem", R_MEM),
    noted("iomem", R_MEM),
    O {
        aliases: &["mem_align"],
        ..noted("iomem_align", R_MEM)
    },
    noted("hugepage-size", R_MEM),
    noted(
        "write_barrier",
        "fio marks every Nth write a barrier only for an engine that acts on it (libpmem's); \
         with the engines volbench has, fio's writes are the same with or without it",
    ),
    noted(
        "gtod_reduce",
        "volbench reads the clock for every I/O anyway (about 20 ns a read), so every latency \
         is measured",
    ),
    noted("clocksource", "volbench always times with CLOCK_MONOTONIC"),
    noted(
        "flow_watermark",
        "deprecated in fio, which accepts and ignores it; volbench's flow shares I/O by the \
         weights alone (flow=), as fio's does now",
    ),
    noted(
        "allow_mounted_write",
        "the job file's consent is fio's, not taken: volbench never writes to a mounted device \
         (nor one in use as swap or held by another driver), whatever the consent; a device \
         holding a file system or partition table is written only with --allow-destructive \
         on the command line (files and empty devices need nothing)",
    ),
    noted(
        "read_iolog_chunked",
        "volbench always reads a trace as a stream, in bounded memory",
    ),
    noted(
        "gtod_cpu",
        "volbench has no clock thread; each job reads the clock itself",
    ),
    noted("unit_base", "volbench reports bytes (and bits nowhere)"),
    noted(
        "io_submit_mode",
        "volbench submits from each job's own thread (fio's inline); fio's offload hands \
         every I/O to a submit thread, which on a fast target caps fio's own rate far below \
         the target's (about 100x on the null engine), so compare rates on real devices only",
    ),
    noted("iodepth_batch_complete_min", REAPS),
    noted("iodepth_batch_complete_max", REAPS),
    noted("iodepth_batch_complete", REAPS),
    noted(
        "nonvectored",
        "volbench's io_uring always issues non-vectored reads and writes (IORING_OP_READ and \
         WRITE, or their fixed-buffer forms), which is fio's choice too where the kernel has them",
    ),
    noted(
        "thp",
        "fio's mmap engine asks for transparent huge pages on its mapping (MADV_HUGEPAGE), \
         which the kernel grants only to anonymous and tmpfs memory; on a file or device the \
         page faults, and the I/O, are the same",
    ),
    noted("verify_interval", R_VERIFY_LAYOUT),
    noted("verify_offset", R_VERIFY_LAYOUT),
    noted("fixedbufs", REGISTERS),
    noted("registerfiles", REGISTERS),
    noted(
        "random_generator",
        "volbench draws random offsets its own way: a keyed permutation that visits each block \
         once per pass (what fio's lfsr guarantees, and its random map does for tausworthe), \
         or uniform draws with norandommap; the offsets differ, their distribution does not",
    ),
    noted(
        "verify_fatal",
        "volbench always stops the job at the first block that fails its check",
    ),
    noted(
        "verify_async",
        "volbench checks each read in the job's own thread as it completes; fio's helper threads only move that CPU work elsewhere",
    ),
    noted(
        "verifysort",
        "deprecated in fio, which ignores it with a note; so does volbench",
    ),
    noted(
        "verifysort_nr",
        "deprecated in fio, which ignores it with a note; so does volbench",
    ),
    noted(
        "verify_async_cpus",
        "the CPUs of fio's verify_async helper threads; volbench checks each read in the job's own thread (see verify_async), so there is nothing to place",
    ),
    noted(
        "create_fsync",
        "volbench syncs the files it lays out before the run, always",
    ),
    noted(
        "create_serialize",
        "volbench lays out a job's files one after another before the jobs start",
    ),
    noted(
        "unique_filename",
        "volbench has no client/server mode, so file names are never prefixed with a host name",
    ),
    noted(
        "userspace_reap",
        "volbench reaps libaio completions with io_getevents; fio's user-space ring reap saves CPU, the I/O is the same",
    ),
    noted(
        "exit_what",
        "volbench's exitall stops every job running beside the one that ended",
    ),
    noted(
        "allrandrepeat",
        "volbench's random streams are all seeded from randseed, so they repeat by default",
    ),
];

/// Options that only shape logs or reports: skipped with a warning, because they cannot change
/// the I/O being measured. Nothing that changes the I/O (which files, what data, when, on which
/// CPU, with which syncs) belongs here.
pub(super) const IGNORED: &[O] = &[
    // Newer fio's issue-time column of per-I/O logs: volbench's logs are per window.
    skipped("log_issue_time"),
    skipped("log_offset"),
    skipped("log_compression"),
    skipped("log_compression_cpus"),
    skipped("log_store_compressed"),
    skipped("log_unix_epoch"),
    skipped("log_alternate_epoch"),
    skipped("log_alternate_epoch_clock_id"),
    skipped("log_entries"),
    skipped("log_prio"),
    skipped("per_job_logs"),
    skipped("disable_lat"),
    skipped("disable_clat"),
    skipped("disable_slat"),
    O {
        aliases: &["disable_bw"],
        ..skipped("disable_bw_measurement")
    },
    skipped("block_error_percentiles"),
    skipped("significant_figures"),
    skipped("bwavgtime"),
    skipped("iopsavgtime"),
    skipped("stats"),
    skipped("unified_rw_reporting"),
    skipped("kb_base_report"),
    skipped("warnings-fatal"),
    skipped("group_reporting_thresh"),
    skipped("disk_util"),
    // Diagnostics written when a verify or an I/O fails: files for a human, not the I/O.
    skipped("verify_dump"),
    skipped("error_dump"),
];

const R_ZONES: &str = "volbench does not drive zoned devices (ZNS, SMR): it writes anywhere in its region, which a zoned device refuses; test a conventional namespace or a file on a zoned file system";
const R_VERIFYFMT: &str = "volbench's verify header is fixed (magic, offset, sequence, length, checksum at the start of each written block); fio's pattern, interval, offset and seed settings shape fio's own format, which volbench cannot read";
const R_MEM: &str = "volbench's buffers are its own page-aligned allocations (registered with io_uring where the kernel allows), those over 64 KiB on transparent huge pages (so a 1 MiB direct I/O is one request on a virtio disk's 254 segments, in every run; the report's huge_page_buffers says where they were); the memory type named here does not change that";
const R_TRIGGER: &str = "volbench has no remote trigger; stop a run with Ctrl-C or SIGTERM (the partial result is kept and marked)";

const R_NET: &str = "an option of fio's net engines (TCP/UDP between hosts), which volbench does not run: it measures block and file I/O; measure the network with iperf3";
const R_CEPH: &str = "an option of fio's rbd and rados engines (Ceph through librbd/librados), which volbench does not run: map the volume as a block device (rbd map) and run the job on it with libaio or io_uring";
const R_GFAPI: &str = "an option of fio's gfapi engines (GlusterFS through libgfapi), which volbench does not run: mount the volume and run the job on a file in it";
const R_NBD: &str = "an option of fio's nbd engine (libnbd), which volbench does not run: attach the export as a block device (nbd-client) and run the job on it";
const R_RDMA: &str = "an option of fio's rdma engine (RDMA between hosts), which volbench does not run: it measures block and file I/O";
const R_HTTP: &str = "an option of fio's http engine (S3, Swift and WebDAV objects over HTTP), which volbench does not run: it measures block and file I/O; mount the bucket (s3fs, rclone mount) to measure it as files";
const R_HDFS: &str = "an option of fio's libhdfs engine (HDFS), which volbench does not run: mount HDFS (fuse-dfs) and run the job on a file in it";
const R_DFS: &str = "an option of fio's dfs engine (DAOS), which volbench does not run: mount the container (dfuse) and run the job on a file in it";
const R_XNVME: &str = "an option of fio's xnvme engine, which volbench does not run: run the job on the block device with io_uring";
const R_BLKIO: &str = "an option of fio's libblkio engine, which volbench does not run: run the job on the block device with io_uring";
const R_CUFILE: &str = "an option of fio's libcufile engine (GPUDirect Storage), which volbench does not run: it measures I/O into host memory";
const R_SG: &str = "an option of fio's sg engine (SCSI passthrough), which volbench does not run: run the job on the block device with io_uring";

/// fio options volbench knows but does not implement, each with why and what to do instead.
pub(super) const REFUSED: &[O] = &[
    refused(
        "thinkcycles",
        "fio 3.38's stall of a number of CPU cycles after each completion: a cycle's length \
         differs from one CPU to the next, and volbench's think is timed instead; use \
         thinktime (µs, with thinktime_spin to busy-wait) for the same stall",
    ),
    refused("hostname", R_NET),
    refused("interface", R_NET),
    refused("listen", R_NET),
    refused("mss", R_NET),
    refused("nodelay", R_NET),
    refused("pingpong", R_NET),
    refused("port", R_NET),
    refused("protocol", R_NET),
    refused("ttl", R_NET),
    refused("window_size", R_NET),
    refused("clustername", R_CEPH),
    refused("rbdname", R_CEPH),
    refused("pool", R_CEPH),
    refused("clientname", R_CEPH),
    refused("busy_poll", R_CEPH),
    refused("conf", R_CEPH),
    refused("touch_objects", R_CEPH),
    refused("volume", R_GFAPI),
    refused("brick", R_GFAPI),
    refused("single-instance", R_GFAPI),
    refused("skip_bad", "an option of fio's mtd engine (raw flash through libmtd), which volbench does not run: test the flash through the block device or file system above it"),
    refused("uri", R_NBD),
    refused("bindname", R_RDMA),
    refused("verb", R_RDMA),
    refused("http_host", R_HTTP),
    refused("http_user", R_HTTP),
    refused("http_pass", R_HTTP),
    refused("https", R_HTTP),
    refused("http_mode", R_HTTP),
    refused("http_verbose", R_HTTP),
    refused("http_s3_key", R_HTTP),
    refused("http_s3_keyid", R_HTTP),
    refused("http_s3_region", R_HTTP),
    refused("http_swift_auth_token", R_HTTP),
    refused("nfs_url", "an option of fio's nfs engine (libnfs), which volbench does not run: mount the export and run the job on a file in it"),
    refused("namenode", R_HDFS),
    refused("hdfsdirectory", R_HDFS),
    refused("chunk_size", R_HDFS),
    refused("hdfs_use_direct", R_HDFS),
    refused("cont", R_DFS),
    refused("object_class", R_DFS),
    refused("svcl", R_DFS),
    refused("xnvme_be", R_XNVME),
    refused("xnvme_async", R_XNVME),
    refused("xnvme_sync", R_XNVME),
    refused("xnvme_admin", R_XNVME),
    refused("xnvme_dev_nsid", R_XNVME),
    refused("xnvme_iovec", R_XNVME),
    refused("xnvme_mem", R_XNVME),
    refused("libblkio_driver", R_BLKIO),
    refused("libblkio_path", R_BLKIO),
    refused("libblkio_pre_connect_props", R_BLKIO),
    refused("libblkio_num_entries", R_BLKIO),
    refused("libblkio_queue_size", R_BLKIO),
    refused("libblkio_pre_start_props", R_BLKIO),
    refused("libblkio_vectored", R_BLKIO),
    refused("libblkio_write_zeroes_on_trim", R_BLKIO),
    refused("libblkio_wait_mode", R_BLKIO),
    refused("libblkio_force_enable_completion_eventfd", R_BLKIO),
    refused("gpu_dev_ids", R_CUFILE),
    refused("cuda_io", R_CUFILE),
    refused("readfua", R_SG),
    refused("writefua", R_SG),
    refused("sg_write_mode", R_SG),
    refused("stream_id", R_SG),
    refused("cmd_type", "an option of fio's io_uring_cmd engine (NVMe passthrough on a char device such as /dev/ng0n1), which volbench does not run: run the job on the block device with io_uring"),
    refused("ignore_zone_limits", R_ZONES),
    refused("job_max_open_zones", R_ZONES),
    refused("max_open_zones", R_ZONES),
    refused("zone_reset_frequency", R_ZONES),
    refused("zone_reset_threshold", R_ZONES),
    refused("read_beyond_wp", R_ZONES),
    refused("zonecapacity", R_ZONES),
    refused("profile", "fio's profile is a command-line option, not a job option: `volbench run --profile=tiobench` (or `--profile=act`) runs fio's profile"),
    refused("verify_header_seed", R_VERIFYFMT),
    refused("trigger", R_TRIGGER),
    refused("trigger-file", R_TRIGGER),
    refused("trigger-timeout", R_TRIGGER),
    refused("size_increment", "volbench's clones share size=; give each its own region with offset_increment= and size="),
    // Newer fio's (3.36 to master), refused with their reason rather than called unknown.
    refused("sprandom", "volbench does not precondition with SPRandom's regions and validity fractions; precondition with the pts-* suites (volbench suite pts-iops), which write the device twice and run rounds to steady state"),
    refused("spr_num_regions", "an option of sprandom, which volbench does not run (see sprandom)"),
    refused("spr_op", "an option of sprandom, which volbench does not run (see sprandom)"),
    // fio's name (options.c) for sprandom's cache size; `spr_cache_size` is only its field.
    refused("spr_cs", "an option of sprandom, which volbench does not run (see sprandom)"),
];
