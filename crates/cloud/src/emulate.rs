//! `volbench emulate`: run a command with its I/O on one device throttled like a cloud volume.
//!
//! The command runs in a cgroup of its own: cgroup v2 `io.max` where the `io` controller is
//! available, cgroup v1 `blkio.throttle.*` otherwise. Static caps are set once; a burst bucket
//! is a controller that reads the cgroup's own I/O counters every tick, accounts the credits
//! (see `bucket.rs`) and rewrites the throttle as they drain and refill.
//!
//! The kernel throttles reads and writes separately, but a volume's caps are for both together.
//! When both directions are busy the controller splits each cap between them by the last
//! tick's mix, so a mixed workload sees the cap, not twice it.

use crate::bucket::{Bucket, BucketSpec};
use anyhow::{bail, Context, Result};
use std::ffi::CString;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to emulate: static caps, and optionally a bucket in I/Os and one in bytes.
#[derive(Clone, Debug, Default)]
pub struct Caps {
    pub iops: Option<f64>,
    pub bw_bytes: Option<f64>,
    pub iops_bucket: Option<BucketSpec>,
    pub bytes_bucket: Option<BucketSpec>,
}

/// The controller's tick: short against a burst (a 60 s burst ends within 0.1 %), long
/// against the kernel's throttle slice (100 ms in v1) so each setting takes effect.
pub const TICK: Duration = Duration::from_millis(50);

/// Longer than the kernel's throttle slice (100 ms in cgroup v1), so the slice the starting
/// limits opened has expired before the command runs.
const SLICE_SETTLE: Duration = Duration::from_millis(250);

/// The span of the moving rate that tells above from below the baseline: three of the
/// kernel's counter updates.
const WINDOW_S: f64 = 0.3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    V2,
    V1,
}

/// A cgroup volbench created for one command; removed on drop.
pub struct Cgroup {
    dir: PathBuf,
    version: Version,
    dev: (u32, u32),
    /// The limits last written: rewriting a throttle restarts the kernel's accounting slice,
    /// so unchanged limits are not written again.
    last: std::cell::Cell<Option<[Option<u64>; 4]>>,
    /// The record a killed volbench leaves for the next one to remove the cgroup by.
    _held: leftovers::Hold,
}

/// The whole disk a path lives on: the device itself for a block device, else the device of
/// the file system holding it; partitions resolve to their disk (the kernel throttles disks).
pub fn device_of(path: &Path) -> Result<((u32, u32), String)> {
    let md = fs::metadata(path)
        .with_context(|| format!("--device {}: cannot stat it", path.display()))?;
    let rdev = if md.file_type().is_block_device() {
        md.rdev()
    } else {
        md.dev()
    };
    let (ma, mi) = (libc::major(rdev), libc::minor(rdev));
    let sys = PathBuf::from(format!("/sys/dev/block/{ma}:{mi}"));
    if !sys.exists() {
        bail!(
            "--device {}: it is not on a block device (a tmpfs or network file system cannot be throttled); give a disk such as /dev/sdb",
            path.display()
        );
    }
    let disk = if sys.join("partition").exists() {
        fs::canonicalize(&sys)?.parent().map(Path::to_path_buf)
    } else {
        Some(fs::canonicalize(&sys)?)
    };
    let disk = disk.context("cannot find the partition's disk")?;
    let dev = fs::read_to_string(disk.join("dev"))?;
    let (a, b) = dev.trim().split_once(':').context("bad dev file")?;
    let name = disk
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(((a.parse()?, b.parse()?), name))
}

fn mounts() -> Vec<(String, String, String)> {
    fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 4).then(|| (f[1].to_string(), f[2].to_string(), f[3].to_string()))
        })
        .collect()
}

/// This process's cgroup path within a hierarchy (`0::/x` for v2, `N:blkio:/x` for v1).
fn own_path(v2: bool) -> String {
    let text = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    text.lines()
        .find_map(|l| {
            let mut p = l.splitn(3, ':');
            let (id, ctl, path) = (p.next()?, p.next()?, p.next()?);
            let hit = if v2 {
                id == "0" && ctl.is_empty()
            } else {
                ctl.split(',').any(|c| c == "blkio")
            };
            hit.then(|| path.trim_start_matches('/').to_string())
        })
        .unwrap_or_default()
}

