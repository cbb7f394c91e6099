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

const fn refused(name: &'static str) -> O {
    O::known(name, Support::No, "")
}

const REAPS: &str = "volbench reaps every completion that is ready, at least one, each turn";
const STAMPS: &str = "volbench stamps every written block with its offset and a sequence \
                      number, so no two writes carry the same data, which is what refilling buys";
const REGISTERS: &str = "volbench's io_uring registers its buffers and files whenever the \
                         kernel allows, whatever this says: the device sees the same I/O, only \
                         the CPU per I/O differs";

/// Options that only change how fio takes its measurements, which volbench takes its own way.
pub(super) const NOTED: &[O] = &[
    noted(
        "gtod_reduce",
        "volbench reads the clock for every I/O anyway (about 20 ns a read), so every latency \
         is measured",
    ),
    noted("clocksource", "volbench always times with CLOCK_MONOTONIC"),
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
        "experimental_verify",
        "volbench verifies from the header every written block carries (offset, sequence, \
         checksum), not by replaying the random sequence; the blocks checked are the same",
    ),
    noted("refill_buffers", STAMPS),
    noted("scramble_buffers", STAMPS),
    noted("fixedbufs", REGISTERS),
    noted("registerfiles", REGISTERS),
    noted(
        "random_generator",
        "volbench draws random offsets its own way: a keyed permutation that visits each block \
         once per pass (what fio's lfsr guarantees, and its random map does for tausworthe), \
         or uniform draws with norandommap; the offsets differ, their distribution does not",
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
    // A record of the I/O issued, for a later replay: output only.
    skipped("write_iolog"),
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

/// fio options volbench knows but does not implement.
pub(super) const REFUSED: &[O] = &[
    refused("allow_mounted_write"),
    refused("pre_read"),
    refused("uid"),
    refused("gid"),
    refused("nice"),
    refused("numa_cpu_nodes"),
    refused("numa_mem_policy"),
    refused("lockmem"),
    refused("exitall"),
    refused("exitall_on_error"),
    refused("exit_what"),
    refused("fadvise_hint"),
    refused("unlink_each_loop"),
    refused("latency_run"),
    refused("cgroup"),
    refused("cgroup_nodelete"),
    refused("cgroup_weight"),
    refused("dedupe_global"),
    refused("dedupe_working_set_percentage"),
    refused("dedupe_percentage"),
    refused("dedupe_mode"),
    refused("ignore_zone_limits"),
    refused("job_max_open_zones"),
    refused("max_open_zones"),
    refused("zone_reset_frequency"),
    refused("zone_reset_threshold"),
    refused("read_beyond_wp"),
    refused("zonemode"),
    refused("zonesize"),
    refused("zonerange"),
    refused("zoneskip"),
    refused("zonecapacity"),
    refused("merge_blktrace_file"),
    refused("merge_blktrace_iters"),
    refused("merge_blktrace_scalars"),
    refused("profile"),
    refused("read_iolog"),
    refused("read_iolog_chunked"),
    refused("replay_align"),
    refused("replay_redirect"),
    refused("replay_scale"),
    refused("replay_skip"),
    refused("replay_time_scale"),
    refused("replay_no_stall"),
    O {
        aliases: &["ss"],
        ..refused("steadystate")
    },
    O {
        aliases: &["ss_dur"],
        ..refused("steadystate_duration")
    },
    O {
        aliases: &["ss_ramp"],
        ..refused("steadystate_ramp_time")
    },
    refused("ss_interval"),
    refused("thinktime_iotime"),
    refused("trim_backlog"),
    refused("trim_backlog_batch"),
    refused("trim_percentage"),
    refused("trim_verify_zero"),
    refused("trim"),
    refused("randtrim"),
    refused("trimwrite"),
    refused("write_hint"),
    refused("percentage_random"),
    refused("file_service_type"),
    O {
        aliases: &["ratemin"],
        ..refused("rate_min")
    },
    refused("rate_iops_min"),
    O {
        aliases: &["ratecycle"],
        ..refused("rate_cycle")
    },
    refused("rate_ignore_thinktime"),
    refused("latency_target"),
    refused("latency_window"),
    refused("latency_percentile"),
    refused("max_latency"),
    refused("verify_async"),
    refused("verify_only"),
    refused("verify_fatal"),
    refused("verify_state_save"),
    refused("verify_state_load"),
    refused("verify_pattern"),
    refused("verify_interval"),
    refused("verify_offset"),
    refused("verify_header_seed"),
    refused("trigger"),
    refused("trigger-file"),
    refused("trigger-timeout"),
    refused("iodepth_low"),
    refused("mem"),
    refused("iomem"),
    O {
        aliases: &["mem_align"],
        ..refused("iomem_align")
    },
    refused("hugepage-size"),
    O {
        aliases: &["ba"],
        ..refused("blockalign")
    },
    O {
        aliases: &["bs_unaligned"],
        ..refused("blocksize_unaligned")
    },
    refused("bs_is_seq_rand"),
    refused("file_append"),
    refused("fill_device"),
    refused("fill_fs"),
    refused("unique_filename"),
    refused("lockfile"),
    refused("opendir"),
    refused("ioscheduler"),
    refused("sync_file_range"),
    refused("write_barrier"),
    refused("end_syncfs"),
    refused("sqthread_poll"),
    refused("sqthread_poll_cpu"),
    refused("cmdprio_percentage"),
    refused("nowait"),
    refused("atomic"),
    refused("userspace_reap"),
    refused("create_serialize"),
    refused("create_fsync"),
    refused("create_only"),
    refused("wait_for"),
    refused("continue_on_error"),
    refused("ignore_error"),
    refused("flow_watermark"),
    refused("exec_prerun"),
    refused("exec_postrun"),
    refused("offset_align"),
    refused("size_increment"),
];
