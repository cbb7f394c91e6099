//! fio's options: what each means for a [`JobSpec`], which are not supported, and how job
//! sections become a [`Workload`] (inheritance from `[global]`, `numjobs`, stonewalls).

use crate::jobfile::{RawOption, Section};
use crate::spec::{
    BsSplit, BufferMode, EngineKind, JobSpec, Rw, SyncIo, SyncMode, Verify, Workload,
};
use crate::units::{parse_bool, parse_duration};
use std::path::PathBuf;

/// What is wrong with one option.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OptError {
    #[error("fio option '{key}' is not supported by volbench{hint}")]
    Unsupported { key: String, hint: String },
    #[error("'{key}' is not a fio option{suggestion}")]
    Unknown { key: String, suggestion: String },
    #[error("{key}={value}: {why}")]
    BadValue {
        key: String,
        value: String,
        why: String,
    },
    #[error("{key} needs a value, e.g. {key}={example}")]
    MissingValue { key: String, example: &'static str },
    #[error(
        "no job section: add one such as [randread] with its options (only [global] was found)"
    )]
    NoJobs,
    /// The options are each valid but the job they make is not (job, why).
    #[error("{1} (job [{0}])")]
    Job(String, String),
}

/// An option error with its place in a job file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{at}: {err}")]
pub struct LocatedError {
    pub at: String,
    pub err: OptError,
}

/// Options that only shape logs or reports: `--ignore-unsupported` may skip them, because they
/// cannot change the I/O being measured. Nothing that changes the I/O (which files, what data,
/// when, on which CPU, with which syncs) belongs here.
const IGNORABLE: &[&str] = &[
    "description",
    // A record of the I/O issued, for a later replay: output only.
    "write_iolog",
    "write_hist_log",
    "log_hist_msec",
    "log_hist_coarseness",
    "log_max_value",
    "log_offset",
    "log_compression",
    "log_compression_cpus",
    "log_store_compressed",
    "log_unix_epoch",
    "log_alternate_epoch",
    "log_alternate_epoch_clock_id",
    "log_entries",
    "log_prio",
    "per_job_logs",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
    "block_error_percentiles",
    "significant_figures",
    "bwavgtime",
    "iopsavgtime",
    "stats",
    "unified_rw_reporting",
    "kb_base_report",
    "warnings-fatal",
    "group_reporting_thresh",
    "disk_util",
    // Diagnostics written when a verify or an I/O fails: files for a human, not the I/O.
    "verify_dump",
    "error_dump",
];

/// Options that only change how fio takes its measurements, which volbench takes its own way:
/// accepted, with a note saying what they mean here.
const MEASUREMENT_NOTES: &[(&str, &str)] = &[
    (
        "gtod_reduce",
        "volbench reads the clock for every I/O anyway (about 20 ns a read), so every latency \
         is measured",
    ),
    ("clocksource", "volbench always times with CLOCK_MONOTONIC"),
    (
        "gtod_cpu",
        "volbench has no clock thread; each job reads the clock itself",
    ),
    ("unit_base", "volbench reports bytes (and bits nowhere)"),
    (
        "io_submit_mode",
        "volbench submits from each job's own thread (fio's inline); the I/O is the same",
    ),
    (
        "iodepth_batch_complete_min",
        "volbench reaps every completion that is ready, at least one, each turn",
    ),
    (
        "iodepth_batch_complete_max",
        "volbench reaps every completion that is ready, at least one, each turn",
    ),
    (
        "iodepth_batch_complete",
        "volbench reaps every completion that is ready, at least one, each turn",
    ),
    (
        "experimental_verify",
        "volbench verifies from the header every written block carries (offset, sequence, \
         checksum), not by replaying the random sequence; the blocks checked are the same",
    ),
    (
        "refill_buffers",
        "volbench stamps every written block with its offset and a sequence number, so no two \
         writes carry the same data, which is what refilling buys",
    ),
    (
        "scramble_buffers",
        "volbench stamps every written block with its offset and a sequence number, so no two \
         writes carry the same data",
    ),
    (
        "fixedbufs",
        "volbench's io_uring registers its buffers whenever the kernel allows, whatever this \
         says: the device sees the same I/O, only the CPU per I/O differs",
    ),
    (
        "registerfiles",
        "volbench's io_uring registers its files whenever the kernel allows, whatever this \
         says: the device sees the same I/O, only the CPU per I/O differs",
    ),
    (
        "random_generator",
        "volbench draws random offsets its own way: a keyed permutation that visits each block \
         once per pass (what fio's lfsr guarantees, and its random map does for tausworthe), \
         or uniform draws with norandommap; the offsets differ, their distribution does not",
    ),
    (
        "allrandrepeat",
        "volbench's random streams are all seeded from randseed, so they repeat by default",
    ),
];

/// fio options volbench knows but does not implement; listed so a typo of a real option still
/// gets "did you mean" and a real option gets "not supported" rather than "unknown".
const KNOWN_UNSUPPORTED: &[&str] = &[
    "allow_mounted_write",
    "pre_read",
    "uid",
    "gid",
    "nice",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "lockmem",
    "exitall",
    "exitall_on_error",
    "exit_what",
    "fadvise_hint",
    "unlink_each_loop",
    "latency_run",
    "cgroup",
    "cgroup_nodelete",
    "cgroup_weight",
    "dedupe_global",
    "dedupe_working_set_percentage",
    "ignore_zone_limits",
    "job_max_open_zones",
    "max_open_zones",
    "zone_reset_frequency",
    "zone_reset_threshold",
    "read_beyond_wp",
    "merge_blktrace_file",
    "merge_blktrace_iters",
    "merge_blktrace_scalars",
    "profile",
    "read_iolog_chunked",
    "replay_align",
    "replay_redirect",
    "replay_scale",
    "replay_skip",
    "replay_time_scale",
    "steadystate_duration",
    "steadystate_ramp_time",
    "thinktime_iotime",
    "trim_backlog",
    "trim_backlog_batch",
    "trim_percentage",
    "trim_verify_zero",
    "write_hint",
    "trim",
    "randtrim",
    "trimwrite",
    "zonemode",
    "zonesize",
    "zonerange",
    "zoneskip",
    "zonecapacity",
    "percentage_random",
    "file_service_type",
    "rate_min",
    "rate_iops_min",
    "rate_cycle",
    "rate_ignore_thinktime",
    "latency_target",
    "latency_window",
    "latency_percentile",
    "steadystate",
    "ss",
    "ss_dur",
    "ss_ramp",
    "ss_interval",
    "verify_async",
    "verify_only",
    "verify_fatal",
    "verify_dump",
    "verify_state_save",
    "verify_state_load",
    "verify_pattern",
    "verify_interval",
    "verify_offset",
    "verify_header_seed",
    "trigger",
    "trigger-file",
    "trigger-timeout",
    "read_iolog",
    "replay_no_stall",
    "iodepth_batch",
    "iodepth_batch_submit",
    "iodepth_low",
    "dedupe_percentage",
    "dedupe_mode",
    "mem",
    "iomem",
    "iomem_align",
    "hugepage-size",
    "blockalign",
    "ba",
    "blocksize_unaligned",
    "bs_unaligned",
    "bs_is_seq_rand",
    "file_append",
    "fill_device",
    "fill_fs",
    "unique_filename",
    "lockfile",
    "opendir",
    "ioscheduler",
    "sync_file_range",
    "write_barrier",
    "end_syncfs",
    "sqthread_poll",
    "sqthread_poll_cpu",
    "cmdprio_percentage",
    "nowait",
    "atomic",
    "userspace_reap",
    "create_serialize",
    "create_fsync",
    "create_only",
    "wait_for",
    "continue_on_error",
    "ignore_error",
    "error_dump",
    "max_latency",
    "flow_watermark",
    "exec_prerun",
    "exec_postrun",
    "offset_align",
    "size_increment",
    "io_limit",
];