impl Cgroup {
    /// Creates `volbench-emulate-PID` under this process's cgroup: v2 where `io` is available,
    /// else v1 blkio; a clear error naming the fix where neither is usable.
    pub fn create(dev: (u32, u32)) -> Result<Cgroup> {
        let name = format!("volbench-emulate-{}", std::process::id());
        let m = mounts();
        if let Some((root, _, _)) = m.iter().find(|(_, t, _)| t == "cgroup2") {
            let base = Path::new(root).join(own_path(true));
            let ctl = fs::read_to_string(base.join("cgroup.controllers")).unwrap_or_default();
            if ctl.split_whitespace().any(|c| c == "io") {
                // Children get the io controller only when the parent passes it down.
                let _ = fs::write(base.join("cgroup.subtree_control"), "+io");
                let dir = base.join(&name);
                let held = leftovers::hold(leftovers::Kind::Cgroup, &dir);
                fs::create_dir(&dir)
                    .with_context(|| format!("cannot create cgroup {}", dir.display()))?;
                return Ok(Cgroup {
                    dir,
                    version: Version::V2,
                    dev,
                    last: Default::default(),
                    _held: held,
                });
            }
        }
        if let Some((root, _, _)) = m
            .iter()
            .find(|(_, t, o)| t == "cgroup" && o.split(',').any(|x| x == "blkio"))
        {
            let base = Path::new(root).join(own_path(false));
            let dir = base.join(&name);
            let held = leftovers::hold(leftovers::Kind::Cgroup, &dir);
            fs::create_dir(&dir).with_context(|| {
                format!(
                    "cannot create cgroup {} (emulate needs root)",
                    dir.display()
                )
            })?;
            return Ok(Cgroup {
                dir,
                version: Version::V1,
                dev,
                last: Default::default(),
                _held: held,
            });
        }
        bail!("no cgroup I/O throttle here: neither cgroup v2 with the io controller nor cgroup v1 blkio is mounted (enable CONFIG_BLK_DEV_THROTTLING and mount one)")
    }

    pub fn version(&self) -> &'static str {
        match self.version {
            Version::V2 => "cgroup v2 io.max",
            Version::V1 => "cgroup v1 blkio.throttle",
        }
    }

    /// The path of `cgroup.procs`, for the child to join itself before it runs.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Sets read and write limits (None = unlimited).
    pub fn set(
        &self,
        riops: Option<u64>,
        wiops: Option<u64>,
        rbps: Option<u64>,
        wbps: Option<u64>,
    ) -> Result<()> {
        if self.last.get() == Some([riops, wiops, rbps, wbps]) {
            return Ok(());
        }
        self.last.set(Some([riops, wiops, rbps, wbps]));
        self.limit(self.dev, riops, wiops, rbps, wbps)
    }

    /// Sets the limits on one more device in the same cgroup (a striped target's members),
    /// as [`Cgroup::set`] does on its own device.
    pub fn limit(
        &self,
        (ma, mi): (u32, u32),
        riops: Option<u64>,
        wiops: Option<u64>,
        rbps: Option<u64>,
        wbps: Option<u64>,
    ) -> Result<()> {
        match self.version {
            Version::V2 => {
                let f = |v: Option<u64>| v.map_or("max".to_string(), |x| x.max(1).to_string());
                let line = format!(
                    "{ma}:{mi} riops={} wiops={} rbps={} wbps={}",
                    f(riops),
                    f(wiops),
                    f(rbps),
                    f(wbps)
                );
                fs::write(self.dir.join("io.max"), line).context("writing io.max")?;
            }
            Version::V1 => {
                // 0 removes the rule: unlimited.
                for (file, v) in [
                    ("blkio.throttle.read_iops_device", riops),
                    ("blkio.throttle.write_iops_device", wiops),
                    ("blkio.throttle.read_bps_device", rbps),
                    ("blkio.throttle.write_bps_device", wbps),
                ] {
                    let v = v.map_or(0, |x| x.max(1));
                    fs::write(self.dir.join(file), format!("{ma}:{mi} {v}"))
                        .with_context(|| format!("writing {file}"))?;
                }
            }
        }
        Ok(())
    }

    /// I/Os and bytes done on the device by the cgroup so far: [read, write] each.
    pub fn counters(&self) -> ([u64; 2], [u64; 2]) {
        let (ma, mi) = self.dev;
        let key = format!("{ma}:{mi}");
        match self.version {
            Version::V2 => {
                let text = fs::read_to_string(self.dir.join("io.stat")).unwrap_or_default();
                let mut ios = [0; 2];
                let mut bytes = [0; 2];
                for l in text.lines().filter(|l| l.starts_with(&format!("{key} "))) {
                    for kv in l.split_whitespace().skip(1) {
                        let (k, v) = kv.split_once('=').unwrap_or(("", "0"));
                        let v: u64 = v.parse().unwrap_or(0);
                        match k {
                            "rios" => ios[0] = v,
                            "wios" => ios[1] = v,
                            "rbytes" => bytes[0] = v,
                            "wbytes" => bytes[1] = v,
                            _ => {}
                        }
                    }
                }
                (ios, bytes)
            }
            Version::V1 => (
                v1_counts(&self.dir.join("blkio.throttle.io_serviced"), &key),
                v1_counts(&self.dir.join("blkio.throttle.io_service_bytes"), &key),
            ),
        }
    }
}

