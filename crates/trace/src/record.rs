//! Records the block I/O issued to a device from the kernel's tracepoints, through a tracefs
//! instance of its own (`instances/volbench-PID`): the global trace buffer, its events and
//! filters are never touched, and removing the instance removes all that was set.
//!
//! blktrace's relay files are the other way to these events, but on kernels that refuse them
//! to this process (`blktrace -d`: "failed open .../trace0: Operation not permitted") only
//! tracefs is left; tracefs works wherever blktrace would, so it is the one used.
//!
//! Events: `block_bio_queue` is each I/O as submitted (what an application asked of the
//! device, before merges: what a replay must issue again); `block_bio_complete` (bio-based
//! drivers such as zram) and `block_rq_complete` (blk-mq devices) give its completion, matched
//! by device and sector. Times are the trace clock `mono`, which tracefs prints in µs.
//!
//! An instance left by a process that no longer runs (SIGKILL) is removed by the next
//! recording; tracefs mounted by a recording is unmounted when it ends, or by the next one.

use crate::own::{Header, TraceWriter};
use crate::pairing::Pairing;
use crate::{Io, Op};
use std::fs;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The events enabled, in the order the header names them.
pub const EVENTS: [&str; 3] = ["block_bio_queue", "block_bio_complete", "block_rq_complete"];
const PREFIX: &str = "volbench-";
/// Where a recording that mounted tracefs says so, for the next one to unmount after a SIGKILL.
const MOUNT_MARK: &str = "/run/volbench-tracefs-mounted";
/// Trace buffer per CPU: room for about 100 000 events between two reads.
const BUFFER_KB: u32 = 16384;

/// What to record.
pub struct Plan<'a> {
    pub device: PathBuf,
    pub duration: Option<Duration>,
    pub output: PathBuf,
    pub stop: &'a AtomicBool,
}

/// What a recording saw.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Recorded {
    pub device: String,
    pub method: String,
    pub ios: u64,
    pub seconds: f64,
    /// Events the kernel dropped (its buffer overran): the trace misses I/Os.
    pub lost_events: u64,
    /// Completions that matched no recorded I/O (issued before the recording began).
    pub unmatched_completions: u64,
    pub interrupted: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RecordError(pub String);

fn err(e: impl std::fmt::Display) -> RecordError {
    RecordError(e.to_string())
}

/// The block device `p` is, as the kernel's trace filter names it (major << 20 | minor), and
/// its size in bytes.
pub fn device_id(p: &Path) -> Result<(u32, u64), RecordError> {
    let m = fs::metadata(p).map_err(|e| err(format!("{}: {e}", p.display())))?;
    if !m.file_type().is_block_device() {
        return Err(err(format!(
            "{} is not a block device: give the device the workload's I/O goes to (`df FILE` \
             names it)",
            p.display()
        )));
    }
    let dev = m.rdev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let size = fs::File::open(p)
        .and_then(|mut f| std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)))
        .unwrap_or(0);
    Ok(((major << 20) | minor, size))
}

/// A tracefs instance of our own, removed (and tracefs unmounted, if we mounted it) on drop.
pub struct Instance {
    dir: PathBuf,
    root: PathBuf,
    mounted: bool,
}

impl Instance {
    /// Finds (or mounts) tracefs, removes instances left by dead recordings, and creates ours
    /// with the block events filtered on `dev`.
    pub fn create(dev: u32) -> Result<Instance, RecordError> {
        let (root, mounted) = tracefs()?;
        sweep(&root);
        let dir = root
            .join("instances")
            .join(format!("{PREFIX}{}", std::process::id()));
        fs::create_dir(&dir).map_err(|e| {
            err(format!(
                "cannot create a tracefs instance at {}: {e} (recording needs root)",
                dir.display()
            ))
        })?;
        let inst = Instance { dir, root, mounted };
        inst.set("trace_clock", "mono")?;
        inst.set("buffer_size_kb", &BUFFER_KB.to_string())?;
        for e in EVENTS {
            let ev = format!("events/block/{e}");
            inst.set(&format!("{ev}/filter"), &format!("dev == {dev}"))?;
            inst.set(&format!("{ev}/enable"), "1")?;
        }
        Ok(inst)
    }

    fn set(&self, file: &str, value: &str) -> Result<(), RecordError> {
        let p = self.dir.join(file);
        fs::write(&p, value).map_err(|e| err(format!("{}: {e}", p.display())))
    }

    pub fn on(&self, on: bool) -> Result<(), RecordError> {
        self.set("tracing_on", if on { "1" } else { "0" })
    }