/// Every option this layer applies (fuzzing draws its keys from here).
pub const SUPPORTED: &[&str] = &[
    "name",
    "thinktime",
    "thinktime_spin",
    "thinktime_blocks",
    "thinktime_blocks_type",
    "prio",
    "prioclass",
    "rw_sequencer",
    "random_distribution",
    "serialize_overlap",
    "flow",
    "flow_id",
    "flow_sleep",
    "verify_backlog",
    "verify_backlog_batch",
    "hipri",
    "write_hist_log",
    "log_hist_msec",
    "log_hist_coarseness",
    "log_max_value",
    "experimental_verify",
    "rate_process",
    "openfiles",
    "cpus_allowed",
    "cpus_allowed_policy",
    "cpumask",
    "buffer_compress_percentage",
    "buffer_compress_chunk",
    "refill_buffers",
    "scramble_buffers",
    "write_bw_log",
    "write_iops_log",
    "write_lat_log",
    "log_avg_msec",
    "percentile_list",
    "clat_percentiles",
    "lat_percentiles",
    "slat_percentiles",
    "bsrange",
    "blocksize_range",
    "filesize",
    "overwrite",
    "fallocate",
    "allow_file_create",
    "fsync_on_close",
    "kb_base",
    "gtod_reduce",
    "io_submit_mode",
    "iodepth_batch_complete",
    "iodepth_batch_complete_min",
    "iodepth_batch_complete_max",
    "clocksource",
    "gtod_cpu",
    "unit_base",
    "allrandrepeat",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "iodepth",
    "numjobs",
    "size",
    "offset",
    "runtime",
    "time_based",
    "ramp_time",
    "direct",
    "buffered",
    "ioengine",
    "filename",
    "filename_format",
    "directory",
    "fsync",
    "fdatasync",
    "end_fsync",
    "randseed",
    "buffer_pattern",
    "zero_buffers",
    "verify",
    "do_verify",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "group_reporting",
    "thread",
    "loops",
    "startdelay",
    "offset_increment",
    "nrfiles",
    "rate",
    "rate_iops",
    "bssplit",
    "io_size",
    "io_limit",
    "number_ios",
    "norandommap",
    "randrepeat",
    "sync",
    "invalidate",
    "create_on_open",
    "unlink",
    "allow_destructive",
    "rwf_dsync",
];