fn v1_counts(file: &Path, key: &str) -> [u64; 2] {
    let text = fs::read_to_string(file).unwrap_or_default();
    let mut v = [0; 2];
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 3 && f[0] == key {
            let n = f[2].parse().unwrap_or(0);
            match f[1] {
                "Read" => v[0] = n,
                "Write" => v[1] = n,
                _ => {}
            }
        }
    }
    v
}

impl Drop for Cgroup {
    /// Moves anything still inside (a daemon the command left behind) to the parent, then
    /// removes the cgroup; its limits go with it.
    fn drop(&mut self) {
        let _ = self.set(None, None, None, None);
        // The same undoing the next volbench would do had this one been killed.
        leftovers::remove_cgroup(&self.dir);
    }
}

/// Sets the caps' starting limits, then starts `argv` inside the cgroup: the child joins it
/// before exec and the limits are in force before that, so not one of its I/Os escapes the
/// throttle. (Setting them after the spawn let a fast `dd` write 46 MiB unthrottled first.)
pub fn spawn(cg: &Cgroup, caps: &Caps, argv: &[String]) -> Result<Child> {
    apply(
        cg,
        caps,
        &caps.iops_bucket.map(Bucket::new),
        &caps.bytes_bucket.map(Bucket::new),
        [1.0, 1.0],
    )?;
    // Writing a limit starts the kernel's accounting slice (100 ms in v1): I/O that starts
    // inside that slice is credited with the idle time since the write, and the slice grants
    // then fall out of step with the command's clock. A volbench run started at once measured
    // 7750 IOPS for 3 s under a 7500 cap, a whole slice (750 I/Os) over, where fio, slower to
    // start, measured the cap. Waiting out the slice makes the command's first I/O start a
    // slice of its own, as on a volume it opens.
    std::thread::sleep(SLICE_SETTLE);
    let Some((prog, args)) = argv.split_first() else {
        bail!("give the command to run after --, e.g. volbench emulate --device /dev/sdb --iops 3000 -- fio job.fio");
    };
    let procs = CString::new(cg.procs().as_os_str().as_encoded_bytes())?;
    let mut cmd = Command::new(prog);
    cmd.args(args);
    // SAFETY: between fork and exec only async-signal-safe calls: open, write, close.
    unsafe {
        cmd.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let r = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            if r != 1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn().with_context(|| format!("cannot run '{prog}'"))
}

/// What the controller saw, for the closing summary.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub ios: [u64; 2],
    pub bytes: [u64; 2],
    pub elapsed_s: f64,
    /// When the I/O bucket first ran dry, seconds after start.
    pub burst_ended_s: Option<f64>,
    pub iops_credits_left: Option<f64>,
}