    /// The events the kernel dropped, over every CPU's buffer.
    fn overruns(&self) -> u64 {
        let Ok(cpus) = fs::read_dir(self.dir.join("per_cpu")) else {
            return 0;
        };
        cpus.filter_map(|c| fs::read_to_string(c.ok()?.path().join("stats")).ok())
            .flat_map(|s| {
                s.lines()
                    .filter_map(|l| l.strip_prefix("overrun: ")?.trim().parse::<u64>().ok())
                    .collect::<Vec<_>>()
            })
            .sum()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.on(false);
        for e in EVENTS {
            let _ = self.set(&format!("events/block/{e}/enable"), "0");
        }
        for _ in 0..50 {
            if fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if self.mounted && !others_left(&self.root) {
            unmount(&self.root);
        }
    }
}

/// tracefs's mount point, mounting it at /sys/kernel/tracing where it is not mounted (true).
fn tracefs() -> Result<(PathBuf, bool), RecordError> {
    for p in ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"] {
        if Path::new(p).join("instances").is_dir() {
            return Ok((PathBuf::from(p), false));
        }
    }
    let root = PathBuf::from("/sys/kernel/tracing");
    let ok = std::process::Command::new("mount")
        .args(["-t", "tracefs", "nodev"])
        .arg(&root)
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !root.join("instances").is_dir() {
        return Err(err(
            "tracefs is not mounted and could not be (`mount -t tracefs nodev \
             /sys/kernel/tracing` as root; the kernel needs CONFIG_FTRACE)",
        ));
    }
    let _ = fs::write(MOUNT_MARK, std::process::id().to_string());
    Ok((root, true))
}

/// Removes the instances of recordings whose process is gone; returns their paths.
fn sweep(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(root.join("instances")) else {
        return Vec::new();
    };
    let mut gone = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !alive(pid) && fs::remove_dir(e.path()).is_ok() {
            gone.push(e.path());
        }
    }
    gone
}

/// What a killed recording left, removed: its tracefs instance, and tracefs itself where it
/// mounted it. Every volbench command calls this at its start; it says what it removed.
pub fn sweep_stale() -> Vec<String> {
    let mut said = Vec::new();
    for root in ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"] {
        for p in sweep(Path::new(root)) {
            said.push(format!(
                "removed the tracefs instance {} of a killed trace recording",
                p.display()
            ));
        }
    }
    sweep_mount();
    said
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

fn others_left(root: &Path) -> bool {
    fs::read_dir(root.join("instances")).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(PREFIX))
    })
}

fn unmount(root: &Path) {
    let _ = std::process::Command::new("umount").arg(root).status();
    let _ = fs::remove_file(MOUNT_MARK);
}

/// Unmounts tracefs that a recording killed before its end had mounted (its mark names a
/// process that is gone and no recording runs). Called at the start of a recording.
pub fn sweep_mount() {
    let Ok(pid) = fs::read_to_string(MOUNT_MARK) else {
        return;
    };
    let root = Path::new("/sys/kernel/tracing");
    match pid.trim().parse::<u32>() {
        Ok(p) if alive(p) => {}
        _ if others_left(root) => {}
        _ => {
            sweep(root);
            if !others_left(root) {
                unmount(root);
            }
        }
    }
}

/// One parsed event line.
#[derive(Debug, PartialEq)]
pub struct Event {
    pub at_ns: u64,
    pub complete: bool,
    pub preflush: bool,
    pub op: Op,
    pub fua: bool,
    pub sector: u64,
    pub sectors: u64,
}

/// Parses a trace_pipe line of one of [`EVENTS`]:
/// `fio-3418 [001] ..... 132.594567: block_bio_queue: 253,0 RS 120 + 8 [fio]`.
pub fn parse_line(line: &str) -> Option<Event> {
    let at = line.find(": block_")?;
    let ts = line[..at].rsplit(' ').next()?;
    let (secs, micros) = ts.split_once('.')?;
    let at_ns = secs.parse::<u64>().ok()? * 1_000_000_000 + micros.parse::<u64>().ok()? * 1000;
    let (event, rest) = line[at + 2..].split_once(": ")?;
    let complete = match event {
        "block_bio_queue" => false,
        "block_bio_complete" | "block_rq_complete" => true,
        _ => return None,
    };
    let t: Vec<&str> = rest.split_whitespace().collect();
    let rwbs = *t.get(1)?;
    let plus = t.iter().position(|&x| x == "+")?;
    let sector = t.get(plus.checked_sub(1)?)?.parse().ok()?;
    let sectors = t.get(plus + 1)?.parse().ok()?;
    let (preflush, op, fua) = rwbs_parts(rwbs)?;
    Some(Event {
        at_ns,
        complete,
        preflush,
        op,
        fua,
        sector,
        sectors,
    })
}

/// The kernel's rwbs letters (blk_fill_rwbs): an optional F (preflush), the op (W, R, D for
/// discard, F for flush, N other), then F for FUA, and A, S, M for ahead, sync, meta.
fn rwbs_parts(s: &str) -> Option<(bool, Op, bool)> {
    let b = s.as_bytes();
    let preflush = b.len() > 1 && b[0] == b'F' && b"WRDFNE".contains(&b[1]);
    let i = preflush as usize;
    let op = match b.get(i)? {
        b'W' => Op::Write,
        b'R' => Op::Read,
        b'D' => Op::Trim,
        b'F' => Op::Flush,
        _ => return None,
    };
    let fua = b.get(i + 1) == Some(&b'F');
    Some((preflush, op, fua))
}