fn suggestion(key: &str) -> String {
    // No option name is longer than 30 characters; a longer key is no typo of one, and the
    // edit-distance search would cost time proportional to its length.
    if key.len() > 40 {
        return String::new();
    }
    let best = SUPPORTED
        .iter()
        .chain(KNOWN_UNSUPPORTED)
        .chain(IGNORABLE)
        .map(|k| (strsim::damerau_levenshtein(key, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min();
    match best {
        Some((_, k)) => format!(" (did you mean '{k}'?)"),
        None => String::new(),
    }
}

/// Whether `key` is one of fio's options (supported or not): what the command line hands to
/// this layer rather than calling it unknown.
pub fn is_option(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let k = key.as_str();
    SUPPORTED.contains(&k)
        || KNOWN_UNSUPPORTED.contains(&k)
        || IGNORABLE.contains(&k)
        || matches!(k, "threads" | "description" | "allow-destructive")
}

/// Whether `--ignore-unsupported` may skip this option.
pub fn is_ignorable(key: &str) -> bool {
    IGNORABLE.contains(&key)
}

fn bad(key: &str, value: &str, why: impl Into<String>) -> OptError {
    OptError::BadValue {
        key: crate::shown(key),
        value: crate::shown(value),
        why: why.into(),
    }
}

fn need<'a>(key: &str, v: Option<&'a str>, example: &'static str) -> Result<&'a str, OptError> {
    v.filter(|s| !s.is_empty()).ok_or(OptError::MissingValue {
        key: key.into(),
        example,
    })
}

fn log_prefix(v: Option<&str>, job: &str) -> String {
    v.filter(|s| !s.is_empty()).unwrap_or(job).to_string()
}

fn flag(key: &str, v: Option<&str>) -> Result<bool, OptError> {
    match v {
        None => Ok(true),
        Some(s) => parse_bool(s).map_err(|e| unit_bad(key, s, e)),
    }
}

fn unit_bad(key: &str, v: &str, e: crate::units::UnitError) -> OptError {
    bad(key, v, format!("not a valid {} ({})", e.what, e.hint))
}

fn size(kb: u32, key: &str, v: &str) -> Result<u64, OptError> {
    crate::units::parse_size_base(v, kb).map_err(|e| unit_bad(key, v, e))
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

/// bsrange: `bs` is the low end, and sizes are drawn up to the high one (the first range
/// when reads and writes are given apart).
fn set_bs_range(j: &mut JobSpec, kb: u32, key: &str, s: &str) -> Result<(), OptError> {
    let (lo, hi) = range(kb, key, s.split(',').next().unwrap_or(s))?;
    j.bs = lo;
    j.bs_range = (lo != hi).then_some((lo, hi));
    Ok(())
}

/// fio's `low-high` range (`4k-64k`; one value is a range of one).
fn range(kb: u32, key: &str, v: &str) -> Result<(u64, u64), OptError> {
    let (a, b) = v.split_once('-').unwrap_or((v, v));
    let (a, b) = (size(kb, key, a)?, size(kb, key, b)?);
    if a > b || a == 0 {
        return Err(bad(
            key,
            v,
            "give low-high with 0 < low <= high, e.g. 4k-64k",
        ));
    }
    Ok((a, b))
}

fn time(key: &str, v: &str) -> Result<std::time::Duration, OptError> {
    parse_duration(v).map_err(|e| unit_bad(key, v, e))
}

fn num<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, OptError> {
    v.trim()
        .parse()
        .map_err(|_| bad(key, v, "not a whole number"))
}

/// fio's `rate=r,w` form: one value for both directions, or one per direction.
fn pair(
    key: &str,
    v: &str,
    parse: impl Fn(&str) -> Result<u64, OptError>,
) -> Result<[u64; 2], OptError> {
    let mut parts = v.split(',');
    let r = parts.next().unwrap_or("");
    let w = parts.next();
    let pr = if r.is_empty() { 0 } else { parse(r)? };
    let pw = match w {
        None => pr,
        Some("") => 0,
        Some(w) => parse(w)?,
    };
    if parts.next().is_some() {
        return Err(bad(key, v, "give at most read,write"));
    }
    Ok([pr, pw])
}

fn pattern(key: &str, v: &str) -> Result<Vec<u8>, OptError> {
    let v = v.trim().trim_matches(|c| c == '\'' || c == '"');
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() % 2 != 0 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(bad(key, v, "not whole hex bytes: use e.g. 0xdeadbeef"));
        }
        return Ok((0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect());
    }
    if let Ok(n) = v.parse::<u32>() {
        // fio: a decimal number is a 32-bit pattern.
        return Ok(n.to_le_bytes().to_vec());
    }
    if v.is_empty() {
        return Err(bad(key, v, "empty pattern"));
    }
    Ok(v.as_bytes().to_vec())
}

/// Applies one option to a job, as fio documents it.
/// fio's alternative names for options (its option table's `alias`), as fio 3.33 and later
/// accept them: each means the option it names.
const ALIASES: &[(&str, &str)] = &[
    ("timeout", "runtime"),
    ("ratemin", "rate_min"),
    ("ratecycle", "rate_cycle"),
    ("fileoffset", "offset"),
    ("nr_files", "nrfiles"),
    ("disable_bw", "disable_bw_measurement"),
    ("mem_align", "iomem_align"),
    ("log_window_value", "log_max_value"),
];

/// The option a name means: itself, or what it is fio's alias of.
pub fn canonical(key: &str) -> &str {
    ALIASES
        .iter()
        .find(|(a, _)| *a == key)
        .map_or(key, |(_, k)| k)
}

pub fn apply(j: &mut JobSpec, key: &str, v: Option<&str>) -> Result<(), OptError> {
    let key = canonical(key.trim_start_matches("--"));
    let kb = j.kb_base;
    match key {
        "name" => j.name = need(key, v, "job1")?.to_string(),
        "overwrite" => j.overwrite = flag(key, v)?,
        "fallocate" => {
            let s = need(key, v, "native")?;
            j.fallocate = crate::spec::Fallocate::parse(s)
                .ok_or_else(|| bad(key, s, "use native, posix, keep, truncate or none"))?;
        }
        "allow_file_create" => j.allow_file_create = flag(key, v)?,
        // fio syncs each file as it closes it, after the job's last I/O: end_fsync's moment.
        "fsync_on_close" => j.end_fsync = flag(key, v)?,
        // fio names a log after the job when the prefix is left out (`write_bw_log` alone,
        // or `write_bw_log=` with nothing after it: an empty prefix would name no file).
        "write_bw_log" => j.logs.bw = Some(log_prefix(v, &j.name)),
        "write_iops_log" => j.logs.iops = Some(log_prefix(v, &j.name)),
        "write_lat_log" => j.logs.lat = Some(log_prefix(v, &j.name)),
        "log_avg_msec" => j.logs.avg_msec = num(key, need(key, v, "1000")?)?,
        "write_hist_log" => j.logs.hist = Some(log_prefix(v, &j.name)),
        "log_hist_msec" => j.logs.hist_msec = num(key, need(key, v, "1000")?)?,
        "log_hist_coarseness" => {
            let c: u8 = num(key, need(key, v, "0")?)?;
            if c > 6 {
                return Err(bad(key, &c.to_string(), "use 0 to 6"));
            }
            j.logs.hist_coarseness = c;
        }
        // fio 3.33 knows 0 (the window's mean) and 1 (its largest value).
        "log_max_value" => j.logs.max_value = flag(key, v)?,
        "buffer_compress_percentage" | "buffer_compress_chunk" => {
            let s = need(key, v, "50")?;
            let (mut percent, mut chunk) = match j.buffer {
                BufferMode::Compressible { percent, chunk } => (percent, chunk),
                _ => (0, 512),
            };
            if key == "buffer_compress_chunk" {
                chunk = size(kb, key, s)?.clamp(1, 1 << 20) as u32;
            } else {
                percent = num(key, s)?;
                if percent > 100 {
                    return Err(bad(key, s, "use 0 to 100"));
                }
            }
            j.buffer = BufferMode::Compressible { percent, chunk };
        }
        "rate_process" => {
            let s = need(key, v, "poisson")?;
            j.rate_poisson = match s.trim() {
                "linear" => false,
                "poisson" => true,
                _ => return Err(bad(key, s, "use linear or poisson")),
            };
        }
        // volbench keeps every file of a job open. With fewer open at once fio works through
        // the files a few at a time, closing each when done: another I/O pattern, refused.
        "openfiles" => {
            let n: u32 = num(key, need(key, v, "4")?)?;
            if n < j.nrfiles {
                return Err(OptError::Unsupported {
                    key: format!("{key}={n}"),
                    hint: format!(
                        " below nrfiles={}: volbench keeps every file open; drop openfiles",
                        j.nrfiles
                    ),
                });
            }
        }
        "cpus_allowed" => {
            let s = need(key, v, "0-3")?;
            j.cpus = Some(cpu_list(key, s)?);
        }
        "cpumask" => {
            let s = need(key, v, "0x3")?;
            let t = s.trim();
            let mask = match t.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => t.parse::<u64>(),
            }
            .map_err(|_| bad(key, s, "a CPU mask, e.g. 0x3 for CPUs 0 and 1"))?;
            let cpus: Vec<u32> = (0..64).filter(|c| mask >> c & 1 == 1).collect();
            if cpus.is_empty() {
                return Err(bad(key, s, "the mask names no CPU"));
            }
            j.cpus = Some(cpus);
        }
        "cpus_allowed_policy" => {
            let s = need(key, v, "split")?;
            j.cpus_split = match s.trim() {
                "shared" => false,
                "split" => true,
                _ => return Err(bad(key, s, "use shared or split")),
            };
        }
        "percentile_list" => {
            let s = need(key, v, "99.5:99.9:99.99")?;
            let mut ps = Vec::new();
            for part in s.split(':').filter(|p| !p.trim().is_empty()) {
                let p: f64 = part
                    .trim()
                    .parse()
                    .map_err(|_| bad(key, s, "not a number"))?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(bad(key, s, "percentiles go from 0 to 100"));
                }
                ps.push(p);
            }
            if ps.is_empty() {
                return Err(bad(key, s, "give one or more percentiles, e.g. 99:99.9"));
            }
            j.percentile_list = Some(ps);
        }
        "clat_percentiles" => j.percentiles_for[0] = flag(key, v)?,
        "lat_percentiles" => j.percentiles_for[1] = flag(key, v)?,
        "slat_percentiles" => j.percentiles_for[2] = flag(key, v)?,
        "kb_base" => {
            let s = need(key, v, "1000")?;
            j.kb_base = match s.trim() {
                "1000" => 1000,
                "1024" => 1024,
                _ => return Err(bad(key, s, "use 1000 (SI units) or 1024 (fio's default)")),
            };
        }
        k if MEASUREMENT_NOTES.iter().any(|(n, _)| *n == k) => {}
        "rw" | "readwrite" => {
            let full = need(key, v, "randread")?;
            let (s, modifier) = full.split_once(':').unwrap_or((full, ""));
            j.rw = Rw::parse(s).ok_or_else(|| {
                bad(
                    key,
                    s,
                    "use read, write, randread, randwrite, rw, readwrite or randrw",
                )
            })?;
            // `read:8k` skips 8k after each I/O (a hole); `read:-8k` steps back (backwards).
            j.seq_skip = 0;
            j.rand_run = 0;
            if !modifier.is_empty() {
                // `randread:8`: a new random offset every 8 I/Os (a count, as fio reads it).
                if j.rw.is_random() {
                    j.rand_run = num(key, modifier)?;
                    return Ok(());
                }
                let (neg, m) = match modifier.strip_prefix('-') {
                    Some(m) => (true, m),
                    None => (false, modifier),
                };
                let n = size(kb, key, m)? as i64;
                j.seq_skip = if neg { -n } else { n };
            }
        }
        "bsrange" | "blocksize_range" => set_bs_range(j, kb, key, need(key, v, "4k-64k")?)?,
        // `bs=4k-64k` is a range, as bsrange's.
        "bs" | "blocksize" if v.is_some_and(|x| x.contains('-')) => {
            set_bs_range(j, kb, key, need(key, v, "4k-64k")?)?
        }
        "filesize" => {
            let s = need(key, v, "1g")?;
            j.filesize = Some(range(kb, key, s)?);
        }
        "rwmixread" => j.rwmixread = num(key, need(key, v, "70")?)?,
        "rwmixwrite" => {
            let w: u8 = num(key, need(key, v, "30")?)?;
            j.rwmixread = 100u8
                .checked_sub(w)
                .ok_or_else(|| bad(key, &w.to_string(), "use 0 to 100"))?;
        }
        "bs" | "blocksize" => {
            let s = need(key, v, "4k")?;
            // `bs=4k,64k` sets reads and writes apart; volbench uses one size for both.
            let (r, w) = s.split_once(',').unwrap_or((s, s));
            let (r, w) = (
                size(kb, key, r)?,
                if w.is_empty() {
                    size(kb, key, r)?
                } else {
                    size(kb, key, w)?
                },
            );
            if r != w {
                return Err(bad(key, s, "different read and write block sizes are not supported: use one size or bssplit"));
            }
            j.bs = r;
            j.bs_range = None;
        }
        "bssplit" => {
            let s = need(key, v, "4k/50:64k/50")?;
            let mut out = Vec::new();
            for part in s.split(':').filter(|p| !p.is_empty()) {
                if part.contains(',') {
                    return Err(bad(
                        key,
                        s,
                        "separate read/write splits are not supported: give one split",
                    ));
                }
                let (b, p) = part
                    .split_once('/')
                    .ok_or_else(|| bad(key, s, "entries look like 4k/50"))?;
                out.push(BsSplit {
                    bs: size(kb, key, b)?,
                    percent: if p.is_empty() { 0 } else { num(key, p)? },
                });
            }
            // fio: entries without a percentage share what is left equally.
            let given: u32 = out.iter().map(|b| b.percent as u32).sum();
            let blanks = out.iter().filter(|b| b.percent == 0).count() as u32;
            if blanks > 0 && given < 100 {
                let each = (100 - given) / blanks;
                let mut extra = (100 - given) % blanks;
                for b in out.iter_mut().filter(|b| b.percent == 0) {
                    b.percent = (each + u32::from(extra > 0)) as u8;
                    extra = extra.saturating_sub(1);
                }
            }
            j.bs = out.iter().map(|b| b.bs).min().unwrap_or(j.bs);
            j.bssplit = out;
        }
        "iodepth" => j.iodepth = num(key, need(key, v, "32")?)?,
        "iodepth_batch_submit" | "iodepth_batch" => {
            // fio: 0 means 1 (submit each I/O as it is ready).
            j.iodepth_batch_submit = num::<u32>(key, need(key, v, "16")?)?.max(1)
        }
        "numjobs" => j.numjobs = num(key, need(key, v, "4")?)?,
        "size" => {
            let s = need(key, v, "1g")?;
            if let Some(p) = s.strip_suffix('%') {
                j.size_percent = Some(num(key, p)?);
                j.size = None;
            } else {
                j.size = Some(size(kb, key, s)?);
                j.size_percent = None;
            }
        }
        "io_size" | "io_limit" => j.io_size = Some(size(kb, key, need(key, v, "10g")?)?),
        "number_ios" => j.number_ios = Some(num(key, need(key, v, "1000")?)?),
        "offset" => {
            let s = need(key, v, "0")?;
            if let Some(p) = s.trim().strip_suffix('%') {
                let p: u8 = num(key, p)?;
                if p > 100 {
                    return Err(bad(key, s, "a percentage is 0 to 100"));
                }
                j.offset_percent = Some(p);
                j.offset = 0;
            } else {
                j.offset = size(kb, key, s)?;
                j.offset_percent = None;
            }
        }
        "offset_increment" => j.offset_increment = size(kb, key, need(key, v, "1g")?)?,
        "runtime" => {
            let d = time(key, need(key, v, "30s")?)?;
            j.runtime = (!d.is_zero()).then_some(d);
        }
        "time_based" => j.time_based = flag(key, v)?,
        "ramp_time" => j.ramp_time = time(key, need(key, v, "5s")?)?,
        "startdelay" => {
            let s = need(key, v, "5s")?;
            if s.contains('-') {
                return Err(bad(
                    key,
                    s,
                    "random start delay ranges are not supported: give one time",
                ));
            }
            j.startdelay = time(key, s)?;
        }
        "loops" => j.loops = num(key, need(key, v, "2")?)?,
        "direct" => j.direct = flag(key, v)?,
        "buffered" => j.direct = !flag(key, v)?,
        "ioengine" => {
            let s = need(key, v, "io_uring")?;
            j.ioengine = EngineKind::parse(s).ok_or_else(|| OptError::Unsupported {
                key: format!("ioengine={s}"),
                hint: ": use io_uring (or posixaio), libaio, psync (or sync, vsync, pvsync, \
                       pvsync2) or null"
                    .into(),
            })?;
        }
        "filename" => {
            // fio separates several files with ':' (a literal colon is written '\:').
            let s = need(key, v, "/dev/sdb")?;
            let mut files = Vec::new();
            let mut cur = String::new();
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&':') => {
                        cur.push(':');
                        chars.next();
                    }
                    ':' => files.push(PathBuf::from(std::mem::take(&mut cur))),
                    c => cur.push(c),
                }
            }
            files.push(PathBuf::from(cur));
            j.filename = files
                .into_iter()
                .filter(|p| !p.as_os_str().is_empty())
                .collect();
        }
        "directory" => j.directory = Some(PathBuf::from(need(key, v, "/mnt/test")?)),
        "filename_format" => {
            j.filename_format = Some(need(key, v, "$jobname.$jobnum.$filenum")?.to_string())
        }
        "nrfiles" => j.nrfiles = num(key, need(key, v, "4")?)?,
        "fsync" => {
            j.sync_every = num(key, need(key, v, "1")?)?;
            j.sync_mode = SyncMode::Fsync;
        }
        "fdatasync" => {
            j.sync_every = num(key, need(key, v, "1")?)?;
            j.sync_mode = SyncMode::Fdatasync;
        }
        "end_fsync" => j.end_fsync = flag(key, v)?,
        "sync" => {
            let s = v.unwrap_or("1");
            j.sync_io = match s {
                "0" | "none" => SyncIo::None,
                "1" | "sync" => SyncIo::Sync,
                "dsync" => SyncIo::Dsync,
                _ => return Err(bad(key, s, "use none, sync (1) or dsync")),
            };
        }
        "randseed" => j.randseed = num(key, need(key, v, "1234")?)?,
        // volbench's offsets and data are always a function of randseed: repeatable by design.
        "randrepeat" => {
            flag(key, v)?;
        }
        "norandommap" => j.norandommap = flag(key, v)?,
        "buffer_pattern" => {
            j.buffer = BufferMode::Pattern(pattern(key, need(key, v, "0xdeadbeef")?)?)
        }
        "zero_buffers" => {
            if flag(key, v)? {
                j.buffer = BufferMode::Zero;
            }
        }
        "verify" => {
            let s = need(key, v, "crc32c")?;
            j.verify = match s {
                "0" | "null" => None,
                "crc32c" | "crc32c-intel" => Some(Verify::Crc32c),
                "md5" => Some(Verify::Md5),
                "sha1" => Some(Verify::Sha1),
                "sha256" => Some(Verify::Sha256),
                "sha512" => Some(Verify::Sha512),
                // Checked with crc32c, which catches the same torn, stale and corrupt blocks;
                // only the checksum's CPU cost differs (a warning says so).
                "crc32" | "crc64" | "crc16" | "crc7" | "xxhash" | "meta" | "1" => {
                    Some(Verify::Crc32c)
                }
                _ => {
                    return Err(OptError::Unsupported {
                        key: format!("verify={s}"),
                        hint: ": use crc32c, md5, sha1, sha256 or sha512 (crc32, crc64, crc16, \
                               crc7, xxhash and meta are checked with crc32c)"
                            .into(),
                    })
                }
            };
        }
        "do_verify" => j.do_verify = flag(key, v)?,
        "verify_backlog" => j.verify_backlog = num(key, need(key, v, "16")?)?,
        "verify_backlog_batch" => j.verify_backlog_batch = num(key, need(key, v, "16")?)?,
        "rate" => j.rate = pair(key, need(key, v, "10m")?, |s| size(kb, key, s))?,
        "rate_iops" => j.rate_iops = pair(key, need(key, v, "500")?, |s| num(key, s))?,
        "stonewall" | "wait_for_previous" => j.stonewall = flag(key, v)?,
        "new_group" => j.new_group = flag(key, v)?,
        "group_reporting" => j.group_reporting = flag(key, v)?,
        // volbench always runs jobs as threads; fio's processes measure the same I/O.
        // fio takes any number here (`threads=128` in real files) as "use threads".
        "thread" | "threads" => {
            if v.and_then(|x| x.trim().parse::<u64>().ok()).is_none() {
                flag(key, v)?;
            }
        }
        "description" => j.description = v.map(str::to_string),
        "invalidate" => j.invalidate = flag(key, v)?,
        // Files are created before the jobs start either way; the I/O measured is the same.
        "create_on_open" => {
            flag(key, v)?;
        }
        "unlink" => j.unlink = flag(key, v)?,
        "allow_destructive" | "allow-destructive" => j.allow_destructive = flag(key, v)?,
        "rwf_dsync" => j.rwf_dsync = flag(key, v)?,
        "hipri" => j.hipri = flag(key, v)?,
        // fio's thinktime family; times without a unit are microseconds, as in fio.
        "thinktime" | "thinktime_spin" => {
            let s = need(key, v, "1000")?;
            let us = match s.trim().parse::<u64>() {
                Ok(n) => n,
                Err(_) => time(key, s)?.as_micros() as u64,
            };
            let t = j.think.get_or_insert(crate::spec::Think {
                blocks: 1,
                ..Default::default()
            });
            if key == "thinktime" {
                t.us = us;
            } else {
                t.spin_us = us;
            }
        }
        "thinktime_blocks" => {
            let n: u64 = num(key, need(key, v, "1")?)?;
            j.think.get_or_insert_with(Default::default).blocks = n.max(1);
        }
        "thinktime_blocks_type" => {
            let s = need(key, v, "complete")?;
            j.think
                .get_or_insert(crate::spec::Think {
                    blocks: 1,
                    ..Default::default()
                })
                .on_issue = match s.trim() {
                "complete" => false,
                "issue" => true,
                _ => return Err(bad(key, s, "use complete or issue")),
            };
        }
        // As fio sets them: a `prio` alone is in the best-effort class, a class alone has
        // level 0 (strace of fio 3.33).
        "prio" => {
            let level: u8 = num(key, need(key, v, "4")?)?;
            if level > 7 {
                return Err(bad(key, &level.to_string(), "use 0 (highest) to 7"));
            }
            j.ioprio = Some((j.ioprio.map_or(2, |p| p.0), level));
        }
        "prioclass" => {
            let class: u8 = num(key, need(key, v, "2")?)?;
            if !(1..=3).contains(&class) {
                return Err(bad(
                    key,
                    &class.to_string(),
                    "use 1 (realtime), 2 (best effort) or 3 (idle)",
                ));
            }
            j.ioprio = Some((class, j.ioprio.map_or(0, |p| p.1)));
        }
        "rw_sequencer" => {
            let s = need(key, v, "sequential")?;
            j.rand_identical = match s.trim() {
                "sequential" => false,
                "identical" => true,
                _ => return Err(bad(key, s, "use sequential or identical")),
            };
        }
        "random_distribution" => {
            let s = need(key, v, "zipf:1.2")?;
            j.random_distribution =
                crate::Distribution::parse(s).map_err(|why| bad(key, s, why))?;
        }
        "serialize_overlap" => j.serialize_overlap = flag(key, v)?,
        "flow" => {
            let w: u32 = num(key, need(key, v, "1")?)?;
            if w > 1000 {
                return Err(bad(key, &w.to_string(), "a weight is 0 to 1000"));
            }
            j.flow = w;
        }
        "flow_id" => j.flow_id = num(key, need(key, v, "0")?)?,
        "flow_sleep" => j.flow_sleep = num(key, need(key, v, "100")?)?,
        _ => {
            if KNOWN_UNSUPPORTED.contains(&key) || IGNORABLE.contains(&key) {
                let hint = if IGNORABLE.contains(&key) {
                    ": it only affects logs or reporting, so a job file may keep it (skipped \
                     with a warning)"
                        .to_string()
                } else {
                    ": remove it (it changes the I/O, so it cannot be skipped)".to_string()
                };
                return Err(OptError::Unsupported {
                    key: key.into(),
                    hint,
                });
            }
            return Err(OptError::Unknown {
                key: crate::shown(key),
                suggestion: suggestion(key),
            });
        }
    }
    Ok(())
}

