//! The limits this process runs under, walking its cgroups up to the root: cgroup v2
//! `io.max` and `cpu.max`, cgroup v1 `blkio.throttle.*_device` and `cpu.cfs_quota_us`. A limit
//! on any ancestor binds as much as one on the process's own group.

use crate::dev::Dev;
use crate::{Finding, Level};
use figures::fmt_count;
use std::path::{Path, PathBuf};

/// One I/O limit: where it is set, on which device, what it caps.
#[derive(Clone, Debug, PartialEq)]
pub struct IoLimit {
    pub file: PathBuf,
    pub device: String,
    /// "read IOPS", "write IOPS", "read bandwidth", "write bandwidth".
    pub what: &'static str,
    pub value: u64,
}

/// A cgroup mount: the hierarchy's mount point, its root within the hierarchy, and the
/// controllers (v1) or `cgroup2`.
struct Hierarchy {
    mount_point: PathBuf,
    root: String,
    v2: bool,
    controllers: Vec<String>,
}

fn hierarchies() -> Vec<Hierarchy> {
    let text = read_bounded(Path::new("/proc/self/mountinfo"), 1 << 20);
    text.lines()
        .filter_map(|l| {
            let (pre, post) = l.split_once(" - ")?;
            let pre: Vec<&str> = pre.split(' ').collect();
            let post: Vec<&str> = post.split(' ').collect();
            let fs = *post.first()?;
            if fs != "cgroup" && fs != "cgroup2" {
                return None;
            }
            Some(Hierarchy {
                mount_point: PathBuf::from(pre.get(4)?),
                root: pre.get(3)?.to_string(),
                v2: fs == "cgroup2",
                controllers: post.get(2)?.split(',').map(str::to_string).collect(),
            })
        })
        .collect()
}

/// The directories of this process's cgroup for `controller` (`None`: the v2 hierarchy) from
/// its own group up to the hierarchy's root.
fn chain(controller: Option<&str>) -> Vec<PathBuf> {
    let own = read_bounded(Path::new("/proc/self/cgroup"), 1 << 16);
    let hs = hierarchies();
    for line in own.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(id), Some(ctls), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let h = match controller {
            None if id == "0" && ctls.is_empty() => hs.iter().find(|h| h.v2),
            Some(c) if ctls.split(',').any(|x| x == c) => hs
                .iter()
                .find(|h| !h.v2 && h.controllers.iter().any(|x| x == c)),
            _ => None,
        };
        let Some(h) = h else { continue };
        let rel = path.strip_prefix(h.root.as_str()).unwrap_or(path);
        let mut dir = h.mount_point.join(rel.trim_start_matches('/'));
        let mut out = vec![dir.clone()];
        while dir != h.mount_point && dir.pop() {
            out.push(dir.clone());
        }
        return out;
    }
    Vec::new()
}

/// A cgroup or procfs file's text; empty where it cannot be read (no such controller file).
fn read_bounded(p: &Path, max: u64) -> String {
    crate::read(p, max).unwrap_or_default()
}

/// Every I/O limit on this process for one of `devs`.
pub fn io_limits(devs: &[Dev]) -> Vec<IoLimit> {
    let mut out = v2_limits(devs);
    out.extend(v1_limits(devs));
    out
}

/// `device MAJ:MIN`'s limit from one value of `file` ("max", no limit, gives none).
fn limit(file: &Path, devs: &[Dev], key: &str, what: &'static str, v: &str) -> Option<IoLimit> {
    let d = devs
        .iter()
        .find(|d| format!("{}:{}", d.id.major, d.id.minor) == key)?;
    Some(IoLimit {
        file: file.to_path_buf(),
        device: d.name.clone(),
        what,
        value: v.parse().ok()?,
    })
}

/// cgroup v2: `io.max` lines, "MAJ:MIN rbps=N wbps=max riops=N wiops=max".
fn v2_limits(devs: &[Dev]) -> Vec<IoLimit> {
    let mut out = Vec::new();
    for dir in chain(None) {
        let file = dir.join("io.max");
        for line in read_bounded(&file, 1 << 16).lines() {
            let mut w = line.split_whitespace();
            let Some(key) = w.next() else { continue };
            for (name, v) in w.filter_map(|kv| kv.split_once('=')) {
                let what = match name {
                    "riops" => "read IOPS",
                    "wiops" => "write IOPS",
                    "rbps" => "read bandwidth",
                    "wbps" => "write bandwidth",
                    _ => continue,
                };
                out.extend(limit(&file, devs, key, what, v));
            }
        }
    }
    out
}