/// Records until the duration is over or `stop` is set, writing volbench's format; `tick`
/// is called about once a second with the I/Os so far.
pub fn record(plan: &Plan, tick: &mut dyn FnMut(u64, Duration)) -> Result<Recorded, RecordError> {
    sweep_mount();
    let (dev, size) = device_id(&plan.device)?;
    let name = plan.device.display().to_string();
    let method = format!("tracefs ({})", EVENTS.join(", "));
    let out = outfile::Opener::log("--output")
        .open(&plan.output)
        .map_err(|e| err(e.to_string()))?;
    let header = Header {
        method: method.clone(),
        files: vec![(name.clone(), Some(size))],
    };
    let mut w = TraceWriter::new(BufWriter::with_capacity(1 << 20, out), &header).map_err(err)?;
    let inst = Instance::create(dev)?;
    let pipe = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(inst.dir.join("trace_pipe"))
        .map_err(err)?;
    let mut feed = Feed::new(pipe);
    let started = Instant::now();
    inst.on(true)?;
    let mut last_tick = started;
    let interrupted = loop {
        let n = feed.pump(&mut w)?;
        let now = Instant::now();
        if plan.stop.load(Relaxed) {
            break true;
        }
        if plan.duration.is_some_and(|d| now - started >= d) {
            break false;
        }
        if now - last_tick >= Duration::from_secs(1) {
            last_tick = now;
            tick(feed.ios, now - started);
        }
        if n == 0 {
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    inst.on(false)?;
    let seconds = started.elapsed().as_secs_f64();
    while feed.pump(&mut w)? > 0 {}
    feed.drain(&mut w, true)?;
    w.finish().map_err(err)?;
    Ok(Recorded {
        device: name,
        method,
        ios: feed.ios,
        seconds,
        lost_events: inst.overruns(),
        unmatched_completions: feed.pairing.unmatched,
        interrupted,
    })
}

/// The pipe's bytes turned into I/Os, paired with their completions and written in order.
struct Feed {
    pipe: fs::File,
    buf: Vec<u8>,
    pairing: Pairing,
    start: Option<u64>,
    ios: u64,
}

impl Feed {
    fn new(pipe: fs::File) -> Feed {
        Feed {
            pipe,
            buf: Vec::with_capacity(1 << 20),
            pairing: Pairing::default(),
            start: None,
            ios: 0,
        }
    }

    /// Reads what the pipe holds now (none: 0) and handles its whole lines.
    fn pump<W: Write>(&mut self, w: &mut TraceWriter<W>) -> Result<usize, RecordError> {
        let mut chunk = [0u8; 1 << 16];
        let n = match self.pipe.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => 0,
            Err(e) => return Err(err(format!("reading the trace: {e}"))),
        };
        self.buf.extend_from_slice(&chunk[..n]);
        while let Some(nl) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=nl).collect();
            if let Some(ev) = std::str::from_utf8(&line).ok().and_then(parse_line) {
                self.event(ev);
            }
        }
        self.drain(w, false)?;
        Ok(n)
    }

    fn event(&mut self, ev: Event) {
        let start = *self.start.get_or_insert(ev.at_ns);
        let t = ev.at_ns.saturating_sub(start);
        let (offset, len) = (ev.sector * 512, ev.sectors * 512);
        if ev.complete {
            self.pairing.completed(0, offset, len, t);
            return;
        }
        let io = |op, offset, len| Io {
            at_ns: t,
            op,
            fua: ev.fua && op == Op::Write,
            file: 0,
            offset,
            len,
            done_ns: None,
        };
        if ev.preflush || ev.op == Op::Flush {
            self.pairing.issued(io(Op::Flush, 0, 0));
        }
        if len > 0 && ev.op != Op::Flush {
            self.pairing.issued(io(ev.op, offset, len));
        }
    }

    fn drain<W: Write>(&mut self, w: &mut TraceWriter<W>, all: bool) -> Result<(), RecordError> {
        while let Some(io) = self.pairing.ready(all) {
            w.write(&io).map_err(err)?;
            self.ios += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_events_as_this_kernel_prints_them() {
        let q = "fio-3418    [001] .....   132.594567: block_bio_queue: 253,0 RS 120 + 8 [fio]";
        let e = parse_line(q).unwrap();
        assert_eq!(
            (e.at_ns, e.complete, e.op),
            (132_594_567_000, false, Op::Read)
        );
        assert_eq!((e.sector, e.sectors), (120, 8));
        let c = "ksoftirqd/0-14 [000] ..s.. 132.869741: block_rq_complete: 7,1 WFS () 120 + 8 be,0,4 [0]";
        let e = parse_line(c).unwrap();
        assert!(e.complete && e.fua && !e.preflush);
        assert_eq!(e.op, Op::Write);
        let f = "kworker-9 [000] ..... 1.000001: block_bio_queue: 253,0 FWS 0 + 0 [kworker]";
        let e = parse_line(f).unwrap();
        assert!(e.preflush);
        assert_eq!(e.sectors, 0);
        assert!(parse_line("# tracer: nop").is_none());
        assert!(parse_line("x 1.0: block_plug: [fio]").is_none());
    }
}