/// What volbench does with an accepted option that fio treats differently, if anything.
fn note(key: &str, value: Option<&str>) -> Option<String> {
    if let Some((k, n)) = MEASUREMENT_NOTES.iter().find(|(k, _)| *k == key) {
        return Some(format!("{k} accepted: {n}"));
    }
    let v = value?.trim();
    match (key, v) {
        ("ioengine", "sync" | "vsync" | "pvsync" | "pvsync2") => Some(format!(
            "ioengine={v} runs as psync: the same reads and writes reach the device, only the \
             system call differs"
        )),
        ("verify", "crc32" | "crc64" | "crc16" | "crc7" | "xxhash" | "meta") => Some(format!(
            "verify={v} is checked with crc32c: every block still carries its offset, sequence \
             and a checksum, so the same torn, misplaced or corrupt blocks are caught; only the \
             checksum's CPU cost differs"
        )),
        ("ioengine", "posixaio") => Some(
            "ioengine=posixaio runs as io_uring at the same iodepth: the device sees the same \
             requests in flight (glibc's POSIX AIO issues them from helper threads)"
                .into(),
        ),
        _ => None,
    }
}

/// Job sections (and `[global]`s) as a workload: each job starts from fio's defaults plus the
/// global options seen before it. With `ignore_unsupported`, options that cannot change the
/// measured I/O are skipped and returned as warnings; never silently.
pub fn workload(
    sections: &[Section],
    ignore_unsupported: bool,
) -> Result<(Workload, Vec<String>), LocatedError> {
    let mut global: Vec<RawOption> = Vec::new();
    let mut jobs = Vec::new();
    let mut warnings = Vec::new();
    for s in sections {
        let is_global = s.name == "global";
        let mut j = JobSpec::fio_default(&s.name);
        // fio names a job by its section: `name=` in [global] does not rename the jobs.
        let mut opts: Vec<&RawOption> = if is_global {
            s.options.iter().collect()
        } else {
            global
                .iter()
                .filter(|o| o.key != "name")
                .chain(s.options.iter())
                .collect()
        };
        // fio reads a section's options in its option table's order, where kb_base comes
        // first: it sets the units of every size in its section (and in later ones, from
        // [global]), not of sizes [global] set before.
        // openfiles is checked against nrfiles, so it goes last wherever it was written.
        opts.sort_by_key(|o| {
            let own = !is_global && s.options.iter().any(|x| std::ptr::eq(x, *o));
            (o.key == "openfiles", own, o.key != "kb_base")
        });
        for o in &opts {
            match apply(&mut j, &o.key, o.value.as_deref()) {
                Ok(()) => {
                    if let Some(note) = note(canonical(&o.key), o.value.as_deref()) {
                        let w = format!("{}: {note}", o.at());
                        if !warnings.contains(&w) {
                            warnings.push(w);
                        }
                    }
                }
                // A job file parses as written: an option that only shapes logs or reports
                // volbench does not produce is skipped, and the warning says so.
                Err(OptError::Unsupported { .. }) if is_ignorable(canonical(&o.key)) => {
                    let _ = ignore_unsupported;
                    let w = format!(
                        "{}: ignored '{}' (it only affects logs or reporting, which volbench \
                         does not produce)",
                        o.at(),
                        o.key
                    );
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
                Err(err) => return Err(LocatedError { at: o.at(), err }),
            }
        }
        if is_global {
            global.extend(s.options.iter().cloned());
            continue;
        }
        // With filesize, fio's size is the I/O to do over the files, not their size.
        if j.filesize.is_some() && j.io_size.is_none() {
            j.io_size = j.size.take();
        }
        // The error names the line of the option it is about (the job's own before [global]'s),
        // or the section when the defaults alone make it.
        j.validate().map_err(|e| {
            let at = e
                .keys()
                .iter()
                .find_map(|k| opts.iter().rev().find(|o| canonical(&o.key) == *k))
                .map(|o| o.at())
                .unwrap_or_else(|| format!("{}:{}", s.file.display(), s.line));
            LocatedError {
                at,
                err: OptError::Job(s.name.clone(), e.to_string()),
            }
        })?;
        jobs.push(j);
    }
    if jobs.is_empty() {
        return Err(LocatedError {
            at: sections
                .first()
                .map(|s| s.file.display().to_string())
                .unwrap_or_else(|| "job file".into()),
            err: OptError::NoJobs,
        });
    }
    let global_options = sections
        .iter()
        .filter(|s| s.name == "global")
        .flat_map(|s| s.options.iter())
        .map(|o| (o.key.clone(), o.value.clone().unwrap_or_default()))
        .collect();
    Ok((
        Workload {
            jobs,
            global_options,
        },
        warnings,
    ))
}

/// The job as fio options (key, value), everything that differs from fio's defaults plus the
/// name: what `--showcmd` prints and what fio-json calls "job options". A bare flag has "".
pub fn options(j: &JobSpec) -> Vec<(String, String)> {
    options_against(j, &JobSpec::fio_default(&j.name))
}

/// A duration as fio writes it: whole seconds as `30s`, else milliseconds.
fn dur(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// The options that turn `d` (a set of defaults) into `j`.
fn options_against(j: &JobSpec, d: &JobSpec) -> Vec<(String, String)> {
    // Under kb_base=1000 a printed `4k` would read back as 4000: sizes go out in bytes.
    let short_size = |v: u64| {
        if j.kb_base == 1000 {
            v.to_string()
        } else {
            crate::units::short_size(v)
        }
    };
    let mut o: Vec<(String, String)> = vec![("name".into(), j.name.clone())];
    let mut push = |k: &str, v: String| o.push((k.to_string(), v));
    if j.kb_base != d.kb_base {
        push("kb_base", j.kb_base.to_string());
    }
    if let Some(d) = &j.description {
        push("description", d.clone());
    }
    if j.seq_skip != 0 {
        push("rw", format!("{}:{}", j.rw.as_str(), j.seq_skip));
    } else if j.rand_run > 1 {
        push("rw", format!("{}:{}", j.rw.as_str(), j.rand_run));
    } else if j.rw != d.rw {
        push("rw", j.rw.as_str().into());
    }
    if j.rw.reads() && j.rw.writes() && j.rwmixread != d.rwmixread {
        push("rwmixread", j.rwmixread.to_string());
    }
    if j.bssplit.is_empty() && j.bs != d.bs {
        push("bs", short_size(j.bs));
    }
    if !j.bssplit.is_empty() {
        let parts: Vec<String> = j
            .bssplit
            .iter()
            .map(|b| format!("{}/{}", short_size(b.bs), b.percent))
            .collect();
        push("bssplit", parts.join(":"));
    }
    if j.iodepth != d.iodepth {
        push("iodepth", j.iodepth.to_string());
    }
    if j.iodepth_batch_submit != d.iodepth_batch_submit {
        push("iodepth_batch_submit", j.iodepth_batch_submit.to_string());
    }
    if j.numjobs != d.numjobs {
        push("numjobs", j.numjobs.to_string());
    }
    if let Some(s) = j.size {
        push("size", short_size(s));
    }
    if let Some(p) = j.size_percent {
        push("size", format!("{p}%"));
    }
    if j.offset != 0 {
        push("offset", short_size(j.offset));
    }
    if let Some(p) = j.offset_percent {
        push("offset", format!("{p}%"));
    }
    if j.offset_increment != 0 {
        push("offset_increment", short_size(j.offset_increment));
    }
    if let Some(s) = j.io_size {
        push("io_size", short_size(s));
    }
    if let Some(n) = j.number_ios {
        push("number_ios", n.to_string());
    }
    if let (Some(r), true) = (j.runtime, j.runtime != d.runtime) {
        push("runtime", dur(r));
    }
    if j.time_based && !d.time_based {
        push("time_based", String::new());
    }
    if !j.ramp_time.is_zero() {
        push("ramp_time", dur(j.ramp_time));
    }
    if !j.startdelay.is_zero() {
        push("startdelay", dur(j.startdelay));
    }
    if j.loops != 1 {
        push("loops", j.loops.to_string());
    }
    if j.direct != d.direct {
        push("direct", u8::from(j.direct).to_string());
    }
    if j.ioengine != d.ioengine {
        push("ioengine", j.ioengine.as_str().into());
    }
    if !j.filename.is_empty() {
        let f: Vec<String> = j
            .filename
            .iter()
            .map(|p| p.display().to_string().replace(':', "\\:"))
            .collect();
        push("filename", f.join(":"));
    }
    if let Some(dir) = &j.directory {
        push("directory", dir.display().to_string());
    }
    if let Some(f) = j
        .filename_format
        .as_ref()
        .filter(|_| j.filename_format != d.filename_format)
    {
        push("filename_format", f.clone());
    }
    if j.nrfiles != 1 {
        push("nrfiles", j.nrfiles.to_string());
    }
    if j.sync_every > 0 {
        let k = if j.sync_mode == SyncMode::Fsync {
            "fsync"
        } else {
            "fdatasync"
        };
        push(k, j.sync_every.to_string());
    }
    if j.end_fsync {
        push("end_fsync", "1".into());
    }
    match j.sync_io {
        SyncIo::None => {}
        SyncIo::Sync => push("sync", "sync".into()),
        SyncIo::Dsync => push("sync", "dsync".into()),
    }
    if j.randseed != d.randseed {
        push("randseed", j.randseed.to_string());
    }
    if j.norandommap {
        push("norandommap", String::new());
    }
    if j.rate != [0, 0] {
        push("rate", format!("{},{}", j.rate[0], j.rate[1]));
    }
    if j.rate_iops != [0, 0] {
        push(
            "rate_iops",
            format!("{},{}", j.rate_iops[0], j.rate_iops[1]),
        );
    }
    match &j.buffer {
        BufferMode::Random => {}
        BufferMode::Compressible { percent, chunk } => {
            push("buffer_compress_percentage", percent.to_string());
            push("buffer_compress_chunk", chunk.to_string());
        }
        BufferMode::Zero => push("zero_buffers", String::new()),
        BufferMode::Pattern(p) => push(
            "buffer_pattern",
            format!(
                "0x{}",
                p.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ),
        ),
    }
    if let Some(v) = j.verify {
        push(
            "verify",
            match v {
                Verify::Crc32c => "crc32c",
                Verify::Md5 => "md5",
                Verify::Sha1 => "sha1",
                Verify::Sha256 => "sha256",
                Verify::Sha512 => "sha512",
            }
            .into(),
        );
        if !j.do_verify {
            push("do_verify", "0".into());
        }
    }
    if j.stonewall {
        push("stonewall", String::new());
    }
    if j.new_group {
        push("new_group", String::new());
    }
    if j.group_reporting {
        push("group_reporting", String::new());
    }
    if !j.invalidate {
        push("invalidate", "0".into());
    }
    if j.unlink {
        push("unlink", "1".into());
    }
    if j.allow_destructive {
        push("allow_destructive", String::new());
    }
    if j.hipri {
        push("hipri", "1".into());
    }
    if let Some(t) = j.think.filter(|t| t.us > 0) {
        push("thinktime", t.us.to_string());
        if t.spin_us > 0 {
            push("thinktime_spin", t.spin_us.to_string());
        }
        push("thinktime_blocks", t.blocks.to_string());
        if t.on_issue {
            push("thinktime_blocks_type", "issue".into());
        }
    }
    if let Some((class, level)) = j.ioprio {
        push("prioclass", class.to_string());
        push("prio", level.to_string());
    }
    if j.rand_identical {
        push("rw_sequencer", "identical".into());
    }
    if j.random_distribution != crate::Distribution::Random {
        push("random_distribution", j.random_distribution.fio_form());
    }
    if j.serialize_overlap {
        push("serialize_overlap", "1".into());
    }
    for (k, v) in [
        ("flow", j.flow as u64),
        ("flow_id", j.flow_id as u64),
        ("flow_sleep", j.flow_sleep),
    ] {
        if v != 0 {
            push(k, v.to_string());
        }
    }
    if j.verify_backlog != 0 {
        push("verify_backlog", j.verify_backlog.to_string());
    }
    if j.verify_backlog_batch != 0 {
        push("verify_backlog_batch", j.verify_backlog_batch.to_string());
    }
    if j.rwf_dsync {
        push("rwf_dsync", "1".into());
    }
    push_layout_and_reporting(j, d, &mut push);
    o
}

/// The options of issue 8's families (layout, ranges, logs, percentiles, CPUs), for
/// `options_against`.
fn push_layout_and_reporting(j: &JobSpec, d: &JobSpec, push: &mut impl FnMut(&str, String)) {
    if let Some((lo, hi)) = j.bs_range {
        push("bsrange", format!("{lo}-{hi}"));
    }
    if let Some((lo, hi)) = j.filesize {
        push("filesize", format!("{lo}-{hi}"));
    }
    if j.overwrite != d.overwrite {
        push("overwrite", u8::from(j.overwrite).to_string());
    }
    if j.fallocate != d.fallocate {
        push("fallocate", j.fallocate.as_str().into());
    }
    if !j.allow_file_create {
        push("allow_file_create", "0".into());
    }
    if j.rate_poisson {
        push("rate_process", "poisson".into());
    }
    if let Some(c) = &j.cpus {
        let l: Vec<String> = c.iter().map(|c| c.to_string()).collect();
        push("cpus_allowed", l.join(","));
    }
    if j.cpus_split {
        push("cpus_allowed_policy", "split".into());
    }
    if let Some(ps) = &j.percentile_list {
        let l: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
        push("percentile_list", l.join(":"));
    }
    for (i, k) in ["clat_percentiles", "lat_percentiles", "slat_percentiles"]
        .iter()
        .enumerate()
    {
        if j.percentiles_for[i] != d.percentiles_for[i] {
            push(k, u8::from(j.percentiles_for[i]).to_string());
        }
    }
    for (k, v) in [
        ("write_bw_log", &j.logs.bw),
        ("write_iops_log", &j.logs.iops),
        ("write_lat_log", &j.logs.lat),
        ("write_hist_log", &j.logs.hist),
    ] {
        if let Some(v) = v {
            push(k, v.clone());
        }
    }
    for (k, v) in [
        ("log_avg_msec", j.logs.avg_msec),
        ("log_hist_msec", j.logs.hist_msec),
        ("log_hist_coarseness", j.logs.hist_coarseness as u32),
        ("log_max_value", j.logs.max_value as u32),
    ] {
        if v != 0 {
            push(k, v.to_string());
        }
    }
}

/// The options of a single job for `volbench run`'s own command line, which starts from
/// volbench's defaults (time-based 30 s, QD32, io_uring, O_DIRECT), not fio's: every option
/// that differs from those, and time_based always, since the command line infers it otherwise.
pub fn cli_options(j: &JobSpec) -> Vec<(String, String)> {
    let mut o = options_against(j, &JobSpec::default());
    if j.name == JobSpec::default().name {
        o.retain(|(k, _)| k != "name");
    }
    o.retain(|(k, _)| k != "time_based");
    o.push(("time_based".into(), u8::from(j.time_based).to_string()));
    o
}

/// The command line that runs this workload (`--showcmd`): `volbench run`'s own options for one
/// job, fio's multi-job form (one `--name` per job, fio's defaults) for several.
pub fn showcmd(w: &Workload) -> String {
    let mut lines = vec!["volbench run".to_string()];
    for j in &w.jobs {
        // Every line starts with --name, so the command reads as fio's: options against
        // fio's defaults.
        let opts = options(j);
        let args: Vec<String> = opts
            .into_iter()
            .map(|(k, v)| {
                if v.is_empty() {
                    format!("--{k}")
                } else {
                    format!("--{k}={v}")
                }
            })
            .map(|a| {
                if a.contains(char::is_whitespace) {
                    format!("'{a}'")
                } else {
                    a
                }
            })
            .collect();
        lines.push(args.join(" "));
    }
    lines.join(" \\\n  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobfile::parse_str;
    use std::path::Path;

    fn load(t: &str) -> Result<Workload, LocatedError> {
        let s = parse_str(t, Path::new("t.fio"), &|_| None, 0).unwrap();
        workload(&s, false).map(|(w, _)| w)
    }

    #[test]
    fn jobs_inherit_globals_seen_before_them() {
        let w = load("[global]\nbs=64k\nioengine=libaio\n[a]\nrw=randread\n[global]\niodepth=8\n[b]\nbs=8k\n").unwrap();
        assert_eq!(w.jobs.len(), 2);
        assert_eq!((w.jobs[0].bs, w.jobs[0].iodepth), (65536, 1));
        assert_eq!(w.jobs[0].ioengine, EngineKind::Libaio);
        assert_eq!((w.jobs[1].bs, w.jobs[1].iodepth), (8192, 8));
        assert_eq!(w.jobs[0].name, "a");
    }

    #[test]
    fn fio_defaults_apply_to_job_files() {
        let w = load("[j]\nsize=1m\n").unwrap();
        let j = &w.jobs[0];
        assert_eq!(
            (j.rw, j.iodepth, j.direct, j.time_based),
            (Rw::Read, 1, false, false)
        );
        assert_eq!(j.ioengine, EngineKind::Psync);
    }

    #[test]
    fn options_parse_as_fio_documents() {
        let w = load("[j]\nrw=randrw\nrwmixwrite=30\nbssplit=4k/60:64k/:1m/\nsize=50%\nrate=1m,\nrate_iops=100\nfilename=/a:/b\\:c\nsync=dsync\nfdatasync=4\nverify=md5\nnorandommap\nstartdelay=2\nloops=3\n").unwrap();
        let j = &w.jobs[0];
        assert_eq!(j.rwmixread, 70);
        assert_eq!(
            j.bssplit,
            vec![
                BsSplit {
                    bs: 4096,
                    percent: 60
                },
                BsSplit {
                    bs: 65536,
                    percent: 20
                },
                BsSplit {
                    bs: 1 << 20,
                    percent: 20
                }
            ]
        );
        assert_eq!(j.size_percent, Some(50));
        assert_eq!(j.rate, [1 << 20, 0]);
        assert_eq!(j.rate_iops, [100, 100]);
        assert_eq!(j.filename, vec![PathBuf::from("/a"), PathBuf::from("/b:c")]);
        assert_eq!(j.sync_io, SyncIo::Dsync);
        assert_eq!((j.sync_every, j.sync_mode), (4, SyncMode::Fdatasync));
        assert_eq!(j.verify, Some(Verify::Md5));
        assert!(j.norandommap);
        assert_eq!(j.startdelay, std::time::Duration::from_secs(2));
        assert_eq!(j.loops, 3);
    }

    #[test]
    fn unsupported_and_unknown_options_name_file_and_line() {
        let e = load("[j]\nsize=1m\nzonemode=zbd\n").unwrap_err();
        assert_eq!(e.at, "t.fio:3");
        assert!(matches!(e.err, OptError::Unsupported { .. }), "{e}");
        let e = load("[j]\niodeph=4\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.fio:2: 'iodeph' is not a fio option (did you mean 'iodepth'?)"
        );
        let e = load("[j]\nbs=4q\n").unwrap_err();
        assert!(e.to_string().starts_with("t.fio:2: bs=4q:"), "{e}");
        let e = load("[j]\nioengine=rbd\n").unwrap_err();
        assert!(e.to_string().contains("ioengine=rbd"), "{e}");
    }

    #[test]
    fn ignore_unsupported_skips_only_reporting_options_and_says_so() {
        let s = parse_str(
            "[j]\nsize=1m\nlog_offset=1\n",
            Path::new("t.fio"),
            &|_| None,
            0,
        )
        .unwrap();
        for flag in [true, false] {
            let (w, warns) = workload(&s, flag).unwrap();
            assert_eq!(w.jobs.len(), 1);
            assert_eq!(
                warns,
                vec![
                    "t.fio:3: ignored 'log_offset' (it only affects logs or reporting, \
                      which volbench does not produce)"
                        .to_string()
                ]
            );
        }
        let s = parse_str("[j]\nzonemode=zbd\n", Path::new("t.fio"), &|_| None, 0).unwrap();
        assert!(
            workload(&s, true).is_err(),
            "options that change the I/O are never skipped"
        );
    }

    #[test]
    fn showcmd_round_trips() {
        let w = load("[global]\nioengine=libaio\ndirect=1\n[a]\nrw=randwrite\nbs=8k\niodepth=16\nsize=64m\nfsync=4\n[b]\nstonewall\nrw=read\nsize=1m\n").unwrap();
        let cmd = showcmd(&w);
        // Turn the command back into sections and compare.
        let mut text = String::new();
        for line in cmd.split(" \\\n  ").skip(1) {
            for a in line.split(' ') {
                let a = a.trim_start_matches("--");
                if let Some(n) = a.strip_prefix("name=") {
                    text.push_str(&format!("[{n}]\n"));
                } else {
                    text.push_str(a);
                    text.push('\n');
                }
            }
        }
        // The jobs round-trip; the job file's raw [global] lines have no command-line form.
        assert_eq!(load(&text).unwrap().jobs, w.jobs, "{cmd}");
    }

    #[test]
    fn offset_percent_is_a_share_and_replaces_a_byte_offset() {
        let w = load("[a]\noffset=1m\noffset=25%\n[b]\noffset=25%\noffset=8k\n").unwrap();
        assert_eq!((w.jobs[0].offset, w.jobs[0].offset_percent), (0, Some(25)));
        assert_eq!((w.jobs[1].offset, w.jobs[1].offset_percent), (8192, None));
        let e = load("[a]\noffset=101%\n").unwrap_err().to_string();
        assert!(e.contains("t.fio:2") && e.contains("0 to 100"), "{e}");
        // --showcmd keeps it.
        assert!(showcmd(&load("[a]\noffset=25%\n").unwrap()).contains("--offset=25%"));
    }

    #[test]
    fn openfiles_below_nrfiles_is_refused_in_either_order() {
        for t in [
            "[a]\nopenfiles=1\nnrfiles=4\n",
            "[a]\nnrfiles=4\nopenfiles=1\n",
            "[global]\nopenfiles=1\n[a]\nnrfiles=4\n",
        ] {
            let e = load(t).unwrap_err().to_string();
            assert!(
                e.contains("openfiles=1") && e.contains("nrfiles=4"),
                "{t}: {e}"
            );
        }
        assert!(load("[a]\nopenfiles=4\nnrfiles=4\n").is_ok());
    }

    #[test]
    fn fios_aliases_mean_their_options() {
        let w = load(
            "[a]\ntimeout=5\nfileoffset=8k\nnr_files=2\nlog_window_value=1\nwrite_lat_log=l\n",
        )
        .unwrap();
        let j = &w.jobs[0];
        assert_eq!(j.runtime, Some(std::time::Duration::from_secs(5)));
        assert_eq!((j.offset, j.nrfiles, j.logs.max_value), (8192, 2, true));
        // A reporting-only option under its alias is skipped like the option.
        let s = parse_str(
            "[a]\nsize=1m\ndisable_bw=1\n",
            Path::new("t.fio"),
            &|_| None,
            0,
        )
        .unwrap();
        let (_, warns) = workload(&s, false).unwrap();
        assert!(warns[0].contains("disable_bw"), "{warns:?}");
        // An error about the option points at the alias's line.
        let e = load("[a]\ntimeout=0\ntime_based\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.fio:2"), "{e}");
    }
}