/// Runs the controller until the child (started by [`spawn`], which set the starting limits)
/// exits; `stop` (Ctrl-C) forwards SIGINT to the child.
pub fn control(
    cg: &Cgroup,
    child: &mut Child,
    caps: &Caps,
    stop: &Arc<AtomicBool>,
) -> Result<(ExitStatus, Summary)> {
    let mut io_b = caps.iops_bucket.map(Bucket::new);
    let mut by_b = caps.bytes_bucket.map(Bucket::new);
    let start = Instant::now();
    let mut last = (start, cg.counters());
    let mut sum = Summary::default();
    let mut forwarded = false;
    let mut window = Moving::default();
    // The starting limits are already in force: `spawn` set them before the child ran.
    loop {
        if let Some(st) = child.try_wait()? {
            sum.elapsed_s = start.elapsed().as_secs_f64();
            sum.iops_credits_left = io_b.map(|b| b.balance);
            return Ok((st, sum));
        }
        if stop.load(Ordering::Relaxed) && !forwarded {
            // SAFETY: kill with a pid we own.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            forwarded = true;
        }
        std::thread::sleep(TICK);
        let now = Instant::now();
        let cur = cg.counters();
        let dt = (now - last.0).as_secs_f64();
        let d_ios = [
            cur.0[0] - last.1 .0[0].min(cur.0[0]),
            cur.0[1] - last.1 .0[1].min(cur.0[1]),
        ];
        let d_bytes = [
            cur.1[0] - last.1 .1[0].min(cur.1[0]),
            cur.1[1] - last.1 .1[1].min(cur.1[1]),
        ];
        sum.ios = cur.0;
        sum.bytes = cur.1;
        let rate = window.push(dt, d_ios[0] + d_ios[1], d_bytes[0] + d_bytes[1]);
        if let Some(b) = io_b.as_mut() {
            charge(b, d_ios[0] + d_ios[1], rate[0], dt);
            if b.limit() < b.spec.burst && sum.burst_ended_s.is_none() {
                sum.burst_ended_s = Some((now - start).as_secs_f64());
            }
        }
        if let Some(b) = by_b.as_mut() {
            charge(b, d_bytes[0] + d_bytes[1], rate[1], dt);
        }
        apply(cg, caps, &io_b, &by_b, split(d_ios))?;
        last = (now, cur);
    }
}

/// The rate over the last ticks. The kernel updates the cgroup's counters in batches (every
/// 100 ms here), so one tick sees 750 I/Os and the next none. Accounting each tick alone
/// would charge the first as a burst and credit the second as idle: a bucket drained 1.8x
/// too fast that way. A short moving rate says which side of the baseline the volume runs on.
#[derive(Default)]
struct Moving(std::collections::VecDeque<(f64, u64, u64)>);

impl Moving {
    /// Adds a tick of `dt` seconds; the I/O and byte rates over the window it closes.
    fn push(&mut self, dt: f64, ios: u64, bytes: u64) -> [f64; 2] {
        let w = &mut self.0;
        w.push_back((dt, ios, bytes));
        while w.len() > 1 && w.iter().map(|x| x.0).sum::<f64>() - w[0].0 >= WINDOW_S {
            w.pop_front();
        }
        let span: f64 = w.iter().map(|x| x.0).sum();
        let sum = |f: fn(&(f64, u64, u64)) -> u64| w.iter().map(f).sum::<u64>() as f64 / span;
        [sum(|x| x.1), sum(|x| x.2)]
    }
}

/// Charges a tick's use to a bucket: above the baseline, linearly, so the kernel's batches
/// cancel out exactly; at or below it, as the moving rate's share of the tick.
fn charge(b: &mut Bucket, used: u64, rate: f64, dt: f64) {
    if rate > b.spec.baseline {
        b.spend(used as f64, dt);
    } else {
        b.account(rate * dt, dt);
    }
}

/// Each direction's share of a cap: by the last tick's mix when both were busy, else all of
/// it to each (an idle direction must not be starved when it starts).
fn split(d: [u64; 2]) -> [f64; 2] {
    let t = (d[0] + d[1]) as f64;
    if d[0] == 0 || d[1] == 0 || t == 0.0 {
        return [1.0, 1.0];
    }
    // In 5 % steps, so a steady mix does not rewrite the throttle every tick.
    let r = ((d[0] as f64 / t) * 20.0).round().clamp(2.0, 18.0) / 20.0;
    [r, 1.0 - r]
}

fn apply(
    cg: &Cgroup,
    caps: &Caps,
    io_b: &Option<Bucket>,
    by_b: &Option<Bucket>,
    share: [f64; 2],
) -> Result<()> {
    let iops = io_b.map(|b| b.limit()).or(caps.iops);
    let bw = by_b.map(|b| b.limit()).or(caps.bw_bytes);
    let part = |v: Option<f64>, i: usize| v.map(|x| (x * share[i]).round() as u64);
    cg.set(part(iops, 0), part(iops, 1), part(bw, 0), part(bw, 1))
}
