//! Settings that change a result without limiting it: the block layer of the target's devices
//! (fio's peak-IOPS script sets scheduler, nomerges, iostats and polling by hand), the file
//! system and its mount options, and the CPU (governor, idle states, SMT, CPUs per job).

use crate::dev::Dev;
use crate::{Finding, Level};
use figures::fmt_count;
use std::path::{Path, PathBuf};

/// A sysfs attribute (one short line).
fn read(p: PathBuf) -> Option<String> {
    crate::read(&p, 4096)
}

fn note(area: &'static str, code: &'static str, what: String, why: &str, fix: &str) -> Finding {
    Finding {
        area,
        code,
        level: Level::Note,
        what,
        consequence: why.into(),
        fix: fix.into(),
    }
}

/// The active scheduler: the bracketed word of `queue/scheduler`.
fn active(s: &str) -> String {
    s.split_whitespace()
        .find(|w| w.starts_with('['))
        .map_or(s, |w| w.trim_matches(['[', ']']))
        .to_string()
}

/// Each device's queue settings as one fact line, and a note for each that skews a result.
pub fn block(devs: &[Dev]) -> Vec<Finding> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for d in devs {
        let q = d.queue();
        if seen.contains(&q) {
            continue;
        }
        seen.push(q.clone());
        let get = |f: &str| read(q.join(f)).unwrap_or_else(|| "?".into());
        let sched = active(&get("scheduler"));
        let ssd = get("rotational") == "0";
        out.push(Finding::ok(
            "block",
            "queue",
            format!(
                "{} ({}): scheduler {sched}, nomerges {}, iostats {}, rq_affinity {}, read_ahead {} KiB, write cache {}, nr_requests {}, io_poll {}",
                d.name, d.role, get("nomerges"), get("iostats"), get("rq_affinity"),
                get("read_ahead_kb"), get("write_cache"), get("nr_requests"), get("io_poll")
            ),
        ));
        if ssd && sched != "none" && sched != "?" {
            out.push(note(
                "block",
                "scheduler",
                format!("{}: scheduler {sched} on a non-rotational device", d.name),
                "it adds CPU per I/O and can reorder; fio's peak-IOPS set-up uses none",
                &format!("echo none > {}", q.join("scheduler").display()),
            ));
        }
        // A bio-based driver (zram, md) counts for itself whatever iostats says; only a
        // request-based (blk-mq) device's counters stop.
        if get("iostats") == "0" && probe_mq(&d.sysfs) {
            out.push(Finding {
                area: "block",
                code: "iostats",
                level: Level::Warn,
                what: format!("{}: iostats is off", d.name),
                consequence: "the device's counters stay still, so volbench cannot check its figures against the kernel's".into(),
                fix: format!("echo 1 > {}", q.join("iostats").display()),
            });
        }
        if get("write_cache") == "write back" {
            out.push(note("block", "write_cache", format!("{}: volatile write cache (write back)", d.name),
                "a write is acknowledged before it is durable unless flushed: fsync's cost includes the flush",
                "volbench fsync and durability measure what the flush really does"));
        }
    }
    out
}

fn probe_mq(sysfs: &Path) -> bool {
    runner::probe::disk_dir(sysfs).join("mq").is_dir()
}

/// The file system of `target` (none for a block device): type, mount options, free space,
/// and how fragmented an existing file is.
pub fn filesystem(target: &Path) -> Vec<Finding> {
    use std::os::unix::fs::FileTypeExt;
    let Some((at, meta)) = crate::dev::nearest(target) else {
        return Vec::new();
    };
    if meta.file_type().is_block_device() {
        return vec![Finding::ok(
            "filesystem",
            "filesystem",
            format!(
                "{} is a block device: no file system in the way",
                target.display()
            ),
        )];
    }
    use std::os::unix::fs::MetadataExt;
    let dev = runner::probe::DevId::from_raw(meta.dev());
    let mut out = Vec::new();
    let Some(fs) = runner::probe::filesystem_of(&at, dev) else {
        return out;
    };
    out.push(Finding::ok(
        "filesystem",
        "filesystem",
        format!(
            "{} on {} ({}), mounted {}",
            at.display(),
            fs.mount_point,
            fs.fs_type,
            fs.mount_options
        ),
    ));
    out.extend(mount_findings(&fs));
    if let Some(free) = runner::free_bytes(&at) {
        out.push(Finding::ok(
            "filesystem",
            "free_space",
            format!(
                "{} GiB free on {}",
                fmt_count(free as f64 / (1u64 << 30) as f64),
                fs.mount_point
            ),
        ));
    }
    if meta.is_file() {
        out.extend(extents(&at).map(|n| fragmentation(&at, n)));
    }
    out
}