/// cgroup v1: `blkio.throttle.*_device` files, a "MAJ:MIN N" line per limited device.
fn v1_limits(devs: &[Dev]) -> Vec<IoLimit> {
    let mut out = Vec::new();
    for dir in chain(Some("blkio")) {
        for (name, what) in [
            ("blkio.throttle.read_iops_device", "read IOPS"),
            ("blkio.throttle.write_iops_device", "write IOPS"),
            ("blkio.throttle.read_bps_device", "read bandwidth"),
            ("blkio.throttle.write_bps_device", "write bandwidth"),
        ] {
            let file = dir.join(name);
            for line in read_bounded(&file, 1 << 16).lines() {
                if let Some((key, v)) = line.split_once(' ') {
                    out.extend(limit(&file, devs, key, what, v.trim()));
                }
            }
        }
    }
    out
}

/// The tightest CPU quota on this process, in CPUs, with the file that sets it.
pub fn cpu_quota() -> Option<(f64, PathBuf)> {
    let mut best: Option<(f64, PathBuf)> = None;
    let mut consider = |cpus: f64, file: PathBuf| {
        if best.as_ref().is_none_or(|(b, _)| cpus < *b) {
            best = Some((cpus, file));
        }
    };
    for dir in chain(None) {
        let file = dir.join("cpu.max");
        let text = read_bounded(&file, 256);
        let mut w = text.split_whitespace();
        if let (Some(q), Some(p)) = (w.next(), w.next()) {
            if let (Ok(q), Ok(p)) = (q.parse::<f64>(), p.parse::<f64>()) {
                consider(q / p, file);
            }
        }
    }
    for dir in chain(Some("cpu")) {
        let q = read_bounded(&dir.join("cpu.cfs_quota_us"), 64);
        let p = read_bounded(&dir.join("cpu.cfs_period_us"), 64);
        if let (Ok(q), Ok(p)) = (q.trim().parse::<f64>(), p.trim().parse::<f64>()) {
            if q > 0.0 && p > 0.0 {
                consider(q / p, dir.join("cpu.cfs_quota_us"));
            }
        }
    }
    best
}

/// The findings: each I/O limit, the CPU quota, or that there are none.
pub fn findings(devs: &[Dev]) -> Vec<Finding> {
    let names: Vec<&str> = devs.iter().map(|d| d.name.as_str()).collect();
    // One line per device and cgroup directory: "3000 read IOPS, 3000 write IOPS".
    let mut groups: Vec<(String, PathBuf, Vec<String>)> = Vec::new();
    for l in io_limits(devs) {
        let dir = l.file.parent().map(Path::to_path_buf).unwrap_or_default();
        let text = amount(l.what, l.value);
        match groups.iter_mut().find(|g| g.0 == l.device && g.1 == dir) {
            Some(g) => g.2.push(text),
            None => groups.push((l.device, dir, vec![text])),
        }
    }
    let mut out: Vec<Finding> = groups
        .into_iter()
        .map(|(device, dir, caps)| Finding {
            area: "limits",
            code: "io_limit",
            level: Level::Warn,
            what: format!(
                "this process may do at most {} on {device}, set in the cgroup {}",
                caps.join(", "),
                dir.display()
            ),
            // Not "impossible": a v1 throttle lends a cgroup the time it sat idle, so
            // a short stretch (a db run after its table load) reads a little over.
            consequence: "no figure can stay above it for long (a short stretch after idle \
                          time can, on credit the throttle lends)"
                .into(),
            fix: "run outside that cgroup, or raise the limit, to measure the device".into(),
        })
        .collect();
    if out.is_empty() && !devs.is_empty() {
        out.push(Finding::ok(
            "limits",
            "io_limit",
            format!(
                "no cgroup I/O limit on this process for {}",
                names.join(", ")
            ),
        ));
    }
    if let Some((cpus, file)) = cpu_quota() {
        out.push(Finding {
            area: "limits",
            code: "cpu_quota",
            level: Level::Warn,
            what: format!(
                "this process may use {} CPUs at most, set by {}",
                fmt_count(cpus),
                file.display()
            ),
            consequence: "it caps the submission rate: a CPU-bound run measures the quota".into(),
            fix: "run outside that cgroup, or raise its quota".into(),
        });
    }
    out
}

/// "5000 read IOPS", "200 MiB/s read bandwidth" (bandwidth limits are in bytes per second).
fn amount(what: &str, v: u64) -> String {
    if what.ends_with("IOPS") {
        format!("{} {what}", fmt_count(v as f64))
    } else {
        // Three figures: rounded to a whole MiB/s, a cap of 11.44 read "at most 11" beside
        // a measured 11.8 (MB/s) that it warned was impossible.
        format!("{}/s of {what}", figures::fmt_bytes(v as f64))
    }
}