/// What the file system's mount options and kind do to a measurement: no barriers, a
/// compressing file system, inline discards.
fn mount_findings(fs: &report::FilesystemInfo) -> Vec<Finding> {
    let mut out = Vec::new();
    let opts: Vec<&str> = fs.mount_options.split(',').collect();
    if opts.iter().any(|o| *o == "nobarrier" || *o == "barrier=0") {
        out.push(Finding {
            area: "filesystem",
            code: "nobarrier",
            level: Level::Warn,
            what: format!("{} is mounted without barriers", fs.mount_point),
            consequence: "fsync does not flush the device's cache: fast, and not durable".into(),
            fix: "remount with barriers before measuring fsync or durability".into(),
        });
    }
    if let Some(what) = fs.compresses() {
        out.push(note(
            "filesystem",
            "compressing_fs",
            format!("{what}: it stores data that compresses smaller than it was written"),
            "data that compresses (zeros, a pattern, buffer_compress_percentage, dedupe) writes \
             faster here than incompressible data would; volbench's default data does not \
             compress, and a run says so (data_shrunk) when the device took less than written",
            "keep the default data, or measure on a file system that stores what it is given",
        ));
    }
    if opts.contains(&"discard") {
        out.push(note(
            "filesystem",
            "discard",
            format!("{} is mounted with discard", fs.mount_point),
            "deletes send TRIMs inline, which some devices serve slowly",
            "fstrim on a schedule avoids it",
        ));
    }
    out
}

/// A file's fragmentation: over 64 extents, sequential I/O on it is not sequential on the
/// device.
fn fragmentation(at: &Path, n: u32) -> Finding {
    let many = n > 64;
    let say = |s: &str| if many { s.to_string() } else { String::new() };
    Finding {
        area: "filesystem",
        code: "fragmentation",
        level: if many { Level::Note } else { Level::Ok },
        what: format!("{} has {n} extents", at.display()),
        consequence: say("sequential I/O on it is not sequential on the device"),
        fix: say("delete it and let the run lay it out again on free space"),
    }
}

/// The number of extents of a file (FIEMAP with no room for extents returns only the count).
fn extents(p: &Path) -> Option<u32> {
    use std::os::fd::AsRawFd;
    #[repr(C)]
    struct Fiemap {
        start: u64,
        length: u64,
        flags: u32,
        mapped_extents: u32,
        extent_count: u32,
        reserved: u32,
    }
    const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
    let f = std::fs::File::open(p).ok()?;
    let mut m = Fiemap {
        start: 0,
        length: u64::MAX,
        flags: 0,
        mapped_extents: 0,
        extent_count: 0,
        reserved: 0,
    };
    // SAFETY: FIEMAP on an open file with a correctly laid-out struct fiemap and no extent
    // array (extent_count 0): the kernel writes only mapped_extents.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FIEMAP, &mut m as *mut Fiemap) };
    (r == 0).then_some(m.mapped_extents)
}

/// The CPU: governor, deep idle states, SMT, and CPUs against the jobs a run will start.
pub fn cpu(numjobs: u32) -> Vec<Finding> {
    let base = Path::new("/sys/devices/system/cpu");
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let mut out = vec![Finding::ok(
        "cpu",
        "cpus",
        format!("{cpus} CPUs available to this process"),
    )];
    match read(base.join("cpu0/cpufreq/scaling_governor")) {
        Some(g) if g != "performance" => out.push(note(
            "cpu",
            "governor",
            format!("CPU governor {g}"),
            "the clock follows the load, so a light (QD1) run is timed at a lower clock",
            "cpupower frequency-set -g performance",
        )),
        Some(g) => out.push(Finding::ok("cpu", "governor", format!("CPU governor {g}"))),
        None => out.push(Finding::ok(
            "cpu",
            "governor",
            "no cpufreq here (a VM's clock is the host's)".into(),
        )),
    }
    let deep: Vec<String> = (0..16)
        .filter_map(|i| {
            let s = base.join(format!("cpu0/cpuidle/state{i}"));
            let lat: u64 = read(s.join("latency"))?.parse().ok()?;
            let off = read(s.join("disable")).is_some_and(|d| d == "1");
            (lat >= 10 && !off)
                .then(|| format!("{} ({lat} µs)", read(s.join("name")).unwrap_or_default()))
        })
        .collect();
    if !deep.is_empty() {
        out.push(note("cpu", "idle_states", format!("deep idle states enabled: {}", deep.join(", ")),
            "waking from them adds their exit latency to an I/O's completion; AWS's benchmark guide disables C-states",
            "cpupower idle-set -D 10"));
    }
    if let Some(smt) = read(base.join("smt/active")) {
        out.push(Finding::ok(
            "cpu",
            "smt",
            format!("SMT {}", if smt == "1" { "on" } else { "off" }),
        ));
    }
    if numjobs > cpus {
        out.push(Finding {
            area: "cpu",
            code: "cpus",
            level: Level::Warn,
            what: format!("{numjobs} jobs on {cpus} CPUs"),
            consequence: "jobs share CPUs, so a CPU-bound figure measures the CPUs".into(),
            fix: format!("at most {cpus} jobs, or deeper queues instead of more jobs"),
        });
    }
    out
}
